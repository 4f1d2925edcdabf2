//! The replay's event stream as a job sees it: every event in input order with its depth, the
//! verdict after the tags, and each game's byte range.

use super::*;
use crate::error::Diagnostic;
use crate::notation::uci::write_uci;

/// Every event as a line of text.
#[derive(Default)]
struct Trace {
    lines: Vec<String>,
    skip_white: Option<&'static str>,
    ranges: Vec<(u64, u64, String)>,
    /// Each game's errors and those inside cut variations.
    errors: Vec<(u32, u32)>,
}

impl<'a> Hooks<'a> for Trace {
    fn variations(&self) -> bool {
        true
    }
    fn moves(&self) -> Lines {
        Lines::All
    }
    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        let white = game.tag_text(b"White").unwrap_or_default();
        self.lines.push(format!("tags {} {white}", game.tags.len()));
        if self.skip_white == Some(white.as_str()) { Verdict::Skip } else { Verdict::Replay }
    }
    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        let mut uci = String::new();
        match p.mv {
            Some(m) => write_uci(m, p.before.castling_mode(), &mut uci),
            None => uci.push_str("null"),
        }
        self.lines.push(format!("move d{} ply{} {uci} from {}", p.depth, p.ply, p.before.fullmoves()));
    }
    fn nag(&mut self, _: &Game<'a>, depth: u32, nag: Nag, _: u64) {
        self.lines.push(format!("nag d{depth} {nag}"));
    }
    fn comment(&mut self, game: &Game<'a>, depth: u32, c: RawComment<'a>) {
        let cutting = game.cutting.map_or(String::new(), |d| format!(" (cutting d{d})"));
        self.lines.push(format!("comment d{depth} {}{cutting}", String::from_utf8_lossy(c.text())));
    }
    fn begin_variation(&mut self, _: &Game<'a>, depth: u32, replayed: bool) {
        self.lines.push(format!("( d{depth} {replayed}"));
    }
    fn end_variation(&mut self, _: &Game<'a>, depth: u32) {
        self.lines.push(format!(") d{depth}"));
    }
    fn cut(&mut self, _: &Game<'a>, depth: u32, cut: Cut<'a>) {
        let text = String::from_utf8_lossy(cut.text);
        self.lines.push(format!("cut d{depth} {} at {} whole {} {text:?}", cut.kind, cut.offset, cut.whole));
    }
    fn diagnostic(&mut self, _: &Game<'a>, d: Diagnostic) {
        self.lines.push(format!("diagnostic {}", d.kind));
    }
    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        let result = game.result.map_or("none", GameResult::as_str);
        self.lines.push(format!("end {result} skipped {} last {}", game.skipped, last.is_some()));
        self.ranges.push((game.offset, game.end, String::from_utf8_lossy(game.bytes).into_owned()));
        self.errors.push((game.errors, game.cut_errors));
    }
}

fn trace(pgn: &str, skip_white: Option<&'static str>) -> Trace {
    let mut games = Games::new(Trace { skip_white, ..Trace::default() }, pgn.as_bytes());
    while games.next_game() {}
    games.into_hooks()
}

#[test]
fn every_event_reaches_the_hooks_in_order_with_its_depth() {
    let t = trace(
        "[White \"A\"]\n\n{start} 1. e4 $1 {good} (1. d4 {q} (1. c4) 1... d5 $2) 1... e5 2. -- Nc6 1-0 {after}\n",
        None,
    );
    let want = [
        "tags 1 A",
        "comment d0 start",
        "move d0 ply0 e2e4 from 1",
        "nag d0 $1",
        "comment d0 good",
        "( d1 true",
        "move d1 ply0 d2d4 from 1",
        "comment d1 q",
        "( d2 true",
        "move d2 ply0 c2c4 from 1",
        ") d2",
        "move d1 ply1 d7d5 from 1",
        "nag d1 $2",
        ") d1",
        "move d0 ply1 e7e5 from 1",
        "move d0 ply2 null from 2",
        "diagnostic null_move",
        "move d0 ply3 b8c6 from 2",
        "comment d0 after",
        "end 1-0 skipped false last true",
    ];
    assert_eq!(t.lines, want);
}

