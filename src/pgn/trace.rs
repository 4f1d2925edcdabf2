//! A visitor that records every event of the [`Reader`](super::Reader) as a line of text
//! (`san@27 e4`, `comment@31 Brace  c1 `), for the tests of the reader and the splitter.

use std::ops::{ControlFlow, Range};

use super::visitor::{GameResult, GameStart, Problem, Visitor};
use super::{Nag, RawComment, RawTag, Reader, SanToken};

/// Every event as a line of text, for comparisons.
#[derive(Default)]
pub struct Trace {
    pub lines: Vec<String>,
    pub skip_variations: bool,
}

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Visitor<'_> for Trace {
    type Output = Vec<String>;
    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        self.lines.push(format!("game@{}", start.offset));
        ControlFlow::Continue(())
    }
    fn tag(&mut self, name: &[u8], value: RawTag<'_>) {
        self.lines.push(format!("tag@{} {}={}", value.offset, s(name), s(value.raw)));
    }
    fn begin_movetext(&mut self) -> ControlFlow<()> {
        self.lines.push("movetext".into());
        ControlFlow::Continue(())
    }
    fn san(&mut self, san: SanToken<'_>) -> ControlFlow<()> {
        self.lines.push(format!("san@{} {}", san.offset, s(san.raw)));
        ControlFlow::Continue(())
    }
    fn nag(&mut self, nag: Nag, offset: usize) {
        self.lines.push(format!("nag@{offset} {nag}"));
    }
    fn comment(&mut self, c: RawComment<'_>) {
        self.lines.push(format!("comment@{} {:?} {}", c.offset, c.kind, s(c.raw)));
    }
    fn begin_variation(&mut self, offset: usize) -> ControlFlow<()> {
        self.lines.push(format!("(@{offset}"));
        if self.skip_variations { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }
    fn end_variation(&mut self, offset: usize) {
        self.lines.push(format!(")@{offset}"));
    }
    fn outcome(&mut self, result: Option<GameResult>, offset: usize) {
        self.lines.push(format!("outcome@{offset} {:?}", result.map(GameResult::as_str)));
    }
    fn problem(&mut self, p: Problem) {
        self.lines.push(format!("problem@{} {:?}", p.offset, p.kind));
    }
    fn end_game(&mut self) -> Vec<String> {
        self.lines.push("end".into());
        std::mem::take(&mut self.lines)
    }
}

/// All games of `bytes[range]`, traced.
pub fn trace_range(bytes: &[u8], range: Range<usize>) -> Vec<Vec<String>> {
    let mut r = Reader::for_range(bytes, range);
    let mut t = Trace::default();
    let mut games = Vec::new();
    while let Some(g) = r.read_game(&mut t) {
        games.push(g);
    }
    games
}

/// All games of `bytes`, traced.
pub fn trace(bytes: &[u8]) -> Vec<Vec<String>> {
    trace_range(bytes, 0..bytes.len())
}
