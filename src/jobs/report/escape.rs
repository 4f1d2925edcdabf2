//! Text from the input made safe in the page: element content and attribute values escaped, URLs
//! percent-encoded for `href`.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::pgn::text::without_controls;

/// `text` with `&`, `<`, `>`, `"` and `'` written as character references, and control characters
/// but tab and line breaks as `\u{1b}`: safe and valid in element content and quoted attribute
/// values.
///
/// ```
/// use pgnkit::jobs::report::escape::escape;
/// assert_eq!(escape("<script>a & \"b\" 'c'</script>"), "&lt;script&gt;a &amp; &quot;b&quot; &#39;c&#39;&lt;/script&gt;");
/// assert_eq!(escape("a\x1b[31m\x07"), "a\\u{1b}[31m\\u{7}");
/// assert!(matches!(escape("Carlsen"), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn escape(text: &str) -> Cow<'_, str> {
    // Control characters are no HTML text: shown escaped, as the diagnostics show them.
    let text = without_controls(text, &['\t', '\n', '\r']);
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return text;
    }
    let mut s = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    Cow::Owned(s)
}

/// A URL from the input as an `href` value: every byte that a URL may not hold as it is
/// (quotes, angle brackets, spaces, non-ASCII...) percent-encoded, then [`escape`]d.
///
/// ```
/// use pgnkit::jobs::report::escape::href;
/// assert_eq!(href("https://a.org/x?q=\"<b>\"&r=1"), "https://a.org/x?q=%22%3Cb%3E%22&amp;r=1");
/// ```
pub fn href(url: &str) -> String {
    let mut s = String::with_capacity(url.len());
    for &b in url.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:/?#@!$&'()*+,;=%".contains(&b) {
            s.push(char::from(b));
        } else {
            let _ = write!(s, "%{b:02X}");
        }
    }
    escape(&s).into_owned()
}
