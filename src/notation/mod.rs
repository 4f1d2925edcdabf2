//! Text formats for positions and moves: FEN/EPD, SAN, UCI. Bytes in, bytes out.
pub mod perft_suite;
