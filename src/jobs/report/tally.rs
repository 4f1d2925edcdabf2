//! What one game adds to the report's totals beyond its tags ([`Tally`]): both sides' figures,
//! and for the sides taken its moves by phase and by loss and its judged moves' positions. It is
//! computed on the worker that read the game, so that only the games that may get a section of
//! their own travel with their moves to the release side.

use super::game::{GameRecord, half_points};
use super::name::same_name;
use super::sums::{LOSS_BUCKETS, Side, Spread};
use crate::analysis::judge::cp_losses_iter;
use crate::chess::{ByColor, Color, Move, Position, Variant};

/// A 64-bit key of what makes two positions the same for the recurring mistakes: placement,
/// side to move, castling rights and legal en passant square (and a crazyhouse position's
/// pockets, through its Zobrist key). The board's words hashed at once by xxh3: the Zobrist key,
/// recomputed a piece at a time since the replay does not keep it, measured 3.5% of `report`.
pub fn position_key(pos: &Position) -> u64 {
    if pos.variant() == Variant::Crazyhouse {
        return pos.zobrist();
    }
    let b = pos.board();
    let flags =
        u64::from(pos.turn() == Color::Black) | pos.ep_square_legal().map_or(0, |sq| (sq as u64 + 1) << 1);
    let words = [
        b.pawns().0,
        b.knights().0,
        b.bishops().0,
        b.rooks().0,
        b.queens().0,
        b.kings().0,
        b.by_color(Color::White).0,
        pos.castling_rights().0,
        flags,
    ];
    let mut bytes = [0u8; 72];
    for (chunk, w) in bytes.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

/// A judged move of a side taken, for the recurring mistakes: the [`position_key`] of the
/// position before it, that position, the move and the centipawns it lost.
#[derive(Clone, Debug)]
pub struct Judged {
    /// The position's [`position_key`].
    pub key: u64,
    /// The position before the move.
    pub position: Position,
    /// The move.
    pub mv: Move,
    /// Centipawns lost (0 without an evaluation before and after).
    pub loss: u64,
}

/// One game's figures as the totals add them.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Whether a move has an evaluation.
    pub evaluated: bool,
    /// Each side's figures in the game.
    pub sides: ByColor<Side>,
    /// The sides the report takes: both, or the player's.
    pub takes: ByColor<bool>,
    /// Each side's accuracy.
    pub accuracy: Option<ByColor<f64>>,
    /// The judged moves of the sides taken whose position the game kept, in move order.
    pub judged: Vec<Judged>,
}

impl Tally {
    /// The tally of `game` with its sides' `accuracy`, from the point of view of `player` (lower
    /// case; `None`: both sides); its moves by phase and by loss are added to `spread`. One pass
    /// over the moves, each move's loss and judgement computed as it is read.
    pub fn of(
        game: &GameRecord,
        accuracy: Option<ByColor<f64>>,
        player: Option<&str>,
        spread: &mut Spread,
    ) -> Tally {
        let takes = ByColor::new_with(|side| {
            player.is_none_or(|p| game.tags.player(side).is_some_and(|n| same_name(n, p)))
        });
        let mut t = Tally {
            evaluated: game.has_evals(),
            sides: ByColor::new_with(|side| {
                let mut s = Side { games: 1, ..Side::default() };
                if let Some(p) = half_points(game.result, side) {
                    s.scored = 1;
                    s.half_points = u64::from(p);
                }
                s
            }),
            takes,
            accuracy,
            // At most one a kept position: one allocation instead of growing.
            judged: Vec::with_capacity(game.judged_positions.len()),
        };
        if !t.evaluated {
            return t;
        }
        let mut side = game.first_mover();
        // The kept positions are in move order: read with the moves, not searched for each.
        let mut kept = game.judged_positions.iter().peekable();
        let moves = cp_losses_iter(&game.evals, side).zip(game.judgements());
        for (i, (loss, judgement)) in moves.enumerate() {
            t.sides[side].moves.count(loss, judgement);
            if takes[side] {
                spread.phases[game.division.phase(i as u32 + 1) as usize].count(loss, judgement);
                if let Some(l) = loss {
                    let bucket = LOSS_BUCKETS.iter().position(|&b| l <= b).unwrap_or(LOSS_BUCKETS.len());
                    spread.losses[bucket] += 1;
                }
                if judgement.is_some() {
                    while kept.next_if(|(k, _)| (*k as usize) < i).is_some() {}
                    if let Some((_, pos)) = kept.next_if(|(k, _)| *k as usize == i) {
                        let loss = u64::from(loss.unwrap_or(0));
                        t.judged.push(Judged {
                            key: position_key(pos),
                            position: *pos,
                            mv: game.moves[i],
                            loss,
                        });
                    }
                }
            }
            side = !side;
        }
        for side in [Color::White, Color::Black] {
            let s = &mut t.sides[side];
            s.evaluated = 1;
            if let Some(a) = accuracy {
                s.accuracy = a[side];
                s.accuracy_games = 1;
            }
        }
        t
    }

    /// The centipawns the sides taken lost: what ranks a game for a section of its own.
    pub fn ranked_loss(&self) -> u64 {
        [Color::White, Color::Black]
            .into_iter()
            .filter(|&s| self.takes[s])
            .map(|s| self.sides[s].moves.loss)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    fn key(fen: &str) -> u64 {
        position_key(&parse_fen(fen, Variant::Standard).expect("valid"))
    }

    #[test]
    fn position_keys_tell_what_the_zobrist_key_tells() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        // The clocks do not count, nor an en passant square no pawn can take on.
        assert_eq!(key(start), key("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 5 9"));
        let pushed = "rnbqkbnr/pppp1ppp/8/8/4Pp2/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3";
        assert_ne!(key(pushed), key(&pushed.replace(" e3 ", " - ")), "a legal en passant square");
        let idle = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
        assert_eq!(key(idle), key(&idle.replace(" e3 ", " - ")));
        for other in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Kkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w kq - 0 1",
        ] {
            assert_ne!(key(start), key(other), "{other}");
        }
    }
}
