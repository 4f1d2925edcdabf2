//! [`FenWriter`]: the FENs (or EPDs) of a sequence of positions, each rank's text kept until its
//! pieces change.

use crate::chess::{Bitboard, Board, Color, Position, Variant};

use super::EpMode;
use super::placement::{code_planes, place_ranks, render_rank};
use super::write::{StackBuf, ep_square, write_castling, write_position};
use crate::notation::TextBuf;

/// Writes the FENs (or EPDs) of a sequence of positions, such as the positions of a game,
/// reusing the text of every rank whose pieces did not change since the previous call: the same
/// bytes as [`write_fen`](super::write_fen) / [`write_epd`](super::write_epd), several times
/// faster when consecutive positions differ by a move (one or two ranks). Crazyhouse positions
/// take the plain path.
///
/// ```
/// use pgnkit::notation::{FenWriter, write_fen, EpMode};
/// use pgnkit::chess::Position;
/// let (mut a, mut b) = (Vec::new(), Vec::new());
/// FenWriter::new().write_fen(&Position::default(), EpMode::Legal, &mut a);
/// write_fen(&Position::default(), EpMode::Legal, &mut b);
/// assert_eq!(a, b);
/// ```
#[derive(Clone, Debug)]
pub struct FenWriter {
    /// The occupancy and the four piece-code planes the rank texts were rendered from (a rank
    /// is rendered again when one of its bytes changed), and whether none was rendered yet.
    planes: [u64; 5],
    fresh: bool,
    /// Per rank: its FEN text (up to 8 bytes, little-endian) and length.
    text: [u64; 8],
    len: [u8; 8],
    /// Castling field for (rights, rooks and kings of each color on the back ranks).
    castling_key: [u64; 5],
    castling: [u8; 16],
    castling_len: usize,
    /// Castling rights written as Shredder-FEN ([`FenWriter::shredder`]).
    shredder: bool,
}

impl Default for FenWriter {
    fn default() -> FenWriter {
        FenWriter {
            planes: [0; 5],
            fresh: true,
            text: [0; 8],
            len: [0; 8],
            castling_key: [0; 5],
            castling: [b'-'; 16],
            castling_len: 1,
            shredder: false,
        }
    }
}

/// Writes `n` at `buf[at..]` (room for 10 digits); returns the new position.
#[inline(always)]
fn put_u32(buf: &mut [u8], at: usize, n: u32) -> usize {
    if n < 10 {
        buf[at] = b'0' + n as u8;
        at + 1
    } else if n < 100 {
        buf[at] = b'0' + (n / 10) as u8;
        buf[at + 1] = b'0' + (n % 10) as u8;
        at + 2
    } else {
        let mut t = StackBuf::<10>::new();
        t.push_u32(n);
        buf[at..at + t.len].copy_from_slice(t.as_slice());
        at + t.len
    }
}

impl FenWriter {
    /// A writer with nothing cached.
    pub fn new() -> FenWriter {
        FenWriter::default()
    }

    /// Writes castling rights as Shredder-FEN (`HAha`, as
    /// [`write_shredder_fen`](super::write_shredder_fen)) when `on`, else as X-FEN (the default).
    ///
    /// ```
    /// use pgnkit::chess::Position;
    /// use pgnkit::notation::{EpMode, FenWriter};
    /// let mut epd = String::new();
    /// FenWriter::new().shredder(true).write_epd(&Position::default(), EpMode::Legal, &mut epd);
    /// assert_eq!(epd, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha -");
    /// ```
    pub fn shredder(mut self, on: bool) -> FenWriter {
        self.shredder = on;
        // No rights are written for an all-zero key: the castling field is rendered again.
        self.castling_key = [0; 5];
        self
    }

    /// Appends the FEN of `pos` to `out`, exactly as [`write_fen`](super::write_fen).
    #[inline]
    pub fn write_fen(&mut self, pos: &Position, ep: EpMode, out: &mut impl TextBuf) {
        out.append_with(|out| self.write(pos, ep, true, out));
    }

    /// Appends the four EPD fields of `pos` to `out`, exactly as [`write_epd`](super::write_epd).
    #[inline]
    pub fn write_epd(&mut self, pos: &Position, ep: EpMode, out: &mut impl TextBuf) {
        out.append_with(|out| self.write(pos, ep, false, out));
    }

    /// Writes into a zeroed 128-byte window of `out` with fixed-size stores, then trims it: no
    /// variable-length copies, no per-byte capacity checks. A standard FEN is at most 107 bytes
    /// (71 + " w " + 4 castling + " " + 2 + " " + 10 + " " + 10).
    #[inline]
    fn write(&mut self, pos: &Position, ep: EpMode, clocks: bool, out: &mut Vec<u8>) {
        let board = pos.board();
        let rights = pos.castling_rights();
        if rights.any() {
            // Everything `write_castling` looks at: rooks and kings of each color on the back ranks.
            let (white, black) = (board.by_color(Color::White), board.by_color(Color::Black));
            let (rooks, kings) = (board.rooks() & Bitboard::BACKRANKS, board.kings() & Bitboard::BACKRANKS);
            let key = [rights.0, (rooks & white).0, (rooks & black).0, (kings & white).0, (kings & black).0];
            if key != self.castling_key {
                let mut t = StackBuf::<16>::new();
                write_castling(board, rights, self.shredder, &mut t);
                self.castling_key = key;
                self.castling[..t.len].copy_from_slice(t.as_slice());
                self.castling_len = t.len;
            }
        }
        if pos.variant() == Variant::Crazyhouse || (rights.any() && self.castling_len > 8) {
            return write_position(pos, ep, clocks, self.shredder, out);
        }
        let start = out.len();
        out.resize(start + 128, 0);
        let buf = &mut out[start..];
        let mut at = self.write_board(board, buf);
        buf[at..at + 3].copy_from_slice(if pos.turn().is_white() { b" w " } else { b" b " });
        at += 3;
        if rights.any() {
            buf[at..at + 8].copy_from_slice(&self.castling[..8]);
            at += self.castling_len;
        } else {
            buf[at] = b'-';
            at += 1;
        }
        buf[at] = b' ';
        at += 1;
        match ep_square(pos, ep) {
            Some(sq) => {
                buf[at] = b'a' + sq.file() as u8;
                buf[at + 1] = b'1' + sq.rank() as u8;
                at += 2;
            }
            None => {
                buf[at] = b'-';
                at += 1;
            }
        }
        if clocks {
            buf[at] = b' ';
            at = put_u32(buf, at + 1, pos.halfmoves());
            buf[at] = b' ';
            at = put_u32(buf, at + 1, pos.fullmoves());
        }
        out.truncate(start + at);
    }

    /// Writes the placement at the start of `buf` (at least 80 bytes); returns its length.
    #[inline]
    fn write_board(&mut self, board: &Board, buf: &mut [u8]) -> usize {
        let planes = code_planes(board);
        // One move changes one to three ranks: the others keep their text.
        let changed = if std::mem::take(&mut self.fresh) {
            u64::MAX
        } else {
            planes.iter().zip(&self.planes).fold(0, |d, (now, then)| d | (now ^ then))
        };
        self.planes = planes;
        place_ranks(buf, |r| {
            let shift = 8 * r;
            if (changed >> shift) & 0xff != 0 {
                (self.text[r], self.len[r]) = render_rank(planes.map(|p| (p >> shift) as u8));
            }
            (self.text[r], self.len[r])
        })
    }
}
