#!/usr/bin/env python3
"""Plays a match between two engines with python-chess and reports W/D/L, the score and the Elo
difference with a 95% error margin (for the first engine).

Each engine is `uci:COMMAND...` or `xboard:COMMAND...` (the command split on spaces). UCI engines
run through python-chess; xboard engines through the small CECP client below, because
python-chess insists on `feature setboard=1`, which Fairy-Max does not offer (it gets the opening
as moves in force mode instead). Openings
are the first positions of PGN games (plain or .zst, e.g. the Stockfish 8-move book); each
opening is played twice with colors swapped. Time control: `--tc BASE+INC` in seconds with the
clock kept by this script (a flag fall loses), or `--movetime SECONDS`.

Example (pgnkit against Fairy-Max, 100 games at 5+0.05):
  python3 scripts/match.py --engine1 'uci:target/release/pgnkit uci' \\
      --engine2 'xboard:/usr/games/fairymax' --games 100 --tc 5+0.05 \\
      --openings stockfish_books_8moves_v3.pgn.zst --pgn /tmp/match.pgn

Needs `pip install chess` (and `zstd` on the PATH for .zst books).
"""

import argparse
import concurrent.futures
import io
import math
import random
import queue
import os
import subprocess
import sys
import threading
import time

import chess
import chess.engine
import chess.pgn


class Played:
    def __init__(self, move):
        self.move = move


class XboardEngine:
    """A minimal CECP 2 client: `new`, `level`, moves in force mode, `time`/`otim`, `go`, `move X`."""

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        # A reader thread: select() on a buffered pipe misses lines already read into the buffer.
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.sent = None  # the moves the engine has, or None before a game
        self.game = None
        self.pings = 0
        self.send("xboard")
        self.send("protover 2")
        self.sync(timeout=5)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def readline(self, deadline):
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise chess.engine.EngineError("xboard engine timed out") from None
        if line is None:
            raise chess.engine.EngineTerminatedError("xboard engine exited")
        return line

    def sync(self, timeout=10):
        self.pings += 1
        self.send(f"ping {self.pings}")
        deadline = time.monotonic() + timeout
        while self.readline(deadline) != f"pong {self.pings}":
            pass

    def play(self, board, limit, game=None):
        moves = [m.uci() for m in board.move_stack]
        if game is not self.game or self.sent is None or moves[:len(self.sent)] != self.sent:
            self.game = game
            self.send("new")
            self.send("easy")
            self.send("nopost")
            if limit.white_clock is not None:
                secs = int(round(max(limit.white_clock, limit.black_clock)))
                self.send(f"level 0 {secs // 60}:{secs % 60:02} {limit.white_inc:g}")
            else:
                self.send(f"st {limit.time:g}")
            self.sent = []
        self.send("force")
        for m in moves[len(self.sent):]:
            self.send(m)
        self.sent = moves
        if limit.white_clock is not None:
            mine, theirs = (limit.white_clock, limit.black_clock) if board.turn else (limit.black_clock, limit.white_clock)
            self.send(f"time {max(1, int(mine * 100))}")
            self.send(f"otim {max(1, int(theirs * 100))}")
            budget = mine + 5
        else:
            budget = limit.time + 5
        self.send("go")
        deadline = time.monotonic() + budget
        while True:
            line = self.readline(deadline)
            if line.startswith("move "):
                text = line.split()[1]
                try:
                    move = board.parse_uci(text)
                except ValueError:
                    try:
                        move = board.parse_san(text)
                    except ValueError:
                        print(f"unreadable move {line!r} in {board.fen()}", file=sys.stderr)
                        move = None
                if move is not None:
                    self.sent = moves + [move.uci()]
                return Played(move)

    def quit(self):
        try:
            self.send("quit")
            self.p.wait(timeout=2)
        except Exception:
            self.p.kill()


def open_engine(spec):
    proto, _, cmd = spec.partition(":")
    argv = cmd.split()
    if proto == "uci":
        return chess.engine.SimpleEngine.popen_uci(argv, stderr=subprocess.DEVNULL)
    if proto == "xboard":
        return XboardEngine(argv)
    sys.exit(f"engine spec must start with uci: or xboard:, got {spec!r}")


def load_openings(path, count, seed):
    if path.endswith(".zst"):
        text = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout.decode()
    else:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    stream = io.StringIO(text)
    games = []
    # Read a pool larger than needed, then sample it reproducibly.
    while len(games) < max(count * 4, 200):
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        games.append(list(game.mainline_moves()))
    random.Random(seed).shuffle(games)
    return games[:count]


