//! What lichess says about moves from their evaluations: winning chances ([`wc`]), the judgement
//! of a move ([`advise`], [`judge`]: inaccuracy, mistake or blunder, with its NAG and comment),
//! the judgements of a game's mainline from the evaluations it already carries ([`Judge`],
//! [`judge_evals`], for `annotate --from-evals`), and the per-side figures lichess shows:
//! average centipawn loss ([`acpl`]) and accuracy ([`accuracy`]).
//!
//! The rules are lichess's (lila `modules/tree/src/main/Advice.scala`, `Analysis.scala`,
//! `modules/analyse/src/main/AccuracyCP.scala`, `AccuracyPercent.scala`, scalachess `WinPercent`,
//! fishnet's `AnalysisBuilder.scala`), restated from their published behaviour; the tests check
//! them against figures and judgements lichess itself exported.
//!
//! Invariants: pure functions, no I/O. Every score here is from White's point of view (the
//! `[%eval]` convention), given as a [`Score`] read that way; the mover's view
//! is taken inside. A game's evaluations are one per mainline move, the position after it;
//! `None` where there is none. `Mate(0)` after a move means that move mated: lichess keeps no
//! evaluation for a mated position, so neither is it judged nor counted here.

use crate::analysis::{PovScore, Score};
use crate::chess::{ByColor, Color};
use crate::pgn::{EvalScore, Nag};

#[cfg(test)]
mod tests;

/// The evaluation before a game's first move when nothing says otherwise: +15 centipawns for
/// White, whichever side moves first (lila's `Cp.initial`).
pub const INITIAL_EVAL: Score = Score::Cp(INITIAL_CP);

/// [`INITIAL_EVAL`] in centipawns, under the cap.
const INITIAL_CP: i32 = 15;

/// The logistic slope of [`wc`] per centipawn (lila pull request 11148).
const WC_SLOPE: f64 = 0.00368208;

/// Centipawns beyond which accuracy and centipawn loss see no difference (lila `Cp.CEILING`).
const CP_CEILING: i32 = 1000;

/// Winning chances of `cp` centipawns, in [-1, 1]: `2 / (1 + exp(-0.00368208 * cp)) - 1`.
/// Judgements use it on the engine's centipawns as they are, without a cap.
///
/// ```
/// use pgnkit::analysis::judge::wc;
/// assert_eq!(wc(0), 0.0);
/// assert!((wc(100) - 0.18205).abs() < 1e-5 && wc(-100) < 0.0);
/// ```
pub fn wc(cp: i32) -> f64 {
    (2.0 / (1.0 + (-WC_SLOPE * f64::from(cp)).exp()) - 1.0).clamp(-1.0, 1.0)
}

/// What a judged move is, by how much it lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Judgement {
    /// Lost at least 0.1 of winning chances: `?!`, `$6`.
    Inaccuracy,
    /// Lost at least 0.2: `?`, `$2`.
    Mistake,
    /// Lost at least 0.3: `??`, `$4`.
    Blunder,
}

impl Judgement {
    /// All three, mildest first.
    pub const ALL: [Judgement; 3] = [Judgement::Inaccuracy, Judgement::Mistake, Judgement::Blunder];

    /// The NAG lichess writes: `$6`, `$2` or `$4`.
    pub const fn nag(self) -> Nag {
        match self {
            Judgement::Inaccuracy => Nag::DUBIOUS_MOVE,
            Judgement::Mistake => Nag::MISTAKE,
            Judgement::Blunder => Nag::BLUNDER,
        }
    }

    /// The word lichess writes: `Inaccuracy`, `Mistake` or `Blunder`.
    pub const fn word(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "Inaccuracy",
            Judgement::Mistake => "Mistake",
            Judgement::Blunder => "Blunder",
        }
    }

    /// The judgement of a loss of `delta` winning chances (thresholds inclusive).
    fn from_delta(delta: f64) -> Option<Judgement> {
        if delta >= 0.3 {
            Some(Judgement::Blunder)
        } else if delta >= 0.2 {
            Some(Judgement::Mistake)
        } else if delta >= 0.1 {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }
}

