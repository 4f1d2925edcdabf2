//! The report's charts as inline SVG, each with a text alternative (`role="img"` and an
//! `aria-label` saying what it shows; the data of the collection's charts is also in a table
//! beside them): a game's evaluation graph (White's winning chances after each move, as lichess
//! draws it, the judged moves marked in their colours and the phases' starts ruled), its clocks,
//! accuracy against rating, and the distribution of the moves' losses.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::escape::escape;
use super::game::{Figures, GameRecord};
use super::stats::{RATING_BUCKET, rating_last, rating_range};
use super::text::bucket_text;
use crate::analysis::Score;
use crate::analysis::judge::{Judgement, wc};
use crate::chess::Color;
use crate::jobs::diagnostics::counted;

/// Width and height of a game's graphs.
const W: f64 = 720.0;
const H: f64 = 160.0;
const CLOCK_H: f64 = 80.0;

/// The colour lichess gives a judgement.
pub const fn judgement_color(j: Judgement) -> &'static str {
    match j {
        Judgement::Inaccuracy => "#56b4e9",
        Judgement::Mistake => "#e69f00",
        Judgement::Blunder => "#db3031",
    }
}

/// The CSS class of a judgement.
pub const fn judgement_class(j: Judgement) -> &'static str {
    match j {
        Judgement::Inaccuracy => "inaccuracy",
        Judgement::Mistake => "mistake",
        Judgement::Blunder => "blunder",
    }
}

/// The judged moves' dots, a marker each judgement, once per page: a graph draws each
/// judgement's moves as one path with the marker at every vertex.
pub fn graph_defs() -> String {
    let mut s = String::from(
        "<svg class=\"board-defs\" width=\"0\" height=\"0\" aria-hidden=\"true\" focusable=\"false\"><defs>\n",
    );
    for j in Judgement::ALL {
        let _ = writeln!(
            s,
            "<marker id=\"j-{}\" markerUnits=\"userSpaceOnUse\" overflow=\"visible\"><circle r=\"4\" fill=\"{}\"/></marker>",
            judgement_class(j),
            judgement_color(j)
        );
    }
    s.push_str("</defs></svg>\n");
    s
}

/// The rules that give each judgement's path its marker.
pub fn graph_css() -> String {
    Judgement::ALL
        .iter()
        .map(|&j| {
            format!(".graph path.{0}{{marker:url(#j-{0});fill:none;stroke:none}}\n", judgement_class(j))
        })
        .collect()
}

/// White's winning chances after move `i`, in [-1, 1]: a mate counts as a whole win, a
/// checkmated position as won by the side that mated.
fn chances(game: &GameRecord, i: usize) -> Option<f64> {
    match game.evals[i]? {
        Score::Cp(cp) => Some(wc(cp)),
        Score::Mate(0) => Some(if game.mover(i).is_white() { 1.0 } else { -1.0 }),
        Score::Mate(n) => Some(if n > 0 { 1.0 } else { -1.0 }),
    }
}

/// The move `i` as players number it: `12.` or `12...`.
pub fn move_label(game: &GameRecord, i: usize) -> String {
    let start = game.start.map_or(1, |p| p.fullmoves());
    let first_black = game.first_mover() == Color::Black;
    let half = i + usize::from(first_black);
    let number = start as usize + half / 2;
    if half.is_multiple_of(2) { format!("{number}.") } else { format!("{number}...") }
}

fn x_of(i: usize, n: usize) -> f64 {
    if n <= 1 { W / 2.0 } else { W * i as f64 / (n - 1) as f64 }
}

/// Judged moves a graph's text alternative names for each judgement, at most.
pub const LABELLED: usize = 50;

/// The column a point is written on: its x rounded as `{:.0}` writes it (ties to even).
fn column(x: f64) -> f64 {
    x.round_ties_even()
}

