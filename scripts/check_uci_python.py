#!/usr/bin/env python3
"""Checks `pgnkit uci` against python-chess's engine module: handshake, play a short game against
itself, analyse a mate in one, a middlegame and three lines at once (multipv), with Chess960
and Crazyhouse positions too; and `pgnkit xboard`'s analyze mode, through python-chess's
xboard client.

Usage: python3 scripts/check_uci_python.py [path/to/pgnkit]   (default target/release/pgnkit)
Needs `pip install chess`. Exits non-zero on the first failed check.
"""

import sys

import chess
import chess.engine
import chess.variant

binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/pgnkit"

with chess.engine.SimpleEngine.popen_uci([binary, "uci"]) as engine:
    print("id:", engine.id)
    assert engine.id.get("name", "").startswith("pgnkit"), engine.id
    assert "Hash" in engine.options, engine.options

    # play: a short game from the start, every move legal.
    board = chess.Board()
    while not board.is_game_over() and board.ply() < 40:
        result = engine.play(board, chess.engine.Limit(time=0.05))
        assert result.move in board.legal_moves, (board.fen(), result.move)
        board.push(result.move)
    print("play: 40 plies or game end:", board.ply(), "plies,", chess.Board().variation_san(board.move_stack))

    # analyse: a mate in one, by depth.
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    info = engine.analyse(board, chess.engine.Limit(depth=3))
    assert info["pv"][0] == chess.Move.from_uci("d1d8"), info
    assert info["score"].white() == chess.engine.Mate(1), info["score"]
    print("analyse mate in one:", info["score"], board.san(info["pv"][0]), "depth", info["depth"])

    # analyse: a middlegame with nodes and a PV that python-chess replays.
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    info = engine.analyse(board, chess.engine.Limit(depth=8))
    print("analyse Italian-ish:", info["score"], board.variation_san(info["pv"]), "nodes", info["nodes"])

    # analyse with multipv: python-chess sets MultiPV and reads a list, best line first, each
    # from a different move.
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    infos = engine.analyse(board, chess.engine.Limit(depth=5), multipv=3)
    assert [i["multipv"] for i in infos] == [1, 2, 3], infos
    assert len({i["pv"][0] for i in infos}) == 3, infos
    assert infos[0]["pv"][0] == chess.Move.from_uci("d1d8") and infos[0]["score"].white() == chess.engine.Mate(1), infos[0]
    print("analyse multipv 3:", ", ".join(f"{board.san(i['pv'][0])} {i['score'].white()}" for i in infos))

    # play: a Chess960 position and a Crazyhouse position (python-chess sets UCI_Chess960 and
    # UCI_Variant itself).
    board = chess.Board.from_chess960_pos(518 - 100)
    result = engine.play(board, chess.engine.Limit(depth=4))
    assert result.move in board.legal_moves, result.move
    print("play Chess960 #418:", board.san(result.move))

    board = chess.variant.CrazyhouseBoard("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R[] b KQkq - 0 1")
    result = engine.play(board, chess.engine.Limit(depth=4))
    assert result.move in board.legal_moves, result.move
    print("play Crazyhouse:", board.san(result.move))

# `pgnkit xboard`: python-chess analyses through analyze mode (`analyze`, its posted lines, `exit`).
with chess.engine.SimpleEngine.popen_xboard([binary, "xboard"]) as engine:
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    info = engine.analyse(board, chess.engine.Limit(depth=4))
    assert info["pv"][0] == chess.Move.from_uci("d1d8") and info["score"].white() == chess.engine.Mate(1), info
    board = chess.Board.from_chess960_pos(518 - 100)
    info = engine.analyse(board, chess.engine.Limit(depth=5))
    assert info["depth"] >= 5 and info["pv"][0] in board.legal_moves, info
    result = engine.play(board, chess.engine.Limit(time=0.05))
    assert result.move in board.legal_moves, result.move
    print("xboard analyse mate in one, Chess960 #418:", board.san(info["pv"][0]), "depth", info["depth"])
    # A node limit (`nps 1`, `st N`), then a time limit (`st` alone): the node rate was the first's.
    board = chess.Board()
    result = engine.play(board, chess.engine.Limit(nodes=3000), info=chess.engine.INFO_ALL)
    assert result.move in board.legal_moves and result.info.get("nodes", 0) <= 3000, result
    result = engine.play(board, chess.engine.Limit(time=0.2), info=chess.engine.INFO_ALL)
    assert result.info.get("nodes", 0) > 3000, result.info
    print("xboard play by nodes, then by time:", result.info.get("nodes"), "nodes")

print("python-chess UCI and xboard check: OK")
