//! Tests of the annotate job with the built-in engine at small node budgets.

use super::*;
use crate::pipeline::counter::Counter;
use crate::pipeline::{Input, NoProgress, Options, Run, Workers};

/// The job's output and counts over `pgn` on `threads` workers.
fn annotate(opts: AnnotateOptions, pgn: &[u8], threads: usize) -> (String, crate::pipeline::stats::Stats) {
    run_job(Annotate::new(opts), pgn, threads)
}

/// `job`'s output and counts over `pgn` on `threads` workers.
fn run_job(job: Annotate, pgn: &[u8], threads: usize) -> (String, crate::pipeline::stats::Stats) {
    let workers = Workers::default();
    let popts = Options { threads, chunk_size: 1 << 16 };
    let run =
        Run { name: &"t.pgn".into(), job: &job, workers: &workers, opts: &popts, observer: &NoProgress };
    let mut text = Vec::new();
    let mut stats = crate::pipeline::stats::Stats::default();
    crate::pipeline::run(Input::Slice(pgn), &run, |o| {
        text.extend_from_slice(&o.records.out.to_vec());
        stats.merge(&o.stats);
        Ok(())
    })
    .expect("run");
    (String::from_utf8(text).expect("UTF-8"), stats)
}

/// The text with line breaks as spaces, so that movetext compares whatever its layout.
fn flat(text: &str) -> String {
    text.replace('\n', " ")
}

fn builtin(nodes: u64) -> AnnotateOptions {
    AnnotateOptions {
        engine: EngineChoice::Builtin { hash_mb: 1, interrupted: None },
        limit: Limit::nodes(nodes),
        ..AnnotateOptions::default()
    }
}

const BLUNDER: &[u8] =
    b"[Event \"t\"]\n[Result \"*\"]\n\n1. e4 { [%eval 9.99] [%clk 0:05:00] } e5 2. Nf3 f6 \
    3. Nxe5 fxe5 $1 { Mistake. Old comment. } 4. Qh5+ g6 5. Qxe5+ Qe7 6. Qxh8 *\n";

#[test]
fn every_move_gets_an_eval_and_the_blunder_its_judgement_and_line() {
    let (out, stats) = annotate(builtin(5_000), BLUNDER, 1);
    let out = flat(&out);
    assert_eq!(out.matches("[%eval ").count(), 11, "{out}");
    assert!(out.contains("[%clk 0:05:00]") && !out.contains("9.99"), "{out}");
    assert!(out.contains("[Annotator \"pgnkit "), "{out}");
    assert!(out.contains("3... fxe5 $4"), "the blunder and no other assessment: {out}");
    assert!(
        out.contains("{ Blunder. ") && out.contains(" was best. }") && !out.contains("Old comment"),
        "{out}"
    );
    assert!(out.contains(" (3... "), "the engine's line: {out}");
    assert_eq!(
        (stats.get(Counter::Positions), stats.get(Counter::Analysed), stats.get(Counter::Annotated)),
        (12, 12, 1)
    );
    // Annotated again, old evals, judgements, the Annotator and the engine's line after the
    // judgement (it starts with the move the old comment named best) are replaced.
    let (again, _) = annotate(builtin(5_000), out.as_bytes(), 1);
    let again = flat(&again);
    for what in ["[%eval ", "Blunder.", "$4", "[Annotator ", " (3... "] {
        assert_eq!(again.matches(what).count(), out.matches(what).count(), "{what}: {again}");
    }
}

#[test]
fn output_is_the_same_at_any_number_of_workers() {
    let pgn = include_bytes!("../../../fixtures/pgn/lichess_db_10k.pgn");
    let (one, _) = annotate(builtin(1_000), pgn, 1);
    let (two, _) = annotate(builtin(1_000), pgn, 2);
    assert_eq!(one.matches("[Event ").count(), 5);
    assert_eq!(one, two);
}

