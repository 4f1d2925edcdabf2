//! `merge` of shards that ran `clean --dedup` or `positions --unique`: each shard removed the
//! repeats among its own games (positions), and recorded in its keys part ([`crate::jobs::keys`]) what
//! it compared. Settling replays those keys in shard order through the set one run keeps (the
//! same [`Seen`], or the same [`Unique`] with the positions past its room sorted on disk as
//! one run sorts them, [`Firsts`]), and notes each game whose verdict
//! one run gives otherwise: written by its shard but a repeat of an earlier shard's game (it
//! moves to the duplicates, its records become a `duplicate` record), set aside by its shard
//! but first in the run (the same-game rule is not transitive: it moves back), or a repeat of
//! another game than its shard named (its record names the run's), or a position one run does
//! not write (its number over the shards, sorted on disk, so memory stays bounded). The shards'
//! ledgers are adjusted; the parts are then copied with those games cut out or put in
//! ([`Settled::copy`]; a Parquet part's rows, [`Settled::drops`]).

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::io::name::Name;
use crate::jobs::clean::Rule;
use crate::jobs::clean::dedup::late::Pending;
use crate::jobs::clean::dedup::verdict::Repeats;
use crate::jobs::clean::dedup::{Repeat, Seen};
use crate::jobs::clean::sink::duplicate_record;
use crate::jobs::positions::deferred::Firsts;
use crate::jobs::positions::{Offered, UNIQUE_HELD, Unique};
use crate::pipeline::counter::Counter;
use crate::pipeline::stats::Stats;

use super::manifest::Manifest;
use super::merge::Refused;
use super::turns::{Turn, TurnLog, Turns, turn};
use crate::io::sort::{Sorted, Sorter, SpillError};
use crate::jobs::keys::{CleanEntry, GameEntry, Hashing, KeysReader, PositionEntry};

/// The role of a keys part in a manifest.
pub const KEYS: &str = "keys";

/// The games of one shard whose verdict changes.
#[derive(Default)]
struct Shard {
    /// Its keys part.
    keys: PathBuf,
    /// `clean`: its games' entries in [`Settled::turns`]: game entries (numbered from 0 in the
    /// keys part) and what becomes of them.
    turns: Range<u64>,
    /// `positions`: how many of its positions one run does not write (their numbers are in
    /// [`Settled::dropped`]).
    dropped: u64,
    /// `positions`: the number over the shards of its first position, and of the first
    /// position of each input it read after the first.
    numbers: Vec<u64>,
    /// The run's inputs it read, in order.
    local: Vec<usize>,
    /// `clean`: some of its games wait for their verdicts (past the set's room).
    waits: bool,
}

/// The changes settling found, by shard (in index order).
pub struct Settled {
    /// `clean`: the rule; `None` for `positions`.
    rule: Option<Rule>,
    shards: Vec<Shard>,
    /// `positions`: the numbers over the shards of the positions one run does not write, in
    /// order, read as the parts are copied (sorted on disk: the repeats past the set's room are
    /// found in the order of their positions).
    dropped: RefCell<Dropped>,
    /// Each input's name and its first game's ordinal over the run.
    inputs: Vec<(Name, u64)>,
    /// `clean`: the games whose verdicts turn, every shard's ([`Shard::turns`]).
    turns: Turns,
}

/// The keys part of a shard's manifest, beside `manifest`.
fn keys_part(manifest: &Path, m: &Manifest) -> Option<(PathBuf, u64, String)> {
    let part = m.parts.iter().find(|p| p.role == KEYS)?;
    let dir = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
    Some((dir.join(&part.file), part.size, part.digest.clone()))
}

/// Adds `delta` to `counter` in `stats`; `clean`'s counts drop out at 0, as one run never adds
/// them at 0 (`positions_written` stays: one run adds it for every chunk).
fn shift(stats: &mut Stats, counter: Counter, delta: i64) {
    match stats.counts.iter().position(|&(c, _)| c == counter) {
        Some(i) => {
            let n = stats.counts[i].1.saturating_add_signed(delta);
            if n == 0 && counter != Counter::PositionsWritten {
                stats.counts.remove(i);
            } else {
                stats.counts[i].1 = n;
            }
        }
        None if delta > 0 => stats.counts.push((counter, delta as u64)),
        None => {}
    }
}

