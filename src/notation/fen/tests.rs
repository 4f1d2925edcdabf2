//! FEN and EPD reading and writing: round trips over standard, Chess960 and crazyhouse
//! positions, the errors naming each field, and the fast writers against the square-by-square ones.

use super::write::{Tail, write_board, write_board_marked};
use super::*;
use crate::chess::{Bitboard, Board, CastlingMode, Color, Piece, Position, Role, Setup, Square, Variant};

/// Whole ranks rendered at once give the placement written a square at a time.
#[test]
fn ranks_rendered_whole_match_the_square_loop() {
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut pos = Position::default();
    for i in 0..20_000 {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_board(pos.board(), Bitboard::EMPTY, &mut a);
        write_board_marked(pos.board(), Bitboard::EMPTY, &mut b);
        assert_eq!(String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
        let moves = pos.legal_moves();
        if moves.is_empty() || i % 150 == 0 {
            pos = Position::default();
            continue;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        pos.play_unchecked(moves[(rng % moves.len() as u64) as usize]);
    }
    // Every occupancy of one rank, with every piece code on it.
    for occ in 0..=255u64 {
        let mut board = Board::empty();
        for f in 0..8 {
            if occ >> f & 1 != 0 {
                let role = Role::ALL[(f as usize + occ as usize) % 6];
                let color = Color::from_white((occ >> 3) & 1 == f & 1);
                board.set_piece_at(Square::new(56 + f as u32), Piece { color, role });
            }
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_board(&board, Bitboard::EMPTY, &mut a);
        write_board_marked(&board, Bitboard::EMPTY, &mut b);
        assert_eq!(a, b, "occupancy {occ:#x}");
    }
}

/// The caching writer gives the bytes of the plain one over many games' positions.
#[test]
fn fen_writer_matches_write_fen() {
    let mut w = FenWriter::new();
    // Same rook squares, another color on h8: the castling letter changes (g, then k).
    for (fen, castling) in
        [("r3k1rr/8/8/8/8/8/8/4K3 b g - 0 1", " g "), ("r3k1rR/8/8/8/8/8/8/4K3 b g - 0 1", " k ")]
    {
        let pos = parse_fen(fen, Variant::Chess960).expect("valid");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        w.write_fen(&pos, EpMode::Legal, &mut a);
        write_fen(&pos, EpMode::Legal, &mut b);
        assert_eq!(String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
        assert!(String::from_utf8_lossy(&b).contains(castling), "{}", String::from_utf8_lossy(&b));
    }
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    for game in 0..300 {
        let mut pos = if game % 3 == 0 {
            let n = (game * 7) % 960;
            let setup = Setup::chess960(n as u32).expect("chess960 setup");
            Position::from_setup(setup, Variant::Chess960, CastlingMode::Chess960).expect("valid")
        } else {
            Position::default()
        };
        for _ in 0..200 {
            for (ep, epd) in [(EpMode::Legal, false), (EpMode::Always, true)] {
                let (mut a, mut b) = (b"x".to_vec(), b"x".to_vec());
                if epd {
                    w.write_epd(&pos, ep, &mut a);
                    write_epd(&pos, ep, &mut b);
                } else {
                    w.write_fen(&pos, ep, &mut a);
                    write_fen(&pos, ep, &mut b);
                }
                assert_eq!(a, b);
            }
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            pos.play_unchecked(moves[(rng % moves.len() as u64) as usize]);
        }
    }
}
use crate::chess::PositionErrorKind;

/// The FEN of `p` as a `String`.
fn fen_text(p: &Position, ep: EpMode) -> String {
    let mut text = String::new();
    write_fen(p, ep, &mut text);
    text
}

fn setup(fen: &str) -> Setup {
    parse_setup(fen.as_bytes()).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn pos(fen: &str, variant: Variant) -> Position {
    parse_fen(fen, variant).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn setup_fen(s: &Setup) -> String {
    let mut out = Vec::new();
    write_setup(s, CastlingMode::Standard, &mut out);
    String::from_utf8(out).unwrap()
}

/// write -> read -> write gives the same text, and the same position.
#[cfg(feature = "variants")]
fn round_trip(fen: &str, variant: Variant, expected: &str) {
    let p = pos(fen, variant);
    let written = fen_text(&p, EpMode::Always);
    assert_eq!(written, expected, "from {fen}");
    let again = pos(&written, variant);
    assert_eq!(fen_text(&again, EpMode::Always), written);
    assert!(again.same_position(&p));
    assert_eq!(again.zobrist(), p.zobrist());
    assert_eq!(again.castling_mode(), p.castling_mode(), "{fen}");
}

#[test]
fn start_position() {
    assert_eq!(setup(STARTING_FEN), Setup::standard());
    assert_eq!(fen_text(&Position::default(), EpMode::Legal), STARTING_FEN);
    assert_eq!(setup_fen(&Setup::standard()), STARTING_FEN);
}

#[test]
fn lenient_fields() {
    let epd4 = setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(epd4, Setup::standard());
    assert_eq!(
        setup("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR \t w   KQkq  -  0 1 \n"),
        Setup::standard()
    );
    let five = setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 7");
    assert_eq!((five.turn, five.halfmoves, five.fullmoves), (Color::Black, 7, 1));
    // Castling letters in any order, repeats ignored.
    assert_eq!(setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w qkQKK - 0 1"), Setup::standard());
    // Fields missing after the board take python-chess's defaults, `w - - 0 1`.
    let no_rights = Setup { castling_rights: Bitboard::EMPTY, ..Setup::standard() };
    assert_eq!(setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"), no_rights);
    assert_eq!(setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"), no_rights);
    assert_eq!(setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq"), Setup::standard());
    let black = setup("4k3/8/8/8/4P3/8/8/4K3 b");
    assert_eq!((black.turn, black.ep_square, black.halfmoves, black.fullmoves), (Color::Black, None, 0, 1));
    assert_eq!(parse_setup(b"4k3/8/8/8/8/8/8/4K3 x"), Err(ParseFenError::Turn), "a field given is read");
}

#[test]
fn errors_name_the_field() {
    use ParseFenError::*;
    let cases: &[(&str, ParseFenError)] = &[
        ("", Board),
        (" \t ", Board),
        ("b KQkq - 0 1", Board),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", Board),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Board),
        ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Board),
        ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Board),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", Board),
        ("~rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Board),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Kq] w KQkq - 0 1", Pocket),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Q w KQkq - 0 1", Pocket),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Qx w KQkq - 0 1", Pocket),
        ("4k3/8/8/8/8/8/8/8/4K2R w - - 0 1", Ranks),
        ("4k3/8/8/8/8/8/8/4K2R/8 w - - 0 1", Ranks),
        ("4k3/8/8/8/8/8/8/4K3/k w - - 0 1", Ranks),
        ("4k3/8/8/8/8/8/8/4K3/Q/q w - - 0 1", Ranks),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", Turn),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1", Castling),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w K-q - 0 1", Castling),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", EpSquare),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", Halfmoves),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", Halfmoves),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999 1", Halfmoves),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1.", Fullmoves),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x", TrailingGarbage),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;", Fullmoves),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;", Halfmoves),
    ];
    for &(fen, err) in cases {
        assert_eq!(parse_setup(fen.as_bytes()), Err(err), "{fen:?}");
    }
    assert!(Halfmoves.to_string().contains("halfmove"));
    let e = parse_fen("8/8/8/8/8/8/8/8 w - - 0 1", Variant::Standard).unwrap_err();
    assert!(matches!(e, FenError::Position(ref p) if p.has(PositionErrorKind::Empty)), "{e}");
    let e = parse_fen("nonsense", Variant::Standard).unwrap_err();
    assert!(matches!(e, FenError::Parse(Board)));
    assert!(std::error::Error::source(&e).is_some());
    // Pieces in hand are a crazyhouse position's: in another variant they are an error, not
    // dropped; an empty pocket says nothing.
    for variant in [Variant::Standard, Variant::Chess960] {
        let e = parse_fen("4k3/8/8/8/8/8/8/4K3[Qq] w - - 0 1", variant).unwrap_err();
        assert!(matches!(e, FenError::Position(ref p) if p.has(PositionErrorKind::PiecesInHand)), "{e}");
        assert!(parse_fen("4k3/8/8/8/8/8/8/4K3[] w - - 0 1", variant).is_ok());
    }
}

#[test]
fn castling_rights_as_rooks() {
    // X-FEN: K is the outermost h-side rook, a file letter names an inner rook.
    let s = setup("rk2r3/8/8/8/8/8/8/1R2K1RR w GBkq - 0 1");
    assert_eq!(s.castling_rights, Bitboard::from_square(Square::G1) | Square::B1 | Square::E8 | Square::A8);
    // Shredder-FEN in, X-FEN out.
    let p = pos("rk2r3/8/8/8/8/8/8/R3K1RR w GAea - 0 1", Variant::Chess960);
    assert_eq!(fen_text(&p, EpMode::Legal), "rk2r3/8/8/8/8/8/8/R3K1RR w GQkq - 0 1");
    // Rights without a rook are kept (as the corner) and rejected by validation.
    let s = setup("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1");
    assert_eq!(s.castling_rights, Bitboard::CORNERS);
    let e = parse_fen("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", Variant::Standard).unwrap_err();
    let FenError::Position(e) = e else { panic!() };
    assert!(e.has(PositionErrorKind::InvalidCastlingRights));
    assert_eq!(
        fen_text(&e.ignore_invalid_castling_rights().unwrap(), EpMode::Legal),
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    );
}

#[test]
fn castling_mode_detection() {
    let p = pos(STARTING_FEN, Variant::Standard);
    assert_eq!(p.castling_mode(), CastlingMode::Standard);
    assert_eq!(pos(STARTING_FEN, Variant::Chess960).castling_mode(), CastlingMode::Chess960);
    // King on the c-file: only expressible as Chess960.
    let p = pos("r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1", Variant::Standard);
    assert_eq!(p.castling_mode(), CastlingMode::Chess960);
    assert_eq!(p.castling_rights().count(), 4);
    // An inner rook: Chess960 too.
    let p = pos("4k3/8/8/8/8/8/8/4K1R1 w K - 0 1", Variant::Standard);
    assert_eq!(p.castling_mode(), CastlingMode::Chess960);
    assert_eq!(p.castling_rights(), Bitboard::from_square(Square::G1));
}

#[test]
#[cfg(feature = "variants")]
fn round_trips_standard_960_crazyhouse() {
    round_trip(STARTING_FEN, Variant::Standard, STARTING_FEN);
    round_trip(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 3 17",
        Variant::Standard,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 3 17",
    );
    round_trip(
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        Variant::Standard,
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    );
    // Shredder-FEN in, X-FEN out.
    round_trip(
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        Variant::Chess960,
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
    );
    round_trip(
        "2r1kr2/8/8/8/8/8/8/1R2KR1R w HBf - 0 1",
        Variant::Chess960,
        "2r1kr2/8/8/8/8/8/8/1R2KR1R w KQk - 0 1",
    );
    // An inner rook needs its file letter.
    round_trip("4k3/8/8/8/8/8/8/R2RK1R1 w DG - 0 1", Variant::Chess960, "4k3/8/8/8/8/8/8/R2RK1R1 w KD - 0 1");
    // Crazyhouse: both pocket forms in, `[...]` out in Q R B N P order, `~` kept.
    round_trip(
        "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[pRQp] b KQkq - 0 1",
        Variant::Crazyhouse,
        "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[QRpp] b KQkq - 0 1",
    );
    round_trip(
        "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R/QRpp b KQkq - 0 1",
        Variant::Crazyhouse,
        "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[QRpp] b KQkq - 0 1",
    );
    round_trip(
        "4k3/1Q~6/8/8/4b3/8/Kpp5/8/ b - - 0 1",
        Variant::Crazyhouse,
        "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1",
    );
    round_trip(
        "4k3/1Q~6/8/8/4b3/8/Kpp5/8[-] b - - 0 1",
        Variant::Crazyhouse,
        "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1",
    );
    // Crazyhouse without a pocket in the text gets an empty one.
    round_trip(
        STARTING_FEN,
        Variant::Crazyhouse,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
    );
}

#[test]
fn raw_setup_round_trip() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QRBNPqrbnp] w KQkq e3 5 9",
        "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1",
        "rk2r3/8/8/8/8/8/8/1R2K1RR w GBkq - 0 1",
        "8/8/8/8/8/8/8/8 b - a6 0 0",
        "Q~7/8/8/8/8/8/8/8 w - - 0 1",
    ] {
        let s = setup(fen);
        let text = setup_fen(&s);
        assert_eq!(setup(&text), s, "{fen} -> {text}");
        let mut again = Vec::new();
        write_setup(&setup(&text), CastlingMode::Chess960, &mut again);
        assert_eq!(again, text.as_bytes());
    }
}

