#!/usr/bin/env python3
"""python-chess's computation of the figures of `pgnkit report --format json`: the oracle for
pgnkit's report (the same rules, another implementation, written from their statement).

Per game: the mainline's `[%eval]`s (White's view; pawns rounded half up to centipawns, `#N`
mates). A game is judged by its file when its Annotator tag starts with `pgnkit` or a mainline
move carries a judgement NAG ($6 ?!, $2 ?, $4 ??); otherwise each move is judged from the
evaluations by lichess's rules (winning chances `2 / (1 + exp(-0.00368208 * cp)) - 1`; a loss of
0.3/0.2/0.1 a blunder/mistake/inaccuracy; the mate rules; the first move against +15 cp). A
move's centipawn loss is the mover's drop with both evaluations capped at +-1000 (mates as the
cap, a mated position has none). A side's accuracy is lichess's (win% sequence from +15 cp,
volatility-weighted mean and harmonic mean of the moves' accuracies) over the moves with a loss,
a missing evaluation's win% the one before it in the volatility windows. Phases are lichess's
division (majors and minors, back-rank sparseness, mixedness). Openings are named by
`eco_oracle.py`'s classification; a family is the name up to its colon.

Aggregates: by colour, by player (at least --min-games games), by opening family (White's games
and score, or the player's with --player; accuracy over the sides taken), by phase, losses by
bucket, accuracy by 100-point rating bucket (4000 and up in one), each family's most costly
recurring mistake (the same move in the same position, judged more than once, the largest loss
summed, then the most times, then the first seen).

Usage:
    scripts/report_oracle.py [--player NAME] [--min-games N] FILE.pgn[.zst]...   (JSON on stdout)

Needs python-chess (`pip install chess`) and `zstd` for `.zst` files.
"""

import json
import math
import os
import re
import sys
from decimal import ROUND_HALF_UP, Decimal

import chess
import chess.pgn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eco_oracle import classify, load_table, open_text  # noqa: E402

EVAL = re.compile(r"\[%eval\s+([^\]\s,]+)")
INITIAL = ("cp", 15)
CEILING = 1000
BUCKETS = [0, 19, 49, 99, 199, 299, 499]
JUDGEMENT_NAGS = {6: 0, 2: 1, 4: 2}  # inaccuracy, mistake, blunder


def parse_eval(comment):
    m = EVAL.search(comment)
    if not m:
        return None
    text = m.group(1)
    try:
        if text.startswith("#"):
            return ("mate", int(text[1:]))
        cp = (Decimal(text) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)
        return ("cp", int(cp))
    except Exception:
        return None


def wc(cp):
    return max(-1.0, min(1.0, 2 / (1 + math.exp(-0.00368208 * cp)) - 1))


def pov(score, white):
    kind, v = score
    return score if white else (kind, -v)


def severity(inaccuracy, mistake):
    return 0 if inaccuracy else 1 if mistake else 2


def judge(before, after, white_moved):
    if before is None or after is None or before == ("mate", 0) or after == ("mate", 0):
        return None
    if before[0] == "cp" and after[0] == "cp":
        d = wc(after[1]) - wc(before[1])
        delta = -d if white_moved else d
        if delta >= 0.3:
            return 2
        if delta >= 0.2:
            return 1
        if delta >= 0.1:
            return 0
        return None
    b, a = pov(before, white_moved), pov(after, white_moved)
    cp = lambda s: s[1] if s[0] == "cp" else 0  # noqa: E731
    if b[0] == "cp" and a[0] == "mate" and a[1] < 0:
        c = cp(b)
        return severity(c < -999, c < -700)
    if b[0] == "mate" and b[1] > 0 and not (a[0] == "mate" and a[1] > 0):
        c = cp(a)
        return severity(c > 999, c > 700)
    return None


def capped(score):
    if score is None:
        return None
    kind, v = score
    if kind == "cp":
        return max(-CEILING, min(CEILING, v))
    if v == 0:
        return None
    return CEILING if v > 0 else -CEILING


