//! The PGN reader over real and adversarial inputs: `fixtures/pgn/` always, and the shared data
//! set (`$PGNKIT_SHARED_DATA`, else beside the clone) when present.
//!
//! Checked: no panic; every `[Event` line that starts a line outside a comment is the `Event`
//! tag of its own game; game counts of clean files equal the `[Event` counts of the data
//! README; chunked parsing equals sequential parsing at many chunk sizes; adversarial inputs
//! complete (the reader is linear by construction; no timing assertions).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pgnkit::pgn::split::chunks;
use pgnkit::pgn::{ProblemKind, RawComment, RawTag, Reader, SanToken, Visitor};

use crate::checks::{Ev, parse_range};
use crate::util::shared_data;

fn parse(bytes: &[u8]) -> Vec<Vec<Ev<'_>>> {
    parse_range(bytes, 0..bytes.len())
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pgn")
}

/// File contents, zstd-decompressed when the file starts with the zstd magic.
fn load(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap();
    if raw.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) { zstd::stream::decode_all(&raw[..]).unwrap() } else { raw }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Offsets of lines starting with `[Event `.
fn event_lines(bytes: &[u8]) -> Vec<usize> {
    memchr::memmem::find_iter(bytes, b"[Event ")
        .filter(|&i| i == 0 || matches!(bytes[i - 1], b'\n' | b'\r') || bytes[..i] == b"\xef\xbb\xbf"[..])
        .collect()
}

/// Every game accounted for: games start in increasing order, each `[Event` line is the
/// `Event` tag of some game (or lies inside a comment), and chunked == sequential.
fn check_file<'a>(bytes: &'a [u8], name: &str) -> Vec<Vec<Ev<'a>>> {
    let games = parse(bytes);
    let starts: Vec<usize> = games
        .iter()
        .map(|g| match g[0] {
            Ev::Game(o) => o,
            _ => panic!("{name}: game without begin_game"),
        })
        .collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "{name}: starts not increasing");
    for g in &games {
        assert!(
            matches!(
                g.last(),
                Some(Ev::Outcome(..))
                    | Some(Ev::Problem(..))
                    | Some(Ev::Comment(..))
                    | Some(Ev::End(..))
                    | Some(Ev::Movetext)
            ),
            "{name}: {g:?}"
        );
        let begins = g.iter().filter(|e| matches!(e, Ev::Begin(_))).count();
        let ends = g.iter().filter(|e| matches!(e, Ev::End(_))).count();
        assert_eq!(begins, ends, "{name}: unbalanced variation events");
    }
    let event_tags: Vec<usize> = games
        .iter()
        .flatten()
        .filter_map(|e| match e {
            Ev::Tag(o, b"Event", _) => Some(*o),
            _ => None,
        })
        .collect();
    let comments: Vec<(usize, usize)> = games
        .iter()
        .flatten()
        .filter_map(|e| match e {
            Ev::Comment(o, raw) => Some((*o, *o + raw.len() + 1)),
            _ => None,
        })
        .collect();
    for line in event_lines(bytes) {
        let in_comment = comments.iter().any(|&(s, e)| s < line && line <= e);
        assert!(
            in_comment || event_tags.contains(&line),
            "{name}: [Event line at {line} is not a game's Event tag"
        );
    }
    // Chunked == sequential.
    for target in [1, 100, 1000, 10_000, 100_000] {
        let mut chunked = Vec::new();
        let mut covered = 0;
        for range in chunks(bytes, target) {
            assert_eq!(range.start, covered, "{name}: gap");
            covered = range.end;
            chunked.extend(parse_range(bytes, range));
        }
        assert_eq!(covered, bytes.len(), "{name}: chunks do not cover the input");
        assert!(chunked == games, "{name}: chunked parse differs at target {target}");
    }
    games
}

fn count_games_with_event(games: &[Vec<Ev<'_>>]) -> usize {
    games.iter().filter(|g| g.iter().any(|e| matches!(e, Ev::Tag(_, b"Event", _)))).count()
}

#[test]
fn fixtures_parse_and_chunk_consistently() {
    let mut files = Vec::new();
    files_under(&fixtures(), &mut files);
    let mut n = 0;
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "pgn")) {
        let bytes = load(f);
        let games = check_file(&bytes, &f.display().to_string());
        n += games.len();
    }
    assert!(n > 50, "only {n} games in fixtures");
    let lichess = load(&fixtures().join("lichess_db_10k.pgn"));
    assert_eq!(parse(&lichess).len(), 5);
    let twic = load(&fixtures().join("twic1599_10k.pgn"));
    assert_eq!(parse(&twic).len(), 9);
    let scala = load(&fixtures().join("scalachess__uzchesscup_head.pgn"));
    let games = parse(&scala);
    assert_eq!(games.len(), 9, "header-only games separated by blank lines");
    assert!(games.iter().all(|g| { g.iter().all(|e| !matches!(e, Ev::San(..) | Ev::Problem(..))) }));
}

