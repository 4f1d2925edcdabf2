//! `pgnkit check`: diagnostics, exit codes, JSON, per-game records, real collections.

use crate::util::{fixture, run, run_with_stdin, shared_data, shared_not_pgn, stderr, stdout, temp_dir};

fn check(args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let o = run(&all);
    (o.status.code(), stdout(&o), stderr(&o))
}

#[test]
fn clean_collections_exit_0_with_python_chess_counts() {
    // Games and plies as python-chess reports them (the data sets' README.md), all valid.
    for (file, games, plies) in [
        ("lichess_db_10k.pgn", 5, None),
        ("twic1599_10k.pgn", 9, None),
        ("python-chess__saturs-jannlee-zh-lichess.pgn", 1, Some(122)),
        ("python-chess__cutechess-fischerrandom.pgn", 4, Some(396)),
        ("kokopu__chess960.pgn", 4, Some(103)),
        // Every move in UCI coordinates (`g1f3`, castling `e1c1`), as engines write them.
        ("python-chess__uci-moves.pgn", 1, Some(113)),
    ] {
        let path = fixture(&format!("pgn/{file}"));
        let (code, out, err) = check(&["--json", path.to_str().expect("utf-8")]);
        assert_eq!(code, Some(0), "{file}: {out}{err}");
        let summary: serde_json::Value =
            serde_json::from_str(out.lines().last().expect("summary")).expect("json");
        assert_eq!(summary["type"], "summary");
        assert_eq!(summary["data"]["games"], games, "{file}");
        assert_eq!(summary["data"]["valid"], games, "{file}");
        if let Some(p) = plies {
            assert_eq!(summary["data"]["plies"], p, "{file}");
        }
    }
}

/// A count of one is said in the singular in every job's summary line: `1 game`, `1 ply`,
/// `1 position`, and the report's `at least 1 game`.
#[test]
fn a_count_of_one_is_singular() {
    let game = "[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. e4 *\n";
    for job in ["check", "clean", "positions"] {
        let o = run_with_stdin(&[job, "-", "-o", "/dev/null"], game);
        let want = format!("pgnkit {job}: 1 game, 1 valid, 0 with errors, 0 with warnings only; 1 ply; ");
        assert!(stderr(&o).starts_with(&want), "{}", stderr(&o));
    }
    // With an evaluation: a game without one has a `no_evals` warning.
    let judged = game.replace("1. e4 *", "1. e4 { [%eval 0.2] } *");
    let o = run_with_stdin(&["annotate", "--from-evals", "-", "-o", "/dev/null"], judged);
    assert!(
        stderr(&o).contains(": 1 game, 1 valid, 0 with errors, 0 with warnings only; 1 ply; "),
        "{}",
        stderr(&o)
    );
    let o = run_with_stdin(&["annotate", "--from-evals", "-", "-o", "/dev/null"], "1. e4 e5 *\n");
    assert!(stderr(&o).contains("; 2 plies; 3 positions in "), "{}", stderr(&o));
    let one = "[FEN \"7k/8/8/8/8/8/8/K7 w - - 0 1\"]\n[SetUp \"1\"]\n\n*\n";
    let o = run_with_stdin(&["annotate", "--from-evals", "-", "-o", "/dev/null"], one);
    assert!(stderr(&o).contains("; 0 plies; 1 position in "), "{}", stderr(&o));
    let o = run_with_stdin(&["report", "--format", "text", "--min-games", "1", "-"], game);
    assert!(stdout(&o).contains("Players (at least 1 game)"), "{}", stdout(&o));
    assert!(stderr(&o).starts_with("pgnkit report: 1 game ("), "{}", stderr(&o));
}