#[test]
fn game_endings_are_not_analysed_and_the_mating_move_has_no_eval() {
    let pgn = b"1. f3 e5 2. g4 Qh4# 0-1\n\n[SetUp \"1\"]\n[FEN \"7k/8/6K1/8/8/8/8/5Q2 w - - 0 1\"]\n\n1. Qf7 1/2-1/2\n";
    let (out, stats) = annotate(builtin(1_000), pgn, 1);
    let out = flat(&out);
    assert_eq!(stats.get(Counter::FromRules), 2, "the mate and the stalemate: {out}");
    assert!(out.contains("2... Qh4# 0-1") && out.contains("[Result \"0-1\"]"), "{out}");
    assert_eq!((stats.get(Counter::Positions), stats.get(Counter::Analysed)), (5 + 2, 4 + 1));
    assert!(out.contains("1. Qf7 { [%eval 0.0] } 1/2-1/2"), "{out}");
}

#[test]
fn games_with_errors_are_written_as_read_and_filters_leave_games_out() {
    let pgn = b"[Event \"bad\"]\n\n1. e4 Ke3 *\n\n[Event \"good\"]\n\n1. d4 *\n";
    let (out, stats) = annotate(builtin(500), pgn, 1);
    assert!(out.starts_with("[Event \"bad\"]\n\n1. e4 Ke3 *\n\n[Event \"good\"]"), "{out}");
    assert_eq!((stats.get(Counter::WrittenAsRead), stats.get(Counter::Annotated)), (1, 1));
    let mut opts = builtin(500);
    opts.select.wheres = vec![crate::select::tags::TagExpr::parse("Event = good").expect("expr")];
    let (out, stats) = annotate(opts, pgn, 1);
    assert!(!out.contains("bad") && out.contains("1. d4 { [%eval"), "{out}");
    assert_eq!((stats.get(Counter::Filtered), stats.get(Counter::Annotated)), (1, 1));
}

#[test]
fn from_evals_judges_the_games_own_evaluations() {
    // An old judgement of a move judged no more goes, NAG and comment; a `!` stays.
    let pgn = b"[Event \"e\"]\n\n1. e4 $2 $1 { [%eval 0.2] } { Mistake. Old. } 1... f6 { [%eval 2.5] } 2. d4 { [%eval 2.4] } *\n";
    let opts = AnnotateOptions { from_evals: true, add_tags: true, ..AnnotateOptions::default() };
    let (out, stats) = annotate(opts, pgn, 1);
    let out = flat(&out);
    assert!(
        out.contains(
            "1. e4 $1 { [%eval 0.2] } 1... f6 $4 { [%eval 2.5] } { Blunder. } 2. d4 { [%eval 2.4] }"
        ),
        "{out}"
    );
    assert!(out.contains("[WhiteACPL \"") && out.contains("[BlackAccuracy \""), "{out}");
    assert_eq!(stats.get(Counter::Analysed), 0);
}

/// An old judgement's line goes with it where `--from-evals` judges the move no more, and stays
/// where it judges the move again naming the old best move; the game's own variations stay.
#[test]
fn from_evals_keeps_an_old_line_only_with_its_judgement() {
    let pgn = "[Event \"e\"]\n\n1. e4 { [%eval 0.2] } 1... f6 { [%eval 2.5] } { (0.20 → 2.50) Blunder. e5 was best. } \
               (1... e5 2. Nf3) 2. d4 { [%eval 2.4] } { (2.50 → 2.40) Inaccuracy. Nf3 was best. } (2. Nf3 Nc6) \
               (2. c4 e5) *\n";
    let opts = AnnotateOptions { from_evals: true, ..AnnotateOptions::default() };
    let (out, _) = annotate(opts, pgn.as_bytes(), 1);
    let out = flat(&out);
    let kept = "1... f6 $4 { [%eval 2.5] } { Blunder. e5 was best. } (1... e5 2. Nf3) 2. d4 { [%eval 2.4] } (2. c4 e5) *";
    assert!(out.contains(kept), "{out}");
}

