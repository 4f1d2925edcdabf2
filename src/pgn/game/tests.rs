//! [`read_games`] against python-chess's `chess.pgn.read_game` on the fixtures: tags, each
//! mainline move's SAN and FEN, and its comment's eval and clock.

use super::*;
use crate::notation::SanPlus;
use crate::pgn::EvalScore;

/// Standard and Chess960 games with clocks and evals, each read by python-chess without error:
/// a file's games up to the first game starting with the text given, if any (the rest of
/// `kokopu__chess960.pgn` spells Chess960 in ways python-chess rejects).
const FILES: [(&str, &str); 3] = [
    ("lichess_db_10k.pgn", ""),
    ("notnil-chess__0005.pgn", ""),
    ("kokopu__chess960.pgn", "[Event \"Event 1\"]"),
];

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pgn").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One line a game (`White|Black|error`), then one a move (`SAN FEN eval clock`).
fn describe(game: &PgnGame, out: &mut String) {
    use std::fmt::Write;
    let head = |n| game.header(n).unwrap_or("-");
    let _ = writeln!(out, "{}|{}|{}", head("White"), head("Black"), game.error.is_some());
    let positions = game.game.positions();
    for (i, &m) in game.game.moves().iter().enumerate() {
        let eval = match game.eval(i).map(|e| e.score) {
            Some(EvalScore::Cp(cp)) => format!("cp{cp}"),
            Some(EvalScore::Mate(n)) => format!("mate{n}"),
            None => "-".into(),
        };
        let clock = game.clock(i).map_or("-".into(), |c| format!("{:.1}", c.as_secs_f64()));
        let _ = writeln!(out, "{} {} {eval} {clock}", SanPlus::from_move(&positions[i], m), positions[i + 1]);
    }
}

#[test]
fn games_read_as_python_chess_reads_them() {
    let script = "import sys, io, chess.pgn\n\
        f = io.StringIO(sys.stdin.read())\n\
        while (g := chess.pgn.read_game(f)) is not None:\n\
        \x20   h = g.headers\n\
        \x20   print(f\"{h.get('White', '-')}|{h.get('Black', '-')}|{'true' if g.errors else 'false'}\")\n\
        \x20   for n in g.mainline():\n\
        \x20       e = n.eval()\n\
        \x20       e = '-' if e is None else (f'mate{e.white().mate()}' if e.is_mate() else f'cp{e.white().score()}')\n\
        \x20       c = '-' if n.clock() is None else f'{n.clock():.1f}'\n\
        \x20       print(n.san(), n.board().fen(), e, c)\n";
    let mut input = String::new();
    let mut ours = String::new();
    let (mut games, mut evals) = (0, 0);
    for (name, stop) in FILES {
        let mut bytes = fixture(name);
        if let Some(at) = memchr::memmem::find(&bytes, stop.as_bytes()).filter(|_| !stop.is_empty()) {
            bytes.truncate(at);
        }
        input.push_str(std::str::from_utf8(&bytes).expect("UTF-8 fixture"));
        input.push_str("\n\n");
        for game in read_games(&bytes) {
            describe(&game, &mut ours);
            games += 1;
            evals += (0..game.game.moves().len()).filter(|&i| game.eval(i).is_some()).count();
        }
    }
    let Some(theirs) = crate::python_chess(script, &input) else { return };
    for (i, (a, b)) in ours.lines().zip(theirs.lines()).enumerate() {
        assert_eq!(a, b, "line {}", i + 1);
    }
    assert_eq!(ours.lines().count(), theirs.lines().count());
    assert!(games == 8 && evals > 50, "{games} games, {evals} evals");
}

#[test]
fn variants_are_played_by_their_rules() {
    let chess960 = read_games(&fixture("kokopu__chess960.pgn")).next().expect("a game");
    assert!(chess960.error.is_none(), "{:?}", chess960.error);
    assert_eq!(
        chess960.game.position().to_string(),
        "2q2r2/k1pr4/P1Q5/1R1p1p2/1P2p3/2P5/6PP/1R4K1 b - - 0 32"
    );
    let zh = read_games(&fixture("python-chess__saturs-jannlee-zh-lichess.pgn")).next().expect("a game");
    assert!(zh.error.is_none(), "{:?}", zh.error);
    assert_eq!(zh.game.moves().len(), 122);
    // python-chess's but for the halfmove clock: a pawn drop resets it, as on lichess.
    assert_eq!(
        zh.game.position().to_string(),
        "r4r2/ppp2ppk/pb1p1pNp/K2NpP2/3qn3/1B3b2/PP5P/8[QRRBNPP] w - - 2 62"
    );
    assert_eq!(zh.result, Some(GameResult::BlackWins));
}

#[test]
fn a_bad_setup_or_move_is_located_and_the_prefix_kept() {
    let pgn = b"[Variant \"Atomic\"]\n\n1. e4 *\n\n[FEN \"8/8/8 w - - 0 1\"]\n\n1. e4 *\n\n1. e4 { ok } e5 2. Ke3 Nc6 *\n";
    let games: Vec<PgnGame> = read_games(pgn).collect();
    assert_eq!(games.len(), 3);
    assert!(matches!(games[0].error, Some(GameError::Variant { offset: 0, .. })), "{:?}", games[0].error);
    assert!(matches!(games[1].error, Some(GameError::Fen { offset: 29, .. })), "{:?}", games[1].error);
    let GameError::Move { offset, san, error } = games[2].error.as_ref().expect("a bad move") else {
        panic!("{:?}", games[2].error)
    };
    assert_eq!((*offset, san.as_str(), *error), (82, "Ke3", SanError::Illegal));
    assert_eq!(games[2].game.moves().len(), 2);
    assert_eq!(games[2].comments, ["", "ok", ""]);
    assert_eq!(
        games[2].error.as_ref().map(|e| e.to_string()).as_deref(),
        Some("byte 82: illegal SAN \"Ke3\"")
    );
}

#[test]
fn a_fen_tag_s_droppable_problems_are_dropped_as_every_job_drops_them() {
    // Castling rights without their rook, and an en passant square no pawn can take on.
    let pgn = b"[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w KQkq e6 0 1\"]\n\n1. Kd2 *\n";
    let game = read_games(pgn).next().expect("a game");
    assert!(game.error.is_none(), "{:?}", game.error);
    assert_eq!(game.game.position().to_string(), "4k3/8/8/8/8/8/3K4/8 b - - 1 1");
}
