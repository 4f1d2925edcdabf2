//! Tests of the export-format writer: each layout rule on small inputs, and games of random
//! events read back by the reader.

use super::*;
use crate::pgn::trace::trace;

/// Text of `out` (every test writes UTF-8 except where it says otherwise).
fn text(out: &[u8]) -> &str {
    std::str::from_utf8(out).expect("UTF-8")
}

/// Movetext lines of one written game: the lines after the tag section's blank line (or all
/// lines without tags), without the game's final blank line.
fn movetext_lines(pgn: &str) -> Vec<&str> {
    let body = pgn.strip_suffix("\n\n").expect("a game ends with a blank line");
    let body = match body.split_once("\n\n") {
        Some((_, movetext)) => movetext,
        None => body,
    };
    body.split('\n').collect()
}

/// Main-line moves from move 1 with White, each given as (SAN, number, black).
fn mainline(w: &mut Writer, out: &mut Vec<u8>, sans: &[&str]) {
    for (i, san) in sans.iter().enumerate() {
        w.san(out, san.as_bytes(), i as u32 / 2 + 1, i % 2 == 1);
    }
}

#[test]
fn roster_first_then_others_in_order_with_duplicates() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    for (n, v) in [
        ("WhiteElo", "2700"),
        ("Result", "1-0"),
        ("Black", "B"),
        ("Annotator", "x"),
        ("Event", "E1"),
        ("White", "W"),
        ("Event", "E2"),
        ("Date", "2024.01.02"),
        ("WhiteElo", "2701"),
    ] {
        w.tag(n, v);
    }
    w.end_game(&mut out, GameResult::WhiteWins);
    assert_eq!(
        text(&out),
        "[Event \"E1\"]\n[Event \"E2\"]\n[Date \"2024.01.02\"]\n[White \"W\"]\n[Black \"B\"]\n\
         [Result \"1-0\"]\n[WhiteElo \"2700\"]\n[Annotator \"x\"]\n[WhiteElo \"2701\"]\n\n1-0\n\n"
    );
}

#[test]
fn missing_roster_tags_filled_only_when_asked() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.tag("ECO", "B01");
    w.tag("White", "W");
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(text(&out), "[White \"W\"]\n[ECO \"B01\"]\n\n*\n\n");

    out.clear();
    let mut w = Writer::new().fill_roster(true);
    w.tag("ECO", "B01");
    w.tag("White", "W");
    w.end_game(&mut out, GameResult::Draw);
    assert_eq!(
        text(&out),
        "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"W\"]\n\
         [Black \"?\"]\n[Result \"*\"]\n[ECO \"B01\"]\n\n1/2-1/2\n\n"
    );
    // Every game of a filling writer is filled, a game without tags too.
    out.clear();
    w.end_game(&mut out, GameResult::Unknown);
    assert!(text(&out).starts_with("[Event \"?\"]\n") && text(&out).ends_with("[Result \"*\"]\n\n*\n\n"));
}

#[test]
fn tag_values_escaped_and_read_back() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    let value = r#"a "quoted" C:\dir\ and \" end\"#;
    w.tag("Event", value);
    w.tag("Site", "two\nlines");
    w.tag("White", "Dvořák");
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(
        text(&out).lines().next(),
        Some(r#"[Event "a \"quoted\" C:\\dir\\ and \\\" end\\"]"#),
        "{}",
        text(&out)
    );
    // The reader gives the value back unescaped.
    struct Tags(Vec<(String, String)>);
    impl crate::pgn::Visitor<'_> for Tags {
        type Output = Vec<(String, String)>;
        fn tag(&mut self, name: &[u8], value: crate::pgn::RawTag<'_>) {
            self.0.push((String::from_utf8_lossy(name).into_owned(), value.decode().0.into_owned()));
        }
        fn end_game(&mut self) -> Vec<(String, String)> {
            std::mem::take(&mut self.0)
        }
    }
    let tags = crate::pgn::Reader::new(&out).read_game(&mut Tags(Vec::new())).expect("a game");
    let want = [("Event", value), ("Site", "two lines"), ("White", "Dvořák")];
    assert_eq!(tags, want.map(|(n, v)| (n.to_string(), v.to_string())));
}

