//! Comments as written (`{ ... }` or `; ...` to the end of the line) and the lichess/chess.com
//! comment commands inside them: `[%eval 0.17]`, `[%eval #-4]`, `[%eval 0.17,20]`,
//! `[%clk 0:03:00]`, `[%clk 0:02:58.6]`, `[%emt 0:00:05]`, `[%csl ..]`, `[%cal ..]`.
//!
//! Invariant: nothing is parsed until asked; every parser here is linear in the comment length.

use std::time::Duration;

/// How a comment was delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentKind {
    /// `{ ... }`.
    Brace,
    /// `; ...` up to the end of the line.
    Line,
}

/// A comment's text as written (without its delimiters), with the offset of `{` or `;`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawComment<'a> {
    /// Bytes between `{` and `}` (or after `;` up to the line break).
    pub raw: &'a [u8],
    /// Byte offset of the opening `{` or `;` in the input.
    pub offset: usize,
    /// Braces or rest-of-line.
    pub kind: CommentKind,
}

/// One `[%name args]` command in a comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command<'a> {
    /// The name after `%`, e.g. `eval`.
    pub name: &'a [u8],
    /// Everything up to `]`, trimmed.
    pub args: &'a [u8],
}

/// An engine score: centipawns (pawns*100) or mate in N moves, both from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalScore {
    /// Centipawns, positive is good for White.
    Cp(i32),
    /// Mate in N moves; negative: White gets mated. `#0`: the side to move is mated.
    Mate(i32),
}

/// A `[%eval ...]` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eval {
    /// The score.
    pub score: EvalScore,
    /// The search depth after the comma, if given.
    pub depth: Option<u32>,
}

impl<'a> RawComment<'a> {
    /// The comment text with surrounding whitespace trimmed.
    pub fn text(&self) -> &'a [u8] {
        self.raw.trim_ascii()
    }

    /// Iterates over the `[%name args]` commands in order of appearance.
    pub fn commands(&self) -> Commands<'a> {
        Commands { rest: self.raw }
    }

    /// The first command named `name`.
    pub fn command(&self, name: &[u8]) -> Option<Command<'a>> {
        self.commands().find(|c| c.name == name)
    }

    /// `[%eval ...]`: pawns as centipawns, or `#N` mates, optional `,depth`.
    ///
    /// ```
    /// use pgnkit::pgn::{RawComment, CommentKind, Eval, EvalScore};
    /// let c = RawComment { raw: b" [%eval #-4] [%clk 0:03:00] ", offset: 0, kind: CommentKind::Brace };
    /// assert_eq!(c.eval(), Some(Eval { score: EvalScore::Mate(-4), depth: None }));
    /// assert_eq!(c.clock(), Some(std::time::Duration::from_secs(180)));
    /// ```
    pub fn eval(&self) -> Option<Eval> {
        parse_eval(self.command(b"eval")?.args)
    }

    /// `[%clk H:MM:SS(.f)]`, the clock after the move.
    pub fn clock(&self) -> Option<Duration> {
        parse_clock(self.command(b"clk")?.args)
    }

    /// `[%eval E] [%clk H:MM:SS]` exactly as lichess and `annotate` write it (one space inside
    /// the braces on each side, `E` pawns with at most two decimals or `#N`, no fraction of a
    /// second), read in one pass with no search: the comment on nearly every move of a lichess
    /// export. Anything else is `None`, to be read by [`RawComment::commands`] and the parsers,
    /// which give the same figures for these (tested).
    ///
    /// ```
    /// use pgnkit::pgn::{RawComment, CommentKind, EvalScore};
    /// let c = RawComment { raw: b" [%eval -0.05] [%clk 0:05:01] ", offset: 0, kind: CommentKind::Brace };
    /// assert_eq!(c.lichess_eval_and_clock(), Some((EvalScore::Cp(-5), std::time::Duration::from_secs(301))));
    /// ```
    #[inline]
    pub fn lichess_eval_and_clock(&self) -> Option<(EvalScore, Duration)> {
        let rest = self.raw.strip_prefix(b" [%eval ")?;
        let (score, rest) = short_eval(rest)?;
        let rest = rest.strip_prefix(b"] [%clk ")?;
        Some((score, clock_to_end(rest)?))
    }

    /// `[%emt H:MM:SS(.f)]`, the time spent on the move.
    pub fn emt(&self) -> Option<Duration> {
        parse_clock(self.command(b"emt")?.args)
    }
}

