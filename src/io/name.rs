//! File names as text and as JSON. A Unix file name is bytes: one that is not UTF-8 is shown
//! read as Windows-1252, as all input text is, and goes into JSON as `{"bytes": BASE64}`, from
//! which a reader gets the very file back (a manifest's inputs and parts, a record's `file`).

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// An input's name, as reports show it ([`display`]) and as JSON records hold it ([`to_json`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    text: String,
    json: Value,
}

/// No input's name: the empty text.
pub static NONE: Name = Name { text: String::new(), json: Value::String(String::new()) };

impl Default for Name {
    fn default() -> Name {
        NONE.clone()
    }
}

impl Name {
    /// The name of `path`.
    pub fn of(path: &Path) -> Name {
        Name { text: display(path), json: to_json(path) }
    }

    /// As reports show it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// As messages name it: `stdin` for `-`, which stands for it on the command line.
    pub fn prose(&self) -> &str {
        if self.text == "-" { STDIN } else { &self.text }
    }

    /// As JSON records hold it.
    pub fn json(&self) -> &Value {
        &self.json
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name { text: text.into(), json: text.into() }
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

const STDIN: &str = "stdin";

/// An input's path as messages name it: `stdin` for `-`; JSON and data keep `-` as given.
pub fn input(path: &Path) -> String {
    if path == Path::new("-") { STDIN.into() } else { display(path) }
}

/// An output's path as messages name it: `stdout` for `-`.
pub fn output(path: &Path) -> String {
    if path == Path::new("-") { "stdout".into() } else { display(path) }
}

/// The name of `path` as reports show it: UTF-8, else read as Windows-1252.
pub fn display(path: &Path) -> String {
    crate::pgn::text::decode(&bytes(path)).0.into_owned()
}

/// `path` as JSON: its text when it is UTF-8, else `{"bytes": BASE64}` of its bytes.
pub fn to_json(path: &Path) -> Value {
    match path.to_str() {
        Some(text) => text.into(),
        None => json!({"bytes": STANDARD.encode(bytes(path))}),
    }
}

/// A path [`to_json`] wrote: `None` for anything else.
pub fn from_json(v: &Value) -> Option<PathBuf> {
    if let Some(text) = v.as_str() {
        return Some(text.into());
    }
    from_base64(v.get("bytes")?.as_str()?)
}

/// A path whose bytes [`to_json`] wrote in base64: `None` for other text.
pub fn from_base64(text: &str) -> Option<PathBuf> {
    from_bytes(STANDARD.decode(text).ok()?)
}

#[cfg(unix)]
fn bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().into()
}

#[cfg(not(unix))]
fn bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    match path.to_string_lossy() {
        std::borrow::Cow::Borrowed(s) => s.as_bytes().into(),
        std::borrow::Cow::Owned(s) => s.into_bytes().into(),
    }
}

#[cfg(unix)]
fn from_bytes(raw: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(std::ffi::OsString::from_vec(raw).into())
}

#[cfg(not(unix))]
fn from_bytes(raw: Vec<u8>) -> Option<PathBuf> {
    String::from_utf8(raw).ok().map(PathBuf::from)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn messages_name_the_standard_streams_and_json_keeps_the_dash() {
        let dash = Path::new("-");
        assert_eq!((input(dash), output(dash)), ("stdin".to_string(), "stdout".to_string()));
        assert_eq!((Name::of(dash).prose(), Name::of(dash).json()), ("stdin", &json!("-")));
        assert_eq!(input(Path::new("./-")), "./-", "a file named - is named as given");
    }

    #[test]
    fn a_utf8_name_is_its_text_and_another_its_bytes() {
        let plain = Path::new("dir/partie é.pgn");
        assert_eq!(to_json(plain), json!("dir/partie é.pgn"));
        assert_eq!(from_json(&to_json(plain)).as_deref(), Some(plain));
        let latin = Path::new(OsStr::from_bytes(b"dir/partie \xe9.pgn"));
        assert_eq!(to_json(latin), json!({"bytes": "ZGlyL3BhcnRpZSDpLnBnbg=="}));
        assert_eq!(from_json(&to_json(latin)).as_deref(), Some(latin));
        assert_eq!(display(latin), "dir/partie é.pgn");
        assert_eq!(from_json(&json!({"bytes": "not base64!"})), None);
        assert_eq!(from_json(&json!(3)), None);
    }
}
