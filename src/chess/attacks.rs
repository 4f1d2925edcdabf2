//! Attack tables for every piece, built at compile time by `const fn` (no `init()`, no globals
//! written at run time). Sliders use one shared table indexed by PEXT when the build enables
//! BMI2 (`-C target-cpu=native` on a BMI2 machine) and by fancy magic multiplication otherwise;
//! both layouts share offsets, so only the index within a square's block differs.
//! The magic numbers were found by a seeded search (see the ignored test `print_magics`).

use super::bitboard::Bitboard;
use super::square::Square;
use super::types::{Color, Role};

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Rays from `sq` in `dirs`, stopping at (and including) the first blocker in `occ`.
/// With `inner`, the last square of each ray is left out (relevant-occupancy mask).
const fn slide(sq: u32, occ: u64, dirs: &[(i32, i32); 4], inner: bool) -> u64 {
    let mut r = 0;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let (mut f, mut k) = ((sq % 8) as i32 + df, (sq / 8) as i32 + dr);
        while f >= 0 && f < 8 && k >= 0 && k < 8 {
            if inner && !(f + df >= 0 && f + df < 8 && k + dr >= 0 && k + dr < 8) {
                break;
            }
            let s = (k * 8 + f) as u32;
            r |= 1 << s;
            if occ & (1 << s) != 0 {
                break;
            }
            f += df;
            k += dr;
        }
        d += 1;
    }
    r
}

const fn step_table(deltas: &[(i32, i32)]) -> [u64; 64] {
    let mut t = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < deltas.len() {
            let (f, k) = ((sq % 8) as i32 + deltas[i].0, (sq / 8) as i32 + deltas[i].1);
            if f >= 0 && f < 8 && k >= 0 && k < 8 {
                t[sq] |= 1 << (k * 8 + f);
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

static KNIGHT: [u64; 64] =
    step_table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
static KING: [u64; 64] = step_table(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]);
static PAWN: [[u64; 64]; 2] = [step_table(&[(-1, 1), (1, 1)]), step_table(&[(-1, -1), (1, -1)])];

/// Per-square slider lookup data.
#[derive(Clone, Copy)]
struct Magic {
    mask: u64,
    /// The piece's rays on an empty board: where a compressed table entry is spread back to
    /// (PEXT build), and what the pin filters test without a slider lookup.
    rays: u64,
    #[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
    // portable build, tests
    magic: u64,
    offset: u32,
    #[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
    shift: u32,
}

const ROOK_TABLE_SIZE: usize = 102_400;
const TABLE_SIZE: usize = ROOK_TABLE_SIZE + 5_248;

const fn magics(dirs: &[(i32, i32); 4], numbers: &[u64; 64], mut offset: u32) -> [Magic; 64] {
    let mut m = [Magic { mask: 0, rays: 0, magic: 0, offset: 0, shift: 0 }; 64];
    let mut sq = 0;
    while sq < 64 {
        let mask = slide(sq as u32, 0, dirs, true);
        let rays = slide(sq as u32, 0, dirs, false);
        m[sq] = Magic { mask, rays, magic: numbers[sq], offset, shift: 64 - mask.count_ones() };
        offset += 1 << mask.count_ones();
        sq += 1;
    }
    m
}

static ROOK_MAGICS: [Magic; 64] = magics(&ROOK_DIRS, &ROOK_NUMBERS, 0);
static BISHOP_MAGICS: [Magic; 64] = magics(&BISHOP_DIRS, &BISHOP_NUMBERS, ROOK_TABLE_SIZE as u32);

/// Software PDEP: spreads the low bits of `x` over the set bits of `mask`.
#[cfg(test)]
const fn pdep(mut x: u64, mut mask: u64) -> u64 {
    let mut r = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if x & 1 != 0 {
            r |= low;
        }
        x >>= 1;
        mask &= mask - 1;
    }
    r
}

/// Software PEXT, the inverse of [`pdep`]: builds the PEXT table at compile time.
#[cfg(any(test, all(target_arch = "x86_64", target_feature = "bmi2")))]
const fn pext_soft(x: u64, mut mask: u64) -> u64 {
    let mut r = 0;
    let mut bit = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if x & low != 0 {
            r |= 1 << bit;
        }
        bit += 1;
        mask &= mask - 1;
    }
    r
}

