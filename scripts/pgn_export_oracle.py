#!/usr/bin/env python3
"""Oracle for pgnkit's export-format writer (src/pgn/writer.rs): every game of a PGN file as
python-chess (`pip install chess`; GPL-3.0, run as an external script, never linked) exports it,
`game.accept(chess.pgn.StringExporter(columns=80))`, each game followed by a blank line ("\\n\\n").

python-chess writes the SAN of its own replay, so compare with a pgnkit rewrite that also writes
canonical SAN. Where the two layouts differ on purpose (python-chess does not escape tag values,
writes `( 1... c5 )`, does not force `N...` after a NAG, merges consecutive comments, lets a long
comment exceed the width), see the module docs of src/pgn/writer.rs. A `.zst` file is read
through `zstd -dcq`.

Usage:
  scripts/pgn_export_oracle.py FILE.pgn[.zst] > FILE.python-chess.pgn
"""

import io
import subprocess
import sys

import chess.pgn


def games(path: str):
    """The games of `path`, read by python-chess."""
    if path.endswith(".zst"):
        raw = subprocess.run(["zstd", "-dcq", path], check=True, capture_output=True).stdout
        f = io.StringIO(raw.decode("utf-8-sig", errors="replace"))
    else:
        f = open(path, encoding="utf-8-sig", errors="replace")
    with f:
        while (game := chess.pgn.read_game(f)) is not None:
            yield game


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.stdout
    for game in games(sys.argv[1]):
        out.write(game.accept(chess.pgn.StringExporter(columns=80)))
        out.write("\n\n")


if __name__ == "__main__":
    main()
