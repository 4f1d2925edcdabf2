//! Rendering diagnostics and summaries: the text form
//! `pgnkit: FILE:LINE:COL: error: game N (White - Black): ply P: message [kind, byte B]` and JSON
//! Lines records `{"type": ..., "data": ...}`.
//!
//! A `diagnostic` record's `data` holds `file`, `game`, `line`, `column`, `offset` (byte of the
//! decompressed input), `ply` (or null), `severity` (`error`/`warning`), `kind` (a stable code such
//! as `illegal_move`), `san` (the move as written, or null), `fen` (the position it was played in,
//! or null), `white` and `black` (the game's tags, or null) and `message` (the text form's).

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Value, json};

use crate::error::{Diagnostic, Severity};
use crate::io::name::Name;
use crate::pgn::text::without_controls;
use crate::pipeline::counter::Counter;
use crate::pipeline::stats::Stats;

/// One diagnostic as a line of text (no trailing newline).
pub fn diagnostic_text(file: &str, d: &Diagnostic) -> String {
    let ply = d.ply.map(|p| format!("ply {p}: ")).unwrap_or_default();
    // A file name or a tag may hold terminal escapes or a line break: one line, shown, not run.
    let line = format!(
        "pgnkit: {file}:{}:{}: {}: game {} ({}): {ply}{} [{}, byte {}]",
        d.line,
        d.column,
        d.severity.name(),
        d.game,
        d.players(),
        d.message,
        d.kind.code(),
        d.offset
    );
    match without_controls(&line, &[]) {
        Cow::Borrowed(_) => line,
        Cow::Owned(shown) => shown,
    }
}

/// One diagnostic as a JSON Lines record, with its typed fields.
pub fn diagnostic_json(file: &Name, d: &Diagnostic) -> Value {
    json!({"type": "diagnostic", "data": {
        "file": file.json(), "game": d.game, "line": d.line, "column": d.column, "offset": d.offset,
        "ply": d.ply, "severity": d.severity.name(), "kind": d.kind.code(), "san": d.san, "fen": d.fen,
        "white": d.white, "black": d.black, "message": d.message,
    }})
}

fn per_kind(stats: &Stats, severity: Severity) -> Vec<(&'static str, u64)> {
    stats.by_kind.iter().filter(|&&(_, s, _)| s == severity).map(|&(k, _, n)| (k.code(), n)).collect()
}

/// The run's summary as a JSON Lines record; the job's own counts under `counts` when it has some.
pub fn summary_json(job: &str, stats: &Stats, elapsed: Duration) -> Value {
    let secs = elapsed.as_secs_f64().max(1e-9);
    let map = |sev| {
        per_kind(stats, sev)
            .into_iter()
            .map(|(k, n)| (k.to_string(), json!(n)))
            .collect::<serde_json::Map<_, _>>()
    };
    let mut summary = json!({"type": "summary", "data": {
        "job": job, "games": stats.games, "valid": stats.valid_games(), "with_errors": stats.games_with_errors,
        "with_warnings": stats.games_with_warnings, "plies": stats.plies, "bytes": stats.bytes,
        "seconds": secs, "mb_per_s": stats.bytes as f64 / 1e6 / secs, "games_per_s": stats.games as f64 / secs,
        "errors": map(Severity::Error), "warnings": map(Severity::Warning),
    }});
    if !stats.counts.is_empty() {
        let counts: serde_json::Map<_, _> =
            stats.counts.iter().map(|&(k, n)| (k.name().to_string(), json!(n))).collect();
        summary["data"]["counts"] = counts.into();
    }
    summary
}

/// What the records of a run's input are, as its summary names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Records {
    /// PGN games (with their plies).
    Games,
    /// Lines (EPD input, a position a line).
    Lines,
}

impl Records {
    /// What the summary calls them.
    pub fn noun(self) -> &'static str {
        match self {
            Records::Games => "games",
            Records::Lines => "lines",
        }
    }

    /// What one of them is called.
    pub fn one(self) -> &'static str {
        match self {
            Records::Games => "game",
            Records::Lines => "line",
        }
    }
}

/// `n` and its noun, `one` for 1 and `many` otherwise: `1 game`, `0 games`.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The run's summary as text lines for stderr: the games, the diagnostics by kind, then one line
/// per count of the job's own (`positions_written` reads `N positions written`). `unkept` names
/// the output when it was not kept (an input failed, or the run was interrupted): its counts of
/// records written then read as passed, `N positions passed (OUT not written)`.
pub fn summary_text(job: &str, stats: &Stats, elapsed: Duration, unkept: Option<&str>) -> String {
    records_summary_text(job, Records::Games, stats, elapsed, unkept)
}

/// [`summary_text`] of a run whose records are `records` (`stats.games` counts them).
pub fn records_summary_text(
    job: &str,
    records: Records,
    stats: &Stats,
    elapsed: Duration,
    unkept: Option<&str>,
) -> String {
    let secs = elapsed.as_secs_f64().max(1e-9);
    let pace = format!(
        "{:.1} MB in {:.2} s ({:.0} MB/s, {:.0} {}/s)",
        stats.bytes as f64 / 1e6,
        secs,
        stats.bytes as f64 / 1e6 / secs,
        stats.games as f64 / secs,
        records.noun()
    );
    summary_lines(job, records, stats, &pace, unkept)
}

