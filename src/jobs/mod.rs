//! The jobs pgnkit runs over PGN input, one module each, library-side (testable without the
//! binary). Each is a [`crate::pipeline::Job`] whose workers replay games through
//! [`crate::pipeline::replay`].

pub mod check;
pub mod positions;
pub mod report;
