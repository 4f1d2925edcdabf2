#!/usr/bin/env python3
"""Oracle for `pgnkit positions`: every mainline position of every game in a PGN file, one FEN
per line, as python-chess (`pip install chess`) sees them.

`board.fen()` writes the en passant square only when a legal capture exists, like
`pgnkit positions --ep-square legal` (the default). Crazyhouse games follow lichess's rule that a
pawn drop resets the halfmove clock (python-chess's own board does not reset it). python-chess
keeps the valid prefix of a game with an illegal move, as pgnkit does; the errors it records go to
stderr, one line each. A `.zst` file is read through `zstd -dc`.

Usage:
  scripts/oracle_fens.py FILE.pgn > FILE.fen
  scripts/oracle_fens.py --summary FILE...   # FILE<TAB>lines<TAB>CRC-32 of the FEN text, per file
The second form gives the lines of fixtures/expected/python_chess_fens.tsv (run from the data sets' directory).
"""

import io
import subprocess
import sys
import zlib

import chess
import chess.pgn
from mainline_visitor import MainlineVisitor


def fen_line(board, move=None):
    """The FEN line of `board`, reached by `move` (None: the game's start)."""
    if move is not None and move.drop == chess.PAWN:
        # A pawn drop resets the halfmove clock on lichess and in pgnkit; python-chess 1.11
        # counts it as a quiet move.
        board.halfmove_clock = 0
    return board.fen() + "\n"


class Mainline(MainlineVisitor):
    """The FEN lines of a game's mainline positions, taken from python-chess's own board as it
    reads the game (no game tree is built and replayed again), and whether it met an error."""

    def begin_game(self):
        super().begin_game()
        self.lines, self.failed = [], False
        self.move = None  # the mainline move the next board comes from

    def visit_mainline_move(self, board, move):
        self.move = move

    def visit_board(self, board):
        # The start, then the board after each move, a variation's too.
        if self.lines and self.move is None:
            return
        self.lines.append(fen_line(board, self.move))
        self.move = None

    def handle_error(self, error):
        self.failed = True

    def result(self):
        return self


def replayed(game):
    """The FEN lines of a game python-chess built, its mainline replayed from the start."""
    board = game.board()
    yield fen_line(board)
    for move in game.mainline_moves():
        board.push(move)
        yield fen_line(board, move)


def fens(path: str):
    """The FEN lines of every mainline position in the games of `path`."""
    if path.endswith(".zst"):
        raw = subprocess.run(["zstd", "-dcq", path], check=True, capture_output=True).stdout
        # The PGN standard says ISO 8859-1; real files are mostly UTF-8. Only tags would differ.
        f = io.StringIO(raw.decode("utf-8-sig", errors="replace"))
    else:
        f = open(path, encoding="utf-8-sig", errors="replace")
    with f:
        number = 0
        while True:
            start = f.tell()
            game = chess.pgn.read_game(f, Visitor=Mainline)
            if game is None:
                break
            number += 1
            if not game.failed:
                yield from game.lines
                continue
            # A game with an error is read again into a game tree, for its errors (and
            # python-chess's log of them) and the mainline python-chess keeps.
            f.seek(start)
            game = chess.pgn.read_game(f)
            for error in game.errors:
                print(f"{path}: game {number}: {error}", file=sys.stderr)
            yield from replayed(game)


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--summary"] and len(args) > 1:
        for path in args[1:]:
            lines, crc = 0, 0
            for line in fens(path):
                lines += 1
                crc = zlib.crc32(line.encode(), crc)
            print(f"{path}\t{lines}\t{crc:08x}")
    elif len(args) == 1:
        sys.stdout.writelines(fens(args[0]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
