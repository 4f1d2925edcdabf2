use super::*;
use crate::chess::Position;
use crate::pgn::RawComment;
use crate::pipeline::replay::{Game, Games, Hooks, Lines, Played};

use Judgement::{Blunder, Inaccuracy, Mistake};

const W: Color = Color::White;
const B: Color = Color::Black;

fn cp(cp: i32) -> Score {
    Score::Cp(cp)
}

fn mate(n: i32) -> Score {
    Score::Mate(n)
}

#[test]
fn winning_chances_follow_the_logistic_curve() {
    assert_eq!(wc(0), 0.0);
    for x in [1, 15, 100, 564, 4473, 20_000] {
        assert!((wc(-x) + wc(x)).abs() < 1e-15);
        assert!(wc(x) > wc(x - 1) || wc(x) == 1.0);
    }
    // 2 / (1 + e^-0.368208) - 1, and the saturation of a huge score.
    assert!((wc(100) - 0.182_052).abs() < 1e-6, "{}", wc(100));
    assert_eq!(wc(i32::MAX), 1.0);
    assert_eq!(wc(i32::MIN), -1.0);
}

#[test]
fn thresholds_are_inclusive_at_a_tenth_a_fifth_and_three_tenths() {
    let below = |x: f64| x - 1e-12;
    assert_eq!(Judgement::from_delta(below(0.1)), None);
    assert_eq!(Judgement::from_delta(0.1), Some(Inaccuracy));
    assert_eq!(Judgement::from_delta(below(0.2)), Some(Inaccuracy));
    assert_eq!(Judgement::from_delta(0.2), Some(Mistake));
    assert_eq!(Judgement::from_delta(below(0.3)), Some(Mistake));
    assert_eq!(Judgement::from_delta(0.3), Some(Blunder));
    assert_eq!(Judgement::from_delta(2.0), Some(Blunder));
}

#[test]
fn centipawn_judgements_just_under_and_over_each_threshold() {
    // From an equal position, the loss is wc(|after|): 0.1 lies between 54 and 55 cp, 0.2 between
    // 110 and 111, 0.3 between 168 and 169.
    let cases = [(54, None), (55, Some(Inaccuracy)), (110, Some(Inaccuracy)), (111, Some(Mistake))];
    let cases = cases.into_iter().chain([(168, Some(Mistake)), (169, Some(Blunder))]);
    for (loss, expected) in cases {
        let delta = wc(loss);
        assert_eq!(Judgement::from_delta(delta), expected, "{loss} cp: {delta}");
        assert_eq!(judge(cp(0), cp(-loss), W, false), expected, "White loses {loss} cp");
        assert_eq!(judge(cp(0), cp(loss), B, false), expected, "Black loses {loss} cp");
        // The same change for the other side is a gain: never judged.
        assert_eq!(judge(cp(0), cp(-loss), B, false), None);
        assert_eq!(judge(cp(0), cp(loss), W, false), None);
    }
    let a = advise(cp(0), cp(-200), W, false).unwrap();
    assert_eq!(
        (a.judgement, a.reason, a.nag(), a.text()),
        (Blunder, Reason::WinningChances, Nag(4), "Blunder")
    );
}

#[test]
fn judgements_use_the_engine_centipawns_uncapped() {
    // lichess: `44... Bd7? { (5.64 → 44.73) Mistake. Ba4 was best. }` (Carlsen-Grischuk, Norway
    // Chess 2015). With both capped at 1000 cp the loss would be 0.17, an inaccuracy.
    assert_eq!(judge(cp(564), cp(4473), B, false), Some(Mistake));
    assert!(wc(1000) - wc(564) < 0.2);
}

#[test]
fn a_mate_created_against_the_mover_is_judged_by_the_evaluation_before() {
    // White to move, then mated by force.
    let cases = [(-1000, Inaccuracy), (-999, Mistake), (-701, Mistake), (-700, Blunder), (0, Blunder)];
    for (before, expected) in cases.into_iter().chain([(500, Blunder)]) {
        let a = advise(cp(before), mate(-3), W, false).unwrap();
        assert_eq!((a.judgement, a.reason), (expected, Reason::MateCreated), "White from {before}");
        assert_eq!(a.text(), "Checkmate is now unavoidable");
        // The same for Black, White's view mirrored.
        let a = advise(cp(-before), mate(3), B, false).unwrap();
        assert_eq!((a.judgement, a.reason), (expected, Reason::MateCreated), "Black from {before}");
    }
}

