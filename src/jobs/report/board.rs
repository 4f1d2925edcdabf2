//! The report's boards, drawn compactly so that a page of thousands stays a few MB and quick to
//! draw: one hidden copy of each piece (ids its FEN letter, `#P` … `#k`), of the squares and
//! coordinates in square units (`#bu`, `#bf` flipped: 5 elements, since a browser copies them
//! for every board), of the last-move squares (`#hl`, `#hd`) and of the check glow (`#ck`). A
//! board's view box is in squares; each piece kind standing on two or more squares is one
//! `<path>` whose vertices are the squares and whose markers draw the piece
//! (`<path class=P d=M6,1,2,1 />`), a lone piece a `<use x y>` (single unquoted digits, none at
//! 0). Styles come from [`BOARD_CSS`] and [`board_marker_css`] once per page.
//! Crazyhouse positions (their pockets) are drawn by [`svg`] in its in-page form.

use std::fmt::Write as _;

use super::escape::escape;
use crate::chess::{Color, Move, Position, Role, Square};
use crate::notation::diagram::{Arrow, ArrowKind, SvgOptions, svg};

/// Pixels of a square and of the margin in [`svg_page_defs`](crate::notation::diagram::svg_page_defs)'s board.
const SQ: u32 = 45;
const MARGIN: u32 = 20;
/// A board's view in square units, the top-left square at the origin: the pieces' and arrows'
/// coordinates need no transform of their own.
const UNIT_BOX: &str = "-.44444 -.44444 8.88889 8.88889";

const FONTS: &str = "'DejaVu Sans','Noto Sans Symbols 2','Noto Sans Symbols','Segoe UI Symbol','Arial Unicode MS',FreeSerif,Symbola,sans-serif";

/// The arrows' presentation, in the boards' unit of one square (8 px of 45 as [`svg`] draws them).
pub const BOARD_CSS: &str = "\
svg.board .ar{fill:none;stroke-width:.18;stroke-linecap:round;opacity:.8}
svg.board .ar.pl{stroke:#c33;marker-end:url(#pk-arrow-played)}
svg.board .ar.be{stroke:#15781b;marker-end:url(#pk-arrow-best)}
svg.board circle.ar{stroke-width:.11;marker-end:none}
svg.board>path{fill:none;stroke:none}
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
    background(&mut s);
    s.push_str("<circle id=\"ck\" cx=\".5\" cy=\".5\" r=\".5\" fill=\"url(#pk-check)\"/>\n");
    // Glyphs laid out in pixels and scaled to the unit square: text at a font size below one
    // pixel is not drawn alike by every browser. Centred by `dy`: Chromium ignores
    // `dominant-baseline` in a marker's content, which draws most pieces (board_marker_css).
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            let fill = if color.is_white() { "#fff" } else { "#000" };
            let glyph = crate::chess::Piece { color: Color::Black, role }.unicode();
            let _ = writeln!(
                s,
                "<g id=\"{}\"><text transform=\"scale({})\" x=\"22.5\" y=\"23.5\" dy=\".35em\" font-family=\"{FONTS}\" font-size=\"38\" text-anchor=\"middle\" fill=\"{fill}\" stroke=\"#000\" stroke-width=\"1\">{glyph}\u{fe0e}</text></g>",
                crate::chess::Piece { color, role }.char(),
                1.0 / f64::from(SQ)
            );
        }
    }
    // A piece kind's marker, drawn at every vertex of the kind's path on a board.
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            let c = crate::chess::Piece { color, role }.char();
            let _ = writeln!(
                s,
                "<marker id=\"m{c}\" markerUnits=\"userSpaceOnUse\" overflow=\"visible\"><use href=\"#{c}\"/></marker>"
            );
        }
    }
    s.push_str("</defs></svg>\n");
    s
}