/// pgn-extract's long algebraic output (`Bc1b2`, `e2e4`, castling as the king's move `e8g8`,
/// `e1c1`): every one of its 72 plies replayed (python-chess reads the same), each move flagged.
#[test]
fn coordinate_notation_is_read_with_a_warning() {
    let path = fixture("pgn/pgn-extract_outfiles__test-Welalg-out.pgn");
    let (code, out, err) = check(&["--strict-san", path.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(err.contains("1 game, 1 valid, 0 with errors, 1 with warnings only; 72 plies"), "{err}");
    for (ply, text, san) in [(20, "e8g8", "O-O"), (23, "e1c1", "O-O-O")] {
        let want = format!("ply {ply}: \"{text}\" written for {san} (long algebraic notation)");
        assert!(out.contains(&want), "missing {want:?} in\n{out}");
    }
}

#[test]
fn every_problem_is_located_and_the_run_goes_on() {
    let path = fixture("pgn/bad_games.pgn");
    let (code, out, err) = check(&[path.to_str().expect("utf-8")]);
    assert_eq!(code, Some(1), "{err}");
    let file = path.display().to_string();
    let expect = [
        (
            format!("{file}:13:13: error: game 2 (Gamma - Delta): ply 3: illegal SAN \"Ke3\" in position "),
            "illegal_move",
        ),
        (format!("{file}:20:34: error: game 3 (Eps - Zeta): ply 7: ambiguous SAN \"Nd4\""), "ambiguous_move"),
        ("error: game 4 (? - ?): illegal position: empty board".to_string(), "bad_fen"),
        ("error: game 5 (? - ?): unsupported variant \"Antichess\"".to_string(), "unsupported_variant"),
        (
            "error: game 6 (? - ?): result 1-0 differs from the Result tag \"0-1\"".to_string(),
            "result_mismatch",
        ),
        (
            "error: game 6 (? - ?): ply 4: result 1-0 but the board shows Checkmate (0-1)".to_string(),
            "result_mismatch",
        ),
        ("error: game 7 (? - ?): ply 3: illegal SAN \"Bxf6\"".to_string(), "illegal_move"),
        ("warning: game 8 (? - ?): no result token".to_string(), "missing_result"),
        ("error: game 10 (? - ?): unterminated comment".to_string(), "unterminated_comment"),
    ];
    for (text, kind) in &expect {
        let line = out
            .lines()
            .find(|l| l.contains(text.as_str()))
            .unwrap_or_else(|| panic!("missing {text:?} in\n{out}"));
        assert!(line.contains(&format!("[{kind}, byte ")), "{line}");
    }
    // Non-canonical SAN is counted but shown only with --strict-san.
    assert!(!out.contains("non_canonical_san"), "{out}");
    assert!(err.contains("non_canonical_san 7"), "{err}");
    assert!(err.contains("11 games, 4 valid, 7 with errors, 2 with warnings only"), "{err}");
    let (_, strict, _) = check(&["--strict-san", path.to_str().expect("utf-8")]);
    assert_eq!(strict.lines().filter(|l| l.contains("[non_canonical_san,")).count(), 7, "{strict}");
    assert!(strict.contains("\"0-0\" written for O-O"), "{strict}");
    // The game after the unterminated comment is read.
    assert!(err.contains("11 games"), "{err}");
    // Games the filters leave out were not checked: neither valid nor with errors.
    let (code, _, err) = check(&["--where", "White = Alpha", path.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("11 games, 1 valid, 0 with errors"), "{err}");
    assert!(err.contains("10 filtered"), "{err}");
}

#[test]
fn json_lines_and_game_records() {
    let path = fixture("pgn/bad_games.pgn");
    let (code, out, _) = check(&["--json", "--games", path.to_str().expect("utf-8")]);
    assert_eq!(code, Some(1));
    let records: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    let games: Vec<&serde_json::Value> = records.iter().filter(|r| r["type"] == "game").collect();
    assert_eq!(games.len(), 11);
    assert_eq!(games[0]["data"]["plies"], 7);
    assert_eq!(games[0]["data"]["result"], "1-0");
    assert_eq!(
        games[0]["data"]["final_fen"],
        "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"
    );
    assert_eq!(games[1]["data"]["plies"], 2, "valid prefix of the illegal game");
    assert_eq!(games[1]["data"]["errors"], 1);
    assert_eq!(games[3]["data"]["final_fen"], serde_json::Value::Null, "bad FEN: no position");
    assert!(records.iter().any(|r| r["type"] == "diagnostic"
        && r["data"]["kind"] == "ambiguous_move"
        && r["data"]["ply"] == 7));
    let summary = records.last().expect("summary last");
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["data"]["with_errors"], 7);
    assert_eq!(summary["data"]["errors"]["illegal_move"], 2);
}

#[test]
fn tricky_files_never_crash() {
    let mut files: Vec<std::path::PathBuf> =
        std::fs::read_dir(fixture("pgn")).expect("fixtures").map(|e| e.expect("entry").path()).collect();
    if let Some(shared) = shared_data() {
        let mut stack = vec![shared.join("malformed_and_tricky")];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).expect("dir") {
                let p = e.expect("entry").path();
                if p.is_dir() { stack.push(p) } else { files.push(p) }
            }
        }
    }
    files.sort();
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "pgn" || e == "zst")) {
        let (code, out, err) = check(&[f.to_str().expect("utf-8")]);
        let refused = code == Some(65)
            && (err.contains("UTF-16") || (shared_not_pgn(f) && err.contains(": not PGN: ")));
        assert!(matches!(code, Some(0 | 1)) || refused, "{}: exit {code:?}\n{out}{err}", f.display());
        assert!(err.contains("pgnkit check: "), "{}: summary missing: {err}", f.display());
    }
}

