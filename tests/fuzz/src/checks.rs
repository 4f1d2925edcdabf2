//! The properties the fuzz targets check, one `pub fn(&[u8])` per target. Each panics (with a
//! message) when a property fails and must never panic otherwise.
//!
//! This file depends on `pgnkit` and `std` only: the cargo-fuzz package (`tests/fuzz`) compiles it
//! as its library, and the stable integration test `tests/it/fuzz_seeds.rs` includes the same file
//! with `#[path]` to replay the seed corpora under `fixtures/fuzz/<target>/`, so the properties
//! run on every `cargo test` without nightly.

#![allow(dead_code)] // each includer uses a subset

use std::ops::{ControlFlow, Range};

use pgnkit::chess::{CastlingMode, Move, MoveKind, Position, PositionError, Role, Setup, Square, Variant};
use pgnkit::notation::{
    EpMode, FenError, Lenience, San, SanError, SanPlus, Suffix, parse_fen, parse_san, parse_setup, parse_uci,
    write_epd, write_fen, write_san, write_setup, write_uci,
};
use pgnkit::pgn::split::chunks;
use pgnkit::pgn::{
    GameResult, GameStart, LineIndex, Nag, Problem, ProblemKind, RawComment, RawTag, Reader, SanToken,
    Visitor,
};

/// A target's property: panics on failure.
pub type Check = fn(&[u8]);

/// The targets, by name (the directory names under `fixtures/fuzz/` and the fuzz binaries).
pub const TARGETS: [(&str, Check); 9] = [
    ("pgn_reader", pgn_reader),
    ("clean", clean),
    ("split", split),
    ("speculative", speculative),
    ("fen_roundtrip", fen_roundtrip),
    ("san_roundtrip", san_roundtrip),
    ("uci_roundtrip", uci_roundtrip),
    ("movegen_legal", movegen_legal),
    ("zobrist_incremental", zobrist_incremental),
];

// --- PGN --------------------------------------------------------------------------------------

/// One reader event, compactly, borrowing from the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ev<'a> {
    /// `begin_game`.
    Game(usize),
    /// `tag`: offset of `[`, name, raw value.
    Tag(usize, &'a [u8], &'a [u8]),
    /// `begin_movetext`.
    Movetext,
    /// `san`.
    San(usize, &'a [u8]),
    /// `nag`.
    Nag(usize, u8),
    /// `comment`: offset of `{` or `;`, raw text.
    Comment(usize, &'a [u8]),
    /// `begin_variation`.
    Begin(usize),
    /// `end_variation`.
    End(usize),
    /// `outcome`.
    Outcome(usize, Option<GameResult>),
    /// `problem`.
    Problem(usize, ProblemKind),
}

/// Collects every event of a game; `end_game` returns them.
#[derive(Default)]
pub struct Trace<'a> {
    evs: Vec<Ev<'a>>,
}

impl<'a> Visitor<'a> for Trace<'a> {
    type Output = Vec<Ev<'a>>;
    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        self.evs.push(Ev::Game(start.offset));
        ControlFlow::Continue(())
    }
    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        // Lazy decoding must never panic.
        let _ = value.decode();
        self.evs.push(Ev::Tag(value.offset, name, value.raw));
    }
    fn begin_movetext(&mut self) -> ControlFlow<()> {
        self.evs.push(Ev::Movetext);
        ControlFlow::Continue(())
    }
    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        self.evs.push(Ev::San(san.offset, san.raw));
        ControlFlow::Continue(())
    }
    fn nag(&mut self, nag: Nag, offset: usize) {
        let _ = nag.glyph();
        self.evs.push(Ev::Nag(offset, nag.0));
    }
    fn comment(&mut self, c: RawComment<'a>) {
        let _ = (c.eval(), c.clock(), c.emt(), c.text(), c.commands().count());
        self.evs.push(Ev::Comment(c.offset, c.raw));
    }
    fn begin_variation(&mut self, offset: usize) -> ControlFlow<()> {
        self.evs.push(Ev::Begin(offset));
        ControlFlow::Continue(())
    }
    fn end_variation(&mut self, offset: usize) {
        self.evs.push(Ev::End(offset));
    }
    fn outcome(&mut self, result: Option<GameResult>, offset: usize) {
        self.evs.push(Ev::Outcome(offset, result));
    }
    fn problem(&mut self, p: Problem) {
        let _ = (p.kind.message(), p.kind.is_error());
        self.evs.push(Ev::Problem(p.offset, p.kind));
    }
    fn end_game(&mut self) -> Vec<Ev<'a>> {
        std::mem::take(&mut self.evs)
    }
}