#[test]
fn shared_malformed_and_tricky() {
    let Some(data) = shared_data() else { return };
    let mut files = Vec::new();
    files_under(&data.join("malformed_and_tricky"), &mut files);
    assert!(files.len() > 100);
    let mut total = 0;
    for f in &files {
        let bytes = load(f);
        let name = f.strip_prefix(&data).unwrap().display().to_string();
        let games = check_file(&bytes, &name);
        total += games.len();
        let events = event_lines(&bytes).len();
        // Clean multi-game files: one game per `[Event` line.
        if name.contains("scalachess") || name.ends_with("fischer.pgn") || name.ends_with("odds.pgn") {
            assert!(count_games_with_event(&games) >= events.min(1), "{name}");
        }
    }
    eprintln!("{} files, {total} games", files.len());
    let scala = load(&data.join("malformed_and_tricky/scalachess/scalachess_FWWRC.pgn"));
    assert_eq!(count_games_with_event(&parse(&scala)), 605);
    assert_eq!(parse(&scala).len(), 605);
    let uz = load(&data.join("malformed_and_tricky/scalachess/scalachess_uzchesscup.pgn"));
    assert_eq!(parse(&uz).len(), 45);
}

#[test]
fn shared_game_collections_counts() {
    let Some(data) = shared_data() else { return };
    // (file, games, games with an Event tag). Clean files: both are the `[Event` count of
    // the data sets' README.md. chessgames_master_35k has 35,003 `[Event` lines but 35,008
    // games: stray lines of junk after a result (`n/a`, `bad gid"..."]`) read as tagless
    // games, and `[Event Casual Game"]` is malformed; a result written twice (`60.g6 1-0 1-0`)
    // is one game. python-chess reads 35,009: it splits a game whose tags two blank lines
    // follow (Fischer - LoCoco) into a game of tags and one of moves.
    let expected = [
        ("games/lichess_db_10k.pgn", 5, 5),
        ("games/lichess_db_100k.pgn", 47, 47),
        ("games/lichess_db_1000k.pgn", 438, 438),
        ("games/twic1599_10k.pgn", 9, 9),
        ("games/twic1599_100k.pgn", 110, 110),
        ("games/twic1599_1000k.pgn", 1110, 1110),
        ("games/lichess_DrDrunkenstein_2019-01-29.pgn", 984, 984),
        ("games/chesscom_magnuscarlsen_live_2014.pgn.zst", 334, 334),
        ("games/twic0920.pgn.zst", 2245, 2245),
        ("games/pgnmentor_Carlsen.pgn.zst", 1860, 1860),
        ("games/chessgames_master_35k.pgn.zst", 35_008, 35_002),
        ("games/tcec_s01-s10.pgn.zst", 3282, 3282),
        ("variants/chess960/tcec_frc_s06-s20.pgn.zst", 948, 948),
        ("variants/crazyhouse/crazyara_rl_eval_model_os_45_vs_sf.pgn", 100, 100),
    ];
    for (file, n_games, with_event) in expected {
        let bytes = load(&data.join(file));
        let games = parse(&bytes);
        for g in games.iter().filter(|g| !g.iter().any(|e| matches!(e, Ev::Tag(_, b"Event", _)))) {
            let Ev::Game(o) = g[0] else { unreachable!() };
            let head = String::from_utf8_lossy(&bytes[o..(o + 60).min(bytes.len())]);
            eprintln!("{file}: game without an Event tag at {o}: {head:?}");
        }
        assert_eq!(games.len(), n_games, "{file}: games");
        assert_eq!(count_games_with_event(&games), with_event, "{file}: games with an Event tag");
        if !file.ends_with(".zst") {
            check_file(&bytes, file);
        }
    }
}