#[test]
fn a_forced_mate_lost_is_judged_by_the_evaluation_after() {
    let cases = [(1000, Inaccuracy), (999, Mistake), (701, Mistake), (700, Blunder), (-300, Blunder)];
    for (after, expected) in cases {
        let a = advise(mate(4), cp(after), W, false).unwrap();
        assert_eq!((a.judgement, a.reason), (expected, Reason::MateLost), "White to {after}");
        assert_eq!(a.text(), "Lost forced checkmate sequence");
        let a = advise(mate(-4), cp(-after), B, false).unwrap();
        assert_eq!((a.judgement, a.reason), (expected, Reason::MateLost), "Black to {after}");
    }
    // From mating to being mated: a blunder (no centipawns after, counted as 0).
    assert_eq!(
        advise(mate(2), mate(-5), W, false).map(|a| (a.judgement, a.reason)),
        Some((Blunder, Reason::MateLost))
    );
    assert_eq!(
        advise(mate(-2), mate(5), B, false).map(|a| (a.judgement, a.reason)),
        Some((Blunder, Reason::MateLost))
    );
}

#[test]
fn a_mate_merely_delayed_an_escape_and_a_mating_move_are_not_judged() {
    // Still mating, only slower.
    assert_eq!(advise(mate(2), mate(9), W, false), None);
    assert_eq!(advise(mate(-2), mate(-9), B, false), None);
    // Already being mated: mated sooner, or escaping.
    assert_eq!(advise(mate(-9), mate(-1), W, false), None);
    assert_eq!(advise(mate(-3), cp(-800), W, false), None);
    assert_eq!(advise(mate(3), cp(800), B, false), None);
    // Finding a mate is never a mistake.
    assert_eq!(advise(cp(300), mate(4), W, false), None);
    assert_eq!(advise(cp(-300), mate(-4), B, false), None);
    // The mating move itself: the mated position has no evaluation on lichess.
    assert_eq!(advise(mate(1), mate(0), W, false), None);
    assert_eq!(advise(cp(-5000), mate(0), B, false), None);
}

#[test]
fn the_engine_best_move_is_never_judged() {
    assert_eq!(judge(cp(0), cp(-900), W, true), None);
    assert_eq!(judge(cp(-200), mate(-1), W, true), None);
    assert_eq!(judge(mate(-3), cp(200), B, true), None);
    assert_eq!(judge(cp(0), cp(-900), W, false), Some(Blunder));
}

#[test]
fn the_first_move_is_judged_against_fifteen_centipawns_for_white() {
    // White's first move to -0.42: a loss of 0.105 from +0.15, of only 0.077 from 0.00.
    assert_eq!(judge(cp(0), cp(-42), W, false), None);
    assert_eq!(judge_evals(&[Some(cp(-42))], W)[0].map(|a| a.judgement), Some(Inaccuracy));
    // Black moving first (a FEN game): +0.15 for White still, so +0.60 costs Black 0.082.
    assert_eq!(judge(cp(0), cp(60), B, false), Some(Inaccuracy));
    assert_eq!(judge_evals(&[Some(cp(60))], B)[0], None);
    let mut judge = Judge::new(B);
    assert_eq!(judge.next(Some(cp(15)), false), None);
    // White then, in the second ply.
    assert_eq!(judge.next(Some(cp(-300)), false).map(|a| a.judgement), Some(Blunder));
}

#[test]
fn a_move_next_to_a_missing_evaluation_is_not_judged() {
    let evals = [Some(cp(20)), None, Some(cp(900)), Some(cp(900)), Some(cp(-900))];
    let judged: Vec<_> = judge_evals(&evals, W).iter().map(|a| a.map(|a| a.judgement)).collect();
    assert_eq!(judged, [None, None, None, None, Some(Blunder)]);
}

#[test]
fn comments_and_nags_are_lichess_words() {
    let mut out = String::new();
    for (judgement, nag, glyph, word) in
        [(Inaccuracy, 6, "?!", "Inaccuracy"), (Mistake, 2, "?", "Mistake"), (Blunder, 4, "??", "Blunder")]
    {
        assert_eq!(
            (judgement.nag(), judgement.nag().glyph(), judgement.word()),
            (Nag(nag), Some(glyph), word)
        );
        out.clear();
        Advice { judgement, reason: Reason::WinningChances }.write_comment(Some("a3"), &mut out);
        assert_eq!(out, format!("{word}. a3 was best."));
    }
    out.clear();
    Advice { judgement: Mistake, reason: Reason::MateCreated }.write_comment(Some("Rb4"), &mut out);
    assert_eq!(out, "Checkmate is now unavoidable. Rb4 was best.");
    out.clear();
    Advice { judgement: Blunder, reason: Reason::MateLost }.write_comment(None, &mut out);
    assert_eq!(out, "Lost forced checkmate sequence.");
    assert_eq!(eval_score(EvalScore::Mate(-4)), mate(-4));
    assert_eq!(eval_score(EvalScore::Cp(17)), cp(17));
}