#[test]
fn a_game_skipped_on_its_tags_gives_no_movetext_event_and_the_next_one_is_read() {
    let pgn = "[White \"skip me\"]\n\n1. e4 {c} (1. d4) Ke3 *\n\n[White \"B\"]\n\n1. d4 *\n";
    let t = trace(pgn, Some("skip me"));
    assert_eq!(
        t.lines,
        [
            "tags 1 skip me",
            "end none skipped true last false",
            "tags 1 B",
            "move d0 ply0 d2d4 from 1",
            "end * skipped false last true"
        ]
    );
}

#[test]
fn each_game_knows_its_bytes() {
    let pgn = "\u{feff}[White \"A\"]\n\n1. e4 *  {x}\n\n  [White \"B\"]\r\n\r\n1. d4 1-0\r\n";
    let t = trace(pgn, None);
    let bytes = pgn.as_bytes();
    for (start, end, text) in &t.ranges {
        assert_eq!(&bytes[*start as usize..*end as usize], text.as_bytes());
    }
    let texts: Vec<&str> = t.ranges.iter().map(|r| r.2.as_str()).collect();
    assert_eq!(texts, ["[White \"A\"]\n\n1. e4 *  {x}", "[White \"B\"]\r\n\r\n1. d4 1-0"]);
}

#[test]
fn a_variation_with_no_move_to_replace_is_an_error_read_not_replayed() {
    let t = trace("(1. d4) 1. e4 *\n", None);
    assert_eq!(
        t.lines,
        [
            "tags 0 ",
            "diagnostic syntax",
            "( d1 false",
            "cut d1 syntax at 0 whole true \"(1. d4)\"",
            ") d1",
            "move d0 ply0 e2e4 from 1",
            "end * skipped false last true"
        ]
    );
    assert_eq!(t.errors, [(1, 1)]);
}

/// An error in a variation ends it there: the rest comes as read (comments and inner variations
/// as events while the cut is open, then its text), and the lines around it go on.
#[test]
fn the_rest_of_a_variation_an_error_ended_is_cut_as_read() {
    let pgn = "1. e4 e5 2. Nf3 (2. Bc4 Nf6 3. Nf9 {why} (3. d3) Nc6) (2. f4 {ok}) 2... Nc6 *\n";
    let t = trace(pgn, None);
    let at = pgn.find("Nf9").expect("in the game");
    let want = [
        "tags 0 ",
        "move d0 ply0 e2e4 from 1",
        "move d0 ply1 e7e5 from 1",
        "move d0 ply2 g1f3 from 2",
        "( d1 true",
        "move d1 ply2 f1c4 from 2",
        "move d1 ply3 g8f6 from 2",
        "diagnostic invalid_move",
        "comment d1 why (cutting d1)",
        "( d2 false",
        ") d2",
        &format!("cut d1 invalid_move at {at} whole false \"Nf9 {{why}} (3. d3) Nc6\""),
        ") d1",
        "( d1 true",
        "move d1 ply2 f2f4 from 2",
        "comment d1 ok",
        ") d1",
        "move d0 ply3 b8c6 from 2",
        "end * skipped false last true",
    ];
    assert_eq!(t.lines, want);
    assert_eq!(t.errors, [(1, 1)]);
}

/// A variation none of whose moves was replayed is cut whole, parentheses and the comments
/// before its bad move included; a variation left open is cut to the game's end; an error in
/// the mainline cuts nothing and counts as no cut's.
#[test]
fn a_variation_without_a_replayed_move_is_cut_whole() {
    let cuts = |pgn: &str| {
        let t = trace(pgn, None);
        let cuts: Vec<String> = t.lines.iter().filter(|l| l.starts_with("cut")).cloned().collect();
        (cuts, t.errors)
    };
    let (got, errors) = cuts("1. e4 e5 ({a} 1... Qxh7 2. d4) (1... -- 2. d4) 2. Nf3 *\n");
    assert_eq!(got, ["cut d1 illegal_move at 9 whole true \"({a} 1... Qxh7 2. d4)\""]);
    assert_eq!(errors, [(1, 1)]);
    let (got, errors) = cuts("1. e4 (1. d4 d5 (1... Nf6 2. c4 Kxe8) 2. c4 Qxh2) 1... e5 *\n");
    assert_eq!(
        got,
        ["cut d2 illegal_move at 32 whole false \"Kxe8\"", "cut d1 illegal_move at 44 whole false \"Qxh2\""]
    );
    assert_eq!(errors, [(2, 2)]);
    let (got, errors) = cuts("1. e4 (1. d4 Ke7 {x} 2. c4\n");
    assert_eq!(got, ["cut d1 illegal_move at 13 whole false \"Ke7 {x} 2. c4\\n\""]);
    assert_eq!(errors, [(2, 2)], "the variation left open, inside the cut");
    let (got, errors) = cuts("1. e4 Ke3 (1. d4 Qxh7) *\n");
    assert_eq!((got, errors), (vec![], vec![(1, 0)]));
}

