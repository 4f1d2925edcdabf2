//! Byte classes of PGN text: what the reader's movetext loop dispatches on (one table lookup per
//! token), the set of bytes that end a token, and the whitespace and last-token tests the
//! splitter and the pipeline's boundary checks share with the reader.
//!
//! Invariant: every byte value has exactly one class, and `TOKEN_END` holds exactly the bytes not
//! of class `TOKEN`.

use super::scan::ByteSet;

// Byte classes for the movetext loop.
pub(crate) const WS: u8 = 0;
pub(crate) const TOKEN: u8 = 1;
pub(crate) const LBRACE: u8 = 2;
pub(crate) const RBRACE: u8 = 3;
pub(crate) const SEMI: u8 = 4;
pub(crate) const LPAREN: u8 = 5;
pub(crate) const RPAREN: u8 = 6;
pub(crate) const DOLLAR: u8 = 7;
pub(crate) const GLYPH: u8 = 8;
pub(crate) const LBRACKET: u8 = 9;
pub(crate) const PERCENT: u8 = 10;
pub(crate) const STAR: u8 = 11;
pub(crate) const CTRL: u8 = 12;
pub(crate) const OTHER: u8 = 13;

/// Class of each byte value.
static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = match b {
            // 0x1a: the end-of-file mark DOS files end with (python-chess and pgn-extract skip it).
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x1a => WS,
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => TOKEN,
            b'+' | b'-' | b'=' | b'#' | b'/' | b':' | b'@' | b'_' | b'~' | b'.' => TOKEN,
            0x80..=0xff => TOKEN,
            b'{' => LBRACE,
            b'}' => RBRACE,
            b';' => SEMI,
            b'(' => LPAREN,
            b')' => RPAREN,
            b'$' => DOLLAR,
            b'!' | b'?' => GLYPH,
            b'[' => LBRACKET,
            b'%' => PERCENT,
            b'*' => STAR,
            0x00..=0x08 | 0x0e..=0x1f | 0x7f => CTRL,
            _ => OTHER,
        };
        i += 1;
    }
    t
};

/// The bytes that end a token: every byte not of the `TOKEN` class.
pub(crate) static TOKEN_END: ByteSet = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = CLASS[i] != TOKEN;
        i += 1;
    }
    ByteSet::new(t)
};

/// The class of `b`: one of the constants above.
#[inline]
pub(crate) fn class(b: u8) -> u8 {
    CLASS[usize::from(b)]
}

/// `true` for the bytes the reader skips as whitespace (between tokens and between games).
pub(crate) fn is_space(b: u8) -> bool {
    class(b) == WS
}

/// The token the reader would read last in `text`: its trailing run of token bytes, or a
/// trailing `*` (a token of its own).
pub(crate) fn last_token(text: &[u8]) -> &[u8] {
    if text.last() == Some(&b'*') {
        return &text[text.len() - 1..];
    }
    let start = text.iter().rposition(|&b| class(b) != TOKEN).map_or(0, |i| i + 1);
    &text[start..]
}
