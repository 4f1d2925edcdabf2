#!/usr/bin/env python3
"""A UCI engine that fails on purpose: it runs a real engine and passes its conversation through,
but on a share of the `go` commands it hangs (answers nothing more, reads and drops every command,
and stays alive until killed) or crashes (exits with status 3 at once). Each start can take a
while first (an engine loading a large network). For measuring what a client loses to a faulty
engine; the choices are seeded, each process of a run drawing from its own stream.

    usage: scripts/flaky-engine.py [--hang P] [--crash P] [--start-delay SECS] [--seed N]
                                   [--state FILE] [--log FILE] -- ENGINE [ARGS...]
    example: pgnkit annotate --engine scripts/flaky-engine.py --engine-arg=--hang=0.02 \\
                 --engine-arg=--state=/tmp/flaky --engine-arg=-- \\
                 --engine-arg=/usr/games/stockfish --nodes 1000 games.pgn

--state FILE counts the processes started (under a lock): process k of a run draws from the
stream seeded with (seed, k), so a run's faults do not depend on the pid, and a restarted engine
does not replay the faults of the one it replaces. Without --state every process is process 0.
--log FILE gets a line for each fault (`hang N G` or `crash N G`: process N at its Gth go).
Needs Python 3 only.
"""
import argparse
import fcntl
import os
import random
import subprocess
import sys
import threading
import time


def process_number(state):
    """This process's number in the run: the count kept in `state`, incremented under a lock."""
    if not state:
        return 0
    with open(state, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        text = f.read().strip()
        n = int(text) if text else 0
        f.seek(0)
        f.truncate()
        f.write(f"{n + 1}\n")
        f.flush()
        return n


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hang", type=float, default=0.0, help="share of go commands that hang")
    parser.add_argument("--crash", type=float, default=0.0, help="share of go commands that crash")
    parser.add_argument("--start-delay", type=float, default=0.0, help="seconds each start takes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--state", help="file counting the processes of a run")
    parser.add_argument("--log", help="file to append a line to at each fault")
    parser.add_argument("engine", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.engine[1:] if args.engine[:1] == ["--"] else args.engine
    if not command:
        parser.error("no engine given after --")
    n = process_number(args.state)
    rng = random.Random(f"{args.seed}-{n}")
    if args.start_delay > 0:
        time.sleep(args.start_delay)
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    hung = threading.Event()

    def log(fault):
        print(f"flaky engine {n}: {fault} at go {gos}", file=sys.stderr, flush=True)
        if args.log:
            with open(args.log, "a") as f:
                f.write(f"{fault} {n} {gos}\n")

    def pass_output():
        for line in engine.stdout:
            if hung.is_set():
                continue
            try:
                sys.stdout.buffer.write(line)
                sys.stdout.buffer.flush()
            except OSError:
                break

    threading.Thread(target=pass_output, daemon=True).start()
    gos = 0
    for line in sys.stdin.buffer:
        if hung.is_set():
            continue
        if line.split()[:1] == [b"go"]:
            gos += 1
            r = rng.random()
            if r < args.hang:
                log("hang")
                hung.set()
                continue
            if r < args.hang + args.crash:
                log("crash")
                engine.kill()
                os._exit(3)
        try:
            engine.stdin.write(line)
        except OSError:
            break
        if line.strip() == b"quit":
            break
    if hung.is_set():
        # Hung for good: only a kill ends it.
        while True:
            time.sleep(3600)
    engine.stdin.close()
    engine.wait()
    sys.exit(engine.returncode if engine.returncode >= 0 else 1)


if __name__ == "__main__":
    main()
