//! A shard's keys part (`-o`'s name + `.keys`, then `.part-I-of-N`): what `merge` needs to settle
//! `clean --dedup` and `positions --unique` across shards, one entry per game or position in
//! the order the shard read them. Binary, little-endian: a header line
//! (`pgnkit keys 2 clean game\n`, `pgnkit keys 2 positions unique\n`), then entries.
//!
//! `clean`: an input entry (`I`, its name) where each input starts, and a game entry (`G`) per
//! game the dedup rule compared (every game written or set aside as a duplicate): its number,
//! line and offset, its identity (moves key, players, date, result), the shard's verdict, where
//! it lies (or would lie) in the output, duplicates and report parts, and what `merge` needs to
//! turn the verdict over: the game as read (a written game, with `--duplicates`) or its text,
//! repairs and report records (a duplicate). About 160 bytes a game beyond those copies. Under
//! `prefix` (the header says) an entry also holds the game's occasion and mainline (two bytes a
//! ply), which `merge` walks as one run does.
//!
//! `positions`: an input entry (`I`) where each input starts, and per position written (`P`)
//! its Zobrist key, the packed position and the length of its record: 50 bytes a standard
//! position.

use std::io::{self, Read};
use std::ops::Range;

use crate::chess::PackedKey;
use crate::jobs::clean::Rule;
use crate::jobs::clean::dedup::{DedupKey, Identity, Occasion, Who, max_mainline};
use crate::pipeline::counter::RepairKind;

/// Bytes of an input's name at most: a path opens within 4 KiB on Linux, each byte shown in 3
/// at most (Windows-1252 read as UTF-8).
const MAX_NAME: u64 = 64 << 10;

/// Bytes of a repair's name at most: the name of its count (`repaired_result_spelling`, 24).
const MAX_REPAIR_NAME: u64 = 64;

/// The header of a `clean` keys part under `rule`.
pub fn clean_header(rule: Rule) -> Vec<u8> {
    format!("pgnkit keys 2 clean {}\n", rule.name()).into_bytes()
}

/// The header of a `positions --unique` keys part.
pub const POSITIONS_HEADER: &[u8] = b"pgnkit keys 2 positions unique\n";

/// The shard's verdict on a game, and what `merge` needs to turn it over.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameEntry {
    /// The shard's input it is in (0: the first the shard read).
    pub input: u32,
    /// Its number in that input (1-based), line and byte offset.
    pub game: u64,
    /// Its line.
    pub line: u64,
    /// Its offset.
    pub offset: u64,
    /// Its identity.
    pub id: Option<Identity>,
    /// `Some((input, game))`: the shard set it aside as a repeat of that game of its own.
    pub of: Option<(u32, u64)>,
    /// ... as a shorter record of it (`prefix`), not a repeat.
    pub shorter: bool,
    /// Under `prefix`, its mainline ([`crate::jobs::clean::dedup::mainline`]); else empty.
    pub mainline: Vec<u8>,
    /// Where it is (or would be) in the output part.
    pub out: Range<u64>,
    /// ... in the duplicates part.
    pub dup: Range<u64>,
    /// ... in the report part (its records).
    pub report: Range<u64>,
    /// Kept broken (written as its valid prefix).
    pub broken: bool,
    /// The names of the counts of its repairs, each with its count.
    pub repairs: Vec<(String, u64)>,
    /// Written: the game as read (with a duplicates part). Duplicate: empty.
    pub verbatim: Vec<u8>,
    /// Duplicate: its text as it would be written. Written: empty.
    pub text: Vec<u8>,
    /// Duplicate: the report records it would have written. Written: empty.
    pub records: Vec<u8>,
}

fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u64).to_le_bytes());
    out.extend_from_slice(b);
}

fn range(out: &mut Vec<u8>, r: &Range<u64>) {
    out.extend_from_slice(&r.start.to_le_bytes());
    out.extend_from_slice(&r.end.to_le_bytes());
}

