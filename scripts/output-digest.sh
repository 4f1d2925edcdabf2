#!/usr/bin/env bash
# Prints one digest line per (input, command) of what a pgnkit build writes: `check` (text and
# `--json --games`, `--strict-san`), `positions` (every format, `--unique`, `--tags`), `clean`
# (the output, rejects, duplicates and report of a plain run and of `--dedup` with ECO tags) and
# `annotate` (PGN and JSON Lines with the built-in engine at one node a position, on the fixtures
# and the smaller shared files; EPD lines of the EPD suites under fixtures), stdout, stderr, the
# files written and exit code, with timings taken out. Two builds write the same output when their
# digests are equal:
#   scripts/output-digest.sh OLD_BIN > old.txt; scripts/output-digest.sh NEW_BIN > new.txt
#   diff old.txt new.txt
# Inputs: every PGN under fixtures/ and, when present, data/ of $PGNKIT_SHARED (or the FILES given).
# JSON diagnostics are compared on the fields every build writes (file, game, line, column,
# offset, ply, severity, kind, message), so fields added to the record do not count as a change.
# DIGEST_ONLY=REGEX digests only the commands whose label matches (`DIGEST_ONLY=annotate`).
#   usage: scripts/output-digest.sh BIN [FILES...]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1")
shift
data=${PGNKIT_SHARED:-../shared}/data
if (($# == 0)); then
  mapfile -t files < <(find fixtures -name '*.pgn' | sort)
  if [ -d "$data" ]; then
    mapfile -t -O "${#files[@]}" files < <(find "$data" -name '*.pgn' -o -name '*.pgn.zst' | sort)
  fi
else
  files=("$@")
fi

# normalize: timings out of summaries; JSON diagnostic records projected to their common fields.
normalize() {
  python3 -c '
import json, os, re, sys
keep = ("file", "game", "line", "offset", "ply", "severity", "kind", "message")
for line in sys.stdin.buffer:
    text = line.decode("utf-8", "surrogateescape").rstrip("\n")
    if text.startswith("{") and "\"type\"" in text:
        rec = json.loads(text)
        data = rec.get("data", {})
        if rec["type"] == "summary":
            # Timings, and the figures made of them (rates, how busy the engines were).
            timing = re.compile(r"seconds|_per_s|busy|microseconds|millis")
            for d in (data, data.get("counts") or {}):
                for k in [k for k in d if timing.search(k)]:
                    d.pop(k)
        elif rec["type"] == "diagnostic":
            column = data.get("column", data.get("col"))
            data = {k: data.get(k) for k in keep}
            data["column"] = column
        rec["data"] = data
        text = json.dumps(rec, sort_keys=True)
    text = re.sub(r"MB in [0-9.]+ s \([0-9]+ MB/s, [0-9]+ games/s\)", "MB", text)
    # The temporary directory of the files written, named in messages, differs from run to run.
    text = text.replace(os.environ["DIGEST_FILES_DIR"], "FILES_DIR")
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape") + b"\n")
'
}

# The flag that writes ECO tags: `--eco-tags all` where the build has it, else `--eco`.
if "$bin" clean --help | grep -q -- '--eco-tags'; then eco_tags=(--eco-tags all); else eco_tags=(--eco); fi

# digest LABEL FILE ARGS...: one line, the digest of stdout, stderr and exit code (and of the
# files under $files_dir, which a command writes with -o, --rejects...).
files_dir=$(mktemp -d)
export DIGEST_FILES_DIR=$files_dir
trap 'rm -rf "$files_dir"' EXIT
digest() {
  local label=$1 file=$2 code
  shift 2
  [[ -n ${DIGEST_ONLY:-} && ! $label =~ $DIGEST_ONLY ]] && return
  local out err
  out=$(mktemp)
  err=$(mktemp)
  code=0
  "$bin" "$@" >"$out" 2>"$err" || code=$?
  # Records of `positions` hold no timings and end with a line break: they need no normalizing
  # (which reads them line by line), so they are hashed as written.
  local stdout=normalize
  [[ $label == positions-* ]] && stdout=cat
  printf '%s %s %s\n' "$( ("$stdout" <"$out"; echo "--"; normalize <"$err"; echo "exit $code"
    for written in "$files_dir"/*; do [ -e "$written" ] && { echo "-- ${written##*/}"; normalize <"$written"; }; done) |
    sha256sum | cut -c1-16)" "$label" "$file"
  rm -f "$out" "$err" "$files_dir"/*
}

# `check` without -q: its summary is part of what it writes (builds differ on -q for `check`).
for f in "${files[@]}"; do
  digest check "$f" check "$f"
  digest check-json "$f" check --json --games "$f"
  digest check-strict "$f" check --json --strict-san "$f"
  for fmt in fen epd jsonl csv; do
    digest "positions-$fmt" "$f" positions -q --format "$fmt" "$f"
  done
  digest positions-unique "$f" positions -q --unique --format epd "$f"
  digest positions-tags "$f" positions -q --format jsonl --tags White,Black,Result,WhiteElo --skip-errors "$f"
  d=$files_dir
  digest clean "$f" clean -q "$f" -o "$d/out.pgn" --rejects "$d/rejects.pgn" --report "$d/report.jsonl"
  digest clean-dedup-eco "$f" clean -q --dedup "${eco_tags[@]}" --strip clock "$f" -o "$d/out.pgn" \
    --duplicates "$d/dups.pgn" --report "$d/report.jsonl"
  # annotate replays and searches every position: the fixtures and the files under 2 MB.
  if [[ $f == fixtures/* ]] || { [[ $f != *.zst ]] && (($(stat -c %s "$f") < 2000000)); }; then
    for fmt in pgn jsonl; do
      digest "annotate-$fmt" "$f" annotate -q -j1 --nodes 1 --no-cache --format "$fmt" "$f"
    done
  fi
done
epd_inputs=$(find fixtures -name '*.epd' | sort)
[ -d "$data/epd_suites" ] && epd_inputs+=" $data/epd_suites/wac.epd $data/epd_suites/bratko-kopec.epd"
for f in $epd_inputs; do
  digest annotate-epd "$f" annotate -q -j1 --nodes 1 --no-cache --format epd "$f"
done
