//! Move generation: perft (bulk counting at the last ply) from the start position and Kiwipete,
//! pgnkit beside shakmaty (a benchmark peer, GPL-3.0, dev-dependency only) in the same run.
//! Run `cargo bench --bench movegen`, and `--no-default-features` for standard chess with the
//! crazyhouse code paths compiled out. Throughput is reported in nodes (elements) per second.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pgnkit::chess::perft::perft;
use pgnkit::chess::{Position, Variant};
use pgnkit::notation::fen::parse_fen;
use shakmaty::{CastlingMode, Chess, fen::Fen};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn bench(c: &mut Criterion) {
    let cases = [("start d6", None, 6, 119_060_324u64), ("kiwipete d5", Some(KIWIPETE), 5, 193_690_690)];
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, fen, depth, nodes) in cases {
        group.throughput(Throughput::Elements(nodes));
        let ours = match fen {
            Some(f) => parse_fen(f, Variant::Standard).expect("valid FEN"),
            None => Position::default(),
        };
        assert_eq!(perft(&ours, depth), nodes);
        group.bench_function(format!("pgnkit {name}"), |b| b.iter(|| perft(&ours, depth)));
        let theirs: Chess = match fen {
            Some(f) => {
                f.parse::<Fen>().expect("fen").into_position(CastlingMode::Standard).expect("position")
            }
            None => Chess::default(),
        };
        group.bench_function(format!("shakmaty {name}"), |b| b.iter(|| shakmaty::perft(&theirs, depth)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