/// Appends an input entry to `out`.
pub fn put_input(out: &mut Vec<u8>, name: &str) {
    out.push(b'I');
    bytes(out, name.as_bytes());
}

/// Appends a game entry to `out`, with its occasion and mainline when `lines` (`prefix`).
pub fn put_game(out: &mut Vec<u8>, g: &GameEntry, lines: bool) {
    put_game_facts(out, g, lines);
    for b in [&g.verbatim, &g.text, &g.records] {
        bytes(out, b);
    }
}

/// Appends a game entry to `out` but its copies (`verbatim`, `text`, `records`), which the
/// writer puts after it, each as [`put_copy_len`] and its bytes: a long game's are not held.
pub fn put_game_facts(out: &mut Vec<u8>, g: &GameEntry, lines: bool) {
    out.push(b'G');
    out.extend_from_slice(&g.input.to_le_bytes());
    for n in [g.game, g.line, g.offset] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    let id = g.id.unwrap_or(Identity {
        key: DedupKey([0; 3]),
        who: Who::default(),
        occasion: Occasion::default(),
    });
    out.extend_from_slice(&id.to_bytes());
    if lines {
        for w in id.occasion.0 {
            out.extend_from_slice(&w.to_le_bytes());
        }
        bytes(out, &g.mainline);
    }
    match g.of {
        Some((input, game)) => {
            out.push(1 + u8::from(g.shorter));
            out.extend_from_slice(&input.to_le_bytes());
            out.extend_from_slice(&game.to_le_bytes());
        }
        None => out.push(0),
    }
    for r in [&g.out, &g.dup, &g.report] {
        range(out, r);
    }
    out.push(g.broken as u8);
    out.extend_from_slice(&(g.repairs.len() as u32).to_le_bytes());
    for (name, n) in &g.repairs {
        bytes(out, name.as_bytes());
        out.extend_from_slice(&n.to_le_bytes());
    }
}

/// What comes before a copy of `len` bytes in a game entry.
pub fn put_copy_len(len: u64) -> [u8; 8] {
    len.to_le_bytes()
}

/// Appends a position entry to `out`: the record of `len` bytes (a table's: rows, 1) written for
/// the position (`hash`, `key`).
pub fn put_position(out: &mut Vec<u8>, hash: u64, key: &PackedKey, len: usize) {
    out.push(b'P');
    out.extend_from_slice(Packed::of(hash, key).bytes());
    out.extend_from_slice(&(len as u64).to_le_bytes());
}

/// A position as keys parts and `positions --unique`'s temporary files hold it: its hash, 0 or 1
/// for the key's form, the key's words; little-endian, at most 105 bytes.
pub struct Packed {
    buf: [u8; 105],
    len: usize,
}