/// Every game of `bytes[range]`, as event lists.
pub fn parse_range(bytes: &[u8], range: Range<usize>) -> Vec<Vec<Ev<'_>>> {
    let mut r = Reader::for_range(bytes, range);
    let mut t = Trace::default();
    let mut games = Vec::new();
    while let Some(g) = r.read_game(&mut t) {
        games.push(g);
        // Each game consumes at least one byte: a reader that stops advancing would loop forever.
        assert!(games.len() <= bytes.len(), "more games than bytes");
    }
    games
}

/// `true` when `part` lies inside `whole`, starting at index `at`.
fn is_at(whole: &[u8], part: &[u8], at: usize) -> bool {
    let start = part.as_ptr() as usize;
    let base = whole.as_ptr() as usize;
    start == base + at && at + part.len() <= whole.len()
}

/// Counts the SAN tokens of the main line, skipping variations (and checks that skipping does not
/// change where games end).
#[derive(Default)]
struct MainLine {
    sans: usize,
}

impl Visitor<'_> for MainLine {
    type Output = usize;
    fn san(&mut self, _: SanToken<'_>) -> ControlFlow<()> {
        self.sans += 1;
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
        ControlFlow::Break(())
    }
    fn end_variation(&mut self, _: usize) {
        panic!("end_variation after a skipped variation");
    }
    fn end_game(&mut self) -> usize {
        std::mem::take(&mut self.sans)
    }
}

/// Arbitrary bytes through the reader: no panic, well-formed event streams (order, balance,
/// tokens borrowed from the input at their offsets), and skipping (whole games, variations)
/// delimits exactly the same games.
pub fn pgn_reader(data: &[u8]) {
    let games = parse_range(data, 0..data.len());
    let mut prev_start = None;
    let mut lines = LineIndex::new(data);
    for g in &games {
        let Some(&Ev::Game(start)) = g.first() else { panic!("game without begin_game: {g:?}") };
        assert!(start < data.len(), "game starts at {start} past the end");
        assert!(prev_start.is_none_or(|p| p < start), "game starts not increasing");
        prev_start = Some(start);
        let _ = lines.locate(start);
        let mut depth = 0usize;
        let mut movetext = false;
        let mut outcomes = 0;
        let mut last_token = start;
        // Comments before the first tag (a preamble) are read at the start of the movetext.
        let first_tag = g.iter().find_map(|e| if let Ev::Tag(o, ..) = *e { Some(o) } else { None });
        let mut last_lead = start;
        for e in &g[1..] {
            match *e {
                Ev::Game(_) => panic!("begin_game inside a game"),
                Ev::Tag(o, name, raw) => {
                    assert!(!movetext, "tag after the movetext started");
                    assert_eq!(data[o], b'[', "tag offset {o}");
                    assert!(o >= start && o >= last_token, "tag offsets go backwards");
                    last_token = o;
                    assert!(
                        !name.is_empty()
                            && is_at(data, name, name.as_ptr() as usize - data.as_ptr() as usize)
                    );
                    assert!(raw.as_ptr() as usize >= name.as_ptr() as usize + name.len());
                }
                Ev::Movetext => {
                    assert!(!movetext, "two begin_movetext");
                    movetext = true;
                }
                Ev::San(o, raw) => {
                    assert!(movetext && outcomes == 0, "SAN outside the movetext: {g:?}");
                    assert!(!raw.is_empty() && is_at(data, raw, o), "SAN token not at its offset");
                    assert!(o >= last_token, "SAN offsets go backwards");
                    last_token = o;
                }
                Ev::Comment(o, raw) => {
                    assert!(movetext, "comment before the movetext");
                    assert!(matches!(data[o], b'{' | b';'), "comment offset {o}");
                    assert!(is_at(data, raw, o + 1), "comment text not after its delimiter");
                    if first_tag.is_some_and(|t| o < t) {
                        assert!(o >= last_lead, "comments before the tags go backwards");
                        last_lead = o;
                    } else {
                        assert!(o >= last_token, "comment offsets go backwards");
                        last_token = o;
                    }
                }
                Ev::Nag(o, _) => {
                    assert!(movetext && o < data.len());
                }
                Ev::Begin(o) => {
                    assert!(movetext && outcomes == 0);
                    assert_eq!(data[o], b'(', "variation offset {o}");
                    depth += 1;
                }
                Ev::End(o) => {
                    assert!(depth > 0, "end_variation without begin_variation");
                    assert!(o <= data.len());
                    depth -= 1;
                }
                Ev::Outcome(o, _) => {
                    assert!(movetext && depth == 0, "outcome inside a variation");
                    assert!(o <= data.len());
                    outcomes += 1;
                }
                Ev::Problem(o, _) => assert!(o <= data.len(), "problem offset {o} past the end"),
            }
        }
        assert_eq!(depth, 0, "unbalanced variations: {g:?}");
        assert!(outcomes <= 1, "more than one outcome");
        assert!(!movetext || outcomes == 1, "movetext without outcome: {g:?}");
    }
    // Skipping whole games finds the same games.
    let mut r = Reader::new(data);
    let mut skipped = 0;
    while r.skip_game() {
        skipped += 1;
        assert!(skipped <= games.len(), "skip_game finds more games than read_game");
    }
    assert_eq!(skipped, games.len(), "skip_game finds fewer games than read_game");
    // Skipping variations keeps the games and the main line.
    let mut r = Reader::new(data);
    let mut v = MainLine::default();
    for g in &games {
        let main = main_line_sans(g);
        assert_eq!(r.read_game(&mut v), Some(main), "main line differs when variations are skipped");
    }
    assert_eq!(r.read_game(&mut v), None);
}

