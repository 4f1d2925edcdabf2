//! Tag pairs: reading a tag line (`[Name "value"]`, leniently, for the reader and the splitter)
//! and tag values as written: borrowed raw bytes, unescaped (`\"`, `\\`) and decoded lazily.
//!
//! Invariants: `RawTag::raw` is exactly the bytes between the quotes in the input (escapes
//! included); nothing is copied unless an escape or a non-UTF-8 byte forces it. Reading a tag
//! line never crosses a line break inside its value, and looks at no byte past its line.

use std::borrow::Cow;
use std::ops::Range;

use super::scan;
use super::text::decode_cow;
use super::visitor::ProblemKind;

/// A parsed (or rejected) tag pair.
pub(crate) struct TagParse {
    /// Where the name is in the input (empty in a malformed tag).
    pub(crate) name: Range<usize>,
    /// Where the value is: the bytes between the quotes, escapes not resolved (`None` when
    /// the tag is malformed).
    pub(crate) value: Option<Range<usize>>,
    /// What was wrong with it, if anything.
    pub(crate) problem: Option<ProblemKind>,
    /// Where reading goes on: after the `]`, or at the end of the line for a broken tag.
    pub(crate) end: usize,
}

/// Bytes allowed in tag names, and bytes that stop a tag value scan.
static NAME_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_graphic() && !matches!(b, b'"' | b'[' | b']' | b'{' | b'}' | b'%');
        i += 1;
    }
    t
};

#[inline]
fn is_name_byte(b: u8) -> bool {
    NAME_BYTE[usize::from(b)]
}

