//! `check`: validate every game (syntax, setup, every SAN of the mainline and of the variations,
//! results) and report each problem. A chunk's records are its diagnostics (and, on request, one
//! record per game) in input order; [`Report`] writes them as text or JSON Lines.

use std::io::Write;

use serde_json::json;

use crate::chess::Position;
use crate::error::{Diagnostic, Error, Kind, Severity};
use crate::io::Output as Out;
use crate::io::name::Name;
use crate::jobs::diagnostics;
use crate::jobs::run::{Sink, Summary};
use crate::notation::fen::{EpMode, write_fen};
use crate::pgn::GameResult;
use crate::pipeline::counter::Counter;
use crate::pipeline::replay::{Game, Hooks, Lines, Played, Verdict, replay_chunk};
use crate::pipeline::stats::Stats;
use crate::pipeline::{ChunkInput, Cuts, Job, Located, Output, Worker};
use crate::select::{Filter, Selection};
use std::sync::Arc;

/// What `check` reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckOptions {
    /// Show SAN-form warnings (non-canonical SAN, wrong check marks); they are always counted.
    pub strict_san: bool,
    /// Produce one [`GameRecord`] per game.
    pub games: bool,
}

/// One line of `--games` output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Game number, 1-based.
    pub game: u64,
    /// Byte offset of the game.
    pub offset: u64,
    /// Line of the game's start.
    pub line: u64,
    /// Mainline plies replayed.
    pub plies: u32,
    /// The result token, if any.
    pub result: Option<GameResult>,
    /// The rule set.
    pub variant: &'static str,
    /// FEN after the last legal mainline ply (`None` when the setup was bad).
    pub final_fen: Option<String>,
    /// Errors in the game.
    pub errors: u32,
    /// Warnings in the game.
    pub warnings: u32,
}

impl GameRecord {
    /// The record as a line of text (no trailing newline); a file name's control characters
    /// escaped, as in diagnostics.
    pub fn text(&self, file: &str) -> String {
        let file = crate::pgn::text::without_controls(file, &[]);
        format!(
            "game {file}:{}: game {} offset {} plies {} result {} variant {} errors {} warnings {} final {}",
            self.line,
            self.game,
            self.offset,
            self.plies,
            self.result.map_or("none", |r| r.as_str()),
            self.variant,
            self.errors,
            self.warnings,
            self.final_fen.as_deref().unwrap_or("-")
        )
    }

    /// The record as a JSON Lines record.
    pub fn json(&self, file: &Name) -> serde_json::Value {
        json!({"type": "game", "data": {
            "file": file.json(), "game": self.game, "offset": self.offset, "line": self.line, "plies": self.plies,
            "result": self.result.map(|r| r.as_str()), "variant": self.variant, "final_fen": self.final_fen,
            "errors": self.errors, "warnings": self.warnings,
        }})
    }
}

/// The check job.
#[derive(Clone, Debug, Default)]
pub struct Check {
    /// Options.
    pub opts: CheckOptions,
    /// The games checked: those the filters leave out are counted, not reported.
    pub select: Arc<Selection>,
}

/// One item of the report, in input order: a game's diagnostics, then its record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckItem {
    /// A problem.
    Diagnostic(Diagnostic),
    /// A game's record (with `--games`).
    Game(GameRecord),
}

impl Located for CheckItem {
    fn shift(&mut self, games: u64, lines: u64) {
        match self {
            CheckItem::Diagnostic(d) => d.shift(games, lines),
            CheckItem::Game(g) => {
                g.game += games;
                g.line += lines;
            }
        }
    }
}

struct CheckHooks<'s> {
    opts: CheckOptions,
    items: Vec<CheckItem>,
    filter: Filter<'s>,
    /// Where the current game's items start (its problems before its tags among them).
    game_items: usize,
    /// The last game ended was left out.
    dropped: bool,
    filtered: u64,
}

