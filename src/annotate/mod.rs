//! Engine annotation of games, lichess style, built from small parts: what a move's evaluations
//! say about it ([`judge`]: winning chances, judgements with their NAGs and comments, average
//! centipawn loss and accuracy per side) and the evaluation cache in SQLite ([`cache`]) that lets
//! a position be analysed once per cache file and a killed run resume from what was committed.

pub mod cache;
pub mod judge;
