#!/usr/bin/env bash
# `pgnkit annotate --engines 2 --nodes 1000` of 40 lichess games (the first 40 of
# data/games/lichess_db_1000k.pgn of $PGNKIT_SHARED) with an engine that fails on purpose
# (scripts/flaky-engine.py around Stockfish), no cache, one run of each scenario:
#   none        no fault (what the run costs without them);
#   hang        the engine hangs on 2% of its `go` commands (the goal: under 2 minutes, every
#               hang reported, nothing else lost);
#   hang-crash  it also crashes on 3% of them, and each of its starts takes 2 s.
# Prints for each: wall time, exit code, games written, [%eval]s written against moves, the
# faults the engine made (its log), and the positions pgnkit reports unevaluated, by reason.
#   usage: scripts/bench-hang.sh [SEED]    (default 1; needs $PGNKIT_SHARED, Stockfish, Python 3)
#   PGNKIT=path/to/pgnkit SCENARIOS=hang scripts/bench-hang.sh 1
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-1}
shared=${PGNKIT_SHARED:-../shared}
sf=${STOCKFISH:-/usr/games/stockfish}
[ -x "$sf" ] || { echo "Stockfish not found at $sf (apt-get install -y stockfish)"; exit 1; }
[ -n "${PGNKIT:-}" ] || cargo build --release --quiet
bin=${PGNKIT:-target/release/pgnkit}
out=target/bench/hang
mkdir -p "$out"
games=$out/lichess40.pgn
[ -s "$games" ] || awk '/^\[Event / && ++n > 40 {exit} {print}' "$shared/data/games/lichess_db_1000k.pgn" >"$games"

declare -A faults=(
  [none]="--hang=0"
  [hang]="--hang=0.02"
  [hang-crash]="--hang=0.02 --crash=0.03 --start-delay=2"
)
echo "engine: $("$sf" <<<quit | head -1); $(nproc) cores; $bin; seed $seed"
for name in ${SCENARIOS:-none hang hang-crash}; do
  state=$out/$name.state
  log=$out/$name.faults
  rm -f "$state" "$log"
  touch "$log"
  engine=(--engine scripts/flaky-engine.py)
  for a in ${faults[$name]} --seed="$seed" --state="$state" --log="$log" -- "$sf"; do
    engine+=("--engine-arg=$a")
  done
  t0=$EPOCHREALTIME
  code=0
  "$bin" annotate "${engine[@]}" --engines 2 --nodes 1000 --no-cache -o "$out/$name.pgn" "$games" \
    2>"$out/$name.err" || code=$?
  wall=$(echo "${EPOCHREALTIME/,/.} - ${t0/,/.}" | bc -l)
  written=$(grep -c '^\[Event ' "$out/$name.pgn" || true)
  evals=$(grep -o '\[%eval ' "$out/$name.pgn" | wc -l)
  plies=$(grep -o '[0-9]* plies' "$out/$name.err" | head -1)
  printf '== %s (%s): %.1f s, exit %d, %d of 40 games written, %d [%%eval]s for %s\n' \
    "$name" "${faults[$name]}" "$wall" "$code" "$written" "$evals" "$plies"
  printf 'the engine made: %s hangs, %s crashes\n' "$(grep -c '^hang' "$log" || true)" "$(grep -c '^crash' "$log" || true)"
  echo "pgnkit's summary:"
  grep -E '^  [0-9]+ (positions|analysed|unevaluated|timed out|crashed)$|unevaluated positions:' "$out/$name.err" || true
  echo "unevaluated diagnostics, by reason (digits as N):"
  grep -o 'without an evaluation: [^[]*' "$out/$name.err" | sed 's/[0-9][0-9.]*/N/g' | sort | uniq -c || true
done