/// The squares and coordinates of a board (`#bu`) and of a flipped one (`#bf`), in square units,
/// as few elements as they can be: a browser builds a copy of them for every board, and the 64
/// squares and 32 labels of the page's standalone board took most of a long page's drawing
/// time.
fn background(s: &mut String) {
    let m = f64::from(MARGIN) / f64::from(SQ);
    let mut dark = String::new();
    for row in 0..8 {
        for col in (0..8).filter(|c| (c + row) % 2 == 1) {
            let _ = write!(dark, "M{col},{row}h1v1h-1z");
        }
    }
    // Labels in pixels, as the page's board draws them (a font size below one pixel is not
    // drawn alike by every browser).
    let centres: Vec<String> = (0..8).map(|k| (MARGIN + SQ * k + SQ / 2).to_string()).collect();
    let centres = centres.join(" ");
    let (near, far) = (MARGIN / 2, 8 * SQ + MARGIN + MARGIN / 2);
    let sides = [near, far].map(|v| vec![v.to_string(); 8].join(" "));
    for (id, files, ranks) in [("bu", "abcdefgh", "87654321"), ("bf", "hgfedcba", "12345678")] {
        let _ = write!(
            s,
            "<g id=\"{id}\"><rect x=\"-{m:.5}\" y=\"-{m:.5}\" width=\"{w:.5}\" height=\"{w:.5}\" fill=\"#262421\"/><rect width=\"8\" height=\"8\" fill=\"#f0d9b5\"/><path d=\"{dark}\" fill=\"#b58863\"/>",
            w = 8.0 + 2.0 * m
        );
        let _ = write!(
            s,
            "<g transform=\"matrix({k:.6} 0 0 {k:.6} -{m:.5} -{m:.5})\" font-family=\"sans-serif\" font-size=\"12\" font-weight=\"bold\" fill=\"#e5e5e5\" text-anchor=\"middle\" dominant-baseline=\"central\">",
            k = 1.0 / f64::from(SQ)
        );
        for y in [near, far] {
            let _ = write!(s, "<text x=\"{centres}\" y=\"{y}\">{files}</text>");
        }
        for x in &sides {
            let _ = write!(s, "<text x=\"{x}\" y=\"{centres}\">{ranks}</text>");
        }
        s.push_str("</g></g>\n");
    }
}

/// The page's rules that put each piece kind's marker on its path.
pub fn board_marker_css() -> String {
    let mut s = String::with_capacity(600);
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            let c = crate::chess::Piece { color, role }.char();
            let _ = writeln!(s, "svg.board .{c}{{marker:url(#m{c})}}");
        }
    }
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
        "<svg class=board viewBox=\"{UNIT_BOX}\" role=img aria-label=\"{}\"><use href=#{} />",
        escape(label),
        if flip { "bf" } else { "bu" }
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
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            let squares = pos.board().by_color(color) & pos.board().by_role(role);
            let c = crate::chess::Piece { color, role }.char();
            if squares.count() == 1 {
                squares.into_iter().for_each(|sq| place(s, c.encode_utf8(&mut id), sq));
                continue;
            }
            for (k, sq) in squares.into_iter().enumerate() {
                let (x, y) = cell(sq, flip);
                let _ = if k == 0 { write!(s, "<path class={c} d=M{x},{y}") } else { write!(s, ",{x},{y}") };
            }
            if squares.any() {
                s.push_str(" />");
            }
        }
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
    s.push_str("</svg>");
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
        assert!(s.starts_with("<svg class=board viewBox=\"-.44444 -.44444 8.88889 8.88889\" role=img aria-label=\"a &lt;b&gt;\">"));
        let (m, size) = (f64::from(MARGIN) / f64::from(SQ), f64::from(8 * SQ + 2 * MARGIN) / f64::from(SQ));
        assert_eq!(UNIT_BOX, format!("-{:.5} -{:.5} {size:.5} {size:.5}", m, m).replace("-0.", "-."));
        assert_eq!(s.matches("<use href=").count(), 5, "the squares and the four lone pieces");
        assert!(s.contains("<use href=#K x=4 y=7 />") && s.contains("<use href=#q x=3 />"), "{s}");
        assert!(s.contains("<path class=r d=M0,0,7,0 />"), "{s}");
        assert!(s.contains("<path class=P d=M0,6,1,6,2,6,3,6,4,6,5,6,6,6,7,6 />"), "{s}");
        assert!(s.contains("<line class=\"ar pl\" x1=\"4.5\" y1=\"6.5\" x2=\"4.5\" y2=\"4.8\"/>"), "{s}");
        let mut f = String::new();
        board(&mut f, &pos, true, Some(e4), &[], "");
        assert!(f.contains("<use href=#bf />") && f.contains("<use href=#K x=3 />"));
        assert!(f.contains("<use href=#hl x=3 y=1 />") && f.contains("<use href=#hl x=3 y=3 />"));
        for id in ["hl", "hd", "ck", "P", "k", "mP", "mk", "bu", "bf"] {
            assert!(board_defs().contains(&format!("id=\"{id}\"")), "{id}");
        }
    }
}
