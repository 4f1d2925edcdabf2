//! SAN resolve + play and FEN writing over every main-line move of real games, pgnkit beside
//! shakmaty (a benchmark peer, GPL-3.0, dev-dependency only) on the same tokens in the same run.
//! Run `cargo bench --bench notation`. Games: see `common::inputs` (the shared 1000k lichess and
//! TWIC files, else `fixtures/pgn/`). Tokens and positions are extracted once, outside the
//! timed loops; only moves both libraries accept are kept.
//!
//! Every pgnkit `san` case but the `keys kept` ones plays without updating the Zobrist key, as the
//! check replay does and as shakmaty's `Chess` (which has none) does.
//!
//! - `san/pgnkit parse_san+play`: per game, the start position, then per token `parse_san`
//!   (parse, legal move, lenience flags including the check-mark check) + `play_unchecked`.
//! - `san/pgnkit parse_san_with+play+suffix_after`: what the PGN replayer runs, same validation
//!   as `parse_san` (one `checkers()` per position resolves and verifies the check mark; the move
//!   is played with `play_known`, given the role the SAN named).
//! - `san/pgnkit from_ascii+to_move+play`: the same API shape as the peer (no lenience flags).
//! - `san/shakmaty from_ascii+to_move+play`: `San::from_ascii` + `to_move` + `play_unchecked`.
//! - `san/... to_move+play`: what issue 2's goal names, `San::to_move` + `play_unchecked` on SANs
//!   parsed before the timed loop (each library's own `San`), so parsing counts on neither side.
//! - `fen/...`: the FEN of every position (legal en passant square) into a reused buffer.
//!
//! Throughput is in elements: moves for `san`, positions for `fen`. Each group also prints a
//! best-of-N interleaved ratio (`ratio ...` lines on stderr).

#![allow(missing_docs)] // criterion_group! generates undocumented items

mod common;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pgnkit::chess::Position;
use pgnkit::notation::{EpMode, San, parse_san, parse_san_with, suffix_after, write_fen};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position as _};

/// Tokens of all games, with per-game ranges: slices of one contiguous text, as the tokens of a
/// mapped PGN file are (same layout for both libraries).
struct Games {
    tokens: Vec<&'static [u8]>,
    games: Vec<std::ops::Range<usize>>,
    /// The resolved moves, for the play-only and parse-only breakdown.
    ours: Vec<pgnkit::Move>,
    theirs: Vec<shakmaty::Move>,
    /// The tokens parsed by each library, for `to_move` + `play` without the parse.
    our_sans: Vec<San>,
    their_sans: Vec<shakmaty::san::San>,
}

/// The playable prefix of each game's main line: tokens both libraries resolve.
fn load() -> (Games, Vec<Position>, Vec<Chess>) {
    let mut text = Vec::new();
    let mut spans = Vec::new();
    let mut games = Vec::new();
    let (mut ours_moves, mut theirs_moves) = (Vec::new(), Vec::new());
    let mut ours_positions = Vec::new();
    let mut theirs_positions = Vec::new();
    for (_, bytes) in common::inputs() {
        for line in common::main_lines(&bytes) {
            let start = spans.len();
            let mut ours = Position::default();
            let mut theirs = Chess::default();
            for tok in line {
                let Ok((m, _)) = parse_san(&ours, tok) else { break };
                let Ok(san) = shakmaty::san::San::from_ascii(tok) else { break };
                let Ok(tm) = san.to_move(&theirs) else { break };
                ours_positions.push(ours);
                theirs_positions.push(theirs.clone());
                ours.play_unchecked(m);
                theirs.play_unchecked(tm);
                ours_moves.push(m);
                theirs_moves.push(tm);
                spans.push(text.len()..text.len() + tok.len());
                text.extend_from_slice(tok);
            }
            if spans.len() > start {
                games.push(start..spans.len());
            }
        }
    }
    let text: &'static [u8] = Vec::leak(text);
    let tokens: Vec<&'static [u8]> = spans.into_iter().map(|r| &text[r]).collect();
    let our_sans = tokens.iter().map(|t| San::from_ascii(t).expect("parses").0.san).collect();
    let their_sans = tokens.iter().map(|t| shakmaty::san::San::from_ascii(t).expect("parses")).collect();
    let g = Games { tokens, games, ours: ours_moves, theirs: theirs_moves, our_sans, their_sans };
    (g, ours_positions, theirs_positions)
}

/// A game's start position as the check replay keeps it: no Zobrist key updated move by move
/// (shakmaty's `Chess` keeps none either). `keys` turns them on, to show what they cost.
fn start(keys: bool) -> Position {
    let mut pos = Position::default();
    pos.set_hashing(keys);
    pos
}

