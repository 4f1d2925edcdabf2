//! The table (every row replays, one position per row), the classification rule on small games,
//! and pgnkit's classification against lichess's own `ECO`/`Opening` tags and python-chess's
//! (`scripts/eco_oracle.py`) on the shared lichess exports.

use std::collections::BTreeMap;

use super::*;
use crate::pipeline::replay::{Game, Games, Hooks, Lines, Played};

/// Lichess looks positions up to this ply (scalachess `OpeningDb.SEARCH_MAX_PLIES`)...
const LICHESS_PLIES: u32 = 40;
/// ... while the board holds this many pieces (`SEARCH_MIN_PIECES`).
const LICHESS_PIECES: u32 = 20;

/// One game as classified, with its tags and every listed position lichess would look up.
#[derive(Debug)]
struct Classified {
    number: u64,
    eco_tag: Option<String>,
    opening_tag: Option<String>,
    fen: bool,
    found: Option<(&'static Opening, u32)>,
    /// (ply, row) of each listed position of the mainline within lichess's search.
    listed: Vec<(u32, &'static Opening)>,
}

#[derive(Default)]
struct Classify {
    tracker: EcoTracker,
    ply: u32,
    listed: Vec<(u32, &'static Opening)>,
    games: Vec<Classified>,
}

impl Classify {
    fn observe(&mut self, pos: &Position) {
        self.tracker.observe(pos);
        if self.ply <= LICHESS_PLIES
            && pos.variant() == Variant::Standard
            && pos.board().occupied().count() >= LICHESS_PIECES
            && let Some(o) = lookup(pos)
        {
            self.listed.push((self.ply, o));
        }
        self.ply += 1;
    }
}

impl<'a> Hooks<'a> for Classify {
    fn moves(&self) -> Lines {
        Lines::Mainline
    }
    fn wants(&self, _: crate::error::Kind, _: crate::error::Severity) -> bool {
        false
    }
    fn start(&mut self, _: &Game<'a>, _: &Position) {
        self.tracker.reset();
        self.ply = 0;
        self.listed.clear();
    }
    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        self.observe(p.before);
    }
    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        let found = last.and_then(|pos| {
            self.observe(pos);
            self.tracker.opening().zip(self.tracker.ply())
        });
        let tag = |name: &[u8]| game.tag_text(name).filter(|t| t != "?");
        self.games.push(Classified {
            number: game.number,
            eco_tag: tag(b"ECO"),
            opening_tag: tag(b"Opening"),
            fen: game.tag(b"FEN").is_some(),
            found,
            listed: std::mem::take(&mut self.listed),
        });
    }
}

fn classify(pgn: &str) -> Vec<Classified> {
    let mut games = Games::new(Classify::default(), pgn.as_bytes());
    while games.next_game() {}
    games.into_hooks().games
}

/// The ECO code and ply each game of `pgn` is classified with.
fn ecos(pgn: &str) -> Vec<Option<(&'static str, u32)>> {
    classify(pgn).iter().map(|c| c.found.map(|(o, ply)| (o.eco, ply))).collect()
}

/// The row whose moves are `pgn`.
fn row(pgn: &str) -> &'static Opening {
    table().rows().iter().find(|o| o.pgn == pgn).unwrap_or_else(|| panic!("no row {pgn}"))
}

#[test]
fn every_row_replays_and_names_its_own_position() {
    let t = Table::parse(&FILES).unwrap_or_else(|e| panic!("{e}"));
    let lines: usize = FILES.iter().map(|(_, text)| text.lines().count() - 1).sum();
    assert_eq!(t.rows().len(), lines);
    assert_eq!(lines, 3_807);
    // One position per row: the tie rule has nothing to decide in this table. Two listed
    // positions share a hash only where they share board and side to move (one pair, told apart
    // by the en passant square of `3. e4`, which `exf4` can take).
    assert_eq!(t.positions(), lines);
    assert_eq!(t.collisions(), 1);
    for &j in &t.collisions {
        let (pos, _) = replay(t.rows()[j as usize].pgn).expect("replays");
        let twin = t.rows().iter().find(|o| {
            let (other, _) = replay(o.pgn).expect("replays");
            o.pgn != t.rows()[j as usize].pgn && other.board() == pos.board() && other.turn() == pos.turn()
        });
        assert!(twin.is_some(), "{} shares its hash with no position of its board", t.rows()[j as usize].pgn);
    }
    assert_eq!((t.max_ply(), t.min_pieces()), (36, 22));
    for o in t.rows() {
        let (pos, ply) = replay(o.pgn).expect("replays");
        assert_eq!(ply, o.ply);
        assert_eq!(t.lookup(&pos), Some(o), "{}", o.pgn);
        assert!(o.eco.len() == 3 && (b'A'..=b'E').contains(&o.eco.as_bytes()[0]), "{}", o.eco);
    }
    assert_eq!(row("1. e4 e5 2. Nf3 Nc6 3. Bb5").name, "Ruy Lopez");
    assert_eq!(lookup(&Position::default()), None);
    let bytes = t.heap_bytes();
    println!("table: {} rows, {} positions, {bytes} heap bytes", t.rows().len(), t.positions());
    assert!(bytes < 1024 * 1024, "{bytes}");
}

