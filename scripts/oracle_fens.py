#!/usr/bin/env python3
"""Oracle for `pgnkit positions`: every mainline position of every game in a PGN file, one FEN
per line, as python-chess (`pip install chess`) sees them.

`board.fen()` writes the en passant square only when a legal capture exists, like
`pgnkit positions --ep-square legal` (the default). python-chess keeps the valid prefix of a
game with an illegal move, as pgnkit does.

Usage: scripts/oracle_fens.py FILE.pgn > FILE.fen
"""

import sys

import chess
import chess.pgn


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    # The PGN standard says ISO 8859-1; real files are mostly UTF-8. Only tags would differ.
    with open(sys.argv[1], encoding="utf-8-sig", errors="replace") as f:
        out = sys.stdout
        while (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            out.write(board.fen() + "\n")
            for move in game.mainline_moves():
                board.push(move)
                out.write(board.fen() + "\n")


if __name__ == "__main__":
    main()
