//! The counts a job adds to a run's [`Stats`](super::stats::Stats) beside games and diagnostics,
//! each a [`Counter`] with the stable name the summaries (JSON keys and text lines) give it, and
//! the kinds of repair `clean` counts, one counter each.

macro_rules! counters {
    ($($counter:ident => $name:literal, $what:literal;)*) => {
        /// A count of a job's own, summed across chunks and inputs; ordered as declared, the
        /// order of the text summary's lines.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Counter {
            $(#[doc = $what] $counter,)*
            /// Repairs of one kind (`clean`).
            Repaired(RepairKind),
        }

        impl Counter {
            /// How many counters there are, a repair kind's each ([`RepairKind::COUNT`]).
            pub const COUNT: usize = [$($name),*].len() + RepairKind::COUNT;

            /// The stable snake_case name: the key in JSON summaries, the words of the text line.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Counter::$counter => $name,)*
                    Counter::Repaired(kind) => kind.count(),
                }
            }

            /// The counter named `name` (as [`Counter::name`] gives it), if any.
            pub fn from_name(name: &str) -> Option<Counter> {
                match name {
                    $($name => Some(Counter::$counter),)*
                    _ => RepairKind::from_count(name).map(Counter::Repaired),
                }
            }
        }
    };
}

counters! {
    Written => "written", "Games `clean` wrote.";
    Rejected => "rejected", "Games `clean` rejected.";
    Filtered => "filtered", "Games left out by the filters (every job).";
    Duplicates => "duplicates", "Games that repeat an earlier one (`clean --dedup`).";
    ComparedInPart => "compared_in_part", "Games `clean --dedup` compared with only the latest 1,024 of the older games that may be the same game (one moves key, result and word of each player's name) or the latest 262,144 of one moves key, or, under `prefix`, while 524,288 shorter games waited for longer records: a repeat of an older one is kept as distinct.";
    KeptBroken => "kept_broken", "Games written as their valid prefix (`clean --keep-broken`), among those written.";
    SkippedForErrors => "skipped_for_errors", "Games `positions --skip-errors` wrote no position of, for an error (among the games the filters kept).";
    PositionsWritten => "positions_written", "Positions `positions` wrote.";
    Positions => "positions", "Mainline positions of the games (or EPD lines) `annotate` annotated.";
    Analysed => "analysed", "Positions sent to the engine.";
    CacheHits => "cache_hits", "Positions whose evaluation came from the cache.";
    CacheLookups => "cache_lookups", "Positions looked up in the cache, its hits among them.";
    EngineMicroseconds => "engine_microseconds", "Time spent waiting on the engine (clearing its hash, searching, answering), summed over the engines: against engines x wall time, how busy the pool was.";
    FromRules => "from_rules", "Positions decided by the rules (checkmate, stalemate): never sent.";
    Unevaluated => "unevaluated", "Positions left without an evaluation (the engine failed on them).";
    TimedOut => "timed_out", "Of those, the positions where the engine hung (or missed its deadline).";
    Crashed => "crashed", "Of those, the positions where the engine crashed on every try.";
    Annotated => "annotated", "Games written with annotations.";
    WrittenAsRead => "written_as_read", "Games written as read: an error in their moves, a null move in the mainline, or (`annotate`) no position the engine evaluated.";
}

macro_rules! repair_kinds {
    ($($kind:ident => $code:literal, $count:literal, $what:literal;)*) => {
        /// The kinds of repair `clean` makes, each with a stable code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RepairKind { $(#[doc = $what] $kind),* }

        impl RepairKind {
            /// How many kinds there are.
            pub const COUNT: usize = [$($code),*].len();
            /// Stable snake_case code (report records, the ledger's `repairs`).
            pub const fn code(self) -> &'static str { match self { $(RepairKind::$kind => $code),* } }
            /// The name of this kind's count in the run's summary.
            pub const fn count(self) -> &'static str { match self { $(RepairKind::$kind => $count),* } }
            /// The kind whose count is named `name`, if any.
            pub fn from_count(name: &str) -> Option<RepairKind> {
                match name { $($count => Some(RepairKind::$kind),)* _ => None }
            }
        }
    };
}

repair_kinds! {
    San => "san", "repaired_san", "a move not written as its canonical SAN (0-0, Pe4, Ng1-f3, g1f3, nf3, e8Q)";
    CheckMark => "check_mark", "repaired_check_mark", "a missing or wrong + or #";
    NullMove => "null_move", "repaired_null_move", "a null move written otherwise than -- (Z0, 0000, @@@@)";
    GluedResult => "glued_result", "repaired_glued_result", "a result glued to the last move (gxf41-0)";
    ResultSpelling => "result_spelling", "repaired_result_spelling", "a result written oddly, as the token or in the Result tag: a Unicode dash, ½, 1/2, 1:0, blanks around it";
    Result => "result", "repaired_result", "the Result tag or the result token settled";
    Tag => "tag", "repaired_tag", "a tag set right: a value unterminated (read to the end of its line), missing its closing `]` or with quotes not escaped (shown as read and as written), or with control characters (tabs: written as spaces), a name repeated (the later one left out), a tag pair that does not read as one or whose name is not the standard's letters, digits and _, a Variation or SubVariation tag beside the lichess table's Opening (`--eco-tags all`) (left out, shown as read), an ECO or Opening value the table's replaces (`--eco-tags all`; shown as read and as written)";
    Encoding => "encoding", "repaired_encoding", "text that was not UTF-8, read as Windows-1252 (one a game: the first such tag value or comment, its bytes not UTF-8 shown as \\xNN)";
    Date => "date", "repaired_date", "a date not in export form: 2024-01-15, 2024/1/5, 2018.5.3, a year alone, ? (written 2024.01.15, 2024.01.05, 2018.05.03, 2018.??.??, ????.??.??), or a date that names no day, whose impossible parts are written unknown (2003.04.31 as 2003.04.??, 1999.13.05 as 1999.??.05)";
    Variant => "variant", "repaired_variant", "a Variant tag spelled otherwise than Chess960 or Crazyhouse, or [Variant \"Chess960\"] added to a game whose FEN gives castling rights only Chess960 has";
    Fen => "fen", "repaired_fen", "a FEN with castling rights its rooks contradict, an impossible en passant square or fullmove 0, or not in export form (more than one space between fields, fields left out, Shredder-FEN castling rights)";
    SetUp => "setup", "repaired_setup", "a FEN without SetUp \"1\", or SetUp \"1\" without a FEN (dropped)";
    Roster => "roster", "repaired_roster", "Seven Tag Roster tags added with the standard's unknown values";
    Syntax => "syntax", "repaired_syntax", "movetext read leniently: text with no meaning skipped (stray punctuation, a NAG past $255, a word of annotation such as TN, a } outside a comment or inside a ; comment, a result inside a variation, an empty variation), a detached # or a move glued to periods (..e5); `before` is the warning that names it (for a } in a ; comment, the comment as read)";
    Variation => "variation", "repaired_variation", "a variation cut at its first illegal, ambiguous or unreadable move, which stops that line: the rest of it (shown as read) left out";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repair_counts_under_its_code_with_the_repaired_prefix() {
        for kind in [RepairKind::San, RepairKind::CheckMark, RepairKind::SetUp, RepairKind::Roster] {
            assert_eq!(Counter::Repaired(kind).name(), format!("repaired_{}", kind.code()));
        }
        assert_eq!(Counter::PositionsWritten.name(), "positions_written");
    }
}