#[test]
fn bad_rows_are_reported_with_their_place() {
    let err = |text: &'static str| Table::parse(&[("x.tsv", text)]).err().map(|e| e.to_string());
    assert_eq!(
        err("eco\tname\tpgn\nA00\tX\t1. e4 e5 2. Ke3\n").as_deref(),
        Some("x.tsv:2: illegal SAN \"Ke3\" in \"1. e4 e5 2. Ke3\"")
    );
    assert_eq!(err("eco\tname\tpgn\nA00\tX\n").as_deref(), Some("x.tsv:2: expected 3 tab-separated columns"));
    assert_eq!(err("A00\tX\t1. e4\n").as_deref(), Some("x.tsv:1: no `eco, name, pgn` header"));
}

#[test]
fn of_two_rows_on_one_position_the_later_names_it() {
    let t = Table::parse(&[
        ("a.tsv", "eco\tname\tpgn\nC44\tFirst\t1. e4 e5 2. Nf3 Nc6\nA04\tOther\t1. Nf3\n"),
        ("b.tsv", "eco\tname\tpgn\nA04\tSecond\t1. Nf3 Nc6 2. e4 e5\n"),
    ])
    .expect("replays");
    assert_eq!((t.rows().len(), t.positions()), (3, 2));
    let (pos, _) = replay("1. e4 e5 2. Nf3 Nc6").expect("replays");
    assert_eq!(t.lookup(&pos).map(|o| o.name), Some("Second"));
}

#[test]
fn a_transposition_classifies_as_the_tables_position() {
    // 1. Nf3 d5 2. d4 is the table's 1. d4 d5 2. Nf3; 1. Nf3 Nc6 2. e4 e5 3. Bb5 its Ruy Lopez.
    assert_eq!(ecos("1. Nf3 d5 2. d4 *\n"), [Some(("D02", 3))]);
    let games = classify("1. Nf3 Nc6 2. e4 e5 3. Bb5 *\n");
    assert_eq!(games[0].found, Some((row("1. e4 e5 2. Nf3 Nc6 3. Bb5"), 5)));
}

#[test]
fn a_game_leaving_the_book_classifies_by_its_last_book_position() {
    // Listed up to 3... a6 (ply 6), then no listed position again.
    let games = classify("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. h4 h5 5. Bxc6 dxc6 6. Nxe5 Qd4 1-0\n");
    assert_eq!(games[0].found, Some((row("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"), 6)));
    // Out of the book (plies 3 and 4) and back into it: the deepest listed position counts.
    assert_eq!(ecos("1. Nf3 Nf6 2. Ng1 Ng8 3. e4 c5 4. Qh5 *\n"), [Some(("B20", 6))]);
}

#[test]
fn empty_and_non_standard_games_are_not_classified() {
    assert_eq!(ecos("[Event \"empty\"]\n\n*\n"), [None]);
    let moves = "1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n";
    assert_eq!(ecos(moves), [Some(("C60", 5))]);
    assert_eq!(ecos(&format!("[Variant \"Crazyhouse\"]\n\n{moves}")), [None]);
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    assert_eq!(ecos(&format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{start}\"]\n\n{moves}")), [None]);
    // A game whose setup fails is not classified either.
    assert_eq!(ecos(&format!("[Variant \"Atomic\"]\n\n{moves}")), [None]);
}

