//! The options `pgnkit uci` offers: the `option` lines it answers `uci` with, and what setting
//! each of them does. The hash table belongs to the searcher; the rest is kept here.

use std::sync::OnceLock;
use std::time::Duration;

use crate::analysis::Analyzer;
use crate::chess::Variant;
use crate::search::{self, Searcher};

/// Largest `Hash` offered in megabytes, whatever the machine's memory.
const HASH_CAP_MB: usize = 65_536;

/// Largest `Hash` offered and accepted, in megabytes: half the machine's memory (the rest is the
/// GUI's, the system's and other engines'), at most [`HASH_CAP_MB`], which is also the answer
/// where the memory is not known.
fn max_hash_mb() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        memory_mb().map_or(HASH_CAP_MB, |mb| (mb / 2).clamp(search::DEFAULT_HASH_MB, HASH_CAP_MB))
    })
}

/// The machine's memory in megabytes (`MemTotal` of Linux's `/proc/meminfo`).
fn memory_mb() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb = text.lines().find_map(|l| l.strip_prefix("MemTotal:"))?.trim().strip_suffix("kB")?;
    Some(kb.trim().parse::<usize>().ok()? / 1024)
}

/// `Move Overhead` unless set, in milliseconds (Stockfish's).
const DEFAULT_OVERHEAD_MS: u64 = 10;
/// Largest `Move Overhead` in milliseconds.
const MAX_OVERHEAD_MS: u64 = 5000;

/// The options that are not the searcher's.
pub(crate) struct Options {
    variant_name: String,
    chess960: bool,
    move_overhead: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            variant_name: "chess".into(),
            chess960: false,
            move_overhead: Duration::from_millis(DEFAULT_OVERHEAD_MS),
        }
    }
}

impl Options {
    /// The variant `UCI_Variant` and `UCI_Chess960` select.
    pub(crate) fn variant(&self) -> Variant {
        match self.variant_name.as_str() {
            "crazyhouse" | "zh" => Variant::Crazyhouse,
            _ if self.chess960 => Variant::Chess960,
            _ => Variant::Standard,
        }
    }

    /// The time the move takes to reach the GUI's clock, taken off every time limit.
    pub(crate) fn move_overhead(&self) -> Duration {
        self.move_overhead
    }

    /// The `option` lines, as `uci` lists them.
    pub(crate) fn lines() -> [String; 8] {
        [
            format!(
                "option name Hash type spin default {} min 1 max {}",
                search::DEFAULT_HASH_MB,
                max_hash_mb()
            ),
            "option name Threads type spin default 1 min 1 max 1".to_string(),
            "option name Clear Hash type button".to_string(),
            format!("option name MultiPV type spin default 1 min 1 max {}", search::MAX_MULTIPV),
            // GUIs send `go ponder` only to an engine that offers it; it needs no setting here.
            "option name Ponder type check default false".to_string(),
            format!(
                "option name Move Overhead type spin default {DEFAULT_OVERHEAD_MS} min 0 max {MAX_OVERHEAD_MS}"
            ),
            "option name UCI_Chess960 type check default false".to_string(),
            "option name UCI_Variant type combo default chess var chess var crazyhouse".to_string(),
        ]
    }

    /// Sets option `name` (any case) to `value`; what to say about it (`info string ...`), if
    /// anything.
    pub(crate) fn set(&mut self, name: &str, value: &str, searcher: &mut Searcher) -> Option<String> {
        let value = value.trim();
        match name.to_ascii_lowercase().as_str() {
            "hash" => match value.parse::<usize>() {
                Ok(mb) => {
                    let mb = mb.clamp(1, max_hash_mb());
                    if let Err(e) = searcher.set_hash_mb(mb) {
                        let kept = searcher.hash_mb();
                        return Some(format!(
                            "info string Hash {mb} MB cannot be allocated ({e}); keeping {kept} MB"
                        ));
                    }
                }
                Err(_) => return Some("info string Hash needs a number of megabytes".into()),
            },
            "clear hash" => searcher.new_game(),
            "multipv" => match value.parse::<usize>() {
                Ok(n) => searcher.set_multipv(n),
                Err(_) => return Some("info string MultiPV needs a number of lines".into()),
            },
            "move overhead" => match value.parse::<u64>() {
                Ok(ms) => self.move_overhead = Duration::from_millis(ms.min(MAX_OVERHEAD_MS)),
                Err(_) => return Some("info string Move Overhead needs a number of milliseconds".into()),
            },
            "uci_chess960" => self.chess960 = value.eq_ignore_ascii_case("true"),
            "uci_variant" => match value.to_ascii_lowercase().as_str() {
                v @ ("chess" | "standard" | "normal" | "crazyhouse" | "zh" | "chess960" | "fischerandom") => {
                    self.variant_name = v.to_string();
                    if matches!(v, "chess960" | "fischerandom") {
                        self.chess960 = true;
                    }
                }
                v => return Some(format!("info string unsupported variant {v}")),
            },
            "threads" | "ponder" => {}
            other => return Some(format!("info string unknown option {other}")),
        }
        None
    }
}
