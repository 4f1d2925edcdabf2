//! Board diagrams: text (ASCII or Unicode, with coordinates) and an SVG image with coordinates,
//! a last-move highlight, a red glow on a king in check, arrows (a move played, the engine's
//! best) and crazyhouse pockets: a standalone document (`pgnkit show`), or a board in an HTML
//! page that draws its squares from one shared copy (`pgnkit report`).
//!
//! The SVG draws pieces as the Unicode chess symbols in `<text>` elements (the filled glyphs for
//! both colors: White's are filled white and outlined in black), with a list of fonts that carry
//! them and a text-presentation selector so that no renderer substitutes an emoji. No artwork is
//! embedded. Every square is one `<rect class="square ...">`, so there are exactly 64.
//!
//! ```
//! use pgnkit::notation::diagram::{TextStyle, text_diagram};
//! use pgnkit::Position;
//! let text = text_diagram(&Position::default(), TextStyle::Ascii, false);
//! assert!(text.contains("8 | r n b q k b n r |"));
//! assert!(text.ends_with("    a b c d e f g h\n"));
//! ```

use std::fmt::Write as _;

use crate::chess::{Color, File, Move, Piece, Position, Rank, Role, Square};

/// Characters used by [`text_diagram`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextStyle {
    /// FEN letters (`K` White king, `q` Black queen), `.` for empty squares.
    Ascii,
    /// Unicode chess symbols, `·` for empty squares, box-drawing frame.
    Unicode,
}

/// Squares in display order: rows from the top, each row left to right.
fn rows(flip: bool) -> impl Iterator<Item = (Rank, Vec<File>)> {
    (0..8u32).map(move |row| {
        let rank = if flip { Rank::new(row) } else { Rank::new(7 - row) };
        let files = (0..8u32).map(|col| if flip { File::new(7 - col) } else { File::new(col) }).collect();
        (rank, files)
    })
}

fn file_labels(flip: bool) -> String {
    let mut s = String::new();
    for col in 0..8u32 {
        let f = if flip { File::new(7 - col) } else { File::new(col) };
        if col > 0 {
            s.push(' ');
        }
        s.push(f.char());
    }
    s
}

/// The pocket contents, `Q R N P P` style (crazyhouse only).
fn pocket_text(pos: &Position, color: Color, unicode: bool) -> String {
    let mut s = String::new();
    for role in Role::POCKET.iter().rev() {
        for _ in 0..pos.pockets()[color].count(*role) {
            let piece = role.of(color);
            s.push(if unicode { piece.unicode() } else { piece.char() });
        }
    }
    if s.is_empty() { "-".to_string() } else { s }
}

/// A text diagram with rank numbers on the left and file letters below; `flip` puts Black at the
/// bottom. Crazyhouse pockets follow on two lines.
pub fn text_diagram(pos: &Position, style: TextStyle, flip: bool) -> String {
    let unicode = style == TextStyle::Unicode;
    let (top, bottom, side) = if unicode {
        ("  ┌─────────────────┐", "  └─────────────────┘", '│')
    } else {
        ("  +-----------------+", "  +-----------------+", '|')
    };
    let mut s = String::with_capacity(400);
    s.push_str(top);
    s.push('\n');
    for (rank, files) in rows(flip) {
        let _ = write!(s, "{} {side}", rank.char());
        for f in files {
            let sq = Square::from_coords(f, rank);
            let c = match pos.board().piece_at(sq) {
                Some(p) if unicode => p.unicode(),
                Some(p) => p.char(),
                None if unicode => '·',
                None => '.',
            };
            s.push(' ');
            s.push(c);
        }
        let _ = writeln!(s, " {side}");
    }
    s.push_str(bottom);
    s.push('\n');
    let _ = writeln!(s, "    {}", file_labels(flip));
    if pos.variant() == crate::Variant::Crazyhouse {
        let _ = writeln!(
            s,
            "  pockets: White {}, Black {}",
            pocket_text(pos, Color::White, unicode),
            pocket_text(pos, Color::Black, unicode)
        );
    }
    s
}

