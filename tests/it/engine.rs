//! The engine's faces: `pgnkit uci`, `xboard`, `play`, `show` and `bench`, driven through the
//! real binary over pipes.

use pgnkit::Position;
use pgnkit::chess::Variant;
use pgnkit::notation::fen::{EpMode, parse_fen, write_fen};
use pgnkit::notation::uci::parse_uci;

use crate::util::{fixture, run, run_with_stdin, stderr, stdout};

const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";

fn lines(o: &std::process::Output) -> Vec<String> {
    stdout(o).lines().map(str::to_string).collect()
}

/// The position after `moves` (UCI) from the start.
fn after(moves: &[&str]) -> Position {
    let mut pos = Position::default();
    for m in moves {
        let m = parse_uci(&pos, m.as_bytes()).expect("legal test move");
        pos.play_unchecked(m);
    }
    pos
}

#[test]
fn uci_dialogue() {
    // No `quit`, which would stop the searches: the end of input lets them finish.
    let o = run_with_stdin(
        &["uci", "--finish-at-eof"],
        format!(
            "uci\nisready\nucinewgame\nposition startpos moves e2e4\ngo depth 4\nisready\n\
             position fen {MATE_IN_ONE}\ngo depth 3\n"
        ),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = lines(&o);
    let uciok = lines.iter().position(|l| l == "uciok").expect("uciok");
    assert!(lines[..uciok].iter().any(|l| l.starts_with("id name pgnkit ")), "{lines:?}");
    assert!(lines[..uciok].iter().any(|l| l.starts_with("id author ")), "{lines:?}");
    assert!(lines.iter().any(|l| l == "readyok"));
    let best: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(|b| b.split(' ').next().unwrap_or(b))
        .collect();
    assert_eq!(best.len(), 2, "{lines:?}");
    assert!(parse_uci(&after(&["e2e4"]), best[0].as_bytes()).is_ok(), "{}", best[0]);
    assert_eq!(best[1], "d1d8");
    assert!(lines.iter().any(|l| l.starts_with("info depth 4 ")));
    assert!(lines.iter().any(|l| l.contains("score mate 1")));
}

#[test]
fn xboard_dialogue() {
    // No `quit`, which would end the engine at once: the end of input lets the searches finish.
    let o = run_with_stdin(
        &["xboard", "--finish-at-eof"],
        "xboard\nprotover 2\nnew\nsd 3\nusermove e2e4\nping 1\n\
         force\nusermove e2e5\nnew\nforce\nsetboard 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\nsd 3\npost\ngo\nping 2\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = lines(&o);
    let features = &lines[0];
    for f in [
        "feature ",
        "ping=1",
        "setboard=1",
        "usermove=1",
        "san=0",
        "myname=\"pgnkit 0.1.0\"",
        "variants=\"normal,crazyhouse,fischerandom\"",
        "done=1",
    ] {
        assert!(features.contains(f), "{f} in {features}");
    }
    let moves: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("move ")).collect();
    assert_eq!(moves.len(), 2, "{lines:?}");
    assert!(parse_uci(&after(&["e2e4"]), moves[0].as_bytes()).is_ok(), "{}", moves[0]);
    assert!(lines.iter().any(|l| l == "pong 1") && lines.iter().any(|l| l == "pong 2"));
    // After the engine's reply it is White's turn, and e2e5 is illegal anyway.
    assert!(lines.iter().any(|l| l == "Illegal move: e2e5"), "{lines:?}");
    // Thinking output: ply score time nodes pv, with mate scores as 100000 + N.
    assert!(lines.iter().any(|l| l.starts_with("3 100001 ") && l.ends_with(" d1d8")), "{lines:?}");
    assert_eq!(moves[1], "d1d8");
    let i = lines.iter().position(|l| l == "move d1d8").expect("the mate");
    assert_eq!(lines[i + 1], "1-0 {White mates}");
}

#[test]
fn play_through_a_pipe() {
    let o = run_with_stdin(
        &["play", "--depth", "2", "--ascii"],
        "e4\nundo\nNf3\nfen\nxyz\ne2e5\ngo\npgn\nexit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("you are White"), "{text}");
    assert!(text.contains("8 | r n b q k b n r |"), "{text}");
    assert!(text.contains("Took back 2 plies."), "{text}");
    assert!(text.contains("Illegal move \"xyz\": not a move"), "{text}");
    assert!(text.contains("Illegal move \"e2e5\": illegal move"), "{text}");
    // The FEN after 1. Nf3 and the engine's reply: White to move, knight on f3.
    let fen = text
        .split("> ")
        .filter_map(|chunk| chunk.lines().next())
        .find(|l| l.contains("/5N2/"))
        .expect("a FEN line");
    let pos = parse_fen(fen, Variant::Standard).expect("valid FEN");
    assert!(pos.turn().is_white() && pos.fullmoves() == 2, "{fen}");
    // `go` made the engine play White's second move; the PGN has four plies, the human as Black.
    let pgn_at = text.find("[Event \"pgnkit play\"]").expect("PGN");
    let pgn = &text[pgn_at..];
    assert!(pgn.contains("[White \"pgnkit 0.1.0\"]\n[Black \"You\"]"), "{pgn}");
    assert!(pgn.contains("\n\n1. Nf3 ") && pgn.contains(" 2. "), "{pgn}");
}

/// A line over the 1 MiB budget is skipped as it is read and said, and a line that is not UTF-8
/// is one bad move: the game goes on.
#[test]
fn play_skips_a_line_over_the_budget() {
    let mut input = b"e4\n".to_vec();
    input.extend(std::iter::repeat_n(b'x', 3 << 20));
    input.extend_from_slice(b"\n\xff\npgn\nexit\n");
    let o = run_with_stdin(&["play", "--depth", "1"], input);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("A line longer than 1048576 bytes: skipped."), "{}", &text[..text.len().min(2000)]);
    assert!(text.contains("Illegal move \"\u{fffd}\""), "{}", &text[..text.len().min(2000)]);
    assert!(!text.contains("xxx") && text.contains("\n\n1. e4 "), "{}", &text[..text.len().min(2000)]);
}

#[test]
fn play_ends_with_result_and_pgn_and_survives_eof() {
    let o = run_with_stdin(&["play", "--fen", MATE_IN_ONE, "--depth", "2"], "Rd8\nRd7\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Game over: 1-0 (White mates)."), "{text}");
    assert!(text.contains("[FEN \"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\"]"), "{text}");
    assert!(text.contains("1. Rd8# 1-0\n"), "{text}");
    assert!(text.contains("The game is over"), "{text}");
    // End of input in the middle of a game: the partial PGN, exit 0.
    let o = run_with_stdin(&["play", "--color", "black", "--depth", "1"], "e5\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("[Result \"*\"]") && text.contains("\n1. "), "{text}");
}

