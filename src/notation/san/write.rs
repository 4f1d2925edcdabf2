//! A legal move -> its canonical SAN: minimal disambiguation (file, else rank, else both), `x`
//! on captures, `=Q` on promotions, castling as `O-O`/`O-O-O` in every mode, drops as `N@f3`,
//! and the `+`/`#` suffix; and the text of a [`San`] or [`SanPlus`] as read.

use std::fmt;

use crate::chess::{CastlingSide, File, Move, MoveKind, MoveList, Position, Rank, Role, Square};

use super::rules::{is_capture, needed_disambiguation, suffix_of};
use super::{San, SanPlus, Suffix};
use crate::notation::TextBuf;

impl San {
    /// Writes the canonical text into `buf`, returning its length (at most 8 bytes).
    fn write(&self, buf: &mut [u8; 16]) -> usize {
        let mut n = 0;
        let mut push = |c: u8| {
            buf[n] = c;
            n += 1;
        };
        match *self {
            San::Normal { role, file, rank, capture, to, promotion } => {
                if role != Role::Pawn || pawn_needs_prefix(file, rank, to) {
                    push(role.upper_char() as u8);
                }
                if let Some(f) = file {
                    push(f.char() as u8);
                }
                if let Some(r) = rank {
                    push(r.char() as u8);
                }
                if capture {
                    push(b'x');
                }
                push(to.file().char() as u8);
                push(to.rank().char() as u8);
                if let Some(p) = promotion {
                    push(b'=');
                    push(p.upper_char() as u8);
                }
            }
            San::Castle(CastlingSide::KingSide) => b"O-O".iter().for_each(|&c| push(c)),
            San::Castle(CastlingSide::QueenSide) => b"O-O-O".iter().for_each(|&c| push(c)),
            San::Put { role, to } => {
                push(role.upper_char() as u8);
                push(b'@');
                push(to.file().char() as u8);
                push(to.rank().char() as u8);
            }
            San::Null => b"--".iter().for_each(|&c| push(c)),
        }
        n
    }
}

/// `true` for the pawn SANs that only read back as written with a `P` prefix (all from lenient
/// input such as `P2e4` or `Pbxe5`): a rank without a file (`2e4` is not SAN), and a `b` file
/// that the lower-case rule would read as a bishop (`bxe5`, `bb4`).
fn pawn_needs_prefix(file: Option<File>, rank: Option<Rank>, to: Square) -> bool {
    match (file, rank) {
        (None, Some(_)) => true,
        (Some(File::B), None) => !matches!(to.file(), File::A | File::C),
        _ => false,
    }
}

impl SanPlus {
    fn write(&self, buf: &mut [u8; 16]) -> usize {
        let mut n = self.san.write(buf);
        match self.suffix {
            Some(Suffix::Check) => buf[n] = b'+',
            Some(Suffix::Checkmate) => buf[n] = b'#',
            None => return n,
        }
        n += 1;
        n
    }
}

impl fmt::Display for San {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0; 16];
        let n = self.write(&mut buf);
        f.write_str(std::str::from_utf8(&buf[..n]).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Display for SanPlus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0; 16];
        let n = self.write(&mut buf);
        f.write_str(std::str::from_utf8(&buf[..n]).map_err(|_| fmt::Error)?)
    }
}

impl SanPlus {
    /// The canonical SAN of the legal move `m`: minimal disambiguation (file, else rank, else
    /// both), `x` on captures, `=Q` on promotions, castling as `O-O`/`O-O-O` in every mode, drops
    /// as `N@f3`, and the `+`/`#` suffix.
    ///
    /// ```
    /// use pgnkit::chess::{Move, Position, Square};
    /// use pgnkit::notation::SanPlus;
    /// let san = SanPlus::from_move(&Position::default(), Move::normal(Square::E2, Square::E4));
    /// assert_eq!(san.to_string(), "e4");
    /// ```
    pub fn from_move(pos: &Position, m: Move) -> SanPlus {
        let san = match m.kind() {
            MoveKind::Castle => San::Castle(if m.to() > m.from_raw() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            }),
            MoveKind::Drop(role) => San::Put { role, to: m.to() },
            _ => {
                let from = m.from_raw();
                let to = m.to();
                let role = pos.board().role_at(from).unwrap_or(Role::Pawn);
                let capture = is_capture(pos, m);
                let (file, rank) = match role {
                    Role::Pawn => (capture, false),
                    Role::King => (false, false),
                    _ => {
                        let mut moves = MoveList::new();
                        pos.legal_moves_to(role, to, &mut moves);
                        let others = moves
                            .iter()
                            .filter(|o| !o.is_drop() && !o.is_castle() && o.from_raw() != from)
                            .map(|o| o.from_raw())
                            .collect();
                        needed_disambiguation(from, others)
                    }
                };
                San::Normal {
                    role,
                    file: file.then(|| from.file()),
                    rank: rank.then(|| from.rank()),
                    capture,
                    to,
                    promotion: m.promotion_role(),
                }
            }
        };
        SanPlus { san, suffix: suffix_of(pos, m) }
    }
}

/// Appends the SAN of the legal move `m`, with its suffix ([`SanPlus::from_move`]).
///
/// ```
/// use pgnkit::chess::{Move, Position, Square};
/// use pgnkit::notation::write_san;
/// let mut movetext = String::from("1. ");
/// write_san(&Position::default(), Move::normal(Square::E2, Square::E4), &mut movetext);
/// assert_eq!(movetext, "1. e4");
/// ```
pub fn write_san(pos: &Position, m: Move, out: &mut impl TextBuf) {
    let mut buf = [0; 16];
    let n = SanPlus::from_move(pos, m).write(&mut buf);
    out.append_bytes(&buf[..n]);
}
