//! Tests of the reader: tokens, comments, tags, game boundaries, line endings, budgets, each
//! checked on the event trace of small inputs.

use super::*;
use crate::pgn::trace::{Trace, trace};

fn lines(g: &[String]) -> String {
    g.join("\n")
}

fn one(pgn: &str) -> String {
    let games = trace(pgn.as_bytes());
    assert_eq!(games.len(), 1, "{games:#?}");
    lines(&games[0])
}

#[test]
fn simple_game() {
    let g = one("[Event \"E\"]\n[Site \"S\"]\n\n1. e4 e5 2. Nf3 $1 Nc6?! 1-0\n");
    assert_eq!(
        g,
        "game@0\ntag@0 Event=E\ntag@12 Site=S\nmovetext\nsan@27 e4\nsan@30 e5\nsan@36 Nf3\n\
         nag@40 $1\nsan@43 Nc6\nnag@46 $6\noutcome@49 Some(\"1-0\")\nend"
    );
}

#[test]
fn move_numbers_glued_and_black() {
    let g = one("12.e4 12...e5 13. Nf3 13... Nc6 *");
    let sans: Vec<_> = g.lines().filter(|l| l.starts_with("san")).collect();
    assert_eq!(sans, ["san@3 e4", "san@11 e5", "san@18 Nf3", "san@28 Nc6"]);
}

#[test]
fn null_moves_castling_and_symbols() {
    let g = one("1. -- Z0 2. 0-0 O-O-O+ 3. 0000 @@@@ e4 +- N RR exd6 e.p. *");
    let toks: Vec<_> = g
        .lines()
        .filter(|l| l.starts_with("san") || l.starts_with("nag"))
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert_eq!(toks, ["--", "Z0", "0-0", "O-O-O+", "0000", "@@@@", "e4", "$18", "$146", "$145", "exd6"]);
}

#[test]
fn a_result_alone_is_a_game_with_a_warning() {
    let games = trace(b"*\n\n[Event \"a\"]\n\n1. e4 1-0\n\n[Event \"b\"]\n\n*\n");
    let g: Vec<String> = games.iter().map(|g| lines(g)).collect();
    assert_eq!(g.len(), 3, "{g:?}");
    assert!(
        g[0].contains("problem@") && g[0].contains("LoneResult") && g[0].contains("outcome@"),
        "{}",
        g[0]
    );
    // A game with tags, or with anything before its result, is no lone result.
    assert!(!g[1].contains("LoneResult") && !g[2].contains("LoneResult"), "{g:?}");
    assert!(!one("{ c } *").contains("LoneResult"));
    assert!(one("*").contains("LoneResult"));
}

/// A result written again after the game's (`1-0 1-0`, in real collections) is a warning of
/// that game, not a game of its own: the first result stands, comments after it still belong.
#[test]
fn a_result_written_twice_is_a_warning_of_its_game() {
    let games = trace(b"[Event \"a\"]\n\n1. e4 1-0 1-0 {c}\n0-1\n\n[Event \"b\"]\n\n1. d4 *\n");
    let g: Vec<String> = games.iter().map(|g| lines(g)).collect();
    assert_eq!(g.len(), 2, "{g:?}");
    assert_eq!(g[0].matches("RepeatedResult").count(), 2, "{}", g[0]);
    assert_eq!(g[0].matches("outcome@").count(), 1, "{}", g[0]);
    assert!(g[0].contains("comment@"), "{}", g[0]);
    assert!(!g[1].contains("RepeatedResult"), "{}", g[1]);
    // What only starts like a result is the next game's.
    assert_eq!(trace(b"1. e4 1-0\n1. d4 *\n").len(), 2);
    assert_eq!(trace(b"1. e4 1-0\n1-0x *\n").len(), 2);
}