/// [`records_summary_text`] with the end of its first line, what the run went through in how
/// long, as the job says it (`annotate`: positions, not megabytes).
pub fn summary_lines(job: &str, records: Records, stats: &Stats, pace: &str, unkept: Option<&str>) -> String {
    let plies = match records {
        Records::Games => format!(" {};", counted(stats.plies, "ply", "plies")),
        Records::Lines => String::new(),
    };
    let mut s = format!(
        "pgnkit {job}: {}, {} valid, {} with errors, {} with warnings only;{plies} {pace}\n",
        counted(stats.games, records.one(), records.noun()),
        stats.valid_games(),
        stats.games_with_errors,
        stats.games_with_warnings,
    );
    for (label, sev) in [("errors", Severity::Error), ("warnings", Severity::Warning)] {
        let kinds = per_kind(stats, sev);
        if !kinds.is_empty() {
            let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            s.push_str(&format!("  {label}: {}\n", list.join(", ")));
        }
    }
    // In one order whatever the order the counts first came in (a game's fate, a repair).
    let mut counts = stats.counts.clone();
    counts.sort_unstable();
    for (counter, n) in counts {
        match (unkept, passed(counter)) {
            (Some(out), Some(words)) => s.push_str(&format!("  {n} {words} ({out} not written)\n")),
            _ => s.push_str(&format!("  {n} {}\n", counter.name().replace('_', " "))),
        }
    }
    s
}

/// What a count of records written says when the output was not kept.
fn passed(counter: Counter) -> Option<&'static str> {
    match counter {
        Counter::Written | Counter::Annotated => Some("passed"),
        Counter::PositionsWritten => Some("positions passed"),
        Counter::WrittenAsRead => Some("passed as read"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Kind;

    /// A file name, a player or a message with terminal escapes or a line break gives one line
    /// of text, the characters shown escaped.
    #[test]
    fn a_diagnostic_line_holds_no_control_character() {
        let d = Diagnostic {
            kind: Kind::IllegalMove,
            severity: Severity::Error,
            game: 1,
            white: Some("Evil\x1b[31mRED\x1b]0;title\x07".into()),
            message: "bad\rmove".into(),
            ..Diagnostic::default()
        };
        let line = diagnostic_text("x\npgnkit: forged.pgn:1:1: error", &d);
        assert!(!line.chars().any(char::is_control), "{line:?}");
        assert!(
            line.contains(r"x\npgnkit: forged") && line.contains(r"Evil\u{1b}[31mRED\u{1b}]0;title\u{7}"),
            "{line}"
        );
        assert!(line.contains(r"bad\rmove"), "{line}");
    }

    #[test]
    fn diagnostics_carry_typed_fields_in_json_and_the_same_facts_in_text() {
        let d = Diagnostic {
            kind: Kind::IllegalMove,
            severity: Severity::Error,
            game: 2,
            offset: 120,
            line: 11,
            column: 13,
            ply: Some(3),
            san: Some("Ke3".into()),
            fen: Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2".into()),
            white: Some("A".into()),
            black: None,
            message:
                "illegal SAN \"Ke3\" in position rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
                    .into(),
        };
        assert_eq!(
            diagnostic_text("a.pgn", &d),
            format!(
                "pgnkit: a.pgn:11:13: error: game 2 (A - ?): ply 3: {} [illegal_move, byte 120]",
                d.message
            )
        );
        let j = diagnostic_json(&"a.pgn".into(), &d);
        assert_eq!(j["type"], "diagnostic");
        let data = &j["data"];
        assert_eq!(
            (data["kind"].as_str(), data["ply"].as_u64(), data["san"].as_str()),
            (Some("illegal_move"), Some(3), Some("Ke3"))
        );
        assert_eq!(data["fen"].as_str(), d.fen.as_deref());
        assert_eq!((data["white"].as_str(), data["black"].is_null()), (Some("A"), true));
        assert_eq!(
            (data["line"].as_u64(), data["column"].as_u64(), data["offset"].as_u64()),
            (Some(11), Some(13), Some(120))
        );
        assert_eq!(data["message"].as_str(), Some(d.message.as_str()));
    }

    #[test]
    fn a_jobs_counts_show_in_both_summaries() {
        let mut stats = Stats { games: 3, ..Stats::default() };
        assert!(summary_json("check", &stats, Duration::from_secs(1))["data"].get("counts").is_none());
        stats.add(Counter::PositionsWritten, 42);
        assert!(
            summary_text("positions", &stats, Duration::from_secs(1), None)
                .ends_with("\n  42 positions written\n")
        );
        let unkept = summary_text("positions", &stats, Duration::from_secs(1), Some("p.csv"));
        assert!(unkept.ends_with("\n  42 positions passed (p.csv not written)\n"), "{unkept}");
        let lines = records_summary_text("annotate", Records::Lines, &stats, Duration::from_secs(1), None);
        assert!(
            lines.starts_with(
                "pgnkit annotate: 3 lines, 3 valid, 0 with errors, 0 with warnings only; 0.0 MB"
            )
        );
        assert!(lines.contains(", 3 lines/s)\n") && !lines.contains("plies"), "{lines}");
        assert_eq!(
            summary_json("positions", &stats, Duration::from_secs(1))["data"]["counts"]["positions_written"],
            42
        );
    }

    #[test]
    fn the_counts_show_in_one_order_whatever_order_they_came_in() {
        let text = |order: &[Counter]| {
            let mut stats = Stats { games: 3, ..Stats::default() };
            order.iter().for_each(|&c| stats.add(c, 1));
            summary_text("clean", &stats, Duration::from_secs(1), None)
        };
        let repaired = Counter::Repaired(crate::pipeline::counter::RepairKind::Encoding);
        let a = text(&[Counter::Duplicates, repaired, Counter::Written, Counter::Filtered]);
        assert_eq!(a, text(&[Counter::Written, Counter::Filtered, Counter::Duplicates, repaired]));
        let at = |what: &str| a.find(what).expect(what);
        assert!(at("1 written") < at("1 filtered") && at("1 filtered") < at("1 duplicates"), "{a}");
    }
}
