//! Text formats for positions and moves: FEN/EPD ([`fen`]), SAN ([`san`]) and UCI ([`uci`]).
//! Bytes in, bytes out; lenient when reading (each module lists what it accepts), canonical when
//! writing. Errors are small enums naming the part that failed.

pub mod fen;
pub mod san;
pub mod uci;

pub use fen::{
    Epd, EpMode, FenError, ParseFenError, STARTING_FEN, position_from_fen, read_epd, read_fen, write_epd_into,
    write_fen, write_fen_into, write_setup_into,
};
pub use san::{Lenience, ParseSanError, San, SanError, SanPlus, Suffix, resolve, san_of, to_san, write_san_into};
pub use uci::{UciError, parse_uci, to_uci, write_uci_into};
