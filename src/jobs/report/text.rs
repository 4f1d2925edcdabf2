//! The report's summary as data: the JSON document of `--format json` ([`summary_json`], every
//! figure unrounded, for scripts and for comparison with an independent computation) and the
//! tables of `--format text` ([`summary_text`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::ops::ControlFlow;

use serde_json::{Map, Value, json};

use super::divider::Phase;
use super::players::RankedPlayers;
use super::stats::{Family, Recurring, Totals, rating_last, rating_range};
use super::sums::{LOSS_BUCKETS, MoveTotals, Side, Spread};
use crate::analysis::judge::Judgement;
use crate::chess::ByColor;
use crate::error::Error;
use crate::jobs::diagnostics::counted;
use crate::notation::fen::{EpMode, write_fen};
use crate::notation::{write_san, write_uci};

/// A side's figures as JSON: its games', then its moves' ([`moves_json`]).
pub fn side_json(s: &Side) -> Value {
    let mut v = moves_json(&s.moves);
    v.extend(fields([
        ("games", json!(s.games)),
        ("scored", json!(s.scored)),
        ("points", json!(s.half_points as f64 / 2.0)),
        ("score", json!(s.score())),
        ("evaluated", json!(s.evaluated)),
        ("accuracy", json!(s.mean_accuracy())),
        ("accuracy_games", json!(s.accuracy_games)),
    ]));
    Value::Object(v)
}

/// A run of moves' figures (a side's, a phase's) as JSON fields.
pub fn moves_json(x: &MoveTotals) -> Map<String, Value> {
    fields([
        ("moves", json!(x.moves)),
        ("loss", json!(x.loss)),
        ("loss_moves", json!(x.loss_moves)),
        ("acpl", json!(x.acpl())),
        ("inaccuracies", json!(x.judgements[0])),
        ("mistakes", json!(x.judgements[1])),
        ("blunders", json!(x.judgements[2])),
    ])
}

fn fields<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The ECO codes of a family as text: `B90` or `B20-B99`.
pub fn codes_text(codes: Option<(&str, &str)>) -> String {
    match codes {
        Some((lo, hi)) if lo == hi => lo.to_string(),
        Some((lo, hi)) => format!("{lo}-{hi}"),
        None => "-".to_string(),
    }
}

/// A recurring mistake's position as FEN, its move in SAN and UCI.
pub fn recurring_texts(r: &Recurring) -> (String, String, String) {
    let (mut fen, mut san, mut uci) = (String::new(), String::new(), String::new());
    write_fen(&r.position, EpMode::Legal, &mut fen);
    write_san(&r.position, r.mv, &mut san);
    write_uci(r.mv, r.position.castling_mode(), &mut uci);
    (fen, san, uci)
}

/// The loss bucket `i` as text: `0`, `1-19`, ..., `500+`.
pub fn bucket_text(i: usize) -> String {
    match i {
        0 => "0".to_string(),
        i if i < LOSS_BUCKETS.len() => format!("{}-{}", LOSS_BUCKETS[i - 1] + 1, LOSS_BUCKETS[i]),
        _ => format!("{}+", LOSS_BUCKETS[LOSS_BUCKETS.len() - 1] + 1),
    }
}

/// A player's entry of the JSON summary.
pub fn player_json(name: &str, by: &ByColor<Side>) -> Value {
    json!({"name": name, "all": side_json(&both(by)), "white": side_json(&by.white), "black": side_json(&by.black)})
}

