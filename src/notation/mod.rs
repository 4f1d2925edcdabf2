//! Text formats for positions and moves: FEN/EPD ([`fen`]), SAN ([`san`]) and UCI ([`uci`]).
//! Bytes in, bytes out; lenient when reading (each module lists what it accepts), canonical when
//! writing. Errors are small enums naming the part that failed.
//!
//! One verb per direction: `parse_*` reads text (`parse_fen`, `parse_setup`, `parse_epd`,
//! `parse_san`, `parse_uci`); `write_*` appends text to a caller's [`TextBuf`], a reused
//! `Vec<u8>` on the hot paths or a `String` (`write_fen`, `write_epd`, `write_setup`,
//! `write_san`, `write_uci`).

pub mod diagram;
pub mod fen;
pub mod perft_suite;
pub mod san;
pub mod uci;

pub use fen::{
    EpMode, Epd, FenError, FenWriter, ParseFenError, STARTING_FEN, parse_epd, parse_fen, parse_setup,
    write_epd, write_fen, write_setup, write_shredder_fen,
};
pub use san::{
    Lenience, ParseSanError, Resolved, San, SanError, SanPlus, Suffix, parse_san, parse_san_with,
    suffix_after, write_san,
};
pub use uci::{UciError, parse_uci, write_uci};

/// A buffer the `write_*` functions append text to: a `Vec<u8>`, which the hot paths reuse so
/// that writing allocates nothing once it has grown, or a `String`.
///
/// ```
/// use pgnkit::chess::{Move, Position, Square};
/// use pgnkit::notation::write_san;
/// let (mut text, mut bytes) = (String::new(), Vec::new());
/// write_san(&Position::default(), Move::normal(Square::G1, Square::F3), &mut text);
/// write_san(&Position::default(), Move::normal(Square::G1, Square::F3), &mut bytes);
/// assert_eq!((text.as_str(), bytes.as_slice()), ("Nf3", &b"Nf3"[..]));
/// ```
pub trait TextBuf {
    /// Runs `write` on a byte vector holding this buffer's text, to which `write` only appends;
    /// returns what `write` returns.
    fn append_with<R>(&mut self, write: impl FnOnce(&mut Vec<u8>) -> R) -> R;

    /// Appends `bytes`.
    fn append_bytes(&mut self, bytes: &[u8]) {
        self.append_with(|v| v.extend_from_slice(bytes));
    }
}

impl TextBuf for Vec<u8> {
    #[inline(always)]
    fn append_with<R>(&mut self, write: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        write(self)
    }

