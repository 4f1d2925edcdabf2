//! The options `pgnkit uci` offers: the `option` lines it answers `uci` with, and what setting
//! each of them does. The hash table belongs to the searcher; the rest is kept here.

use std::sync::OnceLock;
use std::time::Duration;

use crate::analysis::Analyzer;
use crate::chess::Variant;
use crate::search::{self, Searcher};

use super::protocol::number;

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
    /// anything. A number out of an option's range is taken as the nearest end of it, and said.
    pub(crate) fn set(&mut self, name: &str, value: &str, searcher: &mut Searcher) -> Option<String> {
        let value = value.trim();
        let mut said = None;
        let mut spin = |option: &str, min: usize, max: usize, unit: &str| match number(value) {
            Some(n) => {
                let n = usize::try_from(n).unwrap_or(usize::MAX);
                let within = n.clamp(min, max);
                if within != n || value.starts_with('-') {
                    said = Some(format!(
                        "info string {option} {value} is out of range {min}..{max}; using {within}"
                    ));
                }
                Ok(within)
            }
            None => Err(format!("info string {option} needs a whole number of {unit}, not '{value}'")),
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" => match spin("Hash", 1, max_hash_mb(), "megabytes") {
                Ok(mb) => {
                    if let Err(e) = searcher.set_hash_mb(mb) {
                        let kept = searcher.hash_mb();
                        return Some(format!(
                            "info string Hash {mb} MB cannot be allocated ({e}); keeping {kept} MB"
                        ));
                    }
                }
                Err(e) => return Some(e),
            },
            "clear hash" => searcher.new_game(),
            "multipv" => match spin("MultiPV", 1, search::MAX_MULTIPV, "lines") {
                Ok(n) => searcher.set_multipv(n),
                Err(e) => return Some(e),
            },
            "move overhead" => match spin("Move Overhead", 0, MAX_OVERHEAD_MS as usize, "milliseconds") {
                Ok(ms) => self.move_overhead = Duration::from_millis(ms as u64),
                Err(e) => return Some(e),
            },
            "uci_chess960" => match value.to_ascii_lowercase().as_str() {
                "true" => self.chess960 = true,
                "false" => self.chess960 = false,
                _ => return Some(format!("info string UCI_Chess960 needs true or false, not '{value}'")),
            },
            // A variant is a whole rule set: `chess` is standard chess whatever `UCI_Chess960` was
            // (python-chess sends `UCI_Variant`, then `UCI_Chess960`, before each position).
            "uci_variant" => match value.to_ascii_lowercase().as_str() {
                v @ ("chess" | "standard" | "normal" | "crazyhouse" | "zh" | "chess960" | "fischerandom") => {
                    self.chess960 = matches!(v, "chess960" | "fischerandom");
                    self.variant_name = v.to_string();
                }
                v => return Some(format!("info string unsupported variant {v}")),
            },
            "threads" => {
                if let Err(e) = spin("Threads", 1, 1, "threads") {
                    return Some(e);
                }
            }
            "ponder" => {}
            "" => return Some("info string setoption needs name <option>; ignored".to_string()),
            other => return Some(format!("info string unknown option {other}")),
        }
        said
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `UCI_Variant` names a whole rule set, `chess` standard chess whatever came before;
    /// `UCI_Chess960` after it (python-chess's order) turns Chess960 on or off.
    #[test]
    fn a_variant_is_a_whole_rule_set() {
        let mut searcher = Searcher::with_hash_mb(1);
        let mut o = Options::default();
        let mut set = |o: &mut Options, name: &str, value: &str| o.set(name, value, &mut searcher);
        for (name, value, variant) in [
            ("UCI_Variant", "chess960", Variant::Chess960),
            ("UCI_Variant", "chess", Variant::Standard),
            ("UCI_Chess960", "true", Variant::Chess960),
            ("UCI_Variant", "crazyhouse", Variant::Crazyhouse),
            ("UCI_Variant", "fischerandom", Variant::Chess960),
            ("UCI_Variant", "normal", Variant::Standard),
            ("UCI_Variant", "chess", Variant::Standard),
            ("UCI_Chess960", "TRUE", Variant::Chess960),
            ("UCI_Chess960", "false", Variant::Standard),
        ] {
            assert_eq!(set(&mut o, name, value), None, "{name} {value}");
            assert_eq!(o.variant(), variant, "{name} {value}");
        }
        let said = set(&mut o, "UCI_Chess960", "yes");
        assert_eq!(said.as_deref(), Some("info string UCI_Chess960 needs true or false, not 'yes'"));
        assert_eq!(o.variant(), Variant::Standard);
    }

    /// A number out of an option's range is its nearest end, said; a word changes nothing.
    #[test]
    fn spin_values_are_clamped_and_said() {
        let mut searcher = Searcher::with_hash_mb(2);
        let mut o = Options::default();
        let said = o.set("Hash", "-5", &mut searcher);
        assert_eq!(
            said.as_deref(),
            Some(format!("info string Hash -5 is out of range 1..{}; using 1", max_hash_mb()).as_str())
        );
        assert_eq!(searcher.hash_mb(), 1);
        let said = o.set("hash", "lots", &mut searcher);
        assert_eq!(said.as_deref(), Some("info string Hash needs a whole number of megabytes, not 'lots'"));
        assert_eq!(searcher.hash_mb(), 1);
        let said = o.set("MultiPV", "99999999999999999999999", &mut searcher);
        let max = search::MAX_MULTIPV;
        assert_eq!(
            said,
            Some(format!(
                "info string MultiPV 99999999999999999999999 is out of range 1..{max}; using {max}"
            ))
        );
        assert_eq!(searcher.multipv(), max);
        assert!(o.set("Move Overhead", "-1", &mut searcher).is_some());
        assert_eq!(o.move_overhead(), Duration::ZERO);
        assert_eq!(o.set("Move Overhead", "30", &mut searcher), None);
        assert_eq!(o.move_overhead(), Duration::from_millis(30));
    }
}
