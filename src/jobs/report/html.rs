//! The report as one self-contained HTML page: inline CSS (a print stylesheet too) and SVG, no
//! external script, font or stylesheet, readable offline. A few lines of inline script sort the
//! tables when a header is clicked; the page reads the same without it. Every chart has a text
//! alternative. Every text that comes from the input (names, tags, file names, comments) goes
//! through [`escape`], the one escaping function, so nothing in a game can add markup.

use std::fmt::Write as _;
use std::io::Write;

use super::board::{board, board_css, board_defs};
use super::charts::{
    clock_graph, eval_graph, graph_css, graph_defs, judgement_class, loss_chart, move_label, rating_chart,
};
use super::escape::{escape, href};
use super::game::{GameRecord, TagName};
use super::players::RankedPlayers;
use super::stats::{Analysed, Totals};
use super::text::{
    LOSS_HEADERS, PHASE_HEADERS, PLAYER_HEADERS, RATING_HEADERS, SIDE_HEADERS, family_headers, family_row,
    loss_rows, num, phase_rows, player_rows, rating_rows, recurring_texts, side_cells,
};
use crate::analysis::judge::Judgement;
use crate::chess::{Color, Move, Position};
use crate::io::name::Name;
use crate::jobs::diagnostics::counted;
use crate::notation::diagram::{Arrow, ArrowKind, SVG_PAGE_CSS, svg_page_defs};
use crate::notation::fen::{EpMode, write_fen};
use crate::notation::write_san;

/// What the page is made of besides the totals.
#[derive(Clone, Debug)]
pub struct Page<'a> {
    /// The inputs, as named on the command line.
    pub inputs: &'a [Name],
    /// Players need this many games for a row.
    pub min_games: u64,
    /// pgnkit's version line.
    pub generator: &'a str,
    /// Players with rows at most: those with the most games.
    pub players: usize,
    /// The players with at least `min_games` games, ranked (at least the first `players`).
    pub ranked: &'a RankedPlayers,
    /// Boards a game section draws at most: its mistakes and blunders with the largest losses
    /// (`usize::MAX`: every one; the command's default is [`DEFAULT_BOARDS`](super::DEFAULT_BOARDS)).
    pub boards: usize,
}

