//! A protocol loop's input (UCI, xboard), read on a thread of its own so that no command waiting
//! for a search keeps `isready`, `stop` or `quit` from being read; and its answers (`say`).

use std::io::{self, BufRead, Read, Write};
use std::sync::Mutex;
use std::thread;

use crossbeam_channel::{Receiver, unbounded};

use crate::pgn::text::without_controls;

/// Writes the answer `line` (from the loop or its search thread), the control characters of the
/// input it echoes escaped (a NUL, an ESC).
pub(crate) fn say(out: &Mutex<impl Write>, line: &str) -> io::Result<()> {
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    writeln!(w, "{}", without_controls(line, &[]))?;
    w.flush()
}

/// What the end of a loop's input does to the searches asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AtEof {
    /// As `quit`: every search is stopped (a GUI that ends the input has gone; so Stockfish).
    #[default]
    Quit,
    /// What was read is carried out and searches with a limit run to it and answer, then the
    /// loop ends; a UCI search without a limit (`go infinite`, a bare `go`) is stopped. For
    /// scripts that pipe their commands in.
    Finish,
}

/// One line of input, without its line ending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line in UTF-8.
    Text(String),
    /// A line that is not UTF-8, shown with replacement characters: one bad command, not the end
    /// of the input (a GUI may send a Latin-1 path in an option).
    NotUtf8(String),
    /// A line longer than [`MAX_LINE`], skipped as it was read: no command is that long (a
    /// `position ... moves` of a 6,000-ply game is some 30 kB), and holding it has no bound.
    TooLong,
}

/// Bytes of a command line, its line break aside: the budget of every line-cut input.
pub use crate::pipeline::chunk::MAX_LINE;

/// The lines of `input`, read on a thread of their own; the channel disconnects after the last
/// line, and an error reading ends it with that error. The thread is detached: a read blocked on
/// a terminal must not keep the loop from returning on `quit`.
pub(crate) fn lines<R: BufRead + Send + 'static>(mut input: R) -> io::Result<Receiver<io::Result<Line>>> {
    let (tx, rx) = unbounded();
    thread::Builder::new().name("input".into()).spawn(move || {
        let mut buf = Vec::new();
        loop {
            let line = match next_line(&mut input, &mut buf) {
                Ok(None) => return,
                Ok(Some(line)) => Ok(line),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
            let failed = line.is_err();
            if tx.send(line).is_err() || failed {
                return;
            }
        }
    })?;
    Ok(rx)
}

/// The next line of `input` (`buf` holds its bytes meanwhile): `None` at the end of the input.
/// Memory stays within [`MAX_LINE`] whatever the input: a longer line is [`Line::TooLong`].
pub fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<Line>> {
    buf.clear();
    Ok(match read_line(input, buf)? {
        None => None,
        Some(false) => Some(Line::TooLong),
        Some(true) => Some(decode(trim_end(buf))),
    })
}

/// The next line of `input` into `buf`: `Some(true)`, or `Some(false)` for one longer than
/// [`MAX_LINE`], read to its end a piece at a time; `None` at the end of the input.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<bool>> {
    let limit = MAX_LINE as u64 + 1;
    if (&mut *input).take(limit).read_until(b'\n', buf)? == 0 {
        return Ok(None);
    }
    if buf.len() <= MAX_LINE || buf.ends_with(b"\n") {
        return Ok(Some(true));
    }
    loop {
        buf.clear();
        if (&mut *input).take(limit).read_until(b'\n', buf)? == 0 || buf.ends_with(b"\n") {
            return Ok(Some(false));
        }
    }
}

fn decode(line: &[u8]) -> Line {
    match std::str::from_utf8(line) {
        Ok(text) => Line::Text(text.to_string()),
        Err(_) => Line::NotUtf8(String::from_utf8_lossy(line).into_owned()),
    }
}

/// `line` without its `\n` or `\r\n`.
fn trim_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_is_not_utf8_is_one_line() {
        let input = io::Cursor::new(b"isready\r\nposition \xe9\n\xff\ngo".to_vec());
        let lines: Vec<Line> = lines(input).expect("thread").iter().map(|l| l.expect("read")).collect();
        assert_eq!(
            lines,
            [
                Line::Text("isready".into()),
                Line::NotUtf8("position \u{fffd}".into()),
                Line::NotUtf8("\u{fffd}".into()),
                Line::Text("go".into()),
            ]
        );
    }

    /// A line longer than the budget is one [`Line::TooLong`], read through without being held,
    /// and the lines around it come as they are.
    #[test]
    fn a_line_over_the_budget_is_skipped() {
        let mut text = b"isready\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE + 7));
        text.extend(b"\r\ngo\n");
        text.extend(std::iter::repeat_n(b'y', MAX_LINE + 1));
        let lines: Vec<Line> =
            lines(io::Cursor::new(text)).expect("thread").iter().map(|l| l.expect("read")).collect();
        assert_eq!(
            lines,
            [Line::Text("isready".into()), Line::TooLong, Line::Text("go".into()), Line::TooLong]
        );
    }
}