impl<'a> Hooks<'a> for CheckHooks<'_> {
    fn variations(&self) -> bool {
        true
    }

    fn zobrist_keys(&self) -> bool {
        false
    }

    fn wants(&self, kind: Kind, _: Severity) -> bool {
        self.opts.strict_san || !matches!(kind, Kind::NonCanonicalSan | Kind::CheckMark)
    }

    fn diagnostic(&mut self, _: &Game<'a>, d: Diagnostic) {
        self.items.push(CheckItem::Diagnostic(d));
    }

    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        self.filter.tags(game)
    }

    fn moves(&self) -> Lines {
        if self.filter.is_active() { Lines::Mainline } else { Lines::None }
    }

    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        self.filter.observe(p.before);
    }

    fn counted(&self) -> bool {
        !self.dropped
    }

    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        self.dropped = self.filter.finish(game, last).is_err();
        if self.dropped {
            self.items.truncate(self.game_items);
            self.filtered += 1;
        } else if self.opts.games {
            self.items.push(CheckItem::Game(GameRecord {
                game: game.number,
                offset: game.offset,
                line: game.line,
                plies: game.plies,
                result: game.result,
                variant: game.played_variant().name(),
                final_fen: last.map(|p| {
                    let mut fen = String::new();
                    write_fen(p, EpMode::Legal, &mut fen);
                    fen
                }),
                errors: game.errors,
                warnings: game.warnings,
            }));
        }
        self.game_items = self.items.len();
    }
}

/// Per-thread state (none needed beyond the options).
pub struct CheckWorker {
    opts: CheckOptions,
    select: Arc<Selection>,
}

impl Job for Check {
    type Worker = CheckWorker;

    /// Records carry no rendered game numbers: read before the numbers are known.
    fn cuts(&self) -> Cuts {
        Cuts::Guessed
    }

    fn worker(&self) -> Result<CheckWorker, Error> {
        Ok(CheckWorker { opts: self.opts, select: self.select.clone() })
    }
}

impl Worker for CheckWorker {
    type Records = Vec<CheckItem>;

    fn process(&mut self, chunk: &ChunkInput<'_>) -> Result<Output<Vec<CheckItem>>, Error> {
        let filter = Filter::new(&self.select, false);
        let hooks = CheckHooks {
            opts: self.opts,
            items: Vec::new(),
            filter,
            game_items: 0,
            dropped: false,
            filtered: 0,
        };
        let (hooks, mut out) = replay_chunk(hooks, chunk);
        if hooks.filter.is_active() {
            out.stats.add(Counter::Filtered, hooks.filtered);
        }
        hooks.filter.count(&mut out.stats);
        Ok(Output { records: hooks.items, stats: out.stats, end: out.end })
    }
}

/// Writes `check`'s report: one line per item, as text or JSON Lines, and with JSON a final
/// `summary` record.
pub struct Report {
    out: Out,
    json: bool,
    file: Name,
    /// Ends with the JSON summary record (not a shard's part: `merge` writes it).
    summary: bool,
}

impl Report {
    /// A report written to `out`, in JSON Lines when `json`.
    pub fn new(out: Out, json: bool) -> Report {
        Report { out, json, file: Name::default(), summary: true }
    }

    /// The same report as a shard's part: without the summary record, which `merge` writes.
    pub fn part(self) -> Report {
        Report { summary: false, ..self }
    }

    /// Writes the JSON summary (marked `"interrupted": true` when the run was; `where_absent`
    /// lists the `--where` expressions of `select` whose tags no game had) and flushes.
    pub fn finish(mut self, summary: &Summary, select: &Selection) -> Result<(), Error> {
        if self.json && self.summary {
            let mut record = diagnostics::summary_json("check", &summary.stats, summary.elapsed);
            if summary.stopped.is_some() {
                record["data"]["interrupted"] = true.into();
            }
            if let Some(absent) = select.absent_json(&summary.stats) {
                record["data"]["where_absent"] = absent;
            }
            writeln!(self.out, "{record}").map_err(|e| self.out.error(e))?;
        }
        self.out.finish()?;
        Ok(())
    }
}

