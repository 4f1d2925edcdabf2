#!/usr/bin/env bash
# A/B timing of two builds of pgnkit on one input, with code layout taken out of the comparison:
# both are built with every function and branch target aligned, so a change is not credited with
# (or blamed for) where it happened to move the hot loop (on Zen 5 that alone moved `check -j1`
# by 1-3%, as much as the changes measured). Runs alternate A B B A; the best run, the 10th
# percentile and the median are compared.
#   usage: scripts/ab.sh [-n RUNS] [-i INPUT] REV_A [REV_B] [-- PGNKIT ARGS...]
#   REV_B defaults to the working tree; PGNKIT ARGS default to `check --quiet -j 1`;
#   INPUT defaults to the 100 MB benchmark corpus (scripts/bench-pipeline.sh builds it).
#   example: scripts/ab.sh -n 21 HEAD~1 HEAD
set -euo pipefail
cd "$(dirname "$0")/.."
runs=21
input=target/bench/corpus.pgn
while getopts "n:i:" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    i) input=$OPTARG ;;
    *) sed -n 2,9p "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
rev_a=${1:?usage: scripts/ab.sh [-n RUNS] [-i INPUT] REV_A [REV_B] [-- ARGS...]}
shift
rev_b=
if [ $# -gt 0 ] && [ "$1" != "--" ]; then rev_b=$1; shift; fi
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(check --quiet -j 1)
[ -s "$input" ] || { echo "ab: no input $input (scripts/bench-pipeline.sh makes the corpus)" >&2; exit 2; }

flags='-C target-cpu=native -C llvm-args=-align-all-functions=6 -C llvm-args=-align-all-nofallthru-blocks=5'
root=$PWD/target/ab
mkdir -p "$root"
# build NAME REV: the binary of REV (empty: the working tree) at $root/NAME.
build() {
  local name=$1 rev=$2 src=$PWD
  if [ -n "$rev" ]; then
    src=$root/wt-$name
    rm -rf "$src"
    git worktree prune
    git worktree add --quiet --detach "$src" "$rev"
  fi
  # A target directory per side: cargo's freshness check compares times, not sources.
  (cd "$src" && RUSTFLAGS="$flags" CARGO_TARGET_DIR="$root/target-$name" cargo build --release --quiet)
  cp "$root/target-$name/release/pgnkit" "$root/$name"
  if [ -n "$rev" ]; then git worktree remove --force "$src"; fi
}
build a "$rev_a"
build b "$rev_b"

# shellcheck source=timing.sh
. scripts/timing.sh
read_back "$input" # after the builds, which can leave it idle long enough for the host to drop it
ta=() tb=()
for ((i = 0; i < runs; i++)); do
  if ((i % 2 == 0)); then
    ta+=("$(secs "$root/a" "${args[@]}" "$input")") tb+=("$(secs "$root/b" "${args[@]}" "$input")")
  else
    tb+=("$(secs "$root/b" "${args[@]}" "$input")") ta+=("$(secs "$root/a" "${args[@]}" "$input")")
  fi
done
echo "input $input, pgnkit ${args[*]}, $runs runs each, alternating A B B A"
# The best run and the 10th percentile beside the median: on a shared host noise only adds time,
# so the low quantiles move least from one series to the next.
row() { # NAME QUANTILE: A, B and B/A at one quantile
  local a b
  a=$(printf '%s\n' "${ta[@]}" | quantile "$2")
  b=$(printf '%s\n' "${tb[@]}" | quantile "$2")
  printf '%-8s A %8.1f ms   B %8.1f ms   B/A %.4f\n' "$1" "$(echo "$a * 1000" | bc -l)" "$(echo "$b * 1000" | bc -l)" \
    "$(echo "$b / $a" | bc -l)"
}
echo "A ${rev_a}, B ${rev_b:-worktree}"
row best 0
row p10 0.1
row median 0.5
