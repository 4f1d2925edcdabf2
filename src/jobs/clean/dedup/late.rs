//! `--dedup` past the distinct games held in memory ([`Late`]). Once the [`Seen`] set holds
//! [`HELD`] games it is frozen, and every later game waits in a temporary file, in order: a game
//! the rule compares with what it writes as the first of its identity (its text, its report
//! records) and as a repeat (the game as read); any other game (rejected, filtered, not
//! compared) with what it writes. The waiting games' identities are sorted by moves key, then
//! game, with an external sort ([`crate::io::sort`]), and each key's games are put, after the
//! frozen set's games with that key, through a set of their own: the rules compare only games
//! with one moves key, so each game gets the verdict the whole set in memory gives it. The
//! repeats found, sorted by game, are taken as the waiting games are written, in order, after
//! those written before. Under `prefix` every game waits, from the first, and the verdicts come
//! from the walk over the compared games' mainlines ([`Mainlines`]). Memory: the frozen set, a
//! sorter's run and the merges' buffers; a waiting game's texts go to the spool from where they
//! are, and those past a bound come back into files of their own: no text is held whole.

use std::cmp::Ordering;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};

use super::super::spill::{Bytes, read_text};
use super::verdict::{Repeats, VERDICTS_HELD, Verdict};
use super::walk::Mainlines;
use super::{Identity, Repeat, Rule, Seen};
use crate::error::Error;
use crate::io::sort::{Record, Sorter, SpillError, read_or_end, rewound};
use crate::io::spill::SpilledText;
use crate::pipeline::counter::RepairKind;

/// Distinct games `--dedup` holds in memory before later games wait in temporary files: 7/8 of
/// a table of 2^22 buckets, the most it holds before doubling (about 250 MB under `game`, 90 MB
/// under `moves`).
pub const HELD: usize = (1 << 22) / 8 * 7;
/// Identities sorted in memory at a time: 64 bytes each.
const CANDIDATES_HELD: usize = 1 << 20;

/// A waiting game's identity and its number over the run, ordered by moves key, then number.
struct Candidate {
    id: Identity,
    ordinal: u64,
}

impl Candidate {
    fn order(&self) -> ([u32; 3], u64) {
        (self.id.key.0, self.ordinal)
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Candidate) -> bool {
        self.order() == other.order()
    }
}

impl Eq for Candidate {}

impl Ord for Candidate {
    fn cmp(&self, other: &Candidate) -> Ordering {
        self.order().cmp(&other.order())
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Candidate) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Record for Candidate {
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.id.to_bytes())?;
        out.write_all(&self.ordinal.to_le_bytes())
    }

    fn read_from(input: &mut impl BufRead) -> io::Result<Option<Candidate>> {
        let mut id = [0u8; Identity::BYTES];
        if !read_or_end(input, &mut id)? {
            return Ok(None);
        }
        let id = Identity::from_bytes(&id).ok_or_else(|| bad("an identity"))?;
        let mut ordinal = [0u8; 8];
        input.read_exact(&mut ordinal)?;
        Ok(Some(Candidate { id, ordinal: u64::from_le_bytes(ordinal) }))
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("a temporary file of --dedup: {what} unreadable"))
}

/// A waiting game as read back. Compared games (with an `id`) carry every field; the others
/// only `text` and `records`.
#[derive(Debug, Default)]
pub struct Waiting {
    /// Its identity when the rule compares it (then its fate is the verdict).
    pub id: Option<Identity>,
    /// Where it is (when compared).
    pub at: Place,
    /// Its repairs counted by kind.
    pub repairs: Vec<(RepairKind, u64)>,
    /// Its text in export format: what it writes to the output (on disk past the bound
    /// [`Late::new`] was given).
    pub text: SpilledText,
    /// The game as read: what a repeat writes to the duplicates (when there is such a file).
    pub verbatim: SpilledText,
    /// Its report records when written (when there is a report).
    pub records: Vec<u8>,
    /// Its mainline ([`super::mainline`]) when the waiting games keep theirs ([`Late::new`]).
    pub mainline: Vec<u8>,
}