/// A game as lichess's JSON export gives its analysis: one token per ply, the evaluation after
/// it (`52` centipawns, `#15` mate, White's view), then `*` when lichess's engine preferred
/// another move, or the judgement lichess made (`?!`, `?`, `??`), then `C`/`L` for a judgement
/// by the mate-created/mate-lost rule. Tokens without a suffix are moves equal to the engine's.
struct LichessGame {
    name: &'static str,
    plies: &'static str,
    /// Lichess's count of inaccuracies, mistakes and blunders, White's then Black's.
    counts: ([u32; 3], [u32; 3]),
    acpl: (u32, u32),
    /// Lichess's accuracy figures, where the export gives them.
    accuracy: Option<(u32, u32)>,
}

/// Four games exported by lichess with their analysis; the figures are lichess's.
const LICHESS_GAMES: [LichessGame; 4] = [
    // lichess-org/api `doc/specs/examples/games-exportOneGame.json.yaml`: game q7ZvsdUF.
    LichessGame {
        name: "q7ZvsdUF",
        plies: "8 7 10 14 2 9 5 85?! 96 98 88 87 81 88 82 90 79 160?! 146 151 149 160 151 150 164 190 44? \
                61 59 54 -34?! 158?? 142 183 177 340? 169? 200 120?! 167 147 200* 92?! 102 95 95 61 79 72 \
                201? 190 183 106?! 108 93 101 101 107 100 105 103 118 117 116 83 95 90 94 94 93 88 102 79 \
                120 114 124 108 133 100 156* 198 179 167 227* 225 209 207 192 173 243?! 219 234 201 342? \
                318 342 307 323 270 313 279 303 286 277 215 213 8?? 8 8 8 21 54 42 57 25 63 8?! 8 8 8 8 8 \
                8 8 8",
        counts: ([5, 2, 1], [3, 3, 1]),
        acpl: (26, 26),
        accuracy: Some((90, 90)),
    },
    // lichess-org/mobile `test/model/game/game_test.dart`: game CCW6EEru (lichess.dev).
    LichessGame {
        name: "CCW6EEru",
        plies: "32 41 39 20 17 21 -21 -14 -23 -24 -24 52?! -56?! 177?? -19?? -16 -20 -12 -145? 72?? -36?! \
                -41 -42 593?? 589 630 -32?? 602?? 581 656 662 #15??C 566??L 574 566 580 569 774?! 739 743 \
                615 934?! 861",
        counts: ([2, 1, 3], [3, 0, 5]),
        acpl: (90, 135),
        accuracy: None,
    },
    // lichess-org/mobile `test/model/game/game_repository_test.dart`: game NchH5KBj.
    LichessGame {
        name: "NchH5KBj",
        plies: "28 82* 66 80 71 63 75 60 80 136* 53?! 63 -16?! 131? -10? -27 -20 -31 -57 20?! -138? -91 \
                -107 538?? 506 515 515 745?! 739 792 753 800 745 858 575?! 730 685 737 621 645 578 977?! \
                700 716 730 1054 1014",
        counts: ([3, 2, 0], [3, 1, 1]),
        acpl: (60, 105),
        accuracy: None,
    },
    // The same file: game 1vdsvmxp, three-check (its last move won; no evaluation after it).
    LichessGame {
        name: "1vdsvmxp",
        plies: "340 359 231 300?! 262 286 184?! 235 193 243 269 219 -358?? -376 -386 -383 -405 -363 -372 \
                -369 -345 -276 -507? -49?? -170 #7??C #6 #6 #5 #3 #2 #2 #1 #1",
        counts: ([1, 1, 1], [1, 0, 2]),
        acpl: (75, 115),
        accuracy: None,
    },
];

/// One ply of a [`LichessGame`]: evaluation, engine preferred another move, lichess's advice.
fn parse_ply(token: &str) -> (Score, bool, Option<Advice>) {
    let end = token.find(['*', '?']).unwrap_or(token.len());
    let (value, suffix) = token.split_at(end);
    let score = match value.strip_prefix('#') {
        Some(n) => mate(n.parse().unwrap()),
        None => cp(value.parse().unwrap()),
    };
    let (glyph, reason) = match suffix.strip_suffix('C').or(suffix.strip_suffix('L')) {
        Some(glyph) if suffix.ends_with('C') => (glyph, Reason::MateCreated),
        Some(glyph) => (glyph, Reason::MateLost),
        None => (suffix, Reason::WinningChances),
    };
    let advice = match glyph {
        "" | "*" => None,
        glyph => {
            let judgement = Judgement::ALL.into_iter().find(|j| j.nag().glyph() == Some(glyph)).unwrap();
            Some(Advice { judgement, reason })
        }
    };
    (score, !suffix.is_empty(), advice)
}