/// Rays from each square in each of the 8 directions (rook directions 0-3, bishop 4-7),
/// not blocked: the building blocks of the O(1) table construction below.
static RAYS: [[u64; 64]; 8] = {
    let mut r = [[0; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let dir = if d < 4 { ROOK_DIRS[d] } else { BISHOP_DIRS[d - 4] };
        let mut sq = 0;
        while sq < 64 {
            let (mut f, mut k) = ((sq % 8) as i32 + dir.0, (sq / 8) as i32 + dir.1);
            while f >= 0 && f < 8 && k >= 0 && k < 8 {
                r[d][sq] |= 1 << (k * 8 + f);
                f += dir.0;
                k += dir.1;
            }
            sq += 1;
        }
        d += 1;
    }
    r
};

/// Attacks along the four directions `first..first + 4` of [`RAYS`], blocked by `occ`: each ray
/// is cut behind its nearest blocker (lowest bit for increasing directions, highest otherwise).
const fn ray_attacks(sq: usize, occ: u64, first: usize) -> u64 {
    let mut att = 0;
    let mut d = first;
    while d < first + 4 {
        let ray = RAYS[d][sq];
        let blockers = ray & occ;
        att |= if blockers == 0 {
            ray
        } else {
            let increasing = RAYS[d][sq] > (1u64 << sq);
            let b = if increasing { blockers.trailing_zeros() } else { 63 - blockers.leading_zeros() };
            ray ^ RAYS[d][b as usize]
        };
        d += 1;
    }
    att
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
const fn fill(table: &mut [u64; TABLE_SIZE], magics: &[Magic; 64], first_ray: usize) {
    let mut sq = 0;
    while sq < 64 {
        let m = &magics[sq];
        // Carry-rippler: visits every subset of the mask.
        let mut occ = 0u64;
        loop {
            let idx = (occ.wrapping_mul(m.magic) >> m.shift) as usize;
            table[m.offset as usize + idx] = ray_attacks(sq, occ, first_ray);
            occ = occ.wrapping_sub(m.mask) & m.mask;
            if occ == 0 {
                break;
            }
        }
        sq += 1;
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
static SLIDERS: [u64; TABLE_SIZE] = {
    let mut t = [0; TABLE_SIZE];
    fill(&mut t, &ROOK_MAGICS, 0);
    fill(&mut t, &BISHOP_MAGICS, 4);
    t
};

/// With PEXT, each attack set is stored compressed to its rays (at most 14 bits) and spread back
/// with PDEP: 210 KB instead of 860 KB, so far more of it stays in cache while PGN streams by.
/// Built in parts: each constant is one evaluation, kept under the compiler's step limit.
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
#[allow(clippy::large_const_arrays)] // the parts exist at compile time only
static SLIDERS: [u16; TABLE_SIZE] = {
    /// Fills the entries of squares `first..first + 16`; the carry-rippler visits the subsets of
    /// the mask in PEXT order (index i holds pdep(i, mask)).
    const fn part(
        mut t: [u16; TABLE_SIZE],
        magics: &[Magic; 64],
        first_ray: usize,
        first: usize,
    ) -> [u16; TABLE_SIZE] {
        let mut sq = first;
        while sq < first + 16 {
            let m = &magics[sq];
            let (mut occ, mut i) = (0u64, 0);
            loop {
                t[m.offset as usize + i] = pext_soft(ray_attacks(sq, occ, first_ray), m.rays) as u16;
                occ = occ.wrapping_sub(m.mask) & m.mask;
                i += 1;
                if occ == 0 {
                    break;
                }
            }
            sq += 1;
        }
        t
    }
    const R0: [u16; TABLE_SIZE] = part([0; TABLE_SIZE], &ROOK_MAGICS, 0, 0);
    const R1: [u16; TABLE_SIZE] = part(R0, &ROOK_MAGICS, 0, 16);
    const R2: [u16; TABLE_SIZE] = part(R1, &ROOK_MAGICS, 0, 32);
    const R3: [u16; TABLE_SIZE] = part(R2, &ROOK_MAGICS, 0, 48);
    const B0: [u16; TABLE_SIZE] = part(R3, &BISHOP_MAGICS, 4, 0);
    const B1: [u16; TABLE_SIZE] = part(B0, &BISHOP_MAGICS, 4, 16);
    const B2: [u16; TABLE_SIZE] = part(B1, &BISHOP_MAGICS, 4, 32);
    part(B2, &BISHOP_MAGICS, 4, 48)
};

#[inline(always)]
fn slider(m: &Magic, occ: Bitboard) -> Bitboard {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    // SAFETY: these lines are compiled only when BMI2 is enabled for the whole build (cfg above).
    // PEXT leaves at most `mask.count_ones()` bits, and every magic's entries lie inside the
    // table (`tables_hold_every_entry` checks it): the unchecked index, one compare and branch
    // less on every lookup, is in bounds.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_pdep_u64, _pext_u64};
        let idx = m.offset as usize + _pext_u64(occ.0, m.mask) as usize;
        debug_assert!(idx < SLIDERS.len());
        Bitboard(_pdep_u64(u64::from(*SLIDERS.get_unchecked(idx)), m.rays))
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let idx = ((occ.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize;
        Bitboard(SLIDERS[m.offset as usize + idx])
    }
}

/// Squares a rook on `sq` attacks given the occupancy.
#[inline(always)]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    slider(&ROOK_MAGICS[sq.index()], occ)
}

/// Squares a bishop on `sq` attacks given the occupancy.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    slider(&BISHOP_MAGICS[sq.index()], occ)
}

/// Squares a queen on `sq` attacks given the occupancy.
#[inline(always)]
pub fn queen_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    rook_attacks(sq, occ) | bishop_attacks(sq, occ)
}

/// Squares a rook on `sq` attacks on an empty board.
#[inline(always)]
pub fn rook_rays(sq: Square) -> Bitboard {
    Bitboard(ROOK_MAGICS[sq.index()].rays)
}

/// Squares a bishop on `sq` attacks on an empty board.
#[inline(always)]
pub fn bishop_rays(sq: Square) -> Bitboard {
    Bitboard(BISHOP_MAGICS[sq.index()].rays)
}

/// Squares a knight on `sq` attacks.
#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// Squares a king on `sq` attacks.
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks (captures only).
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

/// Squares a piece of `role` and `color` on `sq` attacks.
#[inline(always)]
pub fn attacks(role: Role, color: Color, sq: Square, occ: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occ),
        Role::Rook => rook_attacks(sq, occ),
        Role::Queen => queen_attacks(sq, occ),
        Role::King => king_attacks(sq),
    }
}