def losses(evals, white_first):
    out, before, white = [], capped(INITIAL), white_first
    for e in evals:
        after = capped(e)
        if before is not None and after is not None:
            out.append(max(0, (before - after) if white else (after - before)))
        else:
            out.append(None)
        before, white = after, not white
    return out


def win_percent(cp):
    return 50 + 50 * wc(max(-CEILING, min(CEILING, cp)))


def move_accuracy(before, after):
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1))


def pstdev(xs):
    mean = sum(xs) / len(xs)
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))


def accuracy(evals, white_first):
    # Across a gap a move counts only between two evaluations (as for the losses), and a missing
    # evaluation's win percentage is the one before it in the windows.
    known = [capped(INITIAL)] + [capped(e) for e in evals]
    wins, last = [], None
    for c in known:
        last = win_percent(c) if c is not None else last
        wins.append(last)
    moves = len(wins) - 1
    window = min(max(2, min(8, sum(c is not None for c in known[1:]) // 10)), len(wins))
    firsts = [wins[:window]] * max(0, window - 2)
    slides = [wins[i:i + window] for i in range(len(wins) - window + 1)]
    weights = [max(0.5, min(12.0, pstdev(w))) for w in firsts + slides]
    sides = {True: [], False: []}
    for i in range(moves):
        if known[i] is None or known[i + 1] is None:
            continue
        white = white_first if i % 2 == 0 else not white_first
        b, a = (wins[i], wins[i + 1]) if white else (wins[i + 1], wins[i])
        sides[white].append((move_accuracy(b, a), weights[i]))
    if not sides[True] or not sides[False]:
        return None
    out = {}
    for white, ms in sides.items():
        weighted = sum(a * w for a, w in ms) / sum(w for _, w in ms)
        harmonic = len(ms) / sum(1 / max(a, 1) for a, _ in ms)
        out[white] = (weighted + harmonic) / 2
    return out


def block_score(y, w, b):
    table = {
        (1, 0): 1 + (8 - y),
        (2, 0): 2 + (y - 2) if y > 2 else 0,
        (3, 0): 3 + (y - 1) if y > 1 else 0,
        (4, 0): 3 + (y - 1) if y > 1 else 0,
        (0, 1): 1 + y,
        (1, 1): 5 + abs(3 - y),
        (2, 1): 4 + y,
        (3, 1): 5 + y,
        (0, 2): 2 + (6 - y) if y < 6 else 0,
        (1, 2): 4 + (6 - y),
        (2, 2): 7,
        (0, 3): 3 + (7 - y) if y < 7 else 0,
        (1, 3): 5 + (6 - y),
        (0, 4): 3 + (7 - y) if y < 7 else 0,
    }
    return table.get((w, b), 0)


def middlegame_now(board):
    white = board.occupied_co[chess.WHITE]
    black = board.occupied_co[chess.BLACK]
    majors = chess.popcount(board.occupied & ~(board.kings | board.pawns))
    if majors <= 10:
        return True
    if chess.popcount(white & chess.BB_RANK_1) < 4 or chess.popcount(black & chess.BB_RANK_8) < 4:
        return True
    mixed = 0
    for y in range(7):
        for x in range(7):
            block = 0x0303 << (x + 8 * y)
            mixed += block_score(y + 1, chess.popcount(white & block), chess.popcount(black & block))
    return mixed > 150


def division(boards):
    middle = next((i for i, b in enumerate(boards) if middlegame_now(b)), None)
    end = None
    if middle is not None:
        end = next((i for i, b in enumerate(boards)
                    if chess.popcount(b.occupied & ~(b.kings | b.pawns)) <= 6), None)
    if middle is not None and end is not None and middle >= end:
        middle = None
    return middle, end


def phase(div, ply):
    middle, end = div
    if end is not None and ply >= end:
        return 2
    if middle is not None and ply >= middle:
        return 1
    return 0


def tag(game, name):
    v = game.headers.get(name)
    return None if v in (None, "", "?") else v


def new_side():
    return {"games": 0, "scored": 0, "half": 0, "evaluated": 0, "moves": 0, "loss": 0,
            "loss_moves": 0, "acc": 0.0, "acc_games": 0, "j": [0, 0, 0]}


def add(a, b):
    for k in ("games", "scored", "half", "evaluated", "moves", "loss", "loss_moves", "acc_games"):
        a[k] += b[k]
    a["acc"] += b["acc"]
    a["j"] = [x + y for x, y in zip(a["j"], b["j"])]


def side_json(s):
    return {
        "games": s["games"], "scored": s["scored"], "points": s["half"] / 2,
        "score": s["half"] / 2 / s["scored"] if s["scored"] else None,
        "evaluated": s["evaluated"], "moves": s["moves"], "loss": s["loss"], "loss_moves": s["loss_moves"],
        "acpl": s["loss"] / s["loss_moves"] if s["loss_moves"] else None,
        "accuracy": s["acc"] / s["acc_games"] if s["acc_games"] else None,
        "accuracy_games": s["acc_games"],
        "inaccuracies": s["j"][0], "mistakes": s["j"][1], "blunders": s["j"][2],
    }


def main(argv):
    player, min_games, files = None, 3, []
    while argv:
        a = argv.pop(0)
        if a == "--player":
            player = argv.pop(0).strip().lower()
        elif a == "--min-games":
            min_games = int(argv.pop(0))
        else:
            files.append(a)
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    table, max_ply, min_pieces = load_table()
    sides = {True: new_side(), False: new_side()}
    players, families, recurring = {}, {}, {}
    phases = [{"moves": 0, "loss": 0, "loss_moves": 0, "j": [0, 0, 0]} for _ in range(3)]
    buckets, ratings = [0] * 8, {}
    games = evaluated = 0
    results = {"1-0": 0, "0-1": 0, "1/2-1/2": 0, "*": 0}
    for path in files:
        with open_text(path) as f:
            while (game := chess.pgn.read_game(f)) is not None:
                names = {True: tag(game, "White"), False: tag(game, "Black")}
                taken = [c for c in (True, False)
                         if player is None or (names[c] or "").lower() == player]
                if not taken:
                    continue
                games += 1
                result = game.headers.get("Result", "*")
                result = result if result in results else "*"
                results[result] += 1
                board = game.board()
                white_first = board.turn == chess.WHITE
                boards, moves, evals, nags, positions = [board.copy()], [], [], [], []
                for node in game.mainline():
                    positions.append(board.copy())
                    moves.append(node.move)
                    board.push(node.move)
                    boards.append(board.copy())
                    evals.append(parse_eval(node.comment))
                    js = [JUDGEMENT_NAGS[n] for n in sorted(node.nags) if n in JUDGEMENT_NAGS]
                    nags.append(js[0] if js else None)
                has_evals = any(e is not None for e in evals)
                evaluated += has_evals
                in_file = (game.headers.get("Annotator", "").startswith("pgnkit")
                           or any(n is not None for n in nags))
                if in_file:
                    judged = nags
                else:
                    judged, before, white = [], INITIAL, white_first
                    for e in evals:
                        judged.append(judge(before, e, white))
                        before, white = e, not white
                loss = losses(evals, white_first)
                acc = accuracy(evals, white_first)
                div = division(boards)
                found = classify(game, table, max_ply, min_pieces)
                family = found[1].split(":")[0].strip() if found else "(unclassified)"
                elos = {}
                for c, t in ((True, "WhiteElo"), (False, "BlackElo")):
                    try:
                        elos[c] = int(tag(game, t).strip())
                        if not 0 <= elos[c] < 2**32:
                            del elos[c]
                    except (AttributeError, ValueError):
                        pass
                view = new_side()
                fam = families.setdefault(family, {"side": new_side(), "codes": []})
                if found:
                    fam["codes"].append(found[0])
                for c in (True, False):
                    s = new_side()
                    s["games"] = 1
                    if result != "*":
                        s["scored"] = 1
                        s["half"] = 1 if result == "1/2-1/2" else 2 * ((result == "1-0") == c)
                    if has_evals:
                        s["evaluated"] = 1
                        for i in range(len(moves)):
                            if (i % 2 == 0) == (white_first == c):
                                s["moves"] += 1
                                if loss[i] is not None:
                                    s["loss"] += loss[i]
                                    s["loss_moves"] += 1
                                if judged[i] is not None:
                                    s["j"][judged[i]] += 1
                        if acc is not None:
                            s["acc"], s["acc_games"] = acc[c], 1
                    name = names[c] or "?"
                    add(players.setdefault(name, {True: new_side(), False: new_side()})[c], s)
                    if c not in taken:
                        continue
                    add(sides[c], s)
                    if c in elos and acc is not None and has_evals:
                        r = ratings.setdefault(min(elos[c], 4000) // 100 * 100, [0, 0.0])
                        r[0] += 1
                        r[1] += acc[c]
                    if player is not None or c:
                        for k in ("games", "scored", "half"):
                            view[k] += s[k]
                    for k in ("evaluated", "moves", "loss", "loss_moves", "acc", "acc_games"):
                        view[k] += s[k]
                    view["j"] = [x + y for x, y in zip(view["j"], s["j"])]
                    if not has_evals:
                        continue
                    for i in range(len(moves)):
                        if (i % 2 == 0) != (white_first == c):
                            continue
                        p = phases[phase(div, i + 1)]
                        p["moves"] += 1
                        if loss[i] is not None:
                            p["loss"] += loss[i]
                            p["loss_moves"] += 1
                            buckets[next((k for k, b in enumerate(BUCKETS) if loss[i] <= b), 7)] += 1
                        if judged[i] is not None:
                            p["j"][judged[i]] += 1
                            key = (family, positions[i].epd(), positions[i].uci(moves[i]))
                            r = recurring.setdefault(key, {"count": 0, "loss": 0, "first": games})
                            r["count"] += 1
                            r["loss"] += loss[i] or 0
                add(fam["side"], view)
    best = {}
    for (family, epd, uci), r in recurring.items():
        if r["count"] < 2:
            continue
        rank = (r["loss"], r["count"], -r["first"])
        if family not in best or rank > best[family][0]:
            best[family] = (rank, {"epd": epd, "uci": uci, "count": r["count"], "loss": r["loss"]})
    out_players = []
    for name, by in players.items():
        all_ = new_side()
        add(all_, by[True])
        add(all_, by[False])
        if name == "?" or all_["games"] < min_games or (player is not None and name.lower() != player):
            continue
        out_players.append({"name": name, "all": side_json(all_), "white": side_json(by[True]),
                            "black": side_json(by[False])})
    out_players.sort(key=lambda p: (-p["all"]["games"], p["name"]))
    openings = []
    for family in sorted(families):
        f = families[family]
        o = side_json(f["side"])
        o["family"] = family
        codes = sorted(f["codes"])
        o["eco"] = "-" if not codes else codes[0] if codes[0] == codes[-1] else f"{codes[0]}-{codes[-1]}"
        o["recurring"] = best[family][1] if family in best else None
        openings.append(o)
    names = ["opening", "middlegame", "endgame"]
    doc = {
        "games": games, "evaluated": evaluated, "unevaluated": games - evaluated, "results": results,
        "sides": {"white": side_json(sides[True]), "black": side_json(sides[False])},
        "players": out_players, "openings": openings,
        "phases": {names[k]: {"moves": p["moves"], "loss": p["loss"], "loss_moves": p["loss_moves"],
                              "acpl": p["loss"] / p["loss_moves"] if p["loss_moves"] else None,
                              "inaccuracies": p["j"][0], "mistakes": p["j"][1], "blunders": p["j"][2]}
                   for k, p in enumerate(phases)},
        "losses": buckets,
        "ratings": [{"from": k, "sides": v[0], "accuracy": v[1] / v[0]} for k, v in sorted(ratings.items())],
    }
    json.dump(doc, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
