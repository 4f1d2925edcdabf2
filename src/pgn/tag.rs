//! Tag values as written: borrowed raw bytes, unescaped (`\"`, `\\`) and decoded lazily.
//!
//! Invariant: `RawTag::raw` is exactly the bytes between the quotes in the input (escapes
//! included); nothing is copied unless an escape or a non-UTF-8 byte forces it.

use std::borrow::Cow;

/// A tag value as it appears between the quotes, with the offset of the tag's `[`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawTag<'a> {
    /// Bytes between the quotes, escapes not resolved.
    pub raw: &'a [u8],
    /// Byte offset of the opening `[` of the tag in the input.
    pub offset: usize,
}

impl<'a> RawTag<'a> {
    /// The value with `\"` and `\\` resolved; borrowed when there is no backslash.
    /// A backslash before any other byte (or at the end) is kept as written.
    ///
    /// ```
    /// use pgnkit::pgn::RawTag;
    /// let t = RawTag { raw: br#"a \"b\" c\\"#, offset: 0 };
    /// assert_eq!(&*t.unescape(), br#"a "b" c\"#);
    /// ```
    pub fn unescape(&self) -> Cow<'a, [u8]> {
        if memchr::memchr(b'\\', self.raw).is_none() {
            return Cow::Borrowed(self.raw);
        }
        let mut out = Vec::with_capacity(self.raw.len());
        let mut i = 0;
        while i < self.raw.len() {
            let b = self.raw[i];
            if b == b'\\' && matches!(self.raw.get(i + 1), Some(b'"' | b'\\')) {
                out.push(self.raw[i + 1]);
                i += 2;
            } else {
                out.push(b);
                i += 1;
            }
        }
        Cow::Owned(out)
    }

    /// The unescaped value as text: UTF-8 if valid, else Windows-1252. The flag is `true`
    /// when the Windows-1252 fallback was used (the reader flags such a value as
    /// [`ProblemKind::TagNotUtf8`](super::ProblemKind::TagNotUtf8)).
    ///
    /// ```
    /// use pgnkit::pgn::RawTag;
    /// let t = RawTag { raw: b"Andr\xe9", offset: 0 };
    /// assert_eq!(t.decode(), ("André".into(), true));
    /// ```
    pub fn decode(&self) -> (Cow<'a, str>, bool) {
        decode_text(self.unescape())
    }
}

/// Bytes as text: UTF-8 if valid (borrowed when possible), else Windows-1252 (`true`).
pub fn decode_text(bytes: Cow<'_, [u8]>) -> (Cow<'_, str>, bool) {
    match bytes {
        Cow::Borrowed(b) => match std::str::from_utf8(b) {
            Ok(s) => (Cow::Borrowed(s), false),
            Err(_) => (Cow::Owned(windows_1252(b)), true),
        },
        Cow::Owned(v) => match String::from_utf8(v) {
            Ok(s) => (Cow::Owned(s), false),
            Err(e) => (Cow::Owned(windows_1252(e.as_bytes())), true),
        },
    }
}

/// Windows-1252 to UTF-8 (the five undefined bytes map to the C1 controls, as WHATWG does).
pub fn windows_1252(bytes: &[u8]) -> String {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}',
        '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
    ];
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0x9f => HIGH[usize::from(b - 0x80)],
            _ => char::from(b),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_borrowed_without_backslash() {
        let t = RawTag { raw: b"Carlsen, Magnus", offset: 3 };
        assert!(matches!(t.unescape(), Cow::Borrowed(_)));
        assert_eq!(t.decode(), (Cow::Borrowed("Carlsen, Magnus"), false));
    }

    #[test]
    fn unescape_escapes_and_stray_backslashes() {
        let t = RawTag { raw: br#"C:\dir \"x\" \\ end\"#, offset: 0 };
        assert_eq!(&*t.unescape(), br#"C:\dir "x" \ end\"#);
    }

    #[test]
    fn decode_utf8_and_1252() {
        let t = RawTag { raw: "Dvořák".as_bytes(), offset: 0 };
        assert_eq!(t.decode(), (Cow::Borrowed("Dvořák"), false));
        let t = RawTag { raw: b"\x80 \x93x\x94 \xff", offset: 0 };
        assert_eq!(t.decode(), (Cow::Owned::<str>("€ “x” ÿ".into()), true));
        let t = RawTag { raw: b"\\\"\xe9", offset: 0 };
        assert_eq!(t.decode(), (Cow::Owned::<str>("\"é".into()), true));
    }
}