const CSS: &str = "\
:root{--ink:#1b1b1b;--muted:#5a5a5a;--rule:#d6d3cf;--panel:#f6f5f3;--accent:#1f5fa8}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:var(--ink);background:#fff;overflow-wrap:break-word}
header,main{max-width:1100px;margin:0 auto;padding:0 16px}
header{border-bottom:2px solid var(--rule);padding-top:12px}
h1{font-size:1.7em;margin:.3em 0}h2{border-bottom:1px solid var(--rule);padding-bottom:4px;margin-top:1.6em}
h3{margin:.2em 0}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px}
a{color:var(--accent)}
.wide{overflow-x:auto;margin:8px 0 16px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{padding:3px 8px;border-bottom:1px solid var(--rule);text-align:right;vertical-align:top}
th:first-child,td:first-child,td.text,th.text{text-align:left}
th.text{overflow-wrap:anywhere;min-width:8em}
th{background:var(--panel)}
table.sortable th{cursor:pointer}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 16px}
dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.muted{color:var(--muted)}
section.game{border:1px solid var(--rule);border-radius:6px;padding:10px 14px;margin:18px 0;background:#fff}
section.game{content-visibility:auto;contain-intrinsic-size:auto 1600px}
.graph{width:100%;height:160px;display:block;border:1px solid var(--rule)}
.graph.clock{height:80px;margin-top:4px}
.graph.eval>rect{fill:#3a3a3a}.graph .white-side{fill:#f2f2f2}
.graph .midline{stroke:#888;stroke-dasharray:4 3}
.graph .unevaluated{fill:none;stroke:#999;stroke-width:2;stroke-dasharray:2 2}
.graph .phase{stroke:#1f5fa8;stroke-dasharray:3 3}.graph text{font-size:11px;fill:#1f5fa8}
.graph.clock>rect{fill:var(--panel)}
.graph polyline{fill:none;stroke-width:2}.graph .clock-white{stroke:#b0b0b0}.graph .clock-black{stroke:#222}
.chart{width:100%;max-width:640px;height:auto;display:block}
.chart .bar{fill:#1f5fa8}.chart .axis{stroke:#888}
.chart text{font-size:12px;text-anchor:middle;fill:var(--ink)}
.moves{font-size:.92em;line-height:1.7}
.moves .inaccuracy,.legend .inaccuracy{color:#1b7bb5;font-weight:600}
.moves .mistake,.legend .mistake{color:#b46f00;font-weight:600}
.moves .blunder,.legend .blunder{color:#c1272d;font-weight:600}
.diagrams{display:flex;flex-wrap:wrap;gap:14px}
.diagrams figure{margin:0;width:300px}
.diagrams div>svg{width:300px;height:auto;display:block}
.diagrams figcaption{font-size:.9em}
.board-defs{position:absolute;width:0;height:0;overflow:hidden}
.charts{display:flex;flex-wrap:wrap;gap:24px}
.charts>div{flex:1 1 420px}
@media print{
 nav,.noprint{display:none}
 body{font-size:10.5pt}
 header,main{max-width:none;padding:0}
 section.game,.diagrams figure,table,.charts>div{break-inside:avoid}
 .wide{overflow:visible}
 section.game{border:none;border-top:1px solid #999;border-radius:0;content-visibility:visible}
 a{color:inherit;text-decoration:none}
 a[href^='http']::after{content:' (' attr(href) ')';font-size:.8em}
}
";

/// Sorts a table by the clicked header's column: numbers as numbers, text as text.
const SCRIPT: &str = "\
document.querySelectorAll('table.sortable').forEach(function(t){
 t.querySelectorAll('thead th').forEach(function(th,col){
  th.addEventListener('click',function(){
   var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows),up=th.dataset.up!=='1';
   th.dataset.up=up?'1':'0';
   var key=function(r){var s=r.cells[col].textContent.trim(),n=parseFloat(s);return isNaN(n)?s.toLowerCase():n;};
   rows.sort(function(a,b){var x=key(a),y=key(b);return (x<y?-1:x>y?1:0)*(up?1:-1);});
   rows.forEach(function(r){body.appendChild(r);});
  });
 });
});
";

/// A table with a caption, header cells and rows; the first column is text. It scrolls sideways
/// in a box of its own where it is wider than the page.
fn table(s: &mut String, class: &str, caption: &str, headers: &[&str], rows: &[Vec<String>]) {
    let _ = write!(
        s,
        "<div class=\"wide\"><table class=\"{class}\"><caption>{}</caption><thead><tr>",
        escape(caption)
    );
    for (i, h) in headers.iter().enumerate() {
        let cls = if i == 0 { " class=\"text\"" } else { "" };
        let _ = write!(s, "<th scope=\"col\"{cls}>{}</th>", escape(h));
    }
    s.push_str("</tr></thead><tbody>\n");
    for r in rows {
        s.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            if i == 0 {
                let _ = write!(s, "<th scope=\"row\" class=\"text\">{}</th>", escape(c));
            } else {
                let _ = write!(s, "<td>{}</td>", escape(c));
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table></div>\n");
}

/// `moves` from `pos` in SAN with move numbers, as a line is read: `13. Nf3 Qd7 14. Bb5`.
pub fn san_line(pos: &Position, moves: &[Move]) -> String {
    let mut p = *pos;
    let mut s = String::new();
    for (k, &m) in moves.iter().enumerate() {
        if !s.is_empty() {
            s.push(' ');
        }
        if p.turn() == Color::White {
            let _ = write!(s, "{}. ", p.fullmoves());
        } else if k == 0 {
            let _ = write!(s, "{}... ", p.fullmoves());
        }
        write_san(&p, m, &mut s);
        p.play_unchecked(m);
    }
    s
}

fn side_name(c: Color) -> &'static str {
    if c.is_white() { "White" } else { "Black" }
}

/// A board of the position before move `index` with the played move and the engine's best as
/// arrows, inside a figure with its text alternative and caption.
fn diagram(s: &mut String, a: &Analysed, index: usize, before: &Position, last: Option<Move>, flip: bool) {
    let g = &a.game;
    let m = g.moves[index];
    let j = a.figures.judgements[index];
    let best = g.best[index].filter(|&b| b != m);
    let (mut san, mut best_san, mut fen) = (String::new(), String::new(), String::new());
    write_san(before, m, &mut san);
    if let Some(b) = best {
        write_san(before, b, &mut best_san);
    }
    write_fen(before, EpMode::Legal, &mut fen);
    let label = move_label(g, index);
    let word = j.map_or("Move", |j| j.word());
    let loss = a.figures.losses[index].map_or_else(String::new, |l| format!(", {l} cp lost"));
    // The figure is named by its caption (the move, its loss, the best move) and the section's
    // text says what the arrows are: the drawing's own text alternative is the position.
    let alt = format!("position {fen}");
    s.push_str("<figure>");
    let arrows =
        [Some(Arrow::of_move(m, ArrowKind::Played)), best.map(|b| Arrow::of_move(b, ArrowKind::Best))];
    let arrows: Vec<Arrow> = arrows.into_iter().flatten().collect();
    board(s, before, flip, last, &arrows, &alt);
    let _ = write!(
        s,
        "<figcaption>{} {}{} ({}{})",
        escape(&label),
        escape(&san),
        j.map_or("", |j| match j {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }),
        escape(&word.to_lowercase()),
        escape(&loss)
    );
    if best.is_some() {
        let _ = write!(s, "; best {}", escape(&best_san));
    }
    if let Some(line) = g.line(index).filter(|l| !l.is_empty()) {
        let _ = write!(s, "<br>Line: {}", escape(&san_line(before, line)));
    }
    s.push_str("</figcaption></figure>\n");
}

/// A game's section.
fn game_section(s: &mut String, a: &Analysed, k: usize, player: Option<&str>, boards_wanted: usize) {
    let g = &a.game;
    let (w, b) = (g.player(Color::White), g.player(Color::Black));
    let elo = |c: Color| g.tags.elo[c].map_or_else(String::new, |e| format!(" ({e})"));
    let _ = writeln!(s, "<section class=\"game\" id=\"game-{k}\">");
    let _ = writeln!(
        s,
        "<h3>{}{} – {}{} <span class=\"muted\">{}</span></h3>",
        escape(w),
        escape(&elo(Color::White)),
        escape(b),
        escape(&elo(Color::Black)),
        g.result.as_str()
    );
    let mut facts: Vec<String> = Vec::new();
    let tag = |name| g.tags.get(name).map(str::to_string);
    for v in [
        tag(TagName::Event),
        tag(TagName::Site),
        tag(TagName::Date),
        tag(TagName::Round).map(|r| format!("round {r}")),
        tag(TagName::TimeControl).map(|t| format!("time control {t}")),
    ]
    .into_iter()
    .flatten()
    {
        facts.push(escape(&v).into_owned());
    }
    let opening = match (g.opening, g.tags.get(TagName::Opening)) {
        (Some(o), _) => Some(format!("{} {}", o.eco, o.name)),
        (None, Some(o)) => Some(o.to_string()),
        (None, None) => None,
    };
    if let Some(o) = opening {
        facts.push(escape(&o).into_owned());
    }
    if g.variant != crate::Variant::Standard {
        facts.push(g.variant.name().to_string());
    }
    facts.push(format!("{} game {}", escape(g.input.text()), g.number));
    let _ = write!(s, "<p class=\"muted\">{}", facts.join(" · "));
    if let Some(url) = g.tags.get(TagName::Url) {
        let _ = write!(s, " · <a href=\"{}\">source</a>", href(url));
    }
    s.push_str("</p>\n");
    match &a.drawn {
        Some(body) => s.push_str(body),
        None => section_body(s, a, player, boards_wanted),
    }
    s.push_str("</section>\n");
}

/// Plies a game section lists, at most: a game longer than this is drawn as it is read (see
/// [`Analysed::drawn`]), its section's size bounded whatever its length.
pub const LISTED_PLIES: usize = 1000;

/// A game section after its heading: its figures, its graphs, its moves (the first
/// [`LISTED_PLIES`]) and the boards of its mistakes and blunders, at most `boards_wanted`.
pub fn section_body(s: &mut String, a: &Analysed, player: Option<&str>, boards_wanted: usize) {
    let g = &a.game;
    let f = &a.figures;
    let acpl = crate::analysis::judge::acpl(&g.evals, g.first_mover());
    let rows: Vec<Vec<String>> = [Color::White, Color::Black]
        .iter()
        .map(|&c| {
            let judged = |j: Judgement| {
                (0..g.moves.len())
                    .filter(|&i| g.mover(i) == c && f.judgements[i] == Some(j))
                    .count()
                    .to_string()
            };
            vec![
                format!("{} ({})", g.player(c), side_name(c)),
                num(f.accuracy.map(|a| a[c]), 1),
                acpl[c].map_or_else(|| "-".to_string(), |v| v.to_string()),
                judged(Judgement::Inaccuracy),
                judged(Judgement::Mistake),
                judged(Judgement::Blunder),
            ]
        })
        .collect();
    table(
        s,
        "game-figures",
        "Accuracy and losses",
        &["side", "accuracy", "ACPL", "inaccuracies", "mistakes", "blunders"],
        &rows,
    );
    s.push_str(&eval_graph(g, f));
    if let Some(c) = clock_graph(g) {
        s.push_str(&c);
    }
    // The moves, judged ones marked, and the boards of the mistakes and blunders.
    let Some(start) = g.start else { return };
    // The mistakes and blunders drawn: the largest losses (the earlier move among equals).
    let mut drawn: Vec<usize> = (0..g.moves.len())
        .filter(|&i| matches!(f.judgements[i], Some(Judgement::Mistake | Judgement::Blunder)))
        .collect();
    let bad = drawn.len();
    drawn.sort_by_key(|&i| (std::cmp::Reverse(f.losses[i].unwrap_or(0)), i));
    drawn.truncate(boards_wanted);
    let mut is_drawn = vec![false; g.moves.len()];
    for &i in &drawn {
        is_drawn[i] = true;
    }
    let mut moves = String::from("<p class=\"moves\">");
    let mut boards = String::new();
    let mut pos = start;
    let mut last = None;
    for (i, &m) in g.moves.iter().enumerate() {
        if i >= LISTED_PLIES {
            // The moves after the listed ones are replayed for their boards only.
            if is_drawn[i] {
                let flip = bottom(g, player, i) == Color::Black;
                diagram(&mut boards, a, i, &pos, last, flip);
            }
            pos.play_unchecked(m);
            last = Some(m);
            continue;
        }
        let label = move_label(g, i);
        if i == 0 || g.mover(i) == Color::White {
            moves.push_str(&escape(&label));
            moves.push(' ');
        }
        let mut san = String::new();
        write_san(&pos, m, &mut san);
        match f.judgements[i] {
            Some(j) => {
                let _ = write!(
                    moves,
                    "<span class={}>{}{}</span> ",
                    judgement_class(j),
                    escape(&san),
                    match j {
                        Judgement::Inaccuracy => "?!",
                        Judgement::Mistake => "?",
                        Judgement::Blunder => "??",
                    }
                );
            }
            None => {
                moves.push_str(&escape(&san));
                moves.push(' ');
            }
        }
        if is_drawn[i] {
            let flip = bottom(g, player, i) == Color::Black;
            diagram(&mut boards, a, i, &pos, last, flip);
        }
        pos.play_unchecked(m);
        last = Some(m);
    }
    if g.moves.len() > LISTED_PLIES {
        let more = (g.moves.len() - LISTED_PLIES) as u64;
        let _ = write!(moves, "… {more} more {} ", if more == 1 { "move" } else { "moves" });
    }
    moves.push_str(g.result.as_str());
    moves.push_str("</p>\n");
    s.push_str(&moves);
    if !boards.is_empty() {
        s.push_str("<div class=\"diagrams\">\n");
        s.push_str(&boards);
        s.push_str("</div>\n");
    }
    if bad > drawn.len() {
        let (shown, others) = (drawn.len() as u64, (bad - drawn.len()) as u64);
        let _ = writeln!(
            s,
            "<p class=\"muted\">The {} with the largest {} drawn; {} marked in the moves.</p>",
            counted(shown, "mistake or blunder", "mistakes and blunders"),
            if shown == 1 { "loss is" } else { "losses are" },
            if others == 1 { "the other is".to_string() } else { format!("the {others} others are") }
        );
    }
}

/// The side at the bottom of the board of move `i`: the player's with `--player`, else the mover's.
fn bottom(g: &GameRecord, player: Option<&str>, i: usize) -> Color {
    player
        .and_then(|p| {
            [Color::White, Color::Black]
                .into_iter()
                .find(|&c| g.tags.player(c).is_some_and(|n| super::name::same_name(n, p)))
        })
        .unwrap_or_else(|| g.mover(i))
}

/// Writes the whole page.
pub fn write_page<W: Write>(
    out: &mut impl std::io::Write,
    t: &mut Totals<W>,
    page: &Page<'_>,
) -> std::io::Result<()> {
    let mut s = String::with_capacity(1 << 20);
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let title = match t.player() {
        Some(p) => format!("pgnkit report: {p}"),
        None => "pgnkit report".to_string(),
    };
    let _ = writeln!(s, "<title>{}</title>", escape(&title));
    let _ = writeln!(s, "<meta name=\"generator\" content=\"{}\">", escape(page.generator));
    s.push_str("<style>\n");
    s.push_str(CSS);
    s.push_str(SVG_PAGE_CSS);
    s.push_str(&board_css());
    s.push_str(&graph_css());
    s.push_str("</style>\n</head>\n<body>\n");
    s.push_str(&svg_page_defs());
    s.push_str(&board_defs());
    s.push_str(&graph_defs());
    let _ = writeln!(s, "<header>\n<h1>{}</h1>", escape(&title));
    let names: Vec<String> = page.inputs.iter().map(|n| escape(n.text()).into_owned()).collect();
    let _ = writeln!(
        s,
        "<p class=\"muted\">{} from {} · {}</p>",
        counted(t.games, "game", "games"),
        names.join(", "),
        escape(page.generator)
    );
    s.push_str("<nav aria-label=\"Sections\"><ul><li><a href=\"#collection\">Collection</a></li><li><a href=\"#players\">Players</a></li><li><a href=\"#openings\">Openings</a></li><li><a href=\"#phases\">Phases</a></li><li><a href=\"#charts\">Charts</a></li><li><a href=\"#unevaluated\">Games without evaluations</a></li><li><a href=\"#games\">Games</a></li></ul></nav>\n</header>\n<main>\n");
    // The collection.
    s.push_str("<section id=\"collection\">\n<h2>Collection</h2>\n<dl class=\"facts\">\n");
    let _ = writeln!(
        s,
        "<dt>Games</dt><dd>{} ({} with evaluations, {} without{})</dd>",
        t.games,
        t.evaluated,
        t.unevaluated.0,
        if t.filtered > 0 { format!("; {} left out by the filters", t.filtered) } else { String::new() }
    );
    let _ = writeln!(
        s,
        "<dt>Results</dt><dd>1-0: {}, 0-1: {}, ½-½: {}, unfinished: {}</dd>",
        t.results[0], t.results[1], t.results[2], t.results[3]
    );
    if let Some((a, b)) = &t.dates {
        let _ = writeln!(s, "<dt>Dates</dt><dd>{} to {}</dd>", escape(a), escape(b));
    }
    let variants: Vec<String> = t.variants.iter().map(|(v, n)| format!("{v}: {n}")).collect();
    let variants = if variants.is_empty() { "none".to_string() } else { variants.join(", ") };
    let _ = writeln!(s, "<dt>Variants</dt><dd>{variants}</dd>");
    let sources: Vec<String> =
        t.sources.iter().map(|(f, n)| format!("{} ({n})", escape(f.prose()))).collect();
    let _ = writeln!(s, "<dt>Sources</dt><dd>{}</dd>", sources.join(", "));
    if t.broken > 0 {
        let _ = writeln!(
            s,
            "<dt>With errors</dt><dd>{} ({} moves up to the error are reported)</dd>",
            t.broken,
            if t.broken == 1 { "its" } else { "their" }
        );
    }
    let _ = writeln!(
        s,
        "<dt>Point of view</dt><dd>{}</dd>\n</dl>",
        match t.player() {
            Some(p) => escape(p).into_owned(),
            None => "both sides of every game".to_string(),
        }
    );
    let mut headers = vec!["side"];
    headers.extend(SIDE_HEADERS);
    let rows: Vec<Vec<String>> = [Color::White, Color::Black]
        .iter()
        .map(|&c| std::iter::once(side_name(c).to_string()).chain(side_cells(&t.sides[c])).collect())
        .collect();
    table(
        &mut s,
        "sides",
        "By colour: accuracy (lichess), average centipawn loss, judgements per 100 moves",
        &headers,
        &rows,
    );
    s.push_str("</section>\n");
    // Players.
    let (rows, listed) = player_rows(page.ranked, page.players);
    let who = if listed.shown < listed.qualified {
        format!(
            "The {} with the most games of the {} with at least {} (<code>--players</code>; <code>--format json</code> lists them all)",
            counted(listed.shown as u64, "player", "players"),
            listed.qualified,
            page.min_games
        )
    } else {
        format!("Players with at least {}", counted(page.min_games, "game", "games"))
    };
    let _ = writeln!(
        s,
        "<section id=\"players\">\n<h2>Players</h2>\n<p class=\"muted\">{who}. Accuracy is the mean of the games' accuracies; ACPL is over every move with an evaluation before and after it.</p>"
    );
    if listed.qualified == 0 {
        s.push_str("<p>No player has that many games.</p>\n");
    } else if !rows.is_empty() {
        table(&mut s, "sortable players", "Players by colour", &PLAYER_HEADERS, &rows);
    }
    s.push_str("</section>\n");
    // Openings.
    s.push_str("<section id=\"openings\">\n<h2>Openings</h2>\n<p class=\"muted\">Families of the lichess opening table, as named from each game's moves. The most costly recurring mistake: the same move in the same position judged more than once, with the most centipawns lost in all.</p>\n");
    let recurring = t.recurring();
    let mut rows = Vec::new();
    let mut boards = String::new();
    for (name, f) in &t.families {
        let r = recurring.get(name);
        let cell = r.map_or_else(
            || "-".to_string(),
            |r| {
                let (_, san, _) = recurring_texts(r);
                format!("{san} ({}×, {} cp)", r.count, r.loss)
            },
        );
        rows.push(family_row(name, f, cell));
        if let Some(r) = r {
            let (fen, san, _) = recurring_texts(r);
            let alt =
                format!("{name}: {san} played {} times in the position {fen}, drawn as a red arrow", r.count);
            boards.push_str("<figure>");
            let arrow = [Arrow::of_move(r.mv, ArrowKind::Played)];
            board(&mut boards, &r.position, !r.position.turn().is_white(), None, &arrow, &alt);
            let _ = writeln!(
                boards,
                "<figcaption>{}: {} ({}×, {} cp in all)</figcaption></figure>",
                escape(name),
                escape(&san),
                r.count,
                r.loss
            );
        }
    }
    let headers = family_headers(t.player().is_some());
    table(&mut s, "sortable openings", "Opening families", &headers, &rows);
    if !boards.is_empty() {
        s.push_str("<div class=\"diagrams\">\n");
        s.push_str(&boards);
        s.push_str("</div>\n");
    }
    s.push_str("</section>\n");
    // Phases.
    s.push_str("<section id=\"phases\">\n<h2>Phases</h2>\n<p class=\"muted\">Lichess's division of a game: the middlegame starts at the first position with at most 10 queens, rooks, bishops and knights, or fewer than 4 of a side's pieces on its back rank, or mixed pieces (lichess's mixedness score above 150); the endgame at the first position with at most 6 of those pieces. A move counts in the phase of the position it leads to.</p>\n");
    table(&mut s, "phases", "Losses by phase", &PHASE_HEADERS, &phase_rows(&t.spread));
    s.push_str("</section>\n");
    // Charts.
    s.push_str("<section id=\"charts\">\n<h2>Charts</h2>\n<div class=\"charts\">\n<div>\n<h3>Accuracy against rating</h3>\n");
    if t.ratings.is_empty() {
        s.push_str("<p>No game has both ratings and evaluations.</p>\n");
    } else {
        s.push_str(&rating_chart(&t.ratings));
        let rows = rating_rows(&t.ratings);
        table(&mut s, "ratings", "Mean accuracy by rating", &RATING_HEADERS, &rows);
    }
    s.push_str("</div>\n<div>\n<h3>Distribution of losses</h3>\n");
    s.push_str(&loss_chart(&t.spread.losses));
    table(&mut s, "losses", "Moves by centipawn loss", &LOSS_HEADERS, &loss_rows(&t.spread));
    s.push_str("</div>\n</div>\n</section>\n");
    // Games without evaluations.
    s.push_str("<section id=\"unevaluated\">\n<h2>Games without evaluations</h2>\n");
    if t.unevaluated.0 == 0 {
        s.push_str("<p>None.</p>\n");
    } else {
        let _ = writeln!(
            s,
            "<p>{} no evaluation; {} in the results and scores only.</p>\n<ul>",
            counted(t.unevaluated.0, "game has", "games have"),
            if t.unevaluated.0 == 1 { "it counts" } else { "they count" }
        );
        for u in &t.unevaluated.1 {
            let _ = writeln!(
                s,
                "<li>{} game {}: {} – {}</li>",
                escape(u.input.text()),
                u.number,
                escape(&u.players.0),
                escape(&u.players.1)
            );
        }
        s.push_str("</ul>\n");
        let more = t.unevaluated.0 - t.unevaluated.1.len() as u64;
        if more > 0 {
            let _ = writeln!(s, "<p>… and {more} more.</p>");
        }
    }
    s.push_str("</section>\n");
    out.write_all(s.as_bytes())?;
    // The games, largest losses first.
    let games = t.kept_games();
    let mut s = String::with_capacity(1 << 16);
    let cap = match page.boards {
        usize::MAX => String::new(),
        n => format!(" (at most {n} a game, the largest losses)"),
    };
    let _ = writeln!(
        s,
        "<section id=\"games\">\n<h2>Games</h2>\n<p class=\"muted\">The {} with the largest losses{}{}. The graph is White's winning chances after each move (lichess's formula), a dashed line bridging moves without an evaluation; <span class=\"legend\"><span class=\"inaccuracy\">inaccuracies</span>, <span class=\"mistake\">mistakes</span> and <span class=\"blunder\">blunders</span></span> are marked in their colours. Each mistake and blunder{cap} is drawn with the move played in red and, where the annotation names it, the engine's best in green.</p>",
        counted(games.len() as u64, "game", "games"),
        if t.player().is_some() { " of the player" } else { "" },
        if games.len() > 1 { ", largest first" } else { "" },
    );
    out.write_all(s.as_bytes())?;
    let player = t.player_key().map(str::to_string);
    for (k, a) in games.iter().enumerate() {
        s.clear();
        game_section(&mut s, a, k + 1, player.as_deref(), page.boards);
        out.write_all(s.as_bytes())?;
    }
    s.clear();
    s.push_str("</section>\n</main>\n<script>\n");
    s.push_str(SCRIPT);
    s.push_str("</script>\n</body>\n</html>\n");
    out.write_all(s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::report::game::game_from_san;
    use crate::notation::san::parse_san;

    /// A game between `white` and `black` whose moves (SAN) are evaluated in centipawns.
    fn evaluated_game(white: &str, black: &str, moves: &[(&str, i32)]) -> GameRecord {
        let moves: Vec<_> = moves.iter().map(|&(san, cp)| (san, Some(cp))).collect();
        let mut g = game_from_san(&moves);
        g.tags.set(TagName::White, white);
        g.tags.set(TagName::Black, black);
        g
    }

    /// The page of `games`: at most `players` players with a row (of those with a game), and
    /// at most `boards` boards a game.
    fn page_of(games: Vec<GameRecord>, players: usize, boards: usize) -> String {
        let mut t = Totals::new(std::io::sink(), None, 10);
        for g in games {
            t.add_record(g);
        }
        let ranked = t.ranked_players(1, players).expect("players");
        let inputs = [Name::from("games.pgn")];
        let page =
            Page { inputs: &inputs, min_games: 1, generator: "pgnkit", players, ranked: &ranked, boards };
        let mut out = Vec::new();
        write_page(&mut out, &mut t, &page).expect("written");
        String::from_utf8(out).expect("UTF-8")
    }

    /// Where `text` says 1 of something in the plural (`1 games`, `1 others`, but not `21 games`).
    fn plural_ones(text: &str) -> Vec<String> {
        let words = ["games", "moves", "players", "mistakes", "others", "have", "losses"];
        let mut found = Vec::new();
        for (at, _) in text.match_indices("1 ") {
            let before = text[..at].chars().next_back();
            let word: String = text[at + 2..].chars().take_while(char::is_ascii_alphabetic).collect();
            if !before.is_some_and(|c| c.is_ascii_digit() || c == '.') && words.contains(&word.as_str()) {
                found.push(text[at.saturating_sub(30)..(at + 40).min(text.len())].to_string());
            }
        }
        found
    }

    #[test]
    fn one_of_anything_is_said_in_the_singular() {
        let two_blunders = evaluated_game("A", "B", &[("e4", 20), ("f6", 250), ("d4", 250), ("g5", 2000)]);
        let html = page_of(vec![two_blunders, GameRecord::new(2)], 1, 1);
        assert_eq!(plural_ones(&html), Vec::<String>::new(), "{html}");
        for said in [
            "2 games from games.pgn",
            "1 game has no evaluation; it counts in the results",
            "The 1 game with the largest losses. The graph",
            "The 1 mistake or blunder with the largest loss is drawn; the other is marked",
            "The 1 player with the most games of the 2 with at least 1",
        ] {
            assert!(html.contains(said), "{said}: {html}");
        }
        let one_move = page_of(vec![evaluated_game("A", "B", &[("e4", 20)])], 500, 50);
        assert_eq!(plural_ones(&one_move), Vec::<String>::new(), "{one_move}");
        assert!(one_move.contains("after each move (1 move, 1 evaluated)"), "{one_move}");
    }

    #[test]
    fn no_game_kept_has_no_variant() {
        assert!(page_of(Vec::new(), 500, 50).contains("<dt>Variants</dt><dd>none</dd>"));
        let one = page_of(vec![GameRecord::new(1)], 500, 50);
        assert!(one.contains("<dt>Variants</dt><dd>Standard: 1</dd>"), "{one}");
    }

    #[test]
    fn every_table_scrolls_sideways_in_a_box_of_its_own() {
        let long = "Q".repeat(120);
        let html = page_of(vec![evaluated_game(&long, "B", &[("e4", 20), ("f6", 250)])], 500, 50);
        let tables = html.matches("<table").count();
        assert!(tables >= 6, "{html}");
        assert_eq!(html.matches("<div class=\"wide\"><table").count(), tables, "{html}");
        assert_eq!(html.matches("</table></div>").count(), tables, "{html}");
        assert!(html.contains(&format!("<th scope=\"row\" class=\"text\">{long}</th>")));
        // Names break anywhere in their cells; in print a table is drawn whole, not scrolled.
        assert!(CSS.contains(".wide{overflow-x:auto") && CSS.contains("th.text{overflow-wrap:anywhere"));
        let print = &CSS[CSS.find("@media print").expect("a print stylesheet")..];
        assert!(print.contains(".wide{overflow:visible}"), "{print}");
    }

    #[test]
    fn lines_are_numbered_as_read() {
        let mut pos = Position::default();
        let (e4, _) = parse_san(&pos, b"e4").expect("legal");
        pos.play_unchecked(e4);
        let mut p = pos;
        let moves: Vec<Move> = ["e5", "Nf3", "Nc6"]
            .iter()
            .map(|t| {
                let (m, _) = parse_san(&p, t.as_bytes()).expect("legal");
                p.play_unchecked(m);
                m
            })
            .collect();
        assert_eq!(san_line(&pos, &moves), "1... e5 2. Nf3 Nc6");
    }

    #[test]
    fn a_long_game_is_kept_as_its_drawn_section_listing_its_first_plies() {
        // 3,000 plies of knights out and back, every tenth move giving away four pawns.
        let moves: Vec<(&str, i32)> = (0..3000)
            .map(|i| (["Nf3", "Nf6", "Ng1", "Ng8"][i % 4], if i % 10 == 9 { 400 } else { 0 }))
            .collect();
        let mut t = Totals::new(std::io::sink(), None, 10);
        t.add_record(evaluated_game("a", "b", &moves));
        let kept = t.kept_games();
        assert!(kept[0].game.moves.is_empty() && kept[0].figures.losses.is_empty(), "kept without its plies");
        let drawn = kept[0].drawn.as_deref().expect("drawn as kept");
        assert!(drawn.contains("… 2000 more moves *</p>"), "{drawn}");
        // The drawing is what the whole game's section draws.
        let whole = Analysed::new(evaluated_game("a", "b", &moves), None, &mut Default::default());
        let mut body = String::new();
        section_body(&mut body, &whole, None, super::super::DEFAULT_BOARDS);
        assert_eq!(drawn, body);
        assert_eq!(body.matches("<figure>").count(), super::super::DEFAULT_BOARDS);
    }
}
