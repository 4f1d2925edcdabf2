//! The report's boards, drawn compactly so that a page of thousands stays a few MB and quick to
//! draw: one hidden copy of each piece (ids its FEN letter, `#P` … `#k`), of the squares and
//! coordinates in square units (`#bu`, `#bf` flipped: 5 elements, since a browser copies them
//! for every board), of the last move's highlight (`#h`) and of the check glow (`#ck`). A board is
//! a `<figure>`'s `<svg>` drawn in squares, the top-left square at the origin, by one page-wide
//! CSS transform ([`board_css`]) instead of a view box of its own. Pieces are drawn by markers at
//! the vertices of `<path>`s (see `pieces`); a lone piece left over is a `<use x y>` (single
//! unquoted digits, none at 0). Crazyhouse positions (their pockets) are drawn by [`svg`] in its
//! in-page form.

use std::fmt::Write as _;

use super::escape::escape;
use crate::chess::{Color, Move, Position, Role, Square};
use crate::notation::diagram::{Arrow, ArrowKind, SvgOptions, svg};

/// Pixels of a square and of the margin in [`svg_page_defs`](crate::notation::diagram::svg_page_defs)'s board.
const SQ: u32 = 45;
const MARGIN: u32 = 20;
/// The width and height of a drawn board in CSS pixels.
const BOARD_PX: u32 = 300;

const FONTS: &str = "'DejaVu Sans','Noto Sans Symbols 2','Noto Sans Symbols','Segoe UI Symbol','Arial Unicode MS',FreeSerif,Symbola,sans-serif";

/// The pieces' FEN letters, in the order of [`board_defs`].
const LETTERS: [char; 12] = ['P', 'N', 'B', 'R', 'Q', 'K', 'p', 'n', 'b', 'r', 'q', 'k'];

/// The boards' styles, once per page. `figure>svg` is a report board (a crazyhouse board sits in
/// a `<div>`). Its children are placed by one transform from squares to pixels: the same
/// drawing a view box of `-m -m 8+2m 8+2m` gives, written once instead of on every board.
/// A piece path's class names the pieces its markers draw: its first letter the piece at the
/// first vertex, its last letter the piece at the last, a doubled letter the pieces between
/// (`KPPQ`: the king, the pawns, the queen). Arrows (`m` the move played, `e` the engine's best)
/// and the highlight (`h`) have classes that are no piece letter.
pub fn board_css() -> String {
    // 33.75 and 15 exactly: pixels of a square, and of the margin.
    let k = f64::from(BOARD_PX * SQ) / f64::from(8 * SQ + 2 * MARGIN);
    let mut s = format!(
        "figure>svg{{width:{BOARD_PX}px;height:{BOARD_PX}px;display:block}}\n\
         figure>svg>*{{transform:matrix({k},0,0,{k},{o},{o})}}\n\
         figure>svg>path{{fill:none;stroke:none}}\n\
         figure>svg>.m,figure>svg>.e{{stroke-width:.18;stroke-linecap:round;opacity:.8}}\n\
         figure>svg>.m{{stroke:#c33;marker-end:url(#pk-arrow-played)}}\n\
         figure>svg>.e{{stroke:#15781b;marker-end:url(#pk-arrow-best)}}\n\
         figure>svg>circle[class]{{fill:none;stroke-width:.11;marker-end:none}}\n\
         figure>svg>.h{{marker:url(#mh)}}\n",
        o = k * f64::from(MARGIN) / f64::from(SQ)
    );
    for c in LETTERS {
        let _ = writeln!(s, "figure>svg>[class*={c}{c}]{{marker-mid:url(#m{c})}}");
    }
    for c in LETTERS {
        let _ = writeln!(s, "figure>svg>[class^={c}]{{marker-start:url(#m{c})}}");
        let _ = writeln!(s, "figure>svg>[class$={c}]{{marker-end:url(#m{c})}}");
    }
    s
}