/// The number of SAN tokens outside variations.
fn main_line_sans(g: &[Ev<'_>]) -> usize {
    let mut depth = 0;
    let mut n = 0;
    for e in g {
        match e {
            Ev::Begin(_) => depth += 1,
            Ev::End(_) => depth -= 1,
            Ev::San(..) if depth == 0 => n += 1,
            _ => {}
        }
    }
    n
}

/// Chunked parsing at a target size taken from the first two bytes equals one sequential parse of
/// the rest; the chunks cover the input without gaps, each chunk starting where a game ended.
pub fn split(data: &[u8]) {
    let (target, bytes) = match data {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])) % 4096 + 1, rest),
        _ => (1, data),
    };
    let whole = parse_range(bytes, 0..bytes.len());
    for target in [target, 1] {
        let mut chunked = Vec::new();
        let mut covered = 0;
        for range in chunks(bytes, target) {
            assert_eq!(range.start, covered, "gap before {range:?} at target {target}");
            assert!(range.end > range.start, "empty chunk at target {target}");
            covered = range.end;
            chunked.extend(parse_range(bytes, range));
        }
        assert_eq!(covered, bytes.len(), "chunks do not cover the input at target {target}");
        assert!(chunked == whole, "chunked parse differs at target {target}");
    }
}

/// A reader handing out at most `step` bytes per call, as pipes and decoders do.
struct Trickle<'a>(&'a [u8], usize);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.1).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// `check`'s report (diagnostics with absolute lines, and counters) through one pipeline run.
fn check_report(
    input: pgnkit::pipeline::Input<'_>,
    speculative: bool,
    threads: usize,
    chunk_size: usize,
) -> (Vec<pgnkit::error::Diagnostic>, pgnkit::pipeline::stats::Stats) {
    use pgnkit::jobs::check::{Check, CheckItem, CheckOptions};
    use pgnkit::pipeline::{Cuts, NoProgress, Options, Run, WithCuts, Workers, run};
    let (mut diags, mut stats) = (Vec::new(), pgnkit::pipeline::stats::Stats::default());
    let check = Check { opts: CheckOptions { strict_san: true, games: true }, ..Check::default() };
    let job = WithCuts(&check, if speculative { Cuts::Guessed } else { Cuts::Exact });
    let (workers, opts) = (Workers::default(), Options { threads, chunk_size });
    let run_ =
        Run { name: &"fuzz.pgn".into(), job: &job, workers: &workers, opts: &opts, observer: &NoProgress };
    run(input, &run_, |out| {
        for item in out.records {
            match item {
                CheckItem::Diagnostic(d) => diags.push(d),
                CheckItem::Game(g) => assert!(g.game > 0, "game records are numbered from 1"),
            }
        }
        stats.merge(&out.stats);
        Ok(())
    })
    .expect("in-memory run");
    (diags, stats)
}

