//! Rendering diagnostics and summaries: the text form
//! `pgnkit: FILE:LINE:COL: error: game N (White - Black): ply P: message` and JSON Lines records
//! `{"type": ..., "data": ...}` (see ../shared/CONVENTIONS.md section 2).

use std::time::Duration;

use serde_json::{Value, json};

use crate::error::{Diagnostic, Severity};
use crate::pipeline::stats::Stats;

/// One diagnostic as a line of text (no trailing newline).
pub fn diagnostic_text(file: &str, d: &Diagnostic) -> String {
    let ply = d.ply.map(|p| format!("ply {p}: ")).unwrap_or_default();
    format!(
        "pgnkit: {file}:{}:{}: {}: game {} ({}): {ply}{} [{}, byte {}]",
        d.line,
        d.col,
        d.severity.name(),
        d.game,
        d.players,
        d.message,
        d.kind.code(),
        d.offset
    )
}

/// One diagnostic as a JSON Lines record.
pub fn diagnostic_json(file: &str, d: &Diagnostic) -> Value {
    json!({"type": "diagnostic", "data": {
        "file": file, "line": d.line, "col": d.col, "offset": d.offset, "game": d.game, "ply": d.ply,
        "severity": d.severity.name(), "kind": d.kind.code(), "players": d.players, "message": d.message,
    }})
}

fn per_kind(stats: &Stats, severity: Severity) -> Vec<(&'static str, u64)> {
    stats.by_kind.iter().filter(|&&(_, s, _)| s == severity).map(|&(k, _, n)| (k.code(), n)).collect()
}

/// The run's summary as a JSON Lines record.
pub fn summary_json(job: &str, stats: &Stats, elapsed: Duration) -> Value {
    let secs = elapsed.as_secs_f64().max(1e-9);
    let map = |sev| {
        per_kind(stats, sev)
            .into_iter()
            .map(|(k, n)| (k.to_string(), json!(n)))
            .collect::<serde_json::Map<_, _>>()
    };
    json!({"type": "summary", "data": {
        "job": job, "games": stats.games, "valid": stats.valid_games(), "with_errors": stats.games_with_errors,
        "with_warnings": stats.games_with_warnings, "plies": stats.plies, "bytes": stats.bytes,
        "seconds": secs, "mb_per_s": stats.bytes as f64 / 1e6 / secs, "games_per_s": stats.games as f64 / secs,
        "errors": map(Severity::Error), "warnings": map(Severity::Warning),
    }})
}

/// The run's summary as text lines for stderr.
pub fn summary_text(job: &str, stats: &Stats, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64().max(1e-9);
    let mut s = format!(
        "pgnkit {job}: {} games, {} valid, {} with errors, {} with warnings only; {} plies; {:.1} MB in {:.2} s ({:.0} MB/s, {:.0} games/s)\n",
        stats.games,
        stats.valid_games(),
        stats.games_with_errors,
        stats.games_with_warnings,
        stats.plies,
        stats.bytes as f64 / 1e6,
        secs,
        stats.bytes as f64 / 1e6 / secs,
        stats.games as f64 / secs
    );
    for (label, sev) in [("errors", Severity::Error), ("warnings", Severity::Warning)] {
        let kinds = per_kind(stats, sev);
        if !kinds.is_empty() {
            let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            s.push_str(&format!("  {label}: {}\n", list.join(", ")));
        }
    }
    s
}
