#!/usr/bin/env python3
"""Counts the bytes that are not UTF-8 in what a pgnkit build writes.

    scripts/not_utf8.py BIN [PATH ...]
    scripts/not_utf8.py --annotate jsonl BIN FILE ...

The first form runs `BIN clean FILE -o OUT` on every .pgn and .pgn.zst file under each PATH
(default: the shared games, malformed_and_tricky and variants folders) and counts, in each main
output, the bytes that a strict UTF-8 decoder rejects; it prints the files with any, then the
total. The second runs `BIN annotate --format FORMAT --nodes 1` (the built-in engine) on each
FILE instead. Needs Python 3 only.
"""

import os
import subprocess
import sys
import tempfile

DATA = os.path.join(os.environ.get("PGNKIT_SHARED", "../shared"), "data")
SHARED = [os.path.join(DATA, d) for d in ("games", "malformed_and_tricky", "variants")]


def not_utf8(data):
    """Bytes of `data` a strict UTF-8 decoder rejects (each is one escaped surrogate)."""
    text = data.decode("utf-8", errors="surrogateescape")
    return sum(1 for c in text if "\udc80" <= c <= "\udcff")


def inputs(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for root, _, names in sorted(os.walk(path)):
            for name in sorted(names):
                if name.endswith((".pgn", ".pgn.zst")):
                    yield os.path.join(root, name)


def main(argv):
    annotate = None
    if argv[:1] == ["--annotate"]:
        annotate, argv = argv[1], argv[2:]
    if not argv:
        sys.exit(__doc__)
    binary, paths = argv[0], argv[1:] or SHARED
    total_bytes = total_bad = files = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        for path in inputs(paths):
            if annotate:
                cmd = [binary, "annotate", "--quiet", "--no-cache", "--nodes", "1", "--format", annotate]
            else:
                cmd = [binary, "clean", "--quiet"]
            subprocess.run(cmd + [path, "-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if not os.path.exists(out):
                print(f"{path}: no output", file=sys.stderr)
                continue
            with open(out, "rb") as f:
                data = f.read()
            os.remove(out)
            bad = not_utf8(data)
            files += 1
            total_bytes += len(data)
            total_bad += bad
            if bad:
                print(f"{bad:>10} {path}")
    print(f"{total_bad} bytes not UTF-8 in {total_bytes} bytes written from {files} files")


if __name__ == "__main__":
    main(sys.argv[1:])