/// A game with no `[%eval]` gives `--from-evals` nothing to judge: its own judgements (a lichess
/// export's) stay, no Annotator tag claims a judgement, and a warning says so.
#[test]
fn from_evals_writes_a_game_without_evaluations_as_read() {
    let game = "[Event \"e\"]\n[Annotator \"lichess.org\"]\n\n1. e4 e5 2. Qh5 $2 { (0.20 → -0.80) Mistake. Nf3 was best. } \
                (2. Nf3 Nc6) 2... Nc6 *\n\n";
    let judged = "[Event \"j\"]\n\n1. e4 { [%eval 0.2] } 1... f6 { [%eval 2.5] } *\n";
    let opts = AnnotateOptions { from_evals: true, ..AnnotateOptions::default() };
    let (out, diagnostics, stats) = annotate_with_diagnostics(opts, format!("{game}{judged}").as_bytes());
    assert!(out.starts_with(game), "{out}");
    assert_eq!(out.matches("[Annotator ").count(), 2, "lichess's and the judged game's: {out}");
    let warnings: Vec<_> = diagnostics.iter().map(|d| (d.kind, d.game, d.severity)).collect();
    assert_eq!(warnings, [(crate::error::Kind::NoEvals, 1, crate::error::Severity::Warning)]);
    assert_eq!((stats.get(Counter::WrittenAsRead), stats.get(Counter::Annotated)), (1, 1));
}

/// An `[%eval]` that reads as no evaluation is a `bad_eval` warning at its `[`, not a move
/// quietly left unevaluated; the game's readable evaluations are still judged.
#[test]
fn from_evals_says_where_an_evaluation_does_not_read() {
    let pgn = "[Event \"e\"]\n\n1. e4 { [%eval 1e308] } 1... f6 { [%eval #-99999999999] } 2. d4 { [%eval 2.4] } *\n";
    let opts = AnnotateOptions { from_evals: true, ..AnnotateOptions::default() };
    let (_, diagnostics, stats) = annotate_with_diagnostics(opts, pgn.as_bytes());
    let bad: Vec<_> = diagnostics.iter().map(|d| (d.kind, d.severity, d.offset, d.line, d.column)).collect();
    let warning = crate::error::Severity::Warning;
    let kind = crate::error::Kind::BadEval;
    assert_eq!(bad, [(kind, warning, 21, 3, 9), (kind, warning, 47, 3, 35)], "{diagnostics:?}");
    assert!(diagnostics[0].message.starts_with("[%eval 1e308] reads as no evaluation"), "{diagnostics:?}");
    assert_eq!(stats.get(Counter::Annotated), 1);
}

#[test]
fn from_evals_reads_the_first_evaluation_among_a_move_s_comments() {
    // python-chess reads a move's comments joined: 1. e4 is +0.3, not the later -5.0.
    let pgn = b"[Event \"two\"]\n\n1. e4 { [%eval 0.3] } { [%eval -5.0] } 1... e5 { [%eval 0.3] } *\n";
    let opts = AnnotateOptions { from_evals: true, add_tags: true, ..AnnotateOptions::default() };
    let (out, _) = annotate(opts, pgn, 1);
    let out = flat(&out);
    assert!(out.contains("[WhiteACPL \"0\"]") && !out.contains("Blunder"), "{out}");
}

#[test]
fn from_evals_tags_count_a_blunder_after_a_missing_evaluation_against_its_mover() {
    // 2. Nf3 has no evaluation; 3. Bc4 (+0.20 -> -5.00) is White's blunder in the ACPL and the
    // accuracy alike (with the gap closed up, it was Black's move and both sides had 100).
    let pgn =
        b"[Event \"gap\"]\n\n1. e4 { [%eval 0.2] } 1... e5 { [%eval 0.2] } 2. Nf3 2... Nc6 { [%eval 0.2] } \
        3. Bc4 { [%eval -5.0] } 3... Nf6 { [%eval -5.0] } 4. d3 { [%eval -5.0] } 4... Be7 { [%eval -5.0] } \
        5. O-O { [%eval -5.0] } 5... O-O { [%eval -5.0] } *\n";
    let opts = AnnotateOptions { from_evals: true, add_tags: true, ..AnnotateOptions::default() };
    let (out, _) = annotate(opts, pgn, 1);
    let out = flat(&out);
    assert!(out.contains("3. Bc4 $4 { [%eval -5.0] } { Blunder. }"), "{out}");
    for tag in
        ["[WhiteACPL \"130\"]", "[BlackACPL \"0\"]", "[WhiteAccuracy \"36\"]", "[BlackAccuracy \"100\"]"]
    {
        assert!(out.contains(tag), "{tag}: {out}");
    }
}