/// Why a move was judged: the rule that fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// Both evaluations are centipawns and the mover lost winning chances.
    WinningChances,
    /// The mover now gets mated where no mate was on the board before; the judgement follows the
    /// evaluation before (below -999 cp for the mover an inaccuracy, below -700 a mistake, else a
    /// blunder).
    MateCreated,
    /// The mover had a forced mate and no longer has one; the judgement follows the evaluation
    /// after (above 999 cp an inaccuracy, above 700 a mistake, else, a mate against the mover
    /// included, a blunder).
    MateLost,
}

/// A judged move: how bad, and by which rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Advice {
    /// How bad.
    pub judgement: Judgement,
    /// Which rule.
    pub reason: Reason,
}

impl Advice {
    /// The NAG of the judgement.
    pub const fn nag(self) -> Nag {
        self.judgement.nag()
    }

    /// The first sentence of lichess's comment, without its full stop: the judgement's word, or
    /// for the mate rules `Checkmate is now unavoidable` / `Lost forced checkmate sequence`.
    pub const fn text(self) -> &'static str {
        match self.reason {
            Reason::WinningChances => self.judgement.word(),
            Reason::MateCreated => MATE_CREATED,
            Reason::MateLost => MATE_LOST,
        }
    }

    /// Appends lichess's comment: `Mistake. Nf3 was best.` with the engine's best move in SAN,
    /// or `Mistake.` without one (`--from-evals`).
    ///
    /// ```
    /// use pgnkit::analysis::judge::{Advice, Judgement, Reason};
    /// let advice = Advice { judgement: Judgement::Mistake, reason: Reason::WinningChances };
    /// let mut comment = String::new();
    /// advice.write_comment(Some("Nf3"), &mut comment);
    /// assert_eq!(comment, "Mistake. Nf3 was best.");
    /// ```
    pub fn write_comment(self, best: Option<&str>, out: &mut String) {
        out.push_str(self.text());
        out.push('.');
        if let Some(best) = best {
            out.push(' ');
            out.push_str(best);
            out.push_str(" was best.");
        }
    }
}

/// The first sentence of the comments of the mate rules, without its full stop.
const MATE_CREATED: &str = "Checkmate is now unavoidable";
const MATE_LOST: &str = "Lost forced checkmate sequence";

/// Reads a judgement comment as [`Advice::write_comment`] writes one, or as lichess does after
/// the evaluations it compares (`(0.25 → 1.02) Mistake. Nf3 was best.`): `None` for another
/// comment, else the best move it names when its first sentence is followed by ` X was best.`
/// alone.
///
/// ```
/// use pgnkit::analysis::judge::read_comment;
/// assert_eq!(read_comment(b"(-0.25 \xe2\x86\x92 0.39) Inaccuracy. cxd4 was best."), Some(Some(&b"cxd4"[..])));
/// assert_eq!(read_comment(b"Blunder."), Some(None));
/// assert_eq!(read_comment(b"A blunder."), None);
/// ```
pub fn read_comment(text: &[u8]) -> Option<Option<&[u8]>> {
    let text = match text.strip_prefix(b"(") {
        Some(rest) => {
            let close = rest.iter().position(|&b| b == b')')?;
            if !rest[..close].windows(5).any(|w| w == " → ".as_bytes()) {
                return None;
            }
            rest[close + 1..].strip_prefix(b" ")?
        }
        None => text,
    };
    // The sentences start with distinct letters: one is compared (`report` reads every
    // judgement comment of a collection).
    const SENTENCES: [&str; 5] = [
        Judgement::Inaccuracy.word(),
        Judgement::Mistake.word(),
        Judgement::Blunder.word(),
        MATE_CREATED,
        MATE_LOST,
    ];
    let first = *text.first()?;
    let sentence = SENTENCES.into_iter().find(|s| s.as_bytes()[0] == first)?;
    let rest = text.strip_prefix(sentence.as_bytes())?.strip_prefix(b".")?;
    let best = rest.strip_prefix(b" ").and_then(|r| r.strip_suffix(b" was best."));
    Some(best.filter(|b| !b.is_empty() && !b.contains(&b' ')))
}

