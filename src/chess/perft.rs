//! Perft: the number of leaf nodes of the legal move tree to a depth, counting the last ply in
//! bulk (popcounts, no move list), and `divide`, the count under each root move. `perft` runs on
//! the calling thread (it is the move generator's benchmark); `divide` counts the root moves'
//! subtrees in parallel on rayon's pool, since they are independent.

use rayon::prelude::*;

use super::moves::Move;
use super::position::Position;

/// The deepest perft counted: each ply is a frame of the recursion, and a count much deeper
/// would overflow a thread's stack (at about 1,700 plies) long before it could end.
pub const MAX_DEPTH: u32 = 128;

/// Leaf nodes at `depth` plies below `pos`.
///
/// # Panics
/// When `depth` is above [`MAX_DEPTH`].
pub fn perft(pos: &Position, depth: u32) -> u64 {
    assert!(depth <= MAX_DEPTH, "perft depth {depth} is above {MAX_DEPTH}");
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

/// Perft below each legal root move, in generation order; the subtrees are counted in parallel.
///
/// # Panics
/// When `depth` is above [`MAX_DEPTH`].
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    assert!(depth <= MAX_DEPTH, "perft depth {depth} is above {MAX_DEPTH}");
    let pos = unhashed(pos);
    let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
    moves
        .into_par_iter()
        .map(|m| {
            let mut child = pos;
            child.play_unchecked(m);
            (m, count(&child, depth.saturating_sub(1)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The root moves' counts add up to perft, in generation order, at any pool size.
    #[test]
    fn divide_adds_up_to_perft_in_generation_order() {
        let pos = Position::default();
        let rows = divide(&pos, 3);
        let order: Vec<Move> = pos.legal_moves().iter().copied().collect();
        assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), order);
        assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), perft(&pos, 3));
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        assert_eq!(one.install(|| divide(&pos, 3)), rows);
    }
}
