//! Moves keys: a game's variant, start position and mainline as 96 bits, and the keys of every
//! prefix of its mainline for the `prefix` rule.

use xxhash_rust::xxh3::{Xxh3, xxh3_128};

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
    let mut h = start(variant, start_pos);
    h.update(moves);
    DedupKey::of_digest(h.digest128())
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

/// Appends to `out` the key of every prefix of a mainline (`moves` as in [`moves_key`]), its
/// first move's first: each the XXH3-128 digest of the previous one and the move, the first
/// of the variant and start position's digest. The last is the game's key under the `prefix`
/// rule.
pub fn prefix_keys(variant: Variant, start_pos: Option<&Position>, moves: &[u8], out: &mut Vec<DedupKey>) {
    let mut state = start(variant, start_pos).digest128();
    let mut bytes = [0u8; 18];
    for mv in moves.chunks_exact(2) {
        bytes[..16].copy_from_slice(&state.to_le_bytes());
        bytes[16..].copy_from_slice(mv);
        state = xxh3_128(&bytes);
        out.push(DedupKey::of_digest(state));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_prefix_has_the_key_of_the_game_it_would_be() {
        let moves: Vec<u8> = (1u16..=6).flat_map(|m| m.to_le_bytes()).collect();
        let (mut long, mut short) = (vec![], vec![]);
        prefix_keys(Variant::Standard, None, &moves, &mut long);
        prefix_keys(Variant::Standard, None, &moves[..8], &mut short);
        assert_eq!(long.len(), 6);
        assert_eq!(&long[..4], &short[..]);
        let mut other = vec![];
        prefix_keys(Variant::Chess960, None, &moves, &mut other);
        assert!(other.iter().zip(&long).all(|(a, b)| a != b), "the variant is part of every key");
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