/// The judgement of a move and its rule, as lichess makes it: `before` and `after` are the
/// evaluations of the positions before and after the move (White's view), `mover` the side that
/// played it. A move equal to the engine's best (`played_is_best`) is never judged; neither is a
/// mate merely delayed or shortened, an escape from a mate, nor a move that mates.
///
/// ```
/// use pgnkit::analysis::Score;
/// use pgnkit::analysis::judge::{Judgement, Reason, advise};
/// use pgnkit::Color;
/// // Black lets White's +0.78 become +2.75.
/// let a = advise(Score::Cp(78), Score::Cp(275), Color::Black, false).unwrap();
/// assert_eq!((a.judgement, a.reason), (Judgement::Blunder, Reason::WinningChances));
/// assert_eq!(advise(Score::Cp(78), Score::Cp(275), Color::Black, true), None);
/// ```
pub fn advise(before: Score, after: Score, mover: Color, played_is_best: bool) -> Option<Advice> {
    if played_is_best || after == Score::Mate(0) || before == Score::Mate(0) {
        return None;
    }
    if let (Score::Cp(b), Score::Cp(a)) = (before, after) {
        // lila's arithmetic: White's change, negated for White's moves.
        let d = wc(a) - wc(b);
        let delta = if mover.is_white() { -d } else { d };
        return Judgement::from_delta(delta)
            .map(|judgement| Advice { judgement, reason: Reason::WinningChances });
    }
    let (before, after) = (mover_view(before, mover), mover_view(after, mover));
    // Where a mate stands instead of centipawns, lila counts 0 centipawns.
    let cp = |s: Score| if let Score::Cp(cp) = s { cp } else { 0 };
    let (reason, judgement) = match (before, after) {
        (Score::Cp(_), Score::Mate(n)) if n < 0 => {
            let cp = cp(before);
            (Reason::MateCreated, severity(cp < -999, cp < -700))
        }
        (Score::Mate(p), _) if p > 0 && !matches!(after, Score::Mate(n) if n > 0) => {
            let cp = cp(after);
            (Reason::MateLost, severity(cp > 999, cp > 700))
        }
        _ => return None,
    };
    Some(Advice { judgement, reason })
}

/// [`advise`] without the rule: the judgement alone.
pub fn judge(before: Score, after: Score, mover: Color, played_is_best: bool) -> Option<Judgement> {
    advise(before, after, mover, played_is_best).map(|a| a.judgement)
}

/// The mate rules' scale: an inaccuracy when the first test holds, else a mistake when the
/// second does, else a blunder.
fn severity(inaccuracy: bool, mistake: bool) -> Judgement {
    if inaccuracy {
        Judgement::Inaccuracy
    } else if mistake {
        Judgement::Mistake
    } else {
        Judgement::Blunder
    }
}

/// A White's-view score from `mover`'s point of view.
fn mover_view(white: Score, mover: Color) -> Score {
    PovScore::new(Color::White, white).pov(mover)
}

/// An `[%eval]` as a [`Score`] from White's point of view (`#0`: the side to move is mated).
pub const fn eval_score(eval: EvalScore) -> Score {
    match eval {
        EvalScore::Cp(cp) => Score::Cp(cp),
        EvalScore::Mate(n) => Score::Mate(n),
    }
}

/// Judges a game's mainline move by move as its evaluations arrive, each against the one before
/// (the first against [`INITIAL_EVAL`]). A move without an evaluation, or played in a position
/// without one, is not judged (lila judges only moves with an engine line, which it has only
/// where it evaluated both positions).
///
/// ```
/// use pgnkit::analysis::Score;
/// use pgnkit::analysis::judge::{Judge, Judgement};
/// use pgnkit::Color;
/// let mut judge = Judge::new(Color::White);
/// assert_eq!(judge.next(Some(Score::Cp(20)), false), None); // 1. e4
/// let advice = judge.next(Some(Score::Cp(250)), false).unwrap(); // 1... f6
/// assert_eq!(advice.judgement, Judgement::Blunder);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Judge {
    /// The evaluation of the position the next move is played in.
    before: Option<Score>,
    /// The side to play the next move.
    mover: Color,
}

impl Judge {
    /// A judge at the start of a game whose first move is `first_mover`'s.
    pub const fn new(first_mover: Color) -> Judge {
        Judge { before: Some(INITIAL_EVAL), mover: first_mover }
    }