/// A tag the reader takes but the standard does not name so is left out of an annotated game,
/// with a warning that shows it.
#[test]
fn a_tag_without_a_pgn_tag_name_is_left_out_with_a_warning() {
    let pgn = b"[Event \"e\"]\n[Ev-ent \"x\"]\n\n1. e4 { [%eval 0.2] } 1... e5 { [%eval 0.2] } *\n";
    let opts = AnnotateOptions { from_evals: true, ..AnnotateOptions::default() };
    let (out, diagnostics, _) = annotate_with_diagnostics(opts, pgn);
    assert!(out.starts_with("[Event \"e\"]\n") && !out.contains("Ev-ent"), "{out}");
    let warnings: Vec<_> = diagnostics.iter().map(|d| (d.kind, d.game, d.message.as_str())).collect();
    assert_eq!(
        warnings,
        [(crate::error::Kind::BadTag, 1, "tag [Ev-ent \"x\"] left out: \"Ev-ent\" is not a PGN tag name")]
    );
}

#[test]
fn jsonl_has_a_record_per_position() {
    let opts = AnnotateOptions { format: Format::Jsonl, ..builtin(5_000) };
    let (out, _) = annotate(opts, BLUNDER, 1);
    let records: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(records.len(), 12);
    let d = &records[5]["data"];
    assert_eq!((d["game"].as_u64(), d["ply"].as_u64(), d["san"].as_str()), (Some(1), Some(5), Some("fxe5")));
    assert_eq!(d["judgement"], "blunder");
    assert!(d["eval"]["cp"].is_i64() && d["pv"].as_array().is_some_and(|p| !p.is_empty()), "{d}");
    assert_eq!(records[11]["data"]["san"], serde_json::Value::Null);
}

/// The job's output and the errors of its games' as released, with `stats`.
fn annotate_with_diagnostics(
    opts: AnnotateOptions,
    pgn: &[u8],
) -> (String, Vec<crate::error::Diagnostic>, crate::pipeline::stats::Stats) {
    let job = Annotate::new(opts);
    let workers = Workers::default();
    let popts = Options { threads: 1, chunk_size: 1 << 16 };
    let run =
        Run { name: &"t.pgn".into(), job: &job, workers: &workers, opts: &popts, observer: &NoProgress };
    let (mut text, mut diagnostics, mut stats) = (Vec::new(), Vec::new(), Default::default());
    crate::pipeline::run(Input::Slice(pgn), &run, |o| {
        text.extend_from_slice(&o.records.out.to_vec());
        diagnostics.extend(o.records.diagnostics);
        crate::pipeline::stats::Stats::merge(&mut stats, &o.stats);
        Ok(())
    })
    .expect("run");
    (String::from_utf8(text).expect("UTF-8"), diagnostics, stats)
}

/// The games of `pgn` replayed again: the errors of each.
fn errors_when_read_again(pgn: &str) -> Vec<u32> {
    struct Errors(Vec<u32>);
    impl<'a> crate::pipeline::replay::Hooks<'a> for Errors {
        fn variations(&self) -> bool {
            true
        }
        fn end(&mut self, game: &crate::pipeline::replay::Game<'a>, _: Option<&crate::chess::Position>) {
            self.0.push(game.errors);
        }
    }
    let mut games = crate::pipeline::replay::Games::new(Errors(Vec::new()), pgn.as_bytes());
    while games.next_game() {}
    games.into_hooks().0
}