/// Options for [`svg`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SvgOptions {
    /// Black at the bottom.
    pub flip: bool,
    /// The move that led to the position: its squares are highlighted.
    pub last_move: Option<Move>,
    /// Arrows over the pieces: a move played, the engine's best ([`Arrow::of_move`]).
    pub arrows: [Option<Arrow>; 2],
    /// A board inside an HTML page that holds [`svg_page_defs`] and [`SVG_PAGE_CSS`]: the squares
    /// and coordinates are a `<use>` of the page's one copy, and colours and fonts come from the
    /// page's stylesheet (the classes of the standalone drawing), so a page of hundreds of boards
    /// stays small. Without it the SVG is a standalone document.
    pub in_page: bool,
}

/// What an arrow shows, which sets its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrowKind {
    /// The move played (red).
    Played,
    /// The engine's best move (green).
    Best,
}

impl ArrowKind {
    const fn name(self) -> &'static str {
        match self {
            ArrowKind::Played => "played",
            ArrowKind::Best => "best",
        }
    }

    const fn color(self) -> &'static str {
        match self {
            ArrowKind::Played => "#c33",
            ArrowKind::Best => "#15781b",
        }
    }
}

/// An arrow from one square to another; a drop (or a king castling onto its own square) is a
/// ring on the square, `from == to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrow {
    /// Where it starts.
    pub from: Square,
    /// Where it points.
    pub to: Square,
    /// Its meaning.
    pub kind: ArrowKind,
}

impl Arrow {
    /// The arrow of a move: castling (stored king-takes-rook) points at the king's destination,
    /// the c- or g-file of its rank, as players see it; a drop is a ring on its square.
    pub fn of_move(m: Move, kind: ArrowKind) -> Arrow {
        let to = m.to();
        let Some(from) = m.from() else { return Arrow { from: to, to, kind } };
        if m.is_castle() {
            let file = if to.file().index() > from.file().index() { 6 } else { 2 };
            return Arrow { from, to: Square::from_coords(File::new(file), from.rank()), kind };
        }
        Arrow { from, to, kind }
    }
}

const SQ: u32 = 45;
const MARGIN: u32 = 20;
/// Height of a crazyhouse pocket's strip above and below the board.
const POCKET: u32 = 30;
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const LIGHT_LAST: &str = "#cdd26a";
const DARK_LAST: &str = "#aaa23a";
const FONTS: &str = "'DejaVu Sans', 'Noto Sans Symbols 2', 'Noto Sans Symbols', 'Segoe UI Symbol', \
                     'Arial Unicode MS', FreeSerif, Symbola, sans-serif";