/// Counts `in_part` games compared in part over the run (each shard counted its own): the
/// first shard's ledger holds the run's count, as one run would give it.
fn in_part_over_the_run(list: &mut [(PathBuf, Manifest)], in_part: u64) {
    for (_, m) in list.iter_mut() {
        let n = m.stats.get(Counter::ComparedInPart);
        shift(&mut m.stats, Counter::ComparedInPart, -(n as i64));
    }
    if let Some((_, m)) = list.first_mut() {
        shift(&mut m.stats, Counter::ComparedInPart, in_part as i64);
    }
}

/// The counts that change when game `g` turns from written to duplicate (`sign` 1) or back (-1).
fn turn_counts(stats: &mut Stats, g: &GameEntry, sign: i64) {
    shift(stats, Counter::Written, -sign);
    shift(stats, Counter::Duplicates, sign);
    if g.broken {
        shift(stats, Counter::KeptBroken, -sign);
    }
    for (name, n) in &g.repairs {
        if let Some(c) = Counter::from_name(name) {
            shift(stats, c, -sign * *n as i64);
        }
    }
}

/// Opens a keys part for reading, hashed as it is read.
fn open(path: &Path) -> io::Result<(KeysReader<Hashing<BufReader<File>>>, String)> {
    KeysReader::new(Hashing::new(BufReader::with_capacity(1 << 20, File::open(path)?)))
}

/// Opens a keys part for reading again, once settling has checked its digest.
fn reopen(path: &Path) -> io::Result<KeysReader<BufReader<File>>> {
    Ok(KeysReader::new(BufReader::with_capacity(1 << 20, File::open(path)?))?.0)
}