/// Comments before a game's first tag (a collection's preamble) are the game's: read at the
/// start of its movetext with a warning, not a game of their own; the game starts at them.
#[test]
fn comments_before_the_tags_are_the_games() {
    let text = b"; exported by X\n{ and annotated }\n%escape\n\n[Event \"a\"]\n\n1. e4 *\n";
    let games = trace(text);
    assert_eq!(games.len(), 1, "{games:?}");
    let g = lines(&games[0]);
    assert!(g.starts_with("game@0") && g.contains("CommentBeforeTags"), "{g}");
    let order: Vec<&str> = g.lines().map(|l| l.split(['@', ' ']).next().unwrap_or("")).collect();
    let [tag, comment, san] = ["tag", "comment", "san"].map(|e| order.iter().position(|o| *o == e).expect(e));
    assert!(tag < comment && comment < san, "{order:?}");
    assert_eq!(g.matches("comment@").count(), 2, "{g}");
    // A comment that no tag line follows is movetext, as before.
    assert_eq!(trace(b"{ c }\n1. e4 *\n").len(), 1);
    assert!(!lines(&trace(b"{ c }\n1. e4 *\n")[0]).contains("CommentBeforeTags"));
}

#[test]
fn periods_end_tokens() {
    // Periods apart from their number (`25 ...`), a variation of periods, a period after a
    // move, and `ep` apart: none is a move, and the moves around them are read.
    let g = one("25 ... Rc8 (...) 26. e5. dxe5 27. exf6 ep Nf4 28. exd6e.p. *");
    let sans: Vec<_> =
        g.lines().filter(|l| l.starts_with("san")).map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(sans, ["Rc8", "e5", "dxe5", "exf6", "Nf4", "exd6e.p."], "{g}");
    assert!(!g.contains("problem"), "{g}");
}

/// Token and short comment ends are found in 64-byte windows: tokens of every length and
/// comments of every kind, ending at every place in and across a window, read as a byte
/// scan splits them.
#[test]
fn tokens_and_comments_read_whole_across_window_edges() {
    let comments =
        ["c", " [%clk 0:05:00] ", "a\nb", "", &"long ".repeat(20), "x\r", " [%eval 0.17] [%clk 0:00:30] "];
    let mut text = String::new();
    let (mut want, mut want_comments) = (Vec::new(), Vec::new());
    let mut seed = 7u32;
    for i in 0..800 {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let len = 1 + (seed >> 16) as usize % 9;
        let tok: String = (0..len).map(|k| (b'a' + ((i + k) % 8) as u8) as char).collect();
        text.push_str(&tok);
        want.push(tok);
        match (seed >> 8) % 6 {
            0 => text.push(' '),
            1 => text.push_str("  \n"),
            2 => {
                let c = comments[(seed >> 20) as usize % comments.len()];
                text.push_str(&format!(" {{{c}}} "));
                want_comments.push(c.to_string());
            }
            3 => text.push('\t'),
            4 => {
                text.push_str("{}");
                want_comments.push(String::new());
            }
            _ => text.push_str(" $1 "),
        }
    }
    let g = one(&format!("{text}*"));
    let sans: Vec<_> =
        g.lines().filter(|l| l.starts_with("san")).map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(sans, want);
    // A comment's text runs to the end of its trace line and may hold line breaks: read
    // each from after its kind up to the next event.
    let got: Vec<String> = g
        .split("\ncomment@")
        .skip(1)
        .map(|c| {
            let body = c.split_once("Brace ").map_or("", |(_, rest)| rest);
            let end = ["\nsan@", "\nnag@", "\noutcome"]
                .iter()
                .filter_map(|e| body.find(e))
                .min()
                .unwrap_or(body.len());
            body[..end].to_string()
        })
        .collect();
    assert_eq!(got, want_comments);
}

#[test]
fn glyphs_split_off() {
    let g = one("1. e4!! e5?? 2. d4!? d5? 3. c4! c5 ?! *");
    let nags: Vec<_> = g.lines().filter(|l| l.starts_with("nag")).collect();
    assert_eq!(nags.len(), 6);
    assert!(g.contains("san@3 e4\nnag@5 $3"));
    assert!(g.contains("nag@35 $6"));
}

