//! What the notation and PGN benches share: the games they run over, and a same-run ratio.
//!
//! Data: `games/lichess_db_1000k.pgn` and `twic1599_1000k.pgn` of the shared data sets (the
//! directory in `$PGNKIT_SHARED_DATA`, else beside the clone) when present, else every `fixtures/pgn/*.pgn`, with a note.

#![allow(dead_code)] // each bench uses a part

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pgnkit::pgn::{RawTag, Reader, SanToken, Visitor};

/// The PGN inputs: (name, bytes).
pub fn inputs() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("PGNKIT_SHARED_DATA")
        .map_or_else(|| root.join("../shared/data"), PathBuf::from)
        .join("games");
    let wanted = ["lichess_db_1000k.pgn", "twic1599_1000k.pgn"];
    if wanted.iter().all(|f| shared.join(f).is_file()) {
        return wanted
            .iter()
            .map(|f| (f.to_string(), std::fs::read(shared.join(f)).expect("read shared data")))
            .collect();
    }
    eprintln!(
        "note: {} not found; benchmarking fixtures/pgn/*.pgn instead (small: figures not comparable)",
        shared.display()
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures/pgn"))
        .expect("fixtures/pgn")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).expect("read")))
        .collect()
}

/// A game's main-line SAN tokens (variations skipped), or `None` for a game that does not start
/// from the standard position (a `FEN` or non-standard `Variant` tag).
#[derive(Default)]
struct MainLine<'a> {
    sans: Vec<&'a [u8]>,
    standard: bool,
}

impl<'a> Visitor<'a> for MainLine<'a> {
    type Output = Option<Vec<&'a [u8]>>;
    fn begin_game(&mut self, _: pgnkit::pgn::GameStart) -> ControlFlow<()> {
        self.standard = true;
        ControlFlow::Continue(())
    }
    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        if name == b"FEN" || (name == b"Variant" && !value.raw.eq_ignore_ascii_case(b"standard")) {
            self.standard = false;
        }
    }
    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        self.sans.push(san.raw);
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
        ControlFlow::Break(())
    }
    fn end_game(&mut self) -> Option<Vec<&'a [u8]>> {
        let sans = std::mem::take(&mut self.sans);
        self.standard.then_some(sans)
    }
}

/// The main lines of the standard-chess games of `bytes`.
pub fn main_lines(bytes: &[u8]) -> Vec<Vec<&[u8]>> {
    let mut r = Reader::new(bytes);
    let mut v = MainLine::default();
    std::iter::from_fn(|| r.read_game(&mut v)).flatten().collect()
}

/// Times `ours` and `theirs` alternately (`rounds` each) and prints the best time of each and
/// `theirs / ours`: a ratio from one run, robust to the load of a shared machine.
pub fn ratio<A, B>(what: &str, rounds: usize, mut ours: impl FnMut() -> A, mut theirs: impl FnMut() -> B) {
    let mut best = [Duration::MAX; 2];
    for _ in 0..rounds {
        let t = Instant::now();
        std::hint::black_box(ours());
        best[0] = best[0].min(t.elapsed());
        let t = Instant::now();
        std::hint::black_box(theirs());
        best[1] = best[1].min(t.elapsed());
    }
    eprintln!(
        "ratio {what}: pgnkit {:.3} ms, peer {:.3} ms, pgnkit is {:.2}x the peer's speed (best of {rounds}, interleaved)",
        best[0].as_secs_f64() * 1e3,
        best[1].as_secs_f64() * 1e3,
        best[1].as_secs_f64() / best[0].as_secs_f64()
    );
}
