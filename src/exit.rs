//! The exit codes, in one table: each [`Code`] with its number, name and meaning. Failures know
//! their code ([`crate::error::Error::exit_code`]); the command line prints the table in `--help`
//! and turns a `Code` into the process's exit status; a test holds the README's table to it.
//! The numbers are sysexits-style and never change.

use std::fmt;

macro_rules! codes {
    ($($code:ident => $number:literal, $name:literal, $meaning:literal;)*) => {
        /// How a run ended.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code { $(#[doc = $meaning] $code),* }

        impl Code {
            /// Every code, in increasing number.
            pub const ALL: &'static [Code] = &[$(Code::$code),*];
            /// The process exit status.
            pub const fn number(self) -> u8 { match self { $(Code::$code => $number),* } }
            /// A short stable name (sysexits.h's, where the code is one of its).
            pub const fn name(self) -> &'static str { match self { $(Code::$code => $name),* } }
            /// What it means, as `--help` and the README say it.
            pub const fn meaning(self) -> &'static str { match self { $(Code::$code => $meaning),* } }
        }
    };
}

codes! {
    Ok => 0, "ok", "success (also when stdout is closed early, as in `| head`)";
    Failures => 1, "failures", "finished, but some games, positions or perft cases failed (each is reported)";
    Usage => 2, "usage", "usage error: bad arguments, FEN or depth";
    DataErr => 65, "dataerr", "input is not PGN (not one tag pair or move in it), a compressed stream or an evaluation cache is corrupt (or no SQLite database, or no pgnkit cache of this version), or an index sidecar is stale";
    NoInput => 66, "noinput", "input file missing or unreadable";
    Unavailable => 69, "unavailable", "engine not found, failed its handshake, or crashed at every try or hung on 20 positions in a row";
    Software => 70, "software", "internal error";
    CantCreate => 73, "cantcreat", "cannot create the output file";
    IoErr => 74, "ioerr", "I/O error while reading or writing (disk full, a failing disk)";
    Interrupted => 130, "interrupted", "interrupted: Ctrl-C, SIGTERM or SIGHUP (stderr says what the job left)";
}

impl Code {
    /// The table as `--help` ends with it: `Exit codes:` then one line per code.
    pub fn help() -> String {
        let mut text = String::from("Exit codes:");
        for c in Code::ALL {
            text.push_str(&format!("\n  {:<4} {}", c.number(), c.meaning()));
        }
        text
    }
}

impl From<Code> for std::process::ExitCode {
    fn from(c: Code) -> std::process::ExitCode {
        std::process::ExitCode::from(c.number())
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.number(), self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_the_conventions_and_increase() {
        let numbers: Vec<u8> = Code::ALL.iter().map(|c| c.number()).collect();
        assert_eq!(numbers, [0, 1, 2, 65, 66, 69, 70, 73, 74, 130]);
        let names: std::collections::HashSet<&str> = Code::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), Code::ALL.len(), "names are unique");
    }

    #[test]
    fn help_lists_every_code_once() {
        let help = Code::help();
        assert!(help.starts_with("Exit codes:\n  0    success"), "{help}");
        assert!(
            help.ends_with("\n  130  interrupted: Ctrl-C, SIGTERM or SIGHUP (stderr says what the job left)"),
            "{help}"
        );
        assert_eq!(help.lines().count(), Code::ALL.len() + 1);
    }
}