/// `check` over chunks cut at guessed boundaries, mapped or streamed, and over exact cuts of a
/// stream (chunk target from the first two bytes, stream read size from the third), at 1 and 2
/// threads, reports exactly what one sequential read reports.
pub fn speculative(data: &[u8]) {
    use pgnkit::pipeline::Input;
    let (target, step, bytes) = match data {
        [a, b, c, rest @ ..] => {
            (usize::from(u16::from_le_bytes([*a, *b])) % 4096 + 1, usize::from(*c) % 64 + 1, rest)
        }
        _ => (1, 1, data),
    };
    let whole = check_report(Input::Slice(bytes), false, 1, usize::MAX);
    for threads in [1, 2] {
        let mapped = check_report(Input::Slice(bytes), true, threads, target);
        assert!(mapped == whole, "mapped, {threads} threads, target {target}: {mapped:?}\nvs {whole:?}");
        let exact = check_report(Input::Stream(Box::new(Trickle(bytes, step))), false, threads, target);
        assert!(
            exact == whole,
            "exact cuts of a stream, {threads} threads, target {target}, step {step}: {exact:?}\nvs {whole:?}"
        );
        let streamed = check_report(Input::Stream(Box::new(Trickle(bytes, step))), true, threads, target);
        assert!(
            streamed == whole,
            "streamed, {threads} threads, target {target}, step {step}: {streamed:?}\nvs {whole:?}"
        );
    }
}

/// What one `clean` run gives: the output, the ledger (fate per game read) and the counters.
struct Cleaned {
    out: Vec<u8>,
    fates: Vec<String>,
    stats: pgnkit::pipeline::stats::Stats,
}

/// `clean` over `bytes` with `opts`, released as the CLI's writer releases (duplicates by the
/// run-wide table; under `--dedup=prefix` once every game is read); every rejected game's verbatim
/// bytes must be a part of `bytes`.
fn clean_run(
    bytes: &[u8],
    opts: &pgnkit::jobs::clean::CleanOptions,
    threads: usize,
    chunk_size: usize,
) -> Cleaned {
    use pgnkit::jobs::clean::dedup::Dedup;
    use pgnkit::jobs::clean::dedup::walk::Mainlines;
    use pgnkit::jobs::clean::{Clean, Fate, Rule};
    use pgnkit::pipeline::{Input, NoProgress, Options, Run, Workers, run};
    let job = Clean::new(opts.clone());
    let (workers, pipeline) = (Workers::default(), Options { threads, chunk_size });
    let run_ = Run {
        name: &"fuzz.pgn".into(),
        job: &job,
        workers: &workers,
        opts: &pipeline,
        observer: &NoProgress,
    };
    let mut cleaned = Cleaned { out: Vec::new(), fates: Vec::new(), stats: Default::default() };
    let prefix = opts.dedup == Some(Rule::Prefix);
    let mut dedup = Dedup::of(opts.dedup.filter(|_| !prefix));
    // Under `prefix` every game written waits for the verdicts, found once all are read.
    let mut lines = prefix.then(Mainlines::default);
    let (mut waiting, mut ordinal) = (Vec::new(), 0u64);
    run(Input::Slice(bytes), &run_, |o| {
        let chunk = o.records;
        cleaned.stats.merge(&o.stats);
        for g in &chunk.games {
            let fate = match &g.fate {
                Fate::Written | Fate::Broken { .. } => match (&mut lines, g.dedup.as_ref()) {
                    (Some(lines), Some(id)) => {
                        lines.push(id, &chunk.mainlines[g.mainline.clone()], ordinal).expect("held");
                        waiting.push((
                            cleaned.fates.len(),
                            ordinal,
                            g.game,
                            chunk.out[g.text.clone()].to_vec(),
                        ));
                        String::new()
                    }
                    (_, id) => match dedup.next(id).expect("memory") {
                        Some(r) => format!("{} duplicate ({}) of {}", g.game, r.rule.name(), r.of + 1),
                        None => {
                            cleaned.out.extend_from_slice(&chunk.out[g.text.clone()]);
                            format!("{} written", g.game)
                        }
                    },
                },
                Fate::Rejected { kind, .. } => {
                    dedup.next(None).expect("memory");
                    let verbatim = &chunk.verbatim[g.verbatim.clone()];
                    let game = verbatim.trim_ascii_end();
                    assert!(
                        game.is_empty() || bytes.windows(game.len()).any(|w| w == game),
                        "game {}: the rejected bytes are not a part of the input",
                        g.game
                    );
                    format!("{} rejected {kind}", g.game)
                }
                Fate::Filtered { by } => {
                    dedup.next(None).expect("memory");
                    format!("{} filtered {by}", g.game)
                }
            };
            cleaned.fates.push(fate);
            ordinal += 1;
        }
        Ok(())
    })
    .expect("in-memory run");
    if let Some(lines) = lines {
        let mut repeats = lines.verdicts(&|| false).expect("the walk");
        for (i, ordinal, game, text) in waiting {
            cleaned.fates[i] = match repeats.of(ordinal).expect("read back") {
                Some(v) => format!("{game} duplicate ({}) of {}", v.rule.name(), v.of + 1),
                None => {
                    cleaned.out.extend_from_slice(&text);
                    format!("{game} written")
                }
            };
        }
        assert!(repeats.done(), "a verdict of no game");
    }
    cleaned
}

