//! The jobs pgnkit runs over PGN input, one module each, library-side (testable without the
//! binary), and the driver they share ([`run`]): each job is a [`crate::pipeline::Job`] whose
//! workers replay games through [`crate::pipeline::replay`], and a [`run::Sink`] that writes what
//! they release.

pub mod annotate;
pub mod check;
pub mod clean;
pub mod diagnostics;
pub mod keys;
pub mod positions;
pub mod report;
pub mod run;