/// Start and end tags of an XML document balance (a small well-formedness check: no DTD, no
/// CDATA, attribute values without `>`).
fn assert_balanced_xml(doc: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = doc;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').expect("unclosed tag") + open;
        let tag = &rest[open + 1..close];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "mismatched </{name}>");
        } else if !tag.ends_with('/') && !tag.starts_with('?') && !tag.starts_with('!') {
            stack.push(tag.split_whitespace().next().expect("tag name"));
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty(), "unclosed elements {stack:?}");
}

#[test]
fn show_in_three_formats() {
    let o = run(&["show", "--fen", MATE_IN_ONE, "--format", "ascii"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("8 | . . . . . . k . |\n"), "{text}");
    assert!(text.contains("1 | . . . R . . K . |\n"), "{text}");
    assert!(text.ends_with("    a b c d e f g h\n"), "{text}");

    let o = run(&["show", "--fen", MATE_IN_ONE, "--flip"]);
    let text = stdout(&o);
    assert!(text.contains("1 │ · ♔ · · ♖ · · · │"), "{text}");
    assert!(text.ends_with("    h g f e d c b a\n"), "{text}");

    let game = fixture("show/two_games.pgn");
    let game = game.to_str().expect("UTF-8 path");
    let o = run(&["show", game, "--game", "1", "--ply", "7", "--format", "svg"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = stdout(&o);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
    assert!(svg.contains("viewBox=\"0 0 400 400\""));
    assert_balanced_xml(&svg);
    assert_eq!(svg.matches("<rect class=\"square ").count(), 64);
    assert_eq!(svg.matches("class=\"piece ").count(), 32 - 1);
    for c in ["a", "h", "1", "8"] {
        assert!(svg.contains(&format!("\">{c}</text>")), "coordinate {c}");
    }
    // 4. Qxf7#: the queen's move is highlighted and the black king glows.
    assert!(svg.contains("class=\"square light h5 lastmove\""), "{svg}");
    assert!(svg.contains("class=\"square light f7 lastmove\""), "{svg}");
    assert_eq!(svg.matches("<circle class=\"check\"").count(), 1);

    // The default ply is the end of the game; game 2 exists, game 3 does not.
    let o = run(&["show", game, "--game", "2", "--format", "ascii"]);
    assert!(stdout(&o).contains("5 | . . . p . . . . |"), "{}", stdout(&o));
    let o = run(&["show", game, "--game", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("there is no game 3"), "{}", stderr(&o));
    let o = run(&["show", game, "--ply", "99"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["show", "--fen", "junk"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A game or ply the input does not have is said naming stdin as such, not `-`, with its games
/// and plies counted in words.
#[test]
fn show_names_stdin_in_what_it_says() {
    let text = "1. e4 e5 *\n\n1. d4 *\n";
    let o = run_with_stdin(&["show", "-", "--game", "3"], text);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o), "pgnkit: error: stdin has 2 games: there is no game 3\n");
    let o = run_with_stdin(&["show", "-", "--game", "2", "--ply", "2"], text);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o), "pgnkit: error: game 2 of stdin has 1 valid ply: there is no ply 2\n");
}

/// An option of the other source of the position, or of the SVG under a text format, is a
/// usage error, not ignored; without a source the error names both.
#[test]
fn show_refuses_the_options_it_would_ignore() {
    let game = fixture("show/two_games.pgn");
    let game = game.to_str().expect("UTF-8 path");
    for (args, said) in [
        (&["show", "--fen", MATE_IN_ONE, "--game", "3", "--ply", "5"][..], "--ply"),
        (&["show", "--fen", MATE_IN_ONE, "--game", "2"], "--game"),
        (&["show", game, "--variant", "crazyhouse"], "--variant"),
        (&["show", "--fen", MATE_IN_ONE, "--lastmove", "d1d8", "--format", "ascii"], "--format svg"),
        (&["show", "--fen", MATE_IN_ONE, "--lastmove", "d1d8"], "--format svg"),
        (&["show", game, "--lastmove", "e2e4", "--format", "unicode"], "--format svg"),
        (&["show"], "<FILE|--fen <FEN>>"),
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(said), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{args:?}");
    }
    let o = run(&["show", "--fen", MATE_IN_ONE, "--lastmove", "h8g8", "--format", "svg"]);
    assert!(o.status.success() && stdout(&o).contains("g8 lastmove"), "{}", stderr(&o));
}

/// `--fen` is read as a game's `[FEN]` tag: a `/Qp` pocket is crazyhouse, as `[Qp]` is, and
/// castling rights without their rook are dropped with a warning; a position without a king is
/// still refused.
#[test]
fn show_reads_a_fen_as_a_games_fen_tag() {
    let o = run(&[
        "show",
        "--fen",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Qp w KQkq - 0 1",
        "--format",
        "ascii",
    ]);
    assert!(o.status.success() && stdout(&o).contains("pockets: White Q, Black p"), "{}", stderr(&o));
    let o = run(&["show", "--fen", "4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1", "--format", "ascii"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "warning: FEN \"4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1\": castling rights without their rook dropped"
        ),
        "{}",
        stderr(&o)
    );
    let o = run(&["show", "--fen", "4k3/8/8/8/8/8/8/8 w - - 0 1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `--lastmove` is the move that led to the position: one that cannot be (the mover's piece not
/// on its destination, its origin taken, a piece that does not move so, a drop outside
/// crazyhouse) is a usage error, not drawn.
#[test]
fn show_refuses_a_lastmove_that_cannot_have_led_to_the_position() {
    let queen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let castled = "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 w - - 6 5";
    let promoted = "Q3k3/8/8/8/8/8/8/4K3 b - - 0 1";
    let house = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[] b KQkq - 1 2";
    for (fen, m, why) in [
        (queen, "a1h8", "a1, the origin, is not empty"),
        (queen, "d1h4", "d1, the origin, is not empty"),
        (queen, "d8h5", "no black piece on h5"),
        (queen, "e7e6", "no black piece on e6"),
        (queen, "d8h4q", "the q on h4 cannot have come from d8"),
        (queen, "f5h4", "the q on h4 cannot have come from f5"),
        (queen, "Q@h4", "a drop, in a position that is not crazyhouse"),
        (castled, "e8c8", "the b on c8 cannot have come from e8"),
        (promoted, "b7a8n", "no N on a8"),
        (promoted, "a6a8q", "the Q on a8 cannot have come from a6"),
        (house, "P@f3", "no P on f3"),
        ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8", "no black piece on d8"),
    ] {
        let o = run(&["show", "--fen", fen, "--lastmove", m, "--format", "svg"]);
        assert_eq!(o.status.code(), Some(2), "{m}: {}", stderr(&o));
        let said = format!("--lastmove {m}: not the move that led to the position: {why}");
        assert!(stderr(&o).contains(&said), "{m}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{m}");
    }
    for (fen, m) in [
        (queen, "d8h4"),
        (queen, "e7e5"),
        (castled, "e8g8"),
        (castled, "e8h8"),
        (promoted, "b7a8q"),
        (house, "g1f3"),
    ] {
        let o = run(&["show", "--fen", fen, "--lastmove", m, "--format", "svg"]);
        assert_eq!(o.status.code(), Some(0), "{m}: {}", stderr(&o));
        assert!(stdout(&o).contains(&format!("{} lastmove", &m[2..4])), "{m}");
    }
}

/// A game whose start position is bad (a variant pgnkit does not play, a bad `[FEN]`) has no
/// board to draw: its error is reported where it stands, as the jobs report it, and the exit is
/// 1 (the input is PGN).
#[test]
fn show_of_a_game_with_a_bad_start_says_where() {
    for (pgn, said) in [
        (
            "[Event \"h\"]\n[Variant \"Horde\"]\n[Result \"*\"]\n\n1. e4 *\n",
            ":2:1: error: game 1 (? - ?): unsupported variant",
        ),
        (
            "[Event \"b\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n",
            ":3:1: error: game 1 (? - ?): illegal position",
        ),
    ] {
        let o = run_with_stdin(&["show", "-", "--format", "ascii"], pgn);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(said) && stderr(&o).contains("no position to draw"), "{}", stderr(&o));
        assert_eq!(stdout(&o), "");
    }
}

/// A game with an error is drawn at the end of its valid moves, and the error is reported with
/// its location (exit 1), as `check` reports it; text before the first game is a game of its
/// own, whose unreadable first move says why game 1 is the start position.
#[test]
fn show_reports_the_errors_of_the_game_it_draws() {
    let pgn = "[Event \"A\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n";
    let o = run_with_stdin(&["show", "-", "--format", "ascii"], pgn);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("5 | . . . . p . . . |"), "after 1... e5: {}", stdout(&o));
    assert!(
        stderr(&o).contains(":4:13: error: game 1 (? - ?): ply 3: illegal SAN \"Ke3\""),
        "{}",
        stderr(&o)
    );
    let o = run_with_stdin(&["show", "-", "--ply", "1", "--format", "ascii"], pgn);
    assert_eq!(o.status.code(), Some(1), "the game still has its error: {}", stderr(&o));
    let garbage = format!("Some notes\n\n{pgn}");
    let o = run_with_stdin(&["show", "-", "--format", "ascii"], &garbage);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(":1:1: error: game 1 (? - ?): ply 1: unreadable move \"Some\""),
        "{}",
        stderr(&o)
    );
    let o = run_with_stdin(&["show", "-", "--game", "2", "--ply", "2", "--format", "ascii"], &garbage);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains(":6:13: error: game 2"), "{}", stderr(&o));
    let o = run_with_stdin(&["show", "-", "--format", "ascii"], "1. e4 e5 *\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

/// A null move is replayed as a pass: the moves after it are played by the right side.
#[test]
fn show_replays_a_null_move_as_a_pass() {
    let o = run_with_stdin(&["show", "-", "--format", "ascii"], "[Event \"n\"]\n\n1. e4 -- 2. d4 *\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("4 | . . . P P . . . |"), "{}", stdout(&o));
    let o = run_with_stdin(&["show", "-", "--ply", "2", "--format", "ascii"], "1. e4 -- 2. d4 *\n");
    assert!(stdout(&o).contains("2 | P P P P . P P P |"), "{}", stdout(&o));
}

#[test]
fn bench_signature() {
    let o = run(&["bench"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("Nodes: 155829\nNPS: "), "bench signature changed: {text}");
}

/// A small deterministic generator (no dependency needed for a handful of random games).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

#[test]
fn uci_never_answers_an_illegal_move_over_random_positions() {
    let mut rng = Lcg(0x5eed);
    let mut positions = Vec::new();
    while positions.len() < 40 {
        let mut pos = Position::default();
        for _ in 0..rng.below(60) + 1 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len())]);
        }
        if pos.has_legal_moves() {
            positions.push(pos);
        }
    }
    let mut input = String::from("uci\n");
    for pos in &positions {
        input.push_str("position fen ");
        write_fen(pos, EpMode::Legal, &mut input);
        input.push_str("\ngo nodes 300\n");
    }
    input.push_str("quit\n");
    let o = run_with_stdin(&["uci"], &input);
    assert!(o.status.success(), "{}", stderr(&o));
    let best: Vec<String> = lines(&o)
        .iter()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(|b| b.split(' ').next().unwrap_or(b).to_string())
        .collect();
    assert_eq!(best.len(), positions.len());
    for (pos, m) in positions.iter().zip(&best) {
        let mut fen = String::new();
        write_fen(pos, EpMode::Legal, &mut fen);
        assert!(parse_uci(pos, m.as_bytes()).is_ok(), "bestmove {m} in {fen}");
    }
}

/// python-chess drives `pgnkit uci` (`scripts/check_uci_python.py`): it plays, analyses by depth
/// and by nodes, reads three lines at once through `MultiPV`, and plays Chess960 and Crazyhouse
/// with the options it sets itself; and analyses through `pgnkit xboard`'s analyze mode.
#[test]
fn python_chess_plays_and_analyses_through_uci_and_xboard() {
    if crate::util::python_chess_missing() {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/check_uci_python.py");
    let o = std::process::Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_pgnkit")])
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("python-chess UCI and xboard check: OK"), "{}", stdout(&o));
}

/// `show` of a compressed input reads it a piece at a time and stops at the game: a game past
/// the first piece (16 MiB) is drawn as from the plain file, its error at the same line.
#[test]
fn show_reads_a_stream_in_pieces_with_the_files_lines() {
    let dir = crate::util::temp_dir("show-stream");
    let games = std::fs::read(fixture("pgn/lichess_db_10k.pgn")).expect("fixture");
    let mut text = Vec::new();
    while text.len() < 20 << 20 {
        text.extend_from_slice(&games);
    }
    text.extend_from_slice(b"\n[Event \"bad\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n");
    let last = text.windows(8).filter(|w| w == b"[Event \"").count().to_string();
    let plain = dir.join("big.pgn");
    std::fs::write(&plain, &text).expect("write");
    let packed = dir.join("big.pgn.zst");
    std::fs::write(&packed, zstd::encode_all(&text[..], 3).expect("zstd")).expect("write");
    let [a, b] = [&plain, &packed].map(|p| run(&["show", p.to_str().expect("UTF-8"), "--game", &last]));
    assert_eq!((a.status.code(), b.status.code()), (Some(1), Some(1)), "{}{}", stderr(&a), stderr(&b));
    assert_eq!(a.stdout, b.stdout);
    let line =
        text.split(|&c| c == b'\n').position(|l| l.starts_with(b"1. e4 e5 2. Ke3")).expect("the move") + 1;
    for (o, name) in [(&a, "big.pgn"), (&b, "big.pgn.zst")] {
        assert!(stderr(o).contains(&format!("{name}:{line}:13: error: game {last} ")), "{}", stderr(o));
    }
}