/// Settles the shards of `list` (sorted by index) when they wrote keys parts, adjusting their
/// ledgers; `None` when they did not. The error names each problem; a stop `requested` (a
/// signal) ends the reading at the next key. At most `held` distinct games of `clean` are held
/// in memory: the games past them wait for their verdicts, found key by key ([`Pending`]), and
/// their shards' keys parts are read a second time to turn them. Under `prefix` every game
/// waits, its mainline sorted on disk, and the walk over the mainlines gives the verdicts.
pub fn settle(
    list: &mut [(PathBuf, Manifest)],
    requested: &dyn Fn() -> bool,
    held: usize,
) -> Result<Option<Settled>, Refused> {
    if !list.iter().any(|(p, m)| keys_part(p, m).is_some()) {
        return Ok(None);
    }
    let count = list[0].1.inputs.len();
    let mut firsts = vec![0u64; count];
    for (_, m) in list.iter() {
        for r in &m.ranges {
            if let Some(f) = firsts.get_mut(r.input + 1) {
                *f += r.games;
            }
        }
    }
    for k in 1..count {
        firsts[k] += firsts[k - 1];
    }
    let mut settled = Settled {
        rule: None,
        shards: Vec::new(),
        dropped: RefCell::default(),
        inputs: list[0].1.inputs.iter().zip(firsts).map(|(i, f)| (Name::of(&i.path), f)).collect(),
        turns: Turns::default(),
    };
    let mut log = TurnLog::default();
    let mut seen: Option<Seen> = None;
    // `clean`: past the set's room (under `prefix`, from the first game), the first game to
    // wait and what finds the waiting games' verdicts.
    let mut waiting: Option<(u64, Pending)> = None;
    let mut unique: Option<Unique> = None;
    // Positions past `unique`'s room, numbered over the shards, and the numbers of those one run
    // does not write.
    let (mut late, mut number, mut spill_failed) = (None::<Firsts>, 0u64, None::<io::Error>);
    let mut dropped = Sorter::<u64>::new(DROPPED_HELD);
    let mut read = 0u64;
    let mut problems = Vec::new();
    for (path, m) in list.iter_mut() {
        let Some((keys, size, digest)) = keys_part(path, m) else {
            problems.push(format!("{}: shard {} wrote no keys part: rerun it", path.display(), m.spec));
            continue;
        };
        let rerun = |what: String| {
            format!("{}: shard {}'s {what}: rerun shard {}", keys.display(), m.spec, m.spec.index)
        };
        let mut shard = Shard { keys: keys.clone(), ..Shard::default() };
        let mut local = Vec::new();
        let result = (|| -> Result<(), String> {
            let (mut r, words) = open(&keys).map_err(|e| rerun(format!("keys part: {e}")))?;
            let unread = || rerun("keys part names an input it did not read".into());
            if let Some(rule) = words.strip_prefix("clean ") {
                let rule = [Rule::Game, Rule::Moves, Rule::Prefix]
                    .into_iter()
                    .find(|r| r.name() == rule)
                    .ok_or_else(|| rerun(format!("keys part has the rule {rule:?}")))?;
                settled.rule = Some(rule);
                let seen = seen.get_or_insert_with(|| Seen::new(rule));
                let mut at = 0u64;
                // The games' copies are read past: only the copy of a part needs them.
                while let Some(entry) = r.clean_with(false).map_err(|e| rerun(format!("keys part: {e}")))? {
                    if requested() {
                        return Err("interrupted".into());
                    }
                    let g = match entry {
                        CleanEntry::Input(_) => {
                            let k = m.ranges.get(local.len()).map(|r| r.input);
                            let k =
                                k.ok_or_else(|| rerun("keys part names more inputs than it read".into()))?;
                            local.push(k);
                            continue;
                        }
                        CleanEntry::Game(g) => g,
                    };
                    let ordinal = ordinal_of(&settled.inputs, &local, g.input, g.game).ok_or_else(unread)?;
                    if ordinal < read {
                        return Err(rerun("keys part is not in the order of the games".into()));
                    }
                    let id = g.id.ok_or_else(|| rerun("keys part has a game without its key".into()))?;
                    // Past the set's room, the game waits for its verdict (a second reading).
                    if waiting.is_none() && seen.full(held) {
                        waiting = Some((ordinal, Pending::new(rule)));
                    }
                    if let Some((_, pending)) = &mut waiting {
                        pending
                            .push(&id, &g.mainline, ordinal)
                            .map_err(|e| SpillError::from(e).to_string())?;
                        shard.waits = true;
                        read = ordinal + 1;
                        at += 1;
                        continue;
                    }
                    while read < ordinal {
                        seen.skip().map_err(|e| e.to_string())?;
                        read += 1;
                    }
                    let found = seen.insert(&id).map_err(|e| e.to_string())?;
                    read += 1;
                    let shard_of = shard_verdict(&settled.inputs, &local, rule, &g).ok_or_else(unread)?;
                    let found = found.map(|e| Repeat { rule, of: seen.first_game(e) });
                    let turn = turn(found, shard_of);
                    if let Err(e) = shard.turn(&mut log, &mut m.stats, &mut m.ranges, &g, at, turn) {
                        spill_failed.get_or_insert(e);
                    }
                    at += 1;
                }
            } else if words == "positions unique" {
                let unique = unique.get_or_insert_with(|| Unique::holding(UNIQUE_HELD));
                let mut input_at = None::<usize>;
                shard.numbers.push(number);
                while let Some(entry) = r.position().map_err(|e| rerun(format!("keys part: {e}")))? {
                    if requested() {
                        return Err("interrupted".into());
                    }
                    match entry {
                        PositionEntry::Input(_) => {
                            input_at = Some(input_at.map_or(0, |j| j + 1));
                            if input_at > Some(0) {
                                shard.numbers.push(number);
                            }
                        }
                        PositionEntry::Position { hash, key, .. } => {
                            match unique.offer(hash, &key) {
                                Offered::New => {}
                                Offered::Repeat => {
                                    shard.drop(&mut m.stats, &mut m.ranges, input_at);
                                    if let Err(e) = dropped.push(number) {
                                        spill_failed.get_or_insert(e);
                                    }
                                }
                                // Decided once every shard is read: a later shard's position is
                                // never an earlier one's first.
                                Offered::Undecided => {
                                    let late = late.get_or_insert_with(Firsts::default);
                                    if let Err(e) = late.push(hash, &key, number) {
                                        spill_failed.get_or_insert(e);
                                    }
                                }
                            }
                            number += 1;
                        }
                    }
                }
            } else {
                return Err(rerun(format!("keys part is of {words:?}, which this pgnkit does not write")));
            }
            let (len, hash) = r.into_inner().finish().map_err(|e| rerun(format!("keys part: {e}")))?;
            if len != size || hash != digest {
                return Err(rerun(format!(
                    "keys part changed since it was written ({len} bytes, the manifest says {size})"
                )));
            }
            Ok(())
        })();
        if requested() {
            return Err(Refused::interrupted());
        }
        if let Err(e) = result {
            // A keys part that does not read is most likely one that changed: say so.
            let changed = File::open(&keys)
                .and_then(|mut f| super::manifest::digest(&mut f))
                .is_ok_and(|(len, hash)| len != size || hash != digest);
            problems.push(if changed {
                rerun(format!("keys part changed since it was written (the manifest says {size} bytes)"))
            } else {
                e
            });
        }
        shard.local = local;
        settled.shards.push(shard);
    }
    if !problems.is_empty() {
        return Err(problems.into());
    }
    let mut in_part = seen.as_ref().map_or(0, Seen::compared_in_part);
    if let (Some((first, pending)), Some(seen), None) = (waiting, &seen, &spill_failed) {
        let io_err = |e: String| Refused::new(vec![e], crate::exit::Code::IoErr);
        let mut repeats = pending.repeats(seen, requested).map_err(|e| match e {
            crate::error::Error::Interrupted => Refused::interrupted(),
            e => io_err(e.to_string()),
        })?;
        in_part += repeats.compared_in_part();
        for ((path, m), shard) in list.iter_mut().zip(&mut settled.shards) {
            if shard.waits {
                shard.turn_waiting(m, &settled.inputs, first, &mut repeats, &mut log, requested).map_err(
                    |e| {
                        if requested() {
                            Refused::interrupted()
                        } else if spilled(&e) {
                            io_err(e.to_string())
                        } else {
                            io_err(format!("{}: shard {}'s keys part: {e}", path.display(), m.spec))
                        }
                    },
                )?;
            }
        }
        if !repeats.done() {
            return Err(io_err(SpillError::from(io::Error::other("a repeat of no game")).to_string()));
        }
    }
    if let Some(late) = late.filter(|_| spill_failed.is_none()) {
        let shards = &mut settled.shards;
        let result = late.verdicts(|number, first| {
            if requested() {
                return Err(io::Error::other("interrupted"));
            }
            if !first {
                let k = shards.partition_point(|s| s.numbers[0] <= number) - 1;
                let shard = &mut shards[k];
                let input_at = shard.numbers.partition_point(|&n| n <= number) - 1;
                let m = &mut list[k].1;
                shard.drop(&mut m.stats, &mut m.ranges, Some(input_at));
                dropped.push(number)?;
            }
            Ok(())
        });
        spill_failed = result.err();
    }
    if settled.rule.is_some() {
        in_part_over_the_run(list, in_part);
    }
    if spill_failed.is_none() {
        match dropped.finish() {
            Ok(sorted) => *settled.dropped.get_mut() = Dropped { sorted: Some(sorted), next: None },
            Err(e) => spill_failed = Some(e),
        }
    }
    if spill_failed.is_none() {
        match log.finish() {
            Ok(turns) => settled.turns = turns,
            Err(e) => spill_failed = Some(e),
        }
    }
    if requested() {
        return Err(Refused::interrupted());
    }
    match spill_failed {
        Some(e) => Err(Refused::new(vec![SpillError::from(e).to_string()], crate::exit::Code::IoErr)),
        None => Ok(Some(settled)),
    }
}

