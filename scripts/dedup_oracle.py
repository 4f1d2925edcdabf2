#!/usr/bin/env python3
"""python-chess's duplicate games across PGN files under each rule of `pgnkit clean --dedup`:
the oracle of its tests, written apart from pgnkit's code from the rules as `clean --help` and
`src/jobs/clean/dedup/` state them.

A game is a candidate when python-chess reads it without error in standard chess, Chess960 or
crazyhouse. Its moves are its variant, start position (`Board.epd()`: en passant only when a
capture is legal) and mainline moves; its result is the board's (mate, stalemate), else the
Result tag's, else the movetext's result token, else `*`.

- moves: the same moves.
- game: the same moves (a game with no moves: its Event, Site and Round, folded as names are,
  instead), the same result, the same players (below) on the same sides, dates whose year,
  month and day are each equal or unknown in either, rounds that agree (the leading number when
  the Round starts with a digit, else its words folded as names are; unknown in either agrees)
  and Sites that agree when both are addresses (containing `://`: equal after trimming). A
  repeat names the oldest earlier distinct game it matches; a game matching none is a new
  distinct game.
- prefix: the game rule, and a distinct game Y (with moves) is a shorter record of a distinct
  game X when Y's mainline is a prefix of X's (X longer: Y's result X's or `*`; as long: Y's `*`
  and X's not), with the same players, compatible dates, and an Event, Site and Round each the
  same as X's (folded as names are) or empty in either. Y and its repeats then name the X
  with the most plies, one with a result before one without, the first of those.

Names: NFD, marks dropped, o l d ss ae oe i th d for the letters that do not decompose, lower
case, apostrophes dropped, anything but letters and digits separates words, a letter doubled
in a row counts once, the first four words kept. Two names without a word of two letters or
more match when they have the same initials; else one name's tokens all pair, one to one, with
tokens of the other (equal words, an initial and a word it begins, equal initials), two equal
words among the pairs.

Prints, for every game set aside, in input order:
    RULE<TAB>FILE<TAB>GAME<TAB>MATCHED<TAB>FIRST-FILE<TAB>FIRST-GAME
(RULE the --dedup value, MATCHED the rule that matched, games numbered from 1 in each file).

Usage: scripts/dedup_oracle.py [--rule game|moves|prefix]... FILE.pgn[.zst]...
       (every rule when none is given; python-chess; zstd for .zst files)
"""

import io
import itertools
import re
import subprocess
import sys
import unicodedata

import chess
import chess.pgn
from mainline_visitor import MainlineVisitor

SPECIAL = {"ø": "o", "ł": "l", "đ": "d", "ð": "d", "ß": "ss", "ẞ": "ss", "æ": "ae", "œ": "oe", "ı": "i", "þ": "th"}
APOSTROPHES = "'`\u2019\u02bc"
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def read_text(path):
    """The file's text, each line UTF-8 or else Windows-1252 (pgnkit decodes each tag value so)."""
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    else:
        with open(path, "rb") as f:
            data = f.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = []
    for line in data.split(b"\n"):
        try:
            lines.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append("".join(bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in line))
    return io.StringIO("\n".join(lines))


class Record(MainlineVisitor):
    """What the rules read of a game, as python-chess reads it: each tag's first value, the start
    position, the mainline's moves and end position, the result token and any error. The
    mainline is played once, by the reader (no game tree is built and replayed again)."""

    def begin_game(self):
        super().begin_game()
        self.first_tags, self.token, self.errors, self.moves = {}, None, [], []
        self.start = self.end = None

    def visit_header(self, name, value):
        self.first_tags.setdefault(name, value)

    def visit_board(self, board):
        # The first is the start; the reader plays the mainline on that very board.
        if self.end is None:
            self.start = (board.uci_variant, board.chess960, board.epd())
            self.end = board

    def visit_mainline_move(self, board, move):
        self.moves.append(move.uci())

    def visit_result(self, result):
        self.token = result

    def handle_error(self, error):
        self.errors.append(error)

    def result(self):
        return self


def words(text):
    out, word, last = [], [], None
    for c in text:
        if c in APOSTROPHES:
            continue
        low = c.lower()
        if low in SPECIAL:
            parts = SPECIAL[low]
        else:
            parts = "".join(d for d in unicodedata.normalize("NFD", c) if not unicodedata.category(d).startswith("M"))
        for d in parts:
            for l in d.lower():
                if unicodedata.category(l).startswith("M"):
                    continue
                if l.isalnum():
                    if not (l == last and l.isalpha()):
                        word.append(l)
                        last = l
                else:
                    if word:
                        out.append("".join(word))
                    word, last = [], None
    if word:
        out.append("".join(word))
    return out


def name(text):
    return words(text)[:4]


def same_player(a, b):
    def full(ws):
        return [w for w in ws if len(w) > 1]

    if not full(a) or not full(b):
        return sorted(a) == sorted(b)

    def compatible(x, y):
        return x == y or (len(x) == 1 and y.startswith(x)) or (len(y) == 1 and x.startswith(y))

    def covers(small, big):
        if len(small) > len(big):
            return False
        for chosen in itertools.permutations(range(len(big)), len(small)):
            pairs = [(small[i], big[j]) for i, j in enumerate(chosen)]
            if all(compatible(x, y) for x, y in pairs) and any(x == y and len(x) > 1 for x, y in pairs):
                return True
        return False

    return covers(a, b) or covers(b, a)


