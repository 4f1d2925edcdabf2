//! The export-format writer over real games: every game of `fixtures/pgn/` and (when present)
//! every `.pgn` and `.pgn.zst` of the shared data sets, read through `pgnkit::io::Input`, is read
//! with `pgn::Reader`, written with `pgn::Writer` (the SAN tokens as read, move numbers tracked
//! from token order and the `FEN` tag), and read again. The second reading must give the same
//! events: tags (name and unescaped value, the roster first as the writer orders them), move
//! tokens, NAGs, comments (whitespace collapsed, `}` removed), variation begin and end, and the
//! result (`*` where the game had none; comments after the result come before it), without a
//! new problem; and every movetext line must hold fewer than 80 characters unless it holds a
//! single token wider than that. Games whose first reading had problems the writer cannot
//! preserve (see [`unpreservable`]) are skipped and counted.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pgnkit::io::{Input, InputOptions};
use pgnkit::pgn::text::decode;
use pgnkit::pgn::{
    GameResult, Limits, Nag, Problem, ProblemKind, RawComment, RawTag, Reader, SanToken, Visitor, Writer,
};

use crate::util::{fixture, shared_data};

/// One reader event, borrowing from the text read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ev<'a> {
    Tag(&'a [u8], Cow<'a, str>),
    San(&'a [u8]),
    Nag(u8),
    Comment(&'a [u8]),
    Begin,
    End,
    Outcome(Option<GameResult>),
}

/// A game's events and the problems found reading it.
#[derive(Debug, Default)]
struct Game<'a> {
    events: Vec<Ev<'a>>,
    problems: Vec<ProblemKind>,
}

#[derive(Default)]
struct Collect<'a>(Game<'a>);

impl<'a> Visitor<'a> for Collect<'a> {
    type Output = Game<'a>;
    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        self.0.events.push(Ev::Tag(name, value.decode().0));
    }
    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        self.0.events.push(Ev::San(san.raw));
        ControlFlow::Continue(())
    }
    fn nag(&mut self, nag: Nag, _: usize) {
        self.0.events.push(Ev::Nag(nag.0));
    }
    fn comment(&mut self, c: RawComment<'a>) {
        self.0.events.push(Ev::Comment(c.raw));
    }
    fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
        self.0.events.push(Ev::Begin);
        ControlFlow::Continue(())
    }
    fn end_variation(&mut self, _: usize) {
        self.0.events.push(Ev::End);
    }
    fn outcome(&mut self, result: Option<GameResult>, _: usize) {
        self.0.events.push(Ev::Outcome(result));
    }
    fn problem(&mut self, p: Problem) {
        self.0.problems.push(p.kind);
    }
    fn end_game(&mut self) -> Game<'a> {
        std::mem::take(&mut self.0)
    }
}

/// Problems after which the reader delivers an incomplete event stream, which no writer can
/// give back: past the token budget nothing more comes (no result, no end of the variations
/// open there), and a UTF-16 input is not read at all. Games cut by other problems (binary
/// data, an unterminated comment) are written as read and must read back the same.
fn unpreservable(kind: ProblemKind) -> bool {
    matches!(kind, ProblemKind::TooManyTokens | ProblemKind::Utf16Bom)
}

const ROSTER: [&[u8]; 7] = [b"Event", b"Site", b"Date", b"Round", b"White", b"Black", b"Result"];

/// The words of a comment as the writer writes them: `}` removed, split at whitespace runs.
fn words(raw: &[u8]) -> impl Iterator<Item = impl Iterator<Item = u8> + '_> {
    raw.split(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
        .filter(|w| w.iter().any(|&b| b != b'}'))
        .map(|w| w.iter().copied().filter(|&b| b != b'}'))
}