#[test]
fn ep_modes() {
    // After 1. e4: the square exists, but no capture.
    let p = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", Variant::Standard);
    assert_eq!(fen_text(&p, EpMode::Legal), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!(fen_text(&p, EpMode::Always), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    // Pseudo-legal but pinned: not written in legal mode.
    let p = pos("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1", Variant::Standard);
    assert_eq!(p.ep_square_legal(), None);
    assert_eq!(ep_square(&p, EpMode::Legal), None);
    assert_eq!(ep_square(&p, EpMode::Always), Some(Square::D6));
    let p = pos("8/8/8/3pP3/8/8/8/k3K3 w - d6 0 1", Variant::Standard);
    assert_eq!(ep_square(&p, EpMode::Legal), Some(Square::D6));
}

#[test]
fn epd_ops() {
    let epd = parse_epd(
        r#"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5 Bc4; id "WAC.001; quoted"; c0 "a b"; ce +32; acd 20;acn 12345 ;acs 3; dm 4; pv Bb5 a6 Ba4; hmvc 2; fmvn 3"#,
    )
    .unwrap();
    assert_eq!(epd.setup.halfmoves, 2);
    assert_eq!(epd.setup.fullmoves, 3);
    assert_eq!(epd.op("bm").unwrap(), ["Bb5", "Bc4"]);
    assert_eq!(epd.op("id").unwrap(), ["WAC.001; quoted"]);
    assert_eq!(epd.op("c0").unwrap(), ["a b"]);
    assert_eq!(epd.op("ce").unwrap(), ["+32"]);
    assert_eq!(epd.op("acd").unwrap(), ["20"]);
    assert_eq!(epd.op("acn").unwrap(), ["12345"]);
    assert_eq!(epd.op("pv").unwrap(), ["Bb5", "a6", "Ba4"]);
    assert_eq!(epd.op("fmvn").unwrap(), ["3"]);
    assert_eq!(epd.ops.len(), 11);
    assert_eq!((epd.op("am"), epd.clock_fields), (None, 0));
    // Numeric clocks after the four fields (perft suites, FEN), no ops; one clock alone.
    let epd = parse_epd("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
    assert_eq!((epd.setup.halfmoves, epd.setup.fullmoves, epd.clock_fields), (2, 9, 2));
    assert!(epd.ops.is_empty());
    let epd = parse_epd("8/8/8/8/8/8/8/K1k5 w - - 7 bm Kb2;").unwrap();
    assert_eq!((epd.setup.halfmoves, epd.setup.fullmoves, epd.clock_fields), (7, 1, 1));
    assert_eq!(epd.op("bm").unwrap(), ["Kb2"]);
    // Plain four fields, and errors.
    assert_eq!(
        parse_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").unwrap().setup,
        Setup::standard()
    );
    assert_eq!(parse_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq"), Err(ParseFenError::EpSquare));
    assert_eq!(
        parse_epd(r#"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id "open"#),
        Err(ParseFenError::Operation)
    );
    // An empty operation is passed over, as python-chess reads suites written `FEN ; bm X;`.
    assert!(parse_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ;").unwrap().ops.is_empty());
    let epd = parse_epd(
        r#"r3qb1k/1b4p1/p2pr2p/3n4/Pnp1N1N1/6RP/1B3PP1/1B1QR1K1 w - - ; bm Nxh6; id "Position 1";"#,
    )
    .unwrap();
    assert_eq!(
        (epd.op("bm").unwrap(), epd.op("id").unwrap()),
        (&["Nxh6".to_string()][..], &["Position 1".to_string()][..])
    );
    let epd =
        parse_epd("rn1qkb1r/pb1p1ppp/1p2pn2/2p5/2PP4/5NP1/PP2PPBP/RNBQK2R w KQkq c6 1 6; bm d5").unwrap();
    assert_eq!((epd.setup.fullmoves, epd.op("bm").unwrap()), (6, &["d5".to_string()][..]));
    let epd = parse_epd("8/8/8/8/8/8/8/K1k5 w - -; bm Kb2;").unwrap();
    assert_eq!((epd.clock_fields, epd.op("bm").unwrap()), (0, &["Kb2".to_string()][..]));
    let epd = parse_epd("8/8/8/8/8/8/8/K1k5 w - - 0 1 ; bm Kb2;;").unwrap();
    assert_eq!((epd.clock_fields, epd.op("bm").unwrap()), (2, &["Kb2".to_string()][..]));
    // A string's escaped quote and backslash; another backslash is itself.
    let epd = parse_epd(r#"8/8/8/8/8/8/8/K1k5 w - - id "we\"ird;na\\me\d.pgn:1:0"; bm Kb2;"#).unwrap();
    assert_eq!(epd.op("id").unwrap(), [r#"we"ird;na\me\d.pgn:1:0"#]);
    assert_eq!(epd.op("bm").unwrap(), ["Kb2"]);
    // Line breaks and tabs as python-chess writes them, read back; an escaped backslash stays one.
    let epd = parse_epd(r#"8/8/8/8/8/8/8/K1k5 w - - id "a\nb\r\tc\\n";"#).unwrap();
    assert_eq!(epd.op("id").unwrap(), ["a\nb\r\tc\\n"]);
    let mut line = String::from("8/8/8/8/8/8/8/K1k5 w - - id \"");
    escape_epd_string("a\nb\r\tc\\n\u{7f}", &mut line);
    line.push_str("\";");
    assert_eq!(line.lines().count(), 1, "{line}");
    assert_eq!(parse_epd(&line).unwrap().op("id").unwrap(), ["a\nb\r\tc\\n "]);
    assert_eq!(parse_epd(r#"8/8/8/8/8/8/8/K1k5 w - - id "open\";"#), Err(ParseFenError::Operation));
    assert_eq!(
        parse_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - hmvc x;"),
        Err(ParseFenError::Halfmoves)
    );
    assert_eq!(
        parse_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - fmvn;"),
        Err(ParseFenError::Fullmoves)
    );
}

/// A record whose four fields read but whose operations do not is said to be so, not blamed on
/// its FEN (a suite's line cut inside a string, an operation without an opcode).
#[test]
fn a_malformed_epd_operation_is_named() {
    for line in [
        r#"8/8/1p1K4/Pp6/2k1p3/8/1P6/8 w - - bm a6; c0 "Kubbel 1927, 1 ... e3"#,
        "rn2kbnr/pp3pp1/4p3/3pP1Bp/2pP3P/2P5/Pq2NPP1/RN1Q1RK1 b kq - - bm Qxa1;",
        "8/8/8/8/8/8/8/K1k5 w - - bm Kb2; 2x;",
    ] {
        let e = parse_epd(line).unwrap_err();
        assert_eq!(e, ParseFenError::Operation, "{line}");
        assert!(e.to_string().starts_with("malformed EPD operation"), "{e}");
    }
}

#[test]
fn epd_writer() {
    let mut out = Vec::new();
    write_epd(&Position::default(), EpMode::Legal, &mut out);
    assert_eq!(out, b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    for v in [0, 7, 10, 4_294_967_295] {
        let mut n = Tail::new();
        n.push_u32(v);
        assert_eq!(n.as_slice(), v.to_string().as_bytes());
    }
}

/// Crazyhouse pockets of more pieces than a board and a game's pieces can make are refused, so
/// that no pocket count passes what it holds (255) as pieces are captured.
#[test]
fn pockets_past_what_a_game_holds_are_refused() {
    let fen = |pocket: &str| format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[{pocket}] w KQkq - 0 1");
    let most = "Q".repeat(super::POCKETS_MAX);
    let setup = parse_setup(fen(&most).as_bytes()).expect("64 pieces in the pockets");
    assert_eq!(setup.pockets.map(|p| p[Color::White].count(Role::Queen)), Some(64));
    for pocket in ["Q".repeat(super::POCKETS_MAX + 1), "Q".repeat(300)] {
        assert_eq!(parse_setup(fen(&pocket).as_bytes()).err(), Some(ParseFenError::PocketSize));
    }
}

/// The Shredder-FEN of every position of the oracle games (`scripts/game_oracle.py`: standard
/// games from positions with castling rights, Chess960 and crazyhouse games) is python-chess's
/// `board.fen(shredder=True)`, from [`write_shredder_fen`] and from a [`FenWriter`] alike, and
/// reads back to the same position. Crazyhouse: the clocks are left out, python-chess keeping the
/// halfmove clock counting over a pawn drop (README).
#[test]
fn shredder_fens_equal_python_chess() {
    use crate::chess::game::tests::oracle_games;
    let mut differ_from_xfen = 0;
    for oracle in oracle_games() {
        let mut game =
            crate::chess::Game::new(parse_fen(&oracle.start, oracle.variant).expect(&oracle.start));
        let mut writer = FenWriter::new().shredder(true);
        for (i, ply) in oracle.plies.iter().enumerate() {
            if i > 0 {
                game.push(crate::notation::parse_uci(game.position(), ply.uci.as_bytes()).expect(&ply.uci))
                    .expect(&ply.uci);
            }
            let pos = game.position();
            let (mut fen, mut cached) = (String::new(), String::new());
            write_shredder_fen(pos, EpMode::Legal, &mut fen);
            writer.write_fen(pos, EpMode::Legal, &mut cached);
            assert_eq!(cached, fen);
            let fields = |f: &str| f.split(' ').take(4).collect::<Vec<_>>().join(" ");
            if oracle.variant == Variant::Crazyhouse {
                assert_eq!(fields(&fen), fields(&ply.shredder_fen));
            } else {
                assert_eq!(fen, ply.shredder_fen);
            }
            assert!(parse_fen(&fen, oracle.variant).expect(&fen).same_position(pos), "{fen}");
            differ_from_xfen += usize::from(fen_text(pos, EpMode::Legal) != fen);
        }
    }
    assert!(differ_from_xfen > 100, "{differ_from_xfen}");
}

/// A writer switched to Shredder-FEN after use writes the castling field again.
#[test]
fn a_fen_writer_switched_to_shredder_writes_the_castling_field_again() {
    let mut writer = FenWriter::new();
    let mut xfen = String::new();
    writer.write_fen(&Position::default(), EpMode::Legal, &mut xfen);
    let mut shredder = String::new();
    writer.shredder(true).write_fen(&Position::default(), EpMode::Legal, &mut shredder);
    assert_eq!(
        (xfen.as_str(), shredder.as_str()),
        (STARTING_FEN, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1")
    );
}
