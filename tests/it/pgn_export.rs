//! pgnkit's export of replayed games (`pipeline::replay::export`: canonical SAN, the PGN writer's layout)
//! against python-chess's `StringExporter(columns=80)` (`scripts/pgn_export_oracle.py`), byte for
//! byte, on every game the standard and python-chess agree on, over `fixtures/pgn/` and, when
//! present, the shared lichess, TWIC and chess.com collections. A game is compared when nothing
//! in it falls where the two layouts differ on purpose (the list is in `src/pgn/writer.rs`): no
//! variation, no NAG, no crazyhouse pawn drop, no two comments in a row, comments that fit a line and hold no line break
//! or run of spaces, the seven roster tags each once with no `"` or `\` in any value, a Result tag
//! equal to the movetext's result, UTF-8 text, and a game the replay finished. A file whose game
//! count differs between the two readers (python-chess merges games not separated by a blank
//! //! line) is left out and named, and so is one python-chess cannot read (a variant spelling it does
//! not know). The chess.com export without blank lines between games is not in the list:
//! python-chess gives some of its games no tags.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Command;

use pgnkit::io::{Input, InputOptions};
use pgnkit::pgn::{GameResult, Nag, Problem, RawComment, RawTag, Reader, SanToken, Visitor, Writer};
use pgnkit::pipeline::replay::export::export;

use crate::util::{fixture, python_chess_missing, shared_data};

const ROSTER: [&[u8]; 7] = [b"Event", b"Site", b"Date", b"Round", b"White", b"Black", b"Result"];

/// Why a game is not compared, if it is not.
#[derive(Default)]
struct Agreement {
    tags: Vec<(Vec<u8>, Vec<u8>)>,
    differs: Option<&'static str>,
    last_was_comment: bool,
    result: Option<GameResult>,
}

impl Agreement {
    fn differs(&mut self, why: &'static str) {
        self.differs.get_or_insert(why);
    }
}

impl<'a> Visitor<'a> for Agreement {
    type Output = Option<&'static str>;
    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        if value.raw.iter().any(|&b| b == b'"' || b == b'\\') {
            self.differs("a tag value with a quote or a backslash");
        }
        self.tags.push((name.to_vec(), value.raw.to_vec()));
    }
    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        if san.raw.starts_with(b"P@") || san.raw.starts_with(b"@") {
            self.differs("a pawn drop (python-chess writes @e4, lichess and pgnkit P@e4)");
        }
        if !san.raw.is_ascii() {
            self.differs("a figurine (python-chess skips it: `♘f3` is its pawn move f3)");
        }
        self.last_was_comment = false;
        ControlFlow::Continue(())
    }
    fn nag(&mut self, _: Nag, _: usize) {
        self.differs("a NAG");
    }
    fn comment(&mut self, c: RawComment<'a>) {
        if std::mem::replace(&mut self.last_was_comment, true) {
            self.differs("two comments in a row");
        }
        let text = c.raw.trim_ascii();
        if text.len() + 4 > 79
            || text.windows(2).any(|w| w[0].is_ascii_whitespace() && w[1].is_ascii_whitespace())
        {
            self.differs("a comment longer than a line, or with runs of whitespace");
        }
        if text.iter().any(|&b| b == b'\n' || b == b'\r' || b == b'\t' || b == b'}') {
            self.differs("a comment with a line break, a tab or a brace");
        }
    }
    fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
        self.differs("a variation");
        ControlFlow::Continue(())
    }
    fn outcome(&mut self, result: Option<GameResult>, _: usize) {
        self.result = result;
    }
    fn problem(&mut self, _: Problem) {
        self.differs("a syntax problem");
    }
    fn end_game(&mut self) -> Option<&'static str> {
        let mut this = std::mem::take(self);
        for r in ROSTER {
            if this.tags.iter().filter(|(n, _)| n == r).count() != 1 {
                this.differs("the roster not there once each");
            }
        }
        let names: Vec<&Vec<u8>> = this.tags.iter().map(|(n, _)| n).collect();
        if (1..names.len()).any(|i| names[..i].contains(&names[i])) {
            this.differs("a tag given twice");
        }
        let tag = this.tags.iter().find(|(n, _)| n == b"Result").and_then(|(_, v)| GameResult::from_ascii(v));
        if tag.is_none() || tag != this.result {
            this.differs("a Result tag other than the movetext's result");
        }
        this.differs
    }
}