/// The ordinal over the run of game `game` of the input a shard numbers `input` among those it
/// read (`local`: their places in the run's `inputs`, each with its first game's ordinal).
fn ordinal_of(inputs: &[(Name, u64)], local: &[usize], input: u32, game: u64) -> Option<u64> {
    let k = *local.get(input as usize)?;
    Some(inputs[k].1 + game.saturating_sub(1))
}

/// The verdict game `g`'s shard gave it, as a run under `rule` reports it, the game it names
/// numbered over the run ([`ordinal_of`]): `Some(None)` when the shard wrote it, `None` when
/// it names an input the shard did not read.
fn shard_verdict(
    inputs: &[(Name, u64)],
    local: &[usize],
    rule: Rule,
    g: &GameEntry,
) -> Option<Option<Repeat>> {
    match g.of {
        None => Some(None),
        Some((i, n)) => ordinal_of(inputs, local, i, n).map(|of| Some(Repeat::found(rule, of, g.shorter))),
    }
}

impl Shard {
    /// Notes `turn` of its game `g`, numbered `at` among its games, and adjusts its ledgers
    /// (`stats`, and its inputs' `ranges`).
    fn turn(
        &mut self,
        log: &mut TurnLog,
        stats: &mut Stats,
        ranges: &mut [super::manifest::Range],
        g: &GameEntry,
        at: u64,
        turn: Option<Turn>,
    ) -> io::Result<()> {
        let sign = match turn {
            Some(Turn::ToDuplicate(_)) => 1,
            Some(Turn::ToWritten) => -1,
            _ => 0,
        };
        if sign != 0 {
            turn_counts(stats, g, sign);
            if let Some(range) = ranges.get_mut(g.input as usize) {
                turn_counts(&mut range.stats, g, sign);
            }
        }
        if let Some(t) = turn {
            // A shard's turns follow each other in the log.
            if self.turns.is_empty() {
                self.turns = log.len()..log.len();
            }
            log.push(at, t)?;
            self.turns.end = log.len();
        }
        Ok(())
    }

