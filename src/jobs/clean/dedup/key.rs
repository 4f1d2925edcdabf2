//! Moves keys: a game's variant, start position and mainline as 96 bits, and the mainline as
//! bytes the `prefix` rule sorts.

use xxhash_rust::xxh3::Xxh3;

use super::name::words;
use crate::chess::{PackedKey, Position, Variant};

/// A game's moves key (96 bits of a 128-bit XXH3 digest): its variant, start position and
/// mainline moves; for a game with no moves under the `game` and `prefix` rules, its `Event`,
/// `Site` and `Round` (folded as names are) too. With n distinct games the chance that two
/// different ones share a key is about n² / 2⁹⁷: 6 × 10⁻¹² for a billion games, so equal keys
/// are taken as equal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DedupKey(pub [u32; 3]);

impl DedupKey {
    /// The key of a 128-bit digest.
    pub fn of_digest(hash: u128) -> DedupKey {
        DedupKey([hash as u32, (hash >> 32) as u32, (hash >> 64) as u32])
    }

    /// The key's own bits as its hash: they are uniformly distributed already.
    pub fn hash(self) -> u64 {
        u64::from(self.0[0]) | u64::from(self.0[1]) << 32
    }
}

/// A hasher fed the variant and the start position.
fn start(variant: Variant, start: Option<&Position>) -> Xxh3 {
    let mut h = Xxh3::new();
    h.update(&[variant as u8]);
    if let Some(start) = start {
        match PackedKey::of(start) {
            PackedKey::Compact(k) => k.iter().for_each(|w| h.update(&w.to_le_bytes())),
            PackedKey::Wide(k) => k.iter().for_each(|w| h.update(&w.to_le_bytes())),
        }
    }
    h
}

/// The key of a game from `start_pos` whose mainline is `moves` (two bytes a move, as
/// `Move::to_u16` gives them, little-endian; 0 a null move).
pub fn moves_key(variant: Variant, start_pos: Option<&Position>, moves: &[u8]) -> DedupKey {
    MovesKey::new(variant, start_pos).key(moves)
}

/// Bytes of a game's moves held before they are hashed as they come ([`MovesKey`]).
pub const MOVES_HELD: usize = 64 << 10;

/// A moves key fed a game's moves part by part, so that what a long game holds for its key does
/// not grow with it: the key is [`moves_key`]'s of all the moves fed.
#[derive(Clone)]
pub struct MovesKey(Box<Xxh3>);

impl MovesKey {
    /// The key of a game from `start_pos`, no move fed yet.
    pub fn new(variant: Variant, start_pos: Option<&Position>) -> MovesKey {
        MovesKey(Box::new(start(variant, start_pos)))
    }

    /// Feeds `moves`, the next of the mainline.
    pub fn feed(&mut self, moves: &[u8]) {
        self.0.update(moves);
    }

    /// The key, once `moves`, the last of the mainline, are fed.
    pub fn key(mut self, moves: &[u8]) -> DedupKey {
        self.feed(moves);
        DedupKey::of_digest(self.0.digest128())
    }
}

/// The key of a game with no moves under the `game` and `prefix` rules: its start, then the
/// words of its `Event`, `Site` and `Round` in order (never the key of a game with moves: a
/// word's token is never 0, the separator).
pub fn roster_key(variant: Variant, start_pos: Option<&Position>, roster: [&str; 3]) -> DedupKey {
    let mut h = start(variant, start_pos);
    h.update(b"roster");
    for text in roster {
        words(text, |t| h.update(&t.to_le_bytes()));
        h.update(&0u32.to_le_bytes());
    }
    DedupKey::of_digest(h.digest128())
}

/// Bytes of a mainline's start in [`mainline`].
pub const START: usize = 16;

/// Bytes of a mainline at most: its start and two a ply, a game's plies being within the
/// reader's token budget ([`Limits::max_tokens`](crate::pgn::Limits::max_tokens): 16 MB).
pub fn max_mainline() -> u64 {
    START as u64 + 2 * u64::from(crate::pgn::Limits::default().max_tokens)
}

/// Appends to `out` a mainline (`moves` as in [`moves_key`]) as the `prefix` rule orders it:
/// the digest of its variant and start position (16 bytes), then its moves. One game's
/// mainline is a prefix of another's exactly when its bytes are a prefix of the other's, so
/// sorted mainlines bring each game after the shorter ones it extends.
pub fn mainline(variant: Variant, start_pos: Option<&Position>, moves: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&start(variant, start_pos).digest128().to_le_bytes());
    out.extend_from_slice(moves);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shorter_mainline_is_a_prefix_of_the_longer() {
        let moves: Vec<u8> = (1u16..=6).flat_map(|m| m.to_le_bytes()).collect();
        let (mut long, mut short) = (vec![], vec![]);
        mainline(Variant::Standard, None, &moves, &mut long);
        mainline(Variant::Standard, None, &moves[..8], &mut short);
        assert_eq!(long.len(), START + 12);
        assert!(long.starts_with(&short));
        let mut other = vec![];
        mainline(Variant::Chess960, None, &moves, &mut other);
        assert_ne!(other[..START], long[..START], "the variant is part of the start");
    }

    #[test]
    fn moves_fed_part_by_part_make_the_key_of_the_whole() {
        let moves: Vec<u8> = (1u16..=3000).flat_map(|m| m.to_le_bytes()).collect();
        let mut fed = MovesKey::new(Variant::Standard, None);
        fed.feed(&moves[..2]);
        fed.feed(&moves[2..4000]);
        assert_eq!(fed.key(&moves[4000..]), moves_key(Variant::Standard, None, &moves));
    }

    #[test]
    fn a_game_with_no_moves_is_keyed_by_its_roster() {
        let key = |r| roster_key(Variant::Standard, None, r);
        assert_eq!(
            key(["Tata Steel Masters", "Wijk aan Zee", "5"]),
            key(["Tata Steel  masters", "Wijk-aan-Zee", "5"])
        );
        assert_ne!(
            key(["Tata Steel Masters", "Wijk aan Zee", "5"]),
            key(["Tata Steel Masters", "Wijk aan Zee", "6"])
        );
        assert_ne!(key(["a b", "", ""]), key(["a", "b", ""]));
        assert_ne!(key(["", "", ""]), moves_key(Variant::Standard, None, &[]));
    }
}