/// Iterator over `[%name args]` commands; see [`RawComment::commands`].
#[derive(Debug, Clone)]
pub struct Commands<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Commands<'a> {
    type Item = Command<'a>;

    fn next(&mut self) -> Option<Command<'a>> {
        loop {
            // `[` then `%`, by plain loops: comments are a few dozen bytes, where the substring
            // search built a searcher per call and the vector searches' setup dominated.
            let open = self.rest.iter().position(|&b| b == b'[')?;
            let body = &self.rest[open + 1..];
            let Some(body) = body.strip_prefix(b"%") else {
                self.rest = body;
                continue;
            };
            let Some(close) = body.iter().position(|&b| b == b']') else {
                self.rest = &[];
                return None;
            };
            self.rest = &body[close + 1..];
            let inner = &body[..close];
            let name_len = inner.iter().position(|b| b.is_ascii_whitespace()).unwrap_or(inner.len());
            if name_len == 0 {
                continue;
            }
            return Some(Command { name: &inner[..name_len], args: inner[name_len..].trim_ascii() });
        }
    }
}

/// Parses the arguments of `[%eval ...]`.
pub fn parse_eval(args: &[u8]) -> Option<Eval> {
    let (score, depth) = match args.iter().position(|&b| b == b',') {
        Some(i) => (args[..i].trim_ascii(), Some(args[i + 1..].trim_ascii())),
        None => (args.trim_ascii(), None),
    };
    let depth = match depth {
        Some(d) => Some(parse_u32(d)?),
        None => None,
    };
    let score = if let Some(m) = score.strip_prefix(b"#") {
        let (neg, digits) = sign(m);
        let n = i32::try_from(parse_u32(digits)?).ok()?;
        EvalScore::Mate(if neg { -n } else { n })
    } else {
        let (neg, num) = sign(score);
        let (int, frac) = match num.iter().position(|&b| b == b'.') {
            Some(i) => (&num[..i], &num[i + 1..]),
            None => (num, &b""[..]),
        };
        if (int.is_empty() && frac.is_empty()) || !frac.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let int = if int.is_empty() { 0 } else { parse_u32(int)? };
        let mut hundredths = 0u32;
        for i in 0..2 {
            hundredths = hundredths * 10 + frac.get(i).map_or(0, |d| u32::from(d - b'0'));
        }
        if frac.get(2).is_some_and(|&d| d >= b'5') {
            hundredths += 1;
        }
        let cp = i32::try_from(u64::from(int) * 100 + u64::from(hundredths)).ok()?;
        EvalScore::Cp(if neg { -cp } else { cp })
    };
    Some(Eval { score, depth })
}

/// Parses `H:MM:SS`, `MM:SS` or `SS`, each with an optional `.fraction` (up to milliseconds).
/// One pass over the bytes: every move of a lichess export has a clock.
pub fn parse_clock(args: &[u8]) -> Option<Duration> {
    let (whole, frac) = match args.iter().position(|&b| b == b'.') {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &b""[..]),
    };
    if frac.len() > 9 || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let (mut secs, mut part, mut digits, mut parts) = (0u64, 0u32, 0, 1);
    for &b in whole {
        if b == b':' {
            if digits == 0 || parts == 3 {
                return None;
            }
            secs = secs * 60 + u64::from(part);
            (part, digits, parts) = (0, 0, parts + 1);
        } else if b.is_ascii_digit() && digits < 9 {
            part = part * 10 + u32::from(b - b'0');
            digits += 1;
        } else {
            return None;
        }
    }
    if digits == 0 {
        return None;
    }
    secs = secs * 60 + u64::from(part);
    let mut millis = 0u32;
    for i in 0..3 {
        millis = millis * 10 + frac.get(i).map_or(0, |d| u32::from(d - b'0'));
    }
    Some(Duration::from_secs(secs) + Duration::from_millis(u64::from(millis)))
}