#[test]
fn judgements_acpl_and_accuracy_match_games_lichess_exported() {
    for game in &LICHESS_GAMES {
        let plies: Vec<_> = game.plies.split_whitespace().map(parse_ply).collect();
        let mut judge = Judge::new(W);
        let mut counts: ByColor<[u32; 3]> = ByColor::default();
        for (i, &(score, differs, expected)) in plies.iter().enumerate() {
            let advice = judge.next(Some(score), !differs);
            assert_eq!(advice, expected, "{} ply {}: {score:?}", game.name, i + 1);
            if let Some(a) = advice {
                counts[if i % 2 == 0 { W } else { B }][a.judgement as usize] += 1;
            }
        }
        assert_eq!((counts.white, counts.black), game.counts, "{} judgements", game.name);
        let evals: Vec<_> = plies.iter().map(|&(s, _, _)| Some(s)).collect();
        let acpl = acpl(&evals, W);
        assert_eq!((acpl.white, acpl.black), (Some(game.acpl.0), Some(game.acpl.1)), "{} ACPL", game.name);
        let ByColor { white, black } = accuracy(&evals, W).unwrap();
        assert!((0.0..=100.0).contains(&white) && (0.0..=100.0).contains(&black));
        if let Some((w, b)) = game.accuracy {
            assert_eq!(
                (white.round() as u32, black.round() as u32),
                (w, b),
                "{} accuracy {white} {black}",
                game.name
            );
        }
        println!("{}: {} plies, accuracy {white:.2} {black:.2}", game.name, plies.len());
    }
}

#[test]
fn from_evals_differs_from_lichess_only_where_the_best_move_still_lost() {
    // Without the engine's best move every move is judged: a move lichess's engine would also
    // have played, that still loses by the next evaluation, is judged where lichess is silent.
    let mut extra = Vec::new();
    for game in &LICHESS_GAMES {
        let plies: Vec<_> = game.plies.split_whitespace().map(parse_ply).collect();
        let evals: Vec<_> = plies.iter().map(|&(s, _, _)| Some(s)).collect();
        for (i, (ours, &(_, differs, theirs))) in judge_evals(&evals, W).into_iter().zip(&plies).enumerate() {
            if ours != theirs {
                assert!(!differs && theirs.is_none(), "{} ply {}", game.name, i + 1);
                extra.push((game.name, i + 1, ours.map(|a| a.judgement)));
            }
        }
    }
    // In the three-check game: 2. Nc3 (+3.59 -> +2.31) and 13. Rxe6 (-0.49 -> -1.70).
    assert_eq!(extra, [("1vdsvmxp", 3, Some(Inaccuracy)), ("1vdsvmxp", 25, Some(Mistake))]);
}

/// lila's own tests of the game accuracy (`modules/analyse/src/test/AccuracyPercentTest.scala`):
/// centipawn sequences, the expected figures and their tolerances.
#[test]
fn accuracy_matches_lila_unit_tests() {
    let run = |first: Color, cps: &[i32]| {
        let evals: Vec<_> = cps.iter().map(|&c| Some(cp(c))).collect();
        let a = accuracy(&evals, first);
        (a.map(|a| a.white), a.map(|a| a.black))
    };
    let close =
        |got: Option<f64>, want: f64, tolerance: f64| got.is_some_and(|g| (g - want).abs() <= tolerance);
    assert_eq!(run(W, &[]), (None, None));
    assert_eq!(run(B, &[]), (None, None));
    assert_eq!(run(W, &[15]), (None, None));
    assert_eq!(run(B, &[15]), (None, None));
    let repeat = |pair: [i32; 2], n: usize| pair.iter().copied().cycle().take(2 * n).collect::<Vec<_>>();
    let twenty = vec![15; 20];
    // First mover, centipawns, White's figure and tolerance, Black's.
    type Case = (Color, Vec<i32>, (f64, f64), (f64, f64));
    let cases: [Case; 14] = [
        (W, vec![15, 15], (100.0, 1.0), (100.0, 1.0)),
        (W, vec![-900, -900], (10.0, 5.0), (100.0, 1.0)),
        (W, vec![15, 900], (100.0, 1.0), (10.0, 5.0)),
        (W, vec![-900, 0], (10.0, 5.0), (10.0, 5.0)),
        (W, twenty.clone(), (100.0, 1.0), (100.0, 1.0)),
        (W, [twenty.clone(), vec![-900]].concat(), (50.0, 5.0), (100.0, 1.0)),
        (W, [vec![15; 21], vec![900]].concat(), (100.0, 1.0), (50.0, 5.0)),
        (W, repeat([-50, 15], 5), (76.0, 8.0), (76.0, 8.0)),
        (W, repeat([-50, 15], 50), (76.0, 8.0), (76.0, 8.0)),
        (W, repeat([-135, 15], 50), (54.0, 8.0), (54.0, 8.0)),
        (W, repeat([-435, 15], 50), (20.0, 8.0), (20.0, 8.0)),
        (B, vec![15, 15], (100.0, 1.0), (100.0, 1.0)),
        (B, vec![900, 900], (100.0, 1.0), (10.0, 5.0)),
        (B, vec![900, 0], (10.0, 5.0), (10.0, 5.0)),
    ];
    for (first, cps, (white, wt), (black, bt)) in cases {
        let (w, b) = run(first, &cps);
        assert!(close(w, white, wt) && close(b, black, bt), "{first:?} {cps:?}: {w:?} {b:?}");
    }
    let (w, b) = run(B, &[15, -900]);
    assert!(close(b, 100.0, 1.0) && close(w, 10.0, 5.0), "{w:?} {b:?}");
}