#[test]
fn a_game_whose_only_errors_are_in_variations_is_annotated_with_each_cut_at_its_error() {
    let pgn = b"[Event \"v\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
        1. e4 e5 2. Nf3 (2. Bc4 Nf6 3. Nf9 {why} (3. d3) Nc6) (2. f4 $1) 2... Nc6 3. Bb5 a6 1-0\n";
    let (out, diagnostics, stats) = annotate_with_diagnostics(builtin(500), pgn);
    let flat = flat(&out);
    assert!(
        flat.contains("(2. Bc4 Nf6 { pgnkit: invalid_move; not replayed: Nf9 {why (3. d3) Nc6 }) (2. f4 $1) 2... Nc6 { [%eval "),
        "the variation up to its error, the rest as read: {flat}"
    );
    assert_eq!(flat.matches("[%eval ").count(), 6, "{flat}");
    assert!(flat.contains("[Annotator \"pgnkit ") && flat.contains("3. Bb5 { [%eval "), "{flat}");
    // The error is still the game's: reported where it stands, and the game counts with errors.
    let got: Vec<_> = diagnostics.iter().map(|d| (d.kind, d.line, d.column, d.ply)).collect();
    assert_eq!(got, [(crate::error::Kind::InvalidMove, 6, 32, Some(5))]);
    assert_eq!(
        (stats.games_with_errors, stats.get(Counter::Annotated), stats.get(Counter::WrittenAsRead)),
        (1, 1, 0)
    );
    assert_eq!(errors_when_read_again(&out), [0], "the output reads with no error: {out}");
    // The same game through JSON Lines, which reads no variation: the same positions analysed.
    let opts = AnnotateOptions { format: Format::Jsonl, ..builtin(500) };
    let (_, stats) = annotate(opts, pgn, 1);
    assert_eq!((stats.get(Counter::Annotated), stats.get(Counter::Positions)), (1, 7));
}

#[test]
fn a_variation_with_no_move_replayed_stands_as_a_comment_where_it_stood() {
    // Its first move illegal, or no move before it to replace: the variation, parentheses and
    // comments included (a comment cannot hold their `}`), is a comment of the line it would
    // have left, after the move's notes.
    let illegal = b"[Event \"a\"]\n[Result \"*\"]\n\n1. e4 e5 ({c} 1... Qxh7 2. d4) 2. Nf3 *\n";
    let before = b"[Event \"b\"]\n[Result \"*\"]\n\n{ x } (1. d4) 1. e4 e5 *\n";
    let (out, _, stats) = annotate_with_diagnostics(builtin(100), &[&illegal[..], &before[..]].concat());
    let out = flat(&out);
    assert!(
        out.contains("1... e5 { [%eval ")
            && out.contains(" { pgnkit: illegal_move; not replayed: ({c 1... Qxh7 2. d4) } 2. Nf3 { [%eval "),
        "{out}"
    );
    assert!(out.contains("{ x } { pgnkit: syntax; not replayed: (1. d4) } 1. e4 { [%eval "), "{out}");
    assert_eq!((stats.games_with_errors, stats.get(Counter::Annotated)), (2, 2));
    assert_eq!(errors_when_read_again(&out), [0, 0], "{out}");
}

#[test]
fn a_game_with_an_error_outside_its_cut_variations_is_written_as_read() {
    // An illegal mainline move, a token the reader skips in the mainline (too long to be named
    // whole, so an error), a result that the board contradicts: each beside an error in a
    // variation, each a game written as read.
    let games = [
        &b"[Event \"main\"]\n[Result \"*\"]\n\n1. e4 e5 (1... Qxh7) 2. Ke3 *\n"[..],
        b"[Event \"token\"]\n[Result \"*\"]\n\n1. e4 e5 (1... Qxh7) 2. Nf3 [%csl Ga1,Ga2,Ga3,Ga4,Ga5,Ga6,Ga7] Nc6 *\n",
        b"[Event \"result\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 (2. g3 Qxh7) Qh4# 1-0\n",
    ];
    for pgn in games {
        let (out, stats) = annotate(builtin(100), pgn, 1);
        assert_eq!(out, format!("{}\n", String::from_utf8_lossy(pgn)), "as read");
        assert_eq!(
            (stats.games_with_errors, stats.get(Counter::WrittenAsRead), stats.get(Counter::Annotated)),
            (1, 1, 0)
        );
    }
}

#[test]
fn variations_nags_and_comments_stay_where_they_stand() {
    let pgn = b"[Event \"t\"]\n[Result \"*\"]\n\n{ before } 1. e4 $1 { hi } (1. d4 $2 d5 { x } \
        (1... Nf6 $5)) 1... e5 ; rest\n 2. Nf3 *\n";
    let (out, _) = annotate(builtin(100), pgn, 1);
    let out = flat(&out);
    assert!(out.contains(" { before } 1. e4 $1 { [%eval "), "{out}");
    assert!(out.contains("] hi } (1. d4 $2 1... d5 { x } (1... Nf6 $5)) 1... e5 { [%eval "), "{out}");
    assert!(out.contains("] rest } 2. Nf3 { [%eval "), "{out}");
}

