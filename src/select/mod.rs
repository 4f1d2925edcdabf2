//! The filters every job shares (`clean`, `annotate`, `positions`, `check`): conditions a user
//! gives on the command line, decided on a game's tags before it is replayed where they can be,
//! else on its positions as it is replayed. Each is parsed once, with a typed error that says
//! what is wrong and where, and evaluated per game without allocating in the common case.

pub mod eco;
pub mod material;
mod selection;
pub mod tags;

pub use selection::{Absent, EcoRanges, Ending, Filter, OnTags, Selection, Tracker};
