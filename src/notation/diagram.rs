//! Board diagrams: text (ASCII or Unicode, with coordinates) and a standalone SVG image with
//! coordinates, a last-move highlight and a red glow on a king in check.
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
}

const SQ: u32 = 45;
const MARGIN: u32 = 20;
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const LIGHT_LAST: &str = "#cdd26a";
const DARK_LAST: &str = "#aaa23a";
const FONTS: &str = "'DejaVu Sans', 'Noto Sans Symbols 2', 'Noto Sans Symbols', 'Segoe UI Symbol', \
                     'Arial Unicode MS', FreeSerif, Symbola, sans-serif";

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

/// A standalone SVG document (`<svg xmlns=... viewBox=...>`): 64 squares, pieces, coordinates in
/// the margin, the last move's squares highlighted and a red radial gradient under a king in check.
pub fn svg(pos: &Position, opts: &SvgOptions) -> String {
    let size = 8 * SQ + 2 * MARGIN;
    let mut s = String::with_capacity(12_000);
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" viewBox=\"0 0 {size} {size}\" width=\"{size}\" height=\"{size}\">"
    );
    s.push_str(
        "<defs>\n<radialGradient id=\"check\" r=\"0.5\">\
         <stop offset=\"0%\" stop-color=\"#ff0000\" stop-opacity=\"1\"/>\
         <stop offset=\"50%\" stop-color=\"#e70000\" stop-opacity=\"0.9\"/>\
         <stop offset=\"100%\" stop-color=\"#9e0000\" stop-opacity=\"0\"/>\
         </radialGradient>\n</defs>\n",
    );
    let _ = writeln!(
        s,
        "<rect class=\"border\" x=\"0\" y=\"0\" width=\"{size}\" height=\"{size}\" fill=\"#262421\"/>"
    );
    let highlighted: Vec<Square> =
        opts.last_move.map(|m| m.from().into_iter().chain([m.to()]).collect()).unwrap_or_default();
    let checked_king = if pos.is_check() { pos.board().king_of(pos.turn()) } else { None };
    let xy = |sq: Square| -> (u32, u32) {
        let (col, row) = if opts.flip {
            (7 - sq.file().index() as u32, sq.rank().index() as u32)
        } else {
            (sq.file().index() as u32, 7 - sq.rank().index() as u32)
        };
        (MARGIN + col * SQ, MARGIN + row * SQ)
    };
    let mut name = String::new();
    for (rank, files) in rows(opts.flip) {
        for f in files {
            let sq = Square::from_coords(f, rank);
            let (x, y) = xy(sq);
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
    if let Some(k) = checked_king {
        let (x, y) = xy(k);
        let _ = writeln!(
            s,
            "<circle class=\"check\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"url(#check)\"/>",
            x + SQ / 2,
            y + SQ / 2,
            SQ / 2
        );
    }
    let _ = writeln!(
        s,
        "<g class=\"pieces\" font-family=\"{FONTS}\" font-size=\"38\" text-anchor=\"middle\" dominant-baseline=\"central\">"
    );
    for (sq, piece) in pos.board().pieces() {
        let (x, y) = xy(sq);
        let (fill, stroke) =
            if piece.color.is_white() { ("#ffffff", "#000000") } else { ("#000000", "#000000") };
        let _ = writeln!(
            s,
            "<text class=\"piece {} {}\" x=\"{}\" y=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\" paint-order=\"stroke\">{}\u{fe0e}</text>",
            piece.color.name(),
            role_name(piece.role),
            x + SQ / 2,
            y + SQ / 2 + 1,
            glyph(piece.role),
        );
    }
    s.push_str("</g>\n");
    s.push_str(
        "<g class=\"coordinates\" font-family=\"sans-serif\" font-size=\"12\" font-weight=\"bold\" fill=\"#e5e5e5\" text-anchor=\"middle\" dominant-baseline=\"central\">\n",
    );
    for i in 0..8u32 {
        let f = if opts.flip { File::new(7 - i) } else { File::new(i) };
        let r = if opts.flip { Rank::new(i) } else { Rank::new(7 - i) };
        let c = MARGIN + i * SQ + SQ / 2;
        for (x, y) in [(c, MARGIN / 2), (c, size - MARGIN / 2)] {
            let _ = writeln!(s, "<text class=\"coord file\" x=\"{x}\" y=\"{y}\">{}</text>", f.char());
        }
        for (x, y) in [(MARGIN / 2, c), (size - MARGIN / 2, c)] {
            let _ = writeln!(s, "<text class=\"coord rank\" x=\"{x}\" y=\"{y}\">{}</text>", r.char());
        }
    }
    s.push_str("</g>\n</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
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
        let doc = svg(&pos, &SvgOptions { flip: false, last_move: Some(last) });
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
}