/// The digits at the start of `s`, at most `max` of them, as a number, and the rest; `None`
/// without a digit or with more than `max`.
#[inline(always)]
fn digits(s: &[u8], max: usize) -> Option<(u32, &[u8])> {
    let (mut value, mut n) = (0u32, 0);
    while let Some(&b) = s.get(n).filter(|_| n <= max) {
        let d = b.wrapping_sub(b'0');
        if d >= 10 {
            break;
        }
        value = value * 10 + u32::from(d);
        n += 1;
    }
    (n != 0 && n <= max).then(|| (value, &s[n..]))
}

/// `-?D{1,4}(.D{1,2})?` or `#-?D{1,4}` at the start of `s`, as [`parse_eval`] reads it.
#[inline(always)]
fn short_eval(s: &[u8]) -> Option<(EvalScore, &[u8])> {
    let (mate, s) = match s.strip_prefix(b"#") {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (neg, s) = match s.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int, s) = digits(s, 4)?;
    let sign = |v: u32| if neg { -(v as i32) } else { v as i32 };
    if mate {
        return Some((EvalScore::Mate(sign(int)), s));
    }
    let Some(frac) = s.strip_prefix(b".") else { return Some((EvalScore::Cp(sign(int * 100)), s)) };
    let (f, rest) = digits(frac, 2)?;
    let hundredths = if frac.len() - rest.len() == 1 { f * 10 } else { f };
    Some((EvalScore::Cp(sign(int * 100 + hundredths)), rest))
}

/// `H:MM:SS] ` (`H` one or two digits), the end of lichess's comment, as [`parse_clock`] reads
/// the clock: matched by its length and fixed bytes, with no search.
#[inline(always)]
fn clock_to_end(s: &[u8]) -> Option<Duration> {
    let digit = |b: u8| {
        let d = b.wrapping_sub(b'0');
        (d < 10).then_some(u64::from(d))
    };
    let (h, rest) = match s.len() {
        9 => (digit(s[0])?, &s[1..]),
        10 => (digit(s[0])? * 10 + digit(s[1])?, &s[2..]),
        _ => return None,
    };
    let &[b':', m1, m2, b':', s1, s2, b']', b' '] = rest else { return None };
    let secs = (h * 60 + digit(m1)? * 10 + digit(m2)?) * 60 + digit(s1)? * 10 + digit(s2)?;
    Some(Duration::from_secs(secs))
}

