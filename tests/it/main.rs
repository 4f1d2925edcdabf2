//! Integration tests: one binary running the built `pgnkit` on `fixtures/` (see ARCHITECTURE.md).