#[test]
fn a_game_from_a_fen_classifies_by_the_positions_it_reaches() {
    // The start (after 1. e4 e5) is a listed position, and plies count from the FEN.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let games = classify(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n2. Nf3 Nc6 3. Bb5 *\n"));
    assert!(games[0].fen);
    assert_eq!(games[0].found, Some((row("1. e4 e5 2. Nf3 Nc6 3. Bb5"), 3)));
    assert_eq!(ecos(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n*\n")), [Some(("C20", 0))]);
}

#[test]
fn positions_past_the_tables_deepest_row_are_not_looked_up() {
    // 1. e4 e5 is listed again after every round trip of the queens (4 plies), 2. Nf3 too.
    let game = |trips: usize| format!("1. e4 e5 {}Nf3 *\n", "Qe2 Qe7 Qd1 Qd8 ".repeat(trips));
    assert_eq!(ecos(&game(8)), [Some(("C40", 35))]);
    // Nine round trips: Nf3 would be ply 39, past the deepest row (36); the last position looked
    // up and listed is the one after the eighth (ply 34).
    assert_eq!(ecos(&game(9)), [Some(("C20", 34))]);
}

/// Why pgnkit's code or name differs from lichess's tag, found from the game's listed positions.
fn difference(c: &Classified, tag: &str, of: fn(&Opening) -> &str) -> &'static str {
    let ply = c.found.map_or(0, |(_, ply)| ply);
    let on = |keep: &dyn Fn(u32) -> bool| c.listed.iter().any(|&(p, o)| keep(p) && of(o) == tag);
    if c.found.is_none() && c.listed.is_empty() {
        "no listed position in the game"
    } else if on(&|p| p < ply) {
        "lichess's tag is a shallower listed position of the game (its table lacked the deeper one)"
    } else if on(&|p| p > ply) {
        "lichess's tag is a listed position past the table's deepest row (lichess looks to ply 40)"
    } else if table().rows().iter().any(|o| of(o) == tag) {
        "lichess's tag is on a table position the game does not reach"
    } else {
        "lichess's tag is in no row of the table (renamed or removed since)"
    }
}

/// Agreement of pgnkit's classification with lichess's tags in one file.
#[derive(Default)]
struct Agreement {
    games: usize,
    eco_tagged: usize,
    eco_agree: usize,
    name_tagged: usize,
    name_agree: usize,
    /// Games lichess tagged `?` (no opening), and of them those pgnkit classifies (FEN starts).
    unknown: usize,
    unknown_classified: usize,
    kinds: BTreeMap<String, usize>,
}

fn agreement(rel: &str, text: &str) -> Agreement {
    let mut a = Agreement::default();
    for c in classify(text) {
        a.games += 1;
        let found = c.found.map(|(o, _)| o);
        if c.eco_tag.is_none() && c.opening_tag.is_none() {
            a.unknown += 1;
            if let Some(o) = found {
                a.unknown_classified += 1;
                assert!(c.fen, "{rel} game {}: lichess names no opening, pgnkit {}", c.number, o.name);
            }
        }
        if let Some(tag) = &c.eco_tag {
            a.eco_tagged += 1;
            if found.is_some_and(|o| o.eco == tag) {
                a.eco_agree += 1;
            } else {
                *a.kinds.entry(format!("ECO: {}", difference(&c, tag, |o| o.eco))).or_default() += 1;
                println!(
                    "  {rel} game {}: ECO {tag}, pgnkit {:?} at {:?}",
                    c.number,
                    found.map(|o| o.eco),
                    c.found.map(|f| f.1)
                );
            }
        }
        if let Some(tag) = &c.opening_tag {
            a.name_tagged += 1;
            if found.is_some_and(|o| o.name == tag) {
                a.name_agree += 1;
            } else {
                let kind = match (&c.eco_tag, found) {
                    (Some(eco), Some(o)) if o.eco != eco => "the ECO code differs too".into(),
                    _ => format!("Opening: {}", difference(&c, tag, |o| o.name)),
                };
                *a.kinds.entry(kind).or_default() += 1;
                println!("  {rel} game {}: Opening {tag:?}, pgnkit {:?}", c.number, found.map(|o| o.name));
            }
        }
    }
    a
}

/// Which table lichess wrote a file's tags with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tags {
    /// The table of `data/openings` (the dump of May 2025, a lichess game of 2024 and lichess's
    /// crazyhouse games, tagged `?`).
    Current,
    /// The same, in a file that is a prefix of another in the list (counted once).
    Prefix,
    /// An older one: a user export of January 2019 and study exports of 2016-2018.
    Older,
}