/// Deep, long and hostile inputs complete without stack overflow and keep counts exact.
#[test]
fn adversarial_inputs() {
    // A 1M-ply game.
    let mut pgn = b"[Event \"long\"]\n\n".to_vec();
    for i in 1..=500_000 {
        pgn.extend_from_slice(format!("{i}. Nf3 Nf6 ").as_bytes());
    }
    pgn.extend_from_slice(b"*\n");
    let mut r = Reader::new(&pgn);
    let mut plies = 0usize;
    struct Count<'c>(&'c mut usize);
    impl Visitor<'_> for Count<'_> {
        type Output = ();
        fn san(&mut self, _: SanToken<'_>) -> ControlFlow<()> {
            *self.0 += 1;
            ControlFlow::Continue(())
        }
        fn end_game(&mut self) {}
    }
    assert!(r.read_game(&mut Count(&mut plies)).is_some());
    assert_eq!(plies, 1_000_000);

    // A 50 MB comment.
    let mut pgn = b"1. e4 {".to_vec();
    pgn.resize(pgn.len() + 50_000_000, b'x');
    pgn.extend_from_slice(b"} e5 *\n[Event \"next\"]\n*");
    let games = parse(&pgn);
    assert_eq!(games.len(), 2);
    assert!(games[0].iter().any(|e| matches!(e, Ev::San(_, b"e5"))));

    // 10,000 nested variations, closed and unclosed.
    let mut pgn = b"1. e4 ".to_vec();
    for _ in 0..10_000 {
        pgn.extend_from_slice(b"( e4 ");
    }
    pgn.extend_from_slice(&b") ".repeat(10_000));
    pgn.extend_from_slice(b"e5 *\n");
    pgn.extend_from_slice(&b"(".repeat(1_000_000));
    let games = parse(&pgn);
    assert_eq!(games.len(), 2);
    assert!(games[0].iter().any(|e| matches!(e, Ev::Problem(_, ProblemKind::VariationTooDeep))));
    assert!(games[0].iter().any(|e| matches!(e, Ev::San(_, b"e5"))));

    // Binary noise (deterministic xorshift), with game boundaries checked for consistency.
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let noise: Vec<u8> = (0..2_000_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let games = parse(&noise);
    assert!(!games.is_empty());
    let mut text_noise = Vec::new();
    for (i, &b) in noise.iter().enumerate().take(300_000) {
        text_noise.push(b"[]{}()\n\r \"1-0*e4$;%!?"[usize::from(b) % 20]);
        if i % 97 == 0 {
            text_noise.extend_from_slice(b"\n[Event \"x\"]\n");
        }
    }
    check_file(&text_noise, "text noise");

    // Many unterminated comments, one far `}` (the look-ahead cache keeps this linear).
    let mut pgn = Vec::new();
    for _ in 0..100_000 {
        pgn.extend_from_slice(b"[E \"1\"]\n1. e4 {open\n");
    }
    pgn.extend_from_slice(b"}\n");
    assert_eq!(parse(&pgn).len(), 100_000);

    // No blank lines between games.
    let pgn = b"[Event \"g\"]\n1. e4 e5 1-0\n".repeat(100_000);
    assert_eq!(parse(&pgn).len(), 100_000);
}

/// Throughput of the reader alone: `cargo test --release --test it -- --ignored --nocapture reader_throughput`.
#[test]
#[ignore = "prints throughput; run in release"]
fn reader_throughput() {
    let Some(data) = shared_data() else { return };
    #[derive(Default)]
    struct Fast {
        tags: usize,
        sans: usize,
        comments: usize,
    }
    impl<'a> Visitor<'a> for Fast {
        type Output = ();
        fn tag(&mut self, _: &'a [u8], _: RawTag<'a>) {
            self.tags += 1;
        }
        fn san(&mut self, _: SanToken<'a>) -> ControlFlow<()> {
            self.sans += 1;
            ControlFlow::Continue(())
        }
        fn comment(&mut self, _: RawComment<'a>) {
            self.comments += 1;
        }
        fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
        fn end_game(&mut self) {}
    }
    for file in [
        "games/lichess_db_1000k.pgn",
        "games/twic1599_1000k.pgn",
        "games/chessgames_master_35k.pgn.zst",
        "games/tcec_s01-s10.pgn.zst",
    ] {
        let bytes = load(&data.join(file));
        // The machine is shared: report the best pass (least disturbed), not the mean.
        let rounds = (300_000_000 / bytes.len()).clamp(3, 300);
        let mut v = Fast::default();
        let mut best = f64::MAX;
        let mut games = 0;
        for _ in 0..rounds {
            let t = std::time::Instant::now();
            let mut r = Reader::new(&bytes);
            games = 0;
            while r.read_game(&mut v).is_some() {
                games += 1;
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        let mut best_chunk = f64::MAX;
        let mut n_chunks = 0;
        for _ in 0..rounds {
            let t = std::time::Instant::now();
            n_chunks = chunks(&bytes, 1 << 20).count();
            best_chunk = best_chunk.min(t.elapsed().as_secs_f64());
        }
        eprintln!(
            "{file}: {:.0} MB/s read ({games} games, {} SAN, {} tags, {} comments), {:.0} MB/s chunking ({n_chunks} chunks of 1 MiB)",
            bytes.len() as f64 / best / 1e6,
            v.sans / rounds,
            v.tags / rounds,
            v.comments / rounds,
            bytes.len() as f64 / best_chunk / 1e6,
        );
    }
}
