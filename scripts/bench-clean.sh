#!/usr/bin/env bash
# `pgnkit clean` against pgn-extract rewriting the same file in its export form (`-s -o OUT`), and
# against pgnkit's own `check`, on the benchmark kit's 100 MB corpus, in one run, alternating
# (each pair in both orders); prints medians and ratios, and the peak memory of each command.
#   usage: scripts/bench-clean.sh [RUNS]        (default 5; needs the kit, $PGNKIT_SHARED, and pgn-extract)
#   PGNKIT=path/to/pgnkit scripts/bench-clean.sh 5   measures another build
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
# shellcheck source=timing.sh
. scripts/timing.sh
bench_corpus
PATH=$PATH:/usr/games
command -v pgn-extract >/dev/null || { echo "pgn-extract not found (apt-get install -y pgn-extract)"; exit 1; }
bench_bin
bytes=$(stat -c %s "$corpus")

read_back "$corpus"

declare -A times cpus
o=$out/clean-out.pgn
# Each command has one name per pair, so a ratio can be taken within its pair, round by round.
pairs=(
  "clean-1t|$bin clean --quiet -j 1 -o $o $corpus|pgn-extract|pgn-extract -s -o $out/pgn-extract-out.pgn $corpus"
  "clean-1t~check|$bin clean --quiet -j 1 -o $o $corpus|check-1t~clean|$bin check --quiet -j 1 $corpus"
  "clean-2t|$bin clean --quiet -j 2 -o $o $corpus|clean-1t~2t|$bin clean --quiet -j 1 -o $o $corpus"
  "clean-dedup-eco-1t|$bin clean --quiet -j 1 --dedup --eco-tags all -o $o $corpus|check-1t~dedup|$bin check --quiet -j 1 $corpus"
)
run_pairs "$runs"
# The runs of one command under its names in every pair.
all_times() { local n; for n in "$@"; do times_of "$n"; done; }
clean1=(clean-1t clean-1t~check clean-1t~2t) check1=(check-1t~clean check-1t~dedup)
echo "corpus: $corpus ($bytes bytes), $runs runs of each pair, alternating; $(nproc) cores"
for row in "clean-1t:${clean1[*]}" "clean-2t:clean-2t" "clean-dedup-eco-1t:clean-dedup-eco-1t" \
  "check-1t:${check1[*]}" "pgn-extract:pgn-extract"; do
  read -ra names <<<"${row#*:}"
  t=$(all_times "${names[@]}" | median)
  printf '%-20s %7.3f s %8.1f MB/s (%d runs)\n' "${row%%:*}" "$t" "$(echo "$bytes / $t / 1000000" | bc -l)" \
    "$(all_times "${names[@]}" | wc -l)"
done
# Two figures for each goal: the ratio of the medians over every run of both commands, and the
# median of the ratios within each round of their own pair (the two runs side by side in time,
# so a host that slows down for a while moves both).
ratio() { echo "$(all_times $2 | median) / $(all_times $1 | median)" | bc -l; }
paired() { paste <(times_of "$2") <(times_of "$1") | awk '{print $1 / $2}' | median; }
goal() { printf '%-30s %6.2fx, paired %5.2fx (goal >= %s)\n' "$1" "$(ratio "$2" "$3")" "$(paired "$4" "$5")" "$6"; }
goal 'clean -j1 / pgn-extract -s' "${clean1[*]}" pgn-extract clean-1t pgn-extract 20
goal 'clean -j1 / check -j1' "${clean1[*]}" "${check1[*]}" clean-1t~check check-1t~clean 0.5
goal 'clean -j2 / clean -j1' clean-2t "${clean1[*]}" clean-2t clean-1t~2t 1.8
goal 'clean --dedup --eco / check' clean-dedup-eco-1t "${check1[*]}" clean-dedup-eco-1t check-1t~dedup 0.4
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
  "$bin clean --quiet -j 2 --no-mmap --dedup --eco-tags all -o $o $corpus"; do
  /usr/bin/time -o "$out/rss" -f '%M' $cmd >/dev/null 2>&1 || true
  kb=$(tail -1 "$out/rss")
  printf 'peak RSS %6.1f MB  %s\n' "$(echo "$kb / 1024" | bc -l)" "${cmd#"$bin" }"
done
