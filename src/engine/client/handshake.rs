//! The start of a UCI conversation: `uci`, the engine's `id` and `option` lines up to `uciok`
//! (banners and other lines before it are ignored, as engines print them), then the options in
//! the order engines expect: `Threads` first (it can reallocate the hash), then `Hash`, then the
//! user's, each under the engine's own spelling of its name. An option the engine does not list
//! is not sent: it is an [`AnalysisWarning::UnknownOption`] naming the options it has.

use std::time::{Duration, Instant};

use crate::analysis::AnalysisWarning;

use super::process::{MAX_LINE, Process, Read};

/// An option the engine lists in answer to `uci`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UciOption {
    /// Its name (may hold spaces: `Clear Hash`, `Skill Level`).
    pub name: String,
    /// `check`, `spin`, `combo`, `button` or `string`.
    pub kind: String,
    /// The default value, when given (`<empty>` stays as written).
    pub default: Option<String>,
    /// Smallest value of a `spin`.
    pub min: Option<i64>,
    /// Largest value of a `spin`.
    pub max: Option<i64>,
    /// The values of a `combo`.
    pub vars: Vec<String>,
}

impl UciOption {
    /// Reads an `option name ... type ...` line; `None` for another line or one without a name.
    pub fn parse(line: &str) -> Option<UciOption> {
        let mut tokens = line.split_whitespace();
        if tokens.next() != Some("option") {
            return None;
        }
        let mut option = UciOption::default();
        // The field being read, and its words so far (values may hold spaces).
        let mut field: Option<&str> = None;
        let mut words: Vec<&str> = Vec::new();
        let flush = |field: Option<&str>, words: &mut Vec<&str>, option: &mut UciOption| {
            let value = words.join(" ");
            words.clear();
            match field {
                Some("name") => option.name = value,
                Some("type") => option.kind = value,
                Some("default") => option.default = Some(value),
                Some("min") => option.min = value.parse().ok(),
                Some("max") => option.max = value.parse().ok(),
                Some("var") => option.vars.push(value),
                _ => {}
            }
        };
        for token in tokens {
            // Within a name, only `type` ends it: a name may contain the other keywords.
            let keyword = matches!(token, "name" | "type" | "default" | "min" | "max" | "var")
                && (field != Some("name") || token == "type");
            if keyword {
                flush(field, &mut words, &mut option);
                field = Some(token);
            } else {
                words.push(token);
            }
        }
        flush(field, &mut words, &mut option);
        (!option.name.is_empty()).then_some(option)
    }

    /// `true` for a `combo` listing `value` (case-insensitively).
    pub fn has_var(&self, value: &str) -> bool {
        self.vars.iter().any(|v| v.eq_ignore_ascii_case(value))
    }
}

/// What an engine says about itself before `uciok`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineId {
    /// `id name`.
    pub name: Option<String>,
    /// `id author`.
    pub author: Option<String>,
    /// Its options, in the order listed.
    pub options: Vec<UciOption>,
}

impl EngineId {
    /// The option called `name` (UCI option names are case-insensitive).
    pub fn option(&self, name: &str) -> Option<&UciOption> {
        self.options.iter().find(|o| o.name.eq_ignore_ascii_case(name))
    }
}

/// Why a handshake failed: what happened, and when the engine's pipes closed, the answer they
/// closed before (`uciok`): it may have exited, and its exit status then says more.
pub(crate) struct Failed {
    pub what: String,
    pub closed_before: Option<&'static str>,
}