#[test]
fn no_tags_no_blank_line_and_a_game_without_moves_is_its_result() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(text(&out), "*\n\n");
    w.tag("Event", "e");
    w.end_game(&mut out, GameResult::BlackWins);
    assert_eq!(text(&out), "*\n\n[Event \"e\"]\n\n0-1\n\n", "games separated by one blank line");
    out.clear();
    mainline(&mut w, &mut out, &["e4", "e5"]);
    w.end_game(&mut out, GameResult::Draw);
    assert_eq!(text(&out), "1. e4 e5 1/2-1/2\n\n");
}

#[test]
fn black_move_numbers_after_comments_nags_and_variations() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    // Black to move first.
    w.san(&mut out, b"e5", 12, true);
    w.san(&mut out, b"Nf3", 13, false);
    w.comment(&mut out, b"c");
    w.san(&mut out, b"Nc6", 13, true);
    w.san(&mut out, b"Bb5", 14, false);
    w.nag(&mut out, Nag(1));
    w.san(&mut out, b"a6", 14, true);
    w.san(&mut out, b"Ba4", 15, false);
    w.begin_variation(&mut out);
    w.san(&mut out, b"Bxc6", 15, false);
    w.san(&mut out, b"dxc6", 15, true);
    w.end_variation(&mut out);
    w.san(&mut out, b"Nf6", 15, true);
    w.san(&mut out, b"O-O", 16, false);
    w.begin_variation(&mut out);
    w.san(&mut out, b"--", 16, false);
    w.end_variation(&mut out);
    w.san(&mut out, b"Be7", 16, true);
    w.san(&mut out, b"Re1", 17, false);
    w.san(&mut out, b"b5", 17, true);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(
        text(&out),
        "12... e5 13. Nf3 { c } 13... Nc6 14. Bb5 $1 14... a6 15. Ba4 (15. Bxc6 dxc6)\n\
         15... Nf6 16. O-O (16. --) 16... Be7 17. Re1 b5 *\n\n"
    );
}

#[test]
fn nested_variations_glue_their_parentheses() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.san(&mut out, b"e4", 1, false);
    w.begin_variation(&mut out);
    w.san(&mut out, b"d4", 1, false);
    w.san(&mut out, b"d5", 1, true);
    w.begin_variation(&mut out);
    w.san(&mut out, b"Nf6", 1, true);
    w.san(&mut out, b"c4", 2, false);
    w.begin_variation(&mut out);
    w.san(&mut out, b"Nf3", 2, false);
    w.end_variation(&mut out);
    w.end_variation(&mut out);
    w.end_variation(&mut out);
    w.begin_variation(&mut out);
    w.comment(&mut out, b"or");
    w.san(&mut out, b"c4", 1, false);
    w.end_variation(&mut out);
    w.san(&mut out, b"e5", 1, true);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(text(&out), "1. e4 (1. d4 d5 (1... Nf6 2. c4 (2. Nf3))) ({ or } 1. c4) 1... e5 *\n\n");
}

#[test]
fn empty_and_unclosed_variations() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.san(&mut out, b"e4", 1, false);
    w.begin_variation(&mut out);
    w.end_variation(&mut out);
    w.begin_variation(&mut out);
    w.begin_variation(&mut out);
    w.end_variation(&mut out);
    w.san(&mut out, b"d4", 1, false);
    w.end_variation(&mut out);
    w.end_variation(&mut out); // none open: nothing
    w.begin_variation(&mut out);
    w.san(&mut out, b"c4", 1, false);
    w.begin_variation(&mut out);
    w.san(&mut out, b"f4", 1, false);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(text(&out), "1. e4 () (() 1. d4) (1. c4 (1. f4)) *\n\n");
    let games = trace(&out);
    assert_eq!(games.len(), 1);
    assert!(!games[0].iter().any(|l| l.starts_with("problem")), "{games:?}");
}

