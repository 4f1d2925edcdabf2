//! Tests of `clean` through the pipeline: what is written, repaired and rejected, the ledger, and
//! the same output at any thread count and chunk size.

use super::*;
use crate::jobs::run::Sink;
use crate::pipeline::counter::Counter;
use crate::pipeline::stats::Stats;
use crate::pipeline::{Input, NoProgress, Options, Run, Workers, run};

mod bound;
mod spill;

/// What a run gave: the output, the rejects, the repairs (kind, before, after) and the counts.
#[derive(Debug, PartialEq, Eq)]
struct Cleaned {
    out: String,
    rejects: String,
    repairs: Vec<(u64, &'static str, String, String)>,
    fates: Vec<(u64, String)>,
    /// What the prefix of each game kept broken leaves out.
    left_out: Vec<String>,
    stats: Stats,
}

impl Cleaned {
    /// The text as read of each repair of `kind`, in order.
    fn befores(&self, kind: &str) -> Vec<&str> {
        self.repairs.iter().filter(|r| r.1 == kind).map(|r| r.2.as_str()).collect()
    }
}

fn clean_with(pgn: impl AsRef<[u8]>, opts: &CleanOptions, threads: usize, chunk_size: usize) -> Cleaned {
    let job = Clean::new(opts.clone());
    let (workers, pipeline) = (Workers::default(), Options { threads, chunk_size });
    let run_ =
        Run { name: &"t.pgn".into(), job: &job, workers: &workers, opts: &pipeline, observer: &NoProgress };
    let mut cleaned = Cleaned {
        out: String::new(),
        rejects: String::new(),
        repairs: vec![],
        fates: vec![],
        left_out: vec![],
        stats: Stats::default(),
    };
    let mut dedup = dedup::Dedup::of(opts.dedup);
    run(Input::Slice(pgn.as_ref()), &run_, |o| {
        let chunk = o.records;
        cleaned.stats.merge(&o.stats);
        for g in &chunk.games {
            let fate = match &g.fate {
                Fate::Written | Fate::Broken { .. } => {
                    let game = g.dedup.as_ref();
                    match dedup.next(game).expect("memory") {
                        Some(repeat) => format!("duplicate of {} ({})", repeat.of + 1, repeat.rule.name()),
                        None => {
                            cleaned
                                .out
                                .push_str(std::str::from_utf8(&chunk.out[g.text.clone()]).expect("UTF-8"));
                            for r in &chunk.repairs[g.repairs.clone()] {
                                cleaned.repairs.push((
                                    g.game,
                                    r.kind.code(),
                                    r.before.clone(),
                                    r.after.clone(),
                                ));
                            }
                            if let Fate::Broken { left_out, .. } = &g.fate {
                                cleaned.left_out.push(left_out.clone());
                                "broken".into()
                            } else {
                                "written".into()
                            }
                        }
                    }
                }
                Fate::Rejected { kind, .. } => {
                    dedup.next(None).expect("memory");
                    cleaned.rejects.push_str(&String::from_utf8_lossy(&chunk.verbatim[g.verbatim.clone()]));
                    format!("rejected {kind}")
                }
                Fate::Filtered { by } => {
                    dedup.next(None).expect("memory");
                    format!("filtered {by}")
                }
            };
            cleaned.fates.push((g.game, fate));
        }
        Ok(())
    })
    .expect("run");
    cleaned
}

fn clean(pgn: impl AsRef<[u8]>) -> Cleaned {
    clean_with(pgn, &CleanOptions::default(), 1, 1 << 20)
}

const GAMES: &str = "[Event \"lenient\"]\n[Date \"2024-01-15\"]\n[Result \"1-0\"]\n\n\
    1. e2e4 e7e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7 1-0\n\n\
    [Event \"illegal\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n\
    [Event \"glued\"]\n[Variant \"fischerandom\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n\
    1. f3 e5 2. g4 Qh4#0-1\n\n\
    [Event \"null\"]\n\n1. e4 Z0 2. d4 {ok} *\n";

#[test]
fn games_are_written_canonical_with_every_repair_logged() {
    let c = clean(GAMES);
    assert_eq!(
        c.fates.iter().map(|f| f.1.as_str()).collect::<Vec<_>>(),
        ["written", "rejected illegal_move", "written", "written"]
    );
    assert!(c.out.starts_with(
        "[Event \"lenient\"]\n[Site \"?\"]\n[Date \"2024.01.15\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"1-0\"]\n\n\
         1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n"
    ), "{}", c.out);
    assert!(c.out.contains("[Variant \"Chess960\"]"), "{}", c.out);
    assert!(c.out.contains("1. f3 e5 2. g4 Qh4# 0-1\n\n"), "{}", c.out);
    assert!(c.out.ends_with("1. e4 -- 2. d4 { ok } *\n\n"), "{}", c.out);
    let kinds: Vec<(u64, &str)> = c.repairs.iter().map(|r| (r.0, r.1)).collect();
    for want in [
        (1, "san"),
        (1, "check_mark"),
        (1, "date"),
        (1, "roster"),
        (3, "variant"),
        (3, "glued_result"),
        (4, "null_move"),
        (4, "result"),
    ] {
        assert!(kinds.contains(&want), "{want:?} in {kinds:?}");
    }
    let date = c.repairs.iter().find(|r| r.1 == "date").expect("date");
    assert_eq!((date.2.as_str(), date.3.as_str()), ("[Date \"2024-01-15\"]", "[Date \"2024.01.15\"]"));
    let san = c.repairs.iter().find(|r| r.1 == "san").expect("san");
    assert_eq!((san.2.as_str(), san.3.as_str()), ("e2e4", "e4"));
    assert_eq!(c.rejects, "[Event \"illegal\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n");
    assert_eq!(c.stats.games, 4);
}

/// SetUp "1" goes with a FEN: added where a FEN has none, dropped where there is no FEN.
#[test]
fn the_setup_tag_follows_the_fen() {
    let c = clean(
        "[Event \"no fen\"]\n[SetUp \"1\"]\n\n1. e4 *\n\n[Event \"zero\"]\n[SetUp \"0\"]\n\n1. e4 *\n\n\
         [Event \"fen\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. O-O *\n",
    );
    let games: Vec<&str> = c.out.split("\n\n[Event").collect();
    assert!(!games[0].contains("SetUp"), "{}", c.out);
    assert!(games[1].contains("[SetUp \"0\"]"), "{}", c.out);
    assert!(games[2].contains("[SetUp \"1\"]"), "{}", c.out);
    let setup: Vec<(u64, &str, &str)> =
        c.repairs.iter().filter(|r| r.1 == "setup").map(|r| (r.0, r.2.as_str(), r.3.as_str())).collect();
    assert_eq!(setup, [(1, "[SetUp \"1\"]", ""), (3, "", "[SetUp \"1\"]")]);
    let again = clean(&c.out).repairs;
    assert!(again.is_empty(), "the output cleans to itself: {again:?}");
}

/// A tag named twice is written once, its first value (the one the replay and the filters
/// read), the other logged as read.
#[test]
fn a_tag_named_twice_is_written_once_and_the_other_logged() {
    let c = clean("[Event \"d\"]\n[White \"A\"]\n[Black \"B\"]\n[White \"Z\"]\n[Result \"*\"]\n\n1. e4 *\n");
    assert_eq!(c.out.matches("[White ").count(), 1, "{}", c.out);
    assert!(c.out.contains("[White \"A\"]"), "{}", c.out);
    let tags: Vec<(&str, &str)> =
        c.repairs.iter().filter(|r| r.1 == "tag").map(|r| (r.2.as_str(), r.3.as_str())).collect();
    assert_eq!(tags, [("[White \"Z\"]", "")]);
    let again = clean(&c.out).repairs;
    assert!(again.is_empty(), "the output cleans to itself: {again:?}");
}

/// Shredder-FEN castling rights (`HAha`) are read and written as X-FEN, a repair logged; X-FEN
/// stays as it is.
#[test]
fn shredder_fen_castling_is_written_as_x_fen() {
    let c = clean(
        "[Event \"s\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
         [FEN \"rnnkrbbq/pppppppp/8/8/8/8/PPPPPPPP/RNNKRBBQ w EAea - 0 1\"]\n\n1. e4 *\n\n\
         [Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
         [FEN \"rnnkrbbq/pppppppp/8/8/8/8/PPPPPPPP/RNNKRBBQ w KQkq - 0 1\"]\n\n1. e4 *\n",
    );
    assert_eq!(
        c.out.matches("[FEN \"rnnkrbbq/pppppppp/8/8/8/8/PPPPPPPP/RNNKRBBQ w KQkq - 0 1\"]").count(),
        2,
        "{}",
        c.out
    );
    let fen: Vec<(u64, &str)> =
        c.repairs.iter().filter(|r| r.1 == "fen").map(|r| (r.0, r.2.as_str())).collect();
    assert_eq!(fen, [(1, "rnnkrbbq/pppppppp/8/8/8/8/PPPPPPPP/RNNKRBBQ w EAea - 0 1")]);
    let again = clean(&c.out).repairs;
    assert!(again.is_empty(), "the output cleans to itself: {again:?}");
}

/// Tag values and comments that are not UTF-8 are written as their Windows-1252 reading, the
/// rest as it stands, with one `encoding` repair a game: the first such tag value, else the
/// first such comment written; a game that writes none has none.
#[test]
fn text_not_utf8_is_written_as_windows_1252_with_one_repair_a_game() {
    let pgn: &[u8] = b"[Event \"Caf\xe9\"]\n[White \"Dvo\xc5\x99\xc3\xa1k\"]\n[Black \"Ren\xe9\"]\n\n\
        1. e4 { Kasparov\x92s } e5 (1... c5 { 20\x85Qe7 }) ; na\xefve\n2. Nf3 *\n\n\
        [Event \"comments\"]\n\n1. d4 { caf\xc3\xa9 } d5 ( 1... Nf6 { \xe9l\xe8ve } ) { move\x97which } *\n\n\
        [Event \"stripped\"]\n\n1. c4 *\n";
    let c = clean(pgn);
    assert!(c.out.starts_with("[Event \"Café\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"Dvořák\"]\n[Black \"René\"]\n"), "{}", c.out);
    assert!(
        c.out.contains("1. e4 { Kasparov’s } 1... e5 (1... c5 { 20…Qe7 }) { naïve } 2. Nf3 *"),
        "{}",
        c.out
    );
    assert!(c.out.contains("1. d4 { café } 1... d5 (1... Nf6 { élève }) { move—which } *"), "{}", c.out);
    let encodings: Vec<_> = c.repairs.iter().filter(|r| r.1 == "encoding").collect();
    assert_eq!(
        encodings,
        [
            &(1, "encoding", "Caf\\xe9".to_string(), "Café".to_string()),
            &(2, "encoding", "\\xe9l\\xe8ve".to_string(), "élève".to_string())
        ]
    );
    // Comments stripped are not written: game 2 has nothing to repair, game 1 its tags.
    let opts =
        CleanOptions { strip: Strip { comments: true, ..Strip::default() }, ..CleanOptions::default() };
    let c = clean_with(pgn, &opts, 1, 1 << 20);
    let encodings: Vec<u64> = c.repairs.iter().filter(|r| r.1 == "encoding").map(|r| r.0).collect();
    assert_eq!(encodings, [1]);
}

/// The export format has no tab or other control character inside a tag's string: each is
/// written as a space, one `tag` repair a tag showing it as read (a byte Windows-1252 leaves
/// undefined, 0x81, reads as the control U+0081).
#[test]
fn control_characters_in_tags_are_written_as_spaces() {
    let pgn: &[u8] = b"[Event \"e\"]\n[White \"A\tB\"]\n[Annotator \"x\x01y\x81z\"]\n\n1. e4 *\n";
    let c = clean(pgn);
    assert!(c.out.contains("[White \"A B\"]\n") && c.out.contains("[Annotator \"x y z\"]\n"), "{}", c.out);
    let tags: Vec<_> =
        c.repairs.iter().filter(|r| r.1 == "tag").map(|r| (r.2.as_str(), r.3.as_str())).collect();
    assert_eq!(
        tags,
        [
            ("[White \"A\tB\"]", "[White \"A B\"]"),
            ("[Annotator \"x\u{1}y\u{81}z\"]", "[Annotator \"x y z\"]")
        ]
    );
}

/// A variation with no move is left out, one `syntax` repair each (pgn-extract refuses `()`);
/// one holding a comment is kept.
#[test]
fn empty_variations_are_left_out() {
    let c = clean("[Event \"x\"]\n\n1. e4 ( ) e5 ( {c} ) 2. Nf3 (2. Nc3 ()) *\n");
    assert!(c.out.ends_with("1. e4 e5 ({ c }) 2. Nf3 (2. Nc3) *\n\n"), "{}", c.out);
    let syntax: Vec<_> = c.befores("syntax");
    assert_eq!(syntax, ["an empty variation ()"; 2]);
}

/// A `}` in a `;` comment cannot stand in the `{}` comment it is written as: left out, one
/// `syntax` repair showing the comment as read.
#[test]
fn a_brace_in_a_line_comment_is_left_out_and_logged() {
    let c = clean("[Event \"x\"]\n\n1. e4 e5 ; text with } brace\n2. Nf3 *\n");
    assert!(c.out.contains("1. e4 e5 { text with brace } 2. Nf3 *"), "{}", c.out);
    let syntax: Vec<_> =
        c.repairs.iter().filter(|r| r.1 == "syntax").map(|r| (r.2.as_str(), r.3.as_str())).collect();
    assert_eq!(syntax, [("text with } brace", "text with brace")]);
}

/// A tag name outside the standard's letters, digits and `_` (from a letter or digit) is left
/// out, a `tag` repair showing it as read: pgn-extract reads `[Ev-ent "x"]` as the end of a game.
#[test]
fn tags_named_outside_the_standard_are_left_out() {
    let c =
        clean("[Event \"e\"]\n[Ev-ent \"x\"]\n[_Foo \"y\"]\n[White_Title \"GM\"]\n[123 \"z\"]\n\n1. e4 *\n");
    assert!(c.out.contains("[White_Title \"GM\"]\n[123 \"z\"]\n"), "{}", c.out);
    assert!(!c.out.contains("Ev-ent") && !c.out.contains("_Foo"), "{}", c.out);
    let tags: Vec<_> = c.befores("tag");
    assert_eq!(tags, ["[Ev-ent \"x\"]", "[_Foo \"y\"]"]);
}

/// A NAG first in a variation annotates no move (pgn-extract refuses `($42 4. Bc4)`): left
/// out, a `syntax` repair; one after the variation's move is kept.
#[test]
fn a_nag_before_a_variations_first_move_is_left_out() {
    let c = clean("[Event \"x\"]\n\n1. e4 e5 2. Nf3 ($42 2. Bc4 $5 Nf6) Nc6 *\n");
    assert!(c.out.contains("2. Nf3 (2. Bc4 $5 2... Nf6) 2... Nc6 *"), "{}", c.out);
    let syntax: Vec<_> = c.befores("syntax");
    assert_eq!(syntax, ["$42 before the first move of a variation"]);
}

#[test]
fn the_output_is_the_same_at_any_thread_count_and_chunk_size() {
    let many = GAMES.repeat(40);
    let one = clean_with(&many, &CleanOptions::default(), 1, 1 << 20);
    assert_eq!(one.fates.len(), 160);
    for (threads, chunk) in [(2, 64), (2, 1000), (3, 333), (1, 1)] {
        assert_eq!(
            clean_with(&many, &CleanOptions::default(), threads, chunk),
            one,
            "threads {threads} chunk {chunk}"
        );
    }
}

#[test]
fn a_clean_file_cleans_to_itself() {
    let once = clean(GAMES).out;
    let twice = clean(&once);
    assert_eq!(twice.out, once);
    assert!(twice.repairs.is_empty(), "{:?}", twice.repairs);
}

#[test]
fn broken_games_are_kept_as_their_prefix_on_request() {
    let opts = CleanOptions { keep_broken: true, ..CleanOptions::default() };
    let c = clean_with(GAMES, &opts, 1, 1 << 20);
    assert_eq!(c.fates[1].1, "broken");
    assert!(c.out.contains("1. e4 e5 { pgnkit: illegal_move: illegal SAN \"Ke3\" in position"), "{}", c.out);
    assert!(c.rejects.is_empty());
    // What the prefix leaves out is kept, as read: from the error to the game's end.
    assert_eq!(c.left_out, ["Ke3 *"]);
    let c = clean_with(
        "[Event \"a\"]\n\n1. e4 e5 2. Nf3 {open\n2... Nc6 *\n\n[Event \"b\"]\n\n1. d4 *\n",
        &opts,
        1,
        1 << 20,
    );
    assert_eq!(c.fates, [(1, "broken".to_string()), (2, "written".to_string())]);
    assert_eq!(c.left_out, ["{open\n2... Nc6 *"]);
}

/// A game kept broken is its valid prefix to the filters on moves: `2. Ke3` ends "illegal"
/// after two plies, so a minimum of three leaves it out and a maximum of two keeps it.
#[test]
fn filters_judge_a_game_kept_broken_by_its_prefix() {
    let illegal = "[Event \"illegal\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 Nc6 3. Nf3 *\n";
    let select = |min_ply, max_ply| Selection { min_ply, max_ply, ..Selection::default() };
    for (sel, fate) in [
        (select(Some(3), None), "filtered min-ply 3"),
        (select(Some(2), None), "broken"),
        (select(None, Some(2)), "broken"),
        (select(None, Some(1)), "filtered max-ply 1"),
    ] {
        let opts = CleanOptions { keep_broken: true, select: sel.clone(), ..CleanOptions::default() };
        assert_eq!(clean_with(illegal, &opts, 1, 1 << 20).fates, [(1, fate.to_string())], "{sel:?}");
        // Not kept, it is rejected whatever the filters say.
        let opts = CleanOptions { select: sel, ..CleanOptions::default() };
        assert_eq!(clean_with(illegal, &opts, 1, 1 << 20).fates, [(1, "rejected illegal_move".to_string())]);
    }
}

/// An illegal, ambiguous or unreadable move in a variation stops that line, not the game: the
/// variation is written up to it, the rest (its own variations too) logged as read.
#[test]
fn a_bad_move_in_a_variation_cuts_that_variation_only() {
    let pgn = "[Event \"cut\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 (2. Bc4 Nf6 3. Nf9 {why} (3. d3) Nc6) \
               (2. f4 $1 (2. Nc3 Nd2)) 2... Nc6 {main} 3. Bb5 a6 1-0\n\n\
               [Event \"first\"]\n[Result \"*\"]\n\n1. d4 (1. Kd3 {c} e5) 1... d5 (1... Kd7 (1... Ke7)) *\n";
    let c = clean(pgn);
    assert_eq!(c.fates, [(1, "written".to_string()), (2, "written".to_string())]);
    let one_line = c.out.replace('\n', " ");
    assert!(
        one_line
            .contains("  1. e4 e5 2. Nf3 (2. Bc4 Nf6) (2. f4 $1 (2. Nc3)) 2... Nc6 { main } 3. Bb5 a6 1-0 "),
        "{}",
        c.out
    );
    // A variation cut at its first move is left out whole, and the next move needs no number.
    assert!(c.out.contains("\n\n1. d4 d5 *\n"), "{}", c.out);
    let cuts: Vec<(u64, &str)> =
        c.repairs.iter().filter(|r| r.1 == "variation").map(|r| (r.0, r.2.as_str())).collect();
    // The rest from the bad move; all of the variation when none of its moves was replayed.
    assert_eq!(
        cuts,
        [(1, "Nf9 {why} (3. d3) Nc6"), (1, "Nd2"), (2, "(1. Kd3 {c} e5)"), (2, "(1... Kd7 (1... Ke7))")]
    );
    assert!(c.repairs.iter().filter(|r| r.1 == "variation").all(|r| r.3.is_empty()));
    assert!(c.rejects.is_empty());
    // The written game is clean: read again, nothing is repaired.
    let again = clean(&c.out);
    assert_eq!(again.out, c.out);
    assert!(again.repairs.is_empty(), "{:?}", again.repairs);
    // A variation with no move before it to replace is left out whole.
    let none = clean("[Event \"none\"]\n\n(1. d4 d5) 1. e4 e5 *\n");
    assert_eq!(none.fates, [(1, "written".to_string())]);
    assert!(none.out.contains("\n\n1. e4 e5 *\n"), "{}", none.out);
    let cuts: Vec<&str> = none.befores("variation");
    assert_eq!(cuts, ["(1. d4 d5)"]);
    // A variation left empty by a cut inside it goes too, as deep as they nest.
    let nested = clean("[Event \"n\"]\n\n1. e4 e5 (1... c5 (((1... Nc6))) 2. Nf3) (((1... d5))) 2. Nf3 *\n");
    assert!(nested.out.contains("\n\n1. e4 e5 (1... c5 2. Nf3) 2. Nf3 *\n"), "{}", nested.out);
    let cuts: Vec<&str> = nested.befores("variation");
    assert_eq!(cuts, ["((1... Nc6))", "((1... d5))"]);
    // Under --keep-broken the mainline stays whole; a mainline error after a cut still breaks it.
    let opts = CleanOptions { keep_broken: true, ..CleanOptions::default() };
    assert_eq!(clean_with(pgn, &opts, 1, 1 << 20).out, c.out);
    let c = clean("[Event \"both\"]\n\n1. e4 (1. Ke3) 1... e5 2. Ke3 *\n");
    assert_eq!(c.fates, [(1, "rejected illegal_move".to_string())]);
    let c = clean_with("[Event \"both\"]\n\n1. e4 (1. Ke3 (1. d4)) 1... e5 2. Ke3 *\n", &opts, 1, 1 << 20);
    assert!(c.out.contains("\n\n1. e4 e5 { pgnkit: illegal_move: illegal SAN \"Ke3\""), "{}", c.out);
}

/// Punctuation with no meaning in movetext is skipped with a warning: the game is written, and
/// what was left out is logged.
#[test]
fn stray_punctuation_is_left_out_and_logged() {
    let c = clean("[Event \"s\"]\n\n1. e4 \\$14 e5 2. Nf3, } Nc6 *\n");
    assert_eq!(c.fates, [(1, "written".to_string())]);
    assert!(c.out.ends_with("\n\n1. e4 $14 1... e5 2. Nf3 Nc6 *\n\n"), "{}", c.out);
    let skipped: Vec<&str> = c.befores("syntax");
    assert_eq!(
        skipped,
        ["stray \"\\\\\" in movetext; skipped", "stray \",\" in movetext; skipped", "'}' outside a comment"]
    );
}

/// A NAG past `$255` and a word of annotation after a move (`TN`, `mat`) are skipped with a
/// warning, as python-chess skips them: the game is written, what was left out logged. A move
/// cut short and prose before the first move stay errors.
#[test]
fn nags_past_255_and_annotation_words_are_left_out_and_logged() {
    let c = clean(
        "[Event \"s\"]\n\n1. e4 $256 e5 2. Nf3 TN Nc6 3. Bb5 mat (3. Bc4 Diagram Bc5) a6 $ 4. La4 Sehr *\n",
    );
    assert_eq!(c.fates, [(1, "written".to_string())]);
    assert!(c.out.ends_with("\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 (3. Bc4 Bc5) 3... a6 4. Ba4 *\n\n"), "{}", c.out);
    let skipped: Vec<&str> = c.befores("syntax");
    assert_eq!(
        skipped,
        [
            "NAG \"$256\" not in $0..$255; skipped",
            "annotation word \"TN\" between moves; skipped",
            "annotation word \"mat\" between moves; skipped",
            "annotation word \"Diagram\" between moves; skipped",
            "NAG \"$\" not in $0..$255; skipped",
            "annotation word \"Sehr\" between moves; skipped",
        ]
    );
    for broken in
        ["1. e4 e5 2. Nf *", "1. e4 e5 2. Sf *", "1. e4 e5 2. \u{2658}f *", "1. e4 exd *", "Notes 1. e4 *"]
    {
        let c = clean(format!("[Event \"s\"]\n\n{broken}\n"));
        assert_eq!(c.fates, [(1, "rejected invalid_move".to_string())], "{broken}");
    }
}

/// A rejected game is kept as read with a blank line after it in its own line ends: CR alone
/// (old Mac files), CRLF or LF.
#[test]
fn rejects_end_in_the_games_own_line_ends() {
    for end in ["\r", "\r\n", "\n"] {
        let game = format!("[Event \"A\"]{end}[Result \"*\"]{end}{end}1. e4 Ke9 *");
        let c = clean(format!("{game}{end}{end}"));
        assert_eq!(c.rejects, format!("{game}{end}{end}"), "{end:?}");
    }
}

/// A no-break space between moves (text pasted from a web page: U+00A0 in UTF-8 or
/// Windows-1252) reads as a space, and a DOS end-of-file mark as nothing, as python-chess and
/// pgn-extract read them; each space is a `syntax` repair.
#[test]
fn no_break_spaces_and_a_dos_end_mark_are_blanks() {
    let c = clean("[Event \"s\"]\n\n1.\u{a0}e4 e5\u{a0}2.\u{a0}Nf3 Nc6\u{a0}1-0\r\n\r\n\u{1a}");
    assert_eq!(c.fates, [(1, "written".to_string())]);
    assert!(c.out.ends_with("\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n"), "{}", c.out);
    assert_eq!(c.befores("syntax").len(), 3, "{:?}", c.repairs);
    assert!(c.befores("result_spelling").is_empty(), "{:?}", c.repairs);
    let c = clean(b"[Event \"s\"]\n\n1.\xa0e4 e5\xa02.\xa0Nf3 *\n\x1a\x1a");
    assert_eq!(c.fates, [(1, "written".to_string())]);
    assert!(c.out.ends_with("\n\n1. e4 e5 2. Nf3 *\n\n"), "{}", c.out);
}

/// A FEN tag is written in export form: one space between fields, the fields left out written as
/// they were read. A standard game whose FEN gives castling rights only Chess960 has is named
/// Chess960, which other readers need to castle in it.
#[test]
fn fen_tags_are_written_in_export_form_and_chess960_named() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let c960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR";
    let c = clean(format!(
        "[Event \"a\"]\n[SetUp \"1\"]\n[FEN \"{start}  w KQkq -\"]\n\n1. e4 *\n\n\
         [Event \"b\"]\n[SetUp \"1\"]\n[FEN \"{c960} w HFhf - 2 9\"]\n\n9. g3 *\n\n\
         [Event \"c\"]\n[Variant \"Standard\"]\n[SetUp \"1\"]\n[FEN \"{c960} w KQkq - 2 9\"]\n\n9. g3 *\n\n\
         [Event \"d\"]\n[SetUp \"1\"]\n[FEN \"{start} W KQkq - 00 01\"]\n\n1. e4 *\n"
    ));
    assert_eq!(c.fates.iter().filter(|f| f.1 == "written").count(), 4, "{:?}", c.fates);
    assert_eq!(c.out.matches(&format!("[FEN \"{start} w KQkq - 0 1\"]")).count(), 2, "{}", c.out);
    assert_eq!(c.out.matches(&format!("[FEN \"{c960} w KQkq - 2 9\"]")).count(), 2, "{}", c.out);
    assert_eq!(c.out.matches("[Variant \"Chess960\"]").count(), 2, "{}", c.out);
    let repairs: Vec<(u64, &str, &str, &str)> = c
        .repairs
        .iter()
        .filter(|r| r.1 == "fen" || r.1 == "variant")
        .map(|r| (r.0, r.1, r.2.as_str(), r.3.as_str()))
        .collect();
    let fen = |s: &str| s.to_string();
    let (a, b) = (fen(&format!("{start}  w KQkq -")), fen(&format!("{c960} w HFhf - 2 9")));
    assert_eq!(
        repairs,
        [
            (1, "fen", a.as_str(), format!("{start} w KQkq - 0 1").as_str()),
            (2, "fen", b.as_str(), format!("{c960} w KQkq - 2 9").as_str()),
            (2, "variant", "", "Chess960"),
            (3, "variant", "Standard", "Chess960"),
            (4, "fen", format!("{start} W KQkq - 00 01").as_str(), format!("{start} w KQkq - 0 1").as_str()),
        ]
    );
    let again = clean(&c.out).repairs;
    assert!(again.is_empty(), "the output cleans to itself: {again:?}");
}

#[test]
fn null_moves_can_be_rejected() {
    let opts = CleanOptions { reject_null_moves: true, ..CleanOptions::default() };
    let c = clean_with(GAMES, &opts, 1, 1 << 20);
    assert_eq!(c.fates[3].1, "rejected null_move");
}

#[test]
fn duplicates_name_the_first_game_and_transpositions_are_not_duplicates() {
    let pgn = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 *\n\n[Event \"b\"]\n\n1. e4 {x} e5 $1 2. Nf3 1-0\n\n\
        [Event \"c\"]\n\n1. Nf3 e5 2. e4 *\n\n[Event \"d\"]\n\n1. e4 e5 2. Ke3 *\n\n[Event \"e\"]\n\n1. Nf3 e5 2. e4 *\n";
    for (rule, fates) in [
        (
            Rule::Moves,
            [
                "written",
                "duplicate of 1 (moves)",
                "written",
                "rejected illegal_move",
                "duplicate of 3 (moves)",
            ],
        ),
        (Rule::Game, ["written", "written", "written", "rejected illegal_move", "duplicate of 3 (game)"]),
    ] {
        let opts = CleanOptions { dedup: Some(rule), ..CleanOptions::default() };
        let c = clean_with(pgn, &opts, 2, 20);
        assert_eq!(c.fates.iter().map(|f| f.1.as_str()).collect::<Vec<_>>(), fates, "{rule:?}");
    }
}

#[test]
fn stripped_and_tag_options() {
    let opts = CleanOptions {
        roster_only: true,
        add_ply_count: true,
        strip: crate::pipeline::replay::export::Strip { comments: true, ..Default::default() },
        line_width: 20,
        ..CleanOptions::default()
    };
    let c = clean_with(
        "[Event \"x\"]\n[WhiteElo \"2700\"]\n\n1. e4 {c} e5 2. Nf3 Nc6 3. Bb5 a6 *\n",
        &opts,
        1,
        1 << 20,
    );
    assert!(c.out.ends_with("[PlyCount \"6\"]\n\n1. e4 e5 2. Nf3 Nc6\n3. Bb5 a6 *\n\n"), "{}", c.out);
    assert!(!c.out.contains("WhiteElo"));
    // The roster and the setup tags are written whatever `drop_tags` says: without its FEN the
    // game below would read `O-O-O` from the standard position.
    let drop = |tags: &[&str]| CleanOptions {
        drop_tags: tags.iter().map(|t| t.to_string()).collect(),
        ..CleanOptions::default()
    };
    let setup = "[Event \"e\"]\n[Annotator \"a\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\"]\n\n\
        1. O-O-O Kf7 *\n";
    let c = clean_with(setup, &drop(&["FEN", "SetUp", "Event", "Annotator"]), 1, 1 << 20);
    assert!(
        c.out.contains("[Event \"e\"]\n")
            && c.out.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\"]")
    );
    assert!(!c.out.contains("Annotator"), "{}", c.out);
    assert_eq!(c.fates, [(1, "written".to_string())]);
}

/// `--tags roster` with `--eco-tags` writes the opening's tags as it writes `--add-tags`'
/// PlyCount: asked for by name, not left out by the roster; `--drop-tags` still leaves one out.
#[test]
fn roster_only_writes_the_eco_tags_asked_for() {
    let pgn = "[Event \"x\"]\n[ECO \"B20\"]\n[WhiteElo \"2700\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Nc3 *\n";
    let opts = |eco_tags, drop: &[&str]| CleanOptions {
        roster_only: true,
        eco_tags: Some(eco_tags),
        drop_tags: drop.iter().map(|t| t.to_string()).collect(),
        ..CleanOptions::default()
    };
    let c = clean_with(pgn, &opts(EcoTags::All, &[]), 1, 1 << 20);
    assert!(
        c.out.contains("[Result \"*\"]\n[ECO \"C46\"]\n[Opening \"Three Knights Opening\"]\n\n1. e4"),
        "{}",
        c.out
    );
    assert!(!c.out.contains("WhiteElo"), "{}", c.out);
    // `missing` keeps the game's own code, and names no opening beside another code.
    let c = clean_with(pgn, &opts(EcoTags::Missing, &[]), 1, 1 << 20);
    assert!(c.out.contains("[Result \"*\"]\n[ECO \"B20\"]\n\n1. e4"), "{}", c.out);
    let c = clean_with(pgn, &opts(EcoTags::All, &["Opening"]), 1, 1 << 20);
    assert!(c.out.contains("[ECO \"C46\"]\n\n1. e4"), "{}", c.out);
}

/// The counts the writer keeps add up: every game read is written, rejected, filtered or a
/// duplicate.
#[test]
fn the_ledger_adds_up() {
    use crate::jobs::run::Summary;
    let job = Clean::new(CleanOptions { dedup: Some(Rule::Game), ..CleanOptions::default() });
    let mut writer = CleanWriter::new(
        &job,
        Outputs {
            out: crate::io::Output::create("/dev/null".as_ref(), &Default::default()).expect("null"),
            rejects: None,
            duplicates: None,
            report: None,
        },
        std::io::sink(),
    );
    let (workers, pipeline) = (Workers::default(), Options { threads: 2, chunk_size: 100 });
    let run_ =
        Run { name: &"t.pgn".into(), job: &job, workers: &workers, opts: &pipeline, observer: &NoProgress };
    let mut stats = Stats::default();
    writer.begin_input(&"t.pgn".into()).expect("begin");
    let pgn = GAMES.repeat(5);
    run(Input::Slice(pgn.as_ref()), &run_, |o| {
        stats.merge(&o.stats);
        writer.release(o.records, &mut stats)
    })
    .expect("run");
    let read = stats.games;
    assert_eq!(read, 20);
    assert_eq!(
        stats.get(Counter::Written) + stats.get(Counter::Rejected) + stats.get(Counter::Duplicates),
        read,
        "{stats:?}"
    );
    assert_eq!(stats.get(Counter::Duplicates), 12);
    let mut summary = Summary { stats, inputs: vec![], stopped: None, elapsed: std::time::Duration::ZERO };
    writer.finish(&mut summary).expect("finish");
}

/// Chunks filled in buffers the writer handed back (two threads, chunks small enough that every
/// buffer is used many times) give the same files as one chunk in new buffers.
#[test]
fn buffers_handed_back_change_nothing() {
    use crate::jobs::run::Summary;
    let dir = std::env::temp_dir().join(format!("pgnkit-clean-spares-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let pgn = GAMES.repeat(60);
    let opts = CleanOptions { dedup: Some(Rule::Game), keep_duplicates: true, ..CleanOptions::default() };
    let mut files = vec![];
    for (threads, chunk_size) in [(1, 1 << 20), (2, 300)] {
        let job = Clean::new(opts.clone());
        let path = |name: &str| dir.join(format!("{name}-{threads}.pgn"));
        let create =
            |name: &str| crate::io::Output::create(&path(name), &Default::default()).expect("create");
        let outputs = Outputs {
            out: create("out"),
            rejects: Some(create("rejects")),
            duplicates: Some(create("dups")),
            report: None,
        };
        let mut writer = CleanWriter::new(&job, outputs, std::io::sink());
        let (workers, pipeline) = (Workers::default(), Options { threads, chunk_size });
        let run_ = Run {
            name: &"t.pgn".into(),
            job: &job,
            workers: &workers,
            opts: &pipeline,
            observer: &NoProgress,
        };
        let mut stats = Stats::default();
        writer.begin_input(&"t.pgn".into()).expect("begin");
        run(Input::Slice(pgn.as_ref()), &run_, |o| {
            stats.merge(&o.stats);
            writer.release(o.records, &mut stats)
        })
        .expect("run");
        let mut summary =
            Summary { stats, inputs: vec![], stopped: None, elapsed: std::time::Duration::ZERO };
        writer.finish(&mut summary).expect("finish");
        if threads == 2 {
            assert!(job.spares.kept() > 0, "buffers were handed back");
        }
        let read = |name: &str| std::fs::read(path(name)).expect("read back");
        files.push([read("out"), read("rejects"), read("dups")]);
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(files[0].iter().all(|f| !f.is_empty()), "every file has games");
    assert_eq!(files[0], files[1]);
    assert_eq!(files[1][0], clean_with(&pgn, &opts, 1, 1 << 20).out.into_bytes());
}
