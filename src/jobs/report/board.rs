//! The report's boards, drawn compactly so that a page of thousands stays a few MB: one hidden
//! copy of each piece (ids its FEN letter, `#P` … `#k`), of the last-move squares (`#hl`, `#hd`)
//! and of the check glow (`#ck`); a board is a `<use>` of the page's squares and coordinates
//! ([`svg_page_defs`](crate::notation::diagram::svg_page_defs)) and, in a group scaled to one unit a square, a `<use x y>` of each piece,
//! its square's column and row as single unquoted digits
//! (none at 0). Styles come from [`BOARD_CSS`] once per page.
//! Crazyhouse positions (their pockets) are drawn by [`svg`] in its in-page form.

use std::fmt::Write as _;

use super::escape::escape;
use crate::chess::{Color, Move, Position, Role, Square};
use crate::notation::diagram::{Arrow, ArrowKind, SvgOptions, svg};

/// Pixels of a square and of the margin in [`svg_page_defs`](crate::notation::diagram::svg_page_defs)'s board.
const SQ: u32 = 45;
const MARGIN: u32 = 20;
const SIZE: u32 = 8 * SQ + 2 * MARGIN;

const FONTS: &str = "'DejaVu Sans','Noto Sans Symbols 2','Noto Sans Symbols','Segoe UI Symbol','Arial Unicode MS',FreeSerif,Symbola,sans-serif";

/// The arrows' presentation, in the boards' unit of one square (8 px of 45 as [`svg`] draws them).
pub const BOARD_CSS: &str = "\
svg.board .ar{fill:none;stroke-width:.18;stroke-linecap:round;opacity:.8}
svg.board .ar.pl{stroke:#c33;marker-end:url(#pk-arrow-played)}
svg.board .ar.be{stroke:#15781b;marker-end:url(#pk-arrow-best)}
svg.board circle.ar{stroke-width:.11;marker-end:none}
";

/// The definitions the boards refer to, once per page (a hidden `<svg>`, after
/// [`svg_page_defs`](crate::notation::diagram::svg_page_defs), whose check gradient and arrowheads they use).
pub fn board_defs() -> String {
    let mut s = String::with_capacity(4_000);
    s.push_str(
        "<svg class=\"board-defs\" width=\"0\" height=\"0\" aria-hidden=\"true\" focusable=\"false\"><defs>\n",
    );
    s.push_str("<rect id=\"hl\" width=\"1\" height=\"1\" fill=\"#cdd26a\"/>\n");
    s.push_str("<rect id=\"hd\" width=\"1\" height=\"1\" fill=\"#aaa23a\"/>\n");
    s.push_str("<circle id=\"ck\" cx=\".5\" cy=\".5\" r=\".5\" fill=\"url(#pk-check)\"/>\n");
    // Glyphs laid out in pixels and scaled to the unit square: text at a font size below one
    // pixel is not drawn alike by every browser.
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            let fill = if color.is_white() { "#fff" } else { "#000" };
            let glyph = crate::chess::Piece { color: Color::Black, role }.unicode();
            let _ = writeln!(
                s,
                "<g id=\"{}\"><text transform=\"scale({})\" x=\"22.5\" y=\"23.5\" font-family=\"{FONTS}\" font-size=\"38\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"{fill}\" stroke=\"#000\" stroke-width=\"1\">{glyph}\u{fe0e}</text></g>",
                crate::chess::Piece { color, role }.char(),
                1.0 / f64::from(SQ)
            );
        }
    }
    s.push_str("</defs></svg>\n");
    s
}

/// A square's column and row on the drawing, from the top-left.
fn cell(sq: Square, flip: bool) -> (u32, u32) {
    let (f, r) = (sq.file().index() as u32, sq.rank().index() as u32);
    if flip { (7 - f, r) } else { (f, 7 - r) }
}

/// A number of square units with at most two decimals, without trailing zeros.
fn unit(s: &mut String, v: f64) {
    let at = s.len();
    let _ = write!(s, "{v:.2}");
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
    if s.len() == at {
        s.push('0');
    }
}

