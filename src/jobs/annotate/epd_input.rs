//! An input of `--format epd` judged whole, on the release side: what its lines give (their
//! diagnostics and text) is held while none of its lines has read as EPD, so that an input with
//! no EPD line at all (a PGN file, say) fails as one located error ([`InputError::NotEpd`], exit
//! 65) with nothing written, instead of one error a line and its text copied; once a line reads
//! as EPD what was held is released in order, as for any EPD file with a few bad lines.

use std::path::PathBuf;

use crate::error::{Diagnostic, Error, Kind};
use crate::io::InputError;

use super::AnnotatedChunk;
use super::epd::NOT_EPD;

/// Diagnostics held at most: the lines past them that are not EPD are counted, and named by one
/// diagnostic if a line of EPD comes after all (an input that starts so is seldom EPD).
const HELD: usize = 1000;

/// Bytes of text held at most: past them it is written as it comes (an output file is still
/// dropped if the input proves not EPD; stdout cannot take it back).
const HELD_BYTES: usize = 16 << 20;

/// What one input has shown so far.
#[derive(Debug, Default)]
pub(super) struct EpdInput {
    /// A line read as EPD (of a legal position or not).
    epd: bool,
    /// The diagnostics held, in order.
    held: Vec<Diagnostic>,
    /// The text held.
    text: Vec<u8>,
    /// Text is no longer held: there was too much of it.
    through: bool,
    /// Lines that are not EPD, held or not.
    not_epd: u64,
    /// The last diagnostic past the held ones, and how many were.
    over: Option<(Diagnostic, u64)>,
}

impl EpdInput {
    /// Leaves in `chunk` what can be released now, the held diagnostics and text first once a
    /// line has read as EPD; holds the rest.
    pub(super) fn release(&mut self, chunk: &mut AnnotatedChunk) {
        if self.epd {
            return;
        }
        if chunk.epd_lines > 0 {
            self.epd = true;
            let mut diagnostics = std::mem::take(&mut self.held);
            if let Some((last, n)) = self.over.take() {
                let message = format!(
                    "{n} lines up to this one are not EPD or FEN lines (past the first {HELD}, not listed)"
                );
                diagnostics.push(Diagnostic { message, ..last });
            }
            diagnostics.append(&mut chunk.diagnostics);
            chunk.diagnostics = diagnostics;
            self.text.append(&mut chunk.out);
            chunk.out = std::mem::take(&mut self.text);
            return;
        }
        // Before the first EPD line, a line that is no position is no EPD either.
        for d in chunk.diagnostics.drain(..) {
            self.not_epd += u64::from(d.kind == Kind::BadFen);
            if self.held.len() < HELD {
                self.held.push(d);
            } else {
                let n = self.over.as_ref().map_or(0, |o| o.1);
                self.over = Some((d, n + 1));
            }
        }
        if !self.through {
            self.text.append(&mut chunk.out);
            if self.text.len() > HELD_BYTES {
                self.through = true;
                chunk.out = std::mem::take(&mut self.text);
            }
        }
    }