/// `clean` of arbitrary bytes (options from the first byte, `--dedup`'s rule from bits 3, 5 and
/// 6, chunk target from the next two):
/// every game read has one fate, numbered in order; the output is the same at 1 and 2 threads
/// and at any chunk size; `check` finds no error in it and no warning but null moves; and
/// cleaning it again writes every game, byte for byte the same.
pub fn clean(data: &[u8]) {
    use pgnkit::jobs::clean::CleanOptions;
    use pgnkit::pipeline::Input;
    use pgnkit::pipeline::replay::export::Strip;
    let (flags, target, bytes) = match data {
        [f, a, b, rest @ ..] => (*f, usize::from(u16::from_le_bytes([*a, *b])) % 4096 + 1, rest),
        _ => (0, 1, data),
    };
    let opts = CleanOptions {
        strip: Strip { comments: flags & 1 != 0, variations: flags & 2 != 0, ..Strip::default() },
        keep_broken: flags & 4 != 0,
        dedup: (flags & 8 != 0).then_some(match flags >> 5 & 3 {
            1 => pgnkit::jobs::clean::Rule::Moves,
            2 => pgnkit::jobs::clean::Rule::Prefix,
            _ => pgnkit::jobs::clean::Rule::Game,
        }),
        line_width: if flags & 16 != 0 { 40 } else { 80 },
        ..CleanOptions::default()
    };
    let whole = clean_run(bytes, &opts, 1, usize::MAX);
    assert_eq!(whole.fates.len() as u64, whole.stats.games, "one fate per game read");
    for (i, f) in whole.fates.iter().enumerate() {
        assert!(f.starts_with(&format!("{} ", i + 1)), "games numbered in order: {:?}", whole.fates);
    }
    for threads in [1, 2] {
        let cut = clean_run(bytes, &opts, threads, target);
        assert!(cut.out == whole.out, "{threads} threads, target {target}: another output");
        assert!(
            cut.fates == whole.fates,
            "{threads} threads, target {target}: {:?}\nvs {:?}",
            cut.fates,
            whole.fates
        );
    }
    let (diags, stats) = check_report(Input::Slice(&whole.out), false, 1, usize::MAX);
    assert!(
        diags.iter().all(|d| d.kind == pgnkit::error::Kind::NullMove),
        "check on the output: {diags:?}\n{}",
        String::from_utf8_lossy(&whole.out)
    );
    let again = clean_run(&whole.out, &CleanOptions { dedup: None, ..opts }, 1, usize::MAX);
    assert_eq!(again.fates.len() as u64, stats.games);
    assert!(
        again.fates.iter().all(|f| f.ends_with(" written")),
        "the output cleans clean: {:?}",
        again.fates
    );
    assert!(
        again.out == whole.out,
        "not idempotent:\n{}\nvs\n{}",
        String::from_utf8_lossy(&again.out),
        String::from_utf8_lossy(&whole.out)
    );
}

// --- FEN --------------------------------------------------------------------------------------

/// Takes the repaired position out of a soft error (castling rights, ep square, impossible check,
/// too much material), as the perft suites need.
pub fn repair(e: PositionError) -> Option<Position> {
    e.ignore_invalid_castling_rights()
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(PositionError::ignore_impossible_check)
        .or_else(PositionError::ignore_too_much_material)
        .ok()
}

/// `parse_fen`, accepting repairable positions.
pub fn load(fen: &str, variant: Variant) -> Option<Position> {
    match parse_fen(fen, variant) {
        Ok(pos) => Some(pos),
        Err(FenError::Position(e)) => repair(e),
        Err(FenError::Parse(_)) => None,
    }
}

/// The FEN of `pos` as a `String`.
pub fn fen_text(pos: &Position, ep: EpMode) -> String {
    let mut text = String::new();
    write_fen(pos, ep, &mut text);
    text
}

