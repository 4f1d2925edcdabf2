//! `Position` against slower references: start positions against validated setups, keys kept
//! with and without hashing, a promoted castling rook, `play_known` against `play_unchecked`.

use super::*;

#[test]
#[cfg(feature = "variants")]
fn start_positions_equal_their_validated_setups() {
    for variant in [Variant::Standard, Variant::Chess960, Variant::Crazyhouse] {
        let mut setup = Setup::standard();
        if variant == Variant::Crazyhouse {
            setup.pockets = Some(ByColor::default());
        }
        let mode = CastlingMode::from_chess960(variant == Variant::Chess960);
        let validated = Position::from_setup(setup, variant, mode).expect("valid");
        let direct = Position::new(variant);
        assert_eq!(direct, validated, "{variant:?}");
        assert_eq!(direct.zobrist(), direct.compute_hash());
    }
}
#[test]
fn moves_without_hashing_give_the_same_positions_and_keys() {
    for variant in [Variant::Standard, Variant::Chess960, Variant::Crazyhouse] {
        for seed in 1..=40u64 {
            let mut hashed = Position::new(variant);
            let mut lazy = hashed;
            lazy.set_hashing(false);
            let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            for ply in 0..300 {
                assert_eq!(lazy.zobrist(), hashed.zobrist(), "{variant:?} seed {seed} ply {ply}");
                assert!(lazy.same_position(&hashed) && hashed.same_position(&lazy));
                let moves = hashed.legal_moves();
                if moves.is_empty() {
                    break;
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let m = moves[(rng % moves.len() as u64) as usize];
                // A null move now and then: it must skip the key update too.
                if rng % 23 == 0 && !hashed.is_check() {
                    hashed.play_null().expect("not in check");
                    lazy.play_null().expect("not in check");
                    continue;
                }
                hashed.play_unchecked(m);
                lazy.play_unchecked(m);
            }
            let key = hashed.zobrist();
            lazy.set_hashing(true);
            assert_eq!(lazy.hash, key, "turning hashing on recomputes the key");
            assert_eq!(lazy, hashed);
        }
    }
}

/// A promoted rook that castles (only a set-up position has one) keeps its mark, the king
/// gets none where it lands (on the rook's square, in the second case), and the key follows.
/// Found by the `zobrist_incremental` fuzzer.
#[test]
#[cfg(feature = "variants")]
fn a_promoted_castling_rook_keeps_its_mark() {
    use crate::notation::fen::{EpMode, parse_fen, write_fen};
    for (fen, after) in [
        ("rnbqk2r~/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] b KQkq - 0 1", "rnbq1r~k1/"),
        ("rnbqk1r~b/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] b KQkq - 0 1", "rnbq1r~kb/"),
    ] {
        let mut pos = parse_fen(fen, Variant::Crazyhouse).expect("valid FEN");
        let castle = pos.legal_moves().iter().copied().find(|m| m.is_castle()).expect("O-O is legal");
        pos.play_unchecked(castle);
        assert_eq!(pos.promoted(), Bitboard::from_square(Square::F8), "{fen}");
        assert_eq!(pos.zobrist(), pos.compute_hash(), "{fen}");
        let mut written = String::new();
        write_fen(&pos, EpMode::Legal, &mut written);
        assert!(written.starts_with(after), "{fen}: {written}");
    }
}

#[test]
fn start_key_constant_is_the_computed_key() {
    for variant in [Variant::Standard, Variant::Chess960, Variant::Crazyhouse] {
        let pos = Position::new(variant);
        assert_eq!(zobrist::START, pos.compute_hash(), "{variant:?}");
        assert_eq!(pos.zobrist(), zobrist::START);
    }
}

#[test]
fn play_known_equals_play_unchecked() {
    for variant in [Variant::Standard, Variant::Chess960, Variant::Crazyhouse] {
        for seed in 1..=12u64 {
            for (ply, pos) in Position::random_line(variant, seed, 300).into_iter().enumerate() {
                for &m in pos.legal_moves().iter() {
                    // Castling and drops ignore the role: give a wrong one on purpose.
                    let role = match m.from() {
                        Some(from) if !m.is_castle() => pos.board().role_at(from).expect("a piece moves"),
                        _ => Role::Queen,
                    };
                    let (mut known, mut searched, mut lazy) = (pos, pos, pos);
                    known.play_known(m, role);
                    searched.play_unchecked(m);
                    assert_eq!(known, searched, "{variant:?} seed {seed} ply {ply} {m:?}");
                    assert_eq!(known.zobrist(), searched.zobrist());
                    // Without keys, ordinary moves take the path that does not jump.
                    lazy.set_hashing(false);
                    lazy.play_known(m, role);
                    lazy.set_hashing(true);
                    assert_eq!(lazy, searched, "{variant:?} {m:?}");
                }
            }
        }
    }
}

/// Clocks at their largest stay there instead of wrapping to 0 (a FEN may give `u32::MAX`).
#[test]
fn clocks_saturate() {
    let fen = "4k3/8/8/8/8/8/8/4K3 b - - 4294967295 4294967295";
    let mut pos = crate::notation::parse_fen(fen, Variant::Standard).expect("fen");
    for uci in ["e8d7", "e1d2"] {
        let m = crate::notation::parse_uci(&pos, uci.as_bytes()).expect("legal");
        pos.play_unchecked(m);
    }
    pos.play_null().expect("not in check");
    assert_eq!((pos.halfmoves(), pos.fullmoves()), (u32::MAX, u32::MAX));
}

/// A promoted minor in crazyhouse is not a dead draw: its captor holds it as a pawn.
#[test]
#[cfg(feature = "variants")]
fn a_promoted_minor_can_still_mate_in_crazyhouse() {
    let zh = |fen| crate::notation::parse_fen(fen, Variant::Crazyhouse).expect("fen");
    assert!(!zh("4k3/8/8/8/8/8/8/4KB~2[] w - - 0 1").is_insufficient_material());
    assert!(zh("4k3/8/8/8/8/8/8/4KB2[] w - - 0 1").is_insufficient_material());
}

/// A lone knight or bishop besides the kings never mates in crazyhouse, in hand as on the board:
/// captured, it changes hands as itself (python-chess's rule).
#[test]
#[cfg(feature = "variants")]
fn a_minor_in_hand_is_insufficient_material_in_crazyhouse() {
    let zh = |fen| crate::notation::parse_fen(fen, Variant::Crazyhouse).expect("fen");
    assert!(zh("8/8/8/4k3/8/8/8/4K3[N] w - - 0 1").is_insufficient_material());
    assert!(zh("8/8/8/4k3/8/8/8/4K3[b] b - - 0 1").has_insufficient_material(Color::White));
    assert!(!zh("8/8/8/4k3/8/8/8/4K3[P] w - - 0 1").has_insufficient_material(Color::Black));
    assert!(!zh("8/8/8/4k3/8/8/8/4K3[Nn] w - - 0 1").is_insufficient_material());
    let drawn = zh("8/8/8/4k3/8/8/8/4K3[B] w - - 0 1").outcome();
    assert_eq!(drawn.map(|o| o.termination), Some(crate::chess::Termination::InsufficientMaterial));
}

/// Crazyhouse insufficient material equals python-chess's for both colors, with one or two men
/// besides the kings, each on the board (promoted or not) or in a pocket.
#[test]
#[cfg(feature = "variants")]
fn crazyhouse_insufficient_material_is_python_chess_s() {
    let men = ["N", "B", "R", "Q", "P", "n", "b", "r", "q", "p", "N~", "b~"];
    // A man on the board, `a2` or `h7` (attacking neither king), or in hand; `None`: absent.
    let mut fens = Vec::new();
    for first in men.iter().map(Some).chain([None]) {
        for second in men.iter().map(Some).chain([None]) {
            for (first_on_board, second_on_board) in
                [(false, false), (true, false), (false, true), (true, true)]
            {
                let placed = |man: Option<&&str>, on_board: bool| match man {
                    None => Some((String::new(), String::new())),
                    Some(m) if on_board => Some((m.to_string(), String::new())),
                    // A promoted mark belongs to a square: nothing in hand has one.
                    Some(m) if m.ends_with('~') => None,
                    Some(m) => Some((String::new(), m.to_string())),
                };
                let (Some((a2, pocket1)), Some((h7, pocket2))) =
                    (placed(first, first_on_board), placed(second, second_on_board))
                else {
                    continue;
                };
                let rank7 = if h7.is_empty() { "8".to_string() } else { format!("7{h7}") };
                let rank2 = if a2.is_empty() { "8".to_string() } else { format!("{a2}7") };
                fens.push(format!("8/{rank7}/8/4k3/8/8/{rank2}/4K3[{pocket1}{pocket2}] w - - 0 1"));
            }
        }
    }
    fens.sort();
    fens.dedup();
    let script = "import sys, chess.variant\n\
        for fen in sys.stdin.read().splitlines():\n\
        \x20   b = chess.variant.CrazyhouseBoard(fen)\n\
        \x20   print(b.has_insufficient_material(chess.WHITE), b.has_insufficient_material(chess.BLACK))\n";
    let Some(theirs) = crate::python_chess(script, &fens.join("\n")) else { return };
    let theirs: Vec<&str> = theirs.lines().collect();
    assert_eq!(theirs.len(), fens.len());
    let mut drawn = 0;
    for (fen, theirs) in fens.iter().zip(theirs) {
        let pos = crate::notation::parse_fen(fen, Variant::Crazyhouse).expect(fen);
        let ours = [Color::White, Color::Black]
            .map(|c| if pos.has_insufficient_material(c) { "True" } else { "False" });
        assert_eq!(ours.join(" "), theirs, "{fen}");
        drawn += usize::from(ours[0] == "True");
    }
    assert!(drawn > 4 && drawn < fens.len() / 4, "{drawn} of {}", fens.len());
}

/// The claim of python-chess's `can_claim_fifty_moves`: with the move that completes the fifty,
/// and not once the game is over.
#[test]
#[cfg(feature = "variants")]
fn the_fifty_move_claim_is_python_chess_s() {
    let claim = |fen, variant| crate::notation::parse_fen(fen, variant).expect(fen).can_claim_fifty_moves();
    assert!(claim("7k/8/8/8/8/8/R7/K7 w - - 99 80", Variant::Standard));
    assert!(!claim("7k/8/8/8/8/8/R7/K7 w - - 98 80", Variant::Standard));
    assert!(claim("7k/8/8/8/8/8/R7/K7 w - - 100 80", Variant::Standard));
    assert!(!claim("R5k1/5ppp/8/8/8/8/8/6K1 b - - 150 80", Variant::Standard), "checkmate");
    assert!(!claim("7k/5K2/6Q1/8/8/8/8/8 b - - 150 1", Variant::Standard), "stalemate");
    // The one legal move takes a pawn: it sets the clock back.
    assert!(!claim("8/8/8/8/8/2k5/p7/K7 w - - 99 80", Variant::Standard));
    assert!(claim("8/8/8/8/8/2k5/p7/K7 w - - 100 80", Variant::Standard));
    assert!(!claim("7k/8/8/8/8/8/R7/K7[] w - - 120 80", Variant::Crazyhouse));
}

/// `can_claim_fifty_moves` and `outcome` equal python-chess's on the positions of random games
/// (and the ends they reach), their clocks set to 99, 100 and 150, in every variant.
#[test]
#[cfg(feature = "variants")]
fn the_fifty_move_claim_and_the_outcome_equal_python_chess_on_random_games() {
    let mut cases = Vec::new();
    for variant in [Variant::Standard, Variant::Chess960, Variant::Crazyhouse] {
        for seed in 0..40 {
            let line = Position::random_line(variant, seed, 400);
            let Some(&last) = line.last() else { continue };
            let mut positions: Vec<Position> = line.iter().step_by(37).copied().collect();
            // The last position's successors: the game's end (mate or stalemate) among them.
            positions.extend(last.legal_moves().iter().map(|&m| {
                let mut p = last;
                p.play_unchecked(m);
                p
            }));
            for pos in positions {
                for clock in [99, 100, 150] {
                    let mut setup = pos.to_setup();
                    setup.halfmoves = clock;
                    let mut fen = String::new();
                    crate::notation::fen::write_setup(&setup, pos.castling_mode(), &mut fen);
                    cases.push((variant, fen));
                }
            }
        }
    }
    let script = "import sys, chess, chess.variant\n\
        for line in sys.stdin.read().splitlines():\n\
        \x20   variant, fen = line.split('\\t')\n\
        \x20   board = chess.variant.CrazyhouseBoard(fen) if variant == 'zh' \
        else chess.Board(fen, chess960=variant == '960')\n\
        \x20   outcome = board.outcome()\n\
        \x20   print(board.can_claim_fifty_moves(), outcome.termination.name if outcome else None)\n";
    let input: Vec<String> = cases
        .iter()
        .map(|(v, fen)| {
            let tag = match v {
                Variant::Standard => "std",
                Variant::Chess960 => "960",
                Variant::Crazyhouse => "zh",
            };
            format!("{tag}\t{fen}")
        })
        .collect();
    let Some(theirs) = crate::python_chess(script, &input.join("\n")) else { return };
    let theirs: Vec<&str> = theirs.lines().collect();
    assert_eq!(theirs.len(), cases.len());
    let (mut claims, mut refusals) = (0, 0);
    for ((variant, fen), theirs) in cases.iter().zip(theirs) {
        let pos = crate::notation::parse_fen(fen, *variant).expect(fen);
        let ours = pos.can_claim_fifty_moves();
        let ended = pos.outcome().map_or("None", |o| match o.termination {
            crate::chess::Termination::Checkmate => "CHECKMATE",
            crate::chess::Termination::Stalemate => "STALEMATE",
            crate::chess::Termination::InsufficientMaterial => "INSUFFICIENT_MATERIAL",
            crate::chess::Termination::SeventyFiveMoves => "SEVENTYFIVE_MOVES",
            crate::chess::Termination::FivefoldRepetition => "FIVEFOLD_REPETITION",
        });
        let claim = if ours { "True" } else { "False" };
        assert_eq!(format!("{claim} {ended}"), theirs, "{variant:?} {fen}");
        if *variant != Variant::Crazyhouse {
            if ours { claims += 1 } else { refusals += 1 }
        }
    }
    assert!(claims > 100 && refusals > 10, "{claims} claims, {refusals} refusals");
}

/// After a double step, a check is possible only from the pushed pawn or discovered by the step
/// (python-chess's `status()`): the review's positions, and checks that pass.
#[test]
fn a_check_the_double_step_did_not_give_is_impossible() {
    use crate::notation::fen::{FenError, parse_fen};
    let impossible = |fen: &str| match parse_fen(fen, Variant::Standard) {
        Ok(_) => false,
        Err(FenError::Position(e)) => e.has(PositionErrorKind::ImpossibleCheck),
        Err(e) => panic!("{fen}: {e}"),
    };
    for fen in [
        "K6k/8/8/8/4P3/8/8/B7 b - e3 0 1",
        "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
        "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
        "rnbqk1nr/bb3p1p/1q2r3/2pPp3/3P4/7P/1PP1NpPP/R1BQKBNR w KQkq c6 0 1",
    ] {
        assert!(impossible(fen), "{fen}");
    }
    // The pushed pawn checks; the step discovers a bishop's check; no check at all.
    assert!(!impossible("8/8/8/3p4/4K3/8/8/7k w - d6 0 1"));
    assert!(!impossible("8/8/8/7k/4P3/8/8/3B3K b - e3 0 1"));
    assert!(!impossible("7k/8/8/8/4P3/8/8/4K3 b - e3 0 1"));
    // Without the en passant square, only the count and lines of checkers matter.
    assert!(!impossible("K6k/8/8/8/4P3/8/8/B7 b - - 0 1"));
}

/// The impossible check of positions right after a double step equals python-chess's
/// (`IMPOSSIBLE_CHECK` or `TOO_MANY_CHECKERS`): the two kings, the pushed pawn and up to three
/// men on random squares, either side to move.
#[test]
fn impossible_checks_after_a_double_step_equal_python_chess() {
    use crate::chess::{Board, Piece, Setup};
    use crate::notation::fen::{FenError, parse_fen, write_setup};
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let next = |rng: &mut u64, n: u64| {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng % n
    };
    let roles = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
    let mut cases = Vec::new();
    while cases.len() < 3000 {
        let turn = if next(&mut rng, 2) == 0 { Color::White } else { Color::Black };
        let file = next(&mut rng, 8) as u32;
        // White to move: Black stepped from the 7th rank to the 5th, over the 6th.
        let (from, ep, to) = if turn.is_white() { (6, 5, 4) } else { (1, 2, 3) };
        let sq = |rank: u32| Square::new(rank * 8 + file);
        let mut board = Board::empty();
        board.set_piece_at(sq(to), Piece { color: !turn, role: Role::Pawn });
        let mut men = vec![
            Piece { color: Color::White, role: Role::King },
            Piece { color: Color::Black, role: Role::King },
        ];
        for _ in 0..1 + next(&mut rng, 3) {
            let color = if next(&mut rng, 2) == 0 { Color::White } else { Color::Black };
            men.push(Piece { color, role: roles[next(&mut rng, 5) as usize] });
        }
        for piece in men {
            loop {
                let s = Square::new(next(&mut rng, 64) as u32);
                let back = matches!(s as u32 / 8, 0 | 7);
                if !board.occupied().contains(s)
                    && s != sq(from)
                    && s != sq(ep)
                    && !(back && piece.role == Role::Pawn)
                {
                    board.set_piece_at(s, piece);
                    break;
                }
            }
        }
        let setup = Setup { board, turn, ep_square: Some(sq(ep)), ..Setup::empty() };
        let mut fen = String::new();
        write_setup(&setup, crate::chess::CastlingMode::Standard, &mut fen);
        let ours = match parse_fen(&fen, Variant::Standard) {
            Ok(pos) if pos.is_check() => false,
            Err(FenError::Position(e)) if !e.has(PositionErrorKind::OppositeCheck) => {
                e.has(PositionErrorKind::ImpossibleCheck)
            }
            // Not in check (nothing to judge) or not a position python-chess would judge alike.
            _ => continue,
        };
        cases.push((fen, ours));
    }
    let script = "import sys, chess\n\
        bad = chess.STATUS_IMPOSSIBLE_CHECK | chess.STATUS_TOO_MANY_CHECKERS\n\
        for fen in sys.stdin.read().splitlines():\n\
        \x20   print(bool(chess.Board(fen).status() & bad))\n";
    let fens: Vec<&str> = cases.iter().map(|(fen, _)| fen.as_str()).collect();
    let Some(theirs) = crate::python_chess(script, &fens.join("\n")) else { return };
    let theirs: Vec<&str> = theirs.lines().collect();
    assert_eq!(theirs.len(), cases.len());
    let mut impossible = 0;
    for ((fen, ours), theirs) in cases.iter().zip(theirs) {
        assert_eq!(if *ours { "True" } else { "False" }, theirs, "{fen}");
        impossible += usize::from(*ours);
    }
    assert!(impossible > 300 && impossible < cases.len() - 300, "{impossible} of {}", cases.len());
}

/// Nine pawns of a side are too much material, as 17 pieces are (python-chess's
/// `TOO_MANY_BLACK_PAWNS`): refused, or taken by [`PositionError::ignore_too_much_material`].
#[test]
fn nine_pawns_are_too_much_material() {
    let nine =
        crate::notation::fen::parse_fen("4k3/pppppppp/p7/8/8/8/PPPPPPPP/4K3 w - - 0 1", Variant::Standard);
    let Err(crate::notation::fen::FenError::Position(e)) = nine else {
        panic!("nine pawns accepted: {nine:?}")
    };
    assert_eq!(e.kinds().collect::<Vec<_>>(), [PositionErrorKind::TooManyPawns]);
    assert!(e.ignore_too_much_material().is_ok());
    let eight =
        crate::notation::fen::parse_fen("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", Variant::Standard);
    assert!(eight.is_ok());
}
