//! What `clean` repairs in a game, each logged as a [`Repair`] (kind, before, after): the tag
//! values it writes differently (dates, variant names, a repaired FEN, a missing SetUp or roster
//! tag), text that was not UTF-8 (tag values and comments), the result it settles on, and the
//! moves and results the replay read from text that was not their canonical form. A game's
//! repairs are all counted ([`Tally`]); the first [`LOGGED`] of each kind are kept as records.

use crate::chess::Position;
use crate::pgn::GameResult;
use crate::pgn::date::{possible_form, standard_form};
pub use crate::pipeline::counter::RepairKind;

/// One repair: what it is, and the text before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repair {
    /// What was repaired (a stable code: `san`, `check_mark`, `date`, `result`...).
    pub kind: RepairKind,
    /// The text as read (empty when something was missing).
    pub before: String,
    /// The text as written.
    pub after: String,
    /// Where the text repaired stands in the input, when a token of the movetext (or a tag line
    /// the reader warned of) stands for it; else the report locates the repair at its game.
    pub offset: Option<u64>,
    /// Line breaks between the game's start and `offset`: its line is the game's plus these.
    pub lines_in: u64,
}

impl Repair {
    /// A repair of what the game as a whole says (a tag, the roster, its result).
    pub fn new(kind: RepairKind, before: impl Into<String>, after: impl Into<String>) -> Repair {
        Repair { kind, before: before.into(), after: after.into(), offset: None, lines_in: 0 }
    }

    /// The repair located at `offset` of the input.
    pub fn at(self, offset: u64) -> Repair {
        Repair { offset: Some(offset), ..self }
    }
}

/// Records of one kind of repair a game keeps for the report (as many as the diagnostics it
/// shows); past them its repairs of that kind are counted only, so that one game of a million
/// repairs costs no more memory or report than one of a hundred.
pub const LOGGED: u64 = crate::pgn::Limits::MAX_PROBLEMS as u64;

/// Repairs of one kind in a game: how many, and how many of them are not logged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// Their kind.
    pub kind: RepairKind,
    /// How many the game has.
    pub n: u64,
    /// Of those, how many have no record.
    pub unlogged: u64,
}

/// A game's repairs counted by kind (each kind once, in [`RepairKind`]'s order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally(Vec<Count>);

impl Tally {
    /// Counts a repair of `kind`: whether it is logged (the game logged fewer than [`LOGGED`]
    /// of its kind), else it is counted unlogged.
    pub fn add(&mut self, kind: RepairKind) -> bool {
        let c = self.of(kind);
        c.n += 1;
        let logged = c.n - c.unlogged <= LOGGED;
        if !logged {
            c.unlogged += 1;
        }
        logged
    }

    /// Counts `n` repairs of `kind` that have no record.
    pub fn add_unlogged(&mut self, kind: RepairKind, n: u64) {
        let c = self.of(kind);
        c.n += n;
        c.unlogged += n;
    }

    fn of(&mut self, kind: RepairKind) -> &mut Count {
        let at = self.0.partition_point(|c| c.kind < kind);
        if self.0.get(at).is_none_or(|c| c.kind != kind) {
            self.0.insert(at, Count { kind, n: 0, unlogged: 0 });
        }
        &mut self.0[at]
    }

    /// Each kind counted.
    pub fn counts(&self) -> &[Count] {
        &self.0
    }