#[test]
fn comments_collapse_whitespace_and_drop_close_braces() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.comment(&mut out, b"\t a  }b\r\n\n c } }} ");
    w.comment(&mut out, b"");
    w.comment(&mut out, b" } ");
    w.comment(&mut out, b"x;y{z");
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(text(&out), "{ a b c } { } { } { x;y{z } *\n\n");
}

/// A comment's word starting with `%` never starts a line, where it would make an escape line
/// that readers skip (and the comment unterminated).
#[test]
fn no_line_of_a_long_comment_starts_with_a_percent_sign() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    let long = format!("{} %tail words %x", "x".repeat(74));
    w.comment(&mut out, long.as_bytes());
    w.end_game(&mut out, GameResult::Unknown);
    let lines = movetext_lines(text(&out));
    assert!(lines.iter().all(|l| !l.starts_with('%')), "{lines:?}");
    assert_eq!(lines[1], " %tail words %x } *", "{lines:?}");
    let games = trace(&out);
    // Read back, the comment holds every word and the game its result.
    assert!(
        games[0].iter().any(|l| l.starts_with("comment@0") && l.contains("\n %tail words %x")),
        "{games:?}"
    );
    assert!(games[0].iter().any(|l| l.starts_with("outcome@") && l.ends_with("Some(\"*\")")), "{games:?}");
}

#[test]
fn tokens_fill_lines_up_to_79_characters() {
    // `1.` + space + 76 characters: 79, one line; the next token starts the next line.
    let fits = "a".repeat(76);
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.san(&mut out, fits.as_bytes(), 1, false);
    w.san(&mut out, b"e5", 1, true);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(movetext_lines(text(&out)), [format!("1. {fits}").as_str(), "e5 *"]);
    // One more: the number ends its line, the move takes the next.
    let wide = "a".repeat(77);
    out.clear();
    w.san(&mut out, wide.as_bytes(), 1, false);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(movetext_lines(text(&out)), ["1.", format!("{wide} *").as_str()]);
    // A token wider than a line stands alone on its line.
    let huge = "a".repeat(100);
    out.clear();
    w.san(&mut out, b"e4", 1, false);
    w.san(&mut out, huge.as_bytes(), 1, true);
    w.san(&mut out, b"d4", 2, false);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(movetext_lines(text(&out)), ["1. e4", huge.as_str(), "2. d4 *"]);
}

/// Tokens joined greedily (each line as long as the next token allows): the layout of a game
/// of moves, built here independently of the writer.
fn greedy(tokens: &[String]) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for t in tokens {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + t.chars().count() <= 79 => {
                l.push(' ');
                l.push_str(t);
            }
            _ => lines.push(t.clone()),
        }
    }
    lines
}

#[test]
fn long_main_line_wraps_greedily() {
    let sans = ["Nf3", "Nf6", "Ng1", "Ng8", "e4", "exd5", "Qxd5+", "O-O-O"];
    let mut out = Vec::new();
    let mut w = Writer::new();
    let mut tokens = Vec::new();
    for ply in 0..300u32 {
        let san = sans[(ply as usize * 7 + ply as usize / 5) % sans.len()];
        let number = ply / 2 + 1;
        if ply % 2 == 0 {
            tokens.push(format!("{number}."));
        }
        tokens.push(san.to_string());
        w.san(&mut out, san.as_bytes(), number, ply % 2 == 1);
    }
    tokens.push("1-0".into());
    w.end_game(&mut out, GameResult::WhiteWins);
    let got: Vec<String> = movetext_lines(text(&out)).into_iter().map(String::from).collect();
    assert_eq!(got, greedy(&tokens));
    // Some lines end with a move number (a token of its own).
    assert!(got.iter().any(|l| l.ends_with('.')), "{got:#?}");
}

