//! Engine annotation of games, lichess style: what a move's evaluations say about it
//! ([`judge`]: winning chances, judgements with their NAGs and comments, average centipawn loss
//! and accuracy per side).

pub mod judge;