def play_game(engines, names, opening, tc, movetime, max_plies=400):
    """engines[0] plays White. Returns (result from White's view, termination, game)."""
    board = chess.Board()
    for m in opening:
        board.push(m)
    base, inc = tc if tc else (None, None)
    clock = [base, base]
    game = chess.pgn.Game()
    game.headers["White"], game.headers["Black"] = names
    node = game
    for m in opening:
        node = node.add_variation(m)
    node.comment = "book"
    termination = "normal"
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = outcome.result()
            termination = outcome.termination.name.lower()
            break
        if board.ply() >= max_plies:
            result, termination = "1/2-1/2", "max plies"
            break
        side = 0 if board.turn == chess.WHITE else 1
        if tc:
            limit = chess.engine.Limit(white_clock=clock[0], black_clock=clock[1], white_inc=inc, black_inc=inc)
        else:
            limit = chess.engine.Limit(time=movetime)
        start = time.monotonic()
        try:
            # `game` tells python-chess when a new game starts (ucinewgame / new).
            played = engines[side].play(board, limit, game=game)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, BrokenPipeError) as e:
            result = "0-1" if side == 0 else "1-0"
            termination = f"engine error: {e}"
            break
        spent = time.monotonic() - start
        if tc:
            clock[side] -= spent
            if clock[side] < 0:
                result = "0-1" if side == 0 else "1-0"
                termination = "time forfeit"
                break
            clock[side] += inc
        if played.move is None or played.move not in board.legal_moves:
            result = "0-1" if side == 0 else "1-0"
            termination = f"illegal move {played.move}"
            break
        board.push(played.move)
        node = node.add_variation(played.move)
    game.headers["Result"] = result
    game.headers["Termination"] = termination
    return result, termination, game


def elo(p):
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return -400 * math.log10(1 / p - 1)


def report(w, d, l):
    n = w + d + l
    p = (w + d / 2) / n
    var = (w * (1 - p) ** 2 + d * (0.5 - p) ** 2 + l * (0 - p) ** 2) / n
    se = math.sqrt(var / n)
    if w == n or l == n:
        return p, elo(p), math.inf
    lo, hi = max(p - 1.96 * se, 1e-9), min(p + 1.96 * se, 1 - 1e-9)
    return p, elo(p), (elo(hi) - elo(lo)) / 2


def interval(w, d, l):
    """The 95% interval of the Elo difference (asymmetric far from 50%)."""
    n = w + d + l
    p = (w + d / 2) / n
    se = math.sqrt((w * (1 - p) ** 2 + d * (0.5 - p) ** 2 + l * p ** 2) / n / n)
    return elo(max(p - 1.96 * se, 0.0)), elo(min(p + 1.96 * se, 1.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine1", required=True)
    ap.add_argument("--engine2", required=True)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--tc", help="BASE+INC in seconds, e.g. 5+0.05")
    ap.add_argument("--movetime", type=float, default=0.1)
    ap.add_argument("--openings", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--pgn", help="write the games here")
    args = ap.parse_args()
    tc = tuple(float(x) for x in args.tc.split("+")) if args.tc else None
    openings = load_openings(args.openings, (args.games + 1) // 2, args.seed)
    names = [args.engine1.partition(":")[2].split()[0].rsplit("/", 1)[-1],
             args.engine2.partition(":")[2].split()[0].rsplit("/", 1)[-1]]
    jobs = [(i, openings[i // 2], i % 2 == 1) for i in range(args.games)]
    lock = threading.Lock()
    totals = {"w": 0, "d": 0, "l": 0}
    games_out = [None] * args.games
    local = threading.local()

    def run(job):
        i, opening, swapped = job
        if not hasattr(local, "engines"):
            local.engines = [open_engine(args.engine1), open_engine(args.engine2)]
        e1, e2 = local.engines
        pair = [e2, e1] if swapped else [e1, e2]
        pair_names = [names[1], names[0]] if swapped else names
        result, term, game = play_game(pair, pair_names, opening, tc, args.movetime)
        game.headers["Round"] = str(i + 1)
        score1 = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
        if swapped:
            score1 = 1 - score1
        with lock:
            totals["w" if score1 == 1 else "l" if score1 == 0 else "d"] += 1
            games_out[i] = game
            w, d, l = totals["w"], totals["d"], totals["l"]
            p, e, m = report(w, d, l)
            print(f"game {i + 1:3}: {pair_names[0]} - {pair_names[1]} {result} ({term}); "
                  f"{names[0]}: +{w} ={d} -{l} {100 * p:.1f}% Elo {e:+.0f} +/- {m:.0f}", flush=True)
        return local.engines

    all_engines = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.concurrency) as pool:
            for engines in pool.map(run, jobs):
                if engines not in all_engines:
                    all_engines.append(engines)
    finally:
        for pair in all_engines:
            for e in pair:
                e.quit()
    w, d, l = totals["w"], totals["d"], totals["l"]
    p, e, m = report(w, d, l)
    print(f"\n{names[0]} vs {names[1]}: {w + d + l} games, +{w} ={d} -{l}, score {100 * p:.1f}%, "
          f"Elo difference {e:+.0f} +/- {m:.0f} (95%; interval {interval(w, d, l)[0]:+.0f} .. "
          f"{interval(w, d, l)[1]:+.0f})")
    if args.pgn:
        with open(args.pgn, "w") as f:
            for g in games_out:
                if g is not None:
                    print(g, file=f, end="\n\n")


if __name__ == "__main__":
    try:
        main()
    finally:
        sys.stdout.flush()
        # Engine processes of a failed worker must not keep the script alive.
        os._exit(0)
