//! UCI messages as data: parsing what a GUI sends to an engine, formatting what an engine answers,
//! and turning clock information into a time budget. No processes, no chess rules: moves stay
//! text here and are resolved against a position by the server (or client).
//!
//! ```
//! use pgnkit::engine::protocol::{Command, PositionStart};
//! let cmd = Command::parse("position startpos moves e2e4 e7e5");
//! assert_eq!(cmd, Command::Position { start: PositionStart::StartPos, moves: vec!["e2e4".into(), "e7e5".into()] });
//! ```

use std::fmt::Write as _;
use std::time::Duration;

use crate::analysis::Limit;
use crate::chess::Color;
use crate::search::{Info, TimeUse};

/// Where a `position` command starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionStart {
    /// `startpos`.
    StartPos,
    /// `fen <fen>` (the fields joined by single spaces).
    Fen(String),
}

/// The parameters of `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// White's remaining time.
    pub wtime: Option<Duration>,
    /// Black's remaining time.
    pub btime: Option<Duration>,
    /// White's increment.
    pub winc: Option<Duration>,
    /// Black's increment.
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Depth limit in plies.
    pub depth: Option<u32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Search for a mate in this many moves (treated as a depth of `2 * mate` plies).
    pub mate: Option<u32>,
    /// Fixed time.
    pub movetime: Option<Duration>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Pondering (searched like `infinite` until `ponderhit` or `stop`).
    pub ponder: bool,
    /// Restrict the root to these moves (kept as text).
    pub searchmoves: Vec<String>,
    /// Parameters given something other than a whole number (`depth ten`): left unset, each kept
    /// as its name and value for the engine to say so.
    pub not_numbers: Vec<String>,
}

