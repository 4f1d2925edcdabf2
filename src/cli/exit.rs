//! Exit codes (sysexits-style, as in ../shared/CONVENTIONS.md section 2), listed in `--help`.

use std::process::ExitCode;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)] // every code is documented; not every command can end with each yet
pub enum Code {
    /// Success (also when stdout closed early, as in `| head`).
    Ok = 0,
    /// Finished, but some games (or perft cases) had errors.
    Failures = 1,
    /// Usage error: bad arguments, bad FEN or depth.
    Usage = 2,
    /// Input is not PGN, or a compressed stream is corrupt.
    DataErr = 65,
    /// Input file missing or unreadable.
    NoInput = 66,
    /// Engine not found or failed its handshake.
    Unavailable = 69,
    /// Internal error caught.
    Software = 70,
    /// Cannot create the output file.
    CantCreate = 73,
    /// I/O error while reading or writing (disk full...).
    IoErr = 74,
    /// Interrupted (Ctrl-C).
    Interrupted = 130,
}

impl Code {
    /// The code with this number (an unknown number is an internal error).
    pub fn from_exit(n: u8) -> Code {
        [
            Code::Ok,
            Code::Failures,
            Code::Usage,
            Code::DataErr,
            Code::NoInput,
            Code::Unavailable,
            Code::Software,
            Code::CantCreate,
            Code::IoErr,
            Code::Interrupted,
        ]
        .into_iter()
        .find(|&c| c as u8 == n)
        .unwrap_or(Code::Software)
    }
}

impl From<Code> for ExitCode {
    fn from(c: Code) -> ExitCode {
        ExitCode::from(c as u8)
    }
}

/// The table printed at the end of `--help`.
pub const HELP: &str = "\
Exit codes:
  0    success (also when stdout is closed early, e.g. `| head`)
  1    finished, but some games or perft cases failed
  2    usage error (bad arguments, FEN or depth)
  65   input is not PGN or a compressed stream is corrupt
  66   input file missing or unreadable
  69   engine not found or failed its handshake
  70   internal error
  73   cannot create the output file
  74   I/O error while reading or writing (e.g. disk full)
  130  interrupted (Ctrl-C: check and positions write what they read before it, then stop)";