/// The whole summary as one JSON document, its `players` empty: [`write_summary_json`] writes
/// them in.
pub fn summary_json<W: Write>(t: &Totals<W>) -> Value {
    let recurring = t.recurring();
    let openings: Vec<Value> = t
        .families
        .iter()
        .map(|(name, f)| {
            let mut v = side_json(&f.side);
            v["family"] = json!(name);
            v["eco"] = json!(codes_text(f.codes));
            v["recurring"] = match recurring.get(name) {
                Some(r) => {
                    let (fen, san, uci) = recurring_texts(r);
                    json!({"fen": fen, "san": san, "uci": uci, "count": r.count, "loss": r.loss})
                }
                None => Value::Null,
            };
            v
        })
        .collect();
    let phases: serde_json::Map<String, Value> = Phase::ALL
        .iter()
        .map(|&p| (p.name().to_string(), Value::Object(moves_json(&t.spread.phases[p as usize]))))
        .collect();
    let losses: Vec<Value> = t
        .spread
        .losses
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"loss": bucket_text(i), "moves": n}))
        .collect();
    let ratings: Vec<Value> = t
        .ratings
        .iter()
        .map(|(&from, &(n, acc))| json!({"from": from, "to": rating_last(from), "sides": n, "accuracy": acc / n as f64}))
        .collect();
    let unevaluated: Vec<Value> = t
        .unevaluated
        .1
        .iter()
        .map(
            |u| json!({"file": u.input.json(), "game": u.number, "white": u.players.0, "black": u.players.1}),
        )
        .collect();
    json!({
        "games": t.games, "filtered": t.filtered, "evaluated": t.evaluated, "unevaluated": t.unevaluated.0,
        "broken": t.broken,
        "results": {"1-0": t.results[0], "0-1": t.results[1], "1/2-1/2": t.results[2], "*": t.results[3]},
        "dates": t.dates.as_ref().map(|(a, b)| json!([a, b])),
        "variants": t.variants,
        "sources": t.sources.iter().map(|(f, n)| json!({"file": f.json(), "games": n})).collect::<Vec<_>>(),
        "player": t.player(),
        "sides": {"white": side_json(&t.sides.white), "black": side_json(&t.sides.black)},
        "players": [],
        "openings": openings,
        "phases": phases,
        "losses": losses,
        "ratings": ratings,
        "recurring_forgotten": t.forgotten,
        "unevaluated_games": unevaluated,
    })
}

/// Writes the summary as [`summary_json`]'s document, pretty-printed, with every player of
/// [`Totals::for_each_player`] in its `players`, written one at a time: a collection of millions
/// of players lists them all without holding their entries (built whole, 3 million took 24 GB).
/// A failure to write `out` is returned as it is; one of the players' runs as the run's error.
pub fn write_summary_json<W: Write, O: Write>(
    out: &mut O,
    t: &mut Totals<W>,
    min_games: u64,
) -> Result<Result<(), std::io::Error>, Error> {
    // The empty list as pretty-printing writes it: a key of the top level, indented once.
    const SLOT: &str = "\n  \"players\": []";
    let text = format!("{:#}", summary_json(t));
    let at = text.find(SLOT).expect("the summary has a players list at its top level");
    let mut written = write!(out, "{}\n  \"players\": [", &text[..at]);
    let mut first = true;
    let listed = t.for_each_player(min_games, |name, by| {
        if written.is_err() {
            // Nothing more is read once `out` fails.
            return ControlFlow::Break(());
        }
        let entry = format!("{:#}", player_json(name, by));
        let sep = if std::mem::take(&mut first) { "\n" } else { ",\n" };
        written = write!(out, "{sep}    {}", entry.replace('\n', "\n    "));
        ControlFlow::Continue(())
    })?;
    if written.is_err() {
        return Ok(written);
    }
    Ok(writeln!(out, "{}{}", if listed > 0 { "\n  ]" } else { "]" }, &text[at + SLOT.len()..]))
}

/// A number with `digits` decimals, or `-`.
pub fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
}

/// A percentage with one decimal, or `-`.
pub fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{:.1}%", 100.0 * v))
}

/// A side's row cells after its label: games, score, ACPL, accuracy, judgements per 100 moves.
pub fn side_cells(s: &Side) -> Vec<String> {
    vec![
        s.games.to_string(),
        pct(s.score()),
        num(s.moves.acpl(), 1),
        num(s.mean_accuracy(), 1),
        num(s.moves.per_100(Judgement::Inaccuracy), 2),
        num(s.moves.per_100(Judgement::Mistake), 2),
        num(s.moves.per_100(Judgement::Blunder), 2),
    ]
}

