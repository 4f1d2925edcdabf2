//! EPD (PGN standard 16.2): a position's four FEN fields and its operations, read into an
//! [`Epd`]; written as the four fields, operations being the caller's text, string operands
//! escaped by [`escape_epd_string`]. A string operand's `"` and `\` are escaped by a backslash,
//! and a tab and line breaks written `\t`, `\r`, `\n` (so a record stays one line), as
//! python-chess writes and reads them; an empty operation (`FEN ; bm Nf3;`) is passed over.

use crate::chess::{Position, Setup};

use super::read::{read_fields, read_u32};
use super::write::write_position;
use super::{EpMode, ParseFenError};
use crate::notation::TextBuf;

/// An EPD record: the position's four fields (clocks from `hmvc`/`fmvn` when present) and its
/// operations in order, each an opcode with its operands (quotes removed from strings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Epd {
    /// The position, unvalidated.
    pub setup: Setup,
    /// `(opcode, operands)` in the order given.
    pub ops: Vec<(String, Vec<String>)>,
    /// Numeric clock fields that followed the four, as in a FEN: 0, 1 (the halfmove clock) or 2
    /// (and the fullmove number).
    pub clock_fields: u8,
}

impl Epd {
    /// The operands of the first operation named `opcode`.
    pub fn op(&self, opcode: &str) -> Option<&[String]> {
        self.ops.iter().find(|(o, _)| o == opcode).map(|(_, v)| v.as_slice())
    }
}

/// Reads an EPD line: four FEN fields, then operations `opcode operand ... ;` (PGN standard 16.2).
///
/// Operands are bare tokens or double-quoted strings (which may hold `;` and spaces). Lenient:
/// the final `;` may be missing, and two numeric clock fields right after the four fields (as in
/// perft suites) are read as the clocks. `hmvc` and `fmvn` set the clocks too.
///
/// ```
/// use pgnkit::notation::parse_epd;
/// let epd = parse_epd(r#"8/8/8/8/8/8/8/K1k5 w - - bm Kb2; id "mate; or not";"#).unwrap();
/// assert_eq!(epd.op("id").unwrap(), ["mate; or not"]);
/// ```
pub fn parse_epd(line: &str) -> Result<Epd, ParseFenError> {
    let bytes = line.as_bytes();
    // The first four fields, then whatever follows.
    let mut pos = 0;
    let next_field = |pos: &mut usize| next_token(bytes, pos);
    let mut four = [&b""[..]; 4];
    for f in four.iter_mut() {
        *f = next_field(&mut pos).unwrap_or(b"");
    }
    let mut setup = read_fields(&mut four.into_iter().filter(|f| !f.is_empty()))?;
    // Optional numeric clocks (opcodes start with a letter, so a number cannot be one).
    let mut clock_fields = 0;
    for clock in 0..2 {
        let save = pos;
        match next_field(&mut pos) {
            Some(f) if f.iter().all(u8::is_ascii_digit) => {
                let n = read_u32(f).ok_or(if clock == 0 {
                    ParseFenError::Halfmoves
                } else {
                    ParseFenError::Fullmoves
                })?;
                if clock == 0 {
                    setup.halfmoves = n
                } else {
                    setup.fullmoves = n
                }
                clock_fields += 1;
            }
            _ => {
                pos = save;
                break;
            }
        }
    }
    let ops = read_ops(&line[pos..])?;
    for (opcode, operands) in &ops {
        let n = || operands.first().and_then(|o| read_u32(o.as_bytes()));
        match opcode.as_str() {
            "hmvc" => setup.halfmoves = n().ok_or(ParseFenError::Halfmoves)?,
            "fmvn" => setup.fullmoves = n().ok_or(ParseFenError::Fullmoves)?,
            _ => {}
        }
    }
    Ok(Epd { setup, ops, clock_fields })
}

/// The next field from `*pos`, advancing past it: a run of bytes up to whitespace or a `;` (which
/// no field holds, and which suites glue to the last one: `... c6 1 6; bm d5`).
fn next_token<'a>(bytes: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    while *pos < bytes.len() && bytes[*pos].is_ascii_whitespace() {
        *pos += 1;
    }
    let start = *pos;
    while *pos < bytes.len() && !bytes[*pos].is_ascii_whitespace() && bytes[*pos] != b';' {
        *pos += 1;
    }
    (*pos > start).then(|| &bytes[start..*pos])
}