    /// Forgets the counts, keeping the room.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// A date as the PGN standard writes it (`2024.01.15`, `?` for each unknown digit) from the
/// ways collections write one with its year first: `2024-01-15`, `2024/1/5`, `2024.5.3`, a year
/// and month (`2024-01`: `2024.01.??`), a year alone (`2018`: `2018.??.??`), an unknown date
/// written short (`?`, the empty text: `????.??.??`); a date that names no day has the parts
/// that make it impossible unknown (`2003.04.31`: `2003.04.??`, [`possible_form`]). `None`
/// when the value is standard already or no such date (`15-01-2024`, `Jan 5, 2024`, one with
/// spaces or control characters, which the writer would turn into other text for the next
/// reading): it is kept as written.
pub fn standard_date(value: &str) -> Option<String> {
    let form = standard_form(value.as_bytes())?;
    // ASCII: its bytes are the text's own or digits and punctuation.
    let written = String::from_utf8_lossy(&possible_form(form).unwrap_or(form)).into_owned();
    (written != value).then_some(written)
}

/// The result a game is written with, and the repair that settles it when the Result tag
/// (`tag`: `None` when missing, unreadable or `?`; `tag_text` as read, shown in the repair when
/// it is no result), the movetext's result token (`token`: `None` when missing) and the board
/// after the mainline (`last`) do not all agree: a mate or stalemate on the board decides; else
/// a missing or `*` side takes the other's value (python-chess takes a finished token over a
/// `*` tag). A conflict of two finished results keeps the tag's value (python-chess ends the
/// movetext with the tag's), or with `fix` (`--fix-results`) the token's, written where the
/// game ends (pgn-extract's `--fixresulttags`, which also takes a `*` token over a finished tag).
pub fn settle_result(
    tag: Option<GameResult>,
    tag_text: Option<&str>,
    token: Option<GameResult>,
    last: Option<&Position>,
    fix: bool,
) -> (GameResult, Option<Repair>) {
    let board = last
        .and_then(Position::mate_or_stalemate)
        .and_then(|o| GameResult::from_ascii(o.result().as_bytes()));
    let result = match (board, tag, token) {
        (Some(b), _, _) => b,
        (None, Some(t), Some(GameResult::Unknown)) => t,
        (None, Some(GameResult::Unknown), Some(g)) => g,
        (None, Some(t), Some(g)) if fix && t != g => g,
        (None, Some(t), _) => t,
        (None, None, Some(g)) => g,
        (None, None, None) => GameResult::Unknown,
    };
    let repair = (tag != Some(result) || token != Some(result))
        .then(|| Repair::new(RepairKind::Result, results_read(tag, tag_text, token), result.as_str()));
    (result, repair)
}

/// What a `result` repair shows as read: `tag 1-0, token *`, the tag as written when it spells
/// no result (`tag draw`), `none` for what is missing.
pub fn results_read(tag: Option<GameResult>, tag_text: Option<&str>, token: Option<GameResult>) -> String {
    let tag = tag.map(GameResult::as_str).or(tag_text).unwrap_or("none");
    format!("tag {tag}, token {}", token.map_or("none", GameResult::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;
    use crate::notation::fen::parse_fen;

    #[test]
    fn a_tally_counts_every_repair_and_logs_the_first_of_each_kind() {
        let mut tally = Tally::default();
        let logged = (0..250).filter(|_| tally.add(RepairKind::Syntax)).count();
        assert_eq!(logged as u64, LOGGED);
        assert!(tally.add(RepairKind::San), "a kind has a budget of its own");
        // Repairs without a record leave the budget to those that have one.
        tally.add_unlogged(RepairKind::Tag, 500);
        assert_eq!((0..150).filter(|_| tally.add(RepairKind::Tag)).count() as u64, LOGGED);
        let count = |kind, n, unlogged| Count { kind, n, unlogged };
        let counts = [
            count(RepairKind::San, 1, 0),
            count(RepairKind::Tag, 650, 650 - LOGGED),
            count(RepairKind::Syntax, 250, 250 - LOGGED),
        ];
        assert_eq!(tally.counts(), counts);
    }

    #[test]
    fn dates_in_other_spellings_become_standard() {
        assert_eq!(standard_date("2024-01-15").as_deref(), Some("2024.01.15"));
        assert_eq!(standard_date("2024/1/5").as_deref(), Some("2024.01.05"));
        assert_eq!(standard_date("1999-??-??").as_deref(), Some("1999.??.??"));
        // A part left out or written short is unknown; padding as the standard writes it.
        for (read, written) in [
            ("2018", "2018.??.??"),
            ("2024-01", "2024.01.??"),
            ("2018.5.3", "2018.05.03"),
            ("2018.?.?", "2018.??.??"),
            ("?", "????.??.??"),
            ("", "????.??.??"),
        ] {
            assert_eq!(standard_date(read).as_deref(), Some(written), "{read}");
        }
        // A date that names no day: what makes it impossible is unknown.
        for (read, written) in [
            ("2003.04.31", "2003.04.??"),
            ("1999-13-05", "1999.??.05"),
            ("1999.13.32", "1999.??.??"),
            ("2007.2.29", "2007.02.??"),
        ] {
            assert_eq!(standard_date(read).as_deref(), Some(written), "{read}");
        }
        for kept in [
            "2024.01.15",
            " 2024.01.15",
            "2025.06.18\u{2}",
            "15-01-2024",
            "Jan 5, 2024",
            "2024-13-1x",
            "????.??.??",
            "18.05.2003",
            "2024.01.15.1",
        ] {
            assert_eq!(standard_date(kept), None, "{kept}");
        }
    }

    #[test]
    fn the_board_then_either_side_then_the_tag_settles_the_result() {
        let mated =
            parse_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", Variant::Standard)
                .expect("FEN");
        use GameResult::*;
        for fix in [false, true] {
            let (r, repair) = settle_result(Some(WhiteWins), None, Some(WhiteWins), Some(&mated), fix);
            assert_eq!(r, BlackWins);
            assert_eq!(repair.expect("logged").before, "tag 1-0, token 1-0");
            assert_eq!(settle_result(Some(Draw), None, Some(Draw), None, fix), (Draw, None));
            assert_eq!(settle_result(None, None, Some(Draw), None, fix).0, Draw);
            assert_eq!(settle_result(Some(Draw), None, None, None, fix).0, Draw);
            assert_eq!(settle_result(None, None, None, None, fix).0, Unknown);
            // A finished tag over a `*` token, either way.
            assert_eq!(settle_result(Some(WhiteWins), None, Some(Unknown), None, fix).0, WhiteWins);
        }
        let (r, repair) = settle_result(Some(WhiteWins), None, Some(BlackWins), None, false);
        assert_eq!((r, repair.map(|r| r.after)), (WhiteWins, Some("1-0".to_string())));
        // A `*` tag takes a finished token's value, as python-chess reads it.
        assert_eq!(settle_result(Some(Unknown), None, Some(Draw), None, false).0, Draw);
        // A tag that is no result is shown as read.
        let (r, repair) = settle_result(None, Some("draw"), Some(Draw), None, false);
        assert_eq!((r, repair.map(|r| r.before)), (Draw, Some("tag draw, token 1/2-1/2".to_string())));
    }

    #[test]
    fn fixing_results_takes_the_token_of_a_finished_game() {
        use GameResult::*;
        let (r, repair) = settle_result(Some(WhiteWins), None, Some(BlackWins), None, true);
        assert_eq!(r, BlackWins);
        let repair = repair.expect("logged");
        assert_eq!((repair.before.as_str(), repair.after.as_str()), ("tag 1-0, token 0-1", "0-1"));
        assert_eq!(settle_result(Some(Unknown), None, Some(Draw), None, true).0, Draw);
        assert_eq!(settle_result(Some(Unknown), None, Some(Unknown), None, true), (Unknown, None));
    }
}
