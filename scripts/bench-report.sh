#!/usr/bin/env bash
# bench-report.sh [RUNS]: `report` of 100,040 annotated games (the summary and 300 game
# sections, the issue's figure, every mistake and blunder drawn, one thread) against `check -j1` on the same
# file, alternating; prints both medians of wall and CPU time (user + system: a host that is
# busy with other work stretches wall time), their ratios (the goal: at most 2x) and the size
# of the page.
#
# The games: the 41 games of the shared data sets ($PGNKIT_SHARED/data) with lichess's own [%eval]s (37 of
# lichess_db_1000k.pgn, the 4 of the Chess960 broadcast), judged by `annotate --from-evals
# --add-tags` (so they are annotate's output, with its tags and judgement comments), repeated
# 2,440 times. Built in target/bench/report. Needs $PGNKIT_SHARED and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/timing.sh
RUNS=${1:-5}
PGNKIT=${PGNKIT:-target/release/pgnkit}
[[ -x $PGNKIT ]] || cargo build --release --quiet
DIR=target/bench/report
mkdir -p "$DIR"
DATA=${PGNKIT_SHARED:-../shared}/data
if [[ ! -s $DIR/annotated.pgn ]]; then
  python3 - "$DATA/games/lichess_db_1000k.pgn" \
    "$DATA/variants/chess960/freestyle_lasvegas_grandfinal_30+30_lichess_broadcast.pgn" >"$DIR/evals.pgn" <<'PY'
import re, sys
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    for game in re.split(r"\n\n(?=\[Event )", text):
        if "[%eval" in game:
            print(game.strip() + "\n")
PY
  "$PGNKIT" annotate -q --from-evals --add-tags "$DIR/evals.pgn" -o "$DIR/judged.pgn"
  for ((i = 0; i < 2440; i++)); do cat "$DIR/judged.pgn"; done >"$DIR/annotated.pgn"
fi
FILE=$DIR/annotated.pgn
games=$(grep -c '^\[Event ' "$FILE")
echo "input: $FILE, $games games, $(du -m "$FILE" | cut -f1) MB"
read_back "$FILE"
declare -A times cpus
pairs=("check|$PGNKIT check -j1 -q $FILE|report|$PGNKIT report -j1 -q --games 300 -o $DIR/report.html $FILE")
run_pairs "$RUNS"
check=$(times_of check | median)
report=$(times_of report | median)
check_cpu=$(cpus_of check | median)
report_cpu=$(cpus_of report | median)
echo "check -j1:  median $check s wall, $check_cpu s CPU over $RUNS runs"
echo "report -j1: median $report s wall, $report_cpu s CPU over $RUNS runs (300 game sections)"
echo "report / check: $(echo "scale=2; $report / $check" | bc -l)x wall, $(echo "scale=2; $report_cpu / $check_cpu" | bc -l)x CPU (goal: at most 2x)"
echo "page: $(stat -c %s "$DIR/report.html") bytes"
