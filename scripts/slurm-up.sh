#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this machine, for the cluster tests and for trying the job
# scripts under deploy/slurm by hand: munged as the munge user, slurmctld and slurmd as root, with
# their configuration, state and logs in one directory (DIR, default a fresh one under /tmp), so
# /etc stays untouched. No systemd needed. Prints the configuration's path on stdout: point
# SLURM_CONF (every Slurm command reads it) and PGNKIT_SLURM_CONF (the tests read it) at it.
#
#   conf=$(scripts/slurm-up.sh) && export SLURM_CONF=$conf PGNKIT_SLURM_CONF=$conf
#   sbatch --wait --array=0-3 deploy/slurm/pgnkit-array.sbatch ...
#   scripts/slurm-down.sh "$conf"
#
# Needs root and the Debian packages slurmctld, slurmd, slurm-client and munge.
set -euo pipefail

fail() { echo "slurm-up: $*" >&2; exit 1; }

((EUID == 0)) || fail "run as root (slurmd starts job steps as their users)"
for tool in munged munge unmunge slurmctld slurmd scontrol; do
  type -P "$tool" >/dev/null || fail "$tool not found (apt-get install slurmctld slurmd slurm-client munge)"
done

dir=${1:-$(mktemp -d /tmp/pgnkit-slurm.XXXXXX)}
mkdir -p "$dir/state" "$dir/spool"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf

# One cluster per machine: the daemons listen on fixed ports.
if pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null; then
  fail "slurmctld or slurmd already runs (scripts/slurm-down.sh CONF stops the one this script started)"
fi

# The node as slurmd sees it (CPUs, boards, sockets, cores, threads, memory), named localhost.
node=$(slurmd -C | head -n1 | sed 's/^NodeName=[^ ]* //')
cat >"$conf" <<CONF
# A single-node cluster for pgnkit's tests (scripts/slurm-up.sh).
ClusterName=pgnkit
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
# CR_Core: with CR_Core_Memory a task without --mem claims all memory and tasks run one at a time.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
# Finished jobs stay visible to scontrol for an hour (no accounting, so no sacct).
MinJobAge=3600
MailProg=/bin/true
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=localhost $node
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

# munged: without systemd nothing creates its socket directory; as root it refuses to start
# ("Logfile is insecure"), so it runs as the munge user. One munged serves the machine: reuse it.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  install -d -o munge -g munge -m 0755 /run/munge
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
    sleep 0.1
  done
  munge -n | unmunge >/dev/null || fail "munged does not answer"
fi

export SLURM_CONF=$conf
started=$(date +%s)
slurmctld -c  # -c: forget the jobs of an earlier cluster in the same directory
slurmd -N localhost

# Ready once slurmd has registered since this start: sinfo shows `idle` from the saved state
# before that.
for _ in $(seq 150); do
  line=$(scontrol -o show node localhost 2>/dev/null || true)
  if [[ $line == *"State=IDLE"* && $line =~ SlurmdStartTime=([0-9T:-]+) ]]; then
    since=$(date -d "${BASH_REMATCH[1]}" +%s 2>/dev/null || echo 0)
    ((since >= started - 1)) && { echo "$conf"; exit 0; }
  fi
  sleep 0.2
done
fail "the node did not become idle within 30 s; logs: $dir/slurmctld.log, $dir/slurmd.log"