/// The definitions the boards refer to, once per page (a hidden `<svg>`, after
/// [`svg_page_defs`](crate::notation::diagram::svg_page_defs), whose check gradient and arrowheads they use).
pub fn board_defs() -> String {
    let mut s = String::with_capacity(4_000);
    s.push_str(
        "<svg class=\"board-defs\" width=\"0\" height=\"0\" aria-hidden=\"true\" focusable=\"false\"><defs>\n",
    );
    // Over a light square #cdd26a and over a dark one #aaa23a (each channel within 1), the
    // colours of the page's standalone board, with one element for both.
    s.push_str("<rect id=\"h\" width=\"1\" height=\"1\" fill=\"#9ac700\" fill-opacity=\".41\"/>\n");
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
    // A piece's marker (and the highlight's), drawn at the vertices of a board's paths.
    for c in LETTERS.into_iter().chain(['h']) {
        let _ = writeln!(
            s,
            "<marker id=\"m{c}\" markerUnits=\"userSpaceOnUse\" overflow=\"visible\"><use href=\"#{c}\"/></marker>"
        );
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

/// A square's column and row on the drawing, from the top-left.
fn cell(sq: Square, flip: bool) -> (u32, u32) {
    let (f, r) = (sq.file().index() as u32, sq.rank().index() as u32);
    if flip { (7 - f, r) } else { (f, 7 - r) }
}

/// `v` to two decimals, as few characters as it takes: `.5`, `-1.79`, `3`.
fn unit(s: &mut String, v: f64) {
    // Adding 0 turns -0 into 0; `{}` of an f64 is its shortest exact form.
    let v = format!("{}", (v * 100.0).round() / 100.0 + 0.0);
    let (sign, digits) = v.strip_prefix('-').map_or(("", v.as_str()), |d| ("-", d));
    s.push_str(sign);
    s.push_str(digits.strip_prefix('0').filter(|d| d.starts_with('.')).unwrap_or(digits));
}

/// The `d` of a path through `points` (whole squares), each step as short as SVG lets it: `h` or
/// `v` along a row or column, else the next pair.
fn path_data(s: &mut String, points: &[(u32, u32)]) {
    let Some(&(mut px, mut py)) = points.first() else { return };
    let _ = write!(s, "M{px},{py}");
    // M and L take further pairs without their letter; h and v do not.
    let mut pairs = true;
    for &(x, y) in &points[1..] {
        let (dx, dy) = (i64::from(x) - i64::from(px), i64::from(y) - i64::from(py));
        let _ = match (dx, dy) {
            (_, 0) => write!(s, "h{dx}"),
            (0, _) => write!(s, "v{dy}"),
            _ => write!(s, "{}{x},{y}", if pairs { "," } else { "L" }),
        };
        pairs = dx != 0 && dy != 0;
        (px, py) = (x, y);
    }
}

/// The pieces of `pos`, as marker paths ([`board_css`]): each kind on two or more squares is a
/// path through them (row by row, the shortest `d`) that also carries up to two lone pieces at its
/// ends; lone pieces left over go two to a path, and a last one is a `<use>`.
fn pieces(s: &mut String, pos: &Position, flip: bool) {
    let mut many: Vec<(char, Vec<(u32, u32)>)> = Vec::with_capacity(12);
    let mut lone: Vec<(char, (u32, u32))> = Vec::with_capacity(12);
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            let squares = pos.board().by_color(color) & pos.board().by_role(role);
            let c = crate::chess::Piece { color, role }.char();
            let mut at: Vec<(u32, u32)> = squares.into_iter().map(|sq| cell(sq, flip)).collect();
            match at.len() {
                0 => {}
                1 => lone.push((c, at[0])),
                _ => {
                    at.sort_unstable_by_key(|&(x, y)| (y, x));
                    many.push((c, at));
                }
            }
        }
    }
    let mut points = Vec::with_capacity(18);
    let mut class = String::with_capacity(4);
    for (c, at) in &many {
        let (first, last) = (lone.pop(), lone.pop());
        class.clear();
        points.clear();
        if let Some((f, p)) = first {
            class.push(f);
            points.push(p);
        }
        class.extend([*c, *c]);
        points.extend_from_slice(at);
        if let Some((l, p)) = last {
            class.push(l);
            points.push(p);
        }
        let _ = write!(s, "<path class={class} d=");
        path_data(s, &points);
        s.push_str(" />");
    }
    while lone.len() >= 2 {
        let ((a, p), (b, q)) = (lone.swap_remove(0), lone.swap_remove(0));
        let _ = write!(s, "<path class={a}{b} d=");
        path_data(s, &[p, q]);
        s.push_str(" />");
    }
    if let Some((c, (x, y))) = lone.pop() {
        place(s, c.encode_utf8(&mut [0; 4]), x, y);
    }
}