/// `points` as a line draws them on whole columns: each run of consecutive points on one column
/// cut to its first, lowest, highest and last (in their order), which draw the same vertical
/// stroke. So a graph holds at most four points a column whatever the game's length; a game of
/// at most 721 moves has one point a column and keeps every point.
fn thin(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len().min(4 * (W as usize + 1)));
    let mut i = 0;
    while i < points.len() {
        let x = column(points[i].0);
        let end = i + points[i..].iter().take_while(|p| column(p.0) == x).count();
        let run = &points[i..end];
        let by_y = |&a: &usize, &b: &usize| run[a].1.total_cmp(&run[b].1);
        let (low, high) = ((0..run.len()).min_by(by_y), (0..run.len()).max_by(by_y));
        let mut keep = [0, low.unwrap_or(0), high.unwrap_or(0), run.len() - 1];
        keep.sort_unstable();
        let mut last: Option<usize> = None;
        for k in keep {
            if last.is_none_or(|l| run[l] != run[k]) {
                out.push(run[k]);
            }
            last = Some(k);
        }
        i = end;
    }
    out
}

/// The judged moves `at` (move labels) as a text alternative lists them: the first
/// [`LABELLED`], then how many more.
fn listed(at: &[String]) -> String {
    let mut text = at[..at.len().min(LABELLED)].join(" ");
    if at.len() > LABELLED {
        let _ = write!(text, " and {} more", at.len() - LABELLED);
    }
    text
}

/// Whether the game ends in checkmate: the final position, which no engine evaluates.
fn ends_in_mate(game: &GameRecord) -> bool {
    let Some(mut pos) = game.start else { return false };
    for &m in &game.moves {
        pos.play_unchecked(m);
    }
    pos.is_checkmate()
}

/// White's winning chances after each move as the graph draws them, and whether the game gave
/// each. A checkmate's final position is the mating side's whole win, as lichess draws it; a
/// move without an evaluation takes the straight line between its evaluated neighbours, or the
/// nearest one's value at the start or end (lichess bridges gaps too), so that a missing
/// evaluation never reads as a side winning.
fn curve(game: &GameRecord) -> Vec<(f64, bool)> {
    let n = game.moves.len();
    let mut known: Vec<Option<f64>> = (0..n).map(|i| chances(game, i)).collect();
    if known.last().is_some_and(Option::is_none) && ends_in_mate(game) {
        known[n - 1] = Some(if game.mover(n - 1).is_white() { 1.0 } else { -1.0 });
    }
    let mut out = Vec::with_capacity(n);
    let mut before: Option<(usize, f64)> = None;
    let mut i = 0;
    while i < n {
        if let Some(c) = known[i] {
            out.push((c, true));
            before = Some((i, c));
            i += 1;
            continue;
        }
        let end = i + known[i..].iter().take_while(|c| c.is_none()).count();
        let after = known.get(end).copied().flatten().map(|c| (end, c));
        for k in i..end {
            let c = match (before, after) {
                (Some((a, ca)), Some((b, cb))) => ca + (cb - ca) * (k - a) as f64 / (b - a) as f64,
                (Some((_, c)), None) | (None, Some((_, c))) => c,
                (None, None) => 0.0,
            };
            out.push((c, false));
        }
        i = end;
    }
    out
}

/// The stretches of `points` a line bridges across moves without an evaluation (`given` says
/// which have one), as index ranges: each segment with an end without one, stretches that meet
/// on a column joined, so a graph draws at most one stretch a column.
fn bridged(points: &[(f64, f64)], given: &[bool]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for k in 1..points.len() {
        if given[k - 1] && given[k] {
            continue;
        }
        match runs.last_mut() {
            Some(run) if column(points[k - 1].0) - column(points[run.1].0) <= 1.0 => run.1 = k,
            _ => runs.push((k - 1, k)),
        }
    }
    runs
}

/// A phase label's letters' width at most, in the graph's units (11px DejaVu Sans, the widest
/// of the page's fonts, draws `endgame` 51.9 wide and `middlegame` 68.8).
const LABEL_LETTER: f64 = 7.5;

