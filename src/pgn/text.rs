//! Text read from PGN input, as text: UTF-8 when it is valid, else its UTF-8 runs as they are and
//! every other byte as Windows-1252 (the PGN standard says ISO 8859-1, of which Windows-1252 is
//! the superset such files are written in; a comment may hold both, where an editor added to it). One rule for
//! every piece of input text pgnkit writes again (tag values, comments, move tokens quoted in
//! diagnostics, games copied as read, input names), so everything it writes is UTF-8.
//!
//! Invariant: Windows-1252 here maps every byte to a character (the five bytes it leaves undefined
//! to the C1 controls, as WHATWG does), so a text read so loses nothing: its bytes can be had back.

use std::borrow::Cow;

/// `bytes` as text: UTF-8 if valid (borrowed), else its UTF-8 runs and the other bytes read as
/// Windows-1252 (`true`).
///
/// ```
/// use pgnkit::pgn::text::decode;
/// assert_eq!(decode("Réti".as_bytes()), ("Réti".into(), false));
/// assert_eq!(decode(b"R\xe9ti\x92s"), ("Réti’s".into(), true));
/// assert_eq!(decode(b"caf\xe9 \xc3\xa9t\xc3\xa9"), ("café été".into(), true));
/// ```
pub fn decode(bytes: &[u8]) -> (Cow<'_, str>, bool) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (Cow::Borrowed(s), false),
        Err(_) => (Cow::Owned(mixed(bytes)), true),
    }
}

/// Text that is not all UTF-8: its UTF-8 runs as they are, each other byte as Windows-1252.
fn mixed(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 2);
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(chunk.invalid().iter().map(|&b| windows_1252_char(b)));
    }
    text
}

/// [`decode`] for bytes that may be owned already (an unescaped tag value).
pub fn decode_cow(bytes: Cow<'_, [u8]>) -> (Cow<'_, str>, bool) {
    match bytes {
        Cow::Borrowed(b) => decode(b),
        Cow::Owned(v) => match String::from_utf8(v) {
            Ok(s) => (Cow::Owned(s), false),
            Err(e) => (Cow::Owned(mixed(e.as_bytes())), true),
        },
    }
}

/// Windows-1252 to UTF-8 (the five undefined bytes map to the C1 controls, as WHATWG does).
pub fn windows_1252(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| windows_1252_char(b)).collect()
}

/// The character byte `b` stands for in Windows-1252.
fn windows_1252_char(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}',
        '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// Appends `text` (text copied as read, such as a whole game) as UTF-8, line by line: a line that
/// is UTF-8 as it stands, else its Windows-1252 reading (a line is the unit of a tag and of a `%`
/// escape line, and holds the comments of files that mix encodings one part per line). Returns
/// whether a line was read as Windows-1252.
pub fn push_utf8_lines(out: &mut Vec<u8>, text: &[u8]) -> bool {
    if std::str::from_utf8(text).is_ok() {
        out.extend_from_slice(text);
        return false;
    }
    for line in text.split_inclusive(|&b| b == b'\n') {
        out.extend_from_slice(decode(line).0.as_bytes());
    }
    true
}

/// `text` in pieces of at least `size` bytes (the last may be shorter), each cut before a byte
/// that starts a character, so that [`push_utf8_lines`] of each in turn appends what it appends
/// of `text` whole: a long text copied a piece at a time is never held whole twice.
pub fn pieces(text: &[u8], size: usize) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = size.max(1).min(rest.len());
        // Not before a continuation byte, which may belong to the character before it.
        while end < rest.len() && rest[end] & 0xc0 == 0x80 {
            end += 1;
        }
        let (piece, after) = rest.split_at(end);
        rest = after;
        Some(piece)
    })
}

