#!/usr/bin/env bash
# `pgnkit annotate` driving Stockfish, against the python-chess annotator of the benchmark kit
# (peers-py/annotate.py: the script a python-chess user writes) on the same input, engine and
# limit, in one run, alternating (each pair in both orders). Prints, for the goals of `annotate`:
#   harness  go nodes 1 (the engine almost free), one engine: positions per second, pgnkit / peer
#            (pgnkit's default clears the hash before every position; --keep-hash clears it once
#            a game, as the peer does);
#   scaling  --nodes 20000: 2 engines against 1, and how busy the engines were (the time each
#            worker spent waiting on its engine, summed, over engines x wall time: pgnkit's own
#            summary line), beside the machine's ceiling for two processes;
#   cache    the same command cold and warm (a cache file of its own), and the share of cache hits
#            of a cold run over a real collection;
#   memory   pgnkit's own peak resident memory (VmHWM, engines apart) as the input grows.
#   usage: scripts/bench-annotate.sh [RUNS]    (default 3; needs the kit, $PGNKIT_SHARED; Stockfish, python-chess)
#   PGNKIT=path/to/pgnkit STOCKFISH=path/to/stockfish GAMES=24 scripts/bench-annotate.sh 3
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
shared=${PGNKIT_SHARED:-../shared}
games=$shared/data/games
peer=$shared/bench/peers-py/annotate.py
sf=${STOCKFISH:-/usr/games/stockfish}
[ -x "$sf" ] || { echo "Stockfish not found at $sf (apt-get install -y stockfish)"; exit 1; }
python3 -c 'import chess' 2>/dev/null || { echo "python-chess not found (pip install chess)"; exit 1; }
[ -n "${PGNKIT:-}" ] || cargo build --release --quiet
bin=${PGNKIT:-target/release/pgnkit}
out=target/bench/annotate
mkdir -p "$out"
# shellcheck source=timing.sh
. scripts/timing.sh

mid=$games/lichess_db_100k.pgn # 47 games, 2,817 positions
big=$games/lichess_db_1000k.pgn # 438 games, 28,976 positions
# The scaling input: $mid, or its first $GAMES games. Games are dealt whole to the engines, so
# the last game of one engine is not shared: with 24 games that tail cost about 4% of a 2-engine
# run (1.89x against a ceiling of 1.96x), with 47 about half as much.
small=$out/scaling.pgn
awk -v games="${GAMES:-1000000}" '/^\[Event / && ++n > games {exit} {print}' "$mid" >"$small"
corpus=target/bench/corpus.pgn
[ -s "$corpus" ] || bash "$shared/bench/make-corpus.sh" "$corpus" >/dev/null
annotate="$bin annotate --engine $sf --no-cache -o $out/pgnkit.pgn"

# positions FILE: the mainline positions pgnkit annotates in FILE (start, and after each move).
positions() { $bin annotate --from-evals -o /dev/null "$1" 2>&1 | awk '$2 == "positions" {print $1}'; }
# rate NAME POSITIONS: positions per second at NAME's median time.
rate() { echo "$2 / $(times_of "$1" | median)" | bc -l; }
ratio() { echo "$(times_of "$2" | median) / $(times_of "$1" | median)" | bc -l; }
# busy NAME ENGINES: a script running annotate with ENGINES engines at --nodes 20000 on $small
# that keeps pgnkit's "engines busy" line in $out/NAME.busy (timed like the bare command).
busy() {
  printf '#!/bin/sh\n%s --engines %s --nodes 20000 %s 2>&1 | grep busy >>%s\n' \
    "$annotate" "$2" "$small" "$out/$1.busy" >"$out/$1.sh"
  chmod +x "$out/$1.sh"
  rm -f "$out/$1.busy"
}

n_mid=$(positions "$mid")
n_big=$(positions "$big")
n_small=$(positions "$small")
echo "engine: $("$sf" <<<quit | head -1); $(nproc) cores; $runs runs of each pair, alternating"

echo "== harness: go nodes 1, one engine, $mid ($n_mid positions)"
declare -A times cpus
pairs=(
  "pgnkit|$annotate --engines 1 --nodes 1 $mid|peer|python3 $peer $mid $out/peer.pgn --engine $sf --nodes 1"
  "pgnkit-keep-hash|$annotate --engines 1 --nodes 1 --keep-hash $mid|peer|python3 $peer $mid $out/peer.pgn --engine $sf --nodes 1"
)
run_pairs "$runs"
for name in pgnkit pgnkit-keep-hash peer; do
  printf '%-18s %7.3f s %8.0f positions/s  (CPU of the process tree %.3f s)\n' "$name" "$(times_of "$name" | median)" \
    "$(rate "$name" "$n_mid")" "$(cpus_of "$name" | median)"
done
printf 'pgnkit / peer              %6.2fx (goal >= 10)\n' "$(ratio pgnkit peer)"
printf 'pgnkit --keep-hash / peer  %6.2fx\n' "$(ratio pgnkit-keep-hash peer)"
# The engine's own floor: Stockfish alone, fed every position of $mid at once on its stdin
# (ucinewgame per game, go nodes 1 per position, no one waiting for its answers). Its CPU time
# bounds any harness on one engine: no client can annotate faster than the engine answers.
$bin annotate --from-evals --format jsonl -o - "$mid" 2>/dev/null | python3 -c '
import json, sys
print("uci\nsetoption name Threads value 1\nsetoption name Hash value 16\nisready")
for line in sys.stdin:
    r = json.loads(line)
    if r["type"] != "position":
        continue
    if r["data"]["ply"] == 0:
        print("ucinewgame")
    print("position fen " + r["data"]["fen"] + "\ngo nodes 1")