    /// Reads its keys part again and turns its games numbered `first` or later over the run
    /// (`inputs`: each input's first ordinal) by their verdicts in `repeats`.
    fn turn_waiting(
        &mut self,
        m: &mut Manifest,
        inputs: &[(Name, u64)],
        first: u64,
        repeats: &mut Repeats,
        log: &mut TurnLog,
        requested: &dyn Fn() -> bool,
    ) -> io::Result<()> {
        let mut r = reopen(&self.keys)?;
        let unread = || io::Error::other("an input it did not read");
        let local = std::mem::take(&mut self.local);
        let mut at = 0u64;
        while let Some(entry) = r.clean_with(false)? {
            let CleanEntry::Game(g) = entry else { continue };
            if requested() {
                return Err(io::Error::other("interrupted"));
            }
            let at_ordinal = ordinal_of(inputs, &local, g.input, g.game).ok_or_else(unread)?;
            if at_ordinal >= first {
                let shard_of = shard_verdict(inputs, &local, repeats.rule(), &g).ok_or_else(unread)?;
                let turn = turn(repeats.of(at_ordinal)?, shard_of);
                self.turn(log, &mut m.stats, &mut m.ranges, &g, at, turn)
                    .map_err(|e| io::Error::other(SpillError::from(e)))?;
            }
            at += 1;
        }
        self.local = local;
        Ok(())
    }

    /// One of its positions, of the input numbered `input_at` among those it read, is not
    /// written: a repeat of an earlier one.
    fn drop(&mut self, stats: &mut Stats, ranges: &mut [super::manifest::Range], input_at: Option<usize>) {
        self.dropped += 1;
        shift(stats, Counter::PositionsWritten, -1);
        if let Some(range) = input_at.and_then(|j| ranges.get_mut(j)) {
            shift(&mut range.stats, Counter::PositionsWritten, -1);
        }
    }
}

/// A reader of the decompressed bytes of a part named (compressed) as `target`, and the
/// hashing reader of its file bytes beneath.
fn decoded<'a>(raw: &'a mut Hashing<BufReader<File>>, target: &Path) -> io::Result<Box<dyn Read + 'a>> {
    Ok(match target.extension().and_then(|e| e.to_str()) {
        Some("zst") => Box::new(zstd::stream::read::Decoder::new(raw)?),
        Some("gz") => Box::new(flate2::read::MultiGzDecoder::new(raw)),
        _ => Box::new(raw),
    })
}

