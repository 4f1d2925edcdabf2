//! Temporary, minimal FEN reading for the search's tests, bench positions and the UCI server,
//! until `notation::fen` lands on main (then this module goes). Crate-private in spirit: hidden
//! from the docs, not a supported parser.

use crate::chess::{
    Bitboard, ByColor, CastlingMode, Color, File, Piece, Pocket, Position, Rank, Setup, Square, Variant,
};

/// A standard-chess position from a trusted FEN; panics on bad input.
#[cfg(test)]
pub fn position(fen: &str) -> Position {
    position_variant(fen, Variant::Standard)
}

/// A position of `variant` from a trusted FEN; panics on bad input.
pub fn position_variant(fen: &str, variant: Variant) -> Position {
    try_position(fen, variant).unwrap_or_else(|| panic!("invalid test FEN {fen}"))
}

/// A position of `variant` from FEN (crazyhouse pockets as `.../RNBQKBNR[Qp] w ...` or an extra
/// `/Qp` rank; castling as `KQkq` or Shredder file letters); `None` when it is not valid.
pub fn try_position(fen: &str, variant: Variant) -> Option<Position> {
    let mut fields = fen.split_whitespace();
    let placement = fields.next()?;
    let mut setup = Setup::empty();
    let (placement, pocket) = match placement.find('[') {
        Some(i) => (&placement[..i], Some(placement[i + 1..].trim_end_matches(']'))),
        None if placement.matches('/').count() == 8 => {
            let i = placement.rfind('/')?;
            (&placement[..i], Some(&placement[i + 1..]))
        }
        None => (placement, None),
    };
    let rows: Vec<&str> = placement.split('/').collect();
    if rows.len() != 8 {
        return None;
    }
    for (i, row) in rows.iter().enumerate() {
        let rank = Rank::new(7 - i as u32);
        let mut file = 0;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                file += d;
            } else if c == '~' {
                if file == 0 {
                    return None;
                }
                setup.promoted.add(Square::from_coords(File::new(file - 1), rank));
            } else {
                if file >= 8 {
                    return None;
                }
                setup.board.set_piece_at(Square::from_coords(File::new(file), rank), Piece::from_char(c)?);
                file += 1;
            }
        }
        if file != 8 {
            return None;
        }
    }
    if variant == Variant::Crazyhouse {
        let mut pockets = ByColor::<Pocket>::default();
        for c in pocket.unwrap_or("").chars() {
            let p = Piece::from_char(c)?;
            pockets[p.color].add(p.role);
        }
        setup.pockets = Some(pockets);
    }
    setup.turn = match fields.next() {
        Some("b") => Color::Black,
        Some("w") | None => Color::White,
        Some(_) => return None,
    };
    let mut rights = Bitboard::EMPTY;
    for c in fields.next().unwrap_or("-").chars() {
        let color = Color::from_white(c.is_ascii_uppercase());
        let back = Bitboard::relative_rank(color, Rank::First);
        let rooks = setup.board.rooks() & setup.board.by_color(color) & back;
        let sq = match c.to_ascii_lowercase() {
            'k' => rooks.last(),
            'q' => rooks.first(),
            f @ 'a'..='h' => Some(Square::from_coords(File::new(f as u32 - 'a' as u32), Rank::First.relative(color))),
            '-' => None,
            _ => return None,
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
    Position::from_setup(setup, variant, mode).or_else(|e| e.ignore_invalid_ep_square()).ok()
}
