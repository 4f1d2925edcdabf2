//! Where `check -j1`'s time goes, measured apart (docs/performance.md, seventeenth session):
//!
//! - `reader FILE`: pgnkit's PGN reader alone, with a visitor that only counts SAN bytes;
//! - `lanes N FILE` (N = 1, 2 or 4): the mainline SAN tokens collected first, then resolved and
//!   played as the replayer does, the games split into N lanes stepped one ply each in turn (is
//!   the replay bound by its move-to-move dependency chain?);
//! - `scan FILE`: a stripped token-first scanner (token bounds from whitespace masks of a 64-byte
//!   window, tag lines skipped unparsed, nothing validated): what a reader rewrite could reach.
//!
//! Build and run with pgnkit's own flags (every timing is the best of five in one process):
//!
//! ```sh
//! cd scripts/experiments/replay-lanes
//! RUSTFLAGS="-C target-cpu=native -C llvm-args=-align-all-functions=6" cargo build --release
//! target/release/replay-lanes lanes 2 ../../../target/bench/corpus.pgn
//! ```
use std::ops::ControlFlow;
use std::time::Instant;

use pgnkit::chess::{Bitboard, Position, Variant};
use pgnkit::notation::san::{parse_san_with, suffix_after};
use pgnkit::pgn::{GameStart, RawTag, Reader, SanToken, Visitor};

/// Mainline SAN tokens of each standard-chess game (games with a `FEN` or `Variant` tag dropped).
struct Collect<'a> {
    games: Vec<Vec<&'a [u8]>>,
    skip: bool,
}

impl<'a> Visitor<'a> for Collect<'a> {
    type Output = ();
    fn begin_game(&mut self, _: GameStart) -> ControlFlow<()> {
        self.games.push(Vec::new());
        self.skip = false;
        ControlFlow::Continue(())
    }
    fn tag(&mut self, name: &'a [u8], _: RawTag<'a>) {
        self.skip |= name == b"FEN" || name == b"Variant";
    }
    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        self.games.last_mut().expect("a game").push(san.raw);
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
        ControlFlow::Break(())
    }
    fn end_game(&mut self) {
        if self.skip {
            self.games.pop();
        }
    }
}

/// Counts SAN bytes: the reader's own work and nothing else.
struct Count(u64);

impl<'a> Visitor<'a> for Count {
    type Output = ();
    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        self.0 += san.raw.len() as u64;
        ControlFlow::Continue(())
    }
    fn end_game(&mut self) {}
}

/// One lane: its games' tokens in a row, `None` where a game starts.
struct Lane<'a> {
    tokens: Vec<Option<&'a [u8]>>,
    next: usize,
    pos: Position,
    checkers: Bitboard,
    dead: bool,
}

impl<'a> Lane<'a> {
    fn new(games: &[Vec<&'a [u8]>]) -> Lane<'a> {
        let tokens =
            games.iter().flat_map(|g| std::iter::once(None).chain(g.iter().map(|&t| Some(t)))).collect();
        Lane { tokens, next: 0, pos: start(), checkers: Bitboard(0), dead: false }
    }

    fn rewind(&mut self) {
        self.next = 0;
    }

    /// Plays the lane's next token; `false` once none is left. `sum` keeps the work observable.
    #[inline(always)]
    fn step(&mut self, sum: &mut u64) -> bool {
        let Some(&token) = self.tokens.get(self.next) else { return false };
        self.next += 1;
        match token {
            None => {
                (self.pos, self.checkers, self.dead) = (start(), Bitboard(0), false);
            }
            Some(_) if self.dead => {}
            Some(t) => match parse_san_with(&self.pos, self.checkers, t) {
                Ok(r) => {
                    self.pos.play_known(r.mv, r.role);
                    self.checkers = self.pos.checkers();
                    *sum += u64::from(suffix_after(&self.pos, self.checkers) != r.suffix) + r.mv.to() as u64;
                }
                Err(_) => self.dead = true,
            },
        }
        true
    }
}

/// The standard start position, zobrist keys off as in `check`.
fn start() -> Position {
    let mut pos = Position::new(Variant::Standard);
    pos.set_hashing(false);
    pos
}

/// The best of five timings of `f`, in milliseconds, with its last result.
fn best_of_five<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..5 {
        let t = Instant::now();
        out = Some(f());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (best, out.expect("five runs"))
}

fn lanes(bytes: &[u8], n: usize) {
    let mut c = Collect { games: Vec::new(), skip: false };
    let mut reader = Reader::new(bytes);
    while !reader.is_at_end() {
        reader.read_game(&mut c);
    }
    let plies: usize = c.games.iter().map(Vec::len).sum();
    let mut lanes: Vec<Lane> = c.games.chunks(c.games.len().div_ceil(n)).map(Lane::new).collect();
    let (ms, sum) = best_of_five(|| {
        lanes.iter_mut().for_each(Lane::rewind);
        let mut sum = 0u64;
        match lanes.as_mut_slice() {
            [a] => while a.step(&mut sum) {},
            [a, b] => while a.step(&mut sum) | b.step(&mut sum) {},
            [a, b, c, d] => {
                while a.step(&mut sum) | b.step(&mut sum) | c.step(&mut sum) | d.step(&mut sum) {}
            }
            _ => panic!("1, 2 or 4 lanes"),
        }
        sum
    });
    let ns = ms * 1e6 / plies as f64;
    println!(
        "{} games, {plies} plies, {} lanes: {ms:.1} ms ({ns:.2} ns a ply; check {sum})",
        c.games.len(),
        lanes.len()
    );
}

fn reader_alone(bytes: &[u8]) {
    let (ms, san_bytes) = best_of_five(|| {
        let mut count = Count(0);
        let mut reader = Reader::new(bytes);
        while !reader.is_at_end() {
            reader.read_game(&mut count);
        }
        count.0
    });
    println!("reader alone: {ms:.1} ms ({san_bytes} SAN bytes)");
}

/// Bit masks of a 64-byte block: whitespace (space, LF, CR) and `}`.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn masks(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let (mut ws, mut close) = (0u64, 0u64);
    for half in 0..2 {
        // SAFETY: AVX2 is enabled for this build (the cfg above); the load reads 32 bytes of the
        // 64-byte block, unaligned.
        #[allow(unsafe_code)]
        let (w, c) = unsafe {
            let v = _mm256_loadu_si256(block.as_ptr().add(half * 32).cast());
            let eq = |b: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8));
            let w = _mm256_or_si256(_mm256_or_si256(eq(b' '), eq(b'\n')), eq(b'\r'));
            (_mm256_movemask_epi8(w) as u32, _mm256_movemask_epi8(eq(b'}')) as u32)
        };
        ws |= u64::from(w) << (32 * half);
        close |= u64::from(c) << (32 * half);
    }
    (ws, close)
}