/// An encoder to `out` as `target`'s name says, and how to end it.
enum Encoded<'a> {
    Plain(&'a mut dyn Write),
    Zstd(zstd::stream::write::Encoder<'static, &'a mut dyn Write>),
    Gzip(flate2::write::GzEncoder<&'a mut dyn Write>),
}

impl<'a> Encoded<'a> {
    fn new(out: &'a mut dyn Write, target: &Path) -> io::Result<Encoded<'a>> {
        Ok(match target.extension().and_then(|e| e.to_str()) {
            Some("zst") => Encoded::Zstd(zstd::stream::write::Encoder::new(out, 3)?),
            Some("gz") => Encoded::Gzip(flate2::write::GzEncoder::new(out, flate2::Compression::default())),
            _ => Encoded::Plain(out),
        })
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Encoded::Plain(w) => w,
            Encoded::Zstd(w) => w,
            Encoded::Gzip(w) => w,
        }
    }

    fn finish(self) -> io::Result<()> {
        match self {
            Encoded::Plain(_) => Ok(()),
            Encoded::Zstd(w) => w.finish().map(drop),
            Encoded::Gzip(w) => w.finish().map(drop),
        }
    }
}

/// Copies `n` bytes of `from` to `to`; too few is an error.
fn exactly(from: &mut dyn Read, to: &mut dyn Write, n: u64) -> io::Result<()> {
    let copied = io::copy(&mut from.take(n), to)?;
    if copied != n {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the part is shorter than its keys say"));
    }
    Ok(())
}

impl Settled {
    /// Whether shard `k`'s part of `role` is copied otherwise than as it is.
    pub fn edits(&self, k: usize, role: &str) -> bool {
        let Some(s) = self.shards.get(k) else { return false };
        match (self.rule, role) {
            (Some(_), "output" | "duplicates" | "report") => !s.turns.is_empty(),
            (None, "output") => s.dropped > 0,
            _ => false,
        }
    }

    /// Whether the record numbered `at` (0-based) of shard `k`'s positions is one one run does
    /// not write (a table's row: a Parquet part is copied row by row, not through
    /// [`Settled::copy`]). Asked of the shards' records in order, each once.
    pub fn drops(&self, k: usize, at: u64) -> io::Result<bool> {
        match self.shards.get(k) {
            Some(s) if self.rule.is_none() && s.dropped > 0 => {
                self.dropped.borrow_mut().take(s.numbers[0] + at)
            }
            _ => Ok(false),
        }
    }

    /// The input and game number of the game with ordinal `of` over the run.
    fn locate(&self, of: u64) -> (&Name, u64) {
        let i = self.inputs.partition_point(|&(_, first)| first <= of).saturating_sub(1);
        (&self.inputs[i].0, of - self.inputs[i].1 + 1)
    }

    /// The `duplicate` record of game `g` (its shard's inputs `local`), a repeat (or shorter
    /// record) of another.
    fn record(&self, g: &GameEntry, local: &[usize], of: Repeat) -> Vec<u8> {
        let file = local.get(g.input as usize).map_or(&crate::io::name::NONE, |&k| &self.inputs[k].0);
        let record = duplicate_record(of.rule.name(), self.locate(of.of), file, g.game, g.line, g.offset);
        format!("{record}\n").into_bytes()
    }

    /// Copies shard `k`'s part `part` of `role` (compressed as `target` says) to `out` as one
    /// run writes it: the games whose verdict turned cut out or put in. Its file's length and
    /// digest, as [`super::manifest::digest`] gives them.
    pub fn copy(
        &self,
        k: usize,
        role: &str,
        part: &Path,
        target: &Path,
        out: &mut dyn Write,
    ) -> io::Result<(u64, String)> {
        let shard = &self.shards[k];
        let mut raw = Hashing::new(BufReader::with_capacity(1 << 20, File::open(part)?));
        {
            let mut from = decoded(&mut raw, target)?;
            let mut to = Encoded::new(out, target)?;
            let mut pos = 0u64;
            let mut edit =
                |range: Range<u64>, with: &mut dyn Read, from: &mut dyn Read, to: &mut dyn Write| {
                    if range.start < pos {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "the keys part's places go backwards",
                        ));
                    }
                    exactly(from, to, range.start - pos)?;
                    io::copy(with, to)?;
                    exactly(from, &mut io::sink(), range.end - range.start)?;
                    pos = range.end;
                    Ok(())
                };
            let mut keys = reopen(&shard.keys)?;
            // A turned game's copies are read from the part where they lie, not held.
            let copies = File::open(&shard.keys)?;
            if self.rule.is_some() {
                let mut turns = self.turns.read(shard.turns.clone())?;
                let mut coming = turns.next().transpose()?;
                let (mut at, local) = (0u64, &shard.local);
                while let Some((next, turn)) = coming {
                    let g = match keys.clean_with(false)? {
                        Some(CleanEntry::Input(_)) => continue,
                        Some(CleanEntry::Game(g)) => g,
                        None => break,
                    };
                    at += 1;
                    if at - 1 != next {
                        continue;
                    }
                    coming = turns.next().transpose()?;
                    let [verbatim, text, records] = keys.copies();
                    let (record, none) = (Vec::new(), 0..0);
                    let (range, copy, record) = match (role, turn) {
                        ("output", Turn::ToDuplicate(_)) => (g.out.clone(), none, record),
                        ("output", Turn::ToWritten) => (g.out.clone(), text, record),
                        ("duplicates", Turn::ToDuplicate(_)) => (g.dup.clone(), verbatim, record),
                        ("duplicates", Turn::ToWritten) => (g.dup.clone(), none, record),
                        ("report", Turn::ToDuplicate(of) | Turn::Of(of)) => {
                            (g.report.clone(), none, self.record(&g, local, of))
                        }
                        ("report", Turn::ToWritten) => (g.report.clone(), records, record),
                        _ => continue,
                    };
                    (&copies).seek(io::SeekFrom::Start(copy.start))?;
                    let mut with = (&copies).take(copy.end - copy.start).chain(&record[..]);
                    edit(range, &mut with, &mut from, to.writer())?;
                }
            } else {
                let (mut at, mut start) = (0u64, 0u64);
                while let Some(entry) = keys.position()? {
                    let PositionEntry::Position { len, .. } = entry else { continue };
                    if self.drops(k, at)? {
                        edit(start..start + len, &mut io::empty(), &mut from, to.writer())?;
                    }
                    (at, start) = (at + 1, start + len);
                }
            }
            io::copy(&mut from, to.writer())?;
            to.finish()?;
        }
        raw.finish()
    }
}

