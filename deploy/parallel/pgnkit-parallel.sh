#!/usr/bin/env bash
# A pgnkit command in SHARDS shards over a few machines with GNU parallel, then nothing else:
# merge the parts with `pgnkit merge`. Every machine sees the same paths (a shared file system)
# and has pgnkit and the engines at the same places.
#
#   mkdir -p out
#   SSHLOGINS=2/node1,2/node2 deploy/parallel/pgnkit-parallel.sh 16 annotate \
#     --engine /usr/games/stockfish --nodes 1000000 -o out/annotated.pgn games.pgn.zst
#   pgnkit merge out -o annotated.pgn
#
# SSHLOGINS is parallel's --sshlogin list (`N/host`: N shards at once on host; `:` this machine,
# the default). Shards are numbered 0 to SHARDS-1 from seq, not with parallel's {#}, which
# counts from 1. The job log (PGNKIT_JOBLOG, default shards.log) lets the same line again run
# only the shards that failed or never ran; each failed shard is also retried twice at once.
# A shard that exits 1 finished with errors in some of its games (merge exits 1 as one run
# would): parallel counts it as done. annotate: each shard keeps its own evaluation cache, cache/shard-I.sqlite, unless the
# command names one, so a shard run again takes what it evaluated before from it.
set -euo pipefail

(($# >= 2)) || { echo "usage: [SSHLOGINS=N/host,...] pgnkit-parallel.sh SHARDS JOB ARGS..." >&2; exit 2; }
shards=$1 job=$2
shift 2
pgnkit=${PGNKIT:-pgnkit}

cache=()
if [[ $job == annotate && " $* " != *" --cache"* && " $* " != *" --no-cache "* ]]; then
  mkdir -p cache
  cache=(--cache 'cache/shard-{}.sqlite')
fi
seq 0 $((shards - 1)) |
  parallel -q --sshlogin "${SSHLOGINS:-:}" --workdir "$PWD" --joblog "${PGNKIT_JOBLOG:-shards.log}" \
    --resume-failed --retries 3 \
    sh -c '"$@" || [ $? -eq 1 ]' pgnkit-shard "$pgnkit" "$job" --shard "{}/$shards" "${cache[@]}" "$@"