' >"$out/floor.uci"
cmds=$(grep -c '^go ' "$out/floor.uci")
# The run ends when the last answer is out: `quit` would stop the last search.
floor_cpu=$( { TIMEFORMAT='%3U %3S'; time (cat "$out/floor.uci"; sleep 0.5; echo quit) | "$sf" >/dev/null; } 2>&1 |
  awk '{print $1 + $2}')
printf 'engine floor: Stockfish alone, %d positions fed at once: %.3f s of CPU, at most %.0f positions/s = %.2fx the peer\n' \
  "$cmds" "$floor_cpu" "$(echo "$cmds / $floor_cpu" | bc -l)" "$(echo "$(times_of peer | median) * $cmds / $n_mid / $floor_cpu" | bc -l)"

echo "== scaling: --nodes 20000, $small ($n_small positions)"
unset times cpus
declare -A times cpus
busy pgnkit-1 1
busy pgnkit-2 2
pairs=(
  "pgnkit-2|$out/pgnkit-2.sh|pgnkit-1|$out/pgnkit-1.sh"
  "peer-2|python3 $peer $small $out/peer.pgn --engine $sf --nodes 20000 --engines 2|peer-1|python3 $peer $small $out/peer.pgn --engine $sf --nodes 20000"
)
run_pairs "$runs"
for name in pgnkit-1 pgnkit-2 peer-1 peer-2; do
  printf '%-18s %7.3f s %8.1f positions/s\n' "$name" "$(times_of "$name" | median)" "$(rate "$name" "$n_small")"
done
printf 'pgnkit 2 engines / 1       %6.2fx (goal >= 1.9)\n' "$(ratio pgnkit-2 pgnkit-1)"
printf 'peer 2 engines / 1         %6.2fx\n' "$(ratio peer-2 peer-1)"
printf 'pgnkit / peer, 1 engine    %6.2fx\n' "$(ratio pgnkit-1 peer-1)"
printf 'pgnkit / peer, 2 engines   %6.2fx\n' "$(ratio pgnkit-2 peer-2)"
for e in 1 2; do
  echo "--engines $e, each run: $(grep -o 'busy [0-9.]*%' "$out/pgnkit-$e.busy" | tr '\n' ' ')(goal >= 95%)"
done
# What the machine gives two processes: two 1-engine runs at once against one (2.00x when both
# cores are free; no 2-engine run can scale past it).
one=$(times_of pgnkit-1 | median)
t0=$EPOCHREALTIME
$annotate --engines 1 --nodes 20000 "$small" >/dev/null 2>&1 &
$bin annotate --engine "$sf" --no-cache -o "$out/pgnkit2.pgn" --engines 1 --nodes 20000 "$small" >/dev/null 2>&1
wait
two=$(echo "${EPOCHREALTIME/,/.} - ${t0/,/.}" | bc -l)
printf 'machine ceiling: two 1-engine runs at once do %.2fx the work of one\n' "$(echo "2 * $one / $two" | bc -l)"

echo "== cache: --nodes 20000 --engines 2, $small"
cache=$out/cache.sqlite
rm -f "$cache" "$cache-wal" "$cache-shm"
cached="$bin annotate --engine $sf --cache $cache -o $out/pgnkit.pgn --engines 2 --nodes 20000 $small"
cold=$(secs $cached)
warm=$(for ((i = 0; i < 5; i++)); do secs $cached; done | median)
printf 'cold %.3f s, warm %.3f s (median of 5): %.0fx (goal >= 50)\n' "$cold" "$warm" "$(echo "$cold / $warm" | bc -l)"
rm -f "$cache" "$cache-wal" "$cache-shm"
hits=$($bin annotate --engine "$sf" --cache "$cache" -o /dev/null --nodes 1 "$big" 2>&1 | grep 'cache:' || true)
echo "cold run over $big ($n_big positions), go nodes 1: ${hits#pgnkit annotate: }"

echo "== memory: pgnkit's own peak resident memory (VmHWM; the engines' apart)"
# peak_rss CMD...: the command's own VmHWM in MB, read from /proc until it exits.
peak_rss() {
  python3 - "$@" <<'EOF'
import subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
peak = 0
while p.poll() is None:
    try:
        with open(f"/proc/{p.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.01)
print(f"{peak / 1024:.1f}")
EOF
}
for f in "$mid" "$big"; do
  printf 'peak RSS %6.1f MB  --nodes 1 --engines 2 %s (%d bytes)\n' "$(peak_rss $annotate --engines 2 --nodes 1 "$f")" "$f" "$(stat -c %s "$f")"
done
printf 'peak RSS %6.1f MB  --from-evals %s (%d bytes)\n' "$(peak_rss $bin annotate --from-evals -o "$out/evals.pgn" "$corpus")" "$corpus" "$(stat -c %s "$corpus")"