#[test]
fn a_variation_opening_a_variation_is_an_error_unless_an_error_came_first() {
    let diagnostics = |pgn| {
        trace(pgn, None).lines.iter().filter(|l| l.starts_with("diagnostic")).cloned().collect::<Vec<_>>()
    };
    assert_eq!(diagnostics("1. e4 ((1. c4) 1. d4) *\n"), ["diagnostic syntax"]);
    // After the illegal move the line is dead: its variations are read, and only the move is reported.
    assert_eq!(diagnostics("1. e4 Ke3 ((1... d5) 1... e5) *\n"), ["diagnostic illegal_move"]);
}

/// Games read and games with PGN in them ([`Stats::pgn_games`]) in `pgn`, with the games whose
/// White is `skip_white` skipped on their tags, and the events the hooks saw.
fn pgn_games(pgn: &[u8], skip_white: Option<&'static str>) -> (u64, u64, Vec<String>) {
    let mut games = Games::new(Trace { skip_white, ..Trace::default() }, pgn);
    while games.next_game() {}
    let stats = &games.replayer.stats;
    let (read, pgn) = (stats.games, stats.pgn_games);
    (read, pgn, games.into_hooks().lines)
}

#[test]
fn a_game_is_pgn_by_a_tag_pair_or_a_move_written_as_one() {
    for pgn in [
        &b"[Event \"x\"]\n\n*\n"[..],
        b"[Event \"x\"]\n",
        b"1. e4 e5 *\n",
        b"{ a comment first } 1. d4 1-0\n",
        b"1. Ke2 *\n",
        b"1. -- e5 *\n",
        b"1. e2e4 *\n",
    ] {
        assert_eq!(pgn_games(pgn, None).1, 1, "{}", String::from_utf8_lossy(pgn));
    }
    for other in [
        &b"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";\n"[..],
        b"{\"a\": 1, \"b\": [1, 2]}\n",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
        b"hello world\n",
        b"*\n",
        b"{ only a comment }\n",
    ] {
        let (read, pgn, _) = pgn_games(other, None);
        assert_eq!((read, pgn), (1, 0), "{}", String::from_utf8_lossy(other));
    }
    let (read, pgn, _) = pgn_games(b"junk here\n[Event \"x\"]\n\n1. e4 *\n", None);
    assert_eq!((read, pgn), (2, 1), "junk, then a game");
    // A tag pair past the token budget, skipped, and cut where a judged start ends: still one.
    let long = format!("[Event \"{}", "x".repeat(crate::pgn::Limits::default().max_token + 1));
    for tag in [format!("{long}\"]\n"), long] {
        assert_eq!(pgn_games(tag.as_bytes(), None).1, 1, "a tag pair of {} bytes", tag.len());
    }
}

/// A game skipped on its tags when it has none is PGN only by its moves: its first one is looked
/// at, and no movetext event reaches the hooks.
#[test]
fn a_skipped_game_without_tags_is_pgn_by_its_first_move() {
    for (pgn, is_pgn) in [
        (&b"{c} 1. e4 $1 (1. d4) e5 *\n"[..], 1),
        (b"1. Ke2 *\n", 1),
        (b"(1. d4) 1. Nf3 *\n", 1),
        (b"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6;\n", 0),
        (b"{ a comment } *\n", 0),
    ] {
        let (read, pgn_games, events) = pgn_games(pgn, Some(""));
        let text = String::from_utf8_lossy(pgn);
        assert_eq!((read, pgn_games), (1, is_pgn), "{text}");
        assert_eq!(events, ["tags 0 ", "end none skipped true last false"], "{text}");
    }
}

