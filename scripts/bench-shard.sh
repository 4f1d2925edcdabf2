#!/usr/bin/env bash
# The cost of --shard: N shards of `check` and of `positions` over the 100 MB corpus run one after
# another (with the corpus's index sidecar, and without it) against one run at the same -j, and
# against N runs over the corpus cut in N pieces beforehand (`split -n`: what N processes cost
# without any shard machinery), alternating; then `merge` of the positions parts (read from the
# page cache), in MB/s.
#   usage: scripts/bench-shard.sh [RUNS] [N]        (default 5 runs, 4 shards; needs the benchmark kit, $PGNKIT_SHARED)
#   PGNKIT=target/ci/pgnkit scripts/bench-shard.sh   measures another build
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
n=${2:-4}
# shellcheck source=timing.sh
. scripts/timing.sh
bench_corpus
bench_bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
read_back "$corpus"

# shards JOB ARGS...: the N shards of JOB one after another.
shards() {
  local job=$1 i
  shift
  for ((i = 0; i < n; i++)); do "$bin" "$job" -q -j2 --shard "$i/$n" "$@" "$corpus" -o "$work/s.out"; done
}
# noindex CMD...: CMD with the corpus's sidecar moved aside.
noindex() {
  mv "$corpus.pgnkit-index" "$work/index"
  "$@" || true
  mv "$work/index" "$corpus.pgnkit-index"
}
"$bin" index -q "$corpus"
split -n "$n" -d -a 3 "$corpus" "$work/piece."
# pieces JOB ARGS...: JOB over each piece, one after another.
pieces() {
  local job=$1 p
  shift
  for p in "$work"/piece.*; do "$bin" "$job" -q -j2 "$@" "$p" -o "$work/p.out" || true; done
}
declare -A times cpus
pairs=(
  "check-one|$bin check -q -j2 $corpus -o $work/one.out|check-shards|shards check"
  "positions-one|$bin positions -q -j2 $corpus -o $work/one.out|positions-shards|shards positions"
  "check-one-again|$bin check -q -j2 $corpus -o $work/one.out|check-shards-noindex|noindex shards check"
  "check-pieces|pieces check|check-shards-again|shards check"
)
run_pairs "$runs"
echo "corpus: $corpus ($(stat -c %s "$corpus") bytes), $n shards one after another vs one run, -j2, $runs runs each, alternating; $(nproc) cores"
for p in "${pairs[@]}"; do
  IFS='|' read -r a _ b _ <<<"$p"
  ta=$(times_of "$a" | median)
  tb=$(times_of "$b" | median)
  printf '%-22s %6.3f s   %-22s %6.3f s   ratio %.2f\n' "$a" "$ta" "$b" "$tb" "$(echo "$tb / $ta" | bc -l)"
done
# merge: the positions parts, read back into the page cache, merged to one file.
shards positions --format fen >/dev/null 2>&1
parts=$(cat "$work"/s.out.part-*-of-* | wc -c)
read_back "$work"/s.out.part-*-of-"$n"
for ((i = 0; i < runs; i++)); do
  rm -f "$work/merged.fen"
  timed merge "$bin" merge -q "$work"/s.out.part-*.manifest.json -o "$work/merged.fen"
done
tm=$(times_of merge | median)
printf 'merge of %d parts, %d bytes: %.3f s, %.0f MB/s (median of %d)\n' "$n" "$parts" "$tm" "$(echo "$parts / $tm / 1000000" | bc -l)" "$runs"