fn sign(s: &[u8]) -> (bool, &[u8]) {
    match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn parse_u32(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 9 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0, |acc, &d| acc * 10 + u32::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> RawComment<'_> {
        RawComment { raw: s.as_bytes(), offset: 0, kind: CommentKind::Brace }
    }

    #[test]
    fn evals() {
        let e = |s| c(s).eval();
        assert_eq!(e(" [%eval 0.17] "), Some(Eval { score: EvalScore::Cp(17), depth: None }));
        assert_eq!(e("[%eval -1.5]"), Some(Eval { score: EvalScore::Cp(-150), depth: None }));
        assert_eq!(e("[%eval 0.17,20]"), Some(Eval { score: EvalScore::Cp(17), depth: Some(20) }));
        assert_eq!(e("[%eval #-4]"), Some(Eval { score: EvalScore::Mate(-4), depth: None }));
        assert_eq!(e("[%eval #3,40]"), Some(Eval { score: EvalScore::Mate(3), depth: Some(40) }));
        assert_eq!(e("[%eval 12]"), Some(Eval { score: EvalScore::Cp(1200), depth: None }));
        assert_eq!(e("[%eval -0.005]"), Some(Eval { score: EvalScore::Cp(-1), depth: None }));
        assert_eq!(e("[%eval .5]"), Some(Eval { score: EvalScore::Cp(50), depth: None }));
        assert_eq!(e("[%eval abc]"), None);
        assert_eq!(e("[%eval ]"), None);
        assert_eq!(e("[%eval #]"), None);
        assert_eq!(e("no commands"), None);
        assert_eq!(e("[%eval 0.3"), None);
    }

    #[test]
    fn clocks() {
        assert_eq!(c("[%clk 0:03:00]").clock(), Some(Duration::from_secs(180)));
        assert_eq!(c("[%clk 0:02:58.6]").clock(), Some(Duration::from_millis(178_600)));
        assert_eq!(c("[%clk 1:00:00.25]").clock(), Some(Duration::from_millis(3_600_250)));
        assert_eq!(c("[%emt 0:00:05]").emt(), Some(Duration::from_secs(5)));
        assert_eq!(c("[%clk x]").clock(), None);
        assert_eq!(c("[%clk 1:2:3:4]").clock(), None);
        for bad in ["1:", ":30", ".5", "1::2", "1234567890", "0:01.x", "0:01.1234567890", "+5"] {
            assert_eq!(parse_clock(bad.as_bytes()), None, "{bad}");
        }
        assert_eq!(parse_clock(b"59.9999"), Some(Duration::from_millis(59_999)));
        assert_eq!(parse_clock(b"123456789"), Some(Duration::from_secs(123_456_789)));
        assert_eq!(c("[x] [[%clk 0:00:07] [").clock(), Some(Duration::from_secs(7)));
    }

    #[test]
    fn commands_in_order() {
        let cm = c("Good. [%csl Ga4,Rb5] [%cal Ge2e4] [%] [%clk 0:01:00]");
        let names: Vec<_> = cm.commands().map(|c| c.name).collect();
        assert_eq!(names, [&b"csl"[..], b"cal", b"clk"]);
        assert_eq!(cm.command(b"cal").unwrap().args, b"Ge2e4");
        assert_eq!(cm.text(), cm.raw.trim_ascii());
    }

    #[test]
    fn the_lichess_reading_agrees_with_the_parsers_or_declines() {
        let evals = ["0.17", "-0.05", "0.1", "12", "-3.5", "9999.99", "#3", "#-12", "#0", "-0", "+0.5"];
        let evals = evals.into_iter().chain(["12.", ".5", "0.123", "0.17,20", "10000", "#", "- 1", "1e3"]);
        let clocks = ["0:05:00", "1:00:01", "12:34:56", "0:00:00", "0:5:00", "100:00:00", "0:05:00.5"];
        for e in evals {
            for clk in clocks.into_iter().chain(["5:00", "0:05", "0:0a:00", ""]) {
                let raw = format!(" [%eval {e}] [%clk {clk}] ");
                let comment = c(&raw);
                let general = comment.eval().zip(comment.clock()).map(|(e, t)| (e.score, t));
                if let Some(fast) = comment.lichess_eval_and_clock() {
                    assert_eq!(Some(fast), general, "{raw}");
                }
            }
        }
        let read = |raw: &str| c(raw).lichess_eval_and_clock();
        assert_eq!(
            read(" [%eval -0.05] [%clk 0:05:01] "),
            Some((EvalScore::Cp(-5), Duration::from_secs(301)))
        );
        assert_eq!(
            read(" [%eval #-2] [%clk 1:00:00] "),
            Some((EvalScore::Mate(-2), Duration::from_secs(3600)))
        );
        assert_eq!(read(" [%eval 0.1] [%clk 0:00:09] "), Some((EvalScore::Cp(10), Duration::from_secs(9))));
        for declined in [
            " [%eval 0.17] [%clk 0:05:00] Blunder. ",
            "[%eval 0.17] [%clk 0:05:00]",
            " [%eval 0.123] [%clk 0:05:00] ",
        ] {
            assert_eq!(read(declined), None, "{declined}");
        }
    }
}