#[test]
fn real_collections_match_python_chess_game_and_ply_counts() {
    let Some(shared) = shared_data() else { return };
    // (file, games, plies, games with errors): games and plies as the data sets' README.md gives
    // them for python-chess. The master games' 9 games with errors are the data's: 3 illegal
    // moves (the 3 python-chess reports), 2 results against their Result tag, and 4 with tokens
    // python-chess skips unread (`n/a`, `bad`); a malformed tag line (`[Event Casual Game"]`,
    // left out as python-chess leaves it), a check mark with the result glued to it (`#1-0`) and
    // a word after a move (`Qf8 mat 1-0`) are read with a warning. The master games are one game
    // fewer than python-chess's 35,009: it splits the game Fischer - LoCoco, whose tags two
    // blank lines follow, in two.
    for (file, games, plies, with_errors) in [
        ("games/lichess_db_1000k.pgn", 438, 28_538, 0),
        ("games/twic1599_1000k.pgn", 1_110, 101_487, 0),
        ("games/lichess_DrDrunkenstein_2019-01-29.pgn", 984, 80_386, 0),
        ("games/pgnmentor_Carlsen.pgn.zst", 1_860, 166_961, 0),
        ("games/twic0920.pgn.zst", 2_245, 182_591, 0),
        ("games/tcec_s01-s10.pgn.zst", 3_282, 459_993, 0),
        ("games/tcec_s11-s15.pgn.zst", 2_236, 307_035, 0),
        ("games/tcec_s16-s18.pgn.zst", 3_165, 429_267, 0),
        ("games/chessgames_master_35k.pgn.zst", 35_008, 2_938_563, 9),
        ("games/engine/stockfish_books_8moves_v3.pgn.zst", 34_700, 555_200, 0),
        ("games/engine/sunfish_3fold.pgn.zst", 713, 75_273, 0),
        ("games/otb/pgn2tex_Capablanca.pgn", 597, 46_577, 0),
        ("variants/crazyhouse/crazyara_rl_eval_model_os_45_vs_sf.pgn", 100, 10_751, 0),
        ("variants/chess960/tcec_frc_s06-s20.pgn.zst", 948, 111_430, 0),
        ("variants/chess960/tcec_dfrc_s22-s24.pgn.zst", 210, 28_700, 0),
    ] {
        let path = shared.join(file);
        let (_, out, err) = check(&["--json", path.to_str().expect("utf-8")]);
        let summary: serde_json::Value =
            serde_json::from_str(out.lines().last().expect("summary")).expect("json");
        assert_eq!(summary["data"]["games"], games, "{file}: {err}");
        assert_eq!(summary["data"]["plies"], plies, "{file}: {err}");
        assert_eq!(summary["data"]["with_errors"], with_errors, "{file}: {out}");
    }
}

/// `check --json` of `pgn` written to a file: its diagnostics' data and its summary's data.
fn check_text(name: &str, pgn: &str) -> (Vec<serde_json::Value>, serde_json::Value) {
    let dir = temp_dir(name);
    let input = dir.join("in.pgn");
    std::fs::write(&input, pgn).expect("write");
    let (_, out, err) = check(&["--json", "--strict-san", input.to_str().expect("utf-8")]);
    let mut records: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    let summary = records.pop().expect("summary");
    assert_eq!(summary["type"], "summary", "{out}{err}");
    (records.into_iter().map(|r| r["data"].clone()).collect(), summary["data"].clone())
}

/// A tag named again in its game (a second `[White ...]`) is a `duplicate_tag` warning where it
/// stands, naming the tag; the first value is the game's (its players in the message), and a
/// warning leaves the exit code 0.
#[test]
fn a_duplicate_tag_is_a_located_warning() {
    let pgn = "[Event \"d\"]\n[White \"A\"]\n[Black \"B\"]\n[White \"Z\"]\n[Result \"*\"]\n\n1. e4 *\n\n\
               [Event \"e\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. d4 *\n";
    let dir = temp_dir("check-duplicate-tag");
    let input = dir.join("in.pgn");
    std::fs::write(&input, pgn).expect("write");
    let file = input.to_str().expect("utf-8");
    let (code, out, err) = check(&[file]);
    assert_eq!(code, Some(0), "{out}{err}");
    let want = format!(
        "pgnkit: {file}:4:1: warning: game 1 (A - B): duplicate tag White: the first, \"A\", counts; \"Z\" is \
         ignored [duplicate_tag, byte 36]\n"
    );
    assert_eq!(out, want);
    assert!(err.contains("2 games, 2 valid, 0 with errors, 1 with warnings only"), "{err}");
    let (code, out, _) = check(&["--json", file]);
    assert_eq!(code, Some(0));
    let records: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let d = &records[0]["data"];
    assert_eq!(records.len(), 2, "one diagnostic, then the summary: {out}");
    assert_eq!((d["kind"].as_str(), d["severity"].as_str()), (Some("duplicate_tag"), Some("warning")));
    assert_eq!((d["game"].as_u64(), d["line"].as_u64(), d["column"].as_u64()), (Some(1), Some(4), Some(1)));
    assert_eq!(records[1]["data"]["warnings"], serde_json::json!({"duplicate_tag": 1}));
}

