//! The PGN reader over real games (bytes/s), pgnkit beside pgn-reader (a benchmark peer,
//! GPL-3.0, dev-dependency only) in the same run. Run `cargo bench --bench pgn`. Games: see
//! `common::inputs` (the shared 1000k lichess and TWIC files, else `fixtures/pgn/`).
//!
//! Both visitors do the same work: count the tags and touch their values, take every main-line
//! SAN token, skip variations. pgn-reader always parses each token into a shakmaty `SanPlus`, so
//! pgnkit runs twice: raw tokens (what its pipeline takes), and each token parsed with
//! `San::from_ascii` (the peer's work).

#![allow(missing_docs)] // criterion_group! generates undocumented items

mod common;

use std::hint::black_box;
use std::ops::ControlFlow;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pgnkit::notation::San;
use pgnkit::pgn::{RawTag, Reader, SanToken, Visitor};

/// What both visitors count.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    games: usize,
    tags: usize,
    tag_bytes: usize,
    sans: usize,
}

struct Ours<const PARSE: bool>(Counts);

impl<'a, const PARSE: bool> Visitor<'a> for Ours<PARSE> {
    type Output = ();
    fn tag(&mut self, _: &'a [u8], value: RawTag<'a>) {
        self.0.tags += 1;
        self.0.tag_bytes += value.raw.len();
    }
    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        if PARSE {
            if let Ok(s) = San::from_ascii(san.raw) {
                black_box(s);
                self.0.sans += 1;
            }
        } else {
            black_box(san.raw);
            self.0.sans += 1;
        }
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
        ControlFlow::Break(())
    }
    fn end_game(&mut self) {
        self.0.games += 1;
    }
}

fn pgnkit_read<const PARSE: bool>(bytes: &[u8]) -> Counts {
    let mut v = Ours::<PARSE>(Counts::default());
    let mut r = Reader::new(bytes);
    while r.read_game(&mut v).is_some() {}
    v.0
}

struct Theirs(Counts);

impl pgn_reader::Visitor for Theirs {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn tag(&mut self, _: &mut (), _: &[u8], value: pgn_reader::RawTag<'_>) -> ControlFlow<()> {
        self.0.tags += 1;
        self.0.tag_bytes += value.as_bytes().len();
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn san(&mut self, _: &mut (), san: pgn_reader::SanPlus) -> ControlFlow<()> {
        black_box(san);
        self.0.sans += 1;
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self, _: &mut ()) -> ControlFlow<(), pgn_reader::Skip> {
        ControlFlow::Continue(pgn_reader::Skip(true))
    }
    fn end_game(&mut self, _: ()) {
        self.0.games += 1;
    }
}

fn pgn_reader_read(bytes: &[u8]) -> Counts {
    let mut v = Theirs(Counts::default());
    pgn_reader::Reader::new(bytes).visit_all_games(&mut v).expect("in-memory read");
    v.0
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("pgn");
    group.sample_size(20);
    for (name, bytes) in common::inputs() {
        let ours = pgnkit_read::<true>(&bytes);
        let theirs = pgn_reader_read(&bytes);
        eprintln!("{name}: {} bytes, pgnkit {ours:?}, pgn-reader {theirs:?}", bytes.len());
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("pgnkit raw tokens {name}"), |b| {
            b.iter(|| pgnkit_read::<false>(black_box(&bytes)))
        });
        group.bench_function(format!("pgnkit + San::from_ascii {name}"), |b| {
            b.iter(|| pgnkit_read::<true>(black_box(&bytes)))
        });
        group.bench_function(format!("pgn-reader {name}"), |b| b.iter(|| pgn_reader_read(black_box(&bytes))));
        common::ratio(
            &format!("pgn raw tokens vs pgn-reader, {name}"),
            30,
            || pgnkit_read::<false>(&bytes),
            || pgn_reader_read(&bytes),
        );
        common::ratio(
            &format!("pgn + San::from_ascii vs pgn-reader, {name}"),
            30,
            || pgnkit_read::<true>(&bytes),
            || pgn_reader_read(&bytes),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