/// Where a compared game is, and what it is beside its texts.
#[derive(Debug, Default)]
pub struct Place {
    /// Its number over the run (0-based, every game read counted).
    pub ordinal: u64,
    /// Its input among the writer's.
    pub input: u32,
    /// Its number in the input (1-based).
    pub game: u64,
    /// Its line.
    pub line: u64,
    /// Its offset.
    pub offset: u64,
    /// Kept broken.
    pub broken: bool,
}

fn put_bytes(out: &mut impl Write, b: &[u8]) -> io::Result<()> {
    put_text(out, Bytes::Held(b))
}

/// Puts a text wherever it is, copied from disk when it is there.
fn put_text(out: &mut impl Write, b: Bytes<'_>) -> io::Result<()> {
    out.write_all(&b.len().to_le_bytes())?;
    b.copy_to(out)
}

fn get_u64(r: &mut impl Read) -> io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn get_bytes(r: &mut impl Read, into: &mut Vec<u8>) -> io::Result<()> {
    let n = get_u64(r)?;
    into.clear();
    let got = r.take(n).read_to_end(into)?;
    if got as u64 != n {
        return Err(bad("a text cut short"));
    }
    Ok(())
}

/// A text put by [`put_text`], on disk past `bound` bytes.
fn get_text(r: &mut impl Read, bound: usize) -> io::Result<SpilledText> {
    let n = get_u64(r)?;
    read_text(r, n, bound)
}

/// Identities of games waiting for their verdicts, sorted on disk by moves key, then game.
pub struct Judge {
    candidates: Sorter<Candidate>,
}

impl Default for Judge {
    fn default() -> Judge {
        Judge { candidates: Sorter::new(CANDIDATES_HELD) }
    }
}

impl Judge {
    /// Adds the game numbered `ordinal` over the run (rising from call to call), identity `id`.
    pub fn push(&mut self, id: &Identity, ordinal: u64) -> io::Result<()> {
        self.candidates.push(Candidate { id: *id, ordinal })
    }

    /// The repeats among the games pushed, after the games of `held` (the frozen set, whose
    /// games all came before them): each key's games go through a set of their own, seeded
    /// with the latest [`Seen::of_one_key`] of `held`'s games of that key in their order, and
    /// keeping the latest of them alone ([`Seen::keep_latest`]). Fails with
    /// [`Error::Interrupted`] once `requested` says so.
    pub fn repeats(self, held: &Seen, requested: &dyn Fn() -> bool) -> Result<Repeats, Error> {
        let spill = |e: io::Error| Error::from(SpillError::from(e));
        let mut repeats = Sorter::<Verdict>::new(VERDICTS_HELD);
        let (mut group, mut ordinals, mut entries) = (held.like(), Vec::new(), Vec::new());
        let (mut key, mut seeds_in_part) = (None, 0);
        for c in self.candidates.finish().map_err(spill)? {
            let c = c.map_err(spill)?;
            if requested() {
                return Err(Error::Interrupted);
            }
            if key != Some(c.id.key) {
                key = Some(c.id.key);
                group.clear();
                ordinals.clear();
                entries.clear();
                entries.extend(held.all_with_key(c.id.key).take(held.of_one_key()));
                if let Some(&oldest) = entries.last() {
                    group.starting_at(held.rank(oldest));
                }
                // The held games were counted when they came.
                let counted = group.compared_in_part();
                for &e in entries.iter().rev() {
                    group.insert(&held.identity(e))?;
                    ordinals.push(held.first_game(e));
                }
                seeds_in_part += group.compared_in_part() - counted;
            }
            match group.insert(&c.id)? {
                None => {
                    ordinals.push(c.ordinal);
                    ordinals.drain(..group.keep_latest()?);
                }
                Some(e) => {
                    let verdict = Verdict { at: c.ordinal, of: ordinals[e as usize], shorter: false };
                    repeats.push(verdict).map_err(spill)?;
                }
            }
        }
        let in_part = group.compared_in_part() - seeds_in_part;
        Repeats::new(repeats.finish().map_err(spill)?, held.rule(), in_part).map_err(spill)
    }
}

/// What finds the verdicts of games waiting for them: a run's past its memory bound or under
/// `prefix`, and `merge`'s over its shards' keys parts.
pub enum Pending {
    /// `game`, `moves`: their identities, judged key by key after the frozen set's games.
    Judge(Judge),
    /// `prefix`: their mainlines, walked in order ([`Mainlines`]).
    Mainlines(Mainlines),
}