/// The header cells of [`side_cells`].
pub const SIDE_HEADERS: [&str; 7] = ["games", "score", "ACPL", "accuracy", "?!/100", "?/100", "??/100"];

/// The players' table, as the text and the page show it: its headers, then [`player_rows`].
pub const PLAYER_HEADERS: [&str; 9] = {
    let mut h = ["player", "colour", "", "", "", "", "", "", ""];
    let mut i = 0;
    while i < SIDE_HEADERS.len() {
        h[i + 2] = SIDE_HEADERS[i];
        i += 1;
    }
    h
};

/// A player's figures with both colours.
fn both(by: &ByColor<Side>) -> Side {
    let mut all = by.white;
    all.add(&by.black);
    all
}

/// How many players have a row of the players' table, of how many could.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Players with rows.
    pub shown: usize,
    /// Players with at least the games asked for.
    pub qualified: usize,
}

impl Listed {
    /// Who the table holds, in words.
    pub fn text(self, min_games: u64) -> String {
        if self.shown < self.qualified {
            format!(
                "the {} with the most games of the {} with at least {min_games}",
                self.shown, self.qualified
            )
        } else {
            format!("at least {}", counted(min_games, "game", "games"))
        }
    }
}

/// Three rows (all, white, black) for each of the first `most` players `ranked`: the table of a
/// large collection stays a size a page can show.
pub fn player_rows(ranked: &RankedPlayers, most: usize) -> (Vec<Vec<String>>, Listed) {
    let listed = Listed { shown: ranked.players.len().min(most), qualified: ranked.qualified };
    let mut rows = Vec::with_capacity(3 * listed.shown);
    for (name, by) in ranked.players.iter().take(most) {
        let all = both(by);
        for (label, side) in [("all", &all), ("white", &by.white), ("black", &by.black)] {
            let mut row = vec![name.to_string(), label.to_string()];
            row.extend(side_cells(side));
            rows.push(row);
        }
    }
    (rows, listed)
}

/// The opening families' table, as the text and the page show it: its headers (without a
/// player a family's games and score are White's), then [`family_row`]s.
pub fn family_headers(player: bool) -> [&'static str; 6] {
    let score = if player { "score" } else { "White's score" };
    ["family", "ECO", "games", score, "accuracy", "most costly recurring mistake"]
}

/// A row of [`family_headers`], its recurring mistake written as `recurring`.
pub fn family_row(name: &str, f: &Family, recurring: String) -> Vec<String> {
    vec![
        name.to_string(),
        codes_text(f.codes),
        f.side.games.to_string(),
        pct(f.side.score()),
        num(f.side.mean_accuracy(), 1),
        recurring,
    ]
}

/// The phases' table, as the text and the page show it: its headers, then a row a phase.
pub const PHASE_HEADERS: [&str; 6] = ["phase", "moves", "ACPL", "inaccuracies", "mistakes", "blunders"];

/// The rows of [`PHASE_HEADERS`].
pub fn phase_rows(spread: &Spread) -> Vec<Vec<String>> {
    Phase::ALL
        .iter()
        .map(|&p| {
            let x = &spread.phases[p as usize];
            vec![
                p.name().to_string(),
                x.moves.to_string(),
                num(x.acpl(), 1),
                x.judgements[0].to_string(),
                x.judgements[1].to_string(),
                x.judgements[2].to_string(),
            ]
        })
        .collect()
}

/// The loss distribution's table: its headers, then a row a bucket.
pub const LOSS_HEADERS: [&str; 2] = ["loss", "moves"];

/// The rows of [`LOSS_HEADERS`].
pub fn loss_rows(spread: &Spread) -> Vec<Vec<String>> {
    spread
        .losses
        .iter()
        .enumerate()
        .map(|(i, n)| vec![format!("{} cp", bucket_text(i)), n.to_string()])
        .collect()
}