/// Two events are the same, comments compared as the writer normalizes them (text that is not
/// UTF-8 read as Windows-1252).
fn same(want: &Ev<'_>, got: &Ev<'_>) -> bool {
    match (want, got) {
        (Ev::Comment(a), Ev::Comment(b)) => {
            let (a, b) = (decode(a).0, decode(b).0);
            let (mut a, mut b) = (words(a.as_bytes()), words(b.as_bytes()));
            loop {
                match (a.next(), b.next()) {
                    (None, None) => return true,
                    (Some(x), Some(y)) => {
                        if !x.eq(y) {
                            return false;
                        }
                    }
                    _ => return false,
                }
            }
        }
        _ => want == got,
    }
}

/// What the second reading must give for a game read as `events`: the tags in the writer's
/// order (roster first, each rank in the order read), the movetext events, and the result last
/// (`*` when there was none).
fn expected<'a>(events: &[Ev<'a>]) -> Vec<Ev<'a>> {
    let rank = |name: &[u8]| ROSTER.iter().position(|&r| r == name).unwrap_or(7);
    let mut out = Vec::with_capacity(events.len() + 1);
    for r in 0..=7 {
        out.extend(events.iter().filter(|e| matches!(e, Ev::Tag(name, _) if rank(name) == r)).cloned());
    }
    let mut result = GameResult::Unknown;
    for e in events {
        match e {
            Ev::Tag(..) => {}
            Ev::Outcome(r) => result = r.unwrap_or(GameResult::Unknown),
            other => out.push(other.clone()),
        }
    }
    out.push(Ev::Outcome(Some(result)));
    out
}

/// An event as text, for messages.
fn text(e: &Ev<'_>) -> String {
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    match e {
        Ev::Tag(name, value) => format!("[{} {value:?}]", s(name)),
        Ev::San(san) => s(san),
        Ev::Nag(n) => format!("${n}"),
        Ev::Comment(c) => format!("{{{}}}", s(c)),
        Ev::Begin => "(".into(),
        Ev::End => ")".into(),
        Ev::Outcome(r) => format!("result {:?}", r.map(GameResult::as_str)),
    }
}