/// Whether `e` is a temporary file's error, not one of the part being copied.
pub fn spilled(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<SpillError>())
}

/// Numbers of dropped positions held in memory at a time while sorting: 8 bytes each.
const DROPPED_HELD: usize = 1 << 20;

/// The sorted numbers of the positions one run does not write, read once in order.
#[derive(Default)]
struct Dropped {
    sorted: Option<Sorted<u64>>,
    /// The next number, read ahead.
    next: Option<u64>,
}

impl Dropped {
    /// Whether position `n` is dropped; `n` rises from call to call. A temporary file that
    /// cannot be read back is a [`SpillError`] inside the error ([`spilled`] tells it).
    fn take(&mut self, n: u64) -> io::Result<bool> {
        if self.next.is_none() {
            let next = self.sorted.as_mut().and_then(Iterator::next).transpose();
            self.next = next.map_err(|e| io::Error::other(SpillError::from(e)))?;
        }
        match self.next {
            Some(d) if d < n => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the dropped positions were not read in order",
            )),
            Some(d) if d == n => {
                self.next = None;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers pushed in any order, past the sorter's memory, are taken in order, each once; a
    /// number asked for after a later one is an error, not a drop missed.
    #[test]
    fn dropped_numbers_are_taken_in_order() {
        let mut sorter = Sorter::<u64>::new(3);
        let numbers = [40u64, 7, 8, 1000, 3, 41, 999];
        for n in numbers {
            sorter.push(n).expect("push");
        }
        let mut dropped = Dropped { sorted: Some(sorter.finish().expect("sorted")), next: None };
        let taken: Vec<u64> = (0..1100).filter(|&n| dropped.take(n).expect("in order")).collect();
        let mut want = numbers.to_vec();
        want.sort_unstable();
        assert_eq!(taken, want);
        assert!(!dropped.take(2000).expect("the end"));

        let mut sorter = Sorter::<u64>::new(3);
        sorter.push(5).expect("push");
        let mut dropped = Dropped { sorted: Some(sorter.finish().expect("sorted")), next: None };
        assert!(!dropped.take(4).expect("before it"));
        assert!(dropped.take(6).is_err(), "5 was never asked for");
    }
}