/// Accuracy by rating's table: its headers, then a row a rating bucket.
pub const RATING_HEADERS: [&str; 3] = ["rating", "sides", "accuracy"];

/// The rows of [`RATING_HEADERS`] for the buckets' (games, accuracy summed).
pub fn rating_rows(ratings: &BTreeMap<u32, (u64, f64)>) -> Vec<Vec<String>> {
    ratings
        .iter()
        .map(|(&from, &(n, acc))| vec![rating_range(from), n.to_string(), format!("{:.1}", acc / n as f64)])
        .collect()
}

/// Characters of a cell shown in a text table's columns but its last: a longer one (a name of
/// 120 letters) is cut, with `…`, so that it does not push the others off a terminal.
const CELL_CHARS: usize = 40;

/// `cell` cut to [`CELL_CHARS`] characters, the last of them `…`.
fn cut_cell(cell: &str) -> std::borrow::Cow<'_, str> {
    match cell.char_indices().nth(CELL_CHARS - 1) {
        Some((at, _)) if cell.chars().count() > CELL_CHARS => format!("{}…", &cell[..at]).into(),
        _ => cell.into(),
    }
}

/// A plain text table: columns padded, numeric columns (every cell a number, a percentage or
/// `-`) to the right, cells of columns but the last cut to 40 characters (`CELL_CHARS`).
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let last = headers.len().saturating_sub(1);
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .map(|(i, c)| if i < last { cut_cell(c).into_owned() } else { c.clone() })
                .collect()
        })
        .collect();
    let rows = &rows;
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let numeric: Vec<bool> = (0..headers.len())
        .map(|i| {
            let cells = || rows.iter().filter_map(|r| r.get(i)).filter(|c| c.as_str() != "-");
            i > 0
                && cells().next().is_some()
                && cells().all(|c| c.chars().all(|ch| ch.is_ascii_digit() || ".%+-".contains(ch)))
        })
        .collect();
    let mut s = String::new();
    let line = |cells: Vec<&str>, s: &mut String| {
        let mut out = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = w - c.chars().count();
            if i > 0 {
                out.push_str("  ");
            }
            if numeric[i] {
                out.push_str(&" ".repeat(pad));
                out.push_str(c);
            } else {
                out.push_str(c);
                out.push_str(&" ".repeat(pad));
            }
        }
        s.push_str(out.trim_end());
        s.push('\n');
    };
    line(headers.to_vec(), &mut s);
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(rule.iter().map(String::as_str).collect(), &mut s);
    for r in rows {
        line(r.iter().map(String::as_str).collect(), &mut s);
    }
    s
}

