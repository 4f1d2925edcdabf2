//! Perft suite files: the block format of shakmaty's suites (`id NAME`, `epd FEN`,
//! `perft DEPTH NODES`, `#` comments) and the one-line formats `FEN ;D1 20 ;D2 400`,
//! `FEN; D1 5; D2 25;` and `FEN - perft1 20; perft2 400;`. Positions are returned as text;
//! reading the FEN is the caller's business.

use std::fmt;

/// One position of a suite with its expected node counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftCase {
    /// Name from `id`, or `line N` for one-line formats.
    pub id: String,
    /// The position, as written (4 to 6 FEN fields).
    pub fen: String,
    /// `(depth, nodes)` pairs in file order.
    pub expected: Vec<(u32, u64)>,
    /// 1-based line where the case starts.
    pub line: usize,
}

/// A line that is none of the known forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseSuiteError {
    /// 1-based line number.
    pub line: usize,
}

impl fmt::Display for ParseSuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: not a perft suite line", self.line)
    }
}

impl std::error::Error for ParseSuiteError {}

/// Reads every case of a suite file.
pub fn parse_suite(text: &str) -> Result<Vec<PerftCase>, ParseSuiteError> {
    let mut cases: Vec<PerftCase> = Vec::new();
    let mut pending_id: Option<(String, usize)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        // Some suites are padded with NUL bytes: treat them as blanks.
        let line = raw.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = ParseSuiteError { line: line_no };
        if let Some(id) = line.strip_prefix("id ") {
            pending_id = Some((id.trim().to_string(), line_no));
        } else if let Some(fen) = line.strip_prefix("epd ") {
            let (id, line) = pending_id.take().unwrap_or_else(|| (format!("line {line_no}"), line_no));
            cases.push(PerftCase { id, fen: fen.trim().to_string(), expected: Vec::new(), line });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut it = rest.split_whitespace();
            let depth = it.next().and_then(|d| d.parse().ok()).ok_or(err)?;
            let nodes = it.next().and_then(|n| n.parse().ok()).ok_or(err)?;
            cases.last_mut().ok_or(err)?.expected.push((depth, nodes));
        } else {
            cases.push(parse_one_line(line, line_no)?);
        }
    }
    Ok(cases)
}

/// `FEN ;D1 20 ;D2 400`, `FEN; D1 5;` or `FEN - perft1 20; perft2 400;`.
fn parse_one_line(line: &str, line_no: usize) -> Result<PerftCase, ParseSuiteError> {
    let err = ParseSuiteError { line: line_no };
    let mut parts = line.split(';');
    let head = parts.next().ok_or(err)?;
    let (fen, first_op) = match head.find(" perft") {
        Some(at) => (&head[..at], Some(&head[at + 1..])),
        None => (head, None),
    };
    let mut expected = Vec::new();
    for op in first_op.into_iter().chain(parts) {
        let op = op.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        if op.is_empty() {
            continue;
        }
        let (name, count) = op.split_once(char::is_whitespace).ok_or(err)?;
        let depth = name
            .strip_prefix('D')
            .or_else(|| name.strip_prefix("perft"))
            .and_then(|d| d.parse().ok())
            .ok_or(err)?;
        expected.push((depth, count.trim().parse().map_err(|_| err)?));
    }
    if fen.split_whitespace().count() < 4 || expected.is_empty() {
        return Err(err);
    }
    Ok(PerftCase { id: format!("line {line_no}"), fen: fen.trim().to_string(), expected, line: line_no })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_all_forms() {
        let text = "# comment\nid kiwi\nepd r3k2r/8/8/8/8/8/8/R3K2R w KQkq -\nperft 1 26\nperft 2 568\n\n\
                    8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2 9\n\
                    8/8/8/8/8/8/8/K6k w - - 0 1; D1 3; D2 9 \n\
                    8/8/8/8/8/8/8/K6k w - - perft1 3; perft2 9;\n";
        let cases = parse_suite(text).expect("valid suite");
        assert_eq!(cases.len(), 4);
        assert_eq!(cases[0].id, "kiwi");
        assert_eq!(cases[0].expected, vec![(1, 26), (2, 568)]);
        for c in &cases[1..] {
            assert_eq!(c.fen.split_whitespace().count().min(4), 4);
            assert_eq!(c.expected, vec![(1, 3), (2, 9)]);
        }
        assert_eq!(cases[3].fen, "8/8/8/8/8/8/8/K6k w - -");
        assert_eq!(parse_suite("hello world\n"), Err(ParseSuiteError { line: 1 }));
        assert_eq!(parse_suite("perft 1 2\n"), Err(ParseSuiteError { line: 1 }));
    }
}
