//! Cache keys: the engine's identity ([`EngineId`]), the limit as text, the position as EPD, and
//! the 64-bit hash of the three that is a row's primary key. The hash is part of the file format:
//! changing it orphans the rows of every existing cache.

use std::fmt;

use crate::analysis::Limit;
use crate::chess::{Move, Position};
use crate::notation::{EpMode, write_epd, write_uci};

use super::cacheable;

/// An engine's identity as far as results go: its `id name` (which carries its version) and the
/// options that change evaluations, in a canonical text: `name; option=value; ...` with option
/// names trimmed and lower-cased (UCI option names are case-insensitive), sorted, the last value
/// of a repeated option kept.
///
/// ```
/// use pgnkit::analysis::cache::EngineId;
/// let a = EngineId::new("Stockfish 17", [("Threads", "1"), ("Hash", "16")]);
/// let b = EngineId::new("Stockfish 17", [("hash", "16"), ("threads", "1")]);
/// assert_eq!(a, b);
/// assert_eq!(a.as_str(), "Stockfish 17; hash=16; threads=1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EngineId(String);

impl EngineId {
    /// The identity of the engine called `name` (its `id name`) set up with `options`.
    pub fn new<N: AsRef<str>, V: AsRef<str>>(
        name: &str,
        options: impl IntoIterator<Item = (N, V)>,
    ) -> EngineId {
        let mut opts: Vec<(String, String)> = Vec::new();
        for (n, v) in options {
            let (n, v) = (n.as_ref().trim().to_ascii_lowercase(), v.as_ref().trim().to_owned());
            match opts.iter_mut().find(|(k, _)| *k == n) {
                Some(o) => o.1 = v,
                None => opts.push((n, v)),
            }
        }
        opts.sort();
        let mut text = name.trim().to_owned();
        for (n, v) in opts {
            text.push_str("; ");
            text.push_str(&n);
            text.push('=');
            text.push_str(&v);
        }
        EngineId(text)
    }

    /// The canonical text, as stored in the `engine` column.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EngineId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The limit as `go` arguments, or `None` when it is not cached.
pub(super) fn limit_text(limit: &Limit) -> Option<String> {
    if !cacheable(limit) {
        return None;
    }
    let mut text = String::new();
    if let Some(d) = limit.depth {
        text.push_str("depth ");
        text.push_str(itoa::Buffer::new().format(d));
    }
    if let Some(n) = limit.nodes {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str("nodes ");
        text.push_str(itoa::Buffer::new().format(n));
    }
    Some(text)
}

/// The primary key of a cache row (see the module doc; part of the file format).
pub(super) fn key_hash(position: &str, engine: &str, limit: &str) -> i64 {
    const PRIME: u64 = 0x0000_0100_0000_01B3;
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for part in [position, engine, limit] {
        for &b in part.as_bytes().iter().chain(&[0xFF]) {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME);
        }
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^= h >> 33;
    h as i64
}

/// A cache key: its hash and the texts it stands for.
pub(super) struct Key<'e> {
    pub(super) hash: i64,
    pub(super) position: String,
    pub(super) engine: &'e str,
    pub(super) limit: String,
}

impl<'e> Key<'e> {
    /// The key of the position `moves` lead to from `start` (no moves: `start` alone), analysed
    /// by `engine` under `limit`, and that position. The engine sees the line, so the key holds
    /// everything the line gives it beyond the last position:
    /// - the moves;
    /// - the halfmove clock (the fifty-move rule), as `hmvc N` when more than the moves make it
    ///   (a line from a game's `FEN`, an EPD line);
    /// - the start, as `from EPD`, when the last position and the moves do not make it: castling
    ///   rights lost on the way, or an en passant capture the start allowed (either changes which
    ///   positions repeat).
    ///
    /// A line from a capture or pawn move with neither keeps the key it always had.
    pub(super) fn new(
        start: &Position,
        moves: &[Move],
        engine: &'e EngineId,
        limit: &Limit,
    ) -> Option<(Key<'e>, Position)> {
        let limit = limit_text(limit)?;
        let mut pos = *start;
        let mut line = String::new();
        for &m in moves {
            if !line.is_empty() {
                line.push(' ');
            }
            write_uci(m, pos.castling_mode(), &mut line);
            pos.play_unchecked(m);
        }
        let mut position = String::with_capacity(96);
        write_epd(&pos, EpMode::Legal, &mut position);
        if pos.halfmoves() as usize > moves.len() {
            position.push_str(" hmvc ");
            position.push_str(itoa::Buffer::new().format(pos.halfmoves()));
        }
        if !moves.is_empty() {
            if start.castling_rights() != pos.castling_rights() || start.ep_square_legal().is_some() {
                position.push_str(" from ");
                write_epd(start, EpMode::Legal, &mut position);
            }
            position.push_str(" moves ");
            position.push_str(&line);
        }
        let hash = key_hash(&position, engine.as_str(), &limit);
        Some((Key { hash, position, engine: engine.as_str(), limit }, pos))
    }
}