    /// The next mainline move: the evaluation after it (White's view), and whether it was the
    /// engine's best.
    pub fn next(&mut self, after: Option<Score>, played_is_best: bool) -> Option<Advice> {
        let (before, mover) = (self.before, self.mover);
        self.before = after;
        self.mover = !mover;
        advise(before?, after?, mover, played_is_best)
    }
}

/// The judgements of a game's mainline from its evaluations alone, one per move (`annotate
/// --from-evals`): no engine says which move was best, so every move is judged (lichess judges
/// only moves that differ from its engine's best; such a move rarely loses enough to be judged).
///
/// ```
/// use pgnkit::analysis::Score;
/// use pgnkit::analysis::judge::judge_evals;
/// use pgnkit::Color;
/// let evals = [Some(Score::Cp(20)), Some(Score::Cp(250)), None, Some(Score::Mate(-2))];
/// let words: Vec<_> = judge_evals(&evals, Color::White).iter().map(|a| a.map(|a| a.text())).collect();
/// assert_eq!(words, [None, Some("Blunder"), None, None]);
/// ```
pub fn judge_evals(evals: &[Option<Score>], first_mover: Color) -> Vec<Option<Advice>> {
    let mut judge = Judge::new(first_mover);
    evals.iter().map(|&after| judge.next(after, false)).collect()
}

/// A White's-view evaluation in centipawns capped at +-1000, a mate counting as the cap; `None`
/// for a mated position (lichess keeps no evaluation of it).
fn capped_cp(score: Score) -> Option<i32> {
    match score {
        Score::Cp(cp) => Some(cp.clamp(-CP_CEILING, CP_CEILING)),
        Score::Mate(0) => None,
        Score::Mate(n) => Some(if n > 0 { CP_CEILING } else { -CP_CEILING }),
    }
}

/// Average centipawn loss per side, as lichess shows it (lila `AccuracyCP`): for each move with
/// an evaluation before and after it, the mover's loss `max(0, before - after)` with both capped
/// at +-1000 cp, mates counting as the cap; the mean rounded to the nearest integer. `None` for
/// a side with no such move. `evals` holds the evaluation after each mainline move (White's
/// view), the first move being `first_mover`'s; the position before it counts as
/// [`INITIAL_EVAL`].
///
/// ```
/// use pgnkit::analysis::Score;
/// use pgnkit::analysis::judge::acpl;
/// use pgnkit::Color;
/// let evals = [Some(Score::Cp(15)), Some(Score::Cp(115)), Some(Score::Cp(115))];
/// let a = acpl(&evals, Color::White);
/// assert_eq!((a.white, a.black), (Some(0), Some(100)));
/// ```
pub fn acpl(evals: &[Option<Score>], first_mover: Color) -> ByColor<Option<u32>> {
    acpl_of(evals.iter().copied(), first_mover)
}

/// [`acpl`] of evaluations read once, in order: each side's running total, so a game of any
/// length costs no memory.
pub fn acpl_of(evals: impl IntoIterator<Item = Option<Score>>, first_mover: Color) -> ByColor<Option<u32>> {
    // The first mover's (sum, count) of losses, then the other side's.
    let mut totals = [(0u64, 0u64); 2];
    for (i, loss) in losses(evals.into_iter(), first_mover).enumerate() {
        if let Some(loss) = loss {
            let t = &mut totals[i % 2];
            (t.0, t.1) = (t.0 + u64::from(loss), t.1 + 1);
        }
    }
    ByColor::new_with(|side| {
        let (sum, count) = totals[usize::from(side != first_mover)];
        // Half up, as Java's Math.round on a non-negative mean.
        (count > 0).then(|| ((sum as f64 / count as f64) + 0.5).floor() as u32)
    })
}

/// The centipawn loss of each mainline move, as [`acpl`] counts it: the mover's
/// `max(0, before - after)` with both evaluations capped at +-1000 cp, mates counting as the cap;
/// `None` for a move without an evaluation before or after it (a mated position has none).
/// Arguments as for [`acpl`].
///
/// ```
/// use pgnkit::analysis::Score;
/// use pgnkit::analysis::judge::cp_losses;
/// use pgnkit::Color;
/// let evals = [Some(Score::Cp(15)), Some(Score::Cp(115)), None, Some(Score::Mate(2))];
/// assert_eq!(cp_losses(&evals, Color::White), [Some(0), Some(100), None, None]);
/// ```
pub fn cp_losses(evals: &[Option<Score>], first_mover: Color) -> Vec<Option<u32>> {
    cp_losses_iter(evals, first_mover).collect()
}

