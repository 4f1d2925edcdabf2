//! `clean`'s tag options and results: `--add-tags`, `--drop-tags`, `--eco-tags`, `--fix-results`,
//! results written oddly, and `--result` judged on the result written.

use std::path::Path;

use crate::clean::{path, read_report, records};
use crate::util::{fixture, run, run_with_stdin, stderr, stdout, temp_dir};

/// The tag options as `clean --help` spells them: `--add-tags PlyCount` (the tag's own name, or
/// `ply-count`) adds the mainline's plies, `--tags roster` keeps the roster only.
#[test]
fn add_tags_takes_the_tag_name_as_help_shows_it() {
    let dir = temp_dir("clean-add-tags");
    let input = dir.join("in.pgn");
    std::fs::write(&input, "[Event \"e\"]\n[WhiteElo \"2000\"]\n\n1. e4 e5 2. Nf3 1-0\n\n").expect("write");
    for name in ["PlyCount", "ply-count"] {
        let out = dir.join(format!("{name}.pgn"));
        let o = run(&["clean", "-q", "--tags", "roster", "--add-tags", name, path(&input), "-o", path(&out)]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let text = std::fs::read_to_string(&out).expect("read");
        assert!(text.contains("[PlyCount \"3\"]\n"), "{name}: {text}");
        assert!(!text.contains("WhiteElo"), "{name}: {text}");
    }
}

#[test]
fn fix_results_writes_the_result_that_says_more() {
    let dir = temp_dir("clean-fix-results");
    let input = dir.join("results.pgn");
    // Tag and token disagree (two finished results; `*` against a finished one, each way), and a
    // mate on the board that both contradict.
    std::fs::write(
        &input,
        "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 0-1\n\n\
         [Event \"b\"]\n[Result \"*\"]\n\n1. e4 e5 1-0\n\n\
         [Event \"c\"]\n[Result \"1-0\"]\n\n1. e4 e5 *\n\n\
         [Event \"d\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n",
    )
    .expect("write");
    let results = |fix: bool| {
        let (out, report) = (dir.join("out.pgn"), dir.join("report.jsonl"));
        let mut args = vec!["clean", "-q", path(&input), "-o", path(&out), "--report", path(&report)];
        args.extend(fix.then_some("--fix-results"));
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = std::fs::read_to_string(&out).expect("read");
        let games: Vec<(String, String)> = text
            .split("\n\n[")
            .map(|g| {
                let tag =
                    g.split("[Result \"").nth(1).and_then(|r| r.split('"').next()).expect("a Result tag");
                let token = g.split_ascii_whitespace().last().expect("a token");
                (tag.to_string(), token.to_string())
            })
            .collect();
        let report = read_report(&report);
        let repairs: Vec<(u64, String)> = records(&report, "repair")
            .filter(|r| r["kind"] == "result")
            .map(|r| (r["game"].as_u64().expect("game"), r["before"].as_str().expect("before").to_string()))
            .collect();
        (games, repairs)
    };
    let same = |r: &str| (r.to_string(), r.to_string());
    let (kept, repairs) = results(false);
    // A `*` tag takes the finished token's value, as python-chess reads it.
    assert_eq!(kept, [same("1-0"), same("1-0"), same("1-0"), same("0-1")]);
    let (fixed, fixed_repairs) = results(true);
    assert_eq!(fixed, [same("0-1"), same("1-0"), same("1-0"), same("0-1")]);
    // Each game's repair names both values as read, with or without the option.
    let expected = [
        (1, "tag 1-0, token 0-1"),
        (2, "tag *, token 1-0"),
        (3, "tag 1-0, token *"),
        (4, "tag 1-0, token 1-0"),
    ]
    .map(|(g, b)| (g, b.to_string()));
    assert_eq!(repairs, expected);
    assert_eq!(fixed_repairs, expected);
}

/// A result written oddly, in the tag or as the token, is read as the result it spells; a tag
/// that spells none is shown as read; a game kept broken logs what its tag and token said.
#[test]
fn results_written_oddly_are_read_and_none_is_lost() {
    let dir = temp_dir("clean-odd-results");
    let input = dir.join("results.pgn");
    std::fs::write(
        &input,
        "[Event \"a\"]\n[Result \"1:0\"]\n\n1. e4 e5 1-0\n\n\
         [Event \"b\"]\n[Result \"1/2-1/2 \"]\n\n1. e4 e5 1/2\n\n\
         [Event \"c\"]\n[Result \"draw\"]\n\n1. e4 e5 0:1\n\n\
         [Event \"d\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nf9 1-0\n\n",
    )
    .expect("write");
    let (out, report) = (dir.join("out.pgn"), dir.join("report.jsonl"));
    let o = run(&["clean", "-q", "--keep-broken", path(&input), "-o", path(&out), "--report", path(&report)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).expect("read");
    let results: Vec<&str> =
        text.split("[Result \"").skip(1).map(|r| r.split('"').next().expect("value")).collect();
    assert_eq!(results, ["1-0", "1/2-1/2", "0-1", "*"], "{text}");
    let report = read_report(&report);
    let repairs: Vec<(u64, &str, &str)> = records(&report, "repair")
        .filter(|r| r["kind"] == "result" || r["kind"] == "result_spelling")
        .map(|r| {
            (
                r["game"].as_u64().expect("game"),
                r["kind"].as_str().expect("kind"),
                r["before"].as_str().expect("before"),
            )
        })
        .collect();
    assert_eq!(
        repairs,
        [
            (1, "result_spelling", "1:0"),
            // The token's as it is read, the tag's when the game ends.
            (2, "result_spelling", "1/2"),
            (2, "result_spelling", "1/2-1/2 "),
            (3, "result_spelling", "0:1"),
            (3, "result", "tag draw, token 0-1"),
            (4, "result", "tag 1-0, token 1-0"),
        ]
    );
    // `--result` reads the tag as the game is written (game d, 1-0 too, is rejected: exit 1).
    let o = run(&["clean", "-q", "--result", "1-0", path(&input), "-o", path(&out)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).expect("read");
    assert!(text.contains("[Event \"a\"]") && !text.contains("[Event \"b\"]"), "{text}");
}

/// `--drop-tags` cannot leave out a tag every exported game has or one that says how its moves
/// are read: a usage error naming it, before any work.
#[test]
fn drop_tags_refuses_the_roster_and_the_setup() {
    let input = fixture("pgn/bad_games.pgn");
    for tag in ["Event", "Result", "FEN", "SetUp", "Variant"] {
        let list = format!("Annotator,{tag}");
        let o = run(&["clean", "--drop-tags", &list, path(&input), "-o", "/dev/null"]);
        assert_eq!(o.status.code(), Some(2), "{tag}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("--drop-tags {tag}:")), "{}", stderr(&o));
    }
    let o = run(&["clean", "-q", "--drop-tags", "Annotator,PlyCount", path(&input), "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(1), "bad_games has games rejected: {}", stderr(&o));
}

/// `clean --eco-tags MODE INPUT` into `dir`: the output, and the `tag` repairs as (before, after).
fn clean_eco_tags(dir: &Path, input: &Path, mode: &str) -> (String, Vec<(String, String)>) {
    let (out, report) = (dir.join("out.pgn"), dir.join("report.jsonl"));
    let o = run(&["clean", "--eco-tags", mode, path(input), "-o", path(&out), "--report", path(&report)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = read_report(&report);
    let shown: Vec<(String, String)> = records(&report, "repair")
        .filter(|r| r["kind"] == "tag")
        .map(|r| (r["before"].as_str().expect("before").into(), r["after"].as_str().expect("after").into()))
        .collect();
    (std::fs::read_to_string(&out).expect("out"), shown)
}

/// `--eco-tags all` logs each ECO or Opening value it replaces (none it fills in for `?` or adds,
/// none it writes unchanged), and leaves the tags of a game the table names no opening for (a
/// Chess960 game); `--eco-tags missing` adds an Opening only beside the table's own code.
#[test]
fn eco_tags_log_the_values_they_replace() {
    let dir = temp_dir("clean-eco-replaced");
    let input = dir.join("eco.pgn");
    let game = |tags: &str, moves: &str| format!("[Event \"e\"]\n{tags}\n{moves} *\n\n");
    let sicilian = "1. e4 c5 2. Nf3 d6";
    let chess960 = "[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
                    [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n[ECO \"A00\"]\n";
    let text = [
        game("[Opening \"My Opening\"]\n", sicilian),
        game("[ECO \"C00\"]\n", sicilian),
        game("[ECO \"B50\"]\n[Opening \"?\"]\n", sicilian),
        game(chess960, "1. e4 e5"),
    ]
    .concat();
    std::fs::write(&input, text).expect("write");
    let games =
        |written: &str| -> Vec<String> { written.split("[Event ").skip(1).map(String::from).collect() };
    let (eco, opening) = ("[ECO \"B50\"]\n", "[Opening \"Sicilian Defense: Modern Variations\"]\n");

    let (written, shown) = clean_eco_tags(&dir, &input, "all");
    let written = games(&written);
    for g in &written[..3] {
        assert!(g.contains(eco) && g.contains(opening), "{g}");
    }
    assert!(written[3].contains("[ECO \"A00\"]\n") && !written[3].contains("[Opening "), "{}", written[3]);
    let replaced = |before: &str, after: &str| (before.to_string(), after.to_string());
    assert_eq!(
        shown,
        [replaced("[Opening \"My Opening\"]", opening.trim_end()), replaced("[ECO \"C00\"]", eco.trim_end())]
    );

    let (written, shown) = clean_eco_tags(&dir, &input, "missing");
    let written = games(&written);
    assert!(written[0].contains(eco) && written[0].contains("[Opening \"My Opening\"]\n"), "{}", written[0]);
    // Beside the French's code the table's Sicilian would name another opening.
    assert!(written[1].contains("[ECO \"C00\"]\n") && !written[1].contains("[Opening "), "{}", written[1]);
    assert!(written[2].contains(eco) && written[2].contains(opening), "{}", written[2]);
    assert!(written[3].contains("[ECO \"A00\"]\n") && !written[3].contains("[Opening "), "{}", written[3]);
    assert!(shown.is_empty(), "{shown:?}");
}

/// `--eco-tags all` names the opening as the lichess table does, its Opening holding the
/// variation: the game's Variation and SubVariation are left out, each a `tag` repair showing it
/// as read; `--eco-tags missing` keeps them.
#[test]
fn eco_tags_all_leaves_out_the_old_variation_tags() {
    let dir = temp_dir("clean-eco-variation");
    let input = dir.join("in.pgn");
    let tags = "[Event \"e\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[ECO \"E80\"]\n\
                [Opening \"King's Indian\"]\n[Variation \"Saemisch, 5...O-O\"]\n[SubVariation \"main\"]\n";
    std::fs::write(&input, format!("{tags}\n1. d4 Nf6 2. c4 g6 3. Nc3 Bg7 4. e4 d6 5. f3 O-O *\n"))
        .expect("write");
    let clean = |mode: &str| clean_eco_tags(&dir, &input, mode);
    let (written, shown) = clean("all");
    assert!(written.contains("[Opening \"King's Indian Defense: Sämisch Variation"), "{written}");
    assert!(!written.contains("Variation \"") && !written.contains("main"), "{written}");
    let left_out = |tag: &str| (tag.to_string(), String::new());
    let replaced = |before: &str, after: &str| (before.to_string(), after.to_string());
    assert_eq!(
        shown,
        [
            replaced("[ECO \"E80\"]", "[ECO \"E81\"]"),
            replaced(
                "[Opening \"King's Indian\"]",
                "[Opening \"King's Indian Defense: Sämisch Variation, Normal Defense\"]"
            ),
            left_out("[Variation \"Saemisch, 5...O-O\"]"),
            left_out("[SubVariation \"main\"]")
        ]
    );
    let (written, shown) = clean("missing");
    assert!(
        written.contains(
            "[Opening \"King's Indian\"]\n[Variation \"Saemisch, 5...O-O\"]\n[SubVariation \"main\"]\n"
        ),
        "{written}"
    );
    assert!(shown.is_empty(), "{shown:?}");
}

/// `--result` keeps the games written with that result: the board's (a mate), the token's
/// (`--fix-results`, or a tag that spells no result), the unfinished `*` of a broken game's
/// prefix (`--keep-broken`), not the tag as read.
#[test]
fn result_keeps_the_games_written_with_it() {
    let text = "[Event \"F\"]\n[Result \"1-0\"]\n\n1. e4 e5 0-1\n\n\
                [Event \"G\"]\n[Result \"?\"]\n\n1. e4 e5 1/2-1/2\n\n\
                [Event \"M\"]\n[Result \"*\"]\n[FEN \"7k/5Q2/6K1/8/8/8/8/8 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Qg7# *\n\n\
                [Event \"K\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Ke6 4. Bxc6 1-0\n";
    let kept = |args: &[&str]| {
        let o = run_with_stdin(&[&["clean", "-q", "--keep-broken", "-"][..], args].concat(), text);
        let out = stdout(&o);
        let events: Vec<String> =
            out.lines().filter(|l| l.starts_with("[Event ")).map(str::to_string).collect();
        let results: Vec<&str> = out.lines().filter(|l| l.starts_with("[Result ")).collect();
        let wanted = format!("[Result \"{}\"]", args[1]);
        assert!(results.iter().all(|r| *r == wanted), "{args:?}: {out}");
        events.iter().map(|e| e[8..9].to_string()).collect::<String>()
    };
    assert_eq!(kept(&["--result", "1-0"]), "FM");
    assert_eq!(kept(&["--result", "0-1"]), "");
    assert_eq!(kept(&["--result", "1/2-1/2"]), "G");
    assert_eq!(kept(&["--result", "*"]), "K");
    assert_eq!(kept(&["--result", "0-1", "--fix-results"]), "F");
    assert_eq!(kept(&["--result", "1-0", "--fix-results"]), "M");
}