/// Replays every game from `start()`, calling `step` on each of its `items` (tokens, parsed SANs
/// or moves: one per ply); returns the last game's final state. Each case below is this loop
/// with its own step, compiled apart (`#[inline(never)]`) so none shares code with another.
#[inline(always)]
fn each_game<P, T>(
    g: &Games,
    items: &[T],
    start: impl Fn() -> P,
    mut step: impl FnMut(&mut P, &T),
) -> Option<P> {
    let mut last = None;
    for r in g.games.iter() {
        let mut pos = start();
        for item in &items[r.clone()] {
            step(&mut pos, item);
        }
        last = Some(pos);
    }
    last
}

#[inline(never)]
fn pgnkit_parse_san(g: &Games) -> Option<Position> {
    each_game(
        g,
        &g.tokens,
        || start(false),
        |pos, tok| {
            let (m, _) = parse_san(pos, tok).expect("resolves");
            pos.play_unchecked(m);
        },
    )
}

/// The replayer's shape: one `checkers()` per position, used to resolve and, after the move, to
/// verify the written check mark (same validation as `parse_san`).
#[inline(never)]
fn pgnkit_parse_san_with(g: &Games, keys: bool) -> (Option<Position>, usize) {
    let mut wrong_marks = 0;
    let start = || {
        let pos = start(keys);
        (pos, pos.checkers())
    };
    let last = each_game(g, &g.tokens, start, |(pos, checkers), tok| {
        let r = parse_san_with(pos, *checkers, tok).expect("resolves");
        pos.play_known(r.mv, r.role);
        *checkers = pos.checkers();
        wrong_marks += usize::from(suffix_after(pos, *checkers) != r.suffix);
    });
    (last.map(|(pos, _)| pos), wrong_marks)
}

#[inline(never)]
fn pgnkit_to_move(g: &Games) -> Option<Position> {
    each_game(
        g,
        &g.tokens,
        || start(false),
        |pos, tok| {
            let (san, _) = San::from_ascii(tok).expect("parses");
            let m = san.san.to_move(pos).expect("resolves");
            pos.play_unchecked(m);
        },
    )
}

#[inline(never)]
fn shakmaty_to_move(g: &Games) -> Option<Chess> {
    each_game(g, &g.tokens, Chess::default, |pos, tok| {
        let san = shakmaty::san::San::from_ascii(tok).expect("parses");
        let m = san.to_move(pos).expect("resolves");
        pos.play_unchecked(m);
    })
}

/// `San::to_move` + `play_unchecked` on SANs parsed beforehand (issue 2's measure).
#[inline(never)]
fn pgnkit_parsed_to_move(g: &Games) -> Option<Position> {
    each_game(
        g,
        &g.our_sans,
        || start(false),
        |pos, san| {
            let m = san.to_move(pos).expect("resolves");
            pos.play_unchecked(m);
        },
    )
}

/// `San::play` (resolve, then play with the role the SAN names) on SANs parsed beforehand.
#[inline(never)]
fn pgnkit_parsed_play(g: &Games) -> Option<Position> {
    each_game(
        g,
        &g.our_sans,
        || start(false),
        |pos, san| {
            san.play(pos).expect("resolves");
        },
    )
}

#[inline(never)]
fn shakmaty_parsed_to_move(g: &Games) -> Option<Chess> {
    each_game(g, &g.their_sans, Chess::default, |pos, san| {
        let m = san.to_move(pos).expect("resolves");
        pos.play_unchecked(m);
    })
}

/// Breakdown: playing the pre-resolved moves only.
#[inline(never)]
fn pgnkit_play(g: &Games, keys: bool) -> Option<Position> {
    each_game(g, &g.ours, || start(keys), |pos, &m| pos.play_unchecked(m))
}

#[inline(never)]
fn shakmaty_play(g: &Games) -> Option<Chess> {
    each_game(g, &g.theirs, Chess::default, |pos, &m| pos.play_unchecked(m))
}

/// Breakdown: parsing the tokens only.
#[inline(never)]
fn pgnkit_parse(g: &Games) -> usize {
    g.tokens.iter().filter(|t| San::from_ascii(t).is_ok()).count()
}

#[inline(never)]
fn shakmaty_parse(g: &Games) -> usize {
    g.tokens.iter().filter(|t| shakmaty::san::San::from_ascii(t).is_ok()).count()
}

#[inline(never)]
fn pgnkit_fens(positions: &[Position], buf: &mut Vec<u8>) -> usize {
    let mut total = 0;
    for p in positions {
        buf.clear();
        write_fen(p, EpMode::Legal, buf);
        total += buf.len();
    }
    total
}