/// A variant's tag is written in its canonical spelling, as `clean` writes it: python-chess
/// refuses `chess-960`; a standard game's tag stays as written.
#[test]
fn a_variant_tag_is_written_in_its_canonical_spelling() {
    let game = b"[Event \"x\"]\n[Variant \"chess-960\"]\n[SetUp \"1\"]\n\
        [FEN \"rnnkrbbq/pppppppp/8/8/8/8/PPPPPPPP/RNNKRBBQ w EAea - 0 1\"]\n\n1. g3 Nc6 *\n\n\
        [Event \"y\"]\n[Variant \"From Position\"]\n\n1. e4 *\n";
    let (out, _) = annotate(builtin(300), game, 1);
    assert!(out.contains("[Variant \"Chess960\"]") && !out.contains("chess-960"), "{out}");
    assert!(out.contains("[Variant \"From Position\"]"), "{out}");
}

/// Results are cached only where they are a function of the position: an engine on several
/// threads (`Threads` in any case, the last one set counts) searches differently each run.
#[test]
fn several_search_threads_are_not_reproducible() {
    let uci = |options: &[(&str, &str)]| {
        let mut c = crate::engine::client::EngineConfig::new("stockfish");
        c.options = options.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        AnnotateOptions { engine: EngineChoice::Uci(Box::new(c)), ..AnnotateOptions::default() }
    };
    assert!(uci(&[]).reproducible() && uci(&[("Threads", "1")]).reproducible());
    assert!(uci(&[("threads", "4"), ("Threads", "1")]).reproducible());
    assert!(!uci(&[("Hash", "16"), ("threads", "2")]).reproducible());
    assert!(!uci(&[("Threads", "1"), ("THREADS", "8")]).reproducible());
    assert!(AnnotateOptions::default().reproducible());
}

#[test]
fn the_exit_code_table_names_the_crash_streak() {
    let meaning = crate::exit::Code::Unavailable.meaning();
    assert!(
        meaning.contains(&format!("every try or hung on {} positions in a row", analyse::CRASH_STREAK)),
        "{meaning}"
    );
}

/// A chunk's text spilled to disk past a few bytes (a game's movetext too, its tags put in front
/// of it at the end) reads back as the text held in memory, in every format, with the tags that
/// need the whole game, narrow lines (a `)` that moves a token down after the text before it was
/// taken out), variations, games written as read and filtered ones, at 1 and 2 threads.
#[test]
fn output_spilled_to_disk_is_the_output_held_in_memory() {
    let mut pgn = BLUNDER.to_vec();
    pgn.extend_from_slice(
        b"\n[Event \"v\"]\n[Result \"1-0\"]\n\n1. e4 { [%eval 0.3] } e5 { [%eval 0.2] } (1... c5 { [%eval 0.4] } \
          2. Nf3 (2. c3) d6) 2. Qh5 { [%eval 0.1] } Nc6 { [%eval 0.2] } 3. Bc4 { [%eval 0.3] } \
          Nf6 { [%eval 9.0] } 4. Qxf7# 1-0\n\n[Event \"bad\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n\
          [Event \"cut\"]\n[Result \"*\"]\n\n1. e4 e5 (1... { a note } $1 Ke5 { more } d5) 2. Nf3 *\n",
    );
    for format in [Format::Pgn, Format::Jsonl] {
        for (from_evals, add_tags, width) in [(false, true, 80), (true, true, 12), (false, false, 9)] {
            let opts = AnnotateOptions { format, from_evals, add_tags, line_width: width, ..builtin(1_000) };
            for threads in [1, 2] {
                let held = run_job(Annotate::new(opts.clone()), &pgn, threads).0;
                assert!(held.len() > 500, "{held}");
                for bound in [1, 5, 64] {
                    let spilled = run_job(Annotate::new(opts.clone()).spilling_at(bound), &pgn, threads).0;
                    assert_eq!(
                        spilled, held,
                        "{format:?} {from_evals} {add_tags} {width} -j{threads} at {bound}"
                    );
                }
            }
        }
    }
}

