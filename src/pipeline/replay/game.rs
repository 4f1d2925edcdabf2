//! What a job sees of each game as it is replayed: the [`Game`] (tags, start, counts, its bytes)
//! and the [`Hooks`] it implements to receive every event of the game in input order: the tags
//! (with a verdict: replay, or skip cheaply), every move of the mainline and of each variation
//! with its depth and the position before it, every comment and NAG where it stands, variation
//! starts and ends, diagnostics, the rest of each variation an error ended ([`Cut`]), and the
//! end with the result and the game's byte range.

use crate::chess::{Move, Position, Variant};
use crate::error::{Diagnostic, Kind, Severity};
use crate::notation::san::Lenience;
use crate::pgn::date::{TagDate, is_date_tag, standard_form};
use crate::pgn::{GameResult, Nag, RawComment, RawTag, SanToken};

/// The first `Variant`, `FEN` and `Result` tags of a game: noted as the tags are read, where a
/// search by name for each compared every tag name of the same length byte by byte.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct SetupTags<'a> {
    pub(super) variant: Option<RawTag<'a>>,
    pub(super) fen: Option<RawTag<'a>>,
    pub(super) result: Option<RawTag<'a>>,
}

/// What the replayer knows about the game being read.
#[derive(Debug)]
pub struct Game<'a> {
    /// Game number in its input, 1-based (relative to the chunk with guessed cuts, until the
    /// pipeline makes it absolute on release).
    pub number: u64,
    /// Byte offset of the game's first token in the input.
    pub offset: u64,
    /// Byte offset just past the game (its result token and the comments after it); known at
    /// [`Hooks::end`].
    pub end: u64,
    /// The game's own bytes, `offset..end` of the input; known at [`Hooks::end`].
    pub bytes: &'a [u8],
    /// Line of the game's start, relative to the chunk (1-based).
    pub line: u64,
    /// Tag pairs as written, in order.
    pub tags: Vec<(&'a [u8], RawTag<'a>)>,
    /// The tags every game looks up, noted as they are read.
    pub(super) setup_tags: SetupTags<'a>,
    /// The names of `tags`, a bit each ([`name_bit`]).
    names: u64,
    /// The indices in `tags` of those whose name an earlier tag has ([`Game::repeated`]), in
    /// order.
    repeats: Vec<usize>,
    /// A date tag ([`is_date_tag`]) names no day ([`TagDate::impossible`]).
    no_day: bool,
    /// The names of the first tags (how many, the set), once a game has more than [`SCANNED`]:
    /// a name is then looked up, not compared with every earlier one (time linear in the tags).
    /// Boxed: only such a game makes it, and the game's hot fields stay close.
    named: Option<Box<NameSet<'a>>>,
    /// The rule set (from the `Variant` tag).
    pub variant: Variant,
    /// The start position, unless the setup was bad.
    pub start: Option<Position>,
    /// Mainline plies replayed (the valid prefix) so far.
    pub plies: u32,
    /// Errors so far.
    pub errors: u32,
    /// Warnings so far.
    pub warnings: u32,
    /// While the rest of a variation an error ended is read: that variation's depth. Its
    /// comments, NAGs and inner variations then come as read (no move of it is replayed) until
    /// [`Hooks::cut`] gives its text. `None` elsewhere, after a mainline error too.
    pub cutting: Option<u32>,
    /// Errors inside variations an error ended: the error that ended each and any in its rest.
    /// A job that keeps each rest as read ([`Hooks::cut`]) loses no text to them.
    pub cut_errors: u32,
    /// The result token of the movetext.
    pub result: Option<GameResult>,
    /// [`Hooks::tags`] chose to skip the game: its movetext was scanned, not replayed.
    pub skipped: bool,
}