    #[inline(always)]
    fn append_bytes(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Every writer here emits ASCII, so the appended bytes are UTF-8 and kept as they are; bytes
/// that are not would be replaced by U+FFFD, never a panic.
impl TextBuf for String {
    /// Hands the string's own bytes to `write` (no copy) and takes them back, checking the whole
    /// string again: for many appends to one long text, write into a `Vec<u8>`.
    fn append_with<R>(&mut self, write: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        let mut bytes = std::mem::take(self).into_bytes();
        let r = write(&mut bytes);
        *self =
            String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        r
    }

    fn append_bytes(&mut self, bytes: &[u8]) {
        self.push_str(&String::from_utf8_lossy(bytes));
    }
}

/// Round trips and perft over every position reached from the perft suites: FEN write -> read
/// gives the same position, `SanPlus::from_move` -> `parse_san` and `write_uci` -> `parse_uci`
/// give the same move.
#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::perft_suite::{PerftCase, parse_suite};
    use super::*;
    use crate::chess::perft::perft;
    use crate::chess::{CastlingMode, Move, Position, PositionErrorKind, Variant};

    fn fixture(name: &str) -> Vec<PerftCase> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/perft").join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        parse_suite(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// A suite from the shared data set ([`crate::read_shared_data`]), if present.
    fn shared(rel: &str) -> Option<Vec<PerftCase>> {
        crate::read_shared_data(&format!("perft/{rel}")).map(|text| parse_suite(&text).expect(rel))
    }

    /// Loads a suite position; suites contain impossible checkers on purpose.
    fn load(epd: &str, variant: Variant) -> Position {
        match parse_fen(epd, variant) {
            Ok(pos) => pos,
            Err(FenError::Position(e)) => {
                e.ignore_impossible_check().unwrap_or_else(|e| panic!("{epd}: {e}"))
            }
            Err(e) => panic!("{epd}: {e}"),
        }
    }

    fn other_mode(mode: CastlingMode) -> CastlingMode {
        CastlingMode::from_chess960(!mode.is_chess960())
    }

    /// The FEN of `pos` as a `String`.
    fn fen_text(pos: &Position, ep: EpMode) -> String {
        let mut text = String::new();
        write_fen(pos, ep, &mut text);
        text
    }

    /// The UCI text of `m` as a `String`.
    fn uci_text(m: Move, mode: CastlingMode) -> String {
        let mut text = String::new();
        write_uci(m, mode, &mut text);
        text
    }

    fn check_fen(pos: &Position) {
        let mut first = Vec::new();
        for ep in [EpMode::Legal, EpMode::Always] {
            let fen = fen_text(pos, ep);
            let mut bytes = b"kept ".to_vec();
            write_fen(pos, ep, &mut bytes);
            assert_eq!(bytes, [&b"kept "[..], fen.as_bytes()].concat());
            let back = load(&fen, pos.variant());
            // The key hashes the en passant file only when the capture is legal, so writing the
            // square in either mode reads back to the same key.
            assert_eq!(back.zobrist(), pos.zobrist(), "{fen}");
            assert!(back.same_position(pos), "{fen}");
            assert_eq!(back.castling_rights(), pos.castling_rights(), "{fen}");
            assert_eq!((back.halfmoves(), back.fullmoves()), (pos.halfmoves(), pos.fullmoves()), "{fen}");
            assert_eq!(fen_text(&back, ep), fen);
            if ep == EpMode::Always {
                assert_eq!(back.ep_square_always(), pos.ep_square_always(), "{fen}");
            }
            first.push(fen);
        }
        assert_eq!(fen::ep_square(pos, EpMode::Legal), pos.ep_square_legal());
        let mut setup_text = Vec::new();
        write_setup(&pos.to_setup(), pos.castling_mode(), &mut setup_text);
        assert_eq!(setup_text, first[1].as_bytes());
    }

    fn check_move(pos: &Position, m: Move) -> Position {
        let mut after = *pos;
        after.play_unchecked(m);
        // SAN.
        let san = SanPlus::from_move(pos, m);
        let text = san.to_string();
        assert_eq!(
            parse_san(pos, text.as_bytes()),
            Ok((m, Lenience::CANONICAL)),
            "{text} in {}",
            fen_text(pos, EpMode::Always)
        );
        assert_eq!(San::from_ascii(text.as_bytes()), Ok((san, Lenience::CANONICAL)));
        assert_eq!(san.san.to_move(pos), Ok(m));
        let (mut bytes, mut string) = (Vec::new(), String::from("1. "));
        write_san(pos, m, &mut bytes);
        write_san(pos, m, &mut string);
        assert_eq!((bytes.as_slice(), string.as_str()), (text.as_bytes(), format!("1. {text}").as_str()));
        let expected = if after.is_checkmate() {
            Some(Suffix::Checkmate)
        } else if after.is_check() {
            Some(Suffix::Check)
        } else {
            None
        };
        assert_eq!(san.suffix, expected, "{text} in {}", fen_text(pos, EpMode::Always));
        // UCI, in the position's mode and in the other one.
        let mode = pos.castling_mode();
        let uci = uci_text(m, mode);
        assert_eq!(parse_uci(pos, uci.as_bytes()), Ok(m), "{uci}");
        let other = uci_text(m, other_mode(mode));
        match parse_uci(pos, other.as_bytes()) {
            Ok(x) if x == m => {}
            // A Chess960 king step onto the castling destination is an ordinary king move.
            Ok(x) => {
                assert!(m.is_castle() && x.from() == m.from() && !x.is_castle(), "{other}: {x:?} for {m:?}")
            }
            Err(e) => panic!("{other}: {e} for {m:?} in {}", fen_text(pos, EpMode::Always)),
        }
        after
    }

    /// Checks every position and move of the tree below `pos`, `depth` plies deep; returns the
    /// number of moves checked.
    fn walk(pos: &Position, depth: u32) -> u64 {
        check_fen(pos);
        if depth == 0 {
            return 0;
        }
        let mut n = 0;
        for &m in pos.legal_moves().iter() {
            let child = check_move(pos, m);
            n += 1 + walk(&child, depth - 1);
        }
        n
    }

    /// The deepest depth up to `max` whose perft count is known and at most `budget`.
    fn depth_within(case: &PerftCase, max: u32, budget: u64) -> u32 {
        case.expected.iter().filter(|&&(d, n)| d <= max && n <= budget).map(|&(d, _)| d).max().unwrap_or(1)
    }

    fn walk_suite(cases: &[PerftCase], variant: Variant, max_depth: u32, budget: u64) -> u64 {
        let mut total = 0;
        for case in cases {
            let pos = load(&case.fen, variant);
            total += walk(&pos, depth_within(case, max_depth, budget));
        }
        total
    }

    const BUDGET: u64 = if cfg!(debug_assertions) { 4_000 } else { 200_000 };

    #[test]
    fn round_trip_tricky() {
        let cases: Vec<PerftCase> =
            fixture("tricky.perft").into_iter().filter(|c| c.id != "max-legals-too-much-material").collect();
        assert!(walk_suite(&cases, Variant::Standard, 3, BUDGET) > 10_000);
    }

    #[test]
    #[cfg(feature = "variants")]
    fn round_trip_crazyhouse() {
        assert!(walk_suite(&fixture("crazyhouse.perft"), Variant::Crazyhouse, 3, BUDGET) > 1_000);
    }

    #[test]
    fn round_trip_chess960() {
        assert!(walk_suite(&fixture("chess960-first100.perft"), Variant::Chess960, 3, BUDGET) > 10_000);
    }

    #[test]
    fn round_trip_impossible_checkers() {
        assert!(walk_suite(&fixture("impossible-checker.perft"), Variant::Standard, 3, BUDGET) > 100);
    }

    const PERFT_LIMIT: u64 = if cfg!(debug_assertions) { 1_000_000 } else { 20_000_000 };

    fn check_perft(cases: &[PerftCase], variant: Variant) -> usize {
        let mut checked = 0;
        for case in cases {
            let pos = load(&case.fen, variant);
            for &(depth, nodes) in case.expected.iter().filter(|&&(_, n)| n <= PERFT_LIMIT) {
                assert_eq!(perft(&pos, depth), nodes, "{} depth {depth}", case.id);
                checked += 1;
            }
        }
        checked
    }

    #[test]
    fn perft_through_fen_tricky() {
        let mut cases = fixture("tricky.perft");
        // More than 16 pieces a side: `Position::from_setup` refuses it, as it should.
        let too_much =
            cases.iter().position(|c| c.id == "max-legals-too-much-material").expect("in the suite");
        let e = parse_fen(&cases.remove(too_much).fen, Variant::Standard).unwrap_err();
        assert!(matches!(e, FenError::Position(ref p) if p.has(PositionErrorKind::TooManyPieces)));
        assert!(check_perft(&cases, Variant::Standard) > 50);
    }

    #[test]
    fn perft_through_fen_impossible_checkers() {
        for case in fixture("impossible-checker.perft") {
            let Err(FenError::Position(e)) = parse_fen(&case.fen, Variant::Standard) else {
                panic!("{} should have an impossible check", case.id)
            };
            assert!(e.has(PositionErrorKind::ImpossibleCheck), "{}", case.id);
        }
        assert_eq!(check_perft(&fixture("impossible-checker.perft"), Variant::Standard), 9);
    }

    #[test]
    #[cfg(feature = "variants")]
    fn perft_through_fen_crazyhouse_and_960() {
        assert!(check_perft(&fixture("crazyhouse.perft"), Variant::Crazyhouse) >= 8);
        assert!(check_perft(&fixture("chess960-first100.perft"), Variant::Chess960) >= 300);
    }

    /// Regression: the key once hashed a pseudo-legal en passant file, so positions that differ
    /// only by an illegal en passant square compared (and hashed) unequal.
    #[test]
    fn same_position_ignores_illegal_en_passant() {
        // After e2e4 Black's f4 pawn attacks e3, but fxe3 would expose the king to the b4 rook.
        let with = parse_fen("8/2p5/3p4/1P5r/KR2Ppk1/8/6P1/8 b - e3 0 2", Variant::Standard).unwrap();
        let without = parse_fen("8/2p5/3p4/1P5r/KR2Ppk1/8/6P1/8 b - - 0 2", Variant::Standard).unwrap();
        assert_eq!(with.ep_square_legal(), None);
        assert!(with.same_position(&without) && without.same_position(&with));
        assert_eq!(with.zobrist(), without.zobrist(), "an illegal ep square is not hashed");
    }

    /// The whole shared Chess960 suite (all 960 positions) and the X-FEN suite, when present.
    #[test]
    fn shared_suites() {
        if let Some(cases) = shared("shakmaty/chess960.perft") {
            assert_eq!(cases.len(), 960);
            assert!(walk_suite(&cases, Variant::Chess960, 1, u64::MAX) > 10_000);
            let shallow: Vec<PerftCase> = cases
                .into_iter()
                .map(|c| PerftCase {
                    expected: c.expected.into_iter().filter(|&(d, _)| d <= 2).collect(),
                    ..c
                })
                .collect();
            assert_eq!(check_perft(&shallow, Variant::Chess960), 1920);
        }
        if let Some(cases) = shared("scalachess_x-fen.perft") {
            // X-FEN read as standard chess: the mode is detected from the rights.
            let shallow: Vec<PerftCase> = cases
                .into_iter()
                .map(|c| PerftCase {
                    expected: c.expected.into_iter().filter(|&(_, n)| n <= 100_000).collect(),
                    ..c
                })
                .collect();
            assert!(check_perft(&shallow, Variant::Standard) > 0);
            walk_suite(&shallow, Variant::Standard, 1, u64::MAX);
        }
    }

    /// A `String` buffer keeps what is UTF-8 as it is and replaces the rest, without a panic.
    #[test]
    fn a_string_buffer_keeps_utf8_and_replaces_the_rest() {
        let mut s = String::from("é ");
        s.append_bytes(b"ok ");
        s.append_with(|v| v.extend_from_slice(b"\xff!"));
        assert_eq!(s, "é ok \u{fffd}!");
        s.append_bytes(b"\xfe");
        assert_eq!(s, "é ok \u{fffd}!\u{fffd}");
        let mut v = b"x".to_vec();
        v.append_bytes(b"\xff");
        assert_eq!(v, b"x\xff");
    }
}