/// The side and move number of the first move, from a `FEN` tag (else White, move 1).
fn start_of(events: &[Ev<'_>]) -> (bool, u32) {
    for e in events {
        if let Ev::Tag(b"FEN", fen) = e {
            let fields: Vec<&str> = fen.split_whitespace().collect();
            let black = fields.get(1) == Some(&"b");
            let number = fields.get(5).and_then(|n| n.parse().ok()).filter(|&n| n > 0).unwrap_or(1);
            return (black, number);
        }
    }
    (false, 1)
}

/// Writes a game read as `events` (tags, then the movetext events in order, the result last).
fn write(w: &mut Writer, out: &mut Vec<u8>, events: &[Ev<'_>]) {
    for e in events {
        if let Ev::Tag(name, value) = e {
            w.tag(std::str::from_utf8(name).expect("tag names are ASCII"), value);
        }
    }
    let (black_first, first_number) = start_of(events);
    // Plies from the first move of the game; a variation replaces the move before it.
    let mut ply = i64::from(black_first);
    let mut stack = Vec::new();
    let mut result = GameResult::Unknown;
    for e in events {
        match e {
            Ev::Tag(..) => {}
            Ev::San(san) => {
                let p = ply.max(0) as u32;
                w.san(out, san, first_number + p / 2, p % 2 == 1);
                ply += 1;
            }
            Ev::Nag(n) => w.nag(out, Nag(*n)),
            Ev::Comment(c) => w.comment(out, c),
            Ev::Begin => {
                w.begin_variation(out);
                stack.push(ply);
                ply -= 1;
            }
            Ev::End => {
                w.end_variation(out);
                ply = stack.pop().expect("balanced variations");
            }
            Ev::Outcome(r) => result = r.unwrap_or(GameResult::Unknown),
        }
    }
    w.end_game(out, result);
}

/// Movetext lines of one written game that hold 80 characters or more: `(wide, single)`, the
/// count of such lines and of those among them that hold one token (which cannot be broken).
fn wide_lines(pgn: &[u8], has_tags: bool) -> (usize, usize) {
    let text = String::from_utf8_lossy(pgn);
    let body = text.strip_suffix("\n\n").expect("a game ends with a blank line");
    let movetext = if has_tags { body.split_once("\n\n").expect("tags, blank line").1 } else { body };
    let (mut wide, mut single) = (0, 0);
    for line in movetext.split('\n') {
        if line.chars().count() >= 80 {
            wide += 1;
            let core = line.trim_start_matches('(').trim_end_matches(')');
            let core = core.strip_prefix("{ ").unwrap_or(core);
            let core = core.strip_suffix(" }").unwrap_or(core);
            if !core.contains(' ') {
                single += 1;
            }
        }
    }
    (wide, single)
}

#[derive(Debug, Default)]
struct Tally {
    files: usize,
    /// Games written and read back.
    games: usize,
    /// Games skipped, by the problems of their first reading that the writer cannot preserve.
    skipped: BTreeMap<String, usize>,
    /// Games written although their first reading had problems, by problem.
    written_despite: BTreeMap<String, usize>,
    /// Movetext lines of 80 characters or more, each a single token too wide for a line.
    wide_single_token_lines: usize,
}

/// The distinct problems of a game, as one key.
fn kinds(problems: &[ProblemKind]) -> String {
    let mut names: Vec<String> = problems.iter().map(|k| format!("{k:?}")).collect();
    names.sort();
    names.dedup();
    names.join("+")
}

/// Round-trips every game of `bytes` (read within `limits`); panics on the first difference.
fn round_trip(bytes: &[u8], name: &str, limits: Limits, tally: &mut Tally) {
    tally.files += 1;
    let mut reader = Reader::new(bytes).with_limits(limits);
    let mut first = Collect::default();
    let mut w = Writer::new();
    let mut out = Vec::new();
    let mut all = Vec::new();
    let mut written = 0;
    let mut index = 0;
    while let Some(game) = reader.read_game(&mut first) {
        index += 1;
        if game.problems.iter().any(|&k| unpreservable(k)) {
            *tally.skipped.entry(format!("{name}: {}", kinds(&game.problems))).or_default() += 1;
            continue;
        }
        if !game.problems.is_empty() {
            *tally.written_despite.entry(kinds(&game.problems)).or_default() += 1;
        }
        out.clear();
        write(&mut w, &mut out, &game.events);
        let mut again = Reader::new(&out);
        let mut second = Collect::default();
        let back = again.read_game(&mut second).expect("one game");
        let shown = || String::from_utf8_lossy(&out).into_owned();
        assert!(
            again.read_game(&mut second).is_none(),
            "{name} game {index}: read back as two games:\n{}",
            shown()
        );
        let (want, got) = (expected(&game.events), &back.events);
        // A game of nothing but its result (and no tags) reads as a lone result; no other
        // problem may come up but text not UTF-8 in a move token, which is written as given
        // (the writer writes all other text as UTF-8).
        let lone = want.len() == 1;
        let raw_token = want.iter().any(|e| matches!(e, Ev::San(s) if std::str::from_utf8(s).is_err()));
        let problems: Vec<ProblemKind> =
            back.problems.iter().copied().filter(|&k| !(raw_token && k == ProblemKind::NotUtf8)).collect();
        let problems_ok = match lone {
            true => problems == [ProblemKind::LoneResult],
            false => problems.is_empty(),
        };
        assert!(problems_ok, "{name} game {index}: problems {:?} reading back:\n{}", back.problems, shown());
        let differ = want.iter().zip(got).position(|(a, b)| !same(a, b));
        if differ.is_some() || want.len() != got.len() {
            let at = differ.unwrap_or(want.len().min(got.len()));
            let around = |v: &[Ev<'_>]| {
                let shown: Vec<String> =
                    v[at.saturating_sub(2)..(at + 3).min(v.len())].iter().map(text).collect();
                shown.join(" | ")
            };
            panic!(
                "{name} game {index}: events differ at {at}: want {}, got {}\n{}",
                around(&want),
                around(got),
                shown()
            );
        }
        let has_tags = game.events.iter().any(|e| matches!(e, Ev::Tag(..)));
        let (wide, single) = wide_lines(&out, has_tags);
        assert_eq!(
            wide,
            single,
            "{name} game {index}: a movetext line of 80 characters or more:\n{}",
            shown()
        );
        tally.wide_single_token_lines += single;
        all.extend_from_slice(&out);
        written += 1;
    }
    tally.games += written;
    // Written one after another, the games read back one by one.
    let mut reader = Reader::new(&all);
    let mut n = 0;
    while reader.skip_game() {
        n += 1;
    }
    assert_eq!(n, written, "{name}: games written and games read back");
}

fn load(path: &Path) -> Vec<u8> {
    Input::open(path, InputOptions::default())
        .and_then(Input::read_all)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("read dir").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            pgn_files(&p, out);
        } else if name.ends_with(".pgn") || name.ends_with(".pgn.zst") {
            out.push(p);
        }
    }
}