/// A tag whose name an earlier tag of its game has is a `duplicate_tag` warning at its `[`, and
/// [`Game::repeated`]; a name like an earlier one (`Waste` and `White`) is not, nor a name of
/// the game before.
#[test]
fn a_tag_named_again_in_its_game_is_a_warning_and_marked_repeated() {
    #[derive(Default)]
    struct Repeats {
        said: Vec<(u64, u64, Severity, String)>,
        repeated: Vec<Vec<usize>>,
    }
    impl<'a> Hooks<'a> for Repeats {
        fn diagnostic(&mut self, _: &Game<'a>, d: Diagnostic) {
            if d.kind == Kind::DuplicateTag {
                self.said.push((d.game, d.line, d.severity, d.message));
            }
        }
        fn end(&mut self, game: &Game<'a>, _: Option<&Position>) {
            self.repeated.push((0..game.tags.len()).filter(|&i| game.repeated(i)).collect());
        }
    }
    let pgn = "[White \"A\"]\n[Waste \"x\"]\n[Black \"B\"]\n[White \"Z\"]\n[White \"Y\"]\n\n1. e4 *\n\n\
               [White \"A\"]\n[Black \"B\"]\n\n1. d4 *\n";
    let mut games = Games::new(Repeats::default(), pgn.as_bytes());
    while games.next_game() {}
    let warnings = games.stats().by_kind.clone();
    let r = games.into_hooks();
    assert_eq!(r.repeated, [vec![3, 4], vec![]]);
    let said = |line, value: &str| {
        let message = format!("duplicate tag White: the first, \"A\", counts; \"{value}\" is ignored");
        (1, line, Severity::Warning, message)
    };
    assert_eq!(r.said, [said(4, "Z"), said(5, "Y")]);
    assert_eq!(warnings, [(Kind::DuplicateTag, Severity::Warning, 2)]);
}

/// A date tag that names no day, in the standard's form or one written for it (`2023-02-30`), is
/// a `bad_date` warning at its `[` saying why; a date with unknown parts, text that is no date
/// and a repeated date tag (the first counts) are not, nor a tag whose name does not end in `Date`.
#[test]
fn a_date_tag_that_names_no_day_is_a_warning() {
    #[derive(Default)]
    struct Dates(Vec<(u64, u64, String)>);
    impl<'a> Hooks<'a> for Dates {
        fn diagnostic(&mut self, _: &Game<'a>, d: Diagnostic) {
            if d.kind == Kind::BadDate {
                self.0.push((d.game, d.line, d.message));
            }
        }
    }
    let pgn = "[Date \"2003.04.31\"]\n[EventDate \"2024.??.??\"]\n[Date \"1999.13.01\"]\n[Round \"2003.04.31\"]\n\n1. e4 *\n\n\
               [UTCDate \"2023.02.29\"]\n[EndDate \"2023-02-30\"]\n[Date \"????.02.29\"]\n\n1. d4 *\n\n\
               [Date \"30.02.2023\"]\n[EventDate \"2024/4/31\"]\n\n1. c4 *\n";
    let mut games = Games::new(Dates::default(), pgn.as_bytes());
    while games.next_game() {}
    let r = games.into_hooks();
    assert_eq!(
        r.0,
        [
            (1, 1, "Date \"2003.04.31\" names no day: April has 30 days".to_string()),
            (2, 8, "UTCDate \"2023.02.29\" names no day: February 2023 has 28 days".to_string()),
            (2, 9, "EndDate \"2023-02-30\" names no day: February 2023 has 28 days".to_string()),
            (3, 15, "EventDate \"2024/4/31\" names no day: April has 30 days".to_string()),
        ]
    );
}