/// The variant a game of `variant` (its Variant tag's) from `start` is played as: Chess960 for a
/// standard game whose FEN holds castling rights only Chess960 has (a king off the e-file, a
/// rook off its corner), which the replay plays as such and other readers reject as standard
/// chess.
pub fn played_variant(variant: Variant, start: Option<&Position>) -> Variant {
    match start {
        Some(p)
            if variant == Variant::Standard
                && p.castling_mode() == crate::chess::CastlingMode::Chess960
                && p.castling_rights().any() =>
        {
            Variant::Chess960
        }
        _ => variant,
    }
}

/// Whether `value` is a date, in the standard's form or one written for it ([`standard_form`]:
/// `2024-02-30`), that names no day ([`TagDate::impossible`]).
fn names_no_day(value: RawTag<'_>) -> bool {
    no_day(value.raw).is_some()
}

/// Why the date `text` ([`standard_form`]) names no day, if it is one that does not.
pub(super) fn no_day(text: &[u8]) -> Option<String> {
    // The standard's form is read as it is, with no copy.
    let date = TagDate::parse(text).or_else(|| Some(TagDate::of_form(&standard_form(text)?)))?;
    date.impossible()
}

impl<'a> Game<'a> {
    pub(super) fn new() -> Game<'a> {
        Game {
            number: 0,
            offset: 0,
            end: 0,
            bytes: &[],
            line: 1,
            tags: Vec::new(),
            setup_tags: SetupTags::default(),
            names: 0,
            repeats: Vec::new(),
            no_day: false,
            named: None,
            variant: Variant::Standard,
            start: None,
            plies: 0,
            errors: 0,
            warnings: 0,
            cutting: None,
            cut_errors: 0,
            result: None,
            skipped: false,
        }
    }

    /// A game known by its tag pairs alone, for the filters and hooks that read tags: records
    /// that are no PGN (`annotate`'s JSON Lines) give their game's tags this way.
    pub fn from_tags(number: u64, tags: impl IntoIterator<Item = (&'a [u8], RawTag<'a>)>) -> Game<'a> {
        let mut game = Game::new();
        game.number = number;
        for (name, value) in tags {
            game.push_tag(name, value);
        }
        game
    }

    /// The input offset `offset` as an index into [`Game::bytes`] (clamped to them).
    pub fn at(&self, offset: u64) -> usize {
        (offset.saturating_sub(self.offset) as usize).min(self.bytes.len())
    }

    /// Forgets the tags, for the next game.
    pub(super) fn clear_tags(&mut self) {
        self.tags.clear();
        self.setup_tags = SetupTags::default();
        self.names = 0;
        self.repeats.clear();
        self.no_day = false;
        self.named = None;
    }

    /// Records a tag pair, noting it when an earlier tag has its name ([`Game::repeated`]): a
    /// bit a name ([`name_bit`]), and the name compared with the earlier ones only when one of
    /// them has its bit.
    #[inline]
    pub(super) fn push_tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        let t = &mut self.setup_tags;
        match name {
            b"Variant" if t.variant.is_none() => t.variant = Some(value),
            b"FEN" if t.fen.is_none() => t.fen = Some(value),
            b"Result" if t.result.is_none() => t.result = Some(value),
            _ => {}
        }
        let bit = name_bit(name);
        if self.names & bit != 0 {
            self.compare_last(name);
        }
        self.names |= bit;
        if is_date_tag(name) && names_no_day(value) {
            self.no_day = true;
        }
        self.tags.push((name, value));
    }

    /// Notes the tag `name`, about to be pushed, if an earlier tag has its name.
    #[cold]
    #[inline(never)]
    fn compare_last(&mut self, name: &'a [u8]) {
        let repeat = if self.tags.len() <= SCANNED {
            self.tags.iter().any(|&(n, _)| n == name)
        } else {
            // The names since the last lookup join the set: each tag is added once.
            let (indexed, named) = &mut **self.named.get_or_insert_default();
            named.extend(self.tags[*indexed..].iter().map(|&(n, _)| n));
            *indexed = self.tags.len();
            named.contains(name)
        };
        if repeat {
            self.repeats.push(self.tags.len());
        }
    }

    /// The variant the game is played as ([`played_variant`] of its tag's and its start).
    pub fn played_variant(&self) -> Variant {
        played_variant(self.variant, self.start.as_ref())
    }

    /// Whether a date tag names no day (the replay says which and why).
    pub(super) fn has_no_day(&self) -> bool {
        self.no_day
    }

    /// Whether some tag has the name of an earlier one ([`Game::repeated`]).
    pub(super) fn has_repeats(&self) -> bool {
        !self.repeats.is_empty()
    }

    /// Whether tag `i` of [`Game::tags`] has the name of an earlier one: a name is one tag (the
    /// standard's), the game's is the first, as [`Game::tag`] and the replay read it.
    pub fn repeated(&self, i: usize) -> bool {
        self.repeats.binary_search(&i).is_ok()
    }

    /// The first tag named `name`.
    pub fn tag(&self, name: &[u8]) -> Option<RawTag<'a>> {
        self.tags.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    /// The first tag named `name`, its value as text (Windows-1252 fallback).
    pub fn tag_text(&self, name: &[u8]) -> Option<String> {
        self.tag(name).map(|t| t.decode().0.into_owned())
    }
}