/// Sends `uci` and reads up to `uciok`, a wait that `interrupted` ends (`Ok(None)`); the error
/// says what happened instead.
pub(crate) fn handshake(
    process: &mut Process,
    timeout: Duration,
    interrupted: Option<fn() -> bool>,
) -> Result<Option<EngineId>, Failed> {
    let closed = |what: String| Failed { what, closed_before: Some("uciok") };
    process.send("uci").map_err(|e| closed(format!("cannot write to it: {e}")))?;
    let deadline = Instant::now() + timeout;
    let mut id = EngineId::default();
    // A line over the bound, skipped as other lines that are no UCI are, and said if it is why
    // `uciok` never came.
    let mut long = String::new();
    loop {
        let line = match process.read_line_until(deadline, interrupted) {
            Read::Line(line) => line,
            Read::TooLong(head) => {
                long = format!(" ({})", AnalysisWarning::long_line(&head, MAX_LINE));
                continue;
            }
            Read::Eof => return Err(closed(format!("it exited before uciok{long}"))),
            Read::Timeout => {
                let what = format!("no uciok within {:.1} s{long}", timeout.as_secs_f64());
                return Err(Failed { what, closed_before: None });
            }
            Read::Interrupted => return Ok(None),
        };
        let line = line.trim();
        if line == "uciok" {
            return Ok(Some(id));
        } else if let Some(rest) = line.strip_prefix("id ") {
            let rest = rest.trim_start();
            if let Some(name) = rest.strip_prefix("name ") {
                id.name = Some(name.trim().to_string());
            } else if let Some(author) = rest.strip_prefix("author ") {
                id.author = Some(author.trim().to_string());
            }
        } else if let Some(option) = UciOption::parse(line) {
            id.options.push(option);
        }
    }
}

/// Sends `isready` and waits for `readyok`, ignoring other lines (`info string`, banners), a
/// wait that `interrupted` ends.
pub(crate) fn wait_ready(
    process: &mut Process,
    timeout: Duration,
    interrupted: Option<fn() -> bool>,
) -> Result<(), Read> {
    process.send("isready").map_err(|_| Read::Eof)?;
    readyok(process, Instant::now() + timeout, interrupted)
}

/// Waits until `deadline` for `readyok`, ignoring other lines, a wait that `interrupted` ends.
pub(crate) fn readyok(
    process: &mut Process,
    deadline: Instant,
    interrupted: Option<fn() -> bool>,
) -> Result<(), Read> {
    loop {
        match process.read_line_until(deadline, interrupted) {
            Read::Line(line) if line.trim() == "readyok" => return Ok(()),
            Read::Line(_) | Read::TooLong(_) => {}
            end => return Err(end),
        }
    }
}

/// The `setoption` commands to send after the handshake, in order, as (name as the engine spells
/// it, value); and a warning for each option asked for that the engine does not list. `Threads`
/// is 1 unless the user sets it; `hash_mb` is `Hash` unless the user sets that too.
pub(crate) fn plan_options(
    id: &EngineId,
    user: &[(String, String)],
    hash_mb: Option<u32>,
) -> (Vec<(String, String)>, Vec<AnalysisWarning>) {
    let asked =
        |name: &str| user.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
    let first: Vec<(String, Option<String>)> = vec![
        ("Threads".into(), asked("Threads").or_else(|| Some("1".into()))),
        ("Hash".into(), asked("Hash").or_else(|| hash_mb.map(|mb| mb.to_string()))),
    ];
    let user_set = |name: &str| user.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
    let threads_asked = user_set("Threads");
    let hash_asked = user_set("Hash") || hash_mb.is_some();
    let mut plan = Vec::new();
    let mut warnings = Vec::new();
    let unknown = |name: &str, warnings: &mut Vec<AnalysisWarning>| {
        warnings.push(AnalysisWarning::UnknownOption {
            name: name.to_string(),
            available: id.options.iter().map(|o| o.name.clone()).collect(),
        })
    };
    for (name, value) in first {
        let Some(value) = value else { continue };
        match id.option(&name) {
            Some(o) => plan.push((o.name.clone(), value)),
            // Threads 1 is pgnkit's default, not the user's wish: silent when the engine has no such option.
            None if (name == "Threads" && threads_asked) || (name == "Hash" && hash_asked) => {
                unknown(&name, &mut warnings)
            }
            None => {}
        }
    }
    for (name, value) in user {
        if name.eq_ignore_ascii_case("Threads") || name.eq_ignore_ascii_case("Hash") {
            continue;
        }
        match id.option(name) {
            Some(o) => plan.push((o.name.clone(), value.clone())),
            None => unknown(name, &mut warnings),
        }
    }
    (plan, warnings)
}

/// The text of a `setoption` command; a `button` is pressed by its name alone.
pub(crate) fn setoption(id: &EngineId, name: &str, value: &str) -> String {
    match id.option(name) {
        Some(o) if o.kind == "button" => format!("setoption name {name}"),
        _ => format!("setoption name {name} value {value}"),
    }
}