    /// The input `path` is read whole: what is still held to release (none of the lines that are
    /// no EPD when the input is not EPD), and the input's failure when none of its lines of text
    /// read as EPD. Ready for the next input.
    pub(super) fn end(&mut self, path: &str) -> (Vec<Diagnostic>, Vec<u8>, Option<Error>) {
        let input = std::mem::take(self);
        let first = input.held.iter().find(|d| d.kind == Kind::BadFen && !input.epd);
        let Some(first) = first else {
            return (input.held, input.text, None);
        };
        let error = InputError::NotEpd {
            path: PathBuf::from(path),
            line: first.line,
            lines: input.not_epd,
            why: first.message.strip_prefix(NOT_EPD).unwrap_or(&first.message).to_string(),
        };
        let others = input.held.into_iter().filter(|d| d.kind != Kind::BadFen).collect();
        (others, Vec::new(), Some(Error::Input(error)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(line: u64, kind: Kind, message: &str) -> Diagnostic {
        let severity = kind.severity();
        Diagnostic { kind, severity, game: line, line, message: message.into(), ..Default::default() }
    }

    fn not_epd(n: u64) -> Diagnostic {
        line(n, Kind::BadFen, &format!("{NOT_EPD}invalid board part in FEN"))
    }

    /// A chunk of one line: its text, its diagnostics, whether it read as EPD.
    fn chunk(text: &str, diagnostics: Vec<Diagnostic>, epd: bool) -> AnnotatedChunk {
        let out = format!("{text}\n").into_bytes();
        AnnotatedChunk { out, diagnostics, epd_lines: u64::from(epd), ..Default::default() }
    }

    /// What `input` releases of `chunk`.
    fn release(input: &mut EpdInput, mut chunk: AnnotatedChunk) -> (String, Vec<Diagnostic>) {
        input.release(&mut chunk);
        (String::from_utf8(chunk.out).expect("UTF-8"), chunk.diagnostics)
    }

    #[test]
    fn lines_before_the_first_epd_line_are_held_then_released_in_order() {
        let mut input = EpdInput::default();
        let warning = line(1, Kind::EngineWarning, "engine: unknown option");
        assert_eq!(
            release(&mut input, chunk("x", vec![warning.clone(), not_epd(1)], false)),
            ("".into(), vec![])
        );
        assert_eq!(release(&mut input, chunk("# c", vec![], false)), ("".into(), vec![]));
        let illegal = line(3, Kind::BadFen, "not a legal position: two kings");
        let (text, diagnostics) =
            release(&mut input, chunk("8/8/8/8/8/8/8/8 w - -", vec![illegal.clone()], true));
        assert_eq!(text, "x\n# c\n8/8/8/8/8/8/8/8 w - -\n");
        assert_eq!(diagnostics, [warning, not_epd(1), illegal]);
        let after = release(&mut input, chunk("y", vec![not_epd(4)], false));
        assert_eq!(after, ("y\n".into(), vec![not_epd(4)]), "released as they come");
        assert!(matches!(input.end("t.epd"), (held, text, None) if held.is_empty() && text.is_empty()));
    }

    #[test]
    fn an_input_with_no_epd_line_is_one_located_error_and_no_text() {
        let mut input = EpdInput::default();
        let warning = line(2, Kind::EngineWarning, "engine: unknown option");
        release(&mut input, chunk("", vec![], false));
        release(&mut input, chunk("[Event \"x\"]", vec![warning.clone(), not_epd(2)], false));
        release(&mut input, chunk("[Site \"y\"]", vec![not_epd(3)], false));
        release(&mut input, chunk("1. e4 *", vec![not_epd(5)], false));
        let (others, text, error) = input.end("games.pgn");
        assert_eq!((others, text), (vec![warning], vec![]));
        let error = error.expect("not EPD");
        assert_eq!(error.exit_code(), crate::exit::Code::DataErr);
        assert_eq!(
            error.to_string(),
            "games.pgn:2:1: input is not EPD: none of its 3 lines of text is an EPD record or a FEN \
             (line 2: invalid board part in FEN)"
        );
        // Each input is judged alone; one of comments only is no failure, and is written.
        release(&mut input, chunk("# only", vec![], false));
        let (held, text, error) = input.end("next.epd");
        assert!(held.is_empty() && error.is_none());
        assert_eq!(text, b"# only\n");
    }

    #[test]
    fn what_is_past_the_held_share_is_counted_or_written() {
        let mut input = EpdInput::default();
        let over = HELD as u64 + 5;
        let long = "x".repeat(HELD_BYTES / HELD + 1);
        let mut written = 0;
        for n in 1..=over {
            let (text, diagnostics) = release(&mut input, chunk(&long, vec![not_epd(n)], false));
            assert!(diagnostics.is_empty());
            written += text.len();
        }
        assert_eq!(written, over as usize * (long.len() + 1), "the text held past its share is written");
        let (_, released) = release(&mut input, chunk("8/8/8/8/8/8/8/8 w - -", vec![], true));
        assert_eq!(released.len(), HELD + 1);
        assert_eq!(released[HELD - 1], not_epd(HELD as u64));
        let last = &released[HELD];
        assert_eq!((last.line, last.kind), (over, Kind::BadFen));
        assert!(
            last.message.starts_with("5 lines up to this one are not EPD or FEN lines"),
            "{}",
            last.message
        );
    }
}
