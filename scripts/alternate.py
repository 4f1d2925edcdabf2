#!/usr/bin/env python3
"""Times whole command lines, alternating: round i runs them in order, round i+1 in reverse, so
none always follows the same command. Prints, for each, the best and median wall time, the best
and median CPU time (user + system, of the command and its children), and both wall times as a
ratio to the first command's.

    usage: scripts/alternate.py RUNS 'COMMAND' 'COMMAND' ...
    example: scripts/alternate.py 21 'target/release/pgnkit check -q -j2 target/bench/corpus.pgn' \\
                 'target/release/pgnkit check -q -j2 target/bench/corpus.pgn.zst'

Each command runs through the shell with its output discarded. The inputs' page-cache state is
the caller's to set (`bash -c '. scripts/timing.sh; read_back FILE...'` before a series, as
bench-pipeline.sh and ab.sh do): it moves a mapped file's runs by several percent. The best run is the least
disturbed one: on a shared host, noise only adds time.
"""
import os
import statistics
import subprocess
import sys
import time


def run(cmd):
    """Wall and CPU seconds of one run of `cmd`."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs, cmds = int(sys.argv[1]), sys.argv[2:]
    times = {c: [] for c in cmds}
    for i in range(runs):
        for c in cmds if i % 2 == 0 else reversed(cmds):
            times[c].append(run(c))
    base = None
    for c in cmds:
        wall = [w * 1e3 for w, _ in times[c]]
        cpu = [u * 1e3 for _, u in times[c]]
        best, med = min(wall), statistics.median(wall)
        base = base or (best, med)
        print(f"best {best:7.1f} med {med:7.1f} ms  cpu {min(cpu):6.1f} / {statistics.median(cpu):6.1f} ms"
              f"  x{best / base[0]:.3f} / {med / base[1]:.3f}  {c}")


if __name__ == "__main__":
    main()