/// A game's evaluation graph.
pub fn eval_graph(game: &GameRecord, f: &Figures) -> String {
    let n = game.moves.len();
    let mut s = String::with_capacity(4_000);
    let curve = curve(game);
    let points: Vec<(f64, f64)> =
        curve.iter().enumerate().map(|(i, &(c, _))| (x_of(i, n), H / 2.0 - c * H / 2.0)).collect();
    let given: Vec<bool> = curve.iter().map(|&(_, g)| g).collect();
    let bridges = bridged(&points, &given);
    let mut judged: Vec<String> = Vec::new();
    for j in Judgement::ALL {
        let at: Vec<String> =
            (0..n).filter(|&i| f.judgements[i] == Some(j)).map(|i| move_label(game, i)).collect();
        if !at.is_empty() {
            judged.push(format!("{} at {}", j.word().to_lowercase(), listed(&at)));
        }
    }
    let evaluated = game.evals.iter().flatten().count();
    let label = format!(
        "Evaluation graph: White's winning chances after each move ({}, {evaluated} evaluated{}), above the middle line White is better{}{}",
        counted(n as u64, "move", "moves"),
        if bridges.is_empty() { "" } else { "; a dashed line bridges the moves without an evaluation" },
        if judged.is_empty() { String::new() } else { "; ".to_string() },
        judged.join("; ")
    );
    let _ = writeln!(
        s,
        "<svg class=\"graph eval\" viewBox=\"0 0 {W} {H}\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"{}\">",
        escape(&label)
    );
    let _ = writeln!(s, "<rect width={W} height={H} />");
    // White's area: from the bottom up to the curve, in whole pixels (a graph is drawn about as
    // wide as its 720 units).
    if let (Some(first), Some(last)) = (points.first(), points.last()) {
        let mut d = format!("M{:.0},{H}L", first.0);
        for (x, y) in thin(&points) {
            let _ = write!(d, "{x:.0},{y:.0} ");
        }
        let _ = write!(d, "{:.0},{H}Z", last.0);
        let _ = writeln!(s, "<path class=white-side d=\"{d}\"/>");
    }
    if !bridges.is_empty() {
        let mut d = String::new();
        for &(from, to) in &bridges {
            for (k, (x, y)) in thin(&points[from..=to]).into_iter().enumerate() {
                let _ = write!(d, "{}{x:.0},{y:.0}", if k == 0 { "M" } else { " " });
            }
        }
        let _ = writeln!(s, "<path class=unevaluated d=\"{d}\"/>");
    }
    let _ = writeln!(s, "<path class=midline d=M0,{}h{W} />", H / 2.0);
    // A label right of its rule, or left of it where it would leave the graph; one that would
    // cover the label before goes a line lower.
    let mut before: Option<(f64, f64)> = None;
    for (ply, name) in [(game.division.middle, "middlegame"), (game.division.end, "endgame")] {
        if let Some(p) = ply.filter(|&p| p >= 1 && (p as usize) <= n) {
            let x = x_of(p as usize - 1, n);
            let width = LABEL_LETTER * name.len() as f64;
            let (at, anchor, span) = if x + 3.0 + width <= W {
                (x + 3.0, "", (x + 3.0, x + 3.0 + width))
            } else {
                (x - 3.0, " text-anchor=end", (x - 3.0 - width, x - 3.0))
            };
            let y = if before.is_some_and(|(lo, hi)| span.0 < hi && lo < span.1) { 24 } else { 12 };
            before = Some(span);
            let _ = writeln!(
                s,
                "<path class=phase d=M{x:.1},0v{H} /><text x={at:.1} y={y}{anchor}>{name}</text>"
            );
        }
    }
    // Each judgement's moves as one path whose vertices carry its dot ([`graph_defs`]); a dot
    // already on a spot is not drawn again, and a column's dots are [`thin`]ned to its first,
    // lowest, highest and last (only a game of over 721 moves has two on a column).
    // A move without an evaluation gets no dot: the line there is a bridge, not a value.
    for j in Judgement::ALL {
        let mut d = String::new();
        let mut spots = HashSet::new();
        let dots: Vec<(f64, f64)> =
            (0..n).filter(|&i| given[i] && f.judgements[i] == Some(j)).map(|i| points[i]).collect();
        for (x, y) in thin(&dots) {
            if spots.insert((column(x) as i32, column(y) as i32)) {
                let _ = write!(d, "{}{x:.0},{y:.0}", if d.is_empty() { "M" } else { "," });
            }
        }
        if !d.is_empty() {
            let _ = writeln!(s, "<path class={} d={d} />", judgement_class(j));
        }
    }
    s.push_str("</svg>\n");
    s
}

