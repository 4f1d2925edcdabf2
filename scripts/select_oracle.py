#!/usr/bin/env python3
"""python-chess's reading of pgnkit's game filters: the games of PGN files that a filter keeps,
decided by another implementation (python-chess's board and its own rules for each filter), the
oracle for `pgnkit::select`.

Usage:
    scripts/select_oracle.py FILTER... -- FILE.pgn[.zst]...
    scripts/select_oracle.py --stdin -- FILE...   one filter a line on stdin, as a JSON list of
                                                 arguments; prints FILTER-INDEX<TAB>GAME

FILTER is one of (as pgnkit spells them; all must hold):
    --where "TAG OP VALUE"   OP: = != < <= > >= ~ ; numbers compare as numbers when both sides
                             read as numbers, else as text; pseudo-tags Player, Elo, Year,
                             Plies (the mainline's plies) and PlyCount (the tag, else Plies)
    --result R               the Result tag (the movetext's result when there is no tag)
    --ending E               checkmate | stalemate | insufficient | fifty-moves | repetition
    --material SIG           the mainline reaches exactly this material (KRPkr; kings implied)
    --position FEN           the mainline reaches this position (placement, side, castling, ep)
    --eco RANGES             the opening (scripts/eco_oracle.py's classification) is in A00-B99,..
    --min-ply N, --max-ply N the mainline's length
    --invert                 keep the games the others leave out

Prints the numbers (from 1, across the files) of the games kept, one a line. Only games
python-chess reads without errors are meant to be compared. Needs python-chess.

    scripts/select_oracle.py --positions SIG,... -- FILE...
prints GAME<TAB>PLY of every mainline position (ply 0: the start) whose material on the board is
exactly one of the signatures, the oracle for `positions --position-material`.
"""

import json
import re
import sys

import chess
import chess.pgn

sys.path.insert(0, __import__("os").path.dirname(__file__))
import eco_oracle  # noqa: E402

NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")


def compare(value, op, operand):
    if value is None:
        return op == "!="
    if op == "~":
        return operand.lower() in value.lower()
    if NUMBER.match(operand):
        if not NUMBER.match(value):
            return op == "!="
        a, b = float(value), float(operand)
    else:
        a, b = value, operand
    return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def tag_holds(headers, expr, plies):
    m = re.match(r"^\s*(\w+)\s*(!=|<=|>=|=|<|>|~)\s*(.*?)\s*$", expr)
    name, op, operand = m.group(1), m.group(2), m.group(3).strip('"')
    get = lambda t: headers.get(t)  # noqa: E731
    if name == "Plies" or (name == "PlyCount" and get("PlyCount") is None):
        return compare(str(plies), op, operand)
    if name == "Player":
        either = compare(get("White"), "=" if op == "!=" else op, operand) or compare(
            get("Black"), "=" if op == "!=" else op, operand
        )
        return not either if op == "!=" else either
    if name == "Elo":
        both = compare(get("WhiteElo"), "=" if op == "!=" else op, operand) and compare(
            get("BlackElo"), "=" if op == "!=" else op, operand
        )
        return not both if op == "!=" else both
    if name == "Year":
        date = get("Date") or ""
        year = date[:4] if date[:4].isdigit() else None
        return compare(year, op, operand)
    return compare(get(name), op, operand)


def signature(board):
    out = ""
    for color, case in ((chess.WHITE, str.upper), (chess.BLACK, str.lower)):
        for piece in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN):
            out += case(chess.piece_symbol(piece)) * len(board.pieces(piece, color))
    return out


def normal_signature(sig):
    white = "".join(c for c in sig if c.isupper())
    black = "".join(c for c in sig if c.islower())
    order = "KQRBNP"
    white = ("K" if "K" not in white else "") + white
    black = ("k" if "k" not in black else "") + black
    return "".join(sorted(white, key=order.index)) + "".join(sorted(black, key=order.lower().index))


def eco_in(code, ranges):
    def num(c):
        return "ABCDE".index(c[0]) * 100 + int(c[1:])

    if not code or not re.match(r"^[A-E]\d\d$", code):
        return False
    for r in ranges.split(","):
        a, _, b = r.partition("-")
        if code and num(a) <= num(code) <= num(b or a):
            return True
    return False


def parse(opts):
    """pgnkit's filter arguments -> (tag expressions, the other filters by name)."""
    wheres, want = [], {}
    i = 0
    while i < len(opts):
        if opts[i] == "--invert":
            want["invert"] = True
            i += 1
            continue
        if "=" in opts[i]:
            key, value = opts[i][2:].split("=", 1)
            i += 1
        else:
            key, value = opts[i][2:], opts[i + 1]
            i += 2
        if key == "where":
            wheres.append(value)
        else:
            want[key] = value
    if "position" in want:
        want["position"] = chess.Board(want["position"]).epd()
    if "material" in want:
        want["material"] = normal_signature(want["material"])
    return wheres, want


def keeps(game, wheres, want, table):
    """Whether the filters keep `game`."""
    ok = True
    if "result" in want:
        ok = ok and game.headers.get("Result") == want["result"]
    target, material = want.get("position"), want.get("material")
    board = game.board()
    seen_position = board.epd() == target
    seen_material = signature(board) == material
    plies = 0
    for move in game.mainline_moves():
        board.push(move)
        plies += 1
        seen_position = seen_position or (target is not None and board.epd() == target)
        seen_material = seen_material or (material is not None and signature(board) == material)
    ok = ok and all(tag_holds(game.headers, w, plies) for w in wheres)
    if "min-ply" in want:
        ok = ok and plies >= int(want["min-ply"])
    if "max-ply" in want:
        ok = ok and plies <= int(want["max-ply"])
    if target is not None:
        ok = ok and seen_position
    if material is not None:
        ok = ok and seen_material
    if "ending" in want:
        ok = ok and {
            "checkmate": board.is_checkmate,
            "stalemate": board.is_stalemate,
            "insufficient": board.is_insufficient_material,
            "fifty-moves": lambda: board.halfmove_clock >= 100,
            "repetition": lambda: board.is_repetition(3),
        }[want["ending"]]()
    if "eco" in want:
        found = eco_oracle.classify(game, *table)
        code = found[0] if found else game.headers.get("ECO")
        ok = ok and eco_in(code, want["eco"])
    return ok != bool(want.get("invert"))


def positions(sigs, paths):
    """GAME<TAB>PLY of the positions whose material is one of `sigs` (normal signatures)."""
    number = 0
    for path in paths:
        text = eco_oracle.open_text(path)
        while (game := chess.pgn.read_game(text)) is not None:
            number += 1
            board = game.board()
            for ply, move in enumerate([None, *game.mainline_moves()]):
                if move is not None:
                    board.push(move)
                if signature(board) in sigs:
                    print(f"{number}\t{ply}")


def main():
    args = sys.argv[1:]
    split = args.index("--")
    if args[:1] == ["--positions"]:
        positions({normal_signature(s) for s in args[1].split(",")}, args[split + 1 :])
        return
    if args[:split] == ["--stdin"]:
        specs = [parse(json.loads(line)) for line in sys.stdin if line.strip()]
    else:
        specs = [parse(args[:split])]
    table = eco_oracle.load_table() if any("eco" in want for _, want in specs) else None
    number = 0
    for path in args[split + 1 :]:
        text = eco_oracle.open_text(path)
        while (game := chess.pgn.read_game(text)) is not None:
            number += 1
            for i, (wheres, want) in enumerate(specs):
                if keeps(game, wheres, want, table):
                    print(number if len(specs) == 1 else f"{i}\t{number}")


if __name__ == "__main__":
    main()
