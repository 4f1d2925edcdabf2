//! [`PackedKey`]: a position packed for exact comparison, what deduplication compares once a hash
//! says two positions may be the same (`positions --unique`, and games' start positions).

use super::{Bitboard, Color, Position, Role, Variant};

/// A position packed for exact comparison: everything [`Position::same_position`] compares
/// (placement, side to move, castling rights, legal en passant square, pockets, promoted marks).
///
/// Usually 32 bytes: the occupancy, then one 4-bit code per occupied square in square order
/// (as four 32-bit planes), then castling rights, turn and en passant square. Crazyhouse
/// positions and boards of more than 32 pieces take a boxed wide form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PackedKey {
    /// Up to 32 pieces, no pockets, castling rights on the back ranks.
    Compact([u64; 4]),
    /// Anything else: the bitboards by color and role, promoted marks, rights, turn and ep
    /// square, pockets.
    Wide(Box<[u64; 12]>),
}

impl PackedKey {
    /// The key's words: 4 in the compact form, 12 in the wide one.
    pub fn words(&self) -> &[u64] {
        match self {
            PackedKey::Compact(k) => k,
            PackedKey::Wide(k) => &k[..],
        }
    }

    /// Packs `pos`.
    pub fn of(pos: &Position) -> PackedKey {
        let b = pos.board();
        let occ = b.occupied().0;
        let rights = pos.castling_rights().0;
        let meta = |rights: u64| {
            let ep = pos.ep_square_legal().map_or(0, |sq| sq as u64 + 1);
            rights | (ep << 16) | ((pos.turn() == Color::Black) as u64) << 23
        };
        let compact = pos.variant() != Variant::Crazyhouse
            && occ.count_ones() <= 32
            && (pos.castling_rights() & !Bitboard::BACKRANKS).is_empty();
        if compact {
            let white = b.by_color(Color::White).0;
            let bit0 = (b.knights() | b.rooks() | b.kings()).0;
            let bit1 = (b.bishops() | b.rooks()).0;
            let bit2 = (b.queens() | b.kings()).0;
            let (mut planes, mut rest, mut i) = ([0u64; 4], occ, 0);
            while rest != 0 {
                let sq = rest & rest.wrapping_neg();
                for (p, set) in planes.iter_mut().zip([white, bit0, bit1, bit2]) {
                    *p |= ((set & sq != 0) as u64) << i;
                }
                rest &= rest - 1;
                i += 1;
            }
            let rights = (rights & 0xff) | (rights >> 48 & 0xff00);
            PackedKey::Compact([occ, planes[0] | planes[1] << 32, planes[2] | planes[3] << 32, meta(rights)])
        } else {
            let mut pockets = [0u64; 2];
            for (c, color) in Color::ALL.into_iter().enumerate() {
                for (r, role) in Role::POCKET.into_iter().enumerate() {
                    pockets[c] |= (pos.pockets()[color].count(role) as u64) << (8 * r);
                }
            }
            PackedKey::Wide(Box::new([
                b.by_color(Color::White).0,
                b.pawns().0,
                b.knights().0,
                b.bishops().0,
                b.rooks().0,
                b.queens().0,
                b.kings().0,
                pos.promoted().0,
                rights,
                meta(0),
                pockets[0],
                pockets[1],
            ]))
        }
    }
}

// Its positions are crazyhouse ones, with pockets.
#[cfg(all(test, feature = "variants"))]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
    fn packed_keys_follow_same_position() {
        let play = |sans: &[&str]| {
            let mut pos = Position::default();
            for s in sans {
                let (m, _) = crate::notation::san::parse_san(&pos, s.as_bytes()).expect("legal");
                pos.play_unchecked(m);
            }
            pos
        };
        let a = play(&["e4", "e5", "Nf3"]);
        let b = play(&["Nf3", "e5", "e4"]);
        assert!(a.same_position(&b));
        assert_eq!(PackedKey::of(&a), PackedKey::of(&b));
        assert!(matches!(PackedKey::of(&a), PackedKey::Compact(_)));
        // Same placement, other side to move; lost castling rights.
        let c = play(&["Nf3", "Nf6", "Ng1", "Ng8"]);
        assert_eq!(PackedKey::of(&c), PackedKey::of(&Position::default()));
        let d = play(&["Nf3", "Nf6", "Ng1"]);
        assert_ne!(PackedKey::of(&d), PackedKey::of(&Position::default()));
        let e = play(&["Nf3", "Nf6", "Rg1", "Ng8", "Rh1", "Nf6", "Ng1", "Ng8"]);
        assert_ne!(PackedKey::of(&e), PackedKey::of(&Position::default()));
        // An ep square counts only when the capture is legal.
        let f = play(&["e4", "Nf6", "e5", "d5"]);
        let g = play(&["e4", "d5", "e5", "Nf6", "Nf3", "Ng8", "Ng1", "Nf6"]);
        assert!(!f.same_position(&g));
        assert_ne!(PackedKey::of(&f), PackedKey::of(&g));
        // A pinned pawn cannot take en passant: the same position as without the double step.
        let fen = |f: &str| parse_fen(f, Variant::Standard).expect("FEN");
        let h = fen("3k4/8/8/8/3pP3/8/8/3RK3 b - e3 0 1");
        let i = fen("3k4/8/8/8/3pP3/8/8/3RK3 b - - 0 1");
        assert!(h.same_position(&i));
        assert_eq!((PackedKey::of(&h), h.zobrist()), (PackedKey::of(&i), i.zobrist()));
        // Crazyhouse takes the wide form, with pockets.
        let zh =
            parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Pp] w KQkq - 0 1", Variant::Crazyhouse)
                .expect("FEN");
        let zh2 =
            parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P] w KQkq - 0 1", Variant::Crazyhouse)
                .expect("FEN");
        assert!(matches!(PackedKey::of(&zh), PackedKey::Wide(_)));
        assert_ne!(PackedKey::of(&zh), PackedKey::of(&zh2));
    }
}
