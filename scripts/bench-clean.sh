#!/usr/bin/env bash
# `pgnkit clean` against pgn-extract rewriting the same file in its export form (`-s -o OUT`), and
# against pgnkit's own `check`, on the 100 MB corpus of ../shared/bench, in one run, alternating
# (each pair in both orders); prints medians and ratios, and the peak memory of each command.
#   usage: scripts/bench-clean.sh [RUNS]        (default 5; needs ../shared and pgn-extract)
#   PGNKIT=path/to/pgnkit scripts/bench-clean.sh 5   measures another build
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shared=../shared
out=target/bench
mkdir -p "$out"
corpus=$out/corpus.pgn
[ -s "$corpus" ] || bash "$shared/bench/make-corpus.sh" "$corpus" >/dev/null
PATH=$PATH:/usr/games
command -v pgn-extract >/dev/null || { echo "pgn-extract not found (apt-get install -y pgn-extract)"; exit 1; }
[ -n "${PGNKIT:-}" ] || cargo build --release --quiet
bin=${PGNKIT:-target/release/pgnkit}
bytes=$(stat -c %s "$corpus")

# shellcheck source=timing.sh
. scripts/timing.sh
read_back "$corpus"

declare -A times cpus
o=$out/clean-out.pgn
pairs=(
  "clean-1t|$bin clean --quiet -j 1 -o $o $corpus|pgn-extract|pgn-extract -s -o $out/pgn-extract-out.pgn $corpus"
  "clean-1t|$bin clean --quiet -j 1 -o $o $corpus|check-1t|$bin check --quiet -j 1 $corpus"
  "clean-2t|$bin clean --quiet -j 2 -o $o $corpus|clean-1t-beside-2t|$bin clean --quiet -j 1 -o $o $corpus"
  "clean-dedup-eco-1t|$bin clean --quiet -j 1 --dedup --eco -o $o $corpus|check-1t|$bin check --quiet -j 1 $corpus"
)
run_pairs "$runs"
echo "corpus: $corpus ($bytes bytes), $runs runs of each pair, alternating; $(nproc) cores"
for name in clean-1t clean-2t clean-dedup-eco-1t check-1t pgn-extract; do
  t=$(times_of "$name" | median)
  printf '%-20s %7.3f s %8.1f MB/s (%d runs)\n' "$name" "$t" "$(echo "$bytes / $t / 1000000" | bc -l)" "$(times_of "$name" | wc -l)"
done
ratio() { echo "$(times_of "$2" | median) / $(times_of "$1" | median)" | bc -l; }
printf 'clean -j1 / pgn-extract -s     %6.2fx (goal >= 20)\n' "$(ratio clean-1t pgn-extract)"
printf 'clean -j1 / check -j1          %6.2fx (goal >= 0.5)\n' "$(ratio clean-1t check-1t)"
# Against the 1-thread runs of its own pair: each pair's two commands ran side by side in time.
printf 'clean -j2 / clean -j1          %6.2fx (goal >= 1.8)\n' "$(ratio clean-2t clean-1t-beside-2t)"
printf 'clean --dedup --eco / check    %6.2fx (goal >= 0.4)\n' "$(ratio clean-dedup-eco-1t check-1t)"
# What the machine gives two processes, beside clean's own scaling, in the same rounds: two
# 1-thread cleans at once against one (2.00x when both cores are free; no 2-thread run can scale
# past it), and one 2-thread clean against the same 1-thread run. The host's other tenants move
# both; a round's pair of figures saw the same machine.
ceilings=() scalings=()
for ((i = 0; i < runs; i++)); do
  one=$(secs $bin clean --quiet -j 1 -o $o $corpus)
  t0=$EPOCHREALTIME
  $bin clean --quiet -j 1 -o $o.a $corpus >/dev/null 2>&1 & $bin clean --quiet -j 1 -o $o.b $corpus >/dev/null 2>&1; wait
  two=$(echo "${EPOCHREALTIME/,/.} - ${t0/,/.}" | bc -l)
  j2=$(secs $bin clean --quiet -j 2 -o $o $corpus)
  ceilings+=("$(echo "2 * $one / $two" | bc -l)") scalings+=("$(echo "$one / $j2" | bc -l)")
done
rm -f $o.a $o.b
printf 'machine ceiling: two 1-thread cleans at once do %.2fx the work of one (median of %d rounds)\n' \
  "$(printf '%s\n' "${ceilings[@]}" | median)" "$runs"
printf 'clean -j2 / clean -j1 in the same rounds: %.2fx\n' "$(printf '%s\n' "${scalings[@]}" | median)"
# Peak resident memory (GNU time's maximum RSS) of one run each. A mapped input's pages count in
# it (file pages, the kernel's to reclaim); --no-mmap reads it through a bounded buffer instead.
for cmd in "$bin clean --quiet -j 2 -o $o $corpus" "$bin clean --quiet -j 2 --no-mmap -o $o $corpus" \
  "$bin clean --quiet -j 2 --no-mmap --dedup --eco -o $o $corpus"; do
  /usr/bin/time -o "$out/rss" -f '%M' $cmd >/dev/null 2>&1 || true
  kb=$(tail -1 "$out/rss")
  printf 'peak RSS %6.1f MB  %s\n' "$(echo "$kb / 1024" | bc -l)" "${cmd#"$bin" }"
done