/// A game of 200,000 tags, of one name or of as many names: the first 4,096 are read, each
/// repeat among them one warning, the rest skipped with one `over_budget` error; `clean` rejects
/// such a game whole and writes the first of a name repeated within the budget. Every name is
/// compared with the earlier ones by a set, not one by one, and a diagnostic names the players
/// without a search over the tags (either way, quadratic, this took minutes).
#[test]
fn a_game_of_many_tags_reads_in_linear_time() {
    let dir = temp_dir("check-many-tags");
    let (same, distinct, under) = (dir.join("same.pgn"), dir.join("distinct.pgn"), dir.join("under.pgn"));
    let tags = |n: usize, name: &dyn Fn(usize) -> String| {
        let lines: String = (0..n).map(|i| format!("[{} \"v{i}\"]\n", name(i))).collect();
        format!("[Event \"e\"]\n{lines}\n1. e4 *\n")
    };
    std::fs::write(&same, tags(200_000, &|_| "White".to_string())).expect("write");
    std::fs::write(&distinct, tags(200_000, &|i| format!("T{i}"))).expect("write");
    std::fs::write(&under, tags(4_000, &|_| "White".to_string())).expect("write");
    let (code, out, err) = check(&["--json", same.to_str().expect("utf-8")]);
    assert_eq!(code, Some(1), "{err}");
    let summary: serde_json::Value =
        serde_json::from_str(out.lines().last().expect("a summary")).expect("JSON");
    assert_eq!(summary["data"]["warnings"], serde_json::json!({"duplicate_tag": 4094}));
    assert_eq!(summary["data"]["errors"], serde_json::json!({"over_budget": 1}));
    assert!(out.lines().next().expect("a warning").contains("\"white\":\"v0\""), "the first names White");
    let (code, out, err) = check(&[distinct.to_str().expect("utf-8")]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("distinct.pgn:4097:1: error: game 1 (? - ?): more tags than the budget"), "{out}");
    assert!(err.contains("errors: over_budget 1\n"), "{err}");
    let cleaned = dir.join("clean.pgn");
    let o = run(&["clean", "-q", same.to_str().expect("utf-8"), "-o", cleaned.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read(&cleaned).expect("read").len(), 0, "rejected, not written");
    let o = run(&["clean", "-q", under.to_str().expect("utf-8"), "-o", cleaned.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&cleaned).expect("read");
    assert_eq!(text.matches("[White ").count(), 1);
    assert!(text.contains("[White \"v0\"]"), "{}", &text[..200]);
}

/// A check mark apart from its move, alone or with the result glued to it (`4.Qxf7 #1-0`, in the
/// chessgames.com collection; pgn-extract and python-chess read it): read as the move's mark and
/// the result, with a warning that says so and whether the mark is right. Every game keeps its
/// moves and its result.
#[test]
fn check_marks_apart_from_their_move_are_read() {
    let pgn: String = ["4.Qxf7 #1-0", "4.Qxf7 # 1-0", "4.Qxf7 ++0-1", "4.Qxf7 #"]
        .map(|end| format!("[Event \"e\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 {end}\n\n"))
        .concat();
    let (diags, summary) = check_text("check-detached-marks", &pgn);
    let got: Vec<(u64, &str, &str)> = diags
        .iter()
        .filter(|d| d["kind"] != "check_mark")
        .map(|d| (d["game"].as_u64().unwrap(), d["kind"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    let want = [
        (1, "glued_result", "\"#1-0\" read as the check mark of the move before and the result 1-0"),
        (2, "syntax_warning", "\"#\" read as the check mark of the move before"),
        (
            3,
            "glued_result",
            "\"++0-1\" read as the check mark of the move before and the result 0-1 (the move gives mate)",
        ),
        (3, "result_mismatch", "result 0-1 differs from the Result tag \"1-0\""),
        (3, "result_mismatch", "result 0-1 but the board shows Checkmate (1-0)"),
        (4, "syntax_warning", "\"#\" read as the check mark of the move before"),
        (4, "missing_result", "no result token at the end of the movetext"),
    ];
    assert_eq!(got, want, "{diags:#?}");
    // The move itself lacks its mark: its own warning, as for `4.Qxf7 1-0`.
    let marks: Vec<u64> =
        diags.iter().filter(|d| d["kind"] == "check_mark").map(|d| d["game"].as_u64().unwrap()).collect();
    assert_eq!(marks, [1, 2, 3, 4]);
    assert_eq!((summary["games"].as_u64(), summary["plies"].as_u64()), (Some(4), Some(4 * 7)));
    assert_eq!(summary["with_errors"], 1, "the third game's result contradicts the board");
}

/// A black move with periods, or an ellipsis, glued to it (`..e5`, `1. ..e5`, `(16. ..Kf8` in
/// python-chess's immortal games, `…e5`, `2…Nc6`): read as python-chess reads it. The periods
/// pass as in `1..e5` and `.. e5` (a period is a token of its own in import format); the
/// ellipsis, which is no PGN, is reported.
#[test]
fn black_moves_after_periods_are_read() {
    let pgn: String = [
        "1. e4 ..e5 2. Nf3 2. ..Nc6 3. Bb5 (3. Bc4 ..Bc5) 3... a6 1-0",
        "1. e4 \u{2026}e5 2. Nf3 2\u{2026}Nc6 3. Bb5 3. \u{2026} a6 1-0",
        "1. e4 1..e5 2. Nf3 .. Nc6 3. Bb5 a6 1-0",
    ]
    .map(|g| format!("[Event \"e\"]\n[Result \"1-0\"]\n\n{g}\n\n"))
    .concat();
    let (diags, summary) = check_text("check-dotted-moves", &pgn);
    let got: Vec<(u64, u64, &str, &str)> = diags
        .iter()
        .map(|d| {
            let (game, ply) = (d["game"].as_u64().unwrap(), d["ply"].as_u64().unwrap());
            (game, ply, d["kind"].as_str().unwrap(), d["message"].as_str().unwrap())
        })
        .collect();
    let what = "an ellipsis read as the periods of a move number";
    let want = [
        (2, 2, "syntax_warning", format!("\"\u{2026}e5\": {what}")),
        (2, 4, "syntax_warning", format!("\"2\u{2026}Nc6\": {what}")),
        (2, 6, "syntax_warning", format!("\"\u{2026}\": {what}")),
    ];
    let want: Vec<(u64, u64, &str, &str)> =
        want.iter().map(|(g, p, k, m)| (*g, *p, *k, m.as_str())).collect();
    assert_eq!(got, want, "{diags:#?}");
    assert_eq!((summary["games"].as_u64(), summary["plies"].as_u64()), (Some(3), Some(3 * 6)));
    assert_eq!(summary["with_errors"], 0);
    if let Some(data) = shared_data() {
        let path = data.join("games/otb/python-chess_immortal-games.pgn");
        let (_, out, _) = check(&[path.to_str().expect("utf-8")]);
        assert!(!out.contains("unreadable move"), "{out}");
    }
}

/// The token a movetext syntax problem skips is named, quoted, escaped and cut to 32 characters:
/// stray punctuation and a `[` that starts no tag line are warnings (the game is valid, as
/// python-chess reads it), but a bracketed token too long to be named whole is an error.
#[test]
fn unexpected_tokens_are_named() {
    let long = "&".repeat(40);
    let bracketed = format!("[{}]", "y".repeat(40));
    let pgn = format!("[Event \"t\"]\n\n1. e4 \\$14 e5 2. Nf3, Nc6 [\"x\"] 3. Bb5 {long} a6 {bracketed} *\n");
    let (diags, _) = check_text("check-unexpected-tokens", &pgn);
    let got: Vec<(u64, &str, &str)> = diags
        .iter()
        .map(|d| {
            (d["column"].as_u64().unwrap(), d["severity"].as_str().unwrap(), d["message"].as_str().unwrap())
        })
        .collect();
    let cut = format!("stray \"{}\u{2026}\" in movetext; skipped", "&".repeat(32));
    let cut_bracketed = format!("unexpected token \"[{}\u{2026}\" in movetext; skipped", "y".repeat(31));
    let want = [
        (7, "warning", "stray \"\\\\\" in movetext; skipped"),
        (21, "warning", "stray \",\" in movetext; skipped"),
        (27, "warning", "unexpected token \"[\\\"x\\\"]\" in movetext; skipped"),
        (40, "warning", cut.as_str()),
        (84, "error", cut_bracketed.as_str()),
    ];
    assert_eq!(got, want);
    if let Some(data) = shared_data() {
        let path = data.join("games/otb/dartchess_wcc_2023.pgn");
        let (code, out, err) = check(&[path.to_str().expect("utf-8")]);
        assert!(out.contains("warning: game 1 (Nepomniachtchi, Ian - Liren, Ding): stray \"\\\\\" in movetext; skipped [syntax_warning, byte "), "{out}");
        assert!(err.contains("3 games, 3 valid"), "{err}");
        assert_eq!(code, Some(0), "{out}");
    }
}

/// A game's diagnostics past the first 100 are counted in the summary and the game's record, not
/// shown: one `unreported` warning says so, and the next game's are shown again.
#[test]
fn a_game_shows_its_first_100_diagnostics_and_counts_the_rest() {
    let dir = temp_dir("check-budget");
    let nulls = "-- ".repeat(300);
    let text = format!(
        "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 {nulls}*\n\n[Event \"b\"]\n[Result \"*\"]\n\n1. e4 -- *\n"
    );
    let pgn = dir.join("nulls.pgn");
    std::fs::write(&pgn, text).expect("write");
    let (code, out, _) = check(&["--json", "--games", pgn.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "warnings only");
    let records: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let shown = |game: u64, kind: &str| {
        records
            .iter()
            .filter(|r| r["type"] == "diagnostic" && r["data"]["game"] == game && r["data"]["kind"] == kind)
            .count()
    };
    assert_eq!((shown(1, "null_move"), shown(1, "unreported")), (100, 1));
    assert_eq!((shown(2, "null_move"), shown(2, "unreported")), (1, 0));
    let game = records.iter().find(|r| r["type"] == "game").expect("game 1");
    assert_eq!(game["data"]["warnings"], 300);
    let summary = records.last().expect("summary");
    assert_eq!(summary["data"]["warnings"]["null_move"], 301, "{summary}");
}

/// A comment longer than the 64 MiB budget ends at its `}` all the same: the games written inside
/// it are no games, and the real game goes on after it, for `check` (mapped and streamed) and for
/// `clean`, which rejects the one game whole.
#[test]
fn a_comment_past_the_budget_holds_no_games() {
    let dir = temp_dir("check-comment-budget");
    let mut text = b"[Event \"real\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 {".to_vec();
    text.extend(format!("{}\n", "x".repeat(79)).repeat((65 << 20) / 80).as_bytes());
    text.extend(b"\n1. d4 d5 2. c4 1-0\n\n[Event \"leak\"]\n\n1. Nf3 Nf6 0-1\n\nend } e5 2. Nf3 *\n");
    let pgn = dir.join("leak.pgn");
    std::fs::write(&pgn, &text).expect("write");
    let name = pgn.to_str().expect("utf-8");
    for o in [
        run(&["check", "--json", "--games", name]),
        run_with_stdin(&["check", "--json", "--games", "-"], &text),
    ] {
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let records: Vec<serde_json::Value> =
            stdout(&o).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
        let games: Vec<_> = records.iter().filter(|r| r["type"] == "game").collect();
        assert_eq!(games.len(), 1, "{records:?}");
        assert_eq!(
            (games[0]["data"]["plies"].as_u64(), games[0]["data"]["errors"].as_u64()),
            (Some(3), Some(1))
        );
        let diagnostics: Vec<_> = records.iter().filter(|r| r["type"] == "diagnostic").collect();
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0]["data"]["kind"], "over_budget");
        let message = diagnostics[0]["data"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("comment longer than the budget"), "{message}");
    }
    let (out, rejects) = (dir.join("out.pgn"), dir.join("rejects.pgn"));
    let o = run(&[
        "clean",
        name,
        "-o",
        out.to_str().expect("utf-8"),
        "--rejects",
        rejects.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 read = 0 written + 1 rejected"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).expect("output").len(), 0);
    let rejected = std::fs::read(&rejects).expect("rejects");
    assert!(rejected.trim_ascii_end() == text.trim_ascii_end(), "the game is rejected whole");
}

/// A game past the tag budget (4,096 tag pairs), a tag pair and a word longer than the token
/// budget (1 MiB): each is one located `over_budget` error and is skipped, nothing of it held;
/// the rest of its game and the games after it are checked, at any thread count, and `clean`
/// rejects such games whole, as read.
#[test]
fn tags_and_tokens_past_the_budget_are_skipped_with_one_error() {
    let dir = temp_dir("check-tag-token-budget");
    let tags: String = (0..5000).map(|i| format!("[T{i} \"v\"]\n")).collect();
    let big = "A".repeat((1 << 20) + 1);
    let rejected = format!(
        "[Event \"many\"]\n{tags}\n1. e4 e5 *\n\n[Event \"value\"]\n[Site \"{big}\"]\n[White \"W\"]\n\n1. d4 d5 *\n\n\
         [Event \"word\"]\n\n1. c4 {big} e5 *\n\n[Event \"later\"]\n\n1. e4 Ke7 *\n\n"
    );
    let text = format!("{rejected}[Event \"good\"]\n\n1. e4 e5 *\n");
    let pgn = dir.join("budget.pgn");
    std::fs::write(&pgn, &text).expect("write");
    let name = pgn.to_str().expect("utf-8");
    let mut outputs = Vec::new();
    for threads in [&["-j1"][..], &["-j2", "--chunk-kib", "64"]] {
        let (code, out, err) = check(&[&["--json", "--games"][..], threads, &[name]].concat());
        assert_eq!(code, Some(1), "{err}");
        let records: Vec<serde_json::Value> =
            out.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
        let games: Vec<_> = records.iter().filter(|r| r["type"] == "game").map(|r| &r["data"]).collect();
        let plies: Vec<_> = games.iter().map(|g| (g["plies"].as_u64(), g["errors"].as_u64())).collect();
        let one = (Some(2), Some(1));
        assert_eq!(plies, [one, one, one, (Some(1), Some(1)), (Some(2), Some(0))], "{out}");
        let diagnostics: Vec<_> =
            records.iter().filter(|r| r["type"] == "diagnostic").map(|r| &r["data"]).collect();
        let shown: Vec<_> = diagnostics
            .iter()
            .map(|d| (d["game"].as_u64(), d["kind"].as_str(), d["line"].as_u64(), d["column"].as_u64()))
            .collect();
        let over = Some("over_budget");
        assert_eq!(
            shown,
            [
                (Some(1), over, Some(4097), Some(1)),
                (Some(2), over, Some(5006), Some(1)),
                (Some(3), over, Some(5013), Some(7)),
                (Some(4), Some("illegal_move"), Some(5017), Some(7))
            ],
            "{out}"
        );
        let message = |i: usize| diagnostics[i]["message"].as_str().unwrap_or_default();
        assert!(message(0).starts_with("more tags than the budget"), "{}", message(0));
        let cut = "A".repeat(32) + "…";
        assert_eq!(
            message(1),
            format!(
                "tag pair \"[Site \\\"{}…\" of {} bytes, longer than the budget; skipped",
                &cut[..25],
                big.len() + 9
            )
        );
        assert_eq!(
            message(2),
            format!("token \"{cut}\" of {} bytes, longer than the budget; skipped", big.len())
        );
        // The tags after the one skipped are read: game 2 names its White.
        assert_eq!(diagnostics[1]["white"], "W", "{out}");
        assert!(out.lines().map(str::len).max().unwrap_or(0) < 2_000);
        outputs.push(out.lines().filter(|l| !l.contains("\"summary\"")).collect::<Vec<_>>().join("\n"));
    }
    assert_eq!(outputs[0], outputs[1]);
    let (out, rejects) = (dir.join("out.pgn"), dir.join("rejects.pgn"));
    let (out_name, rejects_name) = (out.to_str().expect("utf-8"), rejects.to_str().expect("utf-8"));
    let o = run(&["clean", name, "-o", out_name, "--rejects", rejects_name]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("5 read = 1 written + 4 rejected"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&rejects).expect("rejects"), rejected, "the games are rejected whole");
}

/// A UTF-8 byte order mark inside the input (files that have one, joined by `cat`) is passed
/// over before a game, after a result or in place of one: every game is read with its tags, at
/// any thread count and chunk size.
#[test]
fn a_byte_order_mark_between_games_is_passed_over() {
    let dir = temp_dir("check-bom");
    let game =
        |event: &str, result: &str| format!("[Event \"{event}\"]\n[Result \"*\"]\n\n1. e4 e5 {result}\n");
    let bom = "\u{feff}";
    let text =
        format!("{bom}{}\n{bom}{}{bom}{}\n{}", game("a", "*"), game("b", "*"), game("c", ""), game("d", "*"));
    let pgn = dir.join("bom.pgn");
    std::fs::write(&pgn, text.repeat(40)).expect("write");
    let path = pgn.to_str().expect("utf-8");
    let mut outputs = Vec::new();
    for args in [&["-j1"][..], &["-j2", "--chunk-kib", "1"]] {
        let mut all = vec!["--json", "--games"];
        all.extend_from_slice(args);
        all.push(path);
        let (code, out, err) = check(&all);
        assert_eq!(code, Some(0), "{err}\n{out}");
        let summary: serde_json::Value =
            serde_json::from_str(out.lines().last().expect("summary")).expect("JSON");
        assert_eq!(
            (summary["data"]["games"].as_u64(), summary["data"]["with_warnings"].as_u64()),
            (Some(160), Some(40)),
            "{summary}"
        );
        outputs.push(out.lines().filter(|l| !l.contains("\"summary\"")).collect::<Vec<_>>().join("\n"));
    }
    assert_eq!(outputs[0], outputs[1]);
    // The one warning a round: game c has no result.
    assert!(outputs[0].contains("\"kind\":\"missing_result\""), "{}", outputs[0]);
}

/// A huge token or tag value is shown cut in a diagnostic, not copied whole into each message and
/// record.
#[test]
fn huge_tokens_and_tag_values_are_shown_cut() {
    let huge = "x".repeat(100_000);
    let pgn = format!(
        "[White \"{huge}\"]\n[FEN \"{huge}\"]\n[Result \"*\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. e4 {huge} *\n"
    );
    let o = run_with_stdin(&["check", "--json", "-"], pgn);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let longest = out.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 2_000, "a line of {longest} bytes");
    let records: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let kinds: Vec<&str> = records.iter().filter_map(|r| r["data"]["kind"].as_str()).collect();
    // The token is letters that start no move: skipped as a word, and named in the warning.
    assert_eq!(kinds, ["bad_fen", "syntax_warning"], "{out}");
    let cut = format!("{}…", &huge[..200]);
    let shown = [&records[0]["data"]["white"], &records[0]["data"]["fen"], &records[1]["data"]["san"]];
    assert!(shown.iter().all(|v| v.as_str() == Some(cut.as_str())), "{out}");
}

/// A problem among the tags names the game's players though their tags come after it.
#[test]
fn a_tag_problem_names_the_players_of_the_tags_after_it() {
    let pgn = "[Event Casual Game\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n";
    let o = run_with_stdin(&["check", "-"], pgn);
    let said = format!("{}{}", stdout(&o), stderr(&o));
    let named = "stdin:1:1: warning: game 1 (A - B): malformed tag pair; skipped [bad_tag, byte 0]";
    assert!(said.contains(named), "{said}");
}

/// A file name holding a line break or a terminal escape is shown escaped on every line that
/// names it (a diagnostic, a game record, the error of a missing or unreadable input, `clean`'s
/// ledger), so that it can forge no line of pgnkit's and drive no terminal.
#[test]
fn file_names_are_shown_with_their_control_characters_escaped() {
    let dir = temp_dir("check-evil-name");
    let evil = dir.join("x\npgnkit: evil.pgn:1:1: error: injected\x1b[31m.pgn");
    std::fs::write(&evil, "[Event \"a\"]\n\n1. e4 e5 2. Ke3 *\n").expect("write");
    let missing = dir.join("y\npgnkit: forged.pgn");
    let not_pgn = dir.join("z\npgnkit: forged.pgn");
    std::fs::write(&not_pgn, "\0\0\n").expect("write");
    let out = dir.join("out.pgn");
    let runs = [
        run(&["check", "--games", evil.to_str().expect("utf-8")]),
        run(&["check", missing.to_str().expect("utf-8")]),
        run(&["check", not_pgn.to_str().expect("utf-8")]),
        run(&["clean", evil.to_str().expect("utf-8"), "-o", out.to_str().expect("utf-8")]),
    ];
    for o in &runs {
        let said = format!("{}{}", stdout(o), stderr(o));
        assert!(said.contains("\\npgnkit: "), "the name is shown escaped: {said}");
        assert!(
            !said.lines().any(|l| l.starts_with("pgnkit: evil") || l.starts_with("pgnkit: forged")),
            "{said}"
        );
        assert!(!said.contains('\x1b'), "{said}");
    }
    let said = stdout(&runs[0]) + &stderr(&runs[0]);
    assert!(said.contains("injected\\u{1b}[31m.pgn:3:13: error: game 1"), "{said}");
}

/// Every date `clean` repairs as naming no day (a part it writes `??` that held digits), in any
/// form it reads and in every date tag, `check` warns of as `bad_date`, at the line and byte
/// `clean`'s repair names, and of no other date; year `0000` is unknown, as `????` is.
#[test]
fn check_warns_of_every_date_clean_repairs_as_no_day() {
    fn path(p: &std::path::Path) -> &str {
        p.to_str().expect("UTF-8 path")
    }
    let dir = temp_dir("check-dates");
    let values = [
        "2024-02-30",
        "2024-2-30",
        "2024/02/30",
        "2024.2.30",
        "2024.02.30",
        "2024-13-01",
        "2024-13",
        "2024-00-10",
        "2024.00.??",
        "2024-04-31",
        "????-02-30",
        "????.02.30",
        "19??.02.30",
        "19??-02-30",
        "20?4.04.31",
        "2024.1?.32",
        "2024-?-32",
        "2024-02-00",
        "0000-02-29",
        "0000.02.29",
        "0000.02.30",
        "0000-02-30",
        "0000.??.??",
        "0000",
        "2023.02.29",
        "2024.02.29",
        "2024-02-15",
        "?-02-30",
        "2024..30",
        "20240230",
        "2024.02.3O",
        "2024-02-30 ",
    ];
    let mut pgn = String::new();
    for (i, value) in values.iter().enumerate() {
        let tag = ["Date", "EventDate", "UTCDate"][i % 3];
        pgn += &format!("[Event \"E\"]\n[{tag} \"{value}\"]\n[Result \"*\"]\n\n1. e4 *\n\n");
    }
    let input = dir.join("dates.pgn");
    std::fs::write(&input, pgn).expect("write");
    let digits = |t: &str| t.bytes().filter(u8::is_ascii_digit).count();
    let report = dir.join("r.jsonl");
    let o = run(&["clean", "-q", path(&input), "-o", path(&dir.join("out.pgn")), "--report", path(&report)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut blanked = Vec::new();
    for line in std::fs::read_to_string(&report).expect("report").lines() {
        let r: serde_json::Value = serde_json::from_str(line).expect("JSON");
        let d = &r["data"];
        if r["type"] == "repair" && d["kind"] == "date" {
            let [before, after] = ["before", "after"].map(|k| d[k].as_str().expect("text").to_string());
            if digits(&after) < digits(&before) {
                blanked.push((d["game"].as_u64().expect("game"), d["line"].as_u64(), d["offset"].as_u64()));
            }
        }
    }
    let (_, out, err) = check(&["--json", path(&input)]);
    let warned: Vec<_> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .filter(|r| r["data"]["kind"] == "bad_date")
        .map(|r| {
            (
                r["data"]["game"].as_u64().expect("game"),
                r["data"]["line"].as_u64(),
                r["data"]["offset"].as_u64(),
            )
        })
        .collect();
    assert_eq!(warned, blanked, "{err}");
    // The dates that name no day, whatever their form; 0000's February 29 is a day.
    let named: Vec<&str> = warned.iter().map(|&(g, _, _)| values[g as usize - 1]).collect();
    for value in
        ["2024-02-30", "2024/02/30", "2024-13", "????-02-30", "19??.02.30", "19??-02-30", "0000.02.30"]
    {
        assert!(named.contains(&value), "{value}: {named:?}");
    }
    for value in ["0000-02-29", "0000.02.29", "2024.02.29", "2024-02-15", "2024.02.3O"] {
        assert!(!named.contains(&value), "{value}: {named:?}");
    }
}

/// Year `0000` is unknown to `--where` as to `check`, `--dedup` and `positions`' date columns:
/// a game of `0000.05.01` lies before no year, as one of `????.05.01`.
#[test]
fn where_reads_year_0000_as_unknown() {
    fn path(p: &std::path::Path) -> &str {
        p.to_str().expect("UTF-8 path")
    }
    let dir = temp_dir("where-0000");
    let game = |date: &str| format!("[Event \"{date}\"]\n[Date \"{date}\"]\n[Result \"*\"]\n\n1. e4 *\n\n");
    let input = dir.join("in.pgn");
    std::fs::write(&input, ["0000.05.01", "0999.05.01", "????.05.01", "0000.??.??"].map(game).concat())
        .expect("write");
    for filter in ["Date < 1000", "Year < 1000"] {
        let out = dir.join("out.pgn");
        let o = run(&["clean", "-q", "--where", filter, path(&input), "-o", path(&out)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let kept = std::fs::read_to_string(&out).expect("read");
        assert_eq!(kept.matches("[Event ").count(), 1, "{filter}: {kept}");
        assert!(kept.contains("0999.05.01"), "{filter}: {kept}");
    }
}
