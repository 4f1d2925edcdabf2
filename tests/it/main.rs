//! Integration tests: one binary, one module per subcommand (see ARCHITECTURE.md).
