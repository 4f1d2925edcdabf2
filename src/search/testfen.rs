//! Temporary, minimal FEN reading for the search's tests and bench positions, until
//! `notation::fen` lands on main. Not a public parser: it panics on anything unusual.

use crate::chess::{Bitboard, CastlingMode, Color, File, Piece, Position, Rank, Setup, Square, Variant};

/// A standard-chess position from a trusted FEN.
pub fn position(fen: &str) -> Position {
    position_variant(fen, Variant::Standard)
}

/// A position of `variant` from a trusted FEN (crazyhouse pockets as `.../RNBQKBNR[Qp] w ...` or
/// an extra `/Qp` rank; castling as `KQkq` or Shredder file letters).
pub fn position_variant(fen: &str, variant: Variant) -> Position {
    let mut fields = fen.split_whitespace();
    let placement = fields.next().expect("placement");
    let mut setup = Setup::empty();
    let (placement, pocket) = match placement.find('[') {
        Some(i) => (&placement[..i], Some(placement[i + 1..].trim_end_matches(']'))),
        None if placement.matches('/').count() == 8 => {
            let i = placement.rfind('/').expect("slash");
            (&placement[..i], Some(&placement[i + 1..]))
        }
        None => (placement, None),
    };
    for (i, row) in placement.split('/').enumerate() {
        let rank = Rank::new(7 - i as u32);
        let mut file = 0;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                file += d;
            } else if c == '~' {
                let sq = Square::from_coords(File::new(file - 1), rank);
                setup.promoted.add(sq);
            } else {
                let piece = Piece::from_char(c).expect("piece letter");
                setup.board.set_piece_at(Square::from_coords(File::new(file), rank), piece);
                file += 1;
            }
        }
    }
    if variant == Variant::Crazyhouse {
        let mut pockets = crate::chess::ByColor::<crate::chess::Pocket>::default();
        for c in pocket.unwrap_or("").chars() {
            let p = Piece::from_char(c).expect("pocket letter");
            pockets[p.color].add(p.role);
        }
        setup.pockets = Some(pockets);
    }
    setup.turn = if fields.next() == Some("b") { Color::Black } else { Color::White };
    let mut rights = Bitboard::EMPTY;
    for c in fields.next().unwrap_or("-").chars() {
        let color = Color::from_white(c.is_ascii_uppercase());
        let back = Bitboard::relative_rank(color, Rank::First);
        let rooks = setup.board.rooks() & setup.board.by_color(color) & back;
        let sq = match c.to_ascii_lowercase() {
            'k' => rooks.last(),
            'q' => rooks.first(),
            f @ 'a'..='h' => Some(Square::from_coords(File::new(f as u32 - 'a' as u32), Rank::First.relative(color))),
            _ => None,
        };
        if let Some(sq) = sq {
            rights.add(sq);
        }
    }
    setup.castling_rights = rights;
    setup.ep_square = fields.next().and_then(|s| Square::from_ascii(s.as_bytes()));
    setup.halfmoves = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    setup.fullmoves = fields.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let mode = CastlingMode::from_chess960(variant == Variant::Chess960);
    Position::from_setup(setup, variant, mode)
        .or_else(|e| e.ignore_invalid_ep_square())
        .unwrap_or_else(|e| panic!("invalid test FEN {fen}: {e}"))
}