/// `bytes` as readable text that keeps them all: UTF-8 runs as they are, each other byte as
/// `\xNN` (how a repair shows the text it read as Windows-1252).
///
/// ```
/// use pgnkit::pgn::text::escape_not_utf8;
/// assert_eq!(escape_not_utf8("é".as_bytes()), "é");
/// assert_eq!(escape_not_utf8(b"Kasparov\x92s"), "Kasparov\\x92s");
/// ```
pub fn escape_not_utf8(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        s.push_str(chunk.valid());
        for b in chunk.invalid() {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s
}

/// The characters [`quoted`] shows; past them it cuts.
pub const QUOTED_MAX: usize = 32;

/// Bytes of input quoted for a message: read as [`decode`] does, cut after 32 characters
/// (ending in `…`), with `"`, `\\` and control characters escaped so that the message stays one
/// line.
///
/// ```
/// use pgnkit::pgn::text::quoted;
/// assert_eq!(quoted(b"a\"b\\c\x01"), r#""a\"b\\c\u{1}""#);
/// assert_eq!(quoted(&[b'x'; 40]), format!("\"{}…\"", "x".repeat(32)));
/// ```
pub fn quoted(raw: &[u8]) -> String {
    let mut out = String::from("\"");
    for (i, c) in decode(quoted_head(raw)).0.chars().enumerate() {
        if i == QUOTED_MAX {
            out.push('…');
            break;
        }
        if matches!(c, '"' | '\\') || c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// The bytes of `raw` that decide what [`quoted`] shows: its first `QUOTED_MAX + 1` characters
/// lie in its first `4 * (QUOTED_MAX + 1)` bytes (a character takes 4 at most; a text not UTF-8
/// reads run by run, so its head reads as its start does), and a long token is not decoded whole.
pub(crate) fn quoted_head(raw: &[u8]) -> &[u8] {
    &raw[..raw.len().min(4 * (QUOTED_MAX + 1))]
}

/// `text` with its control characters escaped as Rust writes them (`\u{1b}`, `\n`), but those in
/// `keep`: printed, it can neither drive a terminal (colours, title, clearing) nor forge a line.
///
/// ```
/// use pgnkit::pgn::text::without_controls;
/// assert_eq!(without_controls("a\x1b[31mb\n", &[]), "a\\u{1b}[31mb\\n");
/// assert_eq!(without_controls("a\tb\n", &['\n']), "a\\tb\n");
/// ```
pub fn without_controls<'t>(text: &'t str, keep: &[char]) -> Cow<'t, str> {
    // C0, DEL and C1 (0xC2 then 0x80..0x9F in UTF-8): a byte test first, as text seldom holds any.
    let suspect = |b: &u8| *b < 0x20 || *b == 0x7f || *b == 0xc2;
    if !text.as_bytes().iter().any(suspect) || !text.chars().any(|c| c.is_control() && !keep.contains(&c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && !keep.contains(&c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text cut in pieces of any size reads as the whole: UTF-8, Windows-1252 bytes, and a
    /// Windows-1252 byte that looks like a continuation byte, on one line and on several.
    #[test]
    fn text_in_pieces_reads_as_the_whole() {
        let texts: [&[u8]; 4] = [
            "Réti – Nimzowitsch ♞\n{ café }".as_bytes(),
            b"R\xe9ti\x92s {caf\xe9 \xc3\xa9t\xc3\xa9}\nNext line \xe2\x99\x9e ok\n",
            b"\x80\x80\xc3\xa9\xe9\xbf\xbf\xbf\xbf\xbf end",
            b"plain ASCII, nothing to decode\n",
        ];
        for text in texts {
            let mut whole = Vec::new();
            push_utf8_lines(&mut whole, text);
            for size in 0..=text.len() + 1 {
                let mut parts = Vec::new();
                let mut joined = Vec::new();
                for piece in pieces(text, size) {
                    assert!(piece.len() >= size.max(1) || joined.len() + piece.len() == text.len());
                    joined.extend_from_slice(piece);
                    push_utf8_lines(&mut parts, piece);
                }
                assert_eq!(joined, text, "size {size}");
                assert_eq!(String::from_utf8_lossy(&parts), String::from_utf8_lossy(&whole), "size {size}");
            }
        }
    }

    #[test]
    fn utf8_is_kept_and_the_rest_read_as_windows_1252() {
        assert_eq!(decode("Dvořák".as_bytes()), (Cow::Borrowed("Dvořák"), false));
        assert_eq!(decode(b"\x80 \x93x\x94 \xff \x85 \x97"), (Cow::Owned::<str>("€ “x” ÿ … —".into()), true));
        assert_eq!(decode_cow(Cow::Owned(b"\"\xe9".to_vec())), (Cow::Owned::<str>("\"é".into()), true));
        assert_eq!(decode_cow(Cow::Owned("é".into())), (Cow::Owned::<str>("é".into()), false));
    }

    /// Every byte reads as a character of its own: nothing read so is lost.
    #[test]
    fn windows_1252_maps_every_byte_to_a_distinct_character() {
        let all: Vec<u8> = (0..=255).collect();
        let text = windows_1252(&all);
        let chars: std::collections::HashSet<char> = text.chars().collect();
        assert_eq!((text.chars().count(), chars.len()), (256, 256));
        assert_eq!(windows_1252(b"\x81\x8d\x8f\x90\x9d"), "\u{81}\u{8d}\u{8f}\u{90}\u{9d}");
    }

    #[test]
    fn copied_text_is_read_line_by_line() {
        let mut out = Vec::new();
        assert!(!push_utf8_lines(&mut out, "[White \"Réti\"]\n".as_bytes()));
        let mixed = b"[White \"R\xc3\xa9ti\"]\r\n[Black \"R\xe9ti\"]\n% \x85\n1. e4 { \xe9 } *";
        assert!(push_utf8_lines(&mut out, mixed));
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            "[White \"Réti\"]\n[White \"Réti\"]\r\n[Black \"Réti\"]\n% …\n1. e4 { é } *"
        );
    }

    #[test]
    fn escapes_keep_every_byte() {
        assert_eq!(escape_not_utf8(b"a\xe9\xc3\xa9\xff"), "a\\xe9é\\xff");
    }
}