impl Pending {
    /// No game yet, under `rule`.
    pub fn new(rule: Rule) -> Pending {
        match rule {
            Rule::Prefix => Pending::Mainlines(Mainlines::default()),
            Rule::Game | Rule::Moves => Pending::Judge(Judge::default()),
        }
    }

    /// Adds the game numbered `ordinal` over the run (rising from call to call), identity `id`
    /// and mainline `mainline` ([`super::mainline`], read under `prefix` only).
    pub fn push(&mut self, id: &Identity, mainline: &[u8], ordinal: u64) -> io::Result<()> {
        match self {
            Pending::Judge(judge) => judge.push(id, ordinal),
            Pending::Mainlines(lines) => lines.push(id, mainline, ordinal),
        }
    }

    /// The verdicts of the games pushed, after the games of `held` (the frozen set; empty under
    /// `prefix`); fails with [`Error::Interrupted`] once `requested` says so.
    pub fn repeats(self, held: &Seen, requested: &dyn Fn() -> bool) -> Result<Repeats, Error> {
        match self {
            Pending::Judge(judge) => judge.repeats(held, requested),
            Pending::Mainlines(lines) => lines.verdicts(requested),
        }
    }
}

/// The games waiting for their verdicts, in order, and the identities of those compared.
pub struct Late {
    spool: BufWriter<File>,
    pending: Pending,
    /// The compared games' occasions and mainlines wait with them, for a shard's keys part.
    lines_kept: bool,
    /// Bytes of a text read back into memory: a longer one is copied to a file of its own.
    held: usize,
}

impl Late {
    /// No game waiting yet, under `rule`; with `lines_kept` (a shard's writer under `prefix`)
    /// each compared game's occasion and mainline come back with it ([`Waiting`]); a text longer
    /// than `held` bytes comes back on disk.
    pub fn new(rule: Rule, lines_kept: bool, held: usize) -> Result<Late, Error> {
        let spool = BufWriter::with_capacity(1 << 20, tempfile::tempfile().map_err(SpillError::from)?);
        Ok(Late { spool, pending: Pending::new(rule), lines_kept, held })
    }

    /// A game whose fate is known: `text` for the output, `records` for the report.
    pub(in crate::jobs::clean) fn settled(&mut self, text: Bytes<'_>, records: &[u8]) -> Result<(), Error> {
        let s = &mut self.spool;
        let written = (|| {
            s.write_all(b"S")?;
            put_text(s, text)?;
            put_bytes(s, records)
        })();
        written.map_err(|e| SpillError::from(e).into())
    }

    /// A game the rule compares, with identity `id` (and mainline, [`super::mainline`], under
    /// `prefix`): its place, its repairs, and what it writes as the first of its identity
    /// (`text`, `records`) or as a repeat (`verbatim`).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jobs::clean) fn compared(
        &mut self,
        id: &Identity,
        mainline: &[u8],
        at: &Place,
        repairs: impl ExactSizeIterator<Item = (RepairKind, u64)>,
        text: Bytes<'_>,
        verbatim: Bytes<'_>,
        records: &[u8],
    ) -> Result<(), Error> {
        let s = &mut self.spool;
        let written = (|| {
            s.write_all(b"C")?;
            s.write_all(&id.to_bytes())?;
            s.write_all(&at.input.to_le_bytes())?;
            for n in [at.ordinal, at.game, at.line, at.offset] {
                s.write_all(&n.to_le_bytes())?;
            }
            s.write_all(&[u8::from(at.broken)])?;
            s.write_all(&(repairs.len() as u32).to_le_bytes())?;
            for (kind, n) in repairs {
                put_bytes(s, kind.count().as_bytes())?;
                s.write_all(&n.to_le_bytes())?;
            }
            put_text(s, text)?;
            put_text(s, verbatim)?;
            put_bytes(s, records)?;
            if self.lines_kept {
                for w in id.occasion.0 {
                    s.write_all(&w.to_le_bytes())?;
                }
                put_bytes(s, mainline)?;
            }
            self.pending.push(id, mainline, at.ordinal)
        })();
        written.map_err(|e| SpillError::from(e).into())
    }

    /// Gives every waiting game, in order, to `each` with its verdict (`Some`: it repeats a game,
    /// or is a shorter record of it under `prefix`; `None`: it is written) after the games of
    /// `held`, the frozen set; fails with [`Error::Interrupted`] once `requested` says so.
    pub fn resolve(
        self,
        held: &Seen,
        requested: &dyn Fn() -> bool,
        mut each: impl FnMut(&mut Waiting, Option<Repeat>) -> Result<(), Error>,
    ) -> Result<u64, Error> {
        let spill = |e: io::Error| Error::from(SpillError::from(e));
        let Late { spool, pending, lines_kept, held: bound } = self;
        let mut repeats = pending.repeats(held, requested)?;
        let mut from = BufReader::with_capacity(1 << 20, rewound(spool).map_err(spill)?);
        let mut w = Waiting::default();
        loop {
            let mut tag = [0u8; 1];
            if !read_or_end(&mut from, &mut tag).map_err(spill)? {
                break;
            }
            if requested() {
                return Err(Error::Interrupted);
            }
            let verdict = match read_waiting(&mut from, tag[0], &mut w, (lines_kept, bound)).map_err(spill)? {
                true => repeats.of(w.at.ordinal).map_err(spill)?,
                false => None,
            };
            each(&mut w, verdict)?;
        }
        if !repeats.done() {
            return Err(spill(bad("a repeat of no game waiting")));
        }
        Ok(repeats.compared_in_part())
    }
}