/// [`cp_losses`] one move at a time, for a caller that reads each once.
pub fn cp_losses_iter(evals: &[Option<Score>], first_mover: Color) -> impl Iterator<Item = Option<u32>> + '_ {
    losses(evals.iter().copied(), first_mover)
}

/// [`cp_losses_iter`] of evaluations from any iterator.
fn losses(
    evals: impl Iterator<Item = Option<Score>>,
    first_mover: Color,
) -> impl Iterator<Item = Option<u32>> {
    let mut before = capped_cp(INITIAL_EVAL);
    let mut mover = first_mover;
    evals.map(move |after| {
        let after = after.and_then(capped_cp);
        let loss = match (before, after) {
            (Some(b), Some(a)) => {
                let loss = if mover.is_white() { b - a } else { a - b };
                Some(loss.max(0) as u32)
            }
            _ => None,
        };
        (before, mover) = (after, !mover);
        loss
    })
}

/// Win percentage of a White's-view centipawn figure, in [0, 100], as lichess's accuracy uses
/// it: `50 + 50 * wc(cp)` with `cp` capped at +-1000.
pub fn win_percent(cp: i32) -> f64 {
    win_percent_in(&WIN_PERCENTS, cp)
}

/// [`win_percent`] read from the table, for a loop that takes the table once.
#[inline(always)]
fn win_percent_in(table: &WinPercents, cp: i32) -> f64 {
    table[(cp.clamp(-CP_CEILING, CP_CEILING) + CP_CEILING) as usize]
}

/// A win percentage for each capped centipawn figure, from -1000.
type WinPercents = [f64; 2 * CP_CEILING as usize + 1];

/// [`win_percent`] of each centipawn figure from -1000 to 1000, computed once: `exp` on every
/// move measured 2-3% of `report`'s time.
static WIN_PERCENTS: std::sync::LazyLock<Box<WinPercents>> = std::sync::LazyLock::new(|| {
    let mut t = Box::new([0.0; 2 * CP_CEILING as usize + 1]);
    for (w, cp) in t.iter_mut().zip(-CP_CEILING..=CP_CEILING) {
        *w = 50.0 + 50.0 * wc(cp);
    }
    t
});

/// The accuracy of one move from the mover's win percentages before and after it (lila
/// `AccuracyPercent.fromWinPercents`): 100 when nothing was lost, else
/// `103.1668 * exp(-0.04354 * loss) - 3.1669` plus lila's bonus of 1 for imperfect analysis,
/// clamped to [0, 100].
///
/// ```
/// use pgnkit::analysis::judge::move_accuracy;
/// assert_eq!(move_accuracy(50.0, 55.0), 100.0);
/// assert!((move_accuracy(50.0, 40.0) - 64.58).abs() < 0.01);
/// assert_eq!(move_accuracy(100.0, 0.0), 0.0);
/// ```
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    let raw = 103.1668100711649 * (-0.04354415386753951 * (before - after)).exp() - 3.166924740191411;
    (raw + 1.0).clamp(0.0, 100.0)
}

/// Accuracy per side, as lichess shows it (lila `AccuracyPercent.gameAccuracy`; lichess displays
/// it rounded to an integer): the mean of a volatility-weighted mean and the harmonic mean of the
/// side's [`move_accuracy`] figures. The win percentages ([`win_percent`], mates as +-1000 cp) run
/// from [`INITIAL_EVAL`] through every evaluation; a move's weight is the standard deviation of
/// the win percentages in a window of `clamp(evaluations / 10, 2, 8)` of them ending at the move
/// (the first windows are the first one repeated), clamped to [0.5, 12]. Arguments as for
/// [`acpl`]. A move counts for its mover only with an evaluation before and after it, the moves
/// [`acpl`] counts; a missing evaluation stands in the windows as the one before it, so every
/// weight stays the move's own (lila closes the gaps up, which after an odd one credits each move
/// to the other side). `None` unless both sides have a move (lila shows both or none).
///
/// ```
/// use pgnkit::analysis::Score;
/// use pgnkit::analysis::judge::accuracy;
/// use pgnkit::Color;
/// // 2. Nf3 without an evaluation; 3. Bc4 drops from +0.20 to -5.00: White's blunder.
/// let cp = |cp| Some(Score::Cp(cp));
/// let evals = [cp(20), cp(20), None, cp(20), cp(-500), cp(-500)];
/// let a = accuracy(&evals, Color::White).unwrap();
/// assert!(a.white < 30.0 && a.black == 100.0);
/// ```
pub fn accuracy(evals: &[Option<Score>], first_mover: Color) -> Option<ByColor<f64>> {
    accuracy_in(evals, first_mover, &mut AccuracyBuffers::default())
}

