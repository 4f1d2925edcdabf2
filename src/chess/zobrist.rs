//! Zobrist keys, generated at compile time from a fixed seed (splitmix64), and the full-position
//! hash. `Position::play_unchecked` keeps the key incrementally; the movegen differential test
//! checks it equals the recomputed one. The en passant file is hashed only when an en passant
//! capture is legal (python-chess's rule), so that transpositions with and without a useless
//! double step hash alike and repetitions are found exactly.

use super::bitboard::Bitboard;
use super::board::Board;
use super::setup::Pocket;
use super::square::Square;
use super::types::{ByColor, Color, Piece, Role};

const fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Number of pocket-count keys per (color, role): counts 0..32 cannot collide.
const POCKET_SLOTS: usize = 32;

struct Keys {
    pieces: [[u64; 64]; 12],
    castling: [u64; 64],
    ep_file: [u64; 8],
    turn: u64,
    pockets: [[[u64; POCKET_SLOTS]; 5]; 2],
    promoted: [u64; 64],
}

static KEYS: Keys = KEY_TABLE;

/// The key of the standard starting placement with all four castling rights, White to move: what
/// every game without a `FEN` starts from, in any variant (empty pockets add nothing). Computed
/// at compile time, where hashing the board cost each game's start 32 piece lookups.
pub const START: u64 = {
    let board = Board::standard();
    placement_key(&KEY_TABLE, &board) ^ xor_keys(&KEY_TABLE.castling, board.rooks())
};

const KEY_TABLE: Keys = {
    let mut s = 0x5eed_0f9a_4b17_u64;
    let mut k = Keys {
        pieces: [[0; 64]; 12],
        castling: [0; 64],
        ep_file: [0; 8],
        turn: 0,
        pockets: [[[0; POCKET_SLOTS]; 5]; 2],
        promoted: [0; 64],
    };
    let mut i = 0;
    while i < 12 * 64 {
        k.pieces[i / 64][i % 64] = splitmix(&mut s);
        i += 1;
    }
    i = 0;
    while i < 64 {
        k.castling[i] = splitmix(&mut s);
        k.promoted[i] = splitmix(&mut s);
        i += 1;
    }
    i = 0;
    while i < 8 {
        k.ep_file[i] = splitmix(&mut s);
        i += 1;
    }
    k.turn = splitmix(&mut s);
    i = 0;
    while i < 2 * 5 * POCKET_SLOTS {
        // Count 0 has key 0 so an empty pocket (every standard position) adds nothing.
        let c = i % POCKET_SLOTS;
        k.pockets[i / (5 * POCKET_SLOTS)][(i / POCKET_SLOTS) % 5][c] =
            if c == 0 { 0 } else { splitmix(&mut s) };
        i += 1;
    }
    k
};

/// Key of `piece` on `sq`.
#[inline(always)]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    KEYS.pieces[piece.index()][sq.index()]
}

/// Key of a castling right held by the rook on `sq`.
#[inline(always)]
pub fn castling_key(sq: Square) -> u64 {
    KEYS.castling[sq.index()]
}

/// Combined key of a set of castling rights.
#[inline]
pub fn castling_rights_key(rights: Bitboard) -> u64 {
    xor_keys(&KEYS.castling, rights)
}

/// The keys of the squares of `squares`, combined. `const`, like [`placement_key`], so that
/// [`START`] is computed by the code that hashes at run time.
#[inline]
const fn xor_keys(keys: &[u64; 64], squares: Bitboard) -> u64 {
    let (mut h, mut bb) = (0, squares.0);
    while bb != 0 {
        h ^= keys[bb.trailing_zeros() as usize];
        bb &= bb - 1;
    }
    h
}

/// The key of a placement, from the table `keys`.
const fn placement_key(keys: &Keys, board: &Board) -> u64 {
    let (mut h, mut i) = (0, 0);
    while i < 12 {
        let piece = Piece { color: Color::ALL[i / 6], role: Role::ALL[i % 6] };
        h ^= xor_keys(&keys.pieces[piece.index()], board.by_piece(piece));
        i += 1;
    }
    h
}

/// Key of an en passant file.
#[inline(always)]
pub fn ep_key(sq: Square) -> u64 {
    KEYS.ep_file[sq.file().index()]
}

/// Key toggled when Black is to move.
#[inline(always)]
pub fn turn_key() -> u64 {
    KEYS.turn
}

/// Key of `color` holding `count` of `role`.
#[inline(always)]
pub fn pocket_key(color: Color, role: Role, count: u8) -> u64 {
    KEYS.pockets[color.index()][role.index() % 5][count as usize % POCKET_SLOTS]
}

/// Key of a promoted-piece mark on `sq`.
#[inline(always)]
pub fn promoted_key(sq: Square) -> u64 {
    KEYS.promoted[sq.index()]
}

/// Hash of the placement alone.
pub fn hash_board(board: &Board) -> u64 {
    placement_key(&KEYS, board)
}

/// Hash of pockets and promoted marks (0 for standard positions).
pub fn hash_crazyhouse(pockets: &ByColor<Pocket>, promoted: Bitboard) -> u64 {
    let mut h = xor_keys(&KEYS.promoted, promoted);
    for color in Color::ALL {
        for role in Role::POCKET {
            h ^= pocket_key(color, role, pockets[color].count(role));
        }
    }
    h
}

/// A [`Hasher`](std::hash::Hasher) for keys that are hashes of positions already (a Zobrist key,
/// a board hash): a `u64` is taken as it is, where SipHash would mix it again.
#[derive(Default, Clone, Copy)]
pub struct MixedHasher(u64);

impl std::hash::Hasher for MixedHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A map keyed by a position's hash ([`MixedHasher`]).
pub type MixedMap<V> = std::collections::HashMap<u64, V, std::hash::BuildHasherDefault<MixedHasher>>;