/// Reads the waiting game tagged `tag` into `w` (with its occasion and mainline when
/// `lines_kept`, its texts past `bound` bytes on disk); whether the rule compares it.
fn read_waiting(
    r: &mut impl Read,
    tag: u8,
    w: &mut Waiting,
    (lines_kept, bound): (bool, usize),
) -> io::Result<bool> {
    match tag {
        b'S' => {
            w.id = None;
            w.text = get_text(r, bound)?;
            get_bytes(r, &mut w.records)?;
        }
        b'C' => {
            let mut id = [0u8; Identity::BYTES];
            r.read_exact(&mut id)?;
            w.id = Some(Identity::from_bytes(&id).ok_or_else(|| bad("an identity"))?);
            let mut input = [0u8; 4];
            r.read_exact(&mut input)?;
            w.at.input = u32::from_le_bytes(input);
            let at = &mut w.at;
            (at.ordinal, at.game, at.line, at.offset) = (get_u64(r)?, get_u64(r)?, get_u64(r)?, get_u64(r)?);
            let mut flag = [0u8; 1];
            r.read_exact(&mut flag)?;
            w.at.broken = flag[0] != 0;
            r.read_exact(&mut input)?;
            w.repairs.clear();
            let mut name = Vec::new();
            for _ in 0..u32::from_le_bytes(input) {
                get_bytes(r, &mut name)?;
                let kind = std::str::from_utf8(&name).ok().and_then(RepairKind::from_count);
                w.repairs.push((kind.ok_or_else(|| bad("a repair"))?, get_u64(r)?));
            }
            w.text = get_text(r, bound)?;
            w.verbatim = get_text(r, bound)?;
            get_bytes(r, &mut w.records)?;
            w.mainline.clear();
            if lines_kept && let Some(id) = &mut w.id {
                for word in &mut id.occasion.0 {
                    r.read_exact(&mut input)?;
                    *word = u32::from_le_bytes(input);
                }
                get_bytes(r, &mut w.mainline)?;
            }
        }
        _ => return Err(bad("an entry")),
    }
    Ok(w.id.is_some())
}

#[cfg(test)]
mod tests {
    use super::super::{DedupKey, Occasion, Who};
    use super::*;

