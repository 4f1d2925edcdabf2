//! The figures that add up, game by game and then over a collection: one side's ([`Side`]),
//! one run of moves' (a side's or a phase's: [`MoveTotals`]), and the buckets of the loss
//! distribution. A game's tally fills them on the worker; the release side adds them up.

use crate::analysis::judge::Judgement;

/// The upper bounds of the loss distribution's buckets, in centipawns (the last is open).
pub const LOSS_BUCKETS: [u32; 7] = [0, 19, 49, 99, 199, 299, 499];

/// One side's figures, added up over games.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Side {
    /// Games played.
    pub games: u64,
    /// Games with a result (`*` has none).
    pub scored: u64,
    /// Half points of those.
    pub half_points: u64,
    /// Games with evaluations.
    pub evaluated: u64,
    /// The moves of games with evaluations.
    pub moves: MoveTotals,
    /// Game accuracies summed, and how many.
    pub accuracy: f64,
    /// Games with an accuracy.
    pub accuracy_games: u64,
}

impl Side {
    /// Adds `other`.
    pub fn add(&mut self, o: &Side) {
        self.games += o.games;
        self.scored += o.scored;
        self.half_points += o.half_points;
        self.evaluated += o.evaluated;
        self.moves.add(&o.moves);
        self.accuracy += o.accuracy;
        self.accuracy_games += o.accuracy_games;
    }

    /// The score, as a share of the points (`None` without a scored game).
    pub fn score(&self) -> Option<f64> {
        (self.scored > 0).then(|| self.half_points as f64 / 2.0 / self.scored as f64)
    }

    /// The mean of the games' accuracies.
    pub fn mean_accuracy(&self) -> Option<f64> {
        (self.accuracy_games > 0).then(|| self.accuracy / self.accuracy_games as f64)
    }
}

/// The moves of the sides taken, by phase and by centipawn loss ([`LOSS_BUCKETS`]): integer
/// counts, so a chunk's games are summed on the worker that read them (carried game by game to
/// the release side, they measured about a tenth of `report`'s time with the rest of a game's
/// tally).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// By phase: opening, middlegame, endgame.
    pub phases: [MoveTotals; 3],
    /// By loss bucket.
    pub losses: [u64; 8],
}

impl Spread {
    /// Adds `other`.
    pub fn add(&mut self, o: &Spread) {
        for (p, g) in self.phases.iter_mut().zip(&o.phases) {
            p.add(g);
        }
        for (n, g) in self.losses.iter_mut().zip(o.losses) {
            *n += g;
        }
    }
}

/// The figures of a run of moves (a side's, a phase's): how many, their centipawn losses and
/// their judgements.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveTotals {
    /// Moves in games with evaluations.
    pub moves: u64,
    /// Centipawn losses summed.
    pub loss: u64,
    /// Moves counted in `loss` (an evaluation before and after).
    pub loss_moves: u64,
    /// Inaccuracies, mistakes, blunders.
    pub judgements: [u64; 3],
}

impl MoveTotals {
    /// Counts one move: its loss, if it has one, and its judgement.
    pub fn count(&mut self, loss: Option<u32>, judgement: Option<Judgement>) {
        self.moves += 1;
        if let Some(l) = loss {
            self.loss += u64::from(l);
            self.loss_moves += 1;
        }
        if let Some(j) = judgement {
            self.judgements[j as usize] += 1;
        }
    }

    /// Adds `other`.
    pub fn add(&mut self, o: &MoveTotals) {
        self.moves += o.moves;
        self.loss += o.loss;
        self.loss_moves += o.loss_moves;
        for (a, b) in self.judgements.iter_mut().zip(o.judgements) {
            *a += b;
        }
    }

    /// Average centipawn loss over the moves counted.
    pub fn acpl(&self) -> Option<f64> {
        (self.loss_moves > 0).then(|| self.loss as f64 / self.loss_moves as f64)
    }

    /// Judgements of a kind per 100 moves.
    pub fn per_100(&self, j: Judgement) -> Option<f64> {
        (self.moves > 0).then(|| 100.0 * self.judgements[j as usize] as f64 / self.moves as f64)
    }
}