#[test]
fn comments_and_escape_lines() {
    let g = one("% escape { not a comment\n1. e4 { c1 } e5 ; rest { of line\n2. Nf3 *");
    assert!(g.contains("comment@31 Brace  c1 "), "{g}");
    assert!(g.contains("comment@41 Line  rest { of line"), "{g}");
    assert!(g.contains("san@61 Nf3"), "{g}");
    assert!(!g.contains("problem"), "{g}");
}

#[test]
fn crlf_and_cr_line_endings() {
    for nl in ["\r\n", "\r", "\n"] {
        let pgn = format!(
            "[Event \"a\"]{nl}[Site \"b\"]{nl}{nl}1. e4 e5 1-0{nl}{nl}[Event \"c\"]{nl}{nl}1. d4 *{nl}"
        );
        let games = trace(pgn.as_bytes());
        assert_eq!(games.len(), 2, "{nl:?}");
        assert!(lines(&games[0]).contains("tag@") && !lines(&games[0]).contains("problem"));
        assert!(lines(&games[1]).contains("san@") && lines(&games[1]).contains("Event=c"));
    }
}

#[test]
fn tag_escapes_and_broken_tags() {
    let games = trace(
        br#"[Event "a \"q\" \\"]
[Site "Club "Victory""]
[Round "Tournament \"]
[White "unterminated
[Black]
["x"]
[Date "ok"] [Time "also"]

*"#,
    );
    assert_eq!(games.len(), 1);
    let g = lines(&games[0]);
    assert!(g.contains(r#"Event=a \"q\" \\"#), "{g}");
    assert!(g.contains(r#"Site=Club "Victory""#), "{g}");
    assert!(g.contains(r#"Round=Tournament \"#), "{g}");
    assert!(g.contains("White=unterminated"), "{g}");
    assert!(g.contains("Date=ok") && g.contains("Time=also"), "{g}");
    assert_eq!(g.matches("MalformedTag").count(), 2, "{g}");
    assert_eq!(g.matches("UnescapedQuoteInTag").count(), 2, "{g}");
    assert_eq!(g.matches("UnterminatedTagValue").count(), 1, "{g}");
}

#[test]
fn text_not_utf8_is_flagged_once_a_game_where_it_starts() {
    // Latin-1 `ü` in a `%` escape line inside the tag section, in two tags on one line and in a
    // comment: one problem, at the first; UTF-8 `é` is no problem.
    let games = trace(
        b"[Event \"x\"]\n% [Bad \"\xfc\"]\n[White \"M\xfcller\"] [Black \"\xfc\"]\n[Site \"\xc3\xa9\"]\n\n1. e4 {\xfc} *\n\n\
          [Event \"y\"]\n[Site \"\xc3\xa9\"]\n\n1. e4 {ok} e5 ; \xe9\n{\xc3\xa9 \x92} *\n\n[Event \"z\"]\n\n1. e4 {\xc3\xa9} *",
    );
    assert_eq!(games.len(), 3);
    let flagged =
        |g: &[String]| -> Vec<String> { g.iter().filter(|l| l.contains("NotUtf8")).cloned().collect() };
    assert_eq!(flagged(&games[0]), ["problem@20 NotUtf8"], "{}", lines(&games[0]));
    assert_eq!(flagged(&games[1]), ["problem@120 NotUtf8"], "{}", lines(&games[1]));
    assert!(lines(&games[1]).ends_with("problem@120 NotUtf8\nend"), "after the movetext");
    assert_eq!(flagged(&games[2]), Vec::<String>::new());
}

#[test]
fn bom_handling() {
    let games = trace(b"\xef\xbb\xbf[Event \"x\"]\n*");
    assert_eq!(games.len(), 1);
    assert!(lines(&games[0]).starts_with("game@3\ntag@3 Event=x"));
    let games = trace(b"\xff\xfe[\0E\0");
    assert_eq!(games.len(), 1);
    assert!(lines(&games[0]).contains("Utf16Bom"));
}

#[test]
fn games_without_blank_lines() {
    let games = trace(b"[Event \"a\"]\n1. e4 e5 1-0\n[Event \"b\"]\n1. d4 d5 0-1\n[Event \"c\"]\n1. c4\n[Event \"d\"]\n1. f4 *");
    assert_eq!(games.len(), 4);
    assert!(lines(&games[2]).contains("outcome@") && lines(&games[2]).contains("None"));
}

#[test]
fn header_only_games() {
    let games = trace(
        b"[Event \"a\"]\n[Round \"1\"]\n\n[Round \"2\"]\n\n[Event \"b\"]\n\n[Date \"x\"]\n[Round \"3\"]\n",
    );
    // A blank line + `Event` or a tag the game already has starts a new game; another
    // tag after a blank line does not.
    assert_eq!(games.len(), 3, "{games:#?}");
    assert!(lines(&games[2]).contains("Date=x"));
}

#[test]
fn results_end_games_and_trailing_comment_stays() {
    let games = trace(b"1. e4 1-0 {won on time}\n; more\n1. d4 0-1\n\n{after} e4 *");
    assert_eq!(games.len(), 3);
    assert!(lines(&games[0]).contains("won on time") && lines(&games[0]).contains("more"));
    assert!(lines(&games[1]).contains("after"));
    assert!(lines(&games[2]).contains("san@") && lines(&games[2]).contains("\"*\""));
}

#[test]
fn variations_nested_skipped_and_unbalanced() {
    let g = one("1. e4 (1. d4 (1. c4) d5) e5 ) (2. f4 *");
    assert_eq!(g.matches("(@").count(), 3);
    assert_eq!(g.matches(")@").count(), 3, "{g}");
    assert!(g.contains("UnmatchedCloseParen") && g.contains("UnclosedVariation"));
    assert!(g.contains("ResultInVariation"));
    let mut t = Trace { skip_variations: true, ..Trace::default() };
    let mut r = Reader::new(b"1. e4 (1. d4 {c} (1. c4) d5) e5 1-0");
    let g = lines(&r.read_game(&mut t).unwrap());
    assert_eq!(g.matches("san@").count(), 2, "{g}");
    assert!(!g.contains("comment") && !g.contains(")@"), "{g}");
    assert!(g.contains("1-0"));
}

#[test]
fn unterminated_comment_ends_at_next_game() {
    let pgn = b"[Event \"a\"]\n\n1. e4 {I miss my brace\n\n*\n\n[Event \"b\"]\n\n1. e4 {c} e5 1-0\n";
    let games = trace(pgn);
    assert_eq!(games.len(), 2, "{games:#?}");
    assert!(lines(&games[0]).contains("UnterminatedComment"));
    assert!(lines(&games[1]).contains("san@") && lines(&games[1]).contains("comment@"));
    // Without any later brace at all.
    let games = trace(b"1. e4 {open\n[Event \"b\"]\n1. d4 *");
    assert_eq!(games.len(), 2);
    // A closed comment quoting a game is one comment.
    let games = trace(b"1. e4 {see:\n\n[Event \"q\"]\n1. d4 1-0\n} e5 *\n");
    assert_eq!(games.len(), 1, "{games:#?}");
    assert!(!lines(&games[0]).contains("problem"));
}

#[test]
fn binary_garbage_resyncs() {
    let games = trace(b"1. e4 \0\x01\x02 junk {\n[Event \"b\"]\n1. d4 *");
    assert_eq!(games.len(), 2);
    assert!(lines(&games[0]).contains("BinaryData"));
    assert!(lines(&games[1]).contains("Event=b"));
}

#[test]
fn nag_range() {
    let g = one("1. e4 $0 $255 $256 $ e5 *");
    assert!(g.contains("$0") && g.contains("$255"));
    assert_eq!(g.matches("InvalidNag").count(), 2);
}

#[test]
fn skip_game_and_offsets() {
    let pgn = b"[Event \"a\"]\n1. e4 *\n\n[Event \"b\"]\n1. d4 *\n";
    let mut r = Reader::new(pgn);
    assert!(r.skip_game());
    assert_eq!(r.offset(), 19);
    let mut t = Trace::default();
    assert!(lines(&r.read_game(&mut t).unwrap()).starts_with("game@21"));
    assert!(!r.skip_game());
    assert!(r.is_at_end());
}

#[test]
fn with_base_offsets() {
    let pgn = b"1. e4 *";
    let mut r = Reader::with_base(pgn, 1000);
    let mut t = Trace::default();
    assert!(lines(&r.read_game(&mut t).unwrap()).contains("san@1003 e4"));
}

#[test]
fn empty_and_whitespace_inputs() {
    assert!(trace(b"").is_empty());
    assert!(trace(b" \n\r\n% only an escape\n\t").is_empty());
    assert!(trace(b"\xef\xbb\xbf").is_empty());
}

#[test]
fn budgets() {
    let limits =
        Limits { max_tokens: 10, max_depth: 2, max_comment: 8, max_problems: 3, ..Limits::default() };
    let mut r = Reader::new(b"1. e4 e5 2. d4 d5 3. c4 c5 4. f4 f5 5. g4 g5 6. h4 *\n").with_limits(limits);
    let mut t = Trace::default();
    let g = lines(&r.read_game(&mut t).unwrap());
    assert!(g.contains("TooManyTokens") && !g.contains("outcome"), "{g}");
    let mut r = Reader::new(b"e4 (((e5))) {long comment here} ) ) ) ) ) *").with_limits(limits);
    let g = lines(&r.read_game(&mut t).unwrap());
    assert!(g.contains("VariationTooDeep") && g.contains("CommentTooLong"), "{g}");
    assert!(g.contains("TooManyProblems"), "{g}");
    assert_eq!(g.matches("problem").count(), 4, "{g}");
}

/// All games of `pgn` read with a comment budget of 8 bytes, traced, and where the reader had
/// looked up to after the first.
fn with_short_comments(pgn: &str) -> (Vec<String>, usize) {
    let limits = Limits { max_comment: 8, ..Limits::default() };
    let mut r = Reader::new(pgn.as_bytes()).with_limits(limits);
    let mut t = Trace::default();
    let mut games = Vec::new();
    let mut searched = None;
    while let Some(g) = r.read_game(&mut t) {
        games.push(lines(&g));
        searched.get_or_insert(r.searched_to());
    }
    (games, searched.unwrap_or(0))
}

/// A comment longer than the budget ends at its `}` as a shorter one does, its text cut at the
/// budget: nothing in it (a result, a tag line, moves) is read as movetext, and the search looks
/// no further than the brace that decides.
#[test]
fn a_comment_past_the_budget_ends_at_its_brace() {
    let pgn = "1. e4 {0123456789 1-0\n\n[Event \"x\"]\n\n1. d4 *\n} e5 * [Event \"y\"] {";
    let (games, searched) = with_short_comments(pgn);
    assert_eq!(games.len(), 2, "{games:#?}");
    assert_eq!(
        games[0],
        "game@0\nmovetext\nsan@3 e4\nproblem@6 CommentTooLong\ncomment@6 Brace 01234567\nsan@46 e5\n\
         outcome@49 Some(\"*\")\nend"
    );
    assert!(games[1].contains("tag@51 Event=y"), "{games:#?}");
    // A line break just before the budget starts a tag line the scan within it did not see.
    let (games, _) = with_short_comments("e4 {0123456\n[Event \"x\"] } e5 *");
    assert_eq!(games.len(), 1, "{games:#?}");
    assert!(games[0].contains("CommentTooLong") && games[0].contains("san@26 e5"), "{games:#?}");
    // Past the budget the rules for a comment with a tag line hold too: a `{` after the tag line
    // and before any `}` makes it unterminated, and the next game starts at the tag line.
    let (games, searched_open) = with_short_comments("e4 {0123456789\n[Event \"x\"]\n\n1. d4 {a} *");
    assert_eq!(games.len(), 2, "{games:#?}");
    assert!(games[0].contains("problem@3 UnterminatedComment\ncomment@3 Brace 01234567\n"), "{games:#?}");
    assert!(games[1].starts_with("game@15\ntag@15 Event=x"), "{games:#?}");
    assert_eq!((searched, searched_open), (45, 35));
    // Without any `}`: one game to the end of the input, its comment cut at the budget.
    let (games, searched) = with_short_comments("e4 {0123456789 e5 1-0\n\n1. d4 *");
    assert_eq!(games.len(), 1, "{games:#?}");
    assert_eq!(
        games[0],
        "game@0\nmovetext\nsan@0 e4\nproblem@3 UnterminatedComment\ncomment@3 Brace 01234567\n\
         outcome@30 None\nend"
    );
    assert_eq!(searched, 30);
}

/// All games of `pgn` read with `limits`, traced.
fn with_limits(pgn: &[u8], limits: Limits) -> Vec<String> {
    let mut r = Reader::new(pgn).with_limits(limits);
    let mut t = Trace::default();
    std::iter::from_fn(|| r.read_game(&mut t).map(|g| lines(&g))).collect()
}

/// Past the tag budget (a count, or bytes) the game's later tags are skipped with one problem at
/// the first of them; its movetext is read, and the next game has a budget of its own.
#[test]
fn tags_past_the_budget_are_skipped() {
    let pgn = b"[A \"1\"]\n[B \"2\"]\n[C \"3\"]\n[D \"4\"]\n\n1. e4 *\n[E \"5\"]\n[F \"6\"]\n\n1. d4 *\n";
    let games = with_limits(pgn, Limits { max_tags: 2, ..Limits::default() });
    assert_eq!(
        games,
        [
            "game@0\ntag@0 A=1\ntag@8 B=2\nproblem@16 TooManyTags\nmovetext\nsan@36 e4\noutcome@39 Some(\"*\")\nend",
            "game@41\ntag@41 E=5\ntag@49 F=6\nmovetext\nsan@61 d4\noutcome@64 Some(\"*\")\nend",
        ]
    );
    // 17 bytes: the first two tags (7 bytes each) fit, the third would pass the budget.
    let games = with_limits(pgn, Limits { max_tag_bytes: 17, ..Limits::default() });
    assert!(
        games[0].starts_with("game@0\ntag@0 A=1\ntag@8 B=2\nproblem@16 TooManyTags\nmovetext\n"),
        "{games:#?}"
    );
    assert_eq!(games.len(), 2, "{games:#?}");
    // Under the budget, nothing changes.
    assert_eq!(
        with_limits(pgn, Limits { max_tags: 4, max_tag_bytes: 28, ..Limits::default() }),
        trace(pgn).iter().map(|g| lines(g)).collect::<Vec<_>>()
    );
}

/// A token longer than the budget, in movetext or a tag pair, is skipped alone with one problem
/// where it starts; the reading goes on after it.
#[test]
fn tokens_past_the_budget_are_skipped() {
    let limits = Limits { max_token: 64, ..Limits::default() };
    let word = "A".repeat(65);
    let pgn = format!(
        "[Event \"e\"]\n[Site \"{}\"]\n[Round \"1\"]\n\n1. e4 {word} e5 {} *\n",
        "s".repeat(56),
        "B".repeat(64)
    );
    let games = with_limits(pgn.as_bytes(), limits);
    assert_eq!(games.len(), 1, "{games:#?}");
    let g = &games[0];
    assert_eq!(
        g.lines().filter(|l| !l.starts_with("san@") || l.len() < 20).collect::<Vec<_>>(),
        [
            "game@0",
            "tag@0 Event=e",
            "problem@12 TokenTooLong",
            "tag@78 Round=1",
            "movetext",
            "san@94 e4",
            "problem@97 TokenTooLong",
            "san@163 e5",
            "outcome@231 Some(\"*\")",
            "end"
        ],
        "{g}"
    );
    // A token as long as the budget is read.
    assert!(g.contains(&format!("san@166 {}", "B".repeat(64))), "{g}");
    assert_eq!(long_token(pgn.as_bytes(), 97), word.as_bytes());
    assert_eq!(long_token(pgn.as_bytes(), 12).len(), 65);
    // The same game under the default budget: every token delivered.
    let g = lines(&trace(pgn.as_bytes())[0]);
    assert!(!g.contains("TokenTooLong") && g.contains(&format!("san@97 {word}")), "{g}");
}

/// A `;` comment longer than the budget is cut there as a `{` comment is, and ends at its line.
#[test]
fn a_line_comment_past_the_budget_is_cut() {
    let games =
        with_limits(b"e4 ;0123456789\ne5 ;01234567\n*", Limits { max_comment: 8, ..Limits::default() });
    assert_eq!(
        games,
        ["game@0\nmovetext\nsan@0 e4\nproblem@3 CommentTooLong\ncomment@3 Line 01234567\nsan@15 e5\n\
          comment@18 Line 01234567\noutcome@28 Some(\"*\")\nend"]
    );
}

/// A blank line, then a tag the game has already, ends a header-only game, whatever the number
/// of its tags (past a few, names are looked up in a set).
#[test]
fn a_repeated_tag_after_a_blank_line_ends_a_game_of_many_tags() {
    let tags: String = (0..40).map(|i| format!("[T{i} \"v\"]\n")).collect();
    let pgn = format!("{tags}\n[T35 \"w\"]\n\n[U \"x\"]\n\n[T39 \"y\"]\n1. e4 *\n");
    let games = trace(pgn.as_bytes());
    assert_eq!(games.len(), 2, "{games:#?}");
    assert!(games[1][1].starts_with("tag@") && games[1][1].ends_with("T35=w"), "{games:#?}");
    assert!(games[1].iter().any(|l| l.ends_with("U=x")) && games[1].iter().any(|l| l.ends_with("T39=y")));
}

/// A game's trace with offsets from its first byte, to compare a game read at two places.
fn relative(g: &[String]) -> Vec<String> {
    let start: usize = g[0].strip_prefix("game@").and_then(|o| o.parse().ok()).expect("game@offset");
    g.iter()
        .map(|l| match l.split_once('@') {
            Some((what, rest)) => {
                let (offset, tail) = rest.split_once(' ').unwrap_or((rest, ""));
                let offset: usize = offset.parse().expect("offset");
                format!("{what}@{} {tail}", offset - start)
            }
            None => l.clone(),
        })
        .collect()
}

/// A line starting with `[` after movetext ends the game even when it is no tag
/// (`[Event Casual Game"]`): the game before it ends as a truncated game does, and the next one
/// reads as it does after a result, instead of both losing the line.
#[test]
fn a_malformed_tag_line_after_movetext_starts_the_next_game() {
    let next = "[Event Casual Game\"]\n[White \"C\"]\n\n1. d4 d5 1-0\n";
    let after_result = trace(format!("[White \"A\"]\n\n1. e4 e5 1-0\n\n{next}").as_bytes());
    let truncated = trace(format!("[White \"A\"]\n\n1. e4 e5\n\n{next}").as_bytes());
    assert_eq!((after_result.len(), truncated.len()), (2, 2), "{truncated:#?}");
    assert_eq!(
        lines(&truncated[0]),
        "game@0\ntag@0 White=A\nmovetext\nsan@16 e4\nsan@19 e5\noutcome@23 None\nend"
    );
    assert_eq!(relative(&truncated[1]), relative(&after_result[1]));
    let g = lines(&truncated[1]);
    assert!(g.starts_with("game@23\nproblem@23 MalformedTag\ntag@44 White=C\nmovetext\n"), "{g}");
    // In a variation too, and whatever follows the `[` but a `%`; a `[` inside a line stays a
    // token skipped.
    let games = trace(b"1. e4 (1. d4\n[clk 0:01:00]\n1. c4 [x] e5 *");
    assert_eq!(games.len(), 2, "{games:#?}");
    assert!(lines(&games[0]).contains("problem@13 UnclosedVariation"), "{}", lines(&games[0]));
    let g = lines(&games[1]);
    assert!(g.contains("problem@13 MalformedTag") && g.contains("problem@33 UnexpectedToken"), "{g}");
    assert!(g.contains("san@37 e5") && g.contains("outcome@40 Some(\"*\")"), "{g}");
}

/// What [`unexpected_token`] names is what the reader skipped: the next event starts after it.
/// A `[` that starts no tag line is an error (it may have held something); punctuation alone
/// a warning.
#[test]
fn unexpected_tokens_are_the_bytes_skipped() {
    let pgn: &[u8] = b"1. e4 \\$14 e5 [%clk 0:01] Nf3 &^|\\ Nc6 [open\nBb5 a%b *";
    let g = one(std::str::from_utf8(pgn).unwrap());
    let skipped: Vec<(&[u8], &str)> = g
        .lines()
        .filter_map(|l| l.strip_prefix("problem@")?.split_once(' '))
        .map(|(o, kind)| (unexpected_token(pgn, o.parse().unwrap()), kind))
        .collect();
    assert_eq!(
        skipped,
        [
            (&b"\\"[..], "StrayBytes"),
            (b"[%clk 0:01]", "UnexpectedToken"),
            (b"&^|\\", "StrayBytes"),
            (b"[open", "UnexpectedToken"),
            (b"%", "StrayBytes")
        ],
        "{g}"
    );
    assert!(ProblemKind::UnexpectedToken.is_error() && !ProblemKind::StrayBytes.is_error());
    let sans: Vec<_> = g.lines().filter(|l| l.starts_with("san")).collect();
    assert_eq!(
        sans,
        ["san@3 e4", "san@11 e5", "san@26 Nf3", "san@35 Nc6", "san@45 Bb5", "san@49 a", "san@51 b"]
    );
    assert!(g.contains("nag@7 $14"), "{g}");
    assert_eq!(unexpected_token(pgn, pgn.len()), b"");
}

/// A `]` repeated after a tag pair's own is skipped with a warning: read as movetext it ended
/// the tags, and the next tag line split the game.
#[test]
fn a_bracket_repeated_after_a_tag_is_skipped() {
    let g = one("[Event \"A\"]]\n[White \"W\"]]]\n\n1. e4 *\n");
    assert!(g.contains("problem@11 StrayAfterTag") && g.contains("problem@24 StrayAfterTag"), "{g}");
    assert!(g.contains("tag@0 Event=A") && g.contains("tag@13 White=W") && g.contains("san@31 e4"), "{g}");
}

/// A line that starts with a comment's command outside its comment (`[%clk 0:01:00]`) is the
/// game's, skipped as a bracketed note: `[%` starts no tag, so no next game.
#[test]
fn a_command_at_a_lines_start_does_not_end_the_game() {
    let games = trace(b"[Event \"a\"]\n\n1. e4\n[%clk 0:01:00] e5 2. Nf3 *\n\n[Event \"b\"]\n\n1. d4 *\n");
    assert_eq!(games.len(), 2, "{games:?}");
    let g = lines(&games[0]);
    assert_eq!(g.matches("san@").count(), 3, "{g}");
    assert!(g.contains("UnexpectedToken"), "{g}");
}
