//! Perft: the number of leaf nodes of the legal move tree to a depth, counting the last ply in
//! bulk (popcounts, no move list), and `divide`, the count under each root move.

use super::moves::Move;
use super::position::Position;

/// Leaf nodes at `depth` plies below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    count(&unhashed(pos), depth)
}

/// `pos` playing without Zobrist key updates: perft never reads a key.
fn unhashed(pos: &Position) -> Position {
    let mut pos = *pos;
    pos.set_hashing(false);
    pos
}

fn count(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal(),
        _ => {
            let mut total = 0;
            for &m in pos.legal_moves().iter() {
                let mut child = *pos;
                child.play_unchecked(m);
                total += count(&child, depth - 1);
            }
            total
        }
    }
}

/// Perft below each legal root move, in generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let pos = unhashed(pos);
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos;
            child.play_unchecked(m);
            (m, count(&child, depth.saturating_sub(1)))
        })
        .collect()
}