/// The position written as FEN and read back: the same position, key, rights and clocks, and
/// the same FEN written again, in both en passant modes.
pub fn assert_fen_round_trip(pos: &Position) {
    for ep in [EpMode::Legal, EpMode::Always] {
        let fen = fen_text(pos, ep);
        let mut into = b"x".to_vec();
        write_fen(pos, ep, &mut into);
        assert_eq!(&into[1..], fen.as_bytes());
        let back =
            load(&fen, pos.variant()).unwrap_or_else(|| panic!("{fen}: written FEN does not read back"));
        assert!(back.same_position(pos), "{fen}: not the same position");
        assert_eq!(back.zobrist(), pos.zobrist(), "{fen}: key differs after the round trip");
        assert_eq!(back.castling_rights(), pos.castling_rights(), "{fen}");
        assert_eq!((back.halfmoves(), back.fullmoves()), (pos.halfmoves(), pos.fullmoves()), "{fen}");
        assert_eq!(back.ep_square_legal(), pos.ep_square_legal(), "{fen}");
        if ep == EpMode::Always {
            assert_eq!(back.ep_square_always(), pos.ep_square_always(), "{fen}");
        }
        assert_eq!(fen_text(&back, ep), fen, "FEN not stable");
    }
}

/// Arbitrary bytes as FEN: reading never panics; a setup written and read back is stable; a
/// valid (or repairable) position of any variant round-trips exactly.
pub fn fen_roundtrip(data: &[u8]) {
    let Ok(setup) = parse_setup(data) else { return };
    // Setup level: write -> read -> write is stable after one normalisation.
    let once = setup_text(&setup);
    let again = parse_setup(&once).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(&once)));
    assert_eq!(setup_text(&again), once, "setup FEN not stable");
    let Ok(text) = std::str::from_utf8(data) else { return };
    for variant in [Variant::Standard, Variant::Chess960, Variant::Crazyhouse] {
        if let Some(pos) = load(text, variant) {
            assert_eq!(pos.variant(), variant);
            assert_fen_round_trip(&pos);
        }
        for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
            if let Ok(pos) = Position::from_setup(setup.clone(), variant, mode) {
                assert_fen_round_trip(&pos);
            }
        }
    }
}

fn setup_text(setup: &Setup) -> Vec<u8> {
    let mut out = Vec::new();
    write_setup(setup, CastlingMode::Standard, &mut out);
    out
}

// --- SAN and UCI ------------------------------------------------------------------------------

/// Positions in which arbitrary SAN and UCI text is tried: the start, Kiwipete, en passant and
/// promotions, a Chess960 start, crazyhouse with pockets, checks and pins.
pub const POSITIONS: [(&str, Variant); 8] = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Variant::Standard),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", Variant::Standard),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", Variant::Standard),
    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", Variant::Standard),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", Variant::Chess960),
    ("r2q1rk1/ppp2ppp/2n1pN2/3pP3/3P4/2P2N2/P1P2PPP/R1BQK2R[Bbpn] b KQ - 0 10", Variant::Crazyhouse),
    ("4k3/4r3/8/8/8/2N5/4N3/4K3 w - - 0 1", Variant::Standard),
    ("6k1/8/8/8/Q2Q4/8/8/Q3K3 w - - 0 1", Variant::Standard),
];

/// The fixed positions.
pub fn positions() -> Vec<Position> {
    POSITIONS.iter().map(|&(fen, v)| parse_fen(fen, v).expect("fixed position is valid")).collect()
}

/// The check the legal move `m` gets in SAN and UCI: `SanPlus::from_move` parses back
/// canonically, the suffix is right, `write_uci` parses back in either castling form.
pub fn assert_move_notation(pos: &Position, m: Move) {
    let fen = || fen_text(pos, EpMode::Always);
    assert!(pos.is_legal(m), "{m:?} not legal in {}", fen());
    let san = SanPlus::from_move(pos, m);
    let text = san.to_string();
    let mut written = String::new();
    write_san(pos, m, &mut written);
    assert_eq!(written, text);
    assert_eq!(parse_san(pos, text.as_bytes()), Ok((m, Lenience::CANONICAL)), "{text} in {}", fen());
    assert_eq!(San::from_ascii(text.as_bytes()), Ok((san, Lenience::CANONICAL)), "{text}");
    assert_eq!(san.san.to_move(pos), Ok(m), "{text} in {}", fen());
    let mut after = *pos;
    after.play_unchecked(m);
    let suffix = if after.is_checkmate() {
        Some(Suffix::Checkmate)
    } else if after.is_check() {
        Some(Suffix::Check)
    } else {
        None
    };
    assert_eq!(san.suffix, suffix, "{text} in {}", fen());
    for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
        let mut uci = String::new();
        write_uci(m, mode, &mut uci);
        match parse_uci(pos, uci.as_bytes()) {
            Ok(x) if x == m => {}
            // A Chess960 king step onto the castling destination is an ordinary king move.
            Ok(x)
                if mode != pos.castling_mode() && m.is_castle() && x.from() == m.from() && !x.is_castle() => {
            }
            other => panic!("{uci}: {other:?} for {m:?} in {}", fen()),
        }
    }
}