impl Sink<Vec<CheckItem>> for Report {
    fn begin_input(&mut self, input: &Name) -> Result<(), Error> {
        self.file = input.clone();
        Ok(())
    }

    fn release(&mut self, items: Vec<CheckItem>, _: &mut Stats) -> Result<(), Error> {
        for item in items {
            let line = match (&item, self.json) {
                (CheckItem::Diagnostic(d), true) => diagnostics::diagnostic_json(&self.file, d).to_string(),
                (CheckItem::Diagnostic(d), false) => diagnostics::diagnostic_text(self.file.prose(), d),
                (CheckItem::Game(g), true) => g.json(&self.file).to_string(),
                (CheckItem::Game(g), false) => g.text(self.file.prose()),
            };
            writeln!(self.out, "{line}").map_err(|e| self.out.error(e))?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Error> {
        Ok(self.out.flush_followed()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{Input, NoProgress, Options, Run, WithCuts, Workers, run};

    /// How a test runs the pipeline.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Mode {
        Exact,
        Speculative,
        /// Speculative over a stream that yields at most this many bytes per read.
        Stream(usize),
    }

    /// A reader handing out at most `step` bytes at a time, as pipes and decoders do.
    struct Trickle<'a>(&'a [u8], usize);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.1).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Runs check through the exact pipeline or a speculative one.
    fn check_with(pgn: &str, threads: usize, chunk_size: usize, mode: Mode) -> (Vec<Diagnostic>, Stats) {
        let (mut diags, mut stats) = (Vec::new(), Stats::default());
        let check = Check { opts: CheckOptions { strict_san: true, games: false }, ..Check::default() };
        let job = WithCuts(&check, if mode == Mode::Exact { Cuts::Exact } else { Cuts::Guessed });
        let (workers, opts) = (Workers::default(), Options { threads, chunk_size });
        let run_ =
            Run { name: &"t.pgn".into(), job: &job, workers: &workers, opts: &opts, observer: &NoProgress };
        let bytes = pgn.as_bytes();
        let input = match mode {
            Mode::Exact | Mode::Speculative => Input::Slice(bytes),
            Mode::Stream(step) => Input::Stream(Box::new(Trickle(bytes, step))),
        };
        run(input, &run_, |out| {
            diags.extend(out.records.into_iter().filter_map(|item| match item {
                CheckItem::Diagnostic(d) => Some(d),
                CheckItem::Game(_) => None,
            }));
            stats.merge(&out.stats);
            Ok(())
        })
        .expect("run");
        (diags, stats)
    }

    fn check(pgn: &str, threads: usize, chunk_size: usize) -> (Vec<Diagnostic>, Stats) {
        check_with(pgn, threads, chunk_size, Mode::Exact)
    }

    const GAMES: &str = "[Event \"ok\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n\
        [Event \"illegal\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n\
        [Event \"variation\"]\n[Result \"*\"]\n\n1. e4 (1. d4 d5 2. Nf3 Nf6 (2... Qxd2+)) e5 *\n\n\
        [Event \"mismatch\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n\
        [Event \"lenient\"]\n[Result \"*\"]\n\n1. e2e4 e7e5 2. Ng1f3 Nb8c6 3. Bb5 a6 *\n";

    #[test]
    fn finds_each_problem_with_its_location() {
        let (diags, stats) = check(GAMES, 1, 1 << 20);
        assert_eq!(stats.games, 5);
        let kinds: Vec<(u64, Kind, Option<u32>)> = diags.iter().map(|d| (d.game, d.kind, d.ply)).collect();
        assert!(kinds.contains(&(2, Kind::IllegalMove, Some(3))), "{kinds:?}");
        assert!(kinds.contains(&(3, Kind::IllegalMove, Some(4))), "Qxd2+ in the nested variation: {kinds:?}");
        assert!(kinds.contains(&(4, Kind::ResultMismatch, None)), "{kinds:?}");
        assert!(kinds.contains(&(4, Kind::ResultMismatch, Some(4))), "board shows mate by Black: {kinds:?}");
        assert!(kinds.iter().filter(|k| k.0 == 5 && k.1 == Kind::NonCanonicalSan).count() == 4, "{kinds:?}");
        assert!(!kinds.iter().any(|k| k.0 == 1), "game 1 is clean: {kinds:?}");
        let illegal = diags.iter().find(|d| d.game == 2).expect("game 2");
        assert_eq!((illegal.line, illegal.column), (11, 13));
        assert!(illegal.message.contains("\"Ke3\""), "{}", illegal.message);
        assert!(illegal.message.contains("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"));
        assert_eq!(stats.games_with_errors, 3);
        assert_eq!(stats.games_with_warnings, 1);
    }

    /// A stalemate is one whatever the material left (`outcome` calls this one insufficient
    /// material, as python-chess does).
    #[test]
    fn a_win_claimed_in_a_stalemate_without_mating_material_is_a_mismatch() {
        let pgn = "[SetUp \"1\"]\n[FEN \"7k/5K2/8/8/4B3/8/8/8 w - - 0 1\"]\n\n1. Bg6 1-0\n";
        let (diags, _) = check(pgn, 1, 1 << 20);
        let mismatch = diags.iter().find(|d| d.kind == Kind::ResultMismatch).expect("a mismatch");
        assert!(mismatch.message.contains("Stalemate (1/2-1/2)"), "{}", mismatch.message);
    }

    /// Null moves in every spelling are played with a warning, and refused in check (an error
    /// that ends the line); the moves after a played one resolve from the position it left.
    #[test]
    fn null_moves_are_warned_and_refused_in_check() {
        let pgn = "[Event \"nulls\"]\n[Result \"*\"]\n\n1. e4 -- 2. Nf3 Z0 3. Bc4 0000 4. d3 @@@@ 5. O-O *\n\n\
            [Event \"in check\"]\n[Result \"*\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 d6 4. Qxf7+ -- *\n";
        let (diags, stats) = check(pgn, 1, 1 << 20);
        let kinds: Vec<(u64, Kind, Option<u32>)> = diags.iter().map(|d| (d.game, d.kind, d.ply)).collect();
        let nulls: Vec<u32> = kinds.iter().filter(|k| k.1 == Kind::NullMove).filter_map(|k| k.2).collect();
        assert_eq!(nulls, [2, 4, 6, 8], "{kinds:?}");
        assert!(
            !kinds.iter().any(|k| k.0 == 1 && k.1 == Kind::IllegalMove),
            "O-O after the nulls: {kinds:?}"
        );
        assert!(kinds.contains(&(2, Kind::IllegalMove, Some(8))), "{kinds:?}");
        assert_eq!(stats.games_with_errors, 1);
    }

    /// A `+` on a mating move is found wherever the line goes next (the mate test waits for the
    /// next move, which shows the position was no mate), and reported in input order.
    #[test]
    fn a_check_mark_on_a_mate_is_found_whatever_follows() {
        let mate = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7";
        let games = [
            format!("{mate}+ 1-0"),
            format!("{mate}+"),
            format!("{mate}+ (4. Qxf7# Ke7) 1-0"),
            format!("{mate}+ Ke7 1-0"),
            format!("{mate}+ -- 1-0"),
            "1. e4 e5 2. Qh5 Nc6 3. Qxf7+ Kxf7 *".to_string(),
            "1. e4 e5 2. Qh5 Nc6 3. Qxf7# Kxf7 *".to_string(),
            "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 (3... a6 4. Qxf7+) 4. Qxf7# 1-0".to_string(),
            format!("{mate}+ ) 1-0"),
            format!("{mate}# (4. Qxf7+ $1 {{mate}}) 1-0"),
        ];
        let pgn: String =
            games.iter().map(|g| format!("[Event \"e\"]\n[Result \"1-0\"]\n\n{g}\n\n")).collect();
        let (diags, _) = check(&pgn, 1, 1 << 20);
        let got: Vec<(u64, Kind, Option<u32>)> = diags.iter().map(|d| (d.game, d.kind, d.ply)).collect();
        use Kind::*;
        let want = [
            (1, CheckMark, Some(7)),
            (2, CheckMark, Some(7)),
            (2, MissingResult, None),
            (3, CheckMark, Some(7)),
            (3, IllegalMove, Some(8)),
            (4, CheckMark, Some(7)),
            (4, IllegalMove, Some(8)),
            (5, CheckMark, Some(7)),
            (5, IllegalMove, Some(8)),
            (6, ResultMismatch, None),
            (7, CheckMark, Some(5)),
            (7, ResultMismatch, None),
            (8, CheckMark, Some(7)),
            (9, CheckMark, Some(7)),
            (9, Syntax, None),
            (10, CheckMark, Some(7)),
        ];
        assert_eq!(got, want);
        let first = &diags[0];
        assert!(first.message.contains("\"Qxf7+\" written for Qxf7#"), "{}", first.message);
        assert!(diags[10].message.contains("\"Qxf7#\" written for Qxf7+"), "{}", diags[10].message);
    }

    /// Text that real files get wrong but that says what it means is read, with a warning that
    /// names the repair: a result glued to the last move or spelled with a Unicode dash or `½`,
    /// an unterminated tag value, an impossible en passant square, a fullmove number of 0, a FEN
    /// without SetUp. Each such game stays valid and keeps its moves.
    #[test]
    fn recoverable_text_is_read_with_a_warning() {
        let pgn = "[Event \"glued\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#1-0\n\n\
            [Event \"dash\"]\n[Result \"1-0\"]\n\n1. e4 e5 1\u{2013}0\n\n\
            [Event \"half\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 \u{bd}-\u{bd}\n\n\
            [Event \"tag\n[Result \"*\"]\n\n1. e4 *\n\n\
            [Event \"fen\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - e6 0 0\"]\n\n1. e4 *\n";
        let (diags, stats) = check(pgn, 1, 1 << 20);
        let got: Vec<(u64, Kind, Severity)> = diags.iter().map(|d| (d.game, d.kind, d.severity)).collect();
        use Kind::*;
        use Severity::Warning;
        let want = [
            (1, GluedResult, Warning),
            (2, ResultSpelling, Warning),
            (3, ResultSpelling, Warning),
            (4, BadTag, Warning),
            (5, FenRepaired, Warning),
            (5, FenRepaired, Warning),
            (5, MissingSetUp, Warning),
        ];
        assert_eq!(got, want);
        assert_eq!((stats.games, stats.games_with_errors, stats.plies), (5, 0, 7 + 2 + 2 + 1 + 1));
        assert!(
            diags[0].message.contains("\"Qxf7#1-0\" read as the move Qxf7# and the result 1-0"),
            "{}",
            diags[0].message
        );
    }

    /// A tag written twice counts once, as first written.
    #[test]
    fn the_first_of_repeated_setup_tags_counts() {
        let pgn = "[Event \"twice\"]\n[Result \"0-1\"]\n[Result \"1-0\"]\n\
            [FEN \"k7/8/8/8/8/8/8/K7 w - - 0 1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n\
            1. e4 1-0\n";
        let (diags, _) = check(pgn, 1, 1 << 20);
        let kinds: Vec<Kind> = diags.iter().map(|d| d.kind).collect();
        assert!(kinds.contains(&Kind::ResultMismatch), "{kinds:?}");
        assert!(kinds.contains(&Kind::IllegalMove), "e4 from the first FEN: {kinds:?}");
    }

    #[test]
    fn same_report_at_any_thread_count_and_chunk_size() {
        let many: String = GAMES.repeat(50);
        let one = check(&many, 1, 1 << 20);
        for (threads, chunk) in [(1, 100), (2, 100), (2, 1000), (3, 333)] {
            assert_eq!(check(&many, threads, chunk), one, "threads {threads} chunk {chunk}");
        }
        assert_eq!(one.1.games, 250);
        assert_eq!(one.0.last().map(|d| d.game), Some(250));
        for (threads, chunk) in [(1, 1), (1, 100), (2, 100), (2, 1000), (3, 333), (2, 1 << 20)] {
            for mode in [Mode::Speculative, Mode::Stream(1 << 16), Mode::Stream(7)] {
                assert_eq!(
                    check_with(&many, threads, chunk, mode),
                    one,
                    "{mode:?}: threads {threads} chunk {chunk}"
                );
            }
        }
    }

    /// A blank line and `[Event` inside a comment: the guessed boundary is wrong, the releaser
    /// re-reads, and the report equals the sequential one.
    #[test]
    fn speculation_survives_a_game_inside_a_comment() {
        let tricky =
            "[Event \"a\"]\n\n1. e4 { a whole game quoted:\n\n[Event \"fake\"]\n\n1. Kxe8 } e5 2. Ke3 *\n\n";
        let many: String = [GAMES, tricky].concat().repeat(20);
        let one = check(&many, 1, 1 << 20);
        assert_eq!(one.1.games, 120);
        for (threads, chunk) in [(1, 1), (1, 50), (2, 1), (2, 50), (2, 400), (3, 97)] {
            for mode in [Mode::Speculative, Mode::Stream(1 << 16), Mode::Stream(5)] {
                assert_eq!(
                    check_with(&many, threads, chunk, mode),
                    one,
                    "{mode:?}: threads {threads} chunk {chunk}"
                );
            }
        }
    }

    /// Inputs whose reading depends on bytes far past a guessed boundary: a stream chunk's
    /// one-line look-ahead is not enough, and the releaser joins chunks until it is.
    #[test]
    fn stream_speculation_joins_chunks_when_the_look_ahead_is_short() {
        let fake: String = (0..30).map(|i| format!("\n\n[Event \"fake {i}\"]\n\n1. Kxe8 *")).collect();
        let cases = [
            // A long comment quoting many games, closed much later.
            format!("[Event \"a\"]\n\n1. e4 {{ quoted:{fake} }} e5 2. Ke3 *\n\n"),
            // An unclosed comment: it ends at the first tag line unless a `}` follows with no `{`
            // between, which is decided by bytes far ahead.
            format!("[Event \"b\"]\n\n1. e4 {{ open{fake}\n\n[Event \"c\"]\n\n1. d4 }} d5 *\n\n"),
            format!("[Event \"b\"]\n\n1. e4 {{ open{fake}\n\n[Event \"c\"]\n\n1. d4 {{x}} d5 *\n\n"),
            // A game that starts mid-line with `%` (not an escape line there).
            "[Event \"d\"]\n\n1. e4 1-0%x\n\n[Event \"e\"]\n\n1. d4 *\n\n".to_string(),
            // No blank lines at all: nothing to guess from; cut exactly.
            "[Event \"f\"]\n1. e4 e5 2. Ke3 *\n".repeat(40),
            "[Event \"g\"]\r\n\r\n1. e4 {\r\n\r\n[Event \"h\"]\r\n} e5 *\r\n\r\n".repeat(5),
        ];
        for case in &cases {
            let many = [GAMES, case.as_str(), GAMES].concat().repeat(3);
            let one = check(&many, 1, 1 << 20);
            for (threads, chunk) in [(1, 1), (1, 40), (2, 1), (2, 64), (3, 150), (2, 1 << 20)] {
                for mode in [Mode::Exact, Mode::Speculative, Mode::Stream(1 << 16), Mode::Stream(3)] {
                    assert_eq!(
                        check_with(&many, threads, chunk, mode),
                        one,
                        "{mode:?}: threads {threads} chunk {chunk} case {case:?}"
                    );
                }
            }
        }
    }
}