/// Whether `name` is a tag name as the standard spells them: letters, digits and `_`, from a
/// letter or digit (the reader takes more, as `Ev-ent`, which pgn-extract does not). The names
/// [`crate::pgn::Writer::tag`] writes.
///
/// ```
/// use pgnkit::pgn::tag::is_standard_name;
/// assert!(is_standard_name(b"WhiteElo") && is_standard_name(b"Time_Control2"));
/// assert!(!is_standard_name(b"") && !is_standard_name(b"Ev-ent") && !is_standard_name(b"_x"));
/// ```
pub fn is_standard_name(name: &[u8]) -> bool {
    name.first().is_some_and(u8::is_ascii_alphanumeric)
        && name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether a tag (`[`, optional blanks, a name, optional blanks, `"`) starts at `pos`.
pub(crate) fn is_tag_like(b: &[u8], pos: usize) -> bool {
    let mut p = pos + 1;
    while p < b.len() && matches!(b[p], b' ' | b'\t') {
        p += 1;
    }
    let name = p;
    while p < b.len() && p - name < 256 && is_name_byte(b[p]) {
        p += 1;
    }
    if p == name {
        return false;
    }
    while p < b.len() && matches!(b[p], b' ' | b'\t') {
        p += 1;
    }
    b.get(p) == Some(&b'"')
}
/// Parses `[Name "value"]` at `at` (which holds `[`), leniently; never crosses a line break
/// inside the value. The usual form is read inline: the general parser is a call whose result
/// comes back through memory.
#[inline(always)]
pub(crate) fn parse_tag(b: &[u8], at: usize) -> TagParse {
    plain_tag(b, at).unwrap_or_else(|| parse_any_tag(b, at))
}

/// [`parse_tag`] for the usual form, `[Name "value"]` with one space, no escape and nothing
/// after the `]` before the line break; `None` for anything else.
#[inline(always)]
fn plain_tag(b: &[u8], at: usize) -> Option<TagParse> {
    let ns = at + 1;
    let mut p = ns;
    while p < b.len() && is_name_byte(b[p]) {
        p += 1;
    }
    if p == ns || b.get(p) != Some(&b' ') || b.get(p + 1) != Some(&b'"') {
        return None;
    }
    let vs = p + 2;
    let q = vs + scan::find_any(&b[vs..], [b'"', b'\\', b'\n', b'\r'])?;
    if b[q] != b'"' || b.get(q + 1) != Some(&b']') {
        return None;
    }
    Some(TagParse { name: ns..p, value: Some(vs..q), problem: None, end: q + 2 })
}

/// [`parse_tag`] for every form.
#[inline(never)]
fn parse_any_tag(b: &[u8], at: usize) -> TagParse {
    let n = b.len();
    let blanks = |mut p: usize| {
        while p < n && matches!(b[p], b' ' | b'\t') {
            p += 1;
        }
        p
    };
    let mut p = blanks(at + 1);
    let ns = p;
    while p < n && is_name_byte(b[p]) {
        p += 1;
    }
    let name = ns..p;
    p = blanks(p);
    if name.is_empty() || p >= n || b[p] != b'"' {
        let end = match memchr::memchr3(b']', b'\n', b'\r', &b[p.min(n)..]) {
            Some(i) if b[p + i] == b']' => p + i + 1,
            Some(i) => p + i,
            None => n,
        };
        return TagParse { name, value: None, problem: Some(ProblemKind::MalformedTag), end };
    }
    let vs = p + 1;
    let mut q = vs;
    let mut inner_quote = false;
    loop {
        q = scan::find_any(&b[q..], [b'"', b'\\', b'\n', b'\r']).map_or(n, |i| q + i);
        if q >= n || matches!(b[q], b'\n' | b'\r') {
            break;
        }
        if b[q] == b'\\' {
            q += 1;
            if q < n && matches!(b[q], b'"' | b'\\') {
                q += 1;
            }
            continue;
        }
        let r = blanks(q + 1);
        if r < n && b[r] == b']' {
            let problem = inner_quote.then_some(ProblemKind::UnescapedQuoteInTag);
            return TagParse { name, value: Some(vs..q), problem, end: r + 1 };
        }
        // The next tag on the line (`[Event "e" [Site "s"]`): this one only lacks its `]`.
        if r < n && b[r] == b'[' && is_tag_like(b, r) {
            return TagParse { name, value: Some(vs..q), problem: Some(ProblemKind::UnclosedTag), end: r };
        }
        inner_quote = true;
        q += 1;
    }
    // No closing `"]` on the line: recover `..."  ]` at the end of the line if present
    // (a value ending in a backslash), else take the rest of the line.
    let line = b[vs..q].trim_ascii_end();
    let end = vs + line.len();
    if let Some(before) = line.strip_suffix(b"]") {
        let before = before.trim_ascii_end();
        if let Some(value) = before.strip_suffix(b"\"") {
            return TagParse {
                name,
                value: Some(vs..vs + value.len()),
                problem: Some(ProblemKind::UnescapedQuoteInTag),
                end,
            };
        }
        return TagParse {
            name,
            value: Some(vs..vs + before.len()),
            problem: Some(ProblemKind::UnterminatedTagValue),
            end,
        };
    }
    // A closing quote without its `]` (`[Event "e"`) ends the value.
    let (value, problem) = match line.strip_suffix(b"\"") {
        // Not escaped: an even run of backslashes before it (`\\"` ends in a backslash).
        Some(v) if v.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0 => {
            (v, ProblemKind::UnclosedTag)
        }
        _ => (line, ProblemKind::UnterminatedTagValue),
    };
    TagParse { name, value: Some(vs..vs + value.len()), problem: Some(problem), end: q }
}

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

    /// The unescaped value as text: UTF-8 if valid, else Windows-1252 ([`super::text`]). The flag
    /// is `true` when the Windows-1252 fallback was used (the reader flags such a game with
    /// [`ProblemKind::NotUtf8`]).
    ///
    /// ```
    /// use pgnkit::pgn::RawTag;
    /// let t = RawTag { raw: b"Andr\xe9", offset: 0 };
    /// assert_eq!(t.decode(), ("André".into(), true));
    /// ```
    pub fn decode(&self) -> (Cow<'a, str>, bool) {
        // Nearly every value is ASCII without a backslash: no escape to undo, nothing to decode.
        // One pass over the bytes, inlined: a value is a few bytes, where a search for the
        // backslash was a call (1% of `report`'s time).
        let odd = self.raw.iter().fold(0u8, |acc, &b| acc | (b & 0x80) | u8::from(b == b'\\'));
        if odd == 0 {
            // SAFETY: ASCII is UTF-8.
            #[allow(unsafe_code)]
            return (Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(self.raw) }), false);
        }
        decode_cow(self.unescape())
    }
}