/// The lists [`accuracy_in`] computes into, kept from game to game by a caller that computes
/// many (allocations a game otherwise); they hold a block of 4,096 moves at most.
#[derive(Clone, Debug, Default)]
pub struct AccuracyBuffers {
    wins: Vec<f64>,
    deviations: Vec<f64>,
    /// Whether each position of `wins` has an evaluation (a game with gaps).
    evaluated: Vec<bool>,
}

/// Moves [`accuracy_of`] weighs at a time (even: a block starts with the first mover's move), so
/// a game of any length costs a bounded list of win percentages.
const BLOCK: usize = 1 << 12;

/// [`accuracy`], computed in `buffers`.
pub fn accuracy_in(
    evals: &[Option<Score>],
    first_mover: Color,
    buffers: &mut AccuracyBuffers,
) -> Option<ByColor<f64>> {
    accuracy_of(evals.iter().copied(), first_mover, buffers)
}

/// [`accuracy_in`] of evaluations read twice from an iterator (their count first, then a block
/// of 4,096 moves at a time), so a game of any length costs bounded memory; the figures are
/// those of the whole list at once, to the bit.
pub fn accuracy_of<I>(evals: I, first_mover: Color, buffers: &mut AccuracyBuffers) -> Option<ByColor<f64>>
where
    I: Iterator<Item = Option<Score>> + Clone,
{
    accuracy_by_blocks(evals, first_mover, buffers, BLOCK)
}

/// [`accuracy_of`], `block` moves (even, 8 or more) at a time.
fn accuracy_by_blocks<I>(
    evals: I,
    first_mover: Color,
    buffers: &mut AccuracyBuffers,
    block: usize,
) -> Option<ByColor<f64>>
where
    I: Iterator<Item = Option<Score>> + Clone,
{
    debug_assert!(block.is_multiple_of(2) && block >= 8);
    // The evaluations, and the last position with one (position 0 is before the first move): no
    // move after it counts.
    let (mut known, mut last_known) = (0, 0);
    for (i, e) in evals.clone().enumerate() {
        if e.and_then(capped_cp).is_some() {
            (known, last_known) = (known + 1, i + 1);
        }
    }
    let moves = last_known;
    if moves == 0 {
        return None;
    }
    let window = (known / 10).clamp(2, 8).min(moves + 1);
    // Without a gap every move counts: the usual game's loop tests nothing per move.
    let gapless = known == last_known;
    let AccuracyBuffers { wins, deviations, evaluated } = buffers;
    // The table taken once: read through `win_percent`, each move tested the lazy table's state.
    let table: &WinPercents = &WIN_PERCENTS;
    // White's win percentage of positions `start..`; a missing evaluation's carries on.
    let (mut start, mut last) = (0, win_percent_in(table, INITIAL_CP));
    wins.clear();
    evaluated.clear();
    wins.push(last);
    evaluated.push(true);
    let mut evals = evals.map(|e| e.and_then(capped_cp));
    let weight = |d: f64| d.clamp(0.5, 12.0);
    let (mut sums, mut first_weight) = ([(0usize, -0.0f64, -0.0f64, -0.0f64); 2], 0.0);
    let mut base = 0;
    while base < moves {
        // Moves `base..end`, between positions `base..=end`.
        let end = (base + block).min(moves);
        for cp in evals.by_ref().take(end + 1 - start - wins.len()) {
            if let Some(cp) = cp {
                last = win_percent_in(table, cp);
            }
            wins.push(last);
            evaluated.push(cp.is_some());
        }
        // A move's window ends at the position after it; the moves before the first window
        // take its weight.
        let own = base.max(window - 2);
        deviations.clear();
        window_deviations(&wins[own + 2 - window - start..=end - start], window, deviations);
        if base == 0 {
            first_weight = weight(deviations[0]);
        }
        let weights =
            std::iter::repeat_n(first_weight, own - base).chain(deviations.iter().map(|&d| weight(d)));
        let pairs = &wins[base - start..=end - start];
        let white_first = first_mover.is_white();
        if gapless {
            side_sums(&mut sums, pairs, weights, white_first, |_| true);
        } else {
            let at = &evaluated[base - start..];
            side_sums(&mut sums, pairs, weights, white_first, |i| at[i] && at[i + 1]);
        }
        // The next block's first window starts `window - 2` positions before its first move.
        let keep = end + 2 - window;
        wins.drain(..keep - start);
        evaluated.drain(..keep - start);
        (start, base) = (keep, end);
    }
    let by_side = |side: Color| sums[usize::from(side != first_mover)];
    let (white, black) = (by_side(Color::White), by_side(Color::Black));
    if white.0 == 0 || black.0 == 0 {
        return None;
    }
    Some(ByColor::new_with(|side| {
        let (moves, weighted, weights, inverses) = by_side(side);
        ((weighted / weights) + (moves as f64 / inverses)) / 2.0
    }))
}