/// Arbitrary bytes as SAN in each fixed position: parsing and resolving never panic, parsing
/// agrees with resolving on syntax, what parses writes back to itself, and any resolved move is
/// legal and its canonical SAN resolves back to it.
pub fn san_roundtrip(data: &[u8]) {
    let parsed = San::from_ascii(data);
    if let Ok((sp, _)) = parsed {
        let text = sp.to_string();
        let (back, _) = SanPlus::from_ascii(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, sp, "{text} does not read back");
    }
    for pos in positions() {
        let r = parse_san(&pos, data);
        if parsed.is_err() {
            assert_eq!(r, Err(SanError::Syntax));
        }
        if let Ok((sp, _)) = parsed
            && let Ok(m) = sp.san.to_move(&pos)
        {
            assert_move_notation(&pos, m);
            // A pawn reading that resolves is what `parse_san` picks too.
            assert_eq!(r.map(|(m, _)| m), Ok(m));
        }
        if let Ok((m, lenience)) = r {
            assert!(lenience.describe().count() == lenience.0.count_ones() as usize);
            assert_move_notation(&pos, m);
        }
    }
}

/// Arbitrary bytes as a UCI move in each fixed position: no panic; a parsed move is legal and
/// writes back to text that parses to it.
pub fn uci_roundtrip(data: &[u8]) {
    for pos in positions() {
        if let Ok(m) = parse_uci(&pos, data) {
            assert_move_notation(&pos, m);
        }
    }
}

// --- Move generation and hashing ----------------------------------------------------------------

/// Longest random walk (keeps each input cheap).
const MAX_PLIES: usize = 200;

/// The start of a walk: a FEN on the first line when it reads as a position (`960 ` prefix:
/// Chess960; a `[pocket]`: crazyhouse), else the fixed position picked by the first byte.
/// Returns the position and the bytes that drive the walk.
pub fn walk_start(data: &[u8]) -> Option<(Position, &[u8])> {
    if let Some(nl) = data.iter().position(|&b| b == b'\n')
        && let Ok(line) = std::str::from_utf8(&data[..nl])
    {
        let (variant, fen) = match line.strip_prefix("960 ") {
            Some(fen) => (Variant::Chess960, fen),
            None if line.contains('[') => (Variant::Crazyhouse, line),
            None => (Variant::Standard, line),
        };
        if let Some(pos) = load(fen, variant) {
            return Some((pos, &data[nl + 1..]));
        }
    }
    let (&first, rest) = data.split_first()?;
    let (fen, variant) = POSITIONS[usize::from(first) % POSITIONS.len()];
    Some((parse_fen(fen, variant).expect("fixed position is valid"), rest))
}

/// One step of a walk: byte `b` picks a legal move (or a null move, for 255 when not in check);
/// `None` when the game is over.
fn step(pos: &Position, b: u8) -> Option<Position> {
    let moves = pos.legal_moves();
    let mut next = *pos;
    if b == 255 && !pos.is_check() {
        next.play_null().expect("a null move is legal when not in check");
        return Some(next);
    }
    let m = *moves.get(usize::from(b) % moves.len().max(1))?;
    next.play_unchecked(m);
    Some(next)
}

/// Bytes drive a walk; at every position the generator agrees with itself: every generated move
/// is legal by `is_legal` and unique, `count_legal` equals the list length, moves by role and
/// destination partition the list, random candidate moves are legal exactly when generated, and
/// playing any move leaves the mover's king safe.
pub fn movegen_legal(data: &[u8]) {
    let Some((mut pos, walk)) = walk_start(data) else { return };
    for (i, &b) in walk.iter().enumerate().take(MAX_PLIES) {
        check_generation(&pos, walk.get(i + 1..).unwrap_or(&[]));
        match step(&pos, b) {
            Some(next) => pos = next,
            None => break,
        }
    }
    check_generation(&pos, &[]);
}

