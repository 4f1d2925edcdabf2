#!/usr/bin/env bash
# Stops the cluster scripts/slurm-up.sh started: both Slurm daemons (scontrol shutdown), then
# munged if nothing else uses Slurm here. CONF is the path slurm-up.sh printed (default
# $SLURM_CONF). Its directory (state, logs) is left for reading; remove it with rm -r.
set -euo pipefail

fail() { echo "slurm-down: $*" >&2; exit 1; }

conf=${1:-${SLURM_CONF:-}}
[[ -n $conf && -f $conf ]] || fail "usage: slurm-down.sh CONF (the path slurm-up.sh printed)"
export SLURM_CONF=$conf
dir=$(dirname "$conf")

pid_of() { [[ -s $1 ]] && cat "$1"; }
ctld=$(pid_of "$dir/slurmctld.pid" || true)
slurmd=$(pid_of "$dir/slurmd.pid" || true)
scontrol shutdown >/dev/null 2>&1 || true
# Both daemons exit within 1-2 s of a shutdown; a daemon still there after 10 s is killed.
for pid in $ctld $slurmd; do
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || continue 2
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
done
# munged serves only Slurm here: stop it too, unless another cluster still runs.
if ! pgrep -x slurmctld >/dev/null && ! pgrep -x slurmd >/dev/null; then
  runuser -u munge -- /usr/sbin/munged --stop >/dev/null 2>&1 || true
fi