/// Games cut by binary data or an unterminated comment are written as read and read back the
/// same; a game over the token budget is skipped.
#[test]
fn cut_games_round_trip_and_games_over_budget_are_skipped() {
    let cut: &[u8] = b"[Event \"binary\"]\n\n1. e4 e5 2. Nf3 \x01\x02 junk { x\n[Event \"open\"]\n\n\
        1. e4 {never closed\n\n[Event \"open, then a brace\"]\n\n1. e4 {open\n\
        [Event \"after\"]\n1. d4 {c} *\n";
    let mut tally = Tally::default();
    round_trip(cut, "cut games", Limits::default(), &mut tally);
    assert_eq!((tally.games, tally.skipped.len()), (4, 0), "{tally:#?}");
    let problems: Vec<&str> = tally.written_despite.keys().map(String::as_str).collect();
    assert_eq!(problems, ["BinaryData", "UnterminatedComment"], "{tally:#?}");

    let over: &[u8] =
        b"[Event \"long\"]\n\n1. e4 (1. d4 d5 2. c4 e6 3. Nc3) e5 *\n\n[Event \"short\"]\n\n1. d4 *\n";
    let mut tally = Tally::default();
    let limits = Limits { max_tokens: 6, ..Limits::default() };
    round_trip(over, "over budget", limits, &mut tally);
    assert_eq!(tally.games, 1, "{tally:#?}");
    assert_eq!(tally.skipped.keys().collect::<Vec<_>>(), ["over budget: TooManyTokens"], "{tally:#?}");
}

#[test]
fn fixtures_round_trip_through_the_writer() {
    let mut files = Vec::new();
    pgn_files(&fixture("pgn"), &mut files);
    let mut tally = Tally::default();
    for f in &files {
        round_trip(&load(f), &f.display().to_string(), Limits::default(), &mut tally);
    }
    eprintln!("fixtures/pgn: {tally:#?}");
    assert!(tally.files > 20 && tally.games > 50, "{tally:?}");
}

#[test]
fn shared_data_round_trips_through_the_writer() {
    let Some(data) = shared_data() else { return };
    let mut files = Vec::new();
    pgn_files(&data, &mut files);
    let mut tally = Tally::default();
    for f in &files {
        let name = f.strip_prefix(&data).unwrap_or(f).display().to_string();
        round_trip(&load(f), &name, Limits::default(), &mut tally);
    }
    eprintln!("shared data: {tally:#?}");
    assert!(tally.files > 100, "{tally:?}");
    // Few games are skipped: a game over the token budget is rare in real data.
    let skipped: usize = tally.skipped.values().sum();
    assert!(skipped * 1000 < tally.games, "{tally:?}");
}