/// A board of `pos` (Black at the bottom when `flip`), the squares of `last` highlighted, with
/// `arrows`, as an image whose text alternative is `label`.
pub fn board(s: &mut String, pos: &Position, flip: bool, last: Option<Move>, arrows: &[Arrow], label: &str) {
    if pos.variant() == crate::Variant::Crazyhouse {
        let mut opts = SvgOptions { flip, last_move: last, in_page: true, ..SvgOptions::default() };
        for (slot, a) in opts.arrows.iter_mut().zip(arrows) {
            *slot = Some(*a);
        }
        let _ = write!(s, "<div role=\"img\" aria-label=\"{}\">", escape(label));
        s.push_str(&svg(pos, &opts));
        s.push_str("</div>");
        return;
    }
    let _ = write!(
        s,
        "<svg class=\"board\" viewBox=\"0 0 {SIZE} {SIZE}\" role=\"img\" aria-label=\"{}\"><use href=\"#{}\"/><g transform=\"matrix({SQ} 0 0 {SQ} {MARGIN} {MARGIN})\">",
        escape(label),
        if flip { "pk-board-flipped" } else { "pk-board" }
    );
    let place = |s: &mut String, id: &str, sq: Square| {
        // Unquoted values, and none at 0: HTML reads both, and a board holds dozens of these.
        let (x, y) = cell(sq, flip);
        let _ = write!(s, "<use href=#{id}");
        if x > 0 {
            let _ = write!(s, " x={x}");
        }
        if y > 0 {
            let _ = write!(s, " y={y}");
        }
        s.push_str(" />");
    };
    if let Some(m) = last {
        for sq in m.from().into_iter().chain([m.to()]) {
            place(s, if sq.is_light() { "hl" } else { "hd" }, sq);
        }
    }
    if pos.is_check()
        && let Some(k) = pos.board().king_of(pos.turn())
    {
        place(s, "ck", k);
    }
    let mut id = [0u8; 4];
    for (sq, piece) in pos.board().pieces() {
        place(s, piece.char().encode_utf8(&mut id), sq);
    }
    for a in arrows {
        let class = match a.kind {
            ArrowKind::Played => "pl",
            ArrowKind::Best => "be",
        };
        let (c1, r1) = cell(a.from, flip);
        let (x1, y1) = (f64::from(c1) + 0.5, f64::from(r1) + 0.5);
        if a.from == a.to {
            let _ = write!(s, "<circle class=\"ar {class}\" cx=\"");
            unit(s, x1);
            s.push_str("\" cy=\"");
            unit(s, y1);
            s.push_str("\" r=\".41\"/>");
            continue;
        }
        let (c2, r2) = cell(a.to, flip);
        let (x2, y2) = (f64::from(c2) + 0.5, f64::from(r2) + 0.5);
        // Stop short of the centre so that the head ends on the target square.
        let (dx, dy) = (x2 - x1, y2 - y1);
        let cut = 0.3 / (dx * dx + dy * dy).sqrt();
        let _ = write!(s, "<line class=\"ar {class}\" x1=\"");
        for (k, v) in [x1, y1, x2 - dx * cut, y2 - dy * cut].into_iter().enumerate() {
            if k > 0 {
                s.push_str(["", "\" y1=\"", "\" x2=\"", "\" y2=\""][k]);
            }
            unit(s, v);
        }
        s.push_str("\"/>");
    }
    s.push_str("</g></svg>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::san::parse_san;

    #[test]
    fn boards_place_pieces_and_arrows_by_square() {
        let pos = Position::default();
        let (e4, _) = parse_san(&pos, b"e4").expect("legal");
        let mut s = String::new();
        board(&mut s, &pos, false, None, &[Arrow::of_move(e4, ArrowKind::Played)], "a <b>");
        assert!(s.starts_with(
            "<svg class=\"board\" viewBox=\"0 0 400 400\" role=\"img\" aria-label=\"a &lt;b&gt;\">"
        ));
        assert_eq!(s.matches("<use href=").count(), 33, "the squares and 32 pieces");
        assert!(s.contains("<use href=#K x=4 y=7 />") && s.contains("<use href=#q x=3 />"), "{s}");
        assert!(s.contains("<use href=#r />") && s.contains("<use href=#r x=7 />"), "{s}");
        assert!(s.contains("<line class=\"ar pl\" x1=\"4.5\" y1=\"6.5\" x2=\"4.5\" y2=\"4.8\"/>"), "{s}");
        let mut f = String::new();
        board(&mut f, &pos, true, Some(e4), &[], "");
        assert!(f.contains("#pk-board-flipped") && f.contains("<use href=#K x=3 />"));
        assert!(f.contains("<use href=#hl x=3 y=1 />") && f.contains("<use href=#hl x=3 y=3 />"));
        for id in ["hl", "hd", "ck", "P", "k"] {
            assert!(board_defs().contains(&format!("id=\"{id}\"")), "{id}");
        }
    }
}
