#!/usr/bin/env bash
# `positions --format parquet` against `--format csv` over the 100 MB corpus, at -j1 and -j2,
# alternating (median wall and CPU seconds, and the parquet/csv ratio of the medians); then the
# sizes of the Parquet file, the CSV and the CSV as `.csv.zst` (zstd level 3, as `-o X.csv.zst`
# writes it) of the same rows.
#   usage: scripts/bench-parquet.sh [RUNS]        (default 5; needs the benchmark kit, $PGNKIT_SHARED)
#   PGNKIT=target/ci/pgnkit scripts/bench-parquet.sh   measures another build
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
# shellcheck source=timing.sh
. scripts/timing.sh
bench_corpus
bench_bin
work=$(mktemp -d -p "$out")
trap 'rm -rf "$work"' EXIT
read_back "$corpus"

declare -A times cpus
pairs=()
for j in 1 2; do
  pairs+=("csv-j$j|$bin positions -q -j$j --format csv $corpus -o $work/p.csv|parquet-j$j|$bin positions -q -j$j --format parquet $corpus -o $work/p.parquet")
done
run_pairs "$runs"
printf '%-12s %8s %8s\n' run wall_s cpu_s
for name in csv-j1 parquet-j1 csv-j2 parquet-j2; do
  printf '%-12s %8.2f %8.2f\n' "$name" "$(times_of "$name" | median)" "$(cpus_of "$name" | median)"
done
for j in 1 2; do
  csv=$(times_of "csv-j$j" | median)
  pq=$(times_of "parquet-j$j" | median)
  printf 'speed parquet/csv -j%s: %.2f (csv wall / parquet wall)\n' "$j" "$(echo "$csv / $pq" | bc -l)"
done
"$bin" positions -q --format csv "$corpus" -o "$work/p.csv.zst"
printf 'bytes: parquet %s, csv %s, csv.zst %s\n' "$(stat -c %s "$work/p.parquet")" \
  "$(stat -c %s "$work/p.csv")" "$(stat -c %s "$work/p.csv.zst")"