/// A side's accuracy from its counted moves' (accuracy, weight): the mean of the weighted mean and
/// the harmonic mean.
fn side_accuracy(moves: &[(f64, f64)]) -> f64 {
    let weighted = moves.iter().map(|(a, w)| a * w).sum::<f64>() / moves.iter().map(|(_, w)| w).sum::<f64>();
    let harmonic = moves.len() as f64 / moves.iter().map(|(a, _)| 1.0 / a.max(1.0)).sum::<f64>();
    (weighted + harmonic) / 2.0
}

#[test]
fn a_blunder_after_a_missing_evaluation_counts_against_its_mover() {
    // 1. e4 e5 2. Nf3 (no evaluation) Nc6 3. Bc4 (+0.20 -> -5.00) and six moves at -5.00. 2. Nf3
    // and 2... Nc6 count for nobody; 9 evaluations make windows of 2 positions, whose weight is
    // half their difference clamped to [0.5, 12]: 19 points for 3. Bc4, 12.
    let mut evals = vec![Some(cp(20)), Some(cp(20)), None, Some(cp(20))];
    evals.extend([Some(cp(-500)); 6]);
    let a = accuracy(&evals, W).expect("both sides have moves");
    let blunder = move_accuracy(win_percent(20), win_percent(-500));
    // White: 1. e4, 3. Bc4, 4. d3, 5. O-O; Black loses nothing.
    let white = side_accuracy(&[(100.0, 0.5), (blunder, 12.0), (100.0, 0.5), (100.0, 0.5)]);
    assert!((a.white - white).abs() < 1e-9, "{} {white}", a.white);
    assert_eq!((a.white.round(), a.black), (36.0, 100.0));
    // With 2. Nf3's evaluation it counts too, one more perfect move; the blunder weighs the same.
    let mut full = evals.clone();
    full[2] = Some(cp(20));
    let f = accuracy(&full, W).expect("both sides have moves");
    let white = side_accuracy(&[(100.0, 0.5), (100.0, 0.5), (blunder, 12.0), (100.0, 0.5), (100.0, 0.5)]);
    assert!((f.white - white).abs() < 1e-9 && f.white > a.white, "{} {white}", f.white);
    assert_eq!((f.white.round(), f.black), (40.0, 100.0));

    // Black first, White's 1. move without an evaluation, then Black's blunder (-0.20 -> +6.00).
    let mut evals = vec![Some(cp(-20)), None, Some(cp(-20)), Some(cp(-20)), Some(cp(600))];
    evals.extend([Some(cp(600)); 3]);
    let a = accuracy(&evals, B).expect("both sides have moves");
    // Black's loss is White's rise; Black: 1... (+0.15 -> -0.20, 1.6 points), 3..., 4...;
    // White: 2., 3., 4.
    let blunder = move_accuracy(win_percent(600), win_percent(-20));
    let first = (win_percent(15) - win_percent(-20)) / 2.0;
    assert!((1.5..1.7).contains(&first), "{first}");
    let black = side_accuracy(&[(100.0, first), (blunder, 12.0), (100.0, 0.5)]);
    assert!((a.black - black).abs() < 1e-9, "{} {black}", a.black);
    assert!(a.black < 40.0 && a.white == 100.0, "{a:?}");
}