/// A `<use>` of `id` on the square at column `x` and row `y`: unquoted values, and none at 0 (HTML
/// reads both).
fn place(s: &mut String, id: &str, x: u32, y: u32) {
    let _ = write!(s, "<use href=#{id}");
    if x > 0 {
        let _ = write!(s, " x={x}");
    }
    if y > 0 {
        let _ = write!(s, " y={y}");
    }
    s.push_str(" />");
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
        "<svg role=img aria-label=\"{}\"><use href=#{} />",
        escape(label),
        if flip { "bf" } else { "bu" }
    );
    if let Some(m) = last {
        let squares: Vec<(u32, u32)> =
            m.from().into_iter().chain([m.to()]).map(|sq| cell(sq, flip)).collect();
        if let [(x, y)] = squares[..] {
            place(s, "h", x, y);
        } else {
            s.push_str("<path class=h d=");
            path_data(s, &squares);
            s.push_str(" />");
        }
    }
    if pos.is_check()
        && let Some(k) = pos.board().king_of(pos.turn())
    {
        let (x, y) = cell(k, flip);
        place(s, "ck", x, y);
    }
    pieces(s, pos, flip);
    for a in arrows {
        arrow(s, a, flip);
    }
    s.push_str("</svg>");
}

/// An arrow from the centre of its first square to the edge of its second's centre (where its
/// head ends), or a ring for an arrow that stays on its square.
fn arrow(s: &mut String, a: &Arrow, flip: bool) {
    let class = match a.kind {
        ArrowKind::Played => "m",
        ArrowKind::Best => "e",
    };
    let (c1, r1) = cell(a.from, flip);
    let (x1, y1) = (f64::from(c1) + 0.5, f64::from(r1) + 0.5);
    if a.from == a.to {
        let _ = write!(s, "<circle class={class} cx={x1} cy={y1} r=.41 />");
        return;
    }
    let (c2, r2) = cell(a.to, flip);
    let (x2, y2) = (f64::from(c2) + 0.5, f64::from(r2) + 0.5);
    let (dx, dy) = (x2 - x1, y2 - y1);
    let cut = 1.0 - 0.3 / (dx * dx + dy * dy).sqrt();
    // The end to two decimals, then written as the shorter of itself and its offset.
    let round = |v: f64| (v * 100.0).round() / 100.0;
    let (ex, ey) = (round(x1 + dx * cut), round(y1 + dy * cut));
    let _ = write!(s, "<path class={class} d=M");
    unit(s, x1);
    s.push(',');
    unit(s, y1);
    let mut abs = String::from(",");
    unit(&mut abs, ex);
    abs.push(',');
    unit(&mut abs, ey);
    let mut rel = String::new();
    match (round(ex - x1), round(ey - y1)) {
        (0.0, ry) => {
            rel.push('v');
            unit(&mut rel, ry);
        }
        (rx, 0.0) => {
            rel.push('h');
            unit(&mut rel, rx);
        }
        (rx, ry) => {
            rel.push('l');
            unit(&mut rel, rx);
            rel.push(',');
            unit(&mut rel, ry);
        }
    }
    s.push_str(if rel.len() < abs.len() { &rel } else { &abs });
    s.push_str(" />");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;
    use crate::notation::san::parse_san;

    /// The vertices of a path's `d` as [`path_data`] and [`arrow`] write it.
    fn vertices(d: &str) -> Vec<(f64, f64)> {
        let mut out: Vec<(f64, f64)> = Vec::new();
        let mut cmd = 'M';
        let mut nums: Vec<f64> = Vec::new();
        let flush = |cmd: char, nums: &mut Vec<f64>, out: &mut Vec<(f64, f64)>| {
            let &(x, y) = out.last().unwrap_or(&(0.0, 0.0));
            match cmd {
                'M' | 'L' => out.extend(nums.chunks(2).map(|p| (p[0], p[1]))),
                'l' => out.push((x + nums[0], y + nums[1])),
                'h' => out.push((x + nums[0], y)),
                'v' => out.push((x, y + nums[0])),
                _ => panic!("{cmd} in {d}"),
            }
            nums.clear();
        };
        let mut number = String::new();
        for ch in d.chars().chain([' ']) {
            if ch.is_ascii_digit() || ch == '.' || (ch == '-' && number.is_empty()) {
                number.push(ch);
                continue;
            }
            if !number.is_empty() {
                nums.push(number.parse().expect("a number"));
                number.clear();
            }
            if ch.is_ascii_alphabetic() {
                if cmd != 'M' || !nums.is_empty() {
                    flush(cmd, &mut nums, &mut out);
                }
                cmd = ch;
            }
        }
        flush(cmd, &mut nums, &mut out);
        out
    }

    /// What a browser draws with [`board_css`]: each piece by its letter on its square (column,
    /// row), read from the board's paths and `<use>`s.
    fn drawn(svg: &str) -> Vec<(char, (u32, u32))> {
        let mut out = Vec::new();
        for el in svg.split('<').skip(1) {
            let attr = |name: &str| {
                el.split(' ').find_map(|a| a.strip_prefix(name).map(|v| v.trim_end_matches('>')))
            };
            let at = |name: &str| attr(name).map_or(0, |v| v.parse::<u32>().expect("a digit"));
            if let Some(id) =
                attr("href=#").filter(|id| id.len() == 1 && LETTERS.contains(&id.as_bytes()[0].into()))
            {
                out.push((id.as_bytes()[0].into(), (at("x="), at("y="))));
            }
            let Some(class) = attr("class=").filter(|c| c.chars().all(|c| LETTERS.contains(&c))) else {
                continue;
            };
            let points = vertices(attr("d=").expect("a d"));
            let c: Vec<char> = class.chars().collect();
            let mid = c.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]);
            for (k, &(x, y)) in points.iter().enumerate() {
                let piece = match k {
                    0 => c[0],
                    k if k + 1 == points.len() => c[c.len() - 1],
                    _ => mid.expect("a doubled letter for the vertices between"),
                };
                out.push((piece, (x as u32, y as u32)));
            }
        }
        out.sort_unstable();
        out
    }

    /// The pieces of `pos` where [`board`] should draw them.
    fn standing(pos: &Position, flip: bool) -> Vec<(char, (u32, u32))> {
        let mut out: Vec<(char, (u32, u32))> = Square::ALL
            .into_iter()
            .filter_map(|sq| pos.board().piece_at(sq).map(|p| (p.char(), cell(sq, flip))))
            .collect();
        out.sort_unstable();
        out
    }

    #[test]
    fn boards_place_pieces_and_arrows_by_square() {
        let pos = Position::default();
        let (e4, _) = parse_san(&pos, b"e4").expect("legal");
        let mut s = String::new();
        board(&mut s, &pos, false, None, &[Arrow::of_move(e4, ArrowKind::Played)], "a <b>");
        assert!(s.starts_with("<svg role=img aria-label=\"a &lt;b&gt;\"><use href=#bu />"), "{s}");
        // Each kind on two or more squares carries two of the four lone pieces at its ends.
        assert_eq!(s.matches("<use href=").count(), 1, "the squares only: {s}");
        assert!(s.contains("<path class=kPPq d=M4,0,0,6h1h1h1h1h1h1h1L3,0 />"), "{s}");
        assert!(s.contains("<path class=KNNQ d=M4,7h-3h5h-3 />"), "{s}");
        assert!(s.contains("<path class=m d=M4.5,6.5v-1.7 />"), "{s}");
        assert_eq!(drawn(&s), standing(&pos, false));
        let mut f = String::new();
        board(&mut f, &pos, true, Some(e4), &[], "");
        assert!(f.contains("<use href=#bf />") && f.contains("<path class=h d=M3,1v2 />"), "{f}");
        assert_eq!(drawn(&f), standing(&pos, true));
        let defs = board_defs();
        for id in ["h", "ck", "P", "k", "mP", "mk", "mh", "bu", "bf"] {
            assert!(defs.contains(&format!("id=\"{id}\"")), "{id}");
        }
        let css = board_css();
        assert!(css.contains("figure>svg>*{transform:matrix(33.75,0,0,33.75,15,15)}"), "{css}");
        for c in LETTERS {
            for rule in [
                format!("[class*={c}{c}]{{marker-mid:url(#m{c})}}"),
                format!("[class^={c}]{{marker-start:url(#m{c})}}"),
                format!("[class$={c}]{{marker-end:url(#m{c})}}"),
            ] {
                assert!(css.contains(&rule), "{rule}");
            }
        }
    }

    #[test]
    fn every_piece_is_drawn_once_on_its_square() {
        // Lone pieces only, an odd number of them, bare kings, and the positions of games played
        // by a fixed pseudo-random choice of legal moves.
        let mut positions: Vec<Position> = [
            "r1b1k1n1/8/8/8/8/8/8/R1B1K1N1 w - - 0 1",
            "4k3/8/8/8/8/8/8/3QK3 b - - 0 1",
            "8/8/8/4k3/8/8/8/4K3 w - - 0 1",
            "8/8/8/4k3/8/8/PPPPPPPP/4K3 w - - 0 1",
        ]
        .iter()
        .map(|f| parse_fen(f, crate::Variant::Standard).expect("a FEN"))
        .collect();
        for seed in 1..=60 {
            positions.extend(Position::random_line(crate::Variant::Standard, seed, 120));
        }
        for pos in &positions {
            for flip in [false, true] {
                let mut s = String::new();
                board(&mut s, pos, flip, None, &[], "");
                assert_eq!(drawn(&s), standing(pos, flip), "{s}");
            }
        }
    }

    #[test]
    fn arrows_end_where_their_head_reaches_the_target() {
        let sq = |name: &str| Square::ALL.into_iter().find(|s| s.to_string() == name).expect("a square");
        for (from, to) in
            [("e2", "e4"), ("e4", "e2"), ("b1", "c3"), ("g8", "f6"), ("a1", "h8"), ("h1", "a1"), ("d4", "e4")]
        {
            for flip in [false, true] {
                for kind in [ArrowKind::Played, ArrowKind::Best] {
                    let mut s = String::new();
                    arrow(&mut s, &Arrow { from: sq(from), to: sq(to), kind }, flip);
                    let class = if kind == ArrowKind::Played { "m" } else { "e" };
                    let d = s
                        .strip_prefix(&format!("<path class={class} d="))
                        .and_then(|d| d.strip_suffix(" />"));
                    let points = vertices(d.expect(&s));
                    let centre = |q| {
                        let (x, y) = cell(sq(q), flip);
                        (f64::from(x) + 0.5, f64::from(y) + 0.5)
                    };
                    let ((x1, y1), (x2, y2)) = (centre(from), centre(to));
                    assert_eq!(points.len(), 2, "{s}");
                    assert_eq!(points[0], (x1, y1), "{s}");
                    // 0.3 of a square short of the target's centre, on the line to it.
                    let (ex, ey) = points[1];
                    let (dx, dy) = (x2 - x1, y2 - y1);
                    let len = dx.hypot(dy);
                    let t = 1.0 - 0.3 / len;
                    assert!((ex - (x1 + dx * t)).abs() <= 0.005 + 1e-9, "{from}{to} {flip}: {s}");
                    assert!((ey - (y1 + dy * t)).abs() <= 0.005 + 1e-9, "{from}{to} {flip}: {s}");
                }
            }
        }
    }

    #[test]
    fn units_are_written_short() {
        for (v, text) in [
            (0.5, ".5"),
            (-0.5, "-.5"),
            (3.0, "3"),
            (-1.79, "-1.79"),
            (0.0, "0"),
            (-0.001, "0"),
            (2.704, "2.7"),
            (10.25, "10.25"),
        ] {
            let mut s = String::from("x");
            unit(&mut s, v);
            assert_eq!(s, format!("x{text}"), "{v}");
        }
    }
}