const fn line_tables() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut between = [[0; 64]; 64];
    let mut line = [[0; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            if a != b {
                let bb = 1u64 << b;
                let mut dirs = 0;
                while dirs < 2 {
                    let set = if dirs == 0 { &ROOK_DIRS } else { &BISHOP_DIRS };
                    if slide(a as u32, 0, set, false) & bb != 0 {
                        between[a][b] = slide(a as u32, bb, set, false) & slide(b as u32, 1 << a, set, false);
                        line[a][b] =
                            (slide(a as u32, 0, set, false) & slide(b as u32, 0, set, false)) | (1 << a) | bb;
                    }
                    dirs += 1;
                }
            }
            b += 1;
        }
        a += 1;
    }
    (between, line)
}

static LINES: ([[u64; 64]; 64], [[u64; 64]; 64]) = line_tables();

/// Squares strictly between `a` and `b` on a rank, file or diagonal; empty when not aligned.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.0[a.index()][b.index()])
}

/// The whole line (edge to edge) through `a` and `b`; empty when not aligned.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.1[a.index()][b.index()])
}

/// `true` when `a`, `b` and `c` are on one line.
#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

const ROOK_NUMBERS: [u64; 64] = [
    0x2080002080400010,
    0x00c0002001401000,
    0x2100110008402002,
    0x0880080081041000,
    0x0200020020041008,
    0x2300040008010012,
    0x0c00283004008201,
    0x0180010000407a80,
    0x0168800080400020,
    0x0010400040201000,
    0x1001002001001048,
    0x1001002408100100,
    0x0801000408010012,
    0x4001000209000400,
    0x08a20004c8020001,
    0x2002801145002280,
    0x0080860021004200,
    0x001000c009402002,
    0x00b0002004002800,
    0x100a808010020800,
    0x8101010008000410,
    0x0244008002000480,
    0x0000040010810208,
    0x2000020000448534,
    0x4104400480008033,
    0x0000810100204000,
    0x0440430900200010,
    0x4600240900100100,
    0x0060080080040080,
    0x0001000300080400,
    0x0004084400011002,
    0x0023040200008041,
    0x0580050043002080,
    0x0400804002802008,
    0x0001002001004010,
    0x1000200901001000,
    0x4410800801800c00,
    0xa012003806001004,
    0x0020100104008802,
    0x0004808402000041,
    0x0010400170898000,
    0x0080500020004004,
    0x1040408012020020,
    0x8010040008004040,
    0x2001080100110004,
    0x0000020004008080,
    0x0021010810040002,
    0x0800008c43020024,
    0x0000800021005100,
    0x0070201040008080,
    0x0000d04282006a00,
    0x0010014400080240,
    0x0001080110050100,
    0x0012000810240600,
    0x0402000801040200,
    0x028100108a004100,
    0x0050800300102045,
    0x8208210040120882,
    0x8010600101183441,
    0x020b000910006045,
    0x0241001002480005,
    0x0081000400880241,
    0x0000009008024124,
    0x0048122980410402,
];
const BISHOP_NUMBERS: [u64; 64] = [
    0x0848020822040013,
    0x8010a40085821200,
    0x0008008430840822,
    0x0808048108040000,
    0x1304042100008104,
    0x5001012010204023,
    0x81048801b8200420,
    0x200a008084012000,
    0x0040102001042084,
    0x840a505042428020,
    0x0000700102202920,
    0x44101c0c10800002,
    0x0040040422000000,
    0x0180020802090202,
    0x4020020811041202,
    0x000104308c042000,
    0x4140661002424400,
    0x0028012008010460,
    0x0188062102002a00,
    0x0014004840102008,
    0x0105000290400002,
    0x8001022200410400,
    0x104a041918013446,
    0x008a000082008238,
    0x04a0060008100430,
    0x0008220008820801,
    0x2508041208005010,
    0x4008080200202020,
    0x2441001013004000,
    0x0030008060407000,
    0x4008108000420800,
    0x0012021050290100,
    0x0210080482200500,
    0xcc01112048100480,
    0x0020402806500440,
    0x00048e0080580080,
    0x0040102020020080,
    0x0028010440080807,
    0x4601041108008800,
    0x8040810e04104200,
    0x901210110400088a,
    0xa003080212081050,
    0x00c1004048401004,
    0x900000a014400800,
    0x0008021040405401,
    0x4020008206002090,
    0x0004190424030100,
    0x0424008a02026250,
    0x8004088250900040,
    0x1c00430088a04200,
    0x0001020094040001,
    0x8040210020880061,
    0x2010040450442032,
    0x0800840850044001,
    0x0004040802140004,
    0x0004080a04222020,
    0x8088802110022000,
    0x1081a10416114400,
    0x0205010a24060820,
    0x0000000720411080,
    0x1008000208430400,
    0x580c026028810840,
    0x802020441020a110,
    0x12c0022401020018,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_hold_every_entry() {
        for m in ROOK_MAGICS.iter().chain(&BISHOP_MAGICS) {
            assert!(m.offset as usize + (1usize << m.mask.count_ones()) <= SLIDERS.len());
        }
    }

    fn naive(sq: Square, occ: u64, dirs: &[(i32, i32); 4]) -> u64 {
        slide(sq as u32, occ, dirs, false)
    }

    #[test]
    fn sliders_match_ray_walk() {
        let mut x: u64 = 0x1234_5678_9abc_def1;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = x & (x >> 3);
            let sq = Square::new((x >> 58) as u32);
            assert_eq!(rook_attacks(sq, Bitboard(occ)).0, naive(sq, occ, &ROOK_DIRS));
            assert_eq!(bishop_attacks(sq, Bitboard(occ)).0, naive(sq, occ, &BISHOP_DIRS));
        }
    }

    /// Every entry of the slider table (compressed or not), against the ray walk.
    #[test]
    fn sliders_exhaustive_over_mask_subsets() {
        for (magics, dirs, attacks) in [
            (&ROOK_MAGICS, &ROOK_DIRS, rook_attacks as fn(Square, Bitboard) -> Bitboard),
            (&BISHOP_MAGICS, &BISHOP_DIRS, bishop_attacks),
        ] {
            for (i, m) in magics.iter().enumerate() {
                let sq = Square::new(i as u32);
                let mut occ = 0u64;
                loop {
                    // Blockers off the mask (edges, other lines) change nothing.
                    let noise = !m.mask & 0x8142_2418_1824_4281;
                    assert_eq!(attacks(sq, Bitboard(occ | noise)).0, naive(sq, occ, dirs), "{sq:?} {occ:x}");
                    occ = occ.wrapping_sub(m.mask) & m.mask;
                    if occ == 0 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn leapers_and_lines() {
        assert_eq!(knight_attacks(Square::A1).count(), 2);
        assert_eq!(king_attacks(Square::E4).count(), 8);
        assert_eq!(pawn_attacks(Color::White, Square::E4), Bitboard::from_square(Square::D5) | Square::F5);
        assert_eq!(pawn_attacks(Color::Black, Square::A7), Bitboard::from_square(Square::B6));
        assert_eq!(between(Square::A1, Square::D4), Bitboard::from_square(Square::B2) | Square::C3);
        assert_eq!(between(Square::A1, Square::B3), Bitboard::EMPTY);
        assert_eq!(line(Square::A1, Square::B2).count(), 8);
        assert!(aligned(Square::A1, Square::H8, Square::D4));
        assert!(!aligned(Square::A1, Square::H8, Square::D5));
        for sq in Square::ALL {
            assert_eq!(rook_rays(sq), rook_attacks(sq, Bitboard::EMPTY));
            assert_eq!(bishop_rays(sq), bishop_attacks(sq, Bitboard::EMPTY));
        }
    }

    /// The magic numbers serve the portable (non-BMI2) build: prove them here whatever this build uses.
    #[test]
    fn magics_have_no_destructive_collisions() {
        for (magics, dirs) in [(&ROOK_MAGICS, &ROOK_DIRS), (&BISHOP_MAGICS, &BISHOP_DIRS)] {
            for (sq, m) in magics.iter().enumerate() {
                let mut seen = vec![None; 1 << (64 - m.shift)];
                for i in 0..(1u64 << m.mask.count_ones()) {
                    let occ = pdep(i, m.mask);
                    let att = slide(sq as u32, occ, dirs, false);
                    let slot = &mut seen[(occ.wrapping_mul(m.magic) >> m.shift) as usize];
                    assert!(slot.is_none_or(|a| a == att), "square {sq}");
                    *slot = Some(att);
                }
            }
        }
    }

    #[test]
    fn soft_pext_inverts_pdep() {
        let mask = ROOK_MAGICS[27].mask;
        for i in 0..(1u64 << mask.count_ones()) {
            assert_eq!(pext_soft(pdep(i, mask), mask), i);
        }
    }

    /// Regenerates the magic numbers above: `cargo test --release print_magics -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn print_magics() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for (name, dirs) in [("ROOK_NUMBERS", &ROOK_DIRS), ("BISHOP_NUMBERS", &BISHOP_DIRS)] {
            println!("const {name}: [u64; 64] = [");
            for sq in 0..64 {
                let mask = slide(sq, 0, dirs, true);
                let bits = mask.count_ones();
                let mut seen = vec![None; 1 << bits];
                'search: loop {
                    let magic = rnd() & rnd() & rnd();
                    if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                        continue;
                    }
                    seen.iter_mut().for_each(|s| *s = None);
                    for i in 0..(1u64 << bits) {
                        let occ = pdep(i, mask);
                        let att = slide(sq, occ, dirs, false);
                        let slot = &mut seen[(occ.wrapping_mul(magic) >> (64 - bits)) as usize];
                        match slot {
                            Some(a) if *a != att => continue 'search,
                            _ => *slot = Some(att),
                        }
                    }
                    println!("    {magic:#018x},");
                    break;
                }
            }
            println!("];");
        }
    }
}