/// The accuracy rule written plainly, one list at a time: White's win percentage of every
/// position, a missing one the one before it; a move's weight from the window of positions ending
/// at it; a move counted for its mover when both its positions have an evaluation.
fn plain_accuracy(evals: &[Option<Score>], first: Color) -> Option<(f64, f64)> {
    let known: Vec<Option<f64>> = std::iter::once(capped_cp(INITIAL_EVAL))
        .chain(evals.iter().map(|e| e.and_then(capped_cp)))
        .map(|c| c.map(win_percent))
        .collect();
    let wins: Vec<f64> = known
        .iter()
        .scan(0.0, |last, k| {
            *last = k.unwrap_or(*last);
            Some(*last)
        })
        .collect();
    let window = (known[1..].iter().flatten().count() / 10).clamp(2, 8).min(wins.len());
    let weight = |i: usize| {
        let end = (i + 2).max(window);
        standard_deviation(&wins[end - window..end]).clamp(0.5, 12.0)
    };
    let mut sides = [Vec::new(), Vec::new()];
    for i in 0..evals.len() {
        if let (Some(before), Some(after)) = (known[i], known[i + 1]) {
            let white = (i % 2 == 0) == first.is_white();
            let a = if white { move_accuracy(before, after) } else { move_accuracy(after, before) };
            sides[usize::from(!white)].push((a, weight(i)));
        }
    }
    let [white, black] = sides;
    (!white.is_empty() && !black.is_empty()).then(|| (side_accuracy(&white), side_accuracy(&black)))
}

#[test]
fn accuracy_with_missing_evaluations_follows_the_rule_written_plainly() {
    // Random walks of centipawns (a fixed linear congruential sequence) with mates, missing
    // evaluations and a mated final position, of lengths up to 120 plies (windows up to 8).
    let mut state = 2_024u64;
    let mut next = |n: u64| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let mut buffers = AccuracyBuffers::default();
    let (mut gapped, mut some) = (0, 0);
    for game in 0..3_000 {
        let len = next(121) as usize;
        let gaps = [0, 2, 8, 30][game % 4];
        let mut walk = 15;
        let mut evals: Vec<Option<Score>> = (0..len)
            .map(|_| {
                walk += next(301) as i32 - 150;
                match next(100) {
                    r if r < gaps => None,
                    r if r < gaps + 2 => Some(mate(next(5) as i32 + 1)),
                    r if r < gaps + 4 => Some(mate(-(next(5) as i32) - 1)),
                    _ => Some(cp(walk)),
                }
            })
            .collect();
        if len > 0 && next(8) == 0 {
            evals[len - 1] = Some(mate(0));
        }
        let first = if next(4) == 0 { B } else { W };
        let ours = accuracy_in(&evals, first, &mut buffers);
        let plain = plain_accuracy(&evals, first);
        // A block at a time gives the whole list's figures, to the bit.
        for block in [8, 10, 32] {
            let blocks = accuracy_by_blocks(evals.iter().copied(), first, &mut buffers, block);
            assert_eq!(
                blocks.map(|a| (a.white, a.black)),
                ours.map(|a| (a.white, a.black)),
                "{block} {evals:?}"
            );
        }
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        match (ours, plain) {
            (Some(o), Some((w, b))) => assert!(close(o.white, w) && close(o.black, b), "{evals:?} {first:?}"),
            (o, p) => assert!(o.is_none() && p.is_none(), "{evals:?} {first:?}: {o:?} {p:?}"),
        }
        // Accuracy has the moves ACPL has: a figure for both sides or for none.
        let acpl = acpl(&evals, first);
        assert_eq!(ours.is_some(), acpl.white.is_some() && acpl.black.is_some(), "{evals:?} {first:?}");
        gapped += usize::from(evals.iter().any(|e| e.is_none()));
        some += usize::from(ours.is_some());
    }
    assert!(gapped > 1_000 && some > 2_000, "{gapped} {some}");
}

#[test]
fn move_accuracy_and_win_percent_follow_lila() {
    assert_eq!(win_percent(0), 50.0);
    assert_eq!(win_percent(1000), win_percent(5000));
    assert!((win_percent(-1000) + win_percent(1000) - 100.0).abs() < 1e-12);
    assert_eq!(move_accuracy(40.0, 40.0), 100.0);
    assert_eq!(move_accuracy(40.0, 90.0), 100.0);
    // No loss but a hair: the curve's 100 plus the bonus, capped.
    assert_eq!(move_accuracy(50.0, 50.0 - 1e-9), 100.0);
    // 103.1668 * e^(-0.04354 * 20) - 3.1669 + 1.
    assert!((move_accuracy(60.0, 40.0) - 41.017).abs() < 1e-3, "{}", move_accuracy(60.0, 40.0));
    assert_eq!(move_accuracy(100.0, 0.0), 0.0);
}