/// The stylesheet in-page boards ([`SvgOptions::in_page`]) need: the presentation the standalone
/// SVG writes as attributes, by class.
pub const SVG_PAGE_CSS: &str = "\
svg.board .pieces{font-family:'DejaVu Sans','Noto Sans Symbols 2','Noto Sans Symbols','Segoe UI Symbol','Arial Unicode MS',FreeSerif,Symbola,sans-serif;font-size:38px;text-anchor:middle;dominant-baseline:central}
svg.board .piece{stroke:#000;stroke-width:1px}
svg.board .piece.white{fill:#fff}
svg.board .piece.black{fill:#000}
svg.board .pocket{font-size:22px;dominant-baseline:central}
svg.board .pocket-count{font-family:sans-serif;font-size:13px;font-weight:bold;fill:#262421;stroke:none;dominant-baseline:central}
svg.board .arrow{stroke-width:8px;stroke-linecap:round;opacity:.8;fill:none}
";

/// The filled glyph of a role (used for both colors).
fn glyph(role: Role) -> char {
    Piece { color: Color::Black, role }.unicode()
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// Where things go on a board drawing: the board's top-left corner is `(0, top)`.
#[derive(Clone, Copy)]
struct Layout {
    flip: bool,
    /// Pixels above the board's frame: a pocket's strip in crazyhouse, else 0.
    top: u32,
}

impl Layout {
    /// The top-left corner of a square.
    fn xy(self, sq: Square) -> (u32, u32) {
        let (col, row) = if self.flip {
            (7 - sq.file().index() as u32, sq.rank().index() as u32)
        } else {
            (sq.file().index() as u32, 7 - sq.rank().index() as u32)
        };
        (MARGIN + col * SQ, self.top + MARGIN + row * SQ)
    }

    /// The centre of a square.
    fn centre(self, sq: Square) -> (u32, u32) {
        let (x, y) = self.xy(sq);
        (x + SQ / 2, y + SQ / 2)
    }
}

/// The 64 squares (the last move's highlighted when `highlighted`) and the coordinates, with
/// their presentation attributes, the board's frame at `(0, top)`.
fn squares_and_coordinates(s: &mut String, layout: Layout, highlighted: &[Square]) {
    let size = 8 * SQ + 2 * MARGIN;
    let mut name = String::new();
    for (rank, files) in rows(layout.flip) {
        for f in files {
            let sq = Square::from_coords(f, rank);
            let (x, y) = layout.xy(sq);
            let light = sq.is_light();
            let last = highlighted.contains(&sq);
            let fill = match (light, last) {
                (true, false) => LIGHT,
                (false, false) => DARK,
                (true, true) => LIGHT_LAST,
                (false, true) => DARK_LAST,
            };
            name.clear();
            name.push(f.char());
            name.push(rank.char());
            let _ = writeln!(
                s,
                "<rect class=\"square {} {name}{}\" x=\"{x}\" y=\"{y}\" width=\"{SQ}\" height=\"{SQ}\" fill=\"{fill}\"/>",
                if light { "light" } else { "dark" },
                if last { " lastmove" } else { "" },
            );
        }
    }
    coordinates(s, layout, size);
}

fn coordinates(s: &mut String, layout: Layout, size: u32) {
    s.push_str(
        "<g class=\"coordinates\" font-family=\"sans-serif\" font-size=\"12\" font-weight=\"bold\" fill=\"#e5e5e5\" text-anchor=\"middle\" dominant-baseline=\"central\">\n",
    );
    let top = layout.top;
    for i in 0..8u32 {
        let f = if layout.flip { File::new(7 - i) } else { File::new(i) };
        let r = if layout.flip { Rank::new(i) } else { Rank::new(7 - i) };
        let c = MARGIN + i * SQ + SQ / 2;
        for (x, y) in [(c, top + MARGIN / 2), (c, top + size - MARGIN / 2)] {
            let _ = writeln!(s, "<text class=\"coord file\" x=\"{x}\" y=\"{y}\">{}</text>", f.char());
        }
        for (x, y) in [(MARGIN / 2, top + c), (size - MARGIN / 2, top + c)] {
            let _ = writeln!(s, "<text class=\"coord rank\" x=\"{x}\" y=\"{y}\">{}</text>", r.char());
        }
    }
    s.push_str("</g>\n");
}

/// The check glow's gradient, under the id `id`.
fn check_gradient(id: &str) -> String {
    format!(
        "<radialGradient id=\"{id}\" r=\"0.5\">\
         <stop offset=\"0%\" stop-color=\"#ff0000\" stop-opacity=\"1\"/>\
         <stop offset=\"50%\" stop-color=\"#e70000\" stop-opacity=\"0.9\"/>\
         <stop offset=\"100%\" stop-color=\"#9e0000\" stop-opacity=\"0\"/>\
         </radialGradient>\n"
    )
}

/// An arrowhead marker for `kind`, under the id `{prefix}arrow-{kind}`.
fn arrow_marker(prefix: &str, kind: ArrowKind) -> String {
    format!(
        "<marker id=\"{prefix}arrow-{}\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"3\" markerHeight=\"3\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{}\"/></marker>\n",
        kind.name(),
        kind.color()
    )
}

/// The definitions in-page boards refer to, once per page (a hidden `<svg>`): both boards'
/// squares and coordinates (`#pk-board`, `#pk-board-flipped`), the check glow and the
/// arrowheads.
pub fn svg_page_defs() -> String {
    let mut s = String::with_capacity(16_000);
    s.push_str(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board-defs\" width=\"0\" height=\"0\" aria-hidden=\"true\" focusable=\"false\"><defs>\n",
    );
    s.push_str(&check_gradient("pk-check"));
    for kind in [ArrowKind::Played, ArrowKind::Best] {
        s.push_str(&arrow_marker("pk-", kind));
    }
    // One copy of each piece; boards place them with `<use>`.
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            let fill = if color.is_white() { "#ffffff" } else { "#000000" };
            let _ = writeln!(
                s,
                "<g id=\"pk-{}-{}\"><text class=\"piece {} {}\" x=\"0\" y=\"1\" font-family=\"{FONTS}\" font-size=\"38\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"{fill}\" stroke=\"#000000\" stroke-width=\"1\">{}\u{fe0e}</text></g>",
                color.name(),
                role_name(role),
                color.name(),
                role_name(role),
                glyph(role)
            );
        }
    }
    for (id, flip) in [("pk-board", false), ("pk-board-flipped", true)] {
        let size = 8 * SQ + 2 * MARGIN;
        let _ = writeln!(s, "<g id=\"{id}\">");
        let _ = writeln!(
            s,
            "<rect class=\"border\" x=\"0\" y=\"0\" width=\"{size}\" height=\"{size}\" fill=\"#262421\"/>"
        );
        squares_and_coordinates(&mut s, Layout { flip, top: 0 }, &[]);
        s.push_str("</g>\n");
    }
    s.push_str("</defs></svg>\n");
    s
}

/// A board drawing: 64 squares, pieces, coordinates in the margin, the last move's squares
/// highlighted, a red radial gradient under a king in check, the arrows, and in crazyhouse each
/// side's pocket in a strip on its side of the board. A standalone document
/// (`<svg xmlns=... viewBox=...>`), or a board for an HTML page ([`SvgOptions::in_page`]).
pub fn svg(pos: &Position, opts: &SvgOptions) -> String {
    let size = 8 * SQ + 2 * MARGIN;
    let pockets = pos.variant() == crate::Variant::Crazyhouse;
    let layout = Layout { flip: opts.flip, top: if pockets { POCKET } else { 0 } };
    let height = size + 2 * layout.top;
    let arrows: Vec<Arrow> = opts.arrows.iter().flatten().copied().collect();
    let mut s = String::with_capacity(if opts.in_page { 2_000 } else { 12_000 });
    let highlighted: Vec<Square> =
        opts.last_move.map(|m| m.from().into_iter().chain([m.to()]).collect()).unwrap_or_default();
    let prefix = if opts.in_page { "pk-" } else { "" };
    if opts.in_page {
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board\" viewBox=\"0 0 {size} {height}\">"
        );
        let board = if opts.flip { "pk-board-flipped" } else { "pk-board" };
        let _ = writeln!(s, "<use href=\"#{board}\" y=\"{}\"/>", layout.top);
        for &sq in &highlighted {
            let (x, y) = layout.xy(sq);
            let fill = if sq.is_light() { LIGHT_LAST } else { DARK_LAST };
            let _ = writeln!(
                s,
                "<rect class=\"lastmove\" x=\"{x}\" y=\"{y}\" width=\"{SQ}\" height=\"{SQ}\" fill=\"{fill}\"/>"
            );
        }
    } else {
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" viewBox=\"0 0 {size} {height}\" width=\"{size}\" height=\"{height}\">"
        );
        s.push_str("<defs>\n");
        s.push_str(&check_gradient("check"));
        for kind in [ArrowKind::Played, ArrowKind::Best] {
            if arrows.iter().any(|a| a.kind == kind && a.from != a.to) {
                s.push_str(&arrow_marker("", kind));
            }
        }
        s.push_str("</defs>\n");
        let _ = writeln!(
            s,
            "<rect class=\"border\" x=\"0\" y=\"0\" width=\"{size}\" height=\"{height}\" fill=\"#262421\"/>"
        );
        if pockets {
            let _ = writeln!(
                s,
                "<rect class=\"pockets\" x=\"0\" y=\"0\" width=\"{size}\" height=\"{height}\" fill=\"#e8e6e3\"/>"
            );
            let _ = writeln!(
                s,
                "<rect class=\"frame\" x=\"0\" y=\"{}\" width=\"{size}\" height=\"{size}\" fill=\"#262421\"/>",
                layout.top
            );
        }
        let mut squares = String::new();
        squares_and_coordinates(&mut squares, layout, &highlighted);
        // The coordinates are drawn over the pieces, as they always were.
        let (squares_only, coords) =
            squares.split_at(squares.find("<g class=\"coordinates\"").unwrap_or(squares.len()));
        s.push_str(squares_only);
        draw_pieces(&mut s, pos, layout, opts.in_page, prefix);
        s.push_str(coords);
        draw_pockets(&mut s, pos, layout, size, false);
        draw_arrows(&mut s, &arrows, layout, prefix);
        s.push_str("</svg>\n");
        return s;
    }
    if pockets {
        let _ = writeln!(
            s,
            "<rect class=\"pockets\" x=\"0\" y=\"0\" width=\"{size}\" height=\"{}\" fill=\"#e8e6e3\"/>",
            layout.top
        );
        let _ = writeln!(
            s,
            "<rect class=\"pockets\" x=\"0\" y=\"{}\" width=\"{size}\" height=\"{}\" fill=\"#e8e6e3\"/>",
            layout.top + size,
            layout.top
        );
    }
    draw_pieces(&mut s, pos, layout, true, prefix);
    draw_pockets(&mut s, pos, layout, size, true);
    draw_arrows(&mut s, &arrows, layout, prefix);
    s.push_str("</svg>\n");
    s
}

/// The check glow and the pieces.
fn draw_pieces(s: &mut String, pos: &Position, layout: Layout, in_page: bool, prefix: &str) {
    let checked_king = if pos.is_check() { pos.board().king_of(pos.turn()) } else { None };
    if let Some(k) = checked_king {
        let (x, y) = layout.xy(k);
        let _ = writeln!(
            s,
            "<circle class=\"check\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"url(#{prefix}check)\"/>",
            x + SQ / 2,
            y + SQ / 2,
            SQ / 2
        );
    }
    if in_page {
        s.push_str("<g class=\"pieces\">\n");
        for (sq, piece) in pos.board().pieces() {
            let (x, y) = layout.centre(sq);
            let _ = writeln!(
                s,
                "<use href=\"#pk-{}-{}\" x=\"{x}\" y=\"{y}\"/>",
                piece.color.name(),
                role_name(piece.role)
            );
        }
        s.push_str("</g>\n");
        return;
    }
    let _ = writeln!(
        s,
        "<g class=\"pieces\" font-family=\"{FONTS}\" font-size=\"38\" text-anchor=\"middle\" dominant-baseline=\"central\">"
    );
    for (sq, piece) in pos.board().pieces() {
        let (x, y) = layout.centre(sq);
        let (fill, stroke) =
            if piece.color.is_white() { ("#ffffff", "#000000") } else { ("#000000", "#000000") };
        let _ = writeln!(
            s,
            "<text class=\"piece {} {}\" x=\"{x}\" y=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\" paint-order=\"stroke\">{}\u{fe0e}</text>",
            piece.color.name(),
            role_name(piece.role),
            y + 1,
            glyph(piece.role)
        );
    }
    s.push_str("</g>\n");
}

/// Each side's pocket (crazyhouse) in its strip: the side at the bottom of the board below it.
fn draw_pockets(s: &mut String, pos: &Position, layout: Layout, size: u32, in_page: bool) {
    if pos.variant() != crate::Variant::Crazyhouse {
        return;
    }
    let bottom = if layout.flip { Color::Black } else { Color::White };
    if in_page {
        s.push_str("<g class=\"pieces\">\n");
    } else {
        let _ = writeln!(
            s,
            "<g class=\"pieces\" font-family=\"{FONTS}\" font-size=\"22\" text-anchor=\"middle\" dominant-baseline=\"central\">"
        );
    }
    for color in [Color::White, Color::Black] {
        let y = if color == bottom { layout.top + size + layout.top / 2 } else { layout.top / 2 };
        let mut x = MARGIN + SQ / 2;
        for role in Role::POCKET.iter().rev() {
            let n = pos.pockets()[color].count(*role);
            if n == 0 {
                continue;
            }
            let _ = write!(
                s,
                "<text class=\"piece pocket {} {}\" x=\"{x}\" y=\"{y}\"",
                color.name(),
                role_name(*role)
            );
            if !in_page {
                let fill = if color.is_white() { "#ffffff" } else { "#000000" };
                let _ = write!(
                    s,
                    " fill=\"{fill}\" stroke=\"#000000\" stroke-width=\"1\" paint-order=\"stroke\""
                );
            }
            let _ = writeln!(s, ">{}\u{fe0e}</text>", glyph(*role));
            let _ = write!(s, "<text class=\"pocket-count\" x=\"{}\" y=\"{y}\"", x + 16);
            if !in_page {
                s.push_str(
                    " font-family=\"sans-serif\" font-size=\"13\" font-weight=\"bold\" fill=\"#262421\"",
                );
            }
            let _ = writeln!(s, ">{n}</text>");
            x += SQ;
        }
    }
    s.push_str("</g>\n");
}

/// The arrows: a line from centre to centre ending in a head, or a ring for a drop.
fn draw_arrows(s: &mut String, arrows: &[Arrow], layout: Layout, prefix: &str) {
    for a in arrows {
        let (x1, y1) = layout.centre(a.from);
        let color = a.kind.color();
        let name = a.kind.name();
        if a.from == a.to {
            let _ = writeln!(
                s,
                "<circle class=\"arrow {name}\" cx=\"{x1}\" cy=\"{y1}\" r=\"{}\" stroke=\"{color}\" stroke-width=\"5\" fill=\"none\" opacity=\"0.8\"/>",
                SQ / 2 - 4
            );
            continue;
        }
        let (x2, y2) = layout.centre(a.to);
        // Stop short of the centre so that the head ends on the target square.
        let (dx, dy) = (f64::from(x2) - f64::from(x1), f64::from(y2) - f64::from(y1));
        let len = (dx * dx + dy * dy).sqrt();
        let cut = f64::from(SQ) * 0.3 / len;
        let (ex, ey) = (f64::from(x2) - dx * cut, f64::from(y2) - dy * cut);
        let _ = writeln!(
            s,
            "<line class=\"arrow {name}\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{ex:.1}\" y2=\"{ey:.1}\" stroke=\"{color}\" stroke-width=\"8\" stroke-linecap=\"round\" opacity=\"0.8\" marker-end=\"url(#{prefix}arrow-{name})\"/>"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
    #[cfg(feature = "variants")]
    fn text_flipped_and_unicode() {
        let pos = Position::default();
        let t = text_diagram(&pos, TextStyle::Ascii, true);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[1], "1 | R N B K Q B N R |");
        assert_eq!(lines[10], "    h g f e d c b a");
        let u = text_diagram(&pos, TextStyle::Unicode, false);
        assert!(u.contains("8 │ ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜ │") && u.contains("5 │ · · · · · · · · │"), "{u}");
        let zh = parse_fen(
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R[Pn] b KQkq - 0 1",
            crate::Variant::Crazyhouse,
        )
        .expect("valid");
        assert!(text_diagram(&zh, TextStyle::Ascii, false).contains("pockets: White P, Black n"));
    }

    #[test]
    fn svg_structure() {
        let pos = parse_fen(
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            crate::Variant::Standard,
        )
        .expect("valid");
        let last = Move::normal(Square::D8, Square::H4);
        let doc = svg(&pos, &SvgOptions { last_move: Some(last), ..SvgOptions::default() });
        assert!(doc.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert_eq!(doc.matches("<rect class=\"square ").count(), 64);
        assert_eq!(doc.matches(" lastmove\"").count(), 2);
        assert_eq!(doc.matches("class=\"piece ").count(), 32);
        assert_eq!(doc.matches("<circle class=\"check\"").count(), 1);
        assert!(doc.contains("class=\"square dark e1\""));
        assert_eq!(doc.matches("class=\"coord ").count(), 32);
        assert!(doc.trim_end().ends_with("</svg>"));
        assert!(!svg(&Position::default(), &SvgOptions::default()).contains("<circle"));
    }

    #[test]
    #[cfg(feature = "variants")]
    fn svg_arrows_pockets_and_in_page_boards() {
        let pos = Position::default();
        let played = Arrow::of_move(Move::normal(Square::E2, Square::E4), ArrowKind::Played);
        let castle = Arrow::of_move(Move::castle(Square::E1, Square::H1), ArrowKind::Best);
        assert_eq!((castle.from, castle.to), (Square::E1, Square::G1));
        let drop = Arrow::of_move(Move::drop(Role::Knight, Square::F3), ArrowKind::Best);
        assert_eq!((drop.from, drop.to), (Square::F3, Square::F3));
        let opts = SvgOptions { arrows: [Some(played), Some(drop)], ..SvgOptions::default() };
        let doc = svg(&pos, &opts);
        assert_eq!(doc.matches("<line class=\"arrow played\"").count(), 1);
        assert_eq!(doc.matches("<circle class=\"arrow best\"").count(), 1);
        assert!(doc.contains("<marker id=\"arrow-played\"") && !doc.contains("id=\"arrow-best\""));
        let page = svg(&pos, &SvgOptions { in_page: true, ..opts });
        assert!(page.contains("<use href=\"#pk-board\" y=\"0\"/>") && page.contains("url(#pk-arrow-played)"));
        assert!(!page.contains("<rect class=\"square ") && !page.contains(" fill=\"#ffffff\""));
        assert_eq!(
            page.matches("<use href=\"#pk-white-").count() + page.matches("<use href=\"#pk-black-").count(),
            32
        );
        assert!(page.len() < 2_000, "{} bytes", page.len());
        let defs = svg_page_defs();
        assert_eq!(defs.matches("<rect class=\"square ").count(), 128);
        assert!(defs.contains("id=\"pk-board-flipped\"") && defs.contains("id=\"pk-arrow-best\""));
        assert_eq!(defs.matches("<g id=\"pk-white-").count() + defs.matches("<g id=\"pk-black-").count(), 12);
        let zh = parse_fen(
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R[PPn] b KQkq - 0 1",
            crate::Variant::Crazyhouse,
        )
        .expect("valid");
        for in_page in [false, true] {
            let doc = svg(&zh, &SvgOptions { in_page, ..SvgOptions::default() });
            assert!(doc.contains("viewBox=\"0 0 400 460\""), "{doc}");
            assert_eq!(doc.matches("class=\"piece pocket white pawn\"").count(), 1);
            assert_eq!(doc.matches("class=\"piece pocket black knight\"").count(), 1);
            assert!(doc.contains(">2</text>"), "two pawns in White's pocket");
        }
    }
}