impl Packed {
    /// The bytes of the position (`hash`, `key`).
    pub fn of(hash: u64, key: &PackedKey) -> Packed {
        let mut p = Packed { buf: [0; 105], len: 9 };
        p.buf[..8].copy_from_slice(&hash.to_le_bytes());
        p.buf[8] = u8::from(matches!(key, PackedKey::Wide(_)));
        for w in key.words() {
            p.buf[p.len..p.len + 8].copy_from_slice(&w.to_le_bytes());
            p.len += 8;
        }
        p
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Reads the key that follows the hash of a [`Packed`] position.
    pub fn read_key(r: &mut impl Read) -> io::Result<PackedKey> {
        let mut form = [0u8; 1];
        r.read_exact(&mut form)?;
        let mut word = || -> io::Result<u64> {
            let mut w = [0u8; 8];
            r.read_exact(&mut w)?;
            Ok(u64::from_le_bytes(w))
        };
        Ok(match form[0] {
            0 => PackedKey::Compact([word()?, word()?, word()?, word()?]),
            1 => {
                let mut k = Box::new([0u64; 12]);
                for w in k.iter_mut() {
                    *w = word()?;
                }
                PackedKey::Wide(k)
            }
            _ => return Err(io::Error::new(io::ErrorKind::InvalidData, "not a packed position")),
        })
    }
}

/// An entry of a `clean` keys part.
#[derive(Debug, PartialEq, Eq)]
pub enum CleanEntry {
    /// The shard starts reading an input of this name.
    Input(String),
    /// A game the rule compared.
    Game(Box<GameEntry>),
}

/// An entry of a `positions` keys part.
#[derive(Debug, PartialEq, Eq)]
pub enum PositionEntry {
    /// The shard starts reading an input of this name.
    Input(String),
    /// A position written: its Zobrist key, the position, its record's length.
    Position {
        /// Zobrist key.
        hash: u64,
        /// The position.
        key: PackedKey,
        /// Bytes of its record.
        len: u64,
    },
}

/// Reads a keys part's entries from `r`.
pub struct KeysReader<R> {
    r: R,
    /// Its game entries hold occasions and mainlines (`clean prefix`).
    lines: bool,
    /// Bytes read from the part's start.
    read: u64,
    /// Where the last game entry's copies (`verbatim`, `text`, `records`) lie in the part.
    copies: [Range<u64>; 3],
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("not a keys part of this pgnkit ({what})"))
}

impl<R: Read> KeysReader<R> {
    /// Reads the header line ([`clean_header`], [`POSITIONS_HEADER`]): the reader, and the
    /// header's words after `pgnkit keys 2` (`clean game`, `positions unique`).
    pub fn new(mut r: R) -> io::Result<(KeysReader<R>, String)> {
        let mut header = Vec::new();
        let mut b = [0u8; 1];
        while header.len() < 64 {
            r.read_exact(&mut b).map_err(|_| bad("no header"))?;
            if b[0] == b'\n' {
                let text = String::from_utf8_lossy(&header).into_owned();
                let Some(words) = text.strip_prefix("pgnkit keys 2 ") else {
                    return Err(bad(&format!("its header is {text:?}")));
                };
                let lines = words == "clean prefix";
                let read = header.len() as u64 + 1;
                return Ok((KeysReader { r, lines, read, copies: Default::default() }, words.to_string()));
            }
            header.push(b[0]);
        }
        Err(bad("no header"))
    }

    /// Where the last game entry's copies (`verbatim`, `text`, `records`) lie in the part, read
    /// or not: a long game's are copied from there, not held.
    pub fn copies(&self) -> [Range<u64>; 3] {
        self.copies.clone()
    }

    /// The reader behind, to drain it.
    pub fn into_inner(self) -> R {
        self.r
    }