#[test]
fn acpl_caps_each_evaluation_and_counts_mates_as_the_cap() {
    // White: +0.15 -> -20.00 (capped -10.00), a loss of 1015, then mate -> +12.00 (both capped at
    // +10.00), none: 507.5 rounds to 508. Black: -10.00 -> mate for White, 2000.
    let evals = [Some(cp(-2000)), Some(mate(3)), Some(cp(1200))];
    let a = acpl(&evals, W);
    assert_eq!((a.white, a.black), (Some(508), Some(2000)));
    // A missing evaluation drops both moves it touches; the mating move counts for nothing.
    let evals = [Some(cp(15)), None, Some(cp(15)), Some(cp(-85)), Some(mate(0))];
    let a = acpl(&evals, W);
    assert_eq!((a.white, a.black), (Some(0), Some(0)));
    assert_eq!(acpl(&[], W), ByColor { white: None, black: None });
    // Black first: its first move is measured from the initial +0.15.
    let a = acpl(&[Some(cp(115)), Some(cp(115))], B);
    assert_eq!((a.white, a.black), (Some(0), Some(100)));
    // Rounding half up.
    let a = acpl(&[Some(cp(14)), Some(cp(14)), Some(cp(12))], W);
    assert_eq!(a.white, Some(2)); // (1 + 2) / 2 = 1.5
}

/// A mainline move of a lichess export as the replay reads it.
#[derive(Debug)]
struct Exported {
    san: String,
    eval: Option<Score>,
    /// lichess's `$2`/`$4`/`$6`.
    nag: Option<Nag>,
    /// The first sentence of lichess's judgement comment, without the full stop.
    said: Option<&'static str>,
}

/// The games of a file as moves with what lichess wrote about them.
#[derive(Default)]
struct Collect {
    games: Vec<(Color, Vec<Exported>)>,
    first: Option<Color>,
    moves: Vec<Exported>,
}

/// The sentences lichess's judgement comments start with.
const SAID: [&str; 5] =
    ["Inaccuracy", "Mistake", "Blunder", "Checkmate is now unavoidable", "Lost forced checkmate sequence"];

impl<'a> Hooks<'a> for Collect {
    fn moves(&self) -> Lines {
        Lines::Mainline
    }
    fn start(&mut self, _: &Game<'a>, pos: &Position) {
        self.first = Some(pos.turn());
        self.moves.clear();
    }
    fn played(&mut self, _: &Game<'a>, played: &Played<'a, '_>) {
        let san = String::from_utf8_lossy(played.token.raw).into_owned();
        self.moves.push(Exported { san, eval: None, nag: None, said: None });
    }
    fn nag(&mut self, _: &Game<'a>, depth: u32, nag: Nag, _: u64) {
        if let Some(m) = self.moves.last_mut().filter(|_| depth == 0 && matches!(nag.0, 2 | 4 | 6)) {
            assert!(m.nag.replace(nag).is_none(), "two judgement NAGs on {}", m.san);
        }
    }
    fn comment(&mut self, _: &Game<'a>, depth: u32, comment: RawComment<'a>) {
        let Some(m) = self.moves.last_mut().filter(|_| depth == 0) else { return };
        if let Some(eval) = comment.eval() {
            m.eval = Some(eval_score(eval.score));
        }
        let text = String::from_utf8_lossy(comment.text());
        // The earliest judgement sentence (an older export puts `(0.39 → -4.17) ` before it).
        let said = SAID.iter().filter_map(|s| text.find(&format!("{s}.")).map(|at| (at, *s))).min();
        if let Some((_, said)) = said {
            assert!(m.said.replace(said).is_none(), "two judgements on {}", m.san);
        }
    }
    fn end(&mut self, _: &Game<'a>, _: Option<&Position>) {
        if let Some(first) = self.first.take() {
            self.games.push((first, std::mem::take(&mut self.moves)));
        }
    }
}

/// What the comparison of pgnkit's `--from-evals` judgements with lichess's found in a file.
#[derive(Debug, Default, PartialEq)]
struct Comparison {
    games: usize,
    moves: usize,
    with_eval: usize,
    lichess_judged: usize,
    pgnkit_judged: usize,
    agree: usize,
    differences: Vec<String>,
}

fn compare(name: &str, pgn: &str) -> Comparison {
    let mut games = Games::new(Collect::default(), pgn.as_bytes());
    while games.next_game() {}
    let mut c = Comparison::default();
    for (first, moves) in games.into_hooks().games {
        c.games += 1;
        let evals: Vec<_> = moves.iter().map(|m| m.eval).collect();
        for (i, (m, ours)) in moves.iter().zip(judge_evals(&evals, first)).enumerate() {
            c.moves += 1;
            c.with_eval += usize::from(m.eval.is_some());
            let theirs = (m.nag, m.said);
            c.lichess_judged += usize::from(theirs != (None, None));
            c.pgnkit_judged += usize::from(ours.is_some());
            if theirs == (ours.map(Advice::nag), ours.map(Advice::text)) {
                c.agree += usize::from(ours.is_some());
                continue;
            }
            let before = if i == 0 { Some(INITIAL_EVAL) } else { evals[i - 1] };
            c.differences.push(format!(
                "{name} game {} ply {} {}: {before:?} -> {:?}: lichess {theirs:?}, pgnkit {ours:?}",
                c.games,
                i + 1,
                m.san,
                m.eval
            ));
        }
    }
    println!(
        "{name}: {} games, {} moves ({} with [%eval]), lichess judged {}, pgnkit judged {}, agree {}, differ {}",
        c.games,
        c.moves,
        c.with_eval,
        c.lichess_judged,
        c.pgnkit_judged,
        c.agree,
        c.differences.len()
    );
    for d in &c.differences {
        println!("  {d}");
    }
    c
}

