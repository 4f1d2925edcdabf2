#!/usr/bin/env bash
# Runs pgnkit and the shakmaty + pgn-reader peer (the benchmark kit's bench/peers-rust, GPL: a benchmark
# peer only, built outside this repository's dependency graph) on the same 100 MB corpus, in one
# run, alternating (each pair in both orders), and prints medians and ratios (of the medians, and
# the median and middle half of the ratios of the pairs run back to back), and the CPU time of
# the .zst and plain 2-thread runs, whose ratio bounds the .zst ratio when every core is busy.
#   usage: scripts/bench-pipeline.sh [RUNS]        (default 5; needs the kit, $PGNKIT_SHARED)
#   PGNKIT=target/pgo/release/pgnkit scripts/bench-pipeline.sh 11   measures another pgnkit build
#   (scripts/build-pgo.sh makes that one).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
# shellcheck source=timing.sh
. scripts/timing.sh
bench_corpus
[ -s "$corpus.zst" ] || zstd -q -3 -T2 -f "$corpus" -o "$corpus.zst"
cargo build --release --quiet
# The peer with the CPU flag only: pgnkit's function alignment (.cargo/config.toml) is its own
# layout choice, and it moves the peer's own hot loop (7.5% slower, eleven alternating runs).
RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$PWD/$out/peers" cargo build --release --quiet \
  --manifest-path "$shared/bench/peers-rust/Cargo.toml"
peer=$out/peers/release
bin=${PGNKIT:-target/release/pgnkit}
bytes=$(stat -c %s "$corpus")

# One page-cache state for every run, the same for both programs: held in 4 KiB pages the corpus
# pulls ratios towards 1 and flatters the .zst one.
read_back "$corpus" "$corpus.zst"
# both CMD...: two copies of CMD at once (what the machine gives two independent processes).
both() { "$@" >/dev/null 2>&1 & "$@" >/dev/null 2>&1; wait; }

declare -A times cpus
pairs=(
  "check-1t|$bin check --quiet -j 1 $corpus|peer-validate|$peer/validate $corpus"
  "check-2t|$bin check --quiet -j 2 $corpus|peer-validate_par|$peer/validate_par $corpus"
  "check-1t-twice|both $bin check --quiet -j 1 $corpus|peer-twice|both $peer/validate $corpus"
  "check-zst-2t|$bin check --quiet -j 2 $corpus.zst|check-2t-again|$bin check --quiet -j 2 $corpus"
)
if $bin positions --help >/dev/null 2>&1; then
  pairs+=("positions-fen-1t|$bin positions --quiet -j 1 $corpus|peer-fen|$peer/fen $corpus")
fi
run_pairs "$runs"
# ratios A B [SCALE]: SCALE x A / B for each run of A and B of the same round (seconds apart, where
# the host's speed changes over tens of seconds), as "median, middle half Q1-Q3", then the same
# ratio of the best (least) times: the host's noise only ever adds time, so those are its least
# disturbed runs.
ratios() {
  local r k=${3:-1}
  r=$(paste <(times_of "$1") <(times_of "$2") | awk -v k="$k" '{print k * $1 / $2}')
  printf '%.2f, middle half %s; best runs %.2f' "$(median <<<"$r")" "$(middle_half <<<"$r")" \
    "$(echo "$k * $(times_of "$1" | quantile 0) / $(times_of "$2" | quantile 0)" | bc -l)"
}
echo "corpus: $corpus ($bytes bytes, read back into the page cache), $runs runs each, alternating; $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for p in "${pairs[@]}"; do
  IFS='|' read -r a _ b _ <<<"$p"
  ta=$(times_of "$a" | median)
  tb=$(times_of "$b" | median)
  # The ratio of each pair run back to back (the host's speed drifts less within a pair than
  # across the whole run): their median and middle half.
  pairs_q=$(ratios "$b" "$a")
  printf '%-18s %7.3f s %8.1f MB/s | %-18s %7.3f s %8.1f MB/s | ratio %.2fx (pairs %s)\n' \
    "$a" "$ta" "$(echo "$bytes / $ta / 1000000" | bc -l)" "$b" "$tb" "$(echo "$bytes / $tb / 1000000" | bc -l)" "$(echo "$tb / $ta" | bc -l)" "$pairs_q"
done
# pgnkit's own scaling: 1-thread time over 2-thread time, medians of the runs above.
t1=$(times_of check-1t | median)
t2=$(times_of check-2t | median)
printf 'check scaling      1 thread %.3f s / 2 threads %.3f s = %.2fx (rounds %s)\n' "$t1" "$t2" \
  "$(echo "$t1 / $t2" | bc -l)" "$(ratios check-1t check-2t)"
# The machine's own ceiling: two 1-thread runs at once do twice the work in t11 seconds, so no
# 2-thread run can scale past 2 * t1 / t11 unless the cores slow each other down less.
t11=$(times_of check-1t-twice | median)
p1=$(times_of peer-validate | median)
p11=$(times_of peer-twice | median)
pp=$(times_of peer-validate_par | median)
printf 'machine ceiling    two 1-thread runs at once: pgnkit 2 x %.3f / %.3f = %.2fx (rounds %s), peer 2 x %.3f / %.3f = %.2fx\n' \
  "$t1" "$t11" "$(echo "2 * $t1 / $t11" | bc -l)" "$(ratios check-1t check-1t-twice 2)" "$p1" "$p11" "$(echo "2 * $p1 / $p11" | bc -l)"
printf 'peer scaling       1 thread %.3f s / 2 threads %.3f s = %.2fx\n' "$p1" "$pp" "$(echo "$p1 / $pp" | bc -l)"
# The .zst run's bound: with both cores of a 2-core machine busy, a run is no faster than its CPU
# time over the cores, so the .zst input reaches at most (plain CPU) / (.zst CPU) of the plain
# file's speed, the decompression's CPU added; with a core to spare it has a thread of its own.
cpu_zst=$(cpus_of check-zst-2t | median)
cpu_plain=$(cpus_of check-2t-again | median)
printf 'zst CPU time       2 threads: plain %.3f s, .zst %.3f s = %.2fx' "$cpu_plain" "$cpu_zst" \
  "$(echo "$cpu_plain / $cpu_zst" | bc -l)"
if (($(nproc) <= 2)); then echo ' (the bound of the .zst ratio: every core busy)'; else echo; fi