fn check_generation(pos: &Position, noise: &[u8]) {
    let fen = || fen_text(pos, EpMode::Always);
    let moves = pos.legal_moves();
    assert_eq!(pos.count_legal(), moves.len() as u64, "{}", fen());
    assert_eq!(pos.has_legal_moves(), !moves.is_empty());
    assert_eq!(pos.is_checkmate(), moves.is_empty() && pos.is_check());
    assert_eq!(pos.is_stalemate(), moves.is_empty() && !pos.is_check());
    let mut sorted: Vec<u16> = moves.iter().map(|m| m.to_u16()).collect();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), moves.len(), "duplicate moves in {}", fen());
    let us = pos.turn();
    let mut by_target = 0;
    for role in [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King] {
        for sq in (0..64).map(Square::new) {
            let mut some = pgnkit::chess::MoveList::new();
            pos.legal_moves_to(role, sq, &mut some);
            for m in &some {
                assert!(moves.contains(m), "{m:?} from legal_moves_to not in legal_moves: {}", fen());
            }
            by_target += some.len();
        }
    }
    // Castling arrives on the rook's square or the king's destination; both may be listed.
    let castles = moves.iter().filter(|m| m.is_castle()).count();
    assert!(by_target >= moves.len() && by_target <= moves.len() + castles, "{}", fen());
    for &m in &moves {
        assert!(pos.is_legal(m), "{m:?} generated but not legal in {}", fen());
        let mover_is_ours = match m.kind() {
            MoveKind::Drop(_) => true,
            _ => pos.board().color_at(m.from_raw()) == Some(us),
        };
        assert!(mover_is_ours, "{m:?} moves a piece that is not ours in {}", fen());
        let mut after = *pos;
        after.play_unchecked(m);
        assert_eq!(after.turn(), !us);
        let king = after.board().king_of(us).expect("king");
        assert!(!after.is_attacked(king, !us), "{m:?} leaves the king in check in {}", fen());
    }
    // Candidate moves from the remaining bytes: legal exactly when generated.
    for pair in noise.chunks_exact(2).take(16) {
        let from = Square::new(u32::from(pair[0] & 63));
        let to = Square::new(u32::from(pair[1] & 63));
        let role = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen][usize::from(pair[0] >> 6)];
        let m = match pair[1] >> 6 {
            0 => Move::normal(from, to),
            1 => Move::castle(from, to),
            2 => Move::promotion(from, to, role),
            _ if pair[0] & 128 != 0 => Move::drop(if pair[0] & 64 != 0 { Role::Pawn } else { role }, to),
            _ => Move::en_passant(from, to),
        };
        assert_eq!(pos.is_legal(m), moves.contains(&m), "is_legal({m:?}) in {}", fen());
    }
}

/// Bytes drive a walk (null moves included); the incremental key always equals the key of the
/// same position rebuilt from its own FEN (which recomputes it from scratch), in both en passant
/// modes; transpositions back to an earlier position give back its key.
pub fn zobrist_incremental(data: &[u8]) {
    let Some((mut pos, walk)) = walk_start(data) else { return };
    let mut seen: Vec<(Vec<u8>, u64)> = Vec::new();
    for &b in walk.iter().take(MAX_PLIES) {
        check_key(&pos, &mut seen);
        match step(&pos, b) {
            Some(next) => pos = next,
            None => break,
        }
    }
    check_key(&pos, &mut seen);
}

fn check_key(pos: &Position, seen: &mut Vec<(Vec<u8>, u64)>) {
    for ep in [EpMode::Legal, EpMode::Always] {
        let fen = fen_text(pos, ep);
        let back = load(&fen, pos.variant()).unwrap_or_else(|| panic!("{fen} does not read back"));
        assert_eq!(back.zobrist(), pos.zobrist(), "incremental key differs from recomputed: {fen}");
    }
    // Same position (clocks aside) => same key. The EPD (legal ep square; pockets and promoted
    // marks in crazyhouse) identifies the position.
    let mut epd = Vec::new();
    write_epd(pos, EpMode::Legal, &mut epd);
    for (e, k) in seen.iter() {
        if *e == epd {
            assert_eq!(
                *k,
                pos.zobrist(),
                "transposition with a different key: {}",
                String::from_utf8_lossy(e)
            );
        }
    }
    seen.push((epd, pos.zobrist()));
}