#[test]
fn a_comment_that_fits_on_a_line_moves_down_whole() {
    let comment = "x".repeat(72); // `{ x.. }`: 76 characters, 82 after `1. e4 `
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.san(&mut out, b"e4", 1, false);
    w.comment(&mut out, comment.as_bytes());
    w.san(&mut out, b"e5", 1, true);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(
        movetext_lines(text(&out)),
        ["1. e4".to_string(), format!("{{ {comment} }}"), "1... e5 *".into()]
    );
}

#[test]
fn a_comment_longer_than_a_line_is_broken_at_spaces() {
    let words: Vec<String> = (0..60).map(|i| format!("w{i}")).collect();
    let comment = words.join("   ");
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.san(&mut out, b"e4", 1, false);
    w.comment(&mut out, comment.as_bytes());
    w.san(&mut out, b"e5", 1, true);
    w.end_game(&mut out, GameResult::Unknown);
    // The tokens: `{ w0`, `w1`, ..., `w59 }`; greedy from the current line on.
    let mut tokens = vec!["1.".to_string(), "e4".into(), format!("{{ {}", words[0])];
    tokens.extend(words[1..59].iter().cloned());
    tokens.extend([format!("{} }}", words[59]), "1...".into(), "e5".into(), "*".into()]);
    let got: Vec<String> = movetext_lines(text(&out)).into_iter().map(String::from).collect();
    assert_eq!(got, greedy(&tokens));
    assert!(got.len() > 3 && got.iter().all(|l| l.len() <= 79));
    assert!(got[0].starts_with("1. e4 { w0 w1 "), "{got:#?}");
    // Read back: the same words.
    let games = trace(&out);
    let c = games[0].iter().find(|l| l.starts_with("comment@")).expect("the comment");
    let read: Vec<&str> = c.split_once("Brace ").unwrap().1.split_whitespace().collect();
    assert_eq!(read, words.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn a_close_paren_that_does_not_fit_moves_down_with_its_token() {
    // `1. ` + 70 characters + ` (1. d` ends at column 79: with the `)` it would take 80, so the
    // move goes down with it and `(1.` ends the line.
    let pad = "a".repeat(70);
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.san(&mut out, pad.as_bytes(), 1, false);
    w.begin_variation(&mut out);
    w.san(&mut out, b"d", 1, false);
    w.end_variation(&mut out);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(movetext_lines(text(&out)), [format!("1. {pad} (1."), "d) *".into()]);
    // Nested: `))` where only the first fits.
    let pad = "a".repeat(61);
    out.clear();
    w.san(&mut out, pad.as_bytes(), 1, false);
    w.begin_variation(&mut out);
    w.san(&mut out, b"d4", 1, false);
    w.begin_variation(&mut out);
    w.san(&mut out, b"c4", 1, false);
    w.end_variation(&mut out);
    w.end_variation(&mut out);
    w.end_game(&mut out, GameResult::Unknown);
    // `1. ` + 61 + ` (1. d4 (1. c4)` is 79 with the first `)`; the second moves `c4))` down.
    assert_eq!(movetext_lines(text(&out)), [format!("1. {pad} (1. d4 (1."), "c4)) *".into()]);
    // A token that fills a line alone: the `)` starts the next line.
    let full = "a".repeat(79);
    out.clear();
    w.san(&mut out, b"e4", 1, false);
    w.begin_variation(&mut out);
    w.comment(&mut out, b"x");
    w.san(&mut out, full.as_bytes(), 1, true);
    w.end_variation(&mut out);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(movetext_lines(text(&out)), ["1. e4 ({ x } 1...", full.as_str(), ") *"]);
}

#[test]
fn widths_count_characters_of_utf8_comments() {
    // 70 two-byte characters: 74 characters in braces (144 bytes), and the result fits after
    // them (it would not if bytes were counted).
    let comment = "é".repeat(70);
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.san(&mut out, b"e4", 1, false);
    w.comment(&mut out, comment.as_bytes());
    w.end_game(&mut out, GameResult::Unknown);
    let pgn = text(&out);
    assert_eq!(movetext_lines(pgn), ["1. e4".to_string(), format!("{{ {comment} }} *")]);
    assert!(movetext_lines(pgn).iter().all(|l| l.chars().count() <= 79));
    // A line of exactly 79 characters (221 bytes): `1. €€€` and a comment of 68 `€`.
    out.clear();
    w.san(&mut out, "€".repeat(3).as_bytes(), 1, false);
    w.comment(&mut out, "€".repeat(68).as_bytes());
    w.end_game(&mut out, GameResult::Unknown);
    let lines = movetext_lines(text(&out));
    assert_eq!(lines[0].chars().count(), 79, "{lines:?}");
    // Not UTF-8 (Latin-1): a byte is a character.
    out.clear();
    w.san(&mut out, b"e4", 1, false);
    w.comment(&mut out, &[0xe9; 72]);
    w.end_game(&mut out, GameResult::Unknown);
    let lines = movetext_lines(text(&out));
    assert_eq!(lines, ["1. e4".to_string(), format!("{{ {} }} *", "é".repeat(72))], "76 + 6 > 79");
}

/// A comment that is not UTF-8 is written as its Windows-1252 reading, whichever way it is
/// laid out, and the writer keeps the game's first such comment; a UTF-8 or ASCII one is written
/// as it stands.
#[test]
fn comments_not_utf8_are_written_as_windows_1252() {
    let mut out = Vec::new();
    let mut w = Writer::new().max_line(30);
    w.san(&mut out, b"e4", 1, false);
    w.comment(&mut out, b"[%clk 0:03:00]");
    w.comment(&mut out, "café — naïve".as_bytes());
    assert_eq!(w.take_not_utf8(), None);
    w.comment(&mut out, b" Kasparov\x92s  20\x85Qe7 ");
    w.comment(&mut out, b"a move\x97which we see too often in \xe9l\xe8ve games }");
    w.comment(&mut out, b"");
    assert_eq!(w.take_not_utf8().as_deref(), Some(&b"Kasparov\x92s  20\x85Qe7"[..]));
    assert_eq!(w.take_not_utf8(), None, "taken");
    w.comment(&mut out, b"\xe9");
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(w.take_not_utf8(), None, "the game ended");
    assert_eq!(
        movetext_lines(text(&out)),
        [
            "1. e4 { [%clk 0:03:00] }",
            "{ café — naïve }",
            "{ Kasparov’s 20…Qe7 } { a",
            "move—which we see too often in",
            "élève games } { } { é } *",
        ]
    );
}

#[test]
fn reset_forgets_an_unfinished_game() {
    let mut out = Vec::new();
    let mut w = Writer::new().fill_roster(true);
    w.tag("Event", "dropped");
    w.san(&mut out, b"e4", 1, false);
    w.begin_variation(&mut out);
    out.clear();
    w.reset();
    w.tag("Event", "kept");
    w.san(&mut out, b"d5", 1, true);
    w.end_game(&mut out, GameResult::Unknown);
    let pgn = text(&out);
    assert!(pgn.starts_with("[Event \"kept\"]\n[Site \"?\"]"), "{pgn}");
    assert!(pgn.ends_with("\n\n1... d5 *\n\n"), "{pgn}");
}

#[test]
#[should_panic(expected = "tag after the movetext began")]
fn a_tag_after_a_move_is_a_caller_bug() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.san(&mut out, b"e4", 1, false);
    w.tag("Event", "late");
}

/// A xorshift generator from `seed`: each call gives a number below its argument.
fn below(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}

/// Games of random events (moves, NAGs, comments of every length, nested variations) keep
/// every layout rule and read back as the same events.
#[test]
fn random_games_keep_the_layout_and_read_back() {
    let mut next = below(0x2545_f491_4f6c_dd1d);
    let sans = ["e4", "Nf3", "O-O-O+", "exd8=Q#", "--", "Kxh1", "a3"];
    let mut out = Vec::new();
    let mut w = Writer::new();
    let mut want_games = Vec::new();
    for _ in 0..300 {
        // A tag, so that a game of nothing but its result is no lone result for the reader.
        w.tag("Event", "random");
        let mut want = Vec::new();
        let mut depth = 0;
        let mut ply = 0u32;
        for _ in 0..next(120) {
            match next(10) {
                0..=4 => {
                    let san = sans[next(sans.len() as u64) as usize];
                    w.san(&mut out, san.as_bytes(), ply / 2 + 1, ply % 2 == 1);
                    want.push(format!("san {san}"));
                    ply += 1;
                }
                5 => {
                    let nag = next(256) as u8;
                    w.nag(&mut out, Nag(nag));
                    want.push(format!("nag ${nag}"));
                }
                6 => {
                    let words: Vec<String> =
                        (0..next(40)).map(|i| "é}x".repeat(next(9) as usize) + &i.to_string()).collect();
                    w.comment(&mut out, words.join(" \n\t ").as_bytes());
                    let words: Vec<String> = words.iter().map(|w| w.replace('}', "")).collect();
                    want.push(format!("comment {}", words.join(" ")));
                }
                7 | 8 if depth < 6 => {
                    w.begin_variation(&mut out);
                    want.push("(".into());
                    depth += 1;
                }
                _ if depth > 0 => {
                    w.end_variation(&mut out);
                    want.push(")".into());
                    depth -= 1;
                }
                _ => {}
            }
        }
        want.extend(std::iter::repeat_n(")".to_string(), depth));
        w.end_game(&mut out, GameResult::Draw);
        want_games.push(want);
    }
    let pgn = text(&out);
    for line in pgn.lines() {
        assert!(!line.starts_with(' ') && !line.ends_with(' '), "{line:?}");
        assert!(line.chars().count() <= 79 || !line.contains(' '), "{line:?}");
    }
    // A `)` starts a line only after a full line that holds one token (a word, or a comment
    // whole, with its parentheses).
    let lines: Vec<&str> = pgn.lines().collect();
    for pair in lines.windows(2) {
        if pair[1].starts_with(')') {
            let core = pair[0].trim_start_matches('(').trim_end_matches(')');
            let one_comment = core.starts_with("{ ") && core.ends_with('}') && core.matches('}').count() == 1;
            assert!(pair[0].chars().count() >= 79 && (!core.contains(' ') || one_comment), "{pair:?}");
        }
    }
    let games = trace(&out);
    assert_eq!(games.len(), want_games.len());
    for (game, want) in games.iter().zip(&want_games) {
        assert!(!game.iter().any(|l| l.starts_with("problem")), "{game:?}");
        let got: Vec<String> = game
            .iter()
            .filter_map(|l| {
                let (what, rest) = l.split_once(' ').unwrap_or((l, ""));
                Some(match what.split('@').next()? {
                    "san" => format!("san {rest}"),
                    "nag" => format!("nag {rest}"),
                    "comment" => {
                        let text = rest.split_once("Brace ").expect("brace comment").1;
                        format!("comment {}", text.split_whitespace().collect::<Vec<_>>().join(" "))
                    }
                    "(" => "(".into(),
                    ")" => ")".into(),
                    _ => return None,
                })
            })
            .collect();
        assert_eq!(&got, want);
    }
}

/// The eight-bytes-at-a-time test of a plain comment agrees with the rule byte by byte, on
/// random texts of spaces, printable ASCII, `}`, controls, DEL and UTF-8.
#[test]
fn plain_comments_found_as_byte_by_byte() {
    fn by_bytes(text: &[u8]) -> Option<(&[u8], bool)> {
        let start = text.iter().position(|&b| !is_space(b)).unwrap_or(text.len());
        let end = text.iter().rposition(|&b| !is_space(b)).map_or(start, |i| i + 1);
        let plain = &text[start..end];
        let plain_bytes = plain.iter().all(|&b| matches!(b, b' ' | b'!'..=b'|' | b'~'));
        (plain_bytes && !plain.windows(2).any(|w| w == b"  ")).then(|| (plain, plain.contains(&b' ')))
    }
    let mut next = below(0x9e37_79b9_7f4a_7c15);
    let alphabet: &[u8] = b"  ab[%]09}~\x7f\t\n\x1f\xc3\xa9";
    let mut plain = 0;
    for _ in 0..20_000 {
        let text: Vec<u8> = (0..next(40)).map(|_| alphabet[next(alphabet.len() as u64) as usize]).collect();
        // Most texts drawn from the whole alphabet are not plain: half come from its plain part.
        let text: Vec<u8> = if next(2) == 0 {
            text.into_iter().filter(|&b| b"ab[%]09~ ".contains(&b)).collect()
        } else {
            text
        };
        assert_eq!(plain_comment(&text), by_bytes(&text), "{:?}", String::from_utf8_lossy(&text));
        plain += usize::from(by_bytes(&text).is_some());
    }
    assert!(plain > 2_000, "{plain} plain texts");
}

/// Moves take the short path (a SAN of at most 8 ASCII bytes, a number of at most 8
/// characters) or the general one, with the same text either way.
#[test]
fn short_and_long_move_tokens() {
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.san(&mut out, b"e4", 1, false);
    w.nag(&mut out, Nag(1));
    w.san(&mut out, b"Qa1xb2+!", 99_999, true);
    w.nag(&mut out, Nag(2));
    w.san(&mut out, b"Qa1xb2=Q#", 100_000, true);
    w.san(&mut out, b"N\xc3\xa9", 4_294_967_295, false);
    w.begin_variation(&mut out);
    w.san(&mut out, b"d4", 7, false);
    w.end_variation(&mut out);
    w.end_game(&mut out, GameResult::Unknown);
    assert_eq!(text(&out), "1. e4 $1 99999... Qa1xb2+! $2 100000... Qa1xb2=Q# 4294967295. Né (7. d4) *\n\n");
    assert_eq!(Short::number(99_999, true).map(|s| s.len), Some(8));
    assert!(Short::number(100_000, true).is_none());
    assert!(Short::of(b"").is_none() && Short::of(b"abcdefghi").is_none());
    for n in 1..=8 {
        let san = &b"Qa1xb2=Q"[..n];
        let short = Short::of(san).expect("short");
        assert_eq!((&short.word.to_le_bytes()[..n], short.len), (san, n));
        assert!(n == 8 || short.word >> (8 * n) == 0, "zeros after the text");
    }
}

/// A tag whose name is not a PGN tag name is left out and reported, so what is written reads
/// back as the game given: `[Br]acket "{"]` written would read as no tag, SAN `acket` and a
/// comment that swallows `1. e4`.
#[test]
fn tags_without_a_pgn_tag_name_are_left_out_and_reported() {
    let bad =
        [("Br]acket", "{"), ("Two words", "x"), ("Quo\"te", "y"), ("", "z"), ("Ev-ent", "w"), ("_x", "v")];
    let (mut out, mut w) = (Vec::new(), Writer::new());
    for (name, value) in bad.iter().copied().chain([("White", "A")]) {
        w.tag(name, value);
    }
    let left_out = w.take_left_out_tags();
    let left_out: Vec<(&str, &str)> = left_out.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(left_out, bad);
    assert!(w.take_left_out_tags().is_empty());
    w.san(&mut out, b"e4", 1, false);
    w.comment(&mut out, b"c");
    w.san(&mut out, b"e5", 1, true);
    w.end_game(&mut out, GameResult::Draw);
    assert_eq!(text(&out), "[White \"A\"]\n\n1. e4 { c } 1... e5 1/2-1/2\n\n");
    let events: Vec<String> = trace(&out).concat().into_iter().filter(|e| !e.starts_with("game@")).collect();
    let events: Vec<&str> =
        events.iter().map(|e| e.split_once(' ').map_or(e.as_str(), |(_, rest)| rest)).collect();
    assert_eq!(events, ["White=A", "movetext", "e4", "Brace  c ", "e5", "Some(\"1/2-1/2\")", "end"]);
}