/// How many of a game's first tags are in the set, and the set of their names.
type NameSet<'a> = (usize, hashbrown::HashSet<&'a [u8]>);

/// Tags of a game whose names a repeated bit compares one by one; past this many, by a set.
const SCANNED: usize = 32;

/// A bit for a tag name, from its length and its first, middle and last bytes: names of
/// different bits differ, so a name is compared with the earlier ones only when its bit is
/// among theirs (comparing every pair measured 3% of `clean`). The multiplier gives the tags of
/// a lichess, TWIC or chess.com export bits of their own (`UTCDate` and `UTCTime` differ in the
/// middle only), so their games compare no name.
#[inline]
fn name_bit(name: &[u8]) -> u64 {
    let byte = |i: usize| u64::from(name.get(i).copied().unwrap_or(0));
    let len = name.len();
    let key = len as u64 | byte(0) << 8 | byte(len.wrapping_sub(1)) << 16 | byte(len / 2) << 24;
    1u64 << (key.wrapping_mul(0x8bba_0187_4bed_e72b) >> 58)
}

/// The rest of a variation an error ended, as [`Hooks::cut`] receives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut<'a> {
    /// The error that ended it.
    pub kind: Kind,
    /// Byte offset of `text` in the input.
    pub offset: u64,
    /// The rest as read: from the token that ended the variation up to its `)`, excluded; all of
    /// the variation, parentheses included, when `whole`.
    pub text: &'a [u8],
    /// No move of the variation was replayed: its first did not resolve, or it had no move
    /// before it to replace.
    pub whole: bool,
}

/// What a job decides once a game's tags are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Replay the game.
    Replay,
    /// Skip it cheaply: its movetext is scanned (so games stay delimited exactly) but not
    /// replayed, and no event of the movetext follows; [`Hooks::end`] still comes.
    Skip,
}

/// Which lines' moves [`Hooks::played`] receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lines {
    /// None.
    None,
    /// The mainline's.
    Mainline,
    /// The mainline's and every replayed variation's.
    All,
}

/// A legal move (or a null move) of a line, as [`Hooks::played`] receives it.
#[derive(Clone, Copy, Debug)]
pub struct Played<'a, 'p> {
    /// 0 for the mainline, 1 for a variation of it, 2 for a variation inside that, ...
    pub depth: u32,
    /// Plies played from the game's start before this move, on its line.
    pub ply: u32,
    /// The position the move is played in.
    pub before: &'p Position,
    /// The move; `None` for a null move (`--`, `Z0`, ...).
    pub mv: Option<Move>,
    /// The move as written.
    pub token: SanToken<'a>,
    /// With [`Hooks::written_san`]: the token is exactly the move's canonical SAN, check mark
    /// included (nearly always), so a job can copy it instead of writing the SAN again.
    pub canonical: bool,
    /// With [`Hooks::written_san`]: what was not canonical in the token ([`Lenience::NULL_MOVE`]
    /// for a null move); without it, nothing is known yet and this is empty.
    pub lenience: Lenience,
}

