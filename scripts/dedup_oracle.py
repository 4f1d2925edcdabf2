#!/usr/bin/env python3
"""python-chess's duplicate games across PGN files: the oracle for `pgnkit clean --dedup`.

A game repeats an earlier one when its variant, start position (`Board.epd()` plus clocks is not
part of it: placement, side, castling, en passant when legal) and mainline moves are the same;
tags, comments and annotations aside. Prints, for every game that repeats an earlier one,
`FILE<TAB>GAME<TAB>FIRST-FILE<TAB>FIRST-GAME` (games numbered from 1 in each file).

Usage: scripts/dedup_oracle.py FILE.pgn[.zst]...   (python-chess; zstd for .zst files)
"""

import sys

import chess.pgn

sys.path.insert(0, __import__("os").path.dirname(__file__))
import eco_oracle  # noqa: E402


def main():
    first = {}
    for path in sys.argv[1:]:
        text = eco_oracle.open_text(path)
        number = 0
        while (game := chess.pgn.read_game(text)) is not None:
            number += 1
            board = game.board()
            key = (board.uci_variant, board.chess960, board.epd(), tuple(m.uci() for m in game.mainline_moves()))
            if key in first:
                print(f"{path}\t{number}\t{first[key][0]}\t{first[key][1]}")
            else:
                first[key] = (path, number)


if __name__ == "__main__":
    main()