/// `bytes` as text if they are ASCII: a test inlined where `str::from_utf8` is a call, for the
/// short names and values of tags.
#[inline]
#[cfg(feature = "cli")]
pub(crate) fn ascii_str(bytes: &[u8]) -> Option<&str> {
    // SAFETY: ASCII is UTF-8.
    #[allow(unsafe_code)]
    bytes.is_ascii().then(|| unsafe { std::str::from_utf8_unchecked(bytes) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the inlined parser of plain tags answers, it answers as the general one does.
    #[test]
    fn plain_tags_parse_as_the_general_parser_does() {
        let lines: &[&[u8]] = &[
            b"[Event \"x\"]\n",
            b"[Event \"\"]",
            b"[WhiteElo \"2700\"]\r\n",
            b"[Event  \"two spaces\"]\n",
            b"[ Event \"lead\"]\n",
            b"[Event \"a\\\"b\"]\n",
            b"[Event \"quote\"inside\"]\n",
            b"[Event \"open\n",
            b"[Event \"x\" ]\n",
            b"[Event\"x\"]\n",
            b"[\"x\"]\n",
            b"[Event \"x\"]]\n",
            b"[Event \"caf\xe9\"]\n",
            b"[Event \"x\"",
        ];
        let mut plain = 0;
        for &line in lines {
            let general = parse_any_tag(line, 0);
            if let Some(t) = plain_tag(line, 0) {
                plain += 1;
                let text = String::from_utf8_lossy(line);
                assert_eq!(
                    (t.name, t.value, t.problem, t.end),
                    (general.name, general.value, general.problem, general.end),
                    "{text:?}"
                );
            }
        }
        assert_eq!(plain, 5, "the plain forms");
    }

    /// A value without its closing `"]` runs to the end of its line, less a closing quote that
    /// misses only its `]`: at the end of the line or before the next tag on it.
    #[test]
    fn unterminated_values_end_at_their_line_or_their_quote() {
        use ProblemKind::{UnclosedTag, UnescapedQuoteInTag, UnterminatedTagValue};
        let cases: [(&[u8], &[u8], ProblemKind, usize); 11] = [
            (b"[Site \"C:\\\\\"\n", b"C:\\\\", UnclosedTag, 12),
            (b"[Event \"e\"\n", b"e", UnclosedTag, 10),
            (b"[Event \"e\" \r\n", b"e", UnclosedTag, 11),
            (b"[Event \"e\n", b"e", UnterminatedTagValue, 9),
            (b"[Event \"e]\n", b"e", UnterminatedTagValue, 10),
            (b"[Event \"e\\\"\n", b"e\\\"", UnterminatedTagValue, 11),
            (b"[Event \"e\" ; note\n", b"e\" ; note", UnterminatedTagValue, 17),
            (b"[Event \"e\" [Site \"s\"]\n", b"e", UnclosedTag, 11),
            (b"[Event \"e\"[Site \"s\"]\n", b"e", UnclosedTag, 10),
            // Not a tag after the quote: the value goes on to its `"]`.
            (b"[Event \"e\" [x] \"s\"]\n", b"e\" [x] \"s", UnescapedQuoteInTag, 19),
            (b"[Event \"a \\\" [Site \"s\"]\n", b"a \\\" [Site \"s", UnescapedQuoteInTag, 23),
        ];
        for (line, value, problem, end) in cases {
            let t = parse_any_tag(line, 0);
            let read = t.value.map(|v| &line[v]);
            let text = String::from_utf8_lossy(line);
            assert_eq!((read, t.problem, t.end), (Some(value), Some(problem), end), "{text:?}");
        }
    }

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