/// The shared lichess exports.
fn lichess_exports() -> Vec<(String, Tags)> {
    let mut files: Vec<(String, Tags)> = [
        ("games/lichess_db_1000k.pgn", Tags::Current),
        ("games/lichess_db_100k.pgn", Tags::Prefix),
        ("games/otb/dartchess_lichess-bullet-game.pgn", Tags::Current),
        ("variants/crazyhouse/python-chess_knightvuillaume-jannlee-zh-lichess.pgn", Tags::Current),
        ("variants/crazyhouse/python-chess_saturs-jannlee-zh-lichess.pgn", Tags::Current),
        ("games/lichess_DrDrunkenstein_2019-01-29.pgn", Tags::Older),
    ]
    .into_iter()
    .map(|(rel, tags)| (rel.to_string(), tags))
    .collect();
    let studies = crate::shared_data_dir().join("games/lichess_studies");
    let mut names: Vec<String> = std::fs::read_dir(studies)
        .map(|d| d.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    names.sort();
    files.extend(names.into_iter().map(|n| (format!("games/lichess_studies/{n}"), Tags::Older)));
    files
}

#[test]
fn pgnkit_names_openings_as_lichess_tags_them() {
    let (mut tagged, mut agree, mut kinds) = (0, 0, BTreeMap::<String, usize>::new());
    for (rel, tags) in lichess_exports() {
        let Some(text) = crate::read_shared_data(&rel) else { return };
        let a = agreement(&rel, &text);
        println!(
            "{rel}: {} games; ECO tag in {}, pgnkit agrees in {} ({:.1}%); Opening tag in {}, agrees in {}; \
             tagged `?` {}, of them classified by pgnkit {} (FEN starts)",
            a.games,
            a.eco_tagged,
            a.eco_agree,
            100.0 * a.eco_agree as f64 / a.eco_tagged.max(1) as f64,
            a.name_tagged,
            a.name_agree,
            a.unknown,
            a.unknown_classified,
        );
        for (kind, n) in &a.kinds {
            println!("    {n:4} {kind}");
        }
        if tags == Tags::Current {
            (tagged, agree) = (tagged + a.eco_tagged, agree + a.eco_agree);
            for (kind, n) in a.kinds {
                *kinds.entry(kind).or_default() += n;
            }
        }
    }
    println!("tags of lichess's current table: ECO agrees in {agree} of {tagged}; differences: {kinds:?}");
    assert!(tagged >= 434, "{tagged}");
    assert!(agree * 100 >= tagged * 98, "{agree} of {tagged}");
}

#[test]
fn pgnkit_classifies_as_python_chess_does() {
    let mut files: Vec<String> = lichess_exports().into_iter().map(|(rel, _)| rel).collect();
    files.extend(
        [
            "games/twic1599_1000k.pgn",
            "variants/chess960/python-chess_cutechess-fischerrandom.pgn",
            "variants/crazyhouse/crazyara_rl_eval_model_os_45_vs_sf.pgn",
            "variants/crazyhouse/crazyara_zh-equal-long-81.pgn",
        ]
        .map(String::from),
    );
    let mut texts = Vec::new();
    for rel in &files {
        let Some(text) = crate::read_shared_data(rel) else { return };
        texts.push(text);
    }
    let python = std::process::Command::new("python3").args(["-c", "import chess.pgn"]).output();
    if !python.is_ok_and(|o| o.status.success()) {
        crate::skip::skip("python-chess not found (pip install chess==1.11.2)");
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = crate::shared_data_dir();
    let paths: Vec<String> = files.iter().map(|rel| shared.join(rel).display().to_string()).collect();
    let out = std::process::Command::new("python3")
        .arg(root.join("scripts/eco_oracle.py"))
        .args(&paths)
        .current_dir(root)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let oracle = String::from_utf8(out.stdout).expect("UTF-8");
    let (mut games, mut classified) = (0, 0);
    for ((rel, path), text) in files.iter().zip(&paths).zip(&texts) {
        let theirs: Vec<&str> =
            oracle.lines().filter_map(|l| l.strip_prefix(path.as_str())?.strip_prefix('\t')).collect();
        let ours: Vec<String> = classify(text)
            .iter()
            .map(|c| match c.found {
                Some((o, ply)) => format!("{}\t{}\t{ply}\t{}", c.number, o.eco, o.name),
                None => format!("{}\t-\t-\t-", c.number),
            })
            .collect();
        assert_eq!(ours.len(), theirs.len(), "{rel}: games");
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a, b, "{rel}: pgnkit, python-chess");
        }
        games += ours.len();
        classified += theirs.iter().filter(|l| !l.contains("\t-\t")).count();
    }
    println!(
        "{games} games of {} files: {classified} classified, all as python-chess classifies them",
        files.len()
    );
    assert!(games > 2_900, "{games}");
}