/// Text between games that holds nothing of a game (no tag, move, comment or result) is an
/// error of its own "game", which `clean` then keeps with the rejects; anything of a game in it
/// keeps it a game.
#[test]
fn skipped_text_alone_is_not_a_game() {
    let game = "[Event \"e\"]\n\n1. e4 e5 1-0\n\n";
    for stray in ["$256 , !\n", "!!\n", ",\n", "$1 $2\n"] {
        let t = trace(&format!("{game}{stray}"), None);
        assert_eq!(t.errors, [(0, 0), (1, 0)], "{stray:?}");
        let last = t.lines.iter().rev().find(|l| l.starts_with("diagnostic")).expect("a diagnostic");
        assert_eq!(last, "diagnostic syntax", "{stray:?}");
        assert!(!t.lines.iter().any(|l| l == "diagnostic missing_result"), "{stray:?}: {:?}", t.lines);
    }
    for kept in ["*\n", ", { note }\n", "1. d4 ,\n", "[Site \"s\"] ,\n"] {
        let t = trace(&format!("{game}{kept}"), None);
        assert_eq!(t.errors.last(), Some(&(0, 0)), "{kept:?}: {:?}", t.lines);
    }
}

/// The final FEN of each game, with or without Zobrist keys (the two ways a move is played).
struct LastFen {
    keys: bool,
    fens: Vec<String>,
}

impl<'a> Hooks<'a> for LastFen {
    fn zobrist_keys(&self) -> bool {
        self.keys
    }
    fn end(&mut self, _: &Game<'a>, last: Option<&Position>) {
        let mut fen = String::new();
        if let Some(pos) = last {
            crate::notation::write_fen(pos, crate::notation::EpMode::Legal, &mut fen);
        }
        self.fens.push(fen);
    }
}

/// A move that takes a counter past its largest value is an error where it stands, on both
/// paths (keys and none): the fullmove number after Black's move, the halfmove clock after a
/// move that does not reset it; a pawn move resets a clock at its largest.
#[test]
fn a_move_taking_a_counter_past_its_largest_value_is_an_error() {
    let pgn = "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 b - - 0 4294967295\"]\n\n1... Kd7 *\n\n\
               [SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 4294967295 9\"]\n\n1. Kd2 *\n\n\
               [SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 4294967295 9\"]\n\n1. e4 Kd7 *\n";
    for keys in [false, true] {
        let mut games = Games::new(LastFen { keys, fens: Vec::new() }, pgn.as_bytes());
        while games.next_game() {}
        let errors = games.stats().by_kind.iter().find(|k| k.0 == Kind::CounterLimit).map(|k| k.2);
        assert_eq!(errors, Some(2), "keys {keys}");
        let fens = games.into_hooks().fens;
        let kept = ["4k3/8/8/8/8/8/8/4K3 b - - 0 4294967295", "4k3/8/8/8/8/8/8/4K3 w - - 4294967295 9"];
        assert_eq!(fens[..2], kept, "keys {keys}: the positions before the refused moves");
        assert_eq!(fens[2], "8/3k4/8/8/4P3/8/8/4K3 w - - 1 10", "keys {keys}");
    }
}

/// A game's duplicate-tag and bad-date warnings come in the order of their lines.
#[test]
fn tag_warnings_come_in_line_order() {
    #[derive(Default)]
    struct Kinds(Vec<(Kind, u64)>);
    impl<'a> Hooks<'a> for Kinds {
        fn diagnostic(&mut self, _: &Game<'a>, d: Diagnostic) {
            self.0.push((d.kind, d.line));
        }
    }
    let pgn = "[White \"A\"]\n[Date \"2003.04.31\"]\n[White \"B\"]\n[EventDate \"1999.13.01\"]\n\n1. e4 *\n";
    let mut games = Games::new(Kinds::default(), pgn.as_bytes());
    while games.next_game() {}
    assert_eq!(games.into_hooks().0, [(Kind::BadDate, 2), (Kind::DuplicateTag, 3), (Kind::BadDate, 4)]);
}