fn clock_text(tenths: u64) -> String {
    let secs = tenths / 10;
    if secs >= 3600 {
        format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// A game's clocks after each move (`None` when no move has a `[%clk]`).
pub fn clock_graph(game: &GameRecord) -> Option<String> {
    let n = game.moves.len();
    let clocks: Vec<Option<u64>> = game.clocks.iter().map(|c| c.map(super::collect::tenths)).collect();
    let max = clocks.iter().flatten().copied().max()?;
    let max = max.max(1) as f64;
    let mut s = String::new();
    let label = format!(
        "Clock graph: each side's time left after each of its moves, from {} at the most",
        clock_text(max as u64)
    );
    let _ = writeln!(
        s,
        "<svg class=\"graph clock\" viewBox=\"0 0 {W} {CLOCK_H}\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"{}\">",
        escape(&label)
    );
    let _ = writeln!(s, "<rect width={W} height={CLOCK_H} />");
    for side in [Color::White, Color::Black] {
        let pts: Vec<(f64, f64)> = (0..n)
            .filter(|&i| game.mover(i) == side)
            .filter_map(|i| clocks[i].map(|c| (x_of(i, n), CLOCK_H - c as f64 / max * (CLOCK_H - 4.0))))
            .collect();
        let pts: Vec<String> = thin(&pts).iter().map(|(x, y)| format!("{x:.0},{y:.0}")).collect();
        if !pts.is_empty() {
            let _ = writeln!(s, "<polyline class=clock-{} points=\"{}\"/>", side.name(), pts.join(" "));
        }
    }
    s.push_str("</svg>\n");
    Some(s)
}

/// A bar chart: one bar per `(label, value)`, heights against `max`, values written above.
fn bars(class: &str, label: &str, data: &[(String, f64, String)], max: f64) -> String {
    let (w, h, base) = (640.0, 220.0, 190.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg class=\"chart {class}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{}\">",
        escape(label)
    );
    let _ = writeln!(s, "<line class=\"axis\" x1=\"0\" y1=\"{base}\" x2=\"{w}\" y2=\"{base}\"/>");
    let slot = w / data.len().max(1) as f64;
    for (k, (name, v, shown)) in data.iter().enumerate() {
        let bh = if max > 0.0 { v / max * (base - 20.0) } else { 0.0 };
        let x = k as f64 * slot + slot * 0.15;
        let _ = writeln!(
            s,
            "<rect class=\"bar\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bh:.1}\"/>",
            base - bh,
            slot * 0.7
        );
        let cx = k as f64 * slot + slot / 2.0;
        let _ = writeln!(
            s,
            "<text class=\"value\" x=\"{cx:.1}\" y=\"{:.1}\">{}</text>",
            base - bh - 4.0,
            escape(shown)
        );
        let _ =
            writeln!(s, "<text class=\"tick\" x=\"{cx:.1}\" y=\"{}\">{}</text>", base + 16.0, escape(name));
    }
    s.push_str("</svg>\n");
    s
}

/// Accuracy against rating: the mean accuracy of the sides in each rating bucket.
pub fn rating_chart(ratings: &std::collections::BTreeMap<u32, (u64, f64)>) -> String {
    let data: Vec<(String, f64, String)> = ratings
        .iter()
        .map(|(&from, &(n, acc))| {
            let mean = acc / n as f64;
            let label = if rating_last(from).is_some() { format!("{from}") } else { format!("{from}+") };
            (label, mean, format!("{mean:.0}"))
        })
        .collect();
    let summary: Vec<String> = ratings
        .iter()
        .map(|(&from, &(n, acc))| format!("{}: {:.1} over {n}", rating_range(from), acc / n as f64))
        .collect();
    bars(
        "rating",
        &format!(
            "Accuracy against rating, mean accuracy per {RATING_BUCKET} rating points: {}",
            summary.join("; ")
        ),
        &data,
        100.0,
    )
}

/// The distribution of the moves' centipawn losses.
pub fn loss_chart(losses: &[u64]) -> String {
    let total: u64 = losses.iter().sum();
    let data: Vec<(String, f64, String)> = losses
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let share = if total > 0 { 100.0 * n as f64 / total as f64 } else { 0.0 };
            (bucket_text(i), n as f64, format!("{share:.0}%"))
        })
        .collect();
    let max = losses.iter().copied().max().unwrap_or(0) as f64;
    let summary: Vec<String> = losses
        .iter()
        .enumerate()
        .map(|(i, &n)| format!("{} cp: {}", bucket_text(i), counted(n, "move", "moves")))
        .collect();
    bars(
        "losses",
        &format!("Distribution of the moves' centipawn losses: {}", summary.join("; ")),
        &data,
        max,
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::chess::{Move, Position, Square};
    use crate::jobs::report::game::game_from_san;

    #[test]
    fn an_eval_graph_marks_judged_moves_and_says_so() {
        let g = game_from_san(&[("e4", Some(20)), ("f6", Some(250))]);
        let f = Figures::of(&g);
        let svg = eval_graph(&g, &f);
        assert!(svg.contains("blunder at 1..."), "{svg}");
        assert_eq!(svg.matches("<path class=blunder d=M").count(), 1, "{svg}");
        assert!(graph_defs().contains("id=\"j-blunder\"") && graph_css().contains("url(#j-blunder)"));
        assert!(clock_graph(&g).is_none());
        assert_eq!(move_label(&g, 0), "1.");
        assert!(loss_chart(&[3, 0, 1, 0, 0, 0, 0, 2]).contains("500+"));
    }

    /// The points of White's area: one path, its first and last points on the bottom edge.
    fn white_area(svg: &str) -> Vec<(f64, f64)> {
        assert_eq!(svg.matches("<path class=white-side").count(), 1, "one area: {svg}");
        let d = svg.split("<path class=white-side d=\"").nth(1).and_then(|r| r.split('"').next());
        let d = d.expect("an area").trim_start_matches('M').trim_end_matches('Z');
        d.split(['L', ' '])
            .map(|p| p.split_once(',').expect("x,y"))
            .map(|(x, y)| (x.parse().expect("x"), y.parse().expect("y")))
            .collect()
    }

    #[test]
    fn moves_without_an_evaluation_are_bridged_not_drawn_as_black_winning() {
        // Unevaluated at the start, in the middle (two in a row) and at the end of an equal game.
        let g = game_from_san(&[
            ("e4", None),
            ("e5", Some(20)),
            ("Nf3", Some(20)),
            ("Nc6", None),
            ("Bb5", None),
            ("a6", Some(-20)),
            ("Ba4", None),
        ]);
        let svg = eval_graph(&g, &Figures::of(&g));
        let area = white_area(&svg);
        assert_eq!(area.len(), 2 + g.moves.len(), "a point a move: {svg}");
        assert_eq!((area[0].1, area[area.len() - 1].1), (H, H));
        let curve: Vec<f64> = area[1..area.len() - 1].iter().map(|p| p.1).collect();
        assert!(curve.iter().all(|&y| (y - H / 2.0).abs() < 5.0), "near the middle line: {curve:?}");
        // The first move carries the second's value, the last the one before it; the gap between
        // 2. Nf3 and 3... a6 is a straight line between them.
        assert_eq!((curve[0], curve[6]), (curve[1], curve[5]));
        assert!(curve[2] < curve[3] && curve[3] < curve[4] && curve[4] < curve[5], "{curve:?}");
        assert_eq!(svg.matches("<path class=unevaluated d=").count(), 1, "{svg}");
        assert!(svg.contains("3 evaluated; a dashed line bridges"), "{svg}");
    }

    #[test]
    fn a_judged_move_without_an_evaluation_gets_no_dot() {
        let mut g = game_from_san(&[("e4", Some(20)), ("f6", None), ("d4", Some(300))]);
        g.judged_in_file = true;
        g.nags[1] = Some(Judgement::Blunder);
        let svg = eval_graph(&g, &Figures::of(&g));
        assert!(svg.contains("blunder at 1...") && !svg.contains("class=blunder d="), "{svg}");
        assert_eq!(white_area(&svg).len(), 5, "{svg}");
    }

    #[test]
    fn a_checkmate_ends_the_graph_at_the_winners_edge() {
        // The mating move has no evaluation, as lichess writes it.
        let white = game_from_san(&[
            ("e4", Some(30)),
            ("e5", Some(30)),
            ("Bc4", Some(20)),
            ("Nc6", Some(30)),
            ("Qh5", Some(0)),
            ("Nf6", Some(10_000)),
            ("Qxf7#", None),
        ]);
        let black =
            game_from_san(&[("f3", Some(-50)), ("e5", Some(-40)), ("g4", Some(-10_000)), ("Qh4#", None)]);
        for (g, edge) in [(white, 0.0), (black, H)] {
            let svg = eval_graph(&g, &Figures::of(&g));
            let area = white_area(&svg);
            assert_eq!(area[area.len() - 2], (W, edge), "{svg}");
            assert!(!svg.contains("class=unevaluated"), "the final position is no gap: {svg}");
        }
        // A game that ends unevaluated but not mated keeps its last value.
        let g = game_from_san(&[("f3", Some(-50)), ("e5", Some(-40)), ("g4", None)]);
        let area = white_area(&eval_graph(&g, &Figures::of(&g)));
        assert_eq!(area[3].1, area[2].1);
    }

    /// Each `<text>`'s span in the graph's units (letters as wide as [`LABEL_LETTER`]) and line.
    fn labels(svg: &str) -> Vec<(f64, f64, u32)> {
        svg.split("<text x=")
            .skip(1)
            .map(|t| {
                let (head, rest) = t.split_once('>').expect("a tag");
                let name = rest.split('<').next().expect("its text");
                let mut attrs = head.split(' ');
                let x: f64 = attrs.next().and_then(|x| x.parse().ok()).expect("x");
                let y = attrs.next().and_then(|y| y.strip_prefix("y=")?.parse().ok()).expect("y");
                let width = LABEL_LETTER * name.len() as f64;
                if head.contains("text-anchor=end") { (x - width, x, y) } else { (x, x + width, y) }
            })
            .collect()
    }

    #[test]
    fn phase_labels_stay_inside_the_graph_and_apart() {
        let moves: Vec<(&str, Option<i32>)> =
            ["Nf3", "Nf6", "Ng1", "Ng8"].iter().cycle().take(40).map(|&m| (m, Some(0))).collect();
        let mut g = game_from_san(&moves);
        for (middle, end) in
            [(Some(1), Some(40)), (Some(39), Some(40)), (Some(20), Some(21)), (None, Some(38))]
        {
            g.division = crate::jobs::report::divider::Division { middle, end };
            let svg = eval_graph(&g, &Figures::of(&g));
            let spans = labels(&svg);
            assert_eq!(spans.len(), usize::from(middle.is_some()) + 1, "{svg}");
            for &(from, to, _) in &spans {
                assert!(from >= 0.0 && to <= W, "{from}..{to}: {svg}");
            }
            if let [a, b] = spans[..] {
                assert!(a.2 != b.2 || a.1 <= b.0 || b.1 <= a.0, "labels overlap: {svg}");
            }
        }
    }

    #[test]
    fn thinning_keeps_each_columns_stroke_and_every_point_of_a_short_game() {
        for x in [0.5, 1.5, 2.5, 719.5] {
            assert_eq!(format!("{x:.0}"), format!("{}", column(x)), "{x}");
        }
        let short: Vec<(f64, f64)> = (0..721).map(|i| (x_of(i, 721), (i * 37 % 160) as f64)).collect();
        assert_eq!(thin(&short), short);
        // 100 points a column: the first, the lowest, the highest and the last are kept in order.
        let long: Vec<(f64, f64)> =
            (0..72_100).map(|i| (x_of(i, 72_100), ((i * 7919) % 1601) as f64 / 10.0)).collect();
        let thinned = thin(&long);
        assert!(thinned.len() <= 4 * 721, "{}", thinned.len());
        let by_column = |pts: &[(f64, f64)]| {
            let mut m: BTreeMap<i64, (f64, f64, f64, f64)> = BTreeMap::new();
            for &(x, y) in pts {
                let e = m.entry(column(x) as i64).or_insert((y, y, y, y));
                (e.1, e.2, e.3) = (e.1.min(y), e.2.max(y), y);
            }
            m.into_values().map(|(first, lo, hi, last)| [first, lo, hi, last]).collect::<Vec<_>>()
        };
        assert_eq!(by_column(&thinned), by_column(&long));
        assert!(thinned.windows(2).all(|w| w[0] != w[1]), "no point twice in a row");
    }

    /// A game of `plies` knight moves out and back from the start, `eval(i)` centipawns after
    /// ply `i`.
    fn knight_shuffle(plies: usize, eval: impl Fn(usize) -> i32) -> GameRecord {
        let mut g = GameRecord::new(1);
        g.start = Some(Position::default());
        let shuffle = [
            (Square::G1, Square::F3),
            (Square::G8, Square::F6),
            (Square::F3, Square::G1),
            (Square::F6, Square::G8),
        ];
        for i in 0..plies {
            let (from, to) = shuffle[i % 4];
            g.push_move(Move::normal(from, to));
            *g.evals.last_mut().expect("a move") = Some(Score::Cp(eval(i)));
        }
        g
    }

    #[test]
    fn a_game_of_any_length_keeps_its_graphs_small() {
        let mut g = knight_shuffle(100_000, |i| if i % 3 == 0 { 400 } else { -400 });
        for (i, clock) in g.clocks.iter_mut().enumerate() {
            *clock = Some(std::time::Duration::from_secs(600 - (i / 200) as u64));
        }
        let f = Figures::of(&g);
        let eval = eval_graph(&g, &f);
        let clock = clock_graph(&g).expect("clocks");
        assert!(eval.len() < 200_000 && clock.len() < 60_000, "{} {}", eval.len(), clock.len());
        let blunders = f.judgements.iter().filter(|&&j| j == Some(Judgement::Blunder)).count();
        assert!(eval.contains(&format!(" and {} more", blunders - LABELLED)), "{blunders}");
    }

    #[test]
    fn a_long_games_judged_moves_are_thinned_to_four_dots_a_column() {
        // 100,000 blunders, each side giving away 3 to 10 pawns in turn: dots at many heights.
        let g = knight_shuffle(100_000, |i| {
            let cp = 300 + (i * 7919 % 701) as i32;
            if i % 2 == 0 { -cp } else { cp }
        });
        let f = Figures::of(&g);
        assert!(f.judgements.iter().all(|&j| j == Some(Judgement::Blunder)));
        let svg = eval_graph(&g, &f);
        let d = svg.split("<path class=blunder d=M").nth(1).and_then(|r| r.split(' ').next()).expect("dots");
        let dots = d.split(',').count() / 2;
        assert!(dots <= 4 * 721, "{dots} dots");
    }
}
