#!/usr/bin/env python3
"""Oracle for `pgnkit::chess::Game` (the move stack, repetition and draw claims), the Shredder-FEN
writer and `pgn::Writer::game`: seeded games that shuffle pieces back and forth, so positions
repeat, in standard chess, Chess960 and Crazyhouse, with what python-chess (`pip install chess`)
says after every move.

Output (fixtures/expected/game_history.tsv), tab-separated:
  game  VARIANT  START-FEN                         one a game, then one line a position:
  UCI   FLAGS    OUTCOME  SHREDDER-FEN             UCI `-` for the start position
  pgn   MOVETEXT                                   std/960 only, last: the export's movetext,
                                                   line breaks as `|`
FLAGS: one 0/1 each for is_repetition(2), is_repetition(3), can_claim_threefold_repetition(),
is_fivefold_repetition(), can_claim_draw(). OUTCOME: board.outcome() termination name or `-`.

Usage: scripts/game_oracle.py > fixtures/expected/game_history.tsv
"""

import random

import chess
import chess.pgn
import chess.variant

PLIES = 70

ZH_REPEAT = (
    "g1f3 g8h6 f3g1 h6g8 b1c3 g8h6 c3b1 h6g8 b1c3 g8h6 c3b1 h6g8 b1c3 g8h6 c3a4 h6g8 a1b1 g8h6 "
    "b1a1 h6g8 a1b1 g8h6 b1a1 h6g8 a1b1 g8h6 b1a1 h8g8 a1b1 g8h8 b1a1 h8g8 a1b1 g8h8 b1a1 h8g8 "
    "a4b6 g8h8 b6a4 h8g8 a4c3 g8h8 c3a4 h8g8 a4c3 g8h8 c3a4 h8g8 a4c3 g8h8 c3a4 b8a6 g1h3 a6b8 "
    "a4b6 b8a6 b6a4 a6b8 a4b6 b8a6 b6a4 a6b8 a4c3 b8a6 c3a4 a6b8 h3g1 h6f5 g1h3 f5h6 h3f4 h6f5 "
    "a1b1 f5h6 b1a1 h6f5 a1b1 f5h6 f4h3 h6f5 h3f4 f5h6 a4c5 h6f5 c5b3 f5h6 b3c5 h6f5 c5b3 f5h6 "
    "b3c5 h6f5 c5d7 f5h6 d7c5 h6f5 c5d7 f5h6 d7c5 h6f5 c5a4 f5h6 P@f5 h6f5 f4h3 P@f4 h3f4"
)


def flags(board):
    bits = [
        board.is_repetition(2),
        board.is_repetition(3),
        board.can_claim_threefold_repetition(),
        board.is_fivefold_repetition(),
        board.can_claim_draw(),
    ]
    return "".join("1" if b else "0" for b in bits)


def state(board, uci):
    outcome = board.outcome()
    name = outcome.termination.name if outcome else "-"
    return f"{uci}\t{flags(board)}\t{name}\t{board.fen(shredder=True)}"


def choose(board, rng):
    """A move that undoes our last one when it can, else mostly a reversible one."""
    legal = list(board.legal_moves)
    if len(board.move_stack) >= 2 and rng.random() < 0.55:
        last = board.move_stack[-2]
        if last.drop is None:
            back = chess.Move(last.to_square, last.from_square)
            if back in legal:
                return back
    quiet = [m for m in legal if not board.is_zeroing(m) and m.drop is None]
    if quiet and rng.random() < 0.85:
        return rng.choice(quiet)
    return rng.choice(legal)


def game(variant, board, rng, lines, moves=None):
    """A seeded game of PLIES plies, or the game of `moves` (UCI)."""
    lines.append(f"game\t{variant}\t{board.fen(shredder=True)}")
    lines.append(state(board, "-"))
    start = board.copy()
    scripted = iter(moves or [])
    while (moves or len(board.move_stack) < PLIES) and any(board.legal_moves):
        move = board.parse_uci(next(scripted)) if moves else choose(board, rng)
        if moves and len(board.move_stack) == len(moves) - 1:
            moves = None  # the last scripted move
        uci = board.uci(move)
        board.push(move)
        lines.append(state(board, uci))
    if variant != "zh":
        pgn = chess.pgn.Game.from_board(board)
        exporter = chess.pgn.StringExporter(headers=False, columns=80)
        movetext = pgn.accept(exporter).strip("\n")
        lines.append("pgn\t" + movetext.replace("\n", "|"))
    assert start.fen() == chess.pgn.Game.from_board(board).board().fen()


def main():
    rng = random.Random(20261202)
    lines = []
    for fen in [
        chess.STARTING_FEN,
        chess.STARTING_FEN,
        "r3k2r/pppq1ppp/2npbn2/4p3/4P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 4 8",
        "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 30",
        "7k/8/8/8/8/8/R7/K7 w - - 90 80",
    ]:
        game("std", chess.Board(fen), rng, lines)
    for _ in range(4):
        game("960", chess.Board.from_chess960_pos(rng.randrange(960)), rng, lines)
    for _ in range(3):
        game("zh", chess.variant.CrazyhouseBoard(), rng, lines)
    # A crazyhouse position that stands again across captures and a pawn drop (the pawn dropped
    # on f5 is taken, the one dropped on f4 too): python-chess counts the repetition.
    game("zh", chess.variant.CrazyhouseBoard(), rng, lines, ZH_REPEAT.split())
    print(f"# python-chess {chess.__version__}: scripts/game_oracle.py > fixtures/expected/game_history.tsv")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
