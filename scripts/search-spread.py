#!/usr/bin/env python3
"""How much a UCI engine's search times spread under one limit: the numbers behind the UCI
client's adaptive deadline (src/engine/client/deadline.rs). Each position is searched as pgnkit
annotate searches it (one thread, `ucinewgame` and `isready` first, then `position fen` and `go`),
timed from writing `go` to reading `bestmove`, in the order the positions come.

Prints for each limit and input: searches, median, 90th and 99th percentile, slowest, slowest /
median, and the multiple the deadline rule needed: the largest ratio of a search to the slowest
of those before it, from search WARM_UP + 1 on (with --warm-up 5: the fastest the multiple could
be without firing on any of these searches).

    usage: scripts/search-spread.py [--engine PATH] [--limit 'nodes 1000']... [--sample N]
                                    [--warm-up K] [--min-pieces N] [--answers N] FILE...
    example: scripts/search-spread.py --limit 'nodes 1000' --limit 'depth 18' --sample 200 \\
                 games.pgn suite.epd endgames.epd.zst

--answers N first times how fast the engine answers during a search: N times `go infinite`
from the start position, then after 0.3 s `isready` (until `readyok`) and `stop` (until
`bestmove`); prints the median and slowest of each.

FILE: PGN (every mainline position of every game, games in order), or EPD/FEN lines (the first
four fields); `.zst` is read through `zstd -dc`. --sample N keeps N positions of each file, evenly
spread (a PGN keeps its first games whole); --min-pieces N keeps EPD positions with at least N
pieces. Needs python-chess (reading PGN) and the engine.
"""
import argparse
import io
import statistics
import subprocess
import sys
import time

import chess.pgn


def read_text(path):
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout.decode()
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def positions(path, sample, min_pieces):
    """The FENs of `path`, in order."""
    text = read_text(path)
    fens = []
    if path.endswith((".pgn", ".pgn.zst")):
        games = io.StringIO(text)
        while sample is None or len(fens) < sample:
            game = chess.pgn.read_game(games)
            if game is None:
                break
            board = game.board()
            fens.append(board.fen())
            for move in game.mainline_moves():
                board.push(move)
                if not board.is_game_over():
                    fens.append(board.fen())
        return fens[:sample] if sample else fens
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 4 or "/" not in fields[0]:
            continue
        fen = " ".join(fields[:4]) + " 0 1"
        board = chess.Board(fen)
        if board.is_game_over() or not board.is_valid():
            continue
        if min_pieces and len(board.piece_map()) < min_pieces:
            continue
        fens.append(fen)
    if sample and len(fens) > sample:
        step = len(fens) / sample
        fens = [fens[int(i * step)] for i in range(sample)]
    return fens


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")
        self.send("setoption name Threads value 1")
        self.send("isready")
        self.until("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, word):
        for line in self.p.stdout:
            if line.split()[:1] == [word]:
                return line
        sys.exit(f"the engine ended before {word}")

    def search(self, fen, limit):
        self.send("ucinewgame")
        self.send("isready")
        self.until("readyok")
        self.send(f"position fen {fen}")
        t0 = time.perf_counter()
        self.send(f"go {limit}")
        self.until("bestmove")
        return time.perf_counter() - t0

    def answers(self, n):
        """Seconds to `readyok` and to `bestmove` when asked during a search, `n` times each."""
        ready, stop = [], []
        for _ in range(n):
            self.send("ucinewgame")
            self.send("isready")
            self.until("readyok")
            self.send("position startpos")
            self.send("go infinite")
            time.sleep(0.3)
            t0 = time.perf_counter()
            self.send("isready")
            self.until("readyok")
            ready.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            self.send("stop")
            self.until("bestmove")
            stop.append(time.perf_counter() - t0)
        return ready, stop

    def quit(self):
        self.send("quit")
        self.p.wait()


def quantile(sorted_times, q):
    return sorted_times[min(len(sorted_times) - 1, int(q * len(sorted_times)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="/usr/games/stockfish")
    parser.add_argument("--limit", action="append", help="as go takes it: 'nodes 1000', 'depth 18'")
    parser.add_argument("--sample", type=int)
    parser.add_argument("--warm-up", type=int, default=5)
    parser.add_argument("--min-pieces", type=int)
    parser.add_argument("--answers", type=int, default=0)
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    engine = Engine(args.engine)
    if args.answers:
        for name, times in zip(("isready during a search", "stop"), engine.answers(args.answers)):
            print(f"{name}: median {statistics.median(times) * 1e3:.2f} ms, slowest "
                  f"{max(times) * 1e3:.2f} ms of {len(times)}")
    if not args.files:
        engine.quit()
        return
    print(f"{'limit':<12} {'input':<28} {'n':>5} {'median':>9} {'p90':>9} {'p99':>9} {'slowest':>9} "
          f"{'slow/med':>8} {'needed':>7}")
    for limit in args.limit or ["nodes 1000"]:
        for path in args.files:
            fens = positions(path, args.sample, args.min_pieces)
            times = [engine.search(fen, limit) for fen in fens]
            needed = max(
                (t / max(times[:i]) for i, t in enumerate(times) if i >= args.warm_up),
                default=float("nan"),
            )
            s = sorted(times)
            med = statistics.median(s)
            name = path.rsplit("/", 1)[-1]
            print(f"{limit:<12} {name:<28} {len(s):>5} {med * 1e3:>7.1f}ms {quantile(s, 0.9) * 1e3:>7.1f}ms "
                  f"{quantile(s, 0.99) * 1e3:>7.1f}ms {s[-1] * 1e3:>7.1f}ms {s[-1] / med:>8.1f} {needed:>7.2f}",
                  flush=True)
    engine.quit()


if __name__ == "__main__":
    main()