/// A message from the GUI to the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`.
    Uci,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`.
    IsReady,
    /// `setoption name <name> [value <value>]` (names keep their case; compare case-insensitively).
    SetOption {
        /// Option name.
        name: String,
        /// Option value, if given.
        value: Option<String>,
    },
    /// `ucinewgame`.
    UciNewGame,
    /// `position startpos|fen <fen> [moves <m>...]`.
    Position {
        /// The starting position.
        start: PositionStart,
        /// Moves played from it, as UCI text.
        moves: Vec<String>,
    },
    /// `go ...`.
    Go(Go),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// A known command that cannot be carried out as written (`position` with neither
    /// `startpos` nor `fen`): ignored, as Stockfish does, and said, this being why.
    Ignored(String),
    /// Anything else (ignored by the engine, as UCI asks, and said), or an empty line or
    /// `register` (said nothing of).
    Unknown(String),
}

/// A whole number as a GUI sends it (`go`, a `spin` option, xboard's `time`): a negative one is 0
/// (some GUIs send negative times when the clock has run out) and one past `u64` is `u64::MAX`,
/// which its user then caps; `None` when `token` is not a number.
pub(crate) fn number(token: &str) -> Option<u64> {
    let digits = token.strip_prefix(['-', '+']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if token.starts_with('-') { Some(0) } else { Some(digits.parse().unwrap_or(u64::MAX)) }
}

impl Command {
    /// Parses one line. Unknown commands and malformed parameters never fail: unknown tokens are
    /// skipped, as UCI requires.
    pub fn parse(line: &str) -> Command {
        let mut tokens = line.split_whitespace();
        let Some(first) = tokens.next() else { return Command::Unknown(String::new()) };
        match first {
            "uci" => Command::Uci,
            "debug" => Command::Debug(tokens.next() == Some("on")),
            // A UCI command for engines that ask to be registered; this one never does.
            "register" => Command::Unknown(String::new()),
            "isready" => Command::IsReady,
            "ucinewgame" => Command::UciNewGame,
            "stop" => Command::Stop,
            "ponderhit" => Command::PonderHit,
            "quit" => Command::Quit,
            "setoption" => {
                let rest: Vec<&str> = tokens.collect();
                let name_at = rest.iter().position(|&t| t == "name");
                let value_at = rest.iter().position(|&t| t == "value");
                let name_end = value_at.unwrap_or(rest.len());
                let name = name_at.map_or(String::new(), |i| rest[(i + 1).min(name_end)..name_end].join(" "));
                let value = value_at.map(|i| rest[i + 1..].join(" "));
                Command::SetOption { name, value }
            }
            "position" => {
                let rest: Vec<&str> = tokens.collect();
                let moves_at = rest.iter().position(|&t| t == "moves").unwrap_or(rest.len());
                let start = match rest.first() {
                    Some(&"fen") => PositionStart::Fen(rest[1..moves_at].join(" ")),
                    Some(&"startpos") => PositionStart::StartPos,
                    other => {
                        let what = other.map_or(String::new(), |t| format!(" {t}"));
                        return Command::Ignored(format!(
                            "position{what}: needs startpos or fen; ignored, the position stays"
                        ));
                    }
                };
                let moves = rest.get(moves_at + 1..).unwrap_or(&[]).iter().map(|s| s.to_string()).collect();
                Command::Position { start, moves }
            }
            "go" => {
                let mut go = Go::default();
                let mut tokens = tokens.peekable();
                while let Some(t) = tokens.next() {
                    // The value of a numeric parameter, as `number` reads it.
                    let mut value = || {
                        let v = tokens.next().unwrap_or("");
                        let n = number(v);
                        if n.is_none() {
                            go.not_numbers.push(format!("{t} {v}").trim_end().to_string());
                        }
                        n
                    };
                    let ms = |n: Option<u64>| n.map(Duration::from_millis);
                    let plies = |n: Option<u64>| n.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
                    match t {
                        "wtime" => go.wtime = ms(value()),
                        "btime" => go.btime = ms(value()),
                        "winc" => go.winc = ms(value()),
                        "binc" => go.binc = ms(value()),
                        "movetime" => go.movetime = ms(value()),
                        "movestogo" => go.movestogo = plies(value()),
                        "depth" => go.depth = plies(value()),
                        "nodes" => go.nodes = value(),
                        "mate" => go.mate = plies(value()),
                        "infinite" => go.infinite = true,
                        "ponder" => go.ponder = true,
                        "searchmoves" => {
                            while let Some(m) = tokens.next_if(|m| !GO_KEYWORDS.contains(m)) {
                                go.searchmoves.push(m.to_string());
                            }
                        }
                        _ => {}
                    }
                }
                Command::Go(go)
            }
            _ => Command::Unknown(line.trim().to_string()),
        }
    }
}

const GO_KEYWORDS: [&str; 12] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "ponder",
    "searchmoves",
];

impl Go {
    /// The search limit for the side `turn`: explicit depth/nodes/movetime as given, clock times
    /// turned into a movetime budget, both less `overhead` (UCI's `Move Overhead`: the time to
    /// get the move to the GUI's clock); `None` fields everywhere means "until stop".
    pub fn limit(&self, turn: Color, overhead: Duration) -> Limit {
        let mut limit = Limit { nodes: self.nodes, depth: self.depth, movetime: self.movetime };
        if let Some(mate) = self.mate {
            limit.depth = Some(limit.depth.unwrap_or(u32::MAX).min(mate.saturating_mul(2)));
        }
        if !(self.infinite || self.ponder) {
            limit.movetime = self.move_time(turn, overhead);
        }
        limit
    }

    /// How the search spends its time: all of a `movetime`, a share of a clock.
    pub fn time_use(&self) -> TimeUse {
        let clock = self.wtime.is_some() || self.btime.is_some();
        if clock && self.movetime.is_none() { TimeUse::Budget } else { TimeUse::Exact }
    }

    /// The time for the move of `turn`: `movetime`, within the clock's budget when there is a
    /// clock (for `go ponder`, the time from `ponderhit` on). A clock given for the other side
    /// alone leaves `turn` no time, as Stockfish reads it: it moves at once instead of searching
    /// without end. Both times are less `overhead`, and at least a millisecond.
    pub fn move_time(&self, turn: Color, overhead: Duration) -> Option<Duration> {
        let (time, inc) = if turn.is_white() { (self.wtime, self.winc) } else { (self.btime, self.binc) };
        let timed = self.wtime.is_some() || self.btime.is_some();
        let less = |t: Duration| t.saturating_sub(overhead).max(Duration::from_millis(1));
        let movetime = self.movetime.map(less);
        match time.or(timed.then_some(Duration::ZERO)) {
            Some(time) => {
                let time = time.saturating_sub(overhead);
                Some(
                    movetime.map_or(budget(time, inc, self.movestogo), |t| {
                        t.min(time).max(Duration::from_millis(1))
                    }),
                )
            }
            None => movetime,
        }
    }
}

/// Time for one move: an even share of the remaining time (a 30-move horizon without
/// `movestogo`) plus most of the increment, never more than the remaining time minus a safety
/// margin for I/O.
pub fn budget(remaining: Duration, inc: Option<Duration>, movestogo: Option<u32>) -> Duration {
    let moves = movestogo.unwrap_or(30).clamp(1, 50);
    let margin = Duration::from_millis(50).min(remaining / 10);
    let share = remaining / moves + inc.unwrap_or_default() * 3 / 4;
    share
        .min(remaining.saturating_sub(margin) / 2)
        .min(remaining.saturating_sub(margin))
        .max(Duration::from_millis(1))
}

/// An `info` line for a completed iteration, `info depth 12 seldepth 18 score cp 31 nodes ...
/// nps ... hashfull ... time ... pv e2e4 e7e5`, its moves `pv` written as UCI; with `multipv`
/// (`MultiPV` above 1), the line's rank follows the depths (`multipv 2`), as Stockfish writes it.
pub fn info_line(info: &Info, pv: &[String], multipv: bool) -> String {
    let Info { depth, seldepth, score, nodes, nps, hashfull, time, .. } = info;
    let mut s = String::with_capacity(96 + 6 * pv.len());
    let _ = write!(s, "info depth {depth} seldepth {seldepth}");
    if multipv {
        let _ = write!(s, " multipv {}", info.multipv);
    }
    let _ = write!(s, " score {score} nodes {nodes} nps {nps} hashfull {hashfull} time {}", time.as_millis());
    if !pv.is_empty() {
        s.push_str(" pv");
        for m in pv {
            s.push(' ');
            s.push_str(m);
        }
    }
    s
}