#[test]
fn from_evals_judges_the_moves_lichess_judged_in_the_committed_export() {
    // A lichess game export with its analysis (notnil/chess fixtures): judgements written as
    // `(0.39 → -4.17) Blunder. c3 was best.`, one of them a mate created.
    let c = compare("notnil-chess__0005", include_str!("../../../fixtures/pgn/notnil-chess__0005.pgn"));
    assert_eq!((c.games, c.moves, c.with_eval), (1, 41, 40));
    assert_eq!(c.lichess_judged, 15);
    assert_eq!((c.pgnkit_judged, c.agree), (15, 15), "{:#?}", c.differences);
    assert!(c.differences.is_empty());
}

#[test]
fn from_evals_judges_the_moves_lichess_judged_in_the_shared_exports() {
    let files = [
        "variants/chess960/freestyle_lasvegas_grandfinal_30+30_lichess_broadcast.pgn",
        "malformed_and_tricky/notnil-chess/0005.pgn",
        "malformed_and_tricky/chess-library/comment_before_moves.pgn",
        "malformed_and_tricky/chess-library/fuzz_magnus-grischuk.pgn",
    ];
    let mut total = Comparison::default();
    for rel in files {
        let Some(pgn) = crate::read_shared_data(rel) else { return };
        let c = compare(rel, &pgn);
        assert!(c.lichess_judged > 0, "{rel}: no judgement read");
        total.games += c.games;
        total.moves += c.moves;
        total.with_eval += c.with_eval;
        total.lichess_judged += c.lichess_judged;
        total.pgnkit_judged += c.pgnkit_judged;
        total.agree += c.agree;
        total.differences.extend(c.differences);
    }
    println!(
        "total: {} games, {} moves, lichess judged {}, pgnkit judged {}, agree {}",
        total.games, total.moves, total.lichess_judged, total.pgnkit_judged, total.agree
    );
    assert_eq!(total.pgnkit_judged, total.lichess_judged);
    assert_eq!(total.agree, total.lichess_judged, "{:#?}", total.differences);
    assert!(total.differences.is_empty());
}

#[test]
fn window_deviations_are_the_scalar_ones_to_the_bit() {
    // Win percentages of a walk of centipawns (a fixed linear congruential sequence).
    let mut state = 12_345u64;
    let wins: Vec<f64> = (0..61)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            win_percent((state >> 33) as i32 % 1200 - 600)
        })
        .collect();
    for len in 1..wins.len() {
        for window in 1..=len.min(8) {
            let mut out = Vec::new();
            window_deviations(&wins[..len], window, &mut out);
            let scalar: Vec<u64> =
                wins[..len].windows(window).map(|w| standard_deviation(w).to_bits()).collect();
            assert_eq!(out.iter().map(|d| d.to_bits()).collect::<Vec<_>>(), scalar, "{len} {window}");
        }
    }
}

/// Judgement comments are read in pgnkit's form and lichess's, the best move when one alone is
/// named; other comments are not judgements.
#[test]
fn judgement_comments_are_pgnkits_and_lichess_forms() {
    let cases: [(&str, Option<Option<&str>>); 11] = [
        ("Mistake. Nf3 was best.", Some(Some("Nf3"))),
        ("Inaccuracy.", Some(None)),
        ("(-0.25 → 0.39) Inaccuracy. cxd4 was best.", Some(Some("cxd4"))),
        ("(0.25 → 1.02) Blunder. Qxd8+ was best.", Some(Some("Qxd8+"))),
        ("(#3 → 1.5) Lost forced checkmate sequence. Qxd8+ was best.", Some(Some("Qxd8+"))),
        ("(0.2 → #-4) Checkmate is now unavoidable.", Some(None)),
        ("Blunder. I should have played Nf3.", Some(None)),
        ("Mistake. Nf3 or Nc3 was best.", Some(None)),
        ("(see move 12) Mistake.", None),
        ("A blunder.", None),
        ("Mistakes were made.", None),
    ];
    for (text, want) in cases {
        let got = read_comment(text.as_bytes()).map(|b| b.map(|b| std::str::from_utf8(b).unwrap()));
        assert_eq!(got, want, "{text}");
    }
}