/// A Parquet output's rows past a bound of text wait on disk, a game's too (the chunk holds at
/// most the rows since the last spill), and read back as the rows held in memory, at 1 and 2
/// threads.
#[test]
fn rows_spilled_to_disk_are_the_rows_held_in_memory() {
    use crate::columnar::Batch;
    let rows = |job: Annotate, threads: usize| {
        let schema = table::schema(false);
        let (workers, popts) = (Workers::default(), Options { threads, chunk_size: 1 << 16 });
        let run =
            Run { name: &"t.pgn".into(), job: &job, workers: &workers, opts: &popts, observer: &NoProgress };
        let (mut all, mut part, mut most_held) = (Batch::new(&schema), Batch::new(&schema), 0);
        crate::pipeline::run(Input::Slice(BLUNDER), &run, |o| {
            most_held = most_held.max(o.records.table.held.rows());
            o.records
                .table
                .for_each_group(&mut part, |b| {
                    all.extend_from(b, 0..b.rows());
                    std::io::Result::Ok(())
                })
                .expect("read back");
            Ok(())
        })
        .expect("run");
        (all, most_held)
    };
    let opts = AnnotateOptions { format: Format::Parquet, ..builtin(1_000) };
    for threads in [1, 2] {
        let (held, most) = rows(Annotate::new(opts.clone()), threads);
        assert_eq!((held.rows(), most), (12, 12));
        // A row holds about 100 bytes of text.
        for (bound, at_most) in [(1, 0), (300, 3)] {
            let (spilled, most) = rows(Annotate::new(opts.clone()).spilling_at(bound), threads);
            assert_eq!(spilled, held, "-j{threads} at {bound}");
            assert!(most <= at_most, "{most} rows held at {bound}");
        }
    }
}

/// A movetext event (a move, comment, NAG, variation's start or end, kept for PGN output until the
/// game is written) is four words: a long game's PGN costs that much an event beyond its analysis.
#[test]
fn a_movetext_event_is_four_words() {
    assert_eq!(std::mem::size_of::<movetext::Event<'_>>(), 32);
}

/// A long game's state (its movetext's events, its evaluations, its notes) waits on disk past its
/// bound: what is held in memory of each stays within the bound whatever the game's length.
#[test]
fn a_long_games_state_held_in_memory_stays_within_its_bound() {
    use crate::pipeline::{Cancel, ChunkInput};
    use spool::Spool;
    fn within<T>(s: &Spool<'_, T>, held: usize) -> bool {
        s.held() * size_of::<T>() <= held
    }
    let mut pgn = b"[Event \"x\"]\n[Result \"*\"]\n\n".to_vec();
    for _ in 0..2_000 {
        pgn.extend_from_slice(b"Nf3 { [%eval 0.1] } Nf6 { [%eval 0.2] } $1 Ng1 (Nc3) Ng8 ");
    }
    pgn.extend_from_slice(b"*\n");
    let (name, cancel) = ("t.pgn".into(), Cancel::new(&NoProgress));
    let chunk = ChunkInput {
        seq: 0,
        offset: 0,
        first_game: 0,
        games: 1,
        bytes: &pgn,
        end: pgn.len(),
        column: 1,
        input: &name,
        cancel: &cancel,
    };
    let (held, opts) =
        (1 << 10, AnnotateOptions { from_evals: true, add_tags: true, ..AnnotateOptions::default() });
    let (collected, _) = replay_chunk(collect::Collect::new(&opts.select, true, true, &pgn, held), &chunk);
    let mut game = collected.games.into_iter().next().expect("one game");
    // Per repetition: 5 moves, 2 comments, a NAG, a variation's start and end.
    assert_eq!((game.movetext.events.len(), game.game_evals.len()), (20_000, 8_001));
    assert!(within(&game.movetext.events, held) && within(&game.game_evals, held));
    let evals = analyse::from_game(&mut game, &mut crate::pipeline::stats::Stats::default());
    let plan = notes::plan(&game, evals, &opts, held).expect("read back");
    assert_eq!((plan.evals.len(), plan.notes.len()), (8_001, 8_000));
    assert!(within(&plan.evals, held) && within(&plan.notes, held));
    assert!(plan.tags.iter().any(|(name, _)| *name == "WhiteAccuracy"), "{:?}", plan.tags);
}