    /// The next byte, `None` at the end.
    fn tag(&mut self) -> io::Result<Option<u8>> {
        let mut b = [0u8; 1];
        loop {
            match self.r.read(&mut b) {
                Ok(0) => return Ok(None),
                Ok(_) => {
                    self.read += 1;
                    return Ok(Some(b[0]));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn array<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        let mut b = [0u8; N];
        self.r.read_exact(&mut b).map_err(|_| bad("cut short"))?;
        self.read += N as u64;
        Ok(b)
    }

    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn range(&mut self) -> io::Result<Range<u64>> {
        Ok(self.u64()?..self.u64()?)
    }

    /// Bytes that hold UTF-8 text, at most `max`: `what` names them in the error.
    fn text(&mut self, what: &str, max: u64) -> io::Result<String> {
        String::from_utf8(self.bytes(what, max)?).map_err(|_| bad(&format!("{what} not UTF-8")))
    }

    /// Bytes, at most `max` (a corrupt length past what they can be is an error before it is
    /// read): `what` names them in the error.
    fn bytes(&mut self, what: &str, max: u64) -> io::Result<Vec<u8>> {
        let len = self.u64()?;
        if len > max {
            return Err(bad(&format!("{what} of {len} bytes, past the {max} it takes at most")));
        }
        // Room for the bytes at once (a length that lies is caught by the reading, not trusted).
        let mut v = Vec::with_capacity(len.min(1 << 20) as usize);
        (&mut self.r).take(len).read_to_end(&mut v)?;
        if v.len() as u64 != len {
            return Err(bad("cut short"));
        }
        self.read += len;
        Ok(v)
    }

    /// Reads past bytes without keeping them.
    fn skip_bytes(&mut self) -> io::Result<()> {
        let len = self.u64()?;
        if io::copy(&mut (&mut self.r).take(len), &mut io::sink())? != len {
            return Err(bad("cut short"));
        }
        self.read += len;
        Ok(())
    }

    /// The next entry of a `clean` keys part; `None` at its end.
    pub fn clean(&mut self) -> io::Result<Option<CleanEntry>> {
        self.clean_with(true)
    }

    /// The next entry of a `clean` keys part with a game's copies (`verbatim`, `text`,
    /// `records`: most of a part's bytes) when `copies`, else read past and left empty; `None`
    /// at its end.
    pub fn clean_with(&mut self, copies: bool) -> io::Result<Option<CleanEntry>> {
        match self.tag()? {
            None => Ok(None),
            Some(b'I') => {
                let name = self.text("a name", MAX_NAME)?;
                Ok(Some(CleanEntry::Input(name)))
            }
            Some(b'G') => {
                let input = self.u32()?;
                let (game, line, offset) = (self.u64()?, self.u64()?, self.u64()?);
                let mut id = Identity::from_bytes(&self.array()?).ok_or_else(|| bad("a result"))?;
                let mut mainline = Vec::new();
                if self.lines {
                    for w in &mut id.occasion.0 {
                        *w = self.u32()?;
                    }
                    mainline = self.bytes("a mainline", max_mainline())?;
                }
                let (of, shorter) = match self.u8()? {
                    0 => (None, false),
                    flag => (Some((self.u32()?, self.u64()?)), flag == 2),
                };
                let (out, dup, report) = (self.range()?, self.range()?, self.range()?);
                let broken = self.u8()? != 0;
                // A game's repairs: a count for each kind at most.
                let n = self.u32()?;
                if n as usize > RepairKind::COUNT {
                    return Err(bad(&format!("{n} kinds of repair, past the {}", RepairKind::COUNT)));
                }
                let repairs = (0..n)
                    .map(|_| Ok((self.text("a repair", MAX_REPAIR_NAME)?, self.u64()?)))
                    .collect::<io::Result<_>>()?;
                let (mut verbatim, mut text, mut records) = (Vec::new(), Vec::new(), Vec::new());
                for (k, b) in [&mut verbatim, &mut text, &mut records].into_iter().enumerate() {
                    // Its length's 8 bytes not read yet.
                    let start = self.read + 8;
                    match copies {
                        // Only tests hold them: `merge` copies them from the part.
                        true => *b = self.bytes("a copy of a game", u64::MAX)?,
                        false => self.skip_bytes()?,
                    }
                    self.copies[k] = start..self.read;
                }
                Ok(Some(CleanEntry::Game(Box::new(GameEntry {
                    input,
                    game,
                    line,
                    offset,
                    id: Some(id),
                    of,
                    shorter,
                    mainline,
                    out,
                    dup,
                    report,
                    broken,
                    repairs,
                    verbatim,
                    text,
                    records,
                }))))
            }
            Some(t) => Err(bad(&format!("an entry tagged {t}"))),
        }
    }

    /// The next entry of a `positions` keys part; `None` at its end.
    pub fn position(&mut self) -> io::Result<Option<PositionEntry>> {
        match self.tag()? {
            None => Ok(None),
            Some(b'I') => {
                let name = self.text("a name", MAX_NAME)?;
                Ok(Some(PositionEntry::Input(name)))
            }
            Some(b'P') => {
                let hash = self.u64()?;
                let key = Packed::read_key(&mut self.r).map_err(|e| match e.kind() {
                    io::ErrorKind::UnexpectedEof => bad("cut short"),
                    _ => bad("a packed position"),
                })?;
                Ok(Some(PositionEntry::Position { hash, key, len: self.u64()? }))
            }
            Some(t) => Err(bad(&format!("an entry tagged {t}"))),
        }
    }
}

/// A reader that hashes (XXH3-128) and counts every byte read through it.
pub struct Hashing<R> {
    inner: R,
    hasher: xxhash_rust::xxh3::Xxh3,
    len: u64,
}

impl<R: Read> Hashing<R> {
    /// Hashes what `inner` yields.
    pub fn new(inner: R) -> Hashing<R> {
        Hashing { inner, hasher: xxhash_rust::xxh3::Xxh3::new(), len: 0 }
    }

    /// Reads `inner` to its end, and gives its length and digest (as
    /// `shard::manifest::digest` gives them).
    pub fn finish(mut self) -> io::Result<(u64, String)> {
        io::copy(&mut self, &mut io::sink())?;
        Ok((self.len, format!("{:032x}", self.hasher.digest128())))
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::clean::dedup::{Date, Encounter, Name};
    use crate::pgn::GameResult;

    /// A length past what its text can take (an input's name, a repair's, a mainline) is an
    /// error before the bytes are read: a corrupt one makes no read as long as the part.
    #[test]
    fn a_length_past_what_its_text_takes_is_an_error() {
        let error = |bytes: &[u8]| {
            let (mut r, _) = KeysReader::new(bytes).expect("header");
            let e = r.clean_with(false).expect_err("refused");
            e.to_string()
        };
        let mut bytes = clean_header(Rule::Game);
        put_input(&mut bytes, &"a".repeat(MAX_NAME as usize + 1));
        assert_eq!(
            error(&bytes),
            "not a keys part of this pgnkit (a name of 65537 bytes, past the 65536 it takes at most)"
        );
        let repaired = |repairs: Vec<(String, u64)>| {
            let mut bytes = clean_header(Rule::Game);
            put_game(&mut bytes, &GameEntry { repairs, ..GameEntry::default() }, false);
            bytes
        };
        let e = error(&repaired(vec![("r".repeat(65), 1)]));
        assert!(e.ends_with("(a repair of 65 bytes, past the 64 it takes at most)"), "{e}");
        let e = error(&repaired(vec![("repaired_san".into(), 1); RepairKind::COUNT + 1]));
        assert!(
            e.ends_with(&format!(
                "({} kinds of repair, past the {})",
                RepairKind::COUNT + 1,
                RepairKind::COUNT
            )),
            "{e}"
        );
        // Under `prefix`: a mainline's length past the most plies a game has.
        let mut bytes = clean_header(Rule::Prefix);
        let at = bytes.len() + 1 + 4 + 3 * 8 + Identity::BYTES + 4 * Occasion::default().0.len();
        put_game(&mut bytes, &GameEntry { mainline: vec![7; 20], ..GameEntry::default() }, true);
        assert_eq!(bytes[at..at + 8], 20u64.to_le_bytes(), "the mainline's length");
        bytes[at..at + 8].copy_from_slice(&(max_mainline() + 1).to_le_bytes());
        let e = error(&bytes);
        assert!(
            e.ends_with(&format!(
                "(a mainline of {} bytes, past the {} it takes at most)",
                max_mainline() + 1,
                max_mainline()
            )),
            "{e}"
        );
    }

    #[test]
    fn entries_read_back() {
        let id = Identity {
            key: DedupKey([1, 2, 3]),
            who: Who {
                players: [Name::of("Nigel Short"), Name::of("Kasparov, G.")],
                date: Date::of("1983.07.??"),
                result: GameResult::Draw,
                encounter: Encounter::of("3.1", "https://lichess.org/abcdefgh"),
            },
            occasion: Occasion::default(),
        };
        let game = GameEntry {
            input: 2,
            game: 7,
            line: 90,
            offset: 1234,
            id: Some(id),
            of: Some((1, 3)),
            out: 5..5,
            dup: 10..40,
            report: 3..9,
            broken: true,
            repairs: vec![("repaired_san".into(), 3)],
            verbatim: b"1. e4 *\n\n".to_vec(),
            text: b"[Event \"?\"]\n\n*\n\n".to_vec(),
            records: b"{}\n".to_vec(),
            ..GameEntry::default()
        };
        // Under `prefix`: the occasion and the mainline too (none for a game with no moves), and
        // a shorter record's verdict.
        let line = GameEntry {
            id: Some(Identity { occasion: Occasion::of("Tata Steel", "Wijk aan Zee", "5"), ..id }),
            shorter: true,
            mainline: vec![7; 20],
            ..game.clone()
        };
        let header = clean_header(Rule::Game);
        let mut bytes = header.clone();
        put_input(&mut bytes, "a.pgn");
        put_game(&mut bytes, &game, false);
        let (mut r, words) = KeysReader::new(&bytes[..]).expect("header");
        assert_eq!(words, "clean game");
        assert_eq!(r.clean().expect("input"), Some(CleanEntry::Input("a.pgn".into())));
        assert_eq!(r.clean().expect("game"), Some(CleanEntry::Game(Box::new(game.clone()))));
        assert_eq!(r.clean().expect("end"), None);
        // Without the copies: the rest of the entry, and the next entry after it.
        let (mut r, _) = KeysReader::new(&bytes[..]).expect("header");
        r.clean_with(false).expect("input");
        let facts = GameEntry { verbatim: Vec::new(), text: Vec::new(), records: Vec::new(), ..game.clone() };
        assert_eq!(r.clean_with(false).expect("game"), Some(CleanEntry::Game(Box::new(facts))));
        // Where the copies read past lie in the part, for `merge` to copy them from there.
        let at: Vec<&[u8]> = r.copies().map(|c| &bytes[c.start as usize..c.end as usize]).into();
        assert_eq!(at, [&game.verbatim[..], &game.text[..], &game.records[..]]);
        assert_eq!(r.clean_with(false).expect("end"), None);
        let (mut cut, _) = KeysReader::new(&bytes[..bytes.len() - 1]).expect("header");
        cut.clean_with(false).expect("input");
        assert!(cut.clean_with(false).is_err(), "cut short");
        let mut prefix = clean_header(Rule::Prefix);
        let no_moves = GameEntry { mainline: Vec::new(), ..line.clone() };
        for g in [&line, &no_moves] {
            put_game(&mut prefix, g, true);
        }
        let (mut r, words) = KeysReader::new(&prefix[..]).expect("header");
        assert_eq!(words, "clean prefix");
        assert_eq!(r.clean().expect("a mainline"), Some(CleanEntry::Game(Box::new(line))));
        assert_eq!(r.clean().expect("none"), Some(CleanEntry::Game(Box::new(no_moves))));
        assert_eq!(r.clean().expect("end"), None);
        assert!(KeysReader::new(&b"pgnkit keys 1 clean game\n"[..]).is_err(), "another version");
        let (mut cut, _) = KeysReader::new(&bytes[..bytes.len() - 1]).expect("header");
        cut.clean().expect("input");
        assert!(cut.clean().is_err(), "cut short");

        let mut p = POSITIONS_HEADER.to_vec();
        let key = PackedKey::of(&crate::chess::Position::default());
        put_position(&mut p, 99, &key, 57);
        let (mut r, words) = KeysReader::new(&p[..]).expect("header");
        assert_eq!(words, "positions unique");
        assert_eq!(r.position().expect("position"), Some(PositionEntry::Position { hash: 99, key, len: 57 }));
        assert_eq!(r.position().expect("end"), None);
        let (mut cut, _) = KeysReader::new(&p[..p.len() - 3]).expect("header");
        assert!(cut.position().is_err(), "cut short");
    }
}
