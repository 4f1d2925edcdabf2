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
        while (game := chess.pgn.read_game(f)) is not None:
            number += 1
            for error in game.errors:
                print(f"{path}: game {number}: {error}", file=sys.stderr)
            board = game.board()
            yield board.fen() + "\n"
            for move in game.mainline_moves():
                board.push(move)
                if move.drop == chess.PAWN:
                    # A pawn drop resets the halfmove clock on lichess and in pgnkit; python-chess
                    # 1.11 counts it as a quiet move.
                    board.halfmove_clock = 0
                yield board.fen() + "\n"


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
