//! SAN parsing, resolving and writing, each fast path against its reference (the general
//! parser, the move generator), over hand-picked positions and the fixture perft suites.

use super::parse::{Canonical, parse_canonical, parse_canonical_with, parse_general};
use super::resolve::{resolve_common, resolve_written, to_move_flags, to_move_flags_reference};
#[cfg(feature = "variants")]
use super::rules::check_or_mate_after;
use super::*;
use crate::chess::{File, Move, MoveKind, Position, Rank, Role, Square, Variant};
use crate::notation::fen::{EpMode, parse_fen, write_fen};

fn pos(fen: &str) -> Position {
    parse_fen(fen, Variant::Standard).unwrap()
}

fn pos_v(fen: &str, v: Variant) -> Position {
    parse_fen(fen, v).unwrap()
}

fn ok(p: &Position, text: &str) -> (Move, Lenience) {
    parse_san(p, text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The canonical SAN of `m` in `p`, as text.
fn san(p: &Position, m: Move) -> String {
    SanPlus::from_move(p, m).to_string()
}

fn fen(p: &Position) -> String {
    let mut text = String::new();
    write_fen(p, EpMode::Always, &mut text);
    text
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn parsed(text: &str) -> (String, Lenience) {
    let (sp, l) = San::from_ascii(text.as_bytes()).unwrap_or_else(|_| panic!("{text}"));
    (sp.to_string(), l)
}

#[test]
fn parse_canonical_forms() {
    for s in [
        "e4", "exd5", "e8=Q", "exd8=N+", "Nf3", "Nbd2", "R1e2", "Qh4xe1#", "O-O", "O-O-O+", "N@f3", "P@e4",
        "Kxe1",
    ] {
        assert_eq!(parsed(s), (s.to_string(), Lenience::CANONICAL), "{s}");
        assert_eq!(s.parse::<SanPlus>().unwrap().to_string(), s);
    }
    assert_eq!("e4+".parse::<San>().unwrap().to_string(), "e4");
    // Found by the san_roundtrip fuzz target: a rank-only pawn must write back readably.
    // So must a b-pawn that the lower-case rule would read as a bishop.
    assert_eq!(parsed("P2e4"), ("P2e4".to_string(), Lenience::PAWN_PREFIX));
    assert_eq!(parsed("Pbxe5"), ("Pbxe5".to_string(), Lenience::PAWN_PREFIX));
    assert_eq!(parsed("Pbb4"), ("Pbb4".to_string(), Lenience::PAWN_PREFIX));
    assert_eq!(parsed("Pbxc3"), ("bxc3".to_string(), Lenience::PAWN_PREFIX));
    assert_eq!(San::Null.to_string(), "--");
}

#[test]
fn parse_lenient_forms() {
    use Lenience as L;
    let cases: &[(&str, &str, Lenience)] = &[
        ("0-0", "O-O", L::CASTLING_FORM),
        ("0-0-0+", "O-O-O+", L::CASTLING_FORM),
        ("o-o", "O-O", L::CASTLING_FORM),
        ("exd6e.p.", "exd6", L::EN_PASSANT_SUFFIX),
        ("exd6 e.p.+", "exd6+", L::EN_PASSANT_SUFFIX),
        ("exd6e.p.#", "exd6#", L::EN_PASSANT_SUFFIX),
        ("exd6ep", "exd6", L::EN_PASSANT_SUFFIX),
        ("exd6ep+", "exd6+", L::EN_PASSANT_SUFFIX),
        ("e2e4", "e2e4", L::LONG_ALGEBRAIC),
        ("e2-e4", "e2e4", L::LONG_ALGEBRAIC),
        ("e4xd5", "e4xd5", L::LONG_ALGEBRAIC),
        ("Ng1-f3", "Ng1f3", L::LONG_ALGEBRAIC),
        ("e8Q", "e8=Q", L::PROMOTION_FORM),
        ("e8(Q)", "e8=Q", L::PROMOTION_FORM),
        ("e8/Q", "e8=Q", L::PROMOTION_FORM),
        ("e8=q", "e8=Q", L::PROMOTION_FORM),
        ("e7e8q", "e7e8=Q", L(L::PROMOTION_FORM.0 | L::LONG_ALGEBRAIC.0)),
        ("nf3", "Nf3", L::LOWER_CASE_PIECE),
        ("qxe7+", "Qxe7+", L::LOWER_CASE_PIECE),
        ("bxe5", "Bxe5", L::LOWER_CASE_PIECE),
        ("bxc3", "bxc3", L::CANONICAL),
        ("b4", "b4", L::CANONICAL),
        ("Pe4", "e4", L::PAWN_PREFIX),
        ("Pexd5", "exd5", L::PAWN_PREFIX),
        ("e4++", "e4+", L::CHECK_MARK),
        ("@f3", "P@f3", L::PAWN_DROP_LETTER),
        ("n@f3", "N@f3", L::LOWER_CASE_PIECE),
        ("--", "--", L::NULL_MOVE),
        ("Z0", "--", L::NULL_MOVE),
        ("0000", "--", L::NULL_MOVE),
        ("@@@@", "--", L::NULL_MOVE),
        ("Sf3", "Nf3", L::OTHER_PIECE_LETTERS),
        ("Lxb5+", "Bxb5+", L::OTHER_PIECE_LETTERS),
        ("Tfe1", "Rfe1", L::OTHER_PIECE_LETTERS),
        ("Dd1", "Qd1", L::OTHER_PIECE_LETTERS),
        ("Kf1", "Kf1", L::CANONICAL),
        ("e8=D", "e8=Q", L::OTHER_PIECE_LETTERS),
        ("exd8S+", "exd8=N+", L(L::OTHER_PIECE_LETTERS.0 | L::PROMOTION_FORM.0)),
        ("S@f3", "N@f3", L::OTHER_PIECE_LETTERS),
        ("\u{2658}f3", "Nf3", L::OTHER_PIECE_LETTERS),
        ("\u{265e}xe4", "Nxe4", L::OTHER_PIECE_LETTERS),
        ("\u{2654}e2", "Ke2", L::OTHER_PIECE_LETTERS),
        ("\u{265b}h4#", "Qh4#", L::OTHER_PIECE_LETTERS),
        ("e8=\u{2655}", "e8=Q", L::OTHER_PIECE_LETTERS),
        ("\u{2659}e4", "e4", L(L::OTHER_PIECE_LETTERS.0 | L::PAWN_PREFIX.0)),
    ];
    for &(text, canon, flags) in cases {
        assert_eq!(parsed(text), (canon.to_string(), flags), "{text}");
    }
}

/// The fast path reads a text only as the general parser does, with the piece letter read
/// by `match` or by table alike: every string of up to five bytes over the alphabet that
/// matters, and a seeded sample of longer ones.
#[test]
fn canonical_path_agrees_with_general_parser() {
    const ALPHABET: &[u8] = b"NBRQKPabcdeh12781x=+#-Oq";
    let check = |t: &[u8]| {
        let text = String::from_utf8_lossy(t);
        let fast = parse_canonical(t).map(Canonical::parsed);
        assert_eq!(fast, parse_canonical_with::<true>(t).map(Canonical::parsed), "{text:?}");
        if fast.is_some() {
            assert_eq!(fast, parse_general(t), "{text:?}");
        }
    };
    let k = ALPHABET.len();
    let mut t = Vec::new();
    for len in 0..=5u32 {
        for mut i in 0..k.pow(len) {
            t.clear();
            for _ in 0..len {
                t.push(ALPHABET[i % k]);
                i /= k;
            }
            check(&t);
        }
    }
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..300_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = 6 + (state % 3) as usize;
        t.clear();
        t.extend((0..len).map(|j| ALPHABET[(state >> (8 + 5 * j)) as usize % k]));
        check(&t);
    }
}

/// Every canonical SAN of a normal move takes the fast path.
#[test]
fn canonical_path_reads_written_san() {
    let fens = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "4k3/8/8/8/8/8/8/R2QK2R w KQ - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "1k6/8/8/3N1N2/8/3N1N2/8/1K6 w - - 0 1",
    ];
    let mut seen = 0;
    for fen in fens {
        let p = pos(fen);
        for &m in p.legal_moves().iter().filter(|m| !m.is_castle()) {
            let san = san(&p, m);
            let c = parse_canonical(san.as_bytes()).unwrap_or_else(|| panic!("{san} in {fen}"));
            assert_eq!(Some(c.parsed()), parse_general(san.as_bytes()), "{san}");
            seen += 1;
        }
    }
    assert!(seen > 100, "{seen}");
}

/// Where the one-pass resolver answers, the general path gives the same move, role, check
/// mark and flags; and it answers for every normal move whose SAN has no disambiguation.
#[test]
fn one_pass_agrees_with_the_general_path() {
    let mut texts: Vec<String> = Vec::new();
    for sq in Square::ALL {
        let (f, r) = (sq.file() as u8, sq.rank() as u8);
        let name = format!("{}{}", (b'a' + f) as char, (b'1' + r) as char);
        for piece in ["N", "B", "R", "Q", "K"] {
            texts.push(format!("{piece}{name}"));
            texts.push(format!("{piece}x{name}"));
        }
        texts.push(name.clone());
        for from in [f.wrapping_sub(1), f, f + 1].into_iter().filter(|&x| x < 8) {
            texts.push(format!("{}x{name}", (b'a' + from) as char));
        }
    }
    let (mut answered, mut covered) = (0, 0);
    for variant in [Variant::Standard, Variant::Chess960, Variant::Crazyhouse] {
        for seed in 1..=4u64 {
            for p in Position::random_line(variant, seed, 100) {
                let moves = p.legal_moves();
                let mut written: Vec<String> = Vec::new();
                for &m in moves.iter() {
                    let san = san(&p, m);
                    let body = san.trim_end_matches(['+', '#']);
                    written.extend([san.clone(), body.to_string(), format!("{body}+"), format!("{body}#")]);
                    written.push(body.replacen('x', "", 1));
                    // `Nbd7`, `Nbxd7`, `N1d2`, `Qh4e1`: longer than the undisambiguated forms.
                    let capture = body.contains('x');
                    let piece = body.as_bytes()[0].is_ascii_uppercase();
                    let plain_len =
                        if piece { 3 + usize::from(capture) } else { 2 + 2 * usize::from(capture) };
                    let disambiguated = body.len() > plain_len;
                    if m.kind() == MoveKind::Normal && !disambiguated {
                        let r = resolve_common(&p, p.checkers(), san.as_bytes())
                            .unwrap_or_else(|| panic!("{san} in {p:?}"));
                        assert_eq!(r.mv, m, "{san}");
                        covered += 1;
                    }
                }
                for t in texts.iter().chain(&written) {
                    if let Some(r) = resolve_common(&p, p.checkers(), t.as_bytes()) {
                        assert_eq!(Ok(r), resolve_written(&p, p.checkers(), t.as_bytes()), "{t} in {p:?}");
                        answered += 1;
                    }
                }
            }
        }
    }
    assert!(answered > 50_000 && covered > 10_000, "{answered} answered, {covered} covered");
}

#[test]
fn parse_errors() {
    for s in [
        "",
        "e",
        "e9",
        "i4",
        "xd5",
        "Nf3!",
        "e4?",
        "Ke8=Q",
        "Nf3=Q",
        "e8=K",
        "K@e4",
        "O-O-O-O",
        "0-O",
        "N-f3",
        "e2--e4",
        "Nxxf3",
        "Xe4",
        "e4 e5",
        "aaaaaaaaaaaaaaaaaaaaaa",
        "--+-",
        "@e",
        "N@",
        "e8=",
        "e8()",
    ] {
        assert_eq!(San::from_ascii(s.as_bytes()), Err(ParseSanError::Syntax), "{s:?}");
        assert!(s.parse::<San>().is_err());
    }
    assert_eq!(parse_san(&Position::default(), b"Nf3!"), Err(SanError::Syntax));
}

#[test]
fn describe_flags() {
    assert_eq!(Lenience::CANONICAL.describe().count(), 0);
    let l = Lenience::CASTLING_FORM | Lenience::CHECK_MARK;
    assert_eq!(
        l.describe().collect::<Vec<_>>(),
        ["castling written with zeros or lower-case letters", "missing or wrong check mark"]
    );
    assert!(l.contains(Lenience::CHECK_MARK) && !l.is_canonical());
    assert_eq!(Lenience::ALL.iter().fold(0, |a, (f, _)| a | f.0).count_ones(), Lenience::ALL.len() as u32);
}

#[test]
fn resolve_common_moves() {
    let p = Position::default();
    assert_eq!(ok(&p, "e4"), (Move::normal(Square::E2, Square::E4), Lenience::CANONICAL));
    assert_eq!(ok(&p, "Nc3"), (Move::normal(Square::B1, Square::C3), Lenience::CANONICAL));
    assert_eq!(ok(&p, "e2e4").1, Lenience::LONG_ALGEBRAIC);
    assert_eq!(ok(&p, "Pe4").1, Lenience::PAWN_PREFIX);
    assert_eq!(ok(&p, "e4+").1, Lenience::CHECK_MARK);
    assert_eq!(ok(&p, "Ng1f3").1, Lenience::OVER_SPECIFIED);
    assert_eq!(ok(&p, "N1f3").1, Lenience::OVER_SPECIFIED);
    assert_eq!(ok(&p, "Ng1-f3").1, Lenience::LONG_ALGEBRAIC);
    assert_eq!(ok(&p, "Nxf3").1, Lenience::CAPTURE_MARK);
    assert_eq!(parse_san(&p, b"e5"), Err(SanError::Illegal));
    assert_eq!(parse_san(&p, b"Ke2"), Err(SanError::Illegal));
    assert_eq!(parse_san(&p, b"O-O"), Err(SanError::Illegal));
    assert_eq!(parse_san(&p, b"N@f3"), Err(SanError::Illegal));
    assert_eq!(parse_san(&p, b"--"), Err(SanError::Illegal));
    assert_eq!(parse_san(&p, b"e4e5"), Err(SanError::Illegal));

    let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    assert_eq!(ok(&p, "exd5"), (Move::normal(Square::E4, Square::D5), Lenience::CANONICAL));
    assert_eq!(ok(&p, "ed5").1, Lenience::CAPTURE_MARK);
    assert_eq!(ok(&p, "e4d5").1, Lenience::LONG_ALGEBRAIC | Lenience::CAPTURE_MARK);
    assert_eq!(ok(&p, "exe5").1, Lenience::CAPTURE_MARK | Lenience::OVER_SPECIFIED);
    assert_eq!(parse_san(&p, b"dxe5"), Err(SanError::Illegal));
}

#[test]
fn coordinate_notation_moves_pieces_and_castles() {
    let p = Position::default();
    let knight = Move::normal(Square::G1, Square::F3);
    assert_eq!(ok(&p, "g1f3"), (knight, Lenience::LONG_ALGEBRAIC));
    assert_eq!(ok(&p, "g1-f3"), (knight, Lenience::LONG_ALGEBRAIC));
    assert_eq!(ok(&p, "g1xf3"), (knight, Lenience::LONG_ALGEBRAIC | Lenience::CAPTURE_MARK));
    assert_eq!(ok(&p, "g1f3+"), (knight, Lenience::LONG_ALGEBRAIC | Lenience::CHECK_MARK));
    // A lower-case `b` origin square is read as the square, before any bishop reading.
    assert_eq!(ok(&p, "b1c3"), (Move::normal(Square::B1, Square::C3), Lenience::LONG_ALGEBRAIC));
    assert_eq!(parse_san(&p, b"g1e2"), Err(SanError::Illegal), "own pawn on e2");
    assert_eq!(parse_san(&p, b"d1h5"), Err(SanError::Illegal), "blocked");
    assert_eq!(parse_san(&p, b"g8f6"), Err(SanError::Illegal), "their knight");
    assert_eq!(parse_san(&p, b"e3e4"), Err(SanError::Illegal), "nothing there");
    assert_eq!(parse_san(&p, b"Pg1f3"), Err(SanError::Illegal), "a pawn, written so");

    // Captures by a piece, with and without `x`; a check mark verified as for SAN.
    let p = pos("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1");
    let take = Move::normal(Square::D1, Square::D5);
    assert_eq!(ok(&p, "d1xd5"), (take, Lenience::LONG_ALGEBRAIC));
    assert_eq!(ok(&p, "d1d5"), (take, Lenience::LONG_ALGEBRAIC | Lenience::CAPTURE_MARK));
    assert_eq!(ok(&p, "d1-d5"), (take, Lenience::LONG_ALGEBRAIC | Lenience::CAPTURE_MARK));
    let p = pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
    assert_eq!(ok(&p, "d1d8+").1, Lenience::LONG_ALGEBRAIC);
    assert_eq!(ok(&p, "d1d8").1, Lenience::LONG_ALGEBRAIC | Lenience::CHECK_MARK);

    // Castling as the king's move, to its square or onto its rook, as UCI writes it.
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    for (text, rook) in [("e1g1", Square::H1), ("e1h1", Square::H1), ("e1c1", Square::A1)] {
        assert_eq!(ok(&p, text), (Move::castle(Square::E1, rook), Lenience::LONG_ALGEBRAIC), "{text}");
    }
    assert_eq!(ok(&p, "e1f1"), (Move::normal(Square::E1, Square::F1), Lenience::LONG_ALGEBRAIC));
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1");
    assert_eq!(parse_san(&p, b"e1g1"), Err(SanError::Illegal), "no right to castle");
    // Chess960: the king onto its own rook.
    let p = pos_v("r5kr/8/8/8/8/8/8/RK5R w KQk - 0 1", Variant::Chess960);
    assert_eq!(ok(&p, "b1h1"), (Move::castle(Square::B1, Square::H1), Lenience::LONG_ALGEBRAIC));
}

#[test]
fn ambiguity_and_disambiguation() {
    // Knights on b1 and f3 both reach d2.
    let p = pos("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    assert_eq!(parse_san(&p, b"Nd2"), Err(SanError::Ambiguous));
    assert_eq!(ok(&p, "Nbd2"), (Move::normal(Square::B1, Square::D2), Lenience::CANONICAL));
    assert_eq!(ok(&p, "Nfd2"), (Move::normal(Square::F3, Square::D2), Lenience::CANONICAL));
    assert_eq!(ok(&p, "N1d2").1, Lenience::OVER_SPECIFIED);
    assert_eq!(ok(&p, "Nb1d2").1, Lenience::OVER_SPECIFIED);
    assert_eq!(parse_san(&p, b"Ncd2"), Err(SanError::Illegal));
    assert_eq!(san(&p, Move::normal(Square::B1, Square::D2)), "Nbd2");
    // Rooks on one file: the rank disambiguates.
    let p = pos("4k3/8/8/8/R7/8/8/R3K3 w - - 0 1");
    assert_eq!(san(&p, Move::normal(Square::A1, Square::A2)), "R1a2");
    assert_eq!(ok(&p, "R1a2").1, Lenience::CANONICAL);
    assert_eq!(ok(&p, "Ra1a2").1, Lenience::OVER_SPECIFIED);
    assert_eq!(parse_san(&p, b"Ra2"), Err(SanError::Ambiguous));
    // Three queens: file and rank.
    let p = pos("6k1/8/8/8/Q2Q4/8/8/Q3K3 w - - 0 1");
    assert_eq!(san(&p, Move::normal(Square::A4, Square::D1)), "Qa4d1");
    assert_eq!(san(&p, Move::normal(Square::A1, Square::D1)), "Q1d1");
    assert_eq!(san(&p, Move::normal(Square::D4, Square::D1)), "Qdd1");
    assert_eq!(parse_san(&p, b"Qad1"), Err(SanError::Ambiguous));
    assert_eq!(parse_san(&p, b"Q4d1"), Err(SanError::Ambiguous));
    assert_eq!(ok(&p, "Qa4d1").1, Lenience::CANONICAL);
    // A pinned knight does not count for disambiguation.
    let p = pos("4k3/4r3/8/8/8/2N5/4N3/4K3 w - - 0 1");
    assert_eq!(san(&p, Move::normal(Square::C3, Square::D5)), "Nd5");
    assert_eq!(ok(&p, "Ncd5").1, Lenience::OVER_SPECIFIED);
}

/// German letters and figurines resolve where they stand as the English letters do; a word
/// made of them is still no move.
#[test]
fn other_piece_letters_resolve_as_english_ones() {
    let p = pos("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    let bb5 = ok(&p, "Bb5").0;
    assert_eq!(ok(&p, "Lb5"), (bb5, Lenience::OTHER_PIECE_LETTERS));
    assert_eq!(ok(&p, "\u{2657}b5"), (bb5, Lenience::OTHER_PIECE_LETTERS));
    let nc3 = ok(&p, "Nc3").0;
    assert_eq!(ok(&p, "Sc3"), (nc3, Lenience::OTHER_PIECE_LETTERS));
    assert_eq!(ok(&p, "Sbc3").1, Lenience(Lenience::OTHER_PIECE_LETTERS.0 | Lenience::OVER_SPECIFIED.0));
    assert_eq!(parse_san(&p, b"Sd3"), Err(SanError::Illegal));
    for word in ["Sehr", "Dame", "TN", "S", "\u{2658}"] {
        assert_eq!(parse_san(&p, word.as_bytes()), Err(SanError::Syntax), "{word}");
    }
}

#[test]
fn pawns_en_passant_promotions() {
    let p = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
    let ep = Move::en_passant(Square::E5, Square::F6);
    assert_eq!(ok(&p, "exf6"), (ep, Lenience::CANONICAL));
    assert_eq!(ok(&p, "exf6e.p."), (ep, Lenience::EN_PASSANT_SUFFIX));
    assert_eq!(ok(&p, "ef6").1, Lenience::CAPTURE_MARK);
    assert_eq!(san(&p, ep), "exf6");
    assert_eq!(parse_san(&p, b"exd6"), Err(SanError::Illegal));

    let p = pos("3qk3/4P3/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(ok(&p, "exd8=N").0, Move::promotion(Square::E7, Square::D8, Role::Knight));
    assert_eq!(ok(&p, "exd8=Q+").0, Move::promotion(Square::E7, Square::D8, Role::Queen));
    assert_eq!(ok(&p, "exd8=Q").1, Lenience::CHECK_MARK);
    assert_eq!(ok(&p, "exd8Q+").1, Lenience::PROMOTION_FORM);
    assert_eq!(ok(&p, "exd8(R)+").1, Lenience::PROMOTION_FORM);
    assert_eq!(san(&p, Move::promotion(Square::E7, Square::D8, Role::Knight)), "exd8=N");
    assert_eq!(san(&p, Move::promotion(Square::E7, Square::D8, Role::Rook)), "exd8=R+");
    assert_eq!(parse_san(&p, b"exd8"), Err(SanError::Illegal));
    assert_eq!(parse_san(&p, b"e8=Q"), Err(SanError::Illegal));
    let p = pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(parse_san(&p, b"e4=Q"), Err(SanError::Illegal));
}

#[test]
fn lower_case_b() {
    // A b-pawn can take on c3: `bxc3` is the pawn, with no flag.
    let p = pos("4k3/8/8/8/8/2n5/1P1B4/4K3 w - - 0 1");
    assert_eq!(ok(&p, "bxc3"), (Move::normal(Square::B2, Square::C3), Lenience::CANONICAL));
    assert_eq!(ok(&p, "Bxc3"), (Move::normal(Square::D2, Square::C3), Lenience::CANONICAL));
    // No b-pawn: the bishop, flagged.
    let p = pos("4k3/8/8/8/8/2n5/3B4/4K3 w - - 0 1");
    assert_eq!(ok(&p, "bxc3"), (Move::normal(Square::D2, Square::C3), Lenience::LOWER_CASE_PIECE));
    assert_eq!(
        ok(&p, "bc3"),
        (Move::normal(Square::D2, Square::C3), Lenience::LOWER_CASE_PIECE | Lenience::CAPTURE_MARK)
    );
    assert_eq!(ok(&p, "be3").1, Lenience::LOWER_CASE_PIECE);
    assert_eq!(parse_san(&p, b"bxa3"), Err(SanError::Illegal));
}

#[test]
fn castling_standard_and_960() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(ok(&p, "O-O"), (Move::castle(Square::E1, Square::H1), Lenience::CANONICAL));
    assert_eq!(ok(&p, "O-O-O"), (Move::castle(Square::E1, Square::A1), Lenience::CANONICAL));
    assert_eq!(ok(&p, "0-0-0").1, Lenience::CASTLING_FORM);
    assert_eq!(san(&p, Move::castle(Square::E1, Square::H1)), "O-O");
    assert_eq!(san(&p, Move::castle(Square::E1, Square::A1)), "O-O-O");
    // A king move is never castling.
    assert_eq!(parse_san(&p, b"Kg1"), Err(SanError::Illegal));
    assert_eq!(parse_san(&p, b"Kxh1"), Err(SanError::Illegal));
    assert_eq!(ok(&p, "Kf1").0, Move::normal(Square::E1, Square::F1));
    // Castling giving check and mate.
    let p = pos("5k2/8/8/8/8/8/8/4K2R w K - 0 1");
    assert_eq!(san(&p, Move::castle(Square::E1, Square::H1)), "O-O+");
    // Chess960: king b1, rook a1 and h1; `Kxe1`-style text never castles.
    let p = pos_v("r5kr/8/8/8/8/8/8/RK5R w KQk - 0 1", Variant::Chess960);
    assert_eq!(ok(&p, "O-O-O").0, Move::castle(Square::B1, Square::A1));
    assert_eq!(ok(&p, "O-O").0, Move::castle(Square::B1, Square::H1));
    assert_eq!(parse_san(&p, b"Kxa1"), Err(SanError::Illegal));
    assert_eq!(ok(&p, "Kc1").0, Move::normal(Square::B1, Square::C1));
    assert_eq!(san(&p, Move::castle(Square::B1, Square::A1)), "O-O-O");
    // King already on its destination (g1), rook h1: O-O only moves the rook.
    let p = pos_v("6k1/8/8/8/8/8/8/6KR w K - 0 1", Variant::Chess960);
    assert_eq!(ok(&p, "O-O"), (Move::castle(Square::G1, Square::H1), Lenience::CANONICAL));
    assert_eq!(san(&p, Move::castle(Square::G1, Square::H1)), "O-O");
    // Kxe1 a real capture next to an unrelated castling right.
    let p = pos("4k3/8/8/8/8/8/8/3rK2R w K - 0 1");
    assert_eq!(ok(&p, "Kxd1").0, Move::normal(Square::E1, Square::D1));
    assert_eq!(parse_san(&p, b"O-O"), Err(SanError::Illegal));
    // Castling through check is illegal.
    let p = pos("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1");
    assert_eq!(parse_san(&p, b"O-O"), Err(SanError::Illegal));
}

#[test]
fn check_and_mate_suffixes() {
    // Scholar's mate.
    let p = pos("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4");
    let m = Move::normal(Square::F3, Square::F7);
    assert_eq!(san(&p, m), "Qxf7#");
    assert_eq!(ok(&p, "Qxf7#"), (m, Lenience::CANONICAL));
    assert_eq!(ok(&p, "Qxf7+").1, Lenience::CHECK_MARK);
    assert_eq!(ok(&p, "Qxf7").1, Lenience::CHECK_MARK);
    assert_eq!(ok(&p, "Qxf7++").1, Lenience::CHECK_MARK);
    // A check that is not mate.
    let p = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    assert_eq!(san(&p, Move::normal(Square::A1, Square::A8)), "Ra8+");
    assert_eq!(ok(&p, "Ra8#").1, Lenience::CHECK_MARK);
    assert_eq!(ok(&p, "Ra8+").1, Lenience::CANONICAL);
}

#[test]
fn discovered_and_special_checks() {
    // Discovered check by a bishop when the knight moves.
    let p = pos("7k/8/8/8/8/2N5/1B6/4K3 w - - 0 1");
    assert_eq!(san(&p, Move::normal(Square::C3, Square::E4)), "Ne4+");
    // En passant uncovering a rook check along the rank.
    let p = pos("8/8/8/K2pP2k/8/8/8/8 w - d6 0 1");
    assert_eq!(san(&p, Move::en_passant(Square::E5, Square::D6)), "exd6");
    let p = pos("8/8/8/R2pP2k/8/8/8/K7 w - d6 0 1");
    assert_eq!(san(&p, Move::en_passant(Square::E5, Square::D6)), "exd6+");
    // Promotion to a knight giving check.
    let p = pos("8/4P1k1/8/8/8/8/8/K7 w - - 0 1");
    assert_eq!(san(&p, Move::promotion(Square::E7, Square::E8, Role::Knight)), "e8=N+");
    assert_eq!(san(&p, Move::promotion(Square::E7, Square::E8, Role::Queen)), "e8=Q");
}

#[test]
#[cfg(feature = "variants")]
fn drops() {
    let p = pos_v("2k5/8/8/8/8/8/8/4K3[QNPqn] w - - 0 1", Variant::Crazyhouse);
    assert_eq!(ok(&p, "N@f3"), (Move::drop(Role::Knight, Square::F3), Lenience::CANONICAL));
    assert_eq!(ok(&p, "P@e4"), (Move::drop(Role::Pawn, Square::E4), Lenience::CANONICAL));
    assert_eq!(ok(&p, "@e4"), (Move::drop(Role::Pawn, Square::E4), Lenience::PAWN_DROP_LETTER));
    assert_eq!(ok(&p, "Q@c6+").0, Move::drop(Role::Queen, Square::C6));
    assert_eq!(ok(&p, "Q@c6").1, Lenience::CHECK_MARK);
    assert_eq!(san(&p, Move::drop(Role::Queen, Square::C6)), "Q@c6+");
    assert_eq!(san(&p, Move::drop(Role::Pawn, Square::E4)), "P@e4");
    assert_eq!(parse_san(&p, b"R@e4"), Err(SanError::Illegal));
    assert_eq!(parse_san(&p, b"P@e8"), Err(SanError::Illegal));
    assert_eq!(parse_san(&p, b"N@e1"), Err(SanError::Illegal));
    // The knight in hand is not a knight on the board.
    assert_eq!(parse_san(&p, b"Nf3"), Err(SanError::Illegal));
}

/// Positions from the fixture perft suites (standard, crazyhouse, Chess960, odd checks), each
/// with every position one legal move away.
fn suite_positions() -> Vec<Position> {
    let suites = [
        (include_str!("../../../fixtures/perft/tricky.perft"), Variant::Standard),
        (include_str!("../../../fixtures/perft/crazyhouse.perft"), Variant::Crazyhouse),
        (include_str!("../../../fixtures/perft/chess960-first100.perft"), Variant::Chess960),
        (include_str!("../../../fixtures/perft/impossible-checker.perft"), Variant::Standard),
    ];
    let mut positions = Vec::new();
    for (text, variant) in suites {
        for epd in text.lines().filter_map(|l| l.strip_prefix("epd ")).take(30) {
            let p = match parse_fen(epd, variant) {
                Ok(p) => p,
                Err(crate::notation::FenError::Position(e)) => {
                    match e.ignore_impossible_check().or_else(|e| e.ignore_too_much_material()) {
                        Ok(p) => p,
                        Err(_) => continue,
                    }
                }
                Err(e) => panic!("{epd}: {e}"),
            };
            for &m in p.legal_moves().iter() {
                let mut c = p;
                c.play_unchecked(m);
                positions.push(c);
            }
            positions.push(p);
        }
    }
    assert!(positions.len() > 1000);
    positions
}

/// The mate test (with its shortcut: a safe king step means check) agrees with the full
/// generator in every position in check among the suite positions and the positions one move
/// on.
#[test]
#[cfg(feature = "variants")]
fn check_or_mate_agrees_with_the_generator() {
    let mut seen = [0; 2];
    for p in suite_positions() {
        let mut in_check = vec![p];
        in_check.extend(p.legal_moves().iter().map(|&m| {
            let mut c = p;
            c.play_unchecked(m);
            c
        }));
        for q in in_check.into_iter().filter(Position::is_check) {
            let want = if q.count_legal() > 0 { Suffix::Check } else { Suffix::Checkmate };
            assert_eq!(check_or_mate_after(&q), want, "{q:?}");
            seen[usize::from(want == Suffix::Checkmate)] += 1;
        }
    }
    assert!(seen[0] > 1000 && seen[1] > 20, "checks {} mates {}", seen[0], seen[1]);
}

#[test]
fn play_is_to_move_then_play_unchecked() {
    let positions = suite_positions();
    let step = if cfg!(debug_assertions) { 20 } else { 2 };
    let mut played = 0;
    for p in positions.iter().step_by(step) {
        for &m in p.legal_moves().iter() {
            let san = SanPlus::from_move(p, m).san;
            let (mut by_san, mut by_move) = (*p, *p);
            assert_eq!(san.play(&mut by_san), Ok(m), "{san}");
            by_move.play_unchecked(m);
            assert_eq!(by_san, by_move, "{san}");
            played += 1;
        }
    }
    // The release build's bound, in proportion to the positions a debug build samples.
    assert!(played > 20_000 / step, "{played}");
    let mut p = Position::default();
    let before = format!("{p:?}");
    assert_eq!("Nf6".parse::<San>().unwrap().play(&mut p), Err(SanError::Illegal));
    assert_eq!(format!("{p:?}"), before, "an error leaves the position as it was");
}

/// The fast `to_move_flags` answers exactly as the generator-based reference, for every role,
/// destination, disambiguation, capture mark and promotion, in the perft suite positions and
/// their children.
#[test]
fn fast_resolution_matches_generator() {
    let positions = suite_positions();
    // About 400 positions (50 in debug builds), spread over the suites.
    let step = positions.len() / if cfg!(debug_assertions) { 50 } else { 400 };
    let mut checked = 0u64;
    for p in positions.iter().step_by(step.max(1)) {
        for role in [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King] {
            let ours = p.board().by_piece(role.of(p.turn()));
            let files: Vec<Option<File>> =
                std::iter::once(None).chain(ours.into_iter().map(|s| Some(s.file()))).collect();
            let ranks: Vec<Option<Rank>> =
                std::iter::once(None).chain(ours.into_iter().map(|s| Some(s.rank()))).collect();
            for to in (0..64).map(Square::new) {
                for &file in &files {
                    for &rank in &ranks {
                        for promotion in [None, Some(Role::Queen), Some(Role::Knight), Some(Role::King)] {
                            for capture in [false, true] {
                                let san = San::Normal { role, file, rank, capture, to, promotion };
                                assert_eq!(
                                    to_move_flags(p, p.checkers(), &san),
                                    to_move_flags_reference(p, &san),
                                    "{san} in {}",
                                    fen(p)
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 1_000_000, "{checked}");
}

/// A token that resolves with nothing non-canonical, its check mark verified as the replayer
/// verifies it, is the canonical SAN byte for byte (jobs copy such tokens instead of writing
/// the SAN): checked over lenient rewritings of every legal move's SAN in suite positions.
#[test]
fn a_token_resolved_as_canonical_is_the_canonical_san() {
    let positions = suite_positions();
    let step = if cfg!(debug_assertions) { 40 } else { 4 };
    let (mut canonical_seen, mut lenient_seen) = (0, 0);
    for p in positions.iter().step_by(step) {
        for &m in p.legal_moves().iter() {
            let canonical = SanPlus::from_move(p, m).to_string();
            let bare = canonical.trim_end_matches(['+', '#']);
            let mut texts = vec![canonical.clone(), bare.to_string(), format!("{bare}+"), format!("{bare}#")];
            texts.push(format!("{canonical}+"));
            texts.push(bare.replace('x', ""));
            texts.push(bare.replace('=', ""));
            texts.push(bare.replace('O', "0"));
            texts.push(format!("P{bare}"));
            texts.push(format!("{bare} e.p."));
            texts.push(format!("{bare}e.p."));
            texts.push(format!("{bare}ep"));
            if let Some(from) = m.from() {
                let (f, r) = (from.file().char(), from.rank().char());
                let (head, tail) = bare.split_at(usize::from(bare.starts_with(char::is_uppercase)));
                let tail = tail.trim_start_matches(|c: char| c.is_ascii_lowercase() && tail.len() > 2);
                for extra in [format!("{f}"), format!("{r}"), format!("{f}{r}")] {
                    texts.push(format!("{head}{extra}{tail}"));
                    texts.push(format!("{head}{extra}x{}", tail.trim_start_matches('x')));
                }
                texts.push(bare.to_ascii_lowercase());
            }
            for text in texts {
                let Ok(r) = parse_san_with(p, p.checkers(), text.as_bytes()) else { continue };
                let mut after = *p;
                after.play_unchecked(r.mv);
                let verified = suffix_after(&after, after.checkers()) == r.suffix;
                if r.mv == m && r.lenience.is_canonical() && verified {
                    assert_eq!(text, canonical, "in {}", fen(p));
                    canonical_seen += 1;
                } else {
                    lenient_seen += 1;
                }
            }
        }
    }
    assert!(
        canonical_seen > 40_000 / step && lenient_seen > 200_000 / step,
        "{canonical_seen} {lenient_seen}"
    );
}

#[test]
fn to_move_and_write() {
    let p = Position::default();
    let san: San = "Nf3".parse().unwrap();
    assert_eq!(san.to_move(&p), Ok(Move::normal(Square::G1, Square::F3)));
    assert_eq!(San::Null.to_move(&p), Err(SanError::Illegal));
    let mut out = b"1. ".to_vec();
    write_san(&p, Move::normal(Square::G1, Square::F3), &mut out);
    assert_eq!(out, b"1. Nf3");
    assert_eq!(sq("e4"), Square::E4);
    assert_eq!(SanError::from(ParseSanError::Syntax), SanError::Syntax);
}