def standard_date(value):
    """pgnkit clean's repair of dates written with - or /."""
    sep = "-" if "-" in value else "/" if "/" in value else None
    if sep is None:
        return value
    parts = value.strip().split(sep)
    if len(parts) != 3:
        return value
    y, m, d = parts

    def digits(s):
        return s != "" and all(c.isdigit() and c.isascii() or c == "?" for c in s)

    if len(y) != 4 or not digits(y) or len(m) > 2 or len(d) > 2 or not digits(m) or not digits(d):
        return value
    return f"{y}.{m.zfill(2)}.{d.zfill(2)}"


def date(value):
    parts = value.strip().split(".")
    if len(parts) != 3:
        return (0, 0, 0)

    def number(s, most):
        if not s or len(s) > 4 or not all("0" <= c <= "9" for c in s):
            return 0
        n = int(s)
        return n if n <= most else 0

    return (number(parts[0], 9999), number(parts[1], 12), number(parts[2], 31))


def dates_agree(a, b):
    return all(x == 0 or y == 0 or x == y for x, y in zip(a, b))


class Game:
    def __init__(self, path, number, game):
        self.where = (path, number)
        tags = game.first_tags
        self.start = game.start
        self.moves = tuple(game.moves)
        end = game.end
        if end.is_checkmate():
            self.result = "0-1" if end.turn == chess.WHITE else "1-0"
        elif end.is_stalemate():
            self.result = "1/2-1/2"
        else:
            tag = tags.get("Result")
            self.result = tag if tag in RESULTS else game.token if game.token in RESULTS else "*"
        self.players = (name(tags.get("White", "")), name(tags.get("Black", "")))
        self.date = date(standard_date(tags.get("Date", "")))
        self.roster = tuple(tuple(words(tags.get(t, ""))) for t in ("Event", "Site", "Round"))
        round_ = tags.get("Round", "").strip()
        digits = len(round_) - len(round_.lstrip("0123456789"))
        self.round = ("n", int(round_[:digits])) if digits else (("w",) + tuple(words(round_)) if words(round_) else None)
        site = tags.get("Site", "").strip()
        self.site = site if "://" in site else None

    def key(self, rule):
        if rule != "moves" and not self.moves:
            return (self.start, "roster", self.roster)
        return (self.start, self.moves)

    def same_players(self, other):
        def agree(a, b):
            return a is None or b is None or a == b

        return (
            dates_agree(self.date, other.date)
            and agree(self.round, other.round)
            and agree(self.site, other.site)
            and same_player(self.players[0], other.players[0])
            and same_player(self.players[1], other.players[1])
        )

    def same_game(self, other):
        return self.result == other.result and self.same_players(other)

    def shorter_record_of(self, longer):
        if len(self.moves) == len(longer.moves):
            results = self.result == "*" and longer.result != "*"
        else:
            results = self.result in (longer.result, "*")
        occasion = all(not a or not b or a == b for a, b in zip(self.roster, longer.roster))
        return results and occasion and self.same_players(longer)


def candidates(paths):
    for path in paths:
        text = read_text(path)
        number = 0
        while (game := chess.pgn.read_game(text, Visitor=Record)) is not None:
            number += 1
            if game.errors or game.start is None or game.start[0] not in ("chess", "crazyhouse"):
                continue
            yield Game(path, number, game)


def dedup(games, rule):
    """(game, matched rule, game kept) for every game set aside, in order."""
    groups, entries, repeats = {}, [], []
    for g in games:
        group = groups.setdefault(g.key(rule), [])
        if rule == "moves":
            match = group[0] if group else None
        else:
            match = next((e for e in group if entries[e].same_game(g)), None)
        if match is None:
            group.append(len(entries))
            entries.append(g)
        else:
            repeats.append((g, match))
    longer = {}
    if rule == "prefix":
        by_moves = {}
        for i, e in enumerate(entries):
            if e.moves:
                by_moves.setdefault((e.start, e.moves), []).append(i)
        for x, long in enumerate(entries):
            rank = (len(long.moves), long.result != "*")
            for n in range(1, len(long.moves) + 1):
                for y in by_moves.get((long.start, long.moves[:n]), []):
                    if y != x and entries[y].shorter_record_of(long):
                        best = longer.get(y)
                        if best is None or rank > best[1] or (rank == best[1] and x < best[0]):
                            longer[y] = (x, rank)
    out = []
    entry_of = {id(g): e for g, e in repeats}
    entry_of.update((id(g), i) for i, g in enumerate(entries))
    for g in games:
        e = entry_of[id(g)]
        if e in longer:
            out.append((g, "prefix", entries[longer[e][0]]))
        elif entries[e] is not g:
            out.append((g, "moves" if rule == "moves" else "game", entries[e]))
    return out


def main():
    args, rules = sys.argv[1:], []
    while args and args[0] == "--rule":
        rules.append(args[1])
        args = args[2:]
    games = list(candidates(args))
    for rule in rules or ["game", "moves", "prefix"]:
        for g, matched, kept in dedup(games, rule):
            print(f"{rule}\t{g.where[0]}\t{g.where[1]}\t{matched}\t{kept.where[0]}\t{kept.where[1]}")


if __name__ == "__main__":
    main()