/// Past a game's first 100 diagnostics the rest are counted, each with its own severity: 101
/// harmless problems leave a valid game (one more `unreported` says the rest are not shown),
/// and an error past them still makes it a game with errors, the first shown. The same among the tags, whose
/// problems wait for the players' names.
#[test]
fn diagnostics_past_the_shown_ones_are_counted_with_their_severity() {
    #[derive(Default)]
    struct Shown(Vec<Kind>, Vec<u32>);
    impl<'a> Hooks<'a> for Shown {
        fn diagnostic(&mut self, _: &Game<'a>, d: Diagnostic) {
            self.0.push(d.kind);
        }
        fn end(&mut self, game: &Game<'a>, _: Option<&Position>) {
            self.1.push(game.errors);
        }
    }
    let braces = format!("[White \"w\"]\n\n1. e4 {} e5 *\n\n", "} ".repeat(101));
    let error_past = format!("[White \"w\"]\n\n1. e4 {} e5 Kxe8 *\n\n", "} ".repeat(150));
    // The first error is the 101st problem: the `unreported` warning comes with the next.
    let error_next = format!("[White \"w\"]\n\n1. e4 {} Kxe8 {} *\n\n", "} ".repeat(100), "} ".repeat(20));
    let tags = format!("{}[White \"w\"]\n\n1. e4 *\n", "[Bad\n".repeat(150));
    let pgn = format!("{braces}{error_past}{error_next}{tags}");
    let mut games = Games::new(Shown::default(), pgn.as_bytes());
    while games.next_game() {}
    let stats = games.stats().clone();
    let shown = games.into_hooks();
    assert_eq!(shown.1, [0, 1, 1, 0], "errors of each game");
    let count = |kind| shown.0.iter().filter(|&&k| k == kind).count();
    assert_eq!((count(Kind::SyntaxWarning), count(Kind::BadTag), count(Kind::Unreported)), (300, 100, 4));
    assert_eq!(shown.0.len(), 406, "nothing shown past a game's first 100, its first error and `unreported`");
    assert_eq!(
        count(Kind::IllegalMove),
        2,
        "a game's first error is shown wherever it stands: {:?}",
        &shown.0[201..]
    );
    let counted = |kind| stats.by_kind.iter().find(|k| (k.0, k.1) == (kind, Severity::Warning)).map(|k| k.2);
    assert_eq!(counted(Kind::SyntaxWarning), Some(101 + 150 + 120));
    assert_eq!(counted(Kind::BadTag), Some(150));
}

/// The evaluations and clocks the replay hands over, and the diagnostics, as text.
#[derive(Default)]
struct Evals(Vec<String>);

impl<'a> Hooks<'a> for Evals {
    fn reads_evals(&self) -> bool {
        true
    }
    fn eval_clock(&mut self, game: &Game<'a>, f: EvalClock) {
        let eval = f.eval.map(|e| format!("{:?}/{:?}", e.score, e.depth));
        let clock = f.clock.map(|c| c.as_secs());
        self.0.push(format!("game {} ply {} eval {eval:?} clock {clock:?}", game.number, game.plies));
    }
    fn diagnostic(&mut self, _: &Game<'a>, d: Diagnostic) {
        self.0.push(format!("{} at {}:{}", d.kind, d.line, d.column));
    }
}

#[test]
fn a_move_gets_the_first_evaluation_and_clock_that_read_among_its_comments() {
    let pgn = "[White \"A\"]\n\n1. e4 { [%eval 1e308] [%eval 0.3,18] [%clk 0:01:00] } { [%eval -5.0] [%clk 0:00:10] } \
               1... e5 { [%clk 0:00:59] } { [%eval 0.25] } { [%eval 9] } 2. Nf3 { [%eval #-2] [%clk 0:00:58] } *\n\n\
               [White \"B\"]\n\n1. d4 { [%eval 0.1] } { x [%eval 0.2] } *\n";
    let mut games = Games::new(Evals::default(), pgn.as_bytes());
    while games.next_game() {}
    let want = [
        "bad_eval at 3:9",
        "game 1 ply 1 eval Some(\"Cp(30)/Some(18)\") clock Some(60)",
        "game 1 ply 2 eval None clock Some(59)",
        "game 1 ply 2 eval Some(\"Cp(25)/None\") clock None",
        "game 1 ply 3 eval Some(\"Mate(-2)/None\") clock Some(58)",
        "game 2 ply 1 eval Some(\"Cp(10)/None\") clock None",
    ];
    assert_eq!(games.into_hooks().0, want);
}