fn read_ops(text: &str) -> Result<Vec<(String, Vec<String>)>, ParseFenError> {
    let b = text.as_bytes();
    let mut ops = Vec::new();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i == b.len() {
            return Ok(ops);
        }
        if b[i] == b';' {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let opcode = &text[start..i];
        if opcode.is_empty() || opcode.len() > 15 || !b[start].is_ascii_alphabetic() {
            return Err(ParseFenError::Operation);
        }
        let mut operands = Vec::new();
        loop {
            skip_ws(&mut i);
            match b.get(i) {
                None => break,
                Some(b';') => {
                    i += 1;
                    break;
                }
                Some(b'"') => {
                    let mut operand = String::new();
                    let mut from = i + 1;
                    i += 1;
                    loop {
                        match b.get(i) {
                            None => return Err(ParseFenError::Operation),
                            Some(b'"') => break,
                            Some(b'\\') if matches!(b.get(i + 1), Some(b'"' | b'\\')) => {
                                operand.push_str(&text[from..i]);
                                from = i + 1;
                                i += 2;
                            }
                            Some(b'\\') if let Some(c) = b.get(i + 1).and_then(|&c| unescaped(c)) => {
                                operand.push_str(&text[from..i]);
                                operand.push(c);
                                from = i + 2;
                                i += 2;
                            }
                            Some(_) => i += 1,
                        }
                    }
                    operand.push_str(&text[from..i]);
                    operands.push(operand);
                    i += 1;
                }
                Some(_) => {
                    let start = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b';' {
                        i += 1;
                    }
                    operands.push(text[start..i].to_owned());
                }
            }
        }
        ops.push((opcode.to_owned(), operands));
    }
}

/// The character of an escape `\t`, `\r` or `\n` in a string operand.
fn unescaped(c: u8) -> Option<char> {
    match c {
        b't' => Some('\t'),
        b'r' => Some('\r'),
        b'n' => Some('\n'),
        _ => None,
    }
}

/// Appends `text` escaped for an EPD string operand (without its quotes): `"` and `\` with a
/// backslash before them, a tab and line breaks as `\t`, `\r`, `\n` (as python-chess writes
/// them), which [`parse_epd`] reads back; the other ASCII controls as spaces, as PGN's export
/// format writes a tag's. The record stays one line whatever the text.
///
/// ```
/// use pgnkit::notation::fen::{escape_epd_string, parse_epd};
/// let mut line = String::from("8/8/8/8/8/8/8/K1k5 w - - id \"");
/// escape_epd_string(r#"C:\my "best" games.pgn"#, &mut line);
/// line.push_str("\";");
/// assert_eq!(line, r#"8/8/8/8/8/8/8/K1k5 w - - id "C:\\my \"best\" games.pgn";"#);
/// let epd = parse_epd(&line).unwrap();
/// assert_eq!(epd.op("id"), Some(&[r#"C:\my "best" games.pgn"#.to_string()][..]));
/// let mut line = String::new();
/// escape_epd_string("two\nlines\t\u{1}", &mut line);
/// assert_eq!(line, r"two\nlines\t ");
/// ```
pub fn escape_epd_string(text: &str, out: &mut impl TextBuf) {
    out.append_with(|out| {
        for &b in text.as_bytes() {
            match b {
                b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
                b'\t' => out.extend_from_slice(b"\\t"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b if b.is_ascii_control() => out.push(b' '),
                b => out.push(b),
            }
        }
    });
}

/// Appends the four EPD fields of `pos` to `out` (no clocks, no operations).
///
/// ```
/// use pgnkit::chess::Position;
/// use pgnkit::notation::{EpMode, write_epd};
/// let mut epd = String::new();
/// write_epd(&Position::default(), EpMode::Legal, &mut epd);
/// assert_eq!(epd, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
/// ```
pub fn write_epd(pos: &Position, ep: EpMode, out: &mut impl TextBuf) {
    out.append_with(|out| write_position(pos, ep, false, false, out));
}