/// A side's sums for [`accuracy`]: its moves, accuracy times weight, weights and inverse
/// accuracies.
type SideSums = (usize, f64, f64, f64);

/// Adds to `totals` the sums of the first mover's moves (the even ones) and of the other side's
/// over the moves between `wins` (White's win percentages) with their `weights`, of the moves
/// `counts` keeps (by index).
#[inline(always)]
fn side_sums(
    totals: &mut [SideSums; 2],
    wins: &[f64],
    mut weights: impl Iterator<Item = f64>,
    white_first: bool,
    counts: impl Fn(usize) -> bool,
) {
    // Each side's sums added in move order. Two independent sums instead of one indexed by the
    // side measured a third of accuracy's time in the dependency through it.
    let mut sums = *totals;
    let mut add = |k: usize, white: bool, pair: &[f64], weight: f64| {
        // White's win percentages; Black's loss is their rise, taken as lila does.
        let (before, after) = if white { (pair[0], pair[1]) } else { (pair[1], pair[0]) };
        let a = move_accuracy(before, after);
        let s = &mut sums[k];
        s.0 += 1;
        s.1 += a * weight;
        s.2 += weight;
        s.3 += 1.0 / a.max(1.0);
    };
    let mut pairs = wins.windows(2).enumerate();
    while let (Some((i, p)), Some(w)) = (pairs.next(), weights.next()) {
        if counts(i) {
            add(0, white_first, p, w);
        }
        let (Some((i, p)), Some(w)) = (pairs.next(), weights.next()) else { break };
        if counts(i) {
            add(1, !white_first, p, w);
        }
    }
    *totals = sums;
}

/// The [`standard_deviation`] of each window of `window` of `xs` (`xs.windows(window)`), in
/// order, into `out`: four windows at a time, each lane adding its window's terms in the same
/// order as the scalar function, so the figures are the same to the bit (the lanes share the
/// vector instructions; one window at a time, the divisions and roots took about a third of
/// accuracy's samples).
fn window_deviations(xs: &[f64], window: usize, out: &mut Vec<f64>) {
    const LANES: usize = 4;
    let n = window as f64;
    let count = xs.len() + 1 - window;
    let mut start = 0;
    while start + LANES <= count {
        let (mut sum, mut squares) = ([0.0f64; LANES], [0.0f64; LANES]);
        for k in 0..window {
            let x = &xs[start + k..start + k + LANES];
            for j in 0..LANES {
                sum[j] += x[j];
            }
        }
        let mean = sum.map(|s| s / n);
        for k in 0..window {
            let x = &xs[start + k..start + k + LANES];
            for j in 0..LANES {
                squares[j] += (x[j] - mean[j]) * (x[j] - mean[j]);
            }
        }
        out.extend(squares.map(|q| (q / n).sqrt()));
        start += LANES;
    }
    out.extend(xs[start..].windows(window).map(standard_deviation));
}

/// The population standard deviation.
fn standard_deviation(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt()
}
