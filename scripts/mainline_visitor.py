"""A python-chess visitor that reads a game's variations (so that their errors are seen) and
hands on the moves of its mainline alone, to the oracles that read games without a game tree."""

import chess.pgn


class MainlineVisitor(chess.pgn.BaseVisitor):
    """`visit_mainline_move(board, move)` for each mainline move; subclasses that override
    `begin_game` call this one."""

    def begin_game(self):
        self.depth = 0

    def begin_variation(self):
        self.depth += 1

    def end_variation(self):
        self.depth -= 1

    def visit_move(self, board, move):
        if self.depth == 0:
            self.visit_mainline_move(board, move)

    def visit_mainline_move(self, board, move):
        pass