/// The summary tables of `--format text`.
pub fn summary_text<W: Write>(
    t: &Totals<W>,
    ranked: &RankedPlayers,
    min_games: u64,
    players: usize,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Collection: {} ({} with evaluations, {} without); 1-0 {}, 0-1 {}, 1/2-1/2 {}, * {}",
        counted(t.games, "game", "games"),
        t.evaluated,
        t.unevaluated.0,
        t.results[0],
        t.results[1],
        t.results[2],
        t.results[3]
    );
    if let Some((a, b)) = &t.dates {
        let _ = writeln!(s, "Dates: {a} to {b}");
    }
    let variants: Vec<String> = t.variants.iter().map(|(v, n)| format!("{v} {n}")).collect();
    let _ = writeln!(
        s,
        "Variants: {}",
        if variants.is_empty() { "none".to_string() } else { variants.join(", ") }
    );
    let sources: Vec<String> = t.sources.iter().map(|(f, n)| format!("{} ({n})", f.prose())).collect();
    let _ = writeln!(s, "Sources: {}", sources.join(", "));
    if let Some(p) = t.player() {
        let _ = writeln!(s, "Point of view: {p}");
    }
    s.push('\n');
    let mut headers = vec!["side"];
    headers.extend(SIDE_HEADERS);
    let rows: Vec<Vec<String>> = [("White", &t.sides.white), ("Black", &t.sides.black)]
        .iter()
        .map(|(label, side)| std::iter::once(label.to_string()).chain(side_cells(side)).collect())
        .collect();
    s.push_str(&table(&headers, &rows));
    let (rows, listed) = player_rows(ranked, players);
    s.push_str(&format!("\nPlayers ({})\n", listed.text(min_games)));
    s.push_str(&table(&PLAYER_HEADERS, &rows));
    s.push_str("\nOpenings\n");
    let recurring = t.recurring();
    let mut rows = Vec::new();
    for (name, f) in &t.families {
        let r = recurring.get(name).map_or_else(
            || "-".to_string(),
            |r| {
                let (fen, san, _) = recurring_texts(r);
                format!("{san} in {fen} ({}x, {} cp)", r.count, r.loss)
            },
        );
        rows.push(family_row(name, f, r));
    }
    s.push_str(&table(&family_headers(t.player().is_some()), &rows));
    s.push_str("\nPhases\n");
    s.push_str(&table(&PHASE_HEADERS, &phase_rows(&t.spread)));
    s.push_str("\nLosses\n");
    s.push_str(&table(&LOSS_HEADERS, &loss_rows(&t.spread)));
    if !t.ratings.is_empty() {
        s.push_str("\nAccuracy by rating\n");
        s.push_str(&table(&RATING_HEADERS, &rating_rows(&t.ratings)));
    }
    if t.unevaluated.0 > 0 {
        let _ = writeln!(s, "\nGames without evaluations: {}", t.unevaluated.0);
        for u in &t.unevaluated.1 {
            let _ = writeln!(s, "  {} game {}: {} - {}", u.input, u.number, u.players.0, u.players.1);
        }
        if t.unevaluated.0 > t.unevaluated.1.len() as u64 {
            let _ = writeln!(s, "  ... and {} more", t.unevaluated.0 - t.unevaluated.1.len() as u64);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::report::game::GameRecord;

    /// The text summary of `games` (read from no input).
    fn text_of(games: Vec<GameRecord>) -> String {
        let mut t = Totals::new(std::io::sink(), None, 10);
        for g in games {
            t.add_record(g);
        }
        let ranked = t.ranked_players(3, 500).expect("players");
        summary_text(&t, &ranked, 3, 500)
    }

    #[test]
    fn one_game_is_said_in_the_singular() {
        let text = text_of(vec![GameRecord::new(1)]);
        assert!(text.starts_with("Collection: 1 game (0 with evaluations, 1 without);"), "{text}");
        assert!(text_of(vec![GameRecord::new(1), GameRecord::new(2)]).starts_with("Collection: 2 games ("));
    }

    /// A name of 120 letters is cut in its column, so the numbers stay where they stand for a
    /// short one; the last column (a position and a move) is not cut.
    #[test]
    fn a_long_cell_is_cut_but_in_the_last_column() {
        let long = "N".repeat(120);
        let rows =
            vec![vec![long.clone(), "12".into(), long.clone()], vec!["Ann".into(), "3".into(), "x".into()]];
        let text = table(&["player", "games", "last"], &rows);
        let cut = format!("{}…     12  {long}", "N".repeat(CELL_CHARS - 1));
        assert!(text.lines().any(|l| l == cut), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= CELL_CHARS + 2 + 5 + 2 + 120), "{text}");
        assert_eq!(cut_cell("Ann"), "Ann");
        assert_eq!(cut_cell(&"é".repeat(CELL_CHARS)), "é".repeat(CELL_CHARS), "characters, not bytes");
    }

    #[test]
    fn no_game_kept_has_no_variant() {
        let text = text_of(Vec::new());
        assert!(text.contains("\nVariants: none\n"), "{text}");
        assert!(text_of(vec![GameRecord::new(1)]).contains("\nVariants: Standard 1\n"));
    }
}
