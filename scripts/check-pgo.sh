#!/usr/bin/env bash
# Builds the default release binary and the PGO one (scripts/build-pgo.sh), then checks that the
# PGO build writes what the default build writes (check --json --games, positions --format epd,
# clean, report --format text) on every fixture. Needs the llvm-tools component
# (`rustup component add llvm-tools`).
#   usage: scripts/check-pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
scripts/build-pgo.sh
# out BIN FILE: what a build says of FILE, without the timings of the summary.
out() {
  "$1" check --json --games "$2" 2>/dev/null | grep -v '"type":"summary"' || true
  "$1" positions --format epd "$2" 2>/dev/null || true
  "$1" clean --quiet "$2" -o - 2>/dev/null || true
  "$1" report --quiet --format text --min-games 1 "$2" 2>/dev/null || true
}
for f in fixtures/pgn/*.pgn fixtures/pgn/report/*.pgn; do
  cmp <(out target/release/pgnkit "$f") <(out target/pgo/release/pgnkit "$f")
done
echo "check-pgo: same output on $(ls fixtures/pgn/*.pgn fixtures/pgn/report/*.pgn | wc -l) files"