/// The stripped scanner: (SAN bytes, SAN tokens) of plain lichess/TWIC text.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
fn scan(b: &[u8]) -> (u64, u64) {
    let n = b.len();
    let (mut san_bytes, mut sans) = (0u64, 0u64);
    let mut pos = 0;
    // The window: 64 bytes from `at`, as masks.
    let (mut at, mut ws, mut close) = (usize::MAX, 0u64, 0u64);
    let window = |p: usize| {
        let (w, c) = match b.get(p..p + 64) {
            Some(block) => masks(block.try_into().expect("64 bytes")),
            None => {
                // The last bytes, padded with spaces.
                let mut block = [b' '; 64];
                block[..n - p].copy_from_slice(&b[p..]);
                masks(&block)
            }
        };
        (p, w, c)
    };
    while pos < n {
        let rel = pos.wrapping_sub(at);
        if rel >= 64 {
            (at, ws, close) = window(pos);
            continue;
        }
        let token_bytes = !ws >> rel;
        if token_bytes == 0 {
            pos = at + 64;
            continue;
        }
        pos += token_bytes.trailing_zeros() as usize;
        if pos >= n {
            break;
        }
        let c = b[pos];
        if c == b'[' {
            pos += memchr::memchr(b'\n', &b[pos..]).map_or(n - pos, |i| i + 1);
            continue;
        }
        if c == b'{' {
            let rel = pos - at + 1;
            let ahead = if rel < 64 { close >> rel } else { 0 };
            pos += if ahead != 0 {
                ahead.trailing_zeros() as usize + 2
            } else {
                memchr::memchr(b'}', &b[pos..]).map_or(n - pos, |i| i + 1)
            };
            continue;
        }
        let ahead = ws >> (pos - at);
        let end = if ahead != 0 {
            pos + ahead.trailing_zeros() as usize
        } else {
            (at, ws, close) = window(pos);
            if ws != 0 { pos + ws.trailing_zeros() as usize } else { n }
        };
        let token = &b[pos..end];
        pos = end;
        let san = if c.is_ascii_digit() {
            // `12.` and results are no move; `12.e4` holds one after its periods.
            token.iter().position(|&x| x == b'.').map(|i| {
                let dots = &token[i..];
                &dots[dots.iter().position(|&x| x != b'.').unwrap_or(dots.len())..]
            })
        } else if c == b'*' {
            None
        } else {
            Some(token)
        };
        if let Some(s) = san.filter(|s| !s.is_empty()) {
            san_bytes += s.len() as u64;
            sans += 1;
            std::hint::black_box(s);
        }
    }
    (san_bytes, sans)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: replay-lanes reader FILE | lanes 1|2|4 FILE | scan FILE";
    let path = args.last().expect(usage);
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    match args.first().map(String::as_str) {
        Some("reader") => reader_alone(&bytes),
        Some("lanes") => lanes(&bytes, args[1].parse().expect(usage)),
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        Some("scan") => {
            let (ms, (san_bytes, sans)) = best_of_five(|| scan(&bytes));
            println!("token-first scan: {ms:.1} ms ({san_bytes} SAN bytes, {sans} SAN tokens)");
        }
        _ => panic!("{usage}"),
    }
}
