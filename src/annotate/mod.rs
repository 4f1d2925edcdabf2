//! `pgnkit annotate`: batch engine annotation of games, built from small parts. Owned here:
//! `cache`, the evaluation cache in SQLite that lets a position be analysed once per cache file
//! and a killed run resume from what was committed.

pub mod cache;