/// The final answer: `bestmove e2e4 [ponder e7e5]`, or `bestmove (none)` when there is no move.
pub fn bestmove_line(best: Option<&str>, ponder: Option<&str>) -> String {
    match (best, ponder) {
        (Some(b), Some(p)) => format!("bestmove {b} ponder {p}"),
        (Some(b), None) => format!("bestmove {b}"),
        (None, _) => "bestmove (none)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Score;

    #[test]
    fn parses_commands() {
        assert_eq!(Command::parse("uci"), Command::Uci);
        assert_eq!(Command::parse("  isready \r"), Command::IsReady);
        assert_eq!(
            Command::parse("setoption name Clear Hash"),
            Command::SetOption { name: "Clear Hash".into(), value: None }
        );
        assert_eq!(
            Command::parse("setoption name UCI_Variant value crazyhouse"),
            Command::SetOption { name: "UCI_Variant".into(), value: Some("crazyhouse".into()) }
        );
        assert_eq!(
            Command::parse("position fen 8/8/8/8/8/8/8/K6k w - - 0 1 moves a1a2"),
            Command::Position {
                start: PositionStart::Fen("8/8/8/8/8/8/8/K6k w - - 0 1".into()),
                moves: vec!["a1a2".into()]
            }
        );
        assert_eq!(
            Command::parse("position startpos"),
            Command::Position { start: PositionStart::StartPos, moves: vec![] }
        );
        let Command::Go(go) =
            Command::parse("go wtime 60000 btime -5 winc 1000 movestogo 20 searchmoves e2e4 d2d4 depth 9")
        else {
            panic!("go")
        };
        assert_eq!(go.wtime, Some(Duration::from_secs(60)));
        assert_eq!(go.btime, Some(Duration::ZERO));
        assert_eq!((go.movestogo, go.depth), (Some(20), Some(9)));
        assert_eq!(go.searchmoves, ["e2e4", "d2d4"]);
        assert_eq!(Command::parse("frobnicate 3"), Command::Unknown("frobnicate 3".into()));
        assert_eq!(Command::parse("register later"), Command::Unknown(String::new()), "said nothing of");
        // Stockfish ignores a `position` with neither start; it is not the start position.
        for line in ["position", "position  ", "position moves e2e4", "position start"] {
            assert!(matches!(Command::parse(line), Command::Ignored(_)), "{line}");
        }
    }

    /// Numbers past a parameter's type are its largest, which the searcher caps (depth at its
    /// deepest ply), never "no limit"; negative ones are 0; words are said, not read as unset.
    #[test]
    fn out_of_range_go_numbers_are_clamped() {
        let Command::Go(go) = Command::parse(
            "go depth 99999999999 nodes 99999999999999999999999 movetime 99999999999999999999 mate -3 movestogo +7",
        ) else {
            panic!("go")
        };
        assert_eq!(
            (go.depth, go.nodes, go.mate, go.movestogo),
            (Some(u32::MAX), Some(u64::MAX), Some(0), Some(7))
        );
        assert_eq!(go.movetime, Some(Duration::from_millis(u64::MAX)));
        assert!(go.not_numbers.is_empty());
        let limit = go.limit(Color::White, Duration::ZERO);
        assert_eq!((limit.depth, limit.nodes), (Some(0), Some(u64::MAX)));
        // A clock too large to read is not "no time left".
        let Command::Go(go) = Command::parse("go wtime 99999999999999999999 btime 1000") else {
            panic!("go")
        };
        let t = go.limit(Color::White, Duration::ZERO).movetime.expect("a budget");
        assert!(t > Duration::from_secs(1 << 40), "{t:?}");
        let Command::Go(go) = Command::parse("go wtime -1 depth ten nodes 1e6 winc") else { panic!("go") };
        assert_eq!((go.wtime, go.depth, go.nodes, go.winc), (Some(Duration::ZERO), None, None, None));
        assert_eq!(go.not_numbers, ["depth ten", "nodes 1e6", "winc"]);
        assert_eq!([number("-0"), number("+"), number("12x"), number("007")], [Some(0), None, None, Some(7)]);
    }

    #[test]
    fn limits_and_budgets() {
        let go =
            Go { wtime: Some(Duration::from_secs(60)), winc: Some(Duration::from_secs(1)), ..Go::default() };
        let no = Duration::ZERO;
        let t = go.limit(Color::White, no).movetime.expect("budget");
        assert!(t > Duration::from_secs(2) && t < Duration::from_secs(4), "{t:?}");
        // White's clock alone: Black has none left.
        assert_eq!(go.limit(Color::Black, no).movetime, Some(Duration::from_millis(1)));
        assert_eq!(
            Go { winc: Some(Duration::from_secs(1)), ..Go::default() }.limit(Color::White, no).movetime,
            None
        );
        assert!(budget(Duration::from_millis(20), None, Some(1)) <= Duration::from_millis(20));
        let go = Go { depth: Some(6), infinite: true, ..Go::default() };
        assert_eq!(go.limit(Color::White, no), Limit::depth(6));
        assert_eq!(Go { mate: Some(3), ..Go::default() }.limit(Color::White, no).depth, Some(6));
        // The move overhead comes off a movetime, and off a clock before it is shared out.
        let ms = Duration::from_millis;
        let go = Go { movetime: Some(ms(1000)), ..Go::default() };
        assert_eq!(go.limit(Color::White, ms(30)).movetime, Some(ms(970)));
        assert_eq!(go.limit(Color::White, ms(5000)).movetime, Some(ms(1)));
        let go = Go { wtime: Some(ms(3000)), movestogo: Some(1), ..Go::default() };
        assert_eq!(go.limit(Color::White, ms(1000)).movetime, Some(budget(ms(2000), None, Some(1))));
        let go = Go { wtime: Some(ms(3000)), movetime: Some(ms(2500)), ..Go::default() };
        assert_eq!(go.limit(Color::White, ms(1000)).movetime, Some(ms(1500)));
    }

    #[test]
    fn formats_answers() {
        let info = Info {
            depth: 3,
            seldepth: 5,
            score: Score::Mate(-2),
            nodes: 1000,
            nps: 50_000,
            time: Duration::from_millis(20),
            hashfull: 7,
            pv: Vec::new(),
            multipv: 2,
        };
        let line = info_line(&info, &["e2e4".into()], false);
        assert_eq!(
            line,
            "info depth 3 seldepth 5 score mate -2 nodes 1000 nps 50000 hashfull 7 time 20 pv e2e4"
        );
        let line = info_line(&info, &["e2e4".into()], true);
        assert_eq!(
            line,
            "info depth 3 seldepth 5 multipv 2 score mate -2 nodes 1000 nps 50000 hashfull 7 time 20 pv e2e4"
        );
        assert_eq!(bestmove_line(Some("e2e4"), Some("e7e5")), "bestmove e2e4 ponder e7e5");
        assert_eq!(bestmove_line(None, None), "bestmove (none)");
    }
}