#[inline(never)]
fn shakmaty_fens(positions: &[Chess], buf: &mut Vec<u8>) -> usize {
    let mut total = 0;
    for p in positions {
        buf.clear();
        Fen::from_position(p, EnPassantMode::Legal).append_ascii_to(buf);
        total += buf.len();
    }
    total
}

fn bench(c: &mut Criterion) {
    let (games, ours, theirs) = load();
    let moves = games.tokens.len();
    eprintln!("{} games, {moves} moves (positions)", games.games.len());
    // Both sides see the same positions and write the same FENs.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    assert_eq!(pgnkit_fens(&ours, &mut a), shakmaty_fens(&theirs, &mut b));

    let mut group = c.benchmark_group("san");
    group.throughput(Throughput::Elements(moves as u64));
    group.bench_function("pgnkit parse_san+play", |bch| bch.iter(|| pgnkit_parse_san(black_box(&games))));
    group.bench_function("pgnkit parse_san_with+play+suffix_after", |bch| {
        bch.iter(|| pgnkit_parse_san_with(black_box(&games), false))
    });
    group.bench_function("pgnkit parse_san_with+play+suffix_after, keys kept", |bch| {
        bch.iter(|| pgnkit_parse_san_with(black_box(&games), true))
    });
    group.bench_function("pgnkit from_ascii+to_move+play", |bch| {
        bch.iter(|| pgnkit_to_move(black_box(&games)))
    });
    group.bench_function("shakmaty from_ascii+to_move+play", |bch| {
        bch.iter(|| shakmaty_to_move(black_box(&games)))
    });
    group.bench_function("pgnkit to_move+play", |bch| bch.iter(|| pgnkit_parsed_to_move(black_box(&games))));
    group.bench_function("pgnkit San::play", |bch| bch.iter(|| pgnkit_parsed_play(black_box(&games))));
    group.bench_function("shakmaty to_move+play", |bch| {
        bch.iter(|| shakmaty_parsed_to_move(black_box(&games)))
    });
    group.bench_function("pgnkit play only", |bch| bch.iter(|| pgnkit_play(black_box(&games), false)));
    group.bench_function("pgnkit play only, keys kept", |bch| {
        bch.iter(|| pgnkit_play(black_box(&games), true))
    });
    group.bench_function("shakmaty play only", |bch| bch.iter(|| shakmaty_play(black_box(&games))));
    group.bench_function("pgnkit parse only", |bch| bch.iter(|| pgnkit_parse(black_box(&games))));
    group.bench_function("shakmaty parse only", |bch| bch.iter(|| shakmaty_parse(black_box(&games))));
    group.finish();
    common::ratio("san play only vs shakmaty", 30, || pgnkit_play(&games, false), || shakmaty_play(&games));
    common::ratio(
        "san play only, keys kept vs shakmaty",
        30,
        || pgnkit_play(&games, true),
        || shakmaty_play(&games),
    );
    common::ratio("san parse only vs shakmaty", 30, || pgnkit_parse(&games), || shakmaty_parse(&games));
    common::ratio(
        "san parse_san+play vs shakmaty",
        30,
        || pgnkit_parse_san(&games),
        || shakmaty_to_move(&games),
    );
    common::ratio(
        "san parse_san_with+play+suffix_after vs shakmaty",
        30,
        || pgnkit_parse_san_with(&games, false),
        || shakmaty_to_move(&games),
    );
    common::ratio(
        "san parse_san_with+play+suffix_after, keys kept vs shakmaty",
        30,
        || pgnkit_parse_san_with(&games, true),
        || shakmaty_to_move(&games),
    );
    common::ratio(
        "san to_move+play (parsed beforehand) vs shakmaty",
        30,
        || pgnkit_parsed_to_move(&games),
        || shakmaty_parsed_to_move(&games),
    );
    common::ratio(
        "san San::play (parsed beforehand) vs shakmaty to_move+play",
        30,
        || pgnkit_parsed_play(&games),
        || shakmaty_parsed_to_move(&games),
    );
    common::ratio(
        "san from_ascii+to_move+play vs shakmaty",
        30,
        || pgnkit_to_move(&games),
        || shakmaty_to_move(&games),
    );

    let mut group = c.benchmark_group("fen");
    group.throughput(Throughput::Elements(ours.len() as u64));
    let mut buf = Vec::with_capacity(128);
    group.bench_function("pgnkit write_fen", |bch| bch.iter(|| pgnkit_fens(black_box(&ours), &mut buf)));
    group.bench_function("shakmaty Fen::from_position+append_ascii_to", |bch| {
        bch.iter(|| shakmaty_fens(black_box(&theirs), &mut buf))
    });
    group.finish();
    common::ratio(
        "fen write vs shakmaty",
        30,
        || pgnkit_fens(&ours, &mut a),
        || shakmaty_fens(&theirs, &mut b),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