impl<'a> Played<'a, '_> {
    /// The written token when it is the canonical SAN (see [`Played::canonical`]).
    #[inline]
    pub fn canonical_san(&self) -> Option<&'a [u8]> {
        self.canonical.then_some(self.token.raw)
    }
}

/// What a job does with the replayed games: every method has a default that does nothing, so a
/// job implements what it reads and the replay does no more work than the job asks for.
pub trait Hooks<'a> {
    /// Replay variations too (slower; every move of every variation is validated). Without it
    /// variations are skipped: none of their events reach the hooks.
    fn variations(&self) -> bool {
        false
    }
    /// Whether the hooks read [`Position::zobrist`]: moves keep the key up to date only then
    /// (else it is computed when asked for), which saves a third of what a move costs.
    fn zobrist_keys(&self) -> bool {
        true
    }
    /// Whether the job reads the mainline's `[%eval]`s and `[%clk]`s: the replay then reads each
    /// mainline comment's once and hands them to [`eval_clock`](Self::eval_clock), and one that
    /// reads as no evaluation is a `bad_eval` warning where it stands, not a move quietly left
    /// unevaluated.
    fn reads_evals(&self) -> bool {
        false
    }
    /// Whether diagnostics of `kind`/`severity` are wanted (building a message costs a FEN).
    fn wants(&self, kind: Kind, severity: Severity) -> bool {
        let _ = (kind, severity);
        true
    }
    /// Whether a null move (in the `mainline` or a variation) is an error rather than a warning
    /// (`clean --reject-null-moves`, `annotate`'s mainline): its game then counts among the
    /// games with errors, as its diagnostic says.
    fn refuses_null_moves(&self, mainline: bool) -> bool {
        let _ = mainline;
        false
    }
    /// Which lines' moves [`played`](Self::played) receives.
    fn moves(&self) -> Lines {
        Lines::None
    }
    /// Whether [`played`](Self::played) wants to know if the written token is the canonical
    /// SAN: it is then called after the move is played and its check mark verified (on a copy
    /// of the position before), else before the move is played.
    fn written_san(&self) -> bool {
        false
    }
    /// The game's tags are read (the movetext is not): replay it, or skip it.
    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        let _ = game;
        Verdict::Replay
    }
    /// The game's start position is known (not called when the setup is bad).
    fn start(&mut self, game: &Game<'a>, pos: &Position) {
        let _ = (game, pos);
    }
    /// A move of a line that [`moves`](Self::moves) selects. For the mainline, `game.plies`
    /// still counts the plies before it.
    fn played(&mut self, game: &Game<'a>, played: &Played<'a, '_>) {
        let _ = (game, played);
    }
    /// A NAG at `offset`, `depth` variations deep (0: the mainline).
    fn nag(&mut self, game: &Game<'a>, depth: u32, nag: Nag, offset: u64) {
        let _ = (game, depth, nag, offset);
    }
    /// A comment, `depth` variations deep (0: the mainline), where it stands.
    fn comment(&mut self, game: &Game<'a>, depth: u32, comment: RawComment<'a>) {
        let _ = (game, depth, comment);
    }
    /// With [`reads_evals`](Self::reads_evals), after a mainline comment: the evaluation and
    /// clock it gives the last mainline move (or the start, before the first), each only the
    /// first time the move gets one (python-chess reads the first of a move's comments).
    fn eval_clock(&mut self, game: &Game<'a>, figures: super::EvalClock) {
        let _ = (game, figures);
    }
    /// A variation starts (`depth`: its own depth, 1 for a variation of the mainline); `replayed`
    /// is false when it has no move to replace (reported as a `syntax` error before this call)
    /// or its line is dead (its moves are read, not replayed).
    fn begin_variation(&mut self, game: &Game<'a>, depth: u32, replayed: bool) {
        let _ = (game, depth, replayed);
    }
    /// The variation of depth `depth` ends.
    fn end_variation(&mut self, game: &Game<'a>, depth: u32) {
        let _ = (game, depth);
    }
    /// A variation an error ended closes (just before its [`end_variation`](Self::end_variation)):
    /// the rest of it as read. Its events after the error came as read while [`Game::cutting`]
    /// was set. The mainline has no cut: its error is the game's.
    fn cut(&mut self, game: &Game<'a>, depth: u32, cut: Cut<'a>) {
        let _ = (game, depth, cut);
    }
    /// A problem in the game (inside a variation an error ended when [`Game::cutting`] is set).
    fn diagnostic(&mut self, game: &Game<'a>, d: Diagnostic) {
        let _ = (game, d);
    }
    /// `n` problems of `kind` past the game's first [`Limits::MAX_PROBLEMS`](crate::pgn::Limits)
    /// diagnostics: counted, not built nor handed to [`diagnostic`](Self::diagnostic) (a job
    /// that derives something from each problem counts the rest here).
    fn unshown(&mut self, game: &Game<'a>, kind: Kind, severity: Severity, n: u32) {
        let _ = (game, kind, severity, n);
    }
    /// The game is over: `game.result`, `game.end` and `game.bytes` are known; `last` is the
    /// position after the valid mainline prefix (`None` when the setup was bad or the game was
    /// skipped).
    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        let _ = (game, last);
    }
    /// Asked after [`end`](Self::end): whether the game's problems count in the statistics. A
    /// job answers `false` for a game its filters leave out (its problems are not reported
    /// either); the game is still counted as read.
    fn counted(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tags of an export: lichess's, TWIC's, chess.com's.
    const EXPORTS: [&str; 3] = [
        "Event Site Date Round White Black Result UTCDate UTCTime WhiteElo BlackElo WhiteRatingDiff \
         BlackRatingDiff WhiteTitle BlackTitle ECO Opening TimeControl Termination Variant FEN SetUp",
        "Event Site Date Round White Black Result WhiteTitle BlackTitle WhiteElo BlackElo ECO Opening \
         Variation WhiteFideId BlackFideId EventDate PlyCount Annotator WhiteTeam BlackTeam",
        "Event Site Date Round White Black Result CurrentPosition Timezone ECO ECOUrl UTCDate UTCTime \
         WhiteElo BlackElo TimeControl Termination StartTime EndDate EndTime Link SetUp FEN",
    ];

    #[test]
    fn the_tags_of_an_export_have_bits_of_their_own() {
        for names in EXPORTS {
            let mut bits = 0u64;
            for name in names.split_whitespace() {
                let bit = name_bit(name.as_bytes());
                assert_eq!(bits & bit, 0, "{name} shares its bit in {names}");
                bits |= bit;
            }
        }
    }

    /// Names of the same bit are compared: only the same name is a repeat.
    #[test]
    fn names_of_one_bit_are_told_apart_by_their_bytes() {
        let white = name_bit(b"White");
        let other = (0..100_000)
            .map(|n| format!("X{n}"))
            .find(|name| name_bit(name.as_bytes()) == white)
            .expect("a name of White's bit");
        let value = RawTag { raw: b"A", offset: 0 };
        let names = ["White", other.as_str(), "Black", "White", other.as_str()];
        let game = Game::from_tags(1, names.iter().map(|n| (n.as_bytes(), value)));
        let repeated: Vec<usize> = (0..names.len()).filter(|&i| game.repeated(i)).collect();
        assert_eq!(repeated, [3, 4], "{other}");
    }
}
