#!/usr/bin/env python3
"""python-chess's ECO classification of every game of PGN files: the oracle for pgnkit's
`select::eco` (same table, same rule, another implementation).

The table is the repository's copy of the lichess chess-openings files (`data/openings/*.tsv`):
each row's moves are played from the standard start and the position reached is keyed by
`Board.epd()` (placement, side to move, castling rights, en passant square only when a capture
is legal); a later row replaces an earlier one on the same position. A game is classified by
the deepest position of its mainline the table lists, the start position included, looking
no further than the table's deepest row (plies from the game's own start, a FEN start too) and
only while the board holds at least as many pieces as the emptiest listed position. Only
standard chess is classified.

Usage:
    scripts/eco_oracle.py FILE.pgn[.zst]...          one line per game:
        FILE<TAB>GAME<TAB>ECO<TAB>PLY<TAB>NAME       (GAME counts from 1; `-` for ECO, PLY and
                                                     NAME when the game is not classified)
    scripts/eco_oracle.py --tags FILE.pgn[.zst]...   per file: games, games with an ECO tag
                                                     other than "?", how many of them get that
                                                     code, and the same for the Opening tag

Needs python-chess (`pip install chess`) and `zstd` for `.zst` files.
"""

import io
import os
import subprocess
import sys

import chess
import chess.pgn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_table():
    """EPD -> (eco, name); the deepest row's plies; the fewest pieces on a listed position."""
    table, max_ply, min_pieces = {}, 0, 64
    for volume in "abcde":
        with open(os.path.join(ROOT, "data", "openings", f"{volume}.tsv"), encoding="utf-8") as f:
            next(f)
            for line in f:
                eco, name, pgn = line.rstrip("\n").split("\t")
                board = chess.Board()
                for token in pgn.split():
                    if not token.rstrip(".").isdigit():
                        board.push_san(token)
                table[board.epd()] = (eco, name)
                max_ply = max(max_ply, board.ply())
                min_pieces = min(min_pieces, len(board.piece_map()))
    return table, max_ply, min_pieces


def open_text(path):
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
        return io.StringIO(data.decode("utf-8", errors="replace"))
    return open(path, encoding="utf-8-sig", errors="replace")


class Deepest:
    """The rule: (eco, name, ply) of the deepest listed position among the boards `see` is given,
    the start then the mainline's boards in turn, in `found` (None when there is none)."""

    def __init__(self, table, max_ply, min_pieces):
        self.table, self.max_ply, self.min_pieces = table, max_ply, min_pieces
        self.found, self.ply, self.done = None, 0, False

    def see(self, board):
        """Takes the next board; False once no later board can change `found`."""
        if self.done:
            return False
        if self.ply == 0 and (type(board) is not chess.Board or board.chess960):
            self.done = True
        elif self.ply > self.max_ply or len(board.piece_map()) < self.min_pieces:
            self.done = True
        else:
            row = self.table.get(board.epd())
            if row:
                self.found = (row[0], row[1], self.ply)
            self.ply += 1
        return not self.done


def classify(game, table, max_ply, min_pieces):
    """`Deepest` of the mainline of a game python-chess built (the report and select oracles)."""
    deepest = Deepest(table, max_ply, min_pieces)
    board, node = game.board(), game
    while deepest.see(board) and node.variations:
        node = node.variations[0]
        board.push(node.move)
    return deepest.found


class Opening(chess.pgn.BaseVisitor):
    """A game's tags and its `Deepest`, found as python-chess reads the game: past the table's
    reach its moves are not parsed, and its variations are skipped."""

    def __init__(self, table, max_ply, min_pieces):
        self.rule = (table, max_ply, min_pieces)

    def begin_game(self):
        self.headers, self.deepest = {}, Deepest(*self.rule)

    def visit_header(self, name, value):
        self.headers[name] = value

    def begin_variation(self):
        return chess.pgn.SKIP

    def begin_parse_san(self, board, san):
        return chess.pgn.SKIP if self.deepest.done else None

    def handle_error(self, error):
        # The mainline ends at a move python-chess cannot read.
        self.deepest.done = True

    def visit_board(self, board):
        # The start, then the board after each mainline move.
        self.deepest.see(board)

    def result(self):
        return self


def main(argv):
    tags = argv[:1] == ["--tags"]
    files = argv[1:] if tags else argv
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    table, max_ply, min_pieces = load_table()
    for path in files:
        games = eco_tagged = eco_agree = name_tagged = name_agree = 0
        with open_text(path) as f:
            while (game := chess.pgn.read_game(f, Visitor=lambda: Opening(table, max_ply, min_pieces))) is not None:
                games += 1
                found = game.deepest.found
                if tags:
                    eco, name = game.headers.get("ECO", "?"), game.headers.get("Opening", "?")
                    if eco != "?":
                        eco_tagged += 1
                        eco_agree += found is not None and found[0] == eco
                    if name != "?":
                        name_tagged += 1
                        name_agree += found is not None and found[1] == name
                elif found is None:
                    print(f"{path}\t{games}\t-\t-\t-")
                else:
                    print(f"{path}\t{games}\t{found[0]}\t{found[2]}\t{found[1]}")
        if tags:
            print(f"{path}: {games} games; ECO tag in {eco_tagged}, agrees in {eco_agree}; "
                  f"Opening tag in {name_tagged}, agrees in {name_agree}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
