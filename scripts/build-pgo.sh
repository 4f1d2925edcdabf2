#!/usr/bin/env bash
# Builds a profile-guided (PGO) pgnkit: an instrumented build replays training games, LLVM merges
# the counts, and the final build lays out and inlines by them. The result is
# target/pgo/release/pgnkit; target/release is left alone. Needs the llvm-tools component
# (`rustup component add llvm-tools`) for an llvm-profdata matching rustc's LLVM.
#   usage: scripts/build-pgo.sh [TRAINING.pgn ...]
# Default training: three collections of $PGNKIT_SHARED's data that share no game with the benchmark corpus
# (a chess.com export with clocks, a lichess export, pgnmentor's CR LF master games), else the
# small samples in fixtures/pgn (a profile is branch ratios: a small sample serves). Each is
# checked, cleaned and turned into positions; the first is also annotated and reported on.
set -euo pipefail
cd "$(dirname "$0")/.."
sysroot=$(rustc --print sysroot)
profdata=$(ls "$sysroot"/lib/rustlib/*/bin/llvm-profdata 2>/dev/null | head -n1 || true)
if [ -z "$profdata" ]; then
  echo "build-pgo: llvm-profdata not found; run: rustup component add llvm-tools" >&2
  exit 1
fi
if [ $# -gt 0 ]; then
  training=("$@")
elif g=${PGNKIT_SHARED:-../shared}/data/games && [ -s "$g/lichess_DrDrunkenstein_2019-01-29.pgn" ]; then
  training=("$g/chesscom_magnuscarlsen_live_2014.pgn.zst" "$g/lichess_DrDrunkenstein_2019-01-29.pgn" "$g/pgnmentor_Carlsen.pgn.zst")
else
  training=(fixtures/pgn/lichess_db_10k.pgn fixtures/pgn/twic1599_10k.pgn)
fi

# --config adds to .cargo/config.toml's rustflags (RUSTFLAGS would replace them).
flag() { printf 'build.rustflags=["%s"]' "$1"; }
data="$PWD/target/pgo-data"
cargo build --release --quiet --target-dir target/pgo-gen --config "$(flag "-Cprofile-generate=$data")"
rm -rf "$data" # counts from build scripts run during that build
gen=target/pgo-gen/release/pgnkit
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for f in "${training[@]}"; do
  # The jobs users run on large collections; exit code 1 (bad games) is training too.
  "$gen" check --quiet -j1 "$f" >/dev/null 2>&1 || [ $? -eq 1 ]
  "$gen" positions --quiet -j1 "$f" >/dev/null 2>&1 || [ $? -eq 1 ]
  "$gen" positions --quiet -j1 --format epd "$f" >/dev/null 2>&1 || [ $? -eq 1 ]
  "$gen" clean --quiet -j1 --dedup "$f" -o /dev/null >/dev/null 2>&1 || [ $? -eq 1 ]
done
# `report` reads annotate's output: the first collection annotated by the built-in engine (a few
# hundred nodes a position, no cache), then judged again from its evaluations as lichess exports are.
"$gen" annotate --quiet --no-cache --engine builtin --nodes 200 "${training[0]}" -o "$scratch/annotated.pgn" || [ $? -eq 1 ]
"$gen" annotate --quiet --from-evals --add-tags "$scratch/annotated.pgn" -o "$scratch/judged.pgn" || [ $? -eq 1 ]
for a in "$scratch/annotated.pgn" "$scratch/judged.pgn"; do
  "$gen" report --quiet -j1 "$a" -o "$scratch/report.html" || [ $? -eq 1 ]
done
"$profdata" merge -o target/pgo.profdata "$data"
cargo build --release --quiet --target-dir target/pgo --config "$(flag "-Cprofile-use=$PWD/target/pgo.profdata")"
echo "build-pgo: target/pgo/release/pgnkit (trained on ${training[*]})"