fn load(path: &Path) -> Vec<u8> {
    Input::open(path, InputOptions::default()).and_then(Input::read_all).expect("readable input")
}

/// python-chess's export of every game of `path`, or `None` (said on stderr) when python-chess
/// cannot read the file (a variant it does not know, such as `chess-960`).
fn python_chess(path: &Path) -> Option<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pgn_export_oracle.py");
    let out = Command::new("python3").arg(script).arg(path).output().expect("python3 runs");
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or_default();
        eprintln!("{}: left out: python-chess cannot read it: {last}", path.display());
        return None;
    }
    Some(String::from_utf8(out.stdout).expect("python-chess writes UTF-8"))
}

/// python-chess's games: each is a tag section and a movetext, separated and ended by a blank line.
fn oracle_games(text: &str) -> Vec<String> {
    let parts: Vec<&str> = text.split("\n\n").collect();
    parts.chunks(2).filter(|c| c.len() == 2).map(|c| format!("{}\n\n{}\n\n", c[0], c[1])).collect()
}

/// Compares `path`'s agreeing games; returns how many were compared, or `None` when the file is
/// left out (python-chess cannot read it, or reads another number of games).
fn compare(path: &Path) -> Option<usize> {
    let bytes = load(path);
    let oracle = oracle_games(&python_chess(path)?);
    let mut reader = Reader::new(&bytes);
    let mut agreement = Vec::new();
    let mut v = Agreement::default();
    while let Some(differs) = reader.read_game(&mut v) {
        agreement.push(differs);
    }
    if oracle.len() != agreement.len() {
        eprintln!(
            "{}: left out: python-chess reads {} games, pgnkit {}",
            path.display(),
            oracle.len(),
            agreement.len()
        );
        return None;
    }
    let (text, games) = export(&bytes, Writer::new());
    assert_eq!(games.len(), agreement.len(), "{}", path.display());
    let mut compared = 0;
    for ((game, differs), python) in games.iter().zip(&agreement).zip(&oracle) {
        let Ok(range) = &game.text else { continue };
        let ours = &text[range.clone()];
        if differs.is_some() || std::str::from_utf8(ours).is_err() {
            continue;
        }
        assert_eq!(
            String::from_utf8_lossy(ours),
            python.as_str(),
            "{} game {}: pgnkit's export differs from python-chess's",
            path.display(),
            game.game
        );
        compared += 1;
    }
    Some(compared)
}

#[test]
fn fixtures_export_as_python_chess_does() {
    if python_chess_missing() {
        return;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture("pgn"))
        .expect("fixtures/pgn")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    let compared: usize = files.iter().filter_map(|f| compare(f)).sum();
    eprintln!("{compared} fixture games equal python-chess's export");
    assert!(compared >= 20, "{compared} games compared");
}

#[test]
fn shared_collections_export_as_python_chess_does() {
    let Some(data) = shared_data() else { return };
    if python_chess_missing() {
        return;
    }
    let mut compared = 0;
    for rel in [
        "games/lichess_db_1000k.pgn",
        "games/lichess_DrDrunkenstein_2019-01-29.pgn",
        "games/twic1599_1000k.pgn",
        "variants/chess960/freestyle_lasvegas_grandfinal_30+30_lichess_broadcast.pgn",
        "variants/crazyhouse/crazyara_zh-50_startpos.pgn",
        "variants/crazyhouse/python-chess_knightvuillaume-jannlee-zh-lichess.pgn",
    ] {
        let path = data.join(rel);
        if path.exists() {
            let n = compare(&path).unwrap_or(0);
            eprintln!("{rel}: {n} games equal python-chess's export");
            compared += n;
        }
    }
    assert!(compared >= 1000, "{compared} games compared");
}