    /// Distinct games of one key, many more than a game is compared with, with repeats of
    /// recent and of old ones among them: wherever the set in memory stops taking games, the
    /// games that wait get the verdicts of the whole set, counted alike, though the judge's set
    /// forgets all but the latest a game is compared with. A repeat of a game older than those
    /// is a distinct game, and counted.
    #[test]
    fn a_crowded_key_is_judged_in_bounded_memory_as_the_whole_set_judges_it() {
        use super::super::Name;
        let latest = 100;
        // Names as `--dedup` tells them apart: a word of letters, none twice in a row.
        let letter = |d: usize| char::from(b'a' + (d % 25) as u8);
        let player = |p: usize| format!("Player {}z{}", letter(p), letter(p / 25));
        let game = |p: usize, key: u32| {
            let who = Who { players: [Name::of(&player(p)), Name::of("Bot")], ..Who::default() };
            Identity { key: DedupKey([key, 0, 0]), who, occasion: Occasion::default() }
        };
        let (mut games, mut recent, mut old) = (Vec::new(), Vec::new(), Vec::new());
        for p in 0..500 {
            games.push(game(p, 1));
            if p % 40 == 39 {
                recent.push((games.len(), p - 10));
                games.extend([game(p - 10, 1), game(p % 7, 2), game(0, 2)]);
            }
            if p % 40 == 29 && p > 80 {
                // Past the latest COMPARED, within the latest `latest`.
                recent.push((games.len(), p - 80));
                games.push(game(p - 80, 1));
            }
            if p % 40 == 19 && p > 150 {
                old.push(games.len());
                games.push(game(p - 150, 1));
            }
        }
        let whole = {
            let mut seen = Seen::comparing_latest(Rule::Game, latest);
            let verdicts: Vec<_> =
                games.iter().map(|id| seen.insert(id).unwrap().map(|e| seen.first_game(e))).collect();
            (verdicts, seen.compared_in_part())
        };
        for (at, p) in recent {
            let first = games.iter().position(|id| *id == game(p, 1)).unwrap() as u64;
            assert_eq!(whole.0[at], Some(first), "a recent game's repeat");
        }
        assert!(old.iter().all(|&at| whole.0[at].is_none()), "an old game's repeat is distinct");
        assert!(whole.1 >= old.len() as u64);
        for frozen in [0, 1, 70, 150, 260, games.len()] {
            let mut held = Seen::comparing_latest(Rule::Game, latest);
            let mut judge = Judge::default();
            for (ordinal, id) in games.iter().enumerate() {
                if ordinal < frozen {
                    held.insert(id).unwrap();
                } else {
                    judge.push(id, ordinal as u64).unwrap();
                }
            }
            let mut repeats = judge.repeats(&held, &|| false).unwrap();
            let mut verdicts: Vec<_> = whole.0[..frozen].to_vec();
            for ordinal in frozen..games.len() {
                verdicts.push(repeats.of(ordinal as u64).unwrap().map(|r| r.of));
            }
            assert_eq!(verdicts, whole.0, "frozen after {frozen} games");
            assert_eq!(
                held.compared_in_part() + repeats.compared_in_part(),
                whole.1,
                "frozen after {frozen}"
            );
        }
        let mut seen = Seen::comparing_latest(Rule::Game, latest);
        for p in 0..2 * latest {
            seen.insert(&game(p, 1)).unwrap();
        }
        assert_eq!((seen.keep_latest().unwrap(), seen.len()), (latest, latest));
        assert_eq!(seen.insert(&game(latest, 1)).unwrap(), Some(0), "the oldest kept, numbered 0");
    }

    /// A waiting game's texts longer than the bound come back on disk, the shorter ones in
    /// memory, each byte for byte, and a repeat gets its verdict.
    #[test]
    fn long_texts_come_back_on_disk() {
        let id = Identity { key: DedupKey([1, 2, 3]), who: Who::default(), occasion: Occasion::default() };
        let mut late = Late::new(Rule::Moves, false, 64).expect("spool");
        let (long, short) = (vec![b'x'; 1000], b"short".to_vec());
        let repairs = std::iter::empty();
        for ordinal in 0..2 {
            let at = Place { ordinal, ..Place::default() };
            let (text, verbatim) = (Bytes::Held(&long), Bytes::Held(&short));
            late.compared(&id, &[], &at, repairs.clone(), text, verbatim, b"{}\n").expect("waits");
        }
        late.settled(Bytes::Held(&long), b"").expect("waits");
        let mut read = Vec::new();
        late.resolve(&Seen::new(Rule::Moves), &|| false, |w, verdict| {
            read.push((w.text.on_disk(), w.verbatim.on_disk(), verdict.map(|r| r.of)));
            assert_eq!(std::mem::take(&mut w.text).to_vec(), long);
            Ok(())
        })
        .expect("resolved");
        assert_eq!(read, [(true, false, None), (true, false, Some(0)), (true, false, None)]);
    }
}
