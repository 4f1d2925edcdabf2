#!/usr/bin/env python3
"""Checks pgnkit's Parquet output with DuckDB and Polars against its JSON Lines output.

usage: parquet_check.py positions|annotate LIST

LIST has one line per pair: PARQUET<TAB>JSONL<TAB>TAGS (comma-separated, may be empty), the two
files written by the same `pgnkit positions` (or `annotate`) command but for --format, and
optionally <TAB>epd when the Parquet file was written with --epd-columns (then its epd, hmvc and
fmvn columns must be the JSON Lines' FEN's first four fields and its two clocks). For each pair:
DuckDB and Polars read the Parquet file with the declared types (README's schema); every row equals
the JSON Lines record at the same place (its file too, but not turn, which the records leave out);
and three queries (positions per game, the average eval by ply, games per player) give the same
answers over the Parquet file (in DuckDB and in Polars) as over the JSON Lines. Exits 1 naming
every difference.
"""

import sys

import duckdb
import polars as pl

NUMBERS = {"WhiteElo", "BlackElo", "WhiteUSCF", "BlackUSCF", "WhiteFideId", "BlackFideId", "PlyCount"}
DATES = {"Date", "EventDate", "UTCDate"}

# (name, DuckDB type, Polars type)
POSITIONS = [
    ("file", "VARCHAR", pl.String),
    ("game", "BIGINT", pl.Int64),
    ("ply", "INTEGER", pl.Int32),
    ("fen", "VARCHAR", pl.String),
    ("san", "VARCHAR", pl.String),
    ("uci", "VARCHAR", pl.String),
    ("turn", "VARCHAR", pl.String),
    ("eval_cp", "INTEGER", pl.Int32),
    ("eval_mate", "INTEGER", pl.Int32),
    ("clk", "DOUBLE", pl.Float64),
]
ANNOTATE = POSITIONS[:9] + [
    ("depth", "INTEGER", pl.Int32),
    ("nodes", "BIGINT", pl.Int64),
    ("best", "VARCHAR", pl.String),
    ("pv", "VARCHAR", pl.String),
    ("judgement", "VARCHAR", pl.String),
]


def schema(job, tags, epd):
    cols = list(POSITIONS if job == "positions" else ANNOTATE)
    if epd:
        at = [n for n, _, _ in cols].index("fen")
        cols[at:at + 1] = [("epd", "VARCHAR", pl.String), ("hmvc", "BIGINT", pl.Int64), ("fmvn", "BIGINT", pl.Int64)]
    for t in tags:
        if t in NUMBERS:
            cols.append((t, "INTEGER", pl.Int32))
        elif t in DATES:
            cols.append((t, "DATE", pl.Date))
            cols.append((t + "_text", "VARCHAR", pl.String))
        else:
            cols.append((t, "VARCHAR", pl.String))
    return cols


def q(name):
    return '"' + name.replace('"', '""') + '"'


def lit(s):
    return "'" + s.replace("'", "''") + "'"


def position_fields(fen, epd):
    """The position's columns from the FEN expression `fen`: itself, or its EPD fields and clocks."""
    if not epd:
        return [f"{fen} AS fen"]
    return [f"array_to_string(string_split({fen}, ' ')[1:4], ' ') AS epd",
            f"CAST(split_part({fen}, ' ', 5) AS BIGINT) AS hmvc",
            f"CAST(split_part({fen}, ' ', 6) AS BIGINT) AS fmvn"]


def jsonl_view(con, job, path, tags, epd):
    """The JSON Lines records as the Parquet table's columns, row numbers kept."""
    if job == "positions":
        cols = {"file": "VARCHAR", "game": "BIGINT", "ply": "INTEGER", "fen": "VARCHAR", "san": "VARCHAR",
                "uci": "VARCHAR", "eval": "JSON", "clk": "DOUBLE"}
        for t in tags:
            cols[t] = "VARCHAR"
        spec = "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in cols.items()) + "}"
        src = f"read_json({lit(path)}, format='newline_delimited', columns={spec})"
        fields = ["file", "game", "ply", *position_fields("fen", epd), "san", "uci",
                  "CAST(eval->>'cp' AS INTEGER) AS eval_cp", "CAST(eval->>'mate' AS INTEGER) AS eval_mate",
                  "clk"]
        for t in tags:
            if t in NUMBERS:
                fields.append(f"CASE WHEN regexp_full_match(trim({q(t)}), '[0-9]+') "
                              f"THEN TRY_CAST(trim({q(t)}) AS INTEGER) END AS {q(t)}")
            elif t in DATES:
                fields.append(f"CASE WHEN regexp_full_match(trim({q(t)}), '[0-9]{{4}}\\.[0-9]{{2}}\\.[0-9]{{2}}') "
                              f"THEN CAST(try_strptime(trim({q(t)}), '%Y.%m.%d') AS DATE) END AS {q(t)}")
                fields.append(f"{q(t)} AS {q(t + '_text')}")
            else:
                fields.append(q(t))
    else:
        src = f"read_json({lit(path)}, format='newline_delimited', columns={{'type': 'VARCHAR', 'data': 'JSON'}})"
        fields = ["data->>'file' AS file", "CAST(data->>'game' AS BIGINT) AS game",
                  "CAST(data->>'ply' AS INTEGER) AS ply",
                  *position_fields("(data->>'fen')", epd), "data->>'san' AS san", "data->>'uci' AS uci",
                  "CAST(data->'eval'->>'cp' AS INTEGER) AS eval_cp",
                  "CAST(data->'eval'->>'mate' AS INTEGER) AS eval_mate",
                  "CAST(data->>'depth' AS INTEGER) AS depth", "CAST(data->>'nodes' AS BIGINT) AS nodes",
                  "data->>'best' AS best",
                  "CASE WHEN json_array_length(data->'pv') > 0 THEN "
                  "array_to_string(CAST(data->'pv' AS VARCHAR[]), ' ') END AS pv",
                  "data->>'judgement' AS judgement"]
    where = "" if job == "positions" else "WHERE type = 'position'"
    return f"SELECT row_number() OVER () AS n, {', '.join(fields)} FROM {src} {where}"


def check(job, parquet, jsonl, tags, epd, problems):
    def problem(text):
        problems.append(f"{parquet}: {text}")

    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = true")
    want = schema(job, tags, epd)
    got = con.execute(f"DESCRIBE SELECT * FROM read_parquet({lit(parquet)})").fetchall()
    got_duck = [(r[0], r[1]) for r in got]
    if got_duck != [(n, d) for n, d, _ in want]:
        problem(f"DuckDB reads the columns {got_duck}, the schema says {[(n, d) for n, d, _ in want]}")
        return
    frame = pl.read_parquet(parquet)
    got_polars = [(n, t) for n, t in frame.schema.items()]
    if got_polars != [(n, p) for n, _, p in want]:
        problem(f"Polars reads the columns {got_polars}, the schema says {[(n, p) for n, _, p in want]}")
        return

    con.execute(f"CREATE TABLE p AS SELECT row_number() OVER () AS n, * EXCLUDE (turn) "
                f"FROM read_parquet({lit(parquet)})")
    con.execute(f"CREATE TABLE j AS {jsonl_view(con, job, jsonl, tags, epd)}")
    cols = [n for n, _, _ in want if n != "turn"]
    np_, nj = con.execute("SELECT (SELECT count(*) FROM p), (SELECT count(*) FROM j)").fetchone()
    if np_ != nj:
        problem(f"{np_} rows, the JSON Lines have {nj} records")
    clk = "round(clk, 6) AS clk" if "clk" in cols else None
    sel = ", ".join(["n"] + [clk if c == "clk" else q(c) for c in cols])
    diff = con.execute(f"SELECT * FROM ((SELECT {sel} FROM p EXCEPT ALL SELECT {sel} FROM j) "
                       f"UNION ALL (SELECT {sel} FROM j EXCEPT ALL SELECT {sel} FROM p)) ORDER BY n LIMIT 3").fetchall()
    if diff:
        problem(f"rows differ from the JSON Lines records, first: {diff}")
    turn = con.execute(f"SELECT count(*) FROM read_parquet({lit(parquet)}) "
                       f"WHERE turn <> CASE split_part({'epd' if epd else 'fen'}, ' ', 2) "
                       "WHEN 'w' THEN 'white' ELSE 'black' END").fetchone()[0]
    if turn:
        problem(f"{turn} rows whose turn is not their position's side to move")

    # The queries, over the JSON Lines (DuckDB), the Parquet file (DuckDB) and the Parquet file (Polars).
    per_game = "SELECT game, count(*) AS c FROM {t} GROUP BY game ORDER BY game"
    by_ply = ("SELECT ply, round(avg(eval_cp), 9) AS a, count(eval_cp) AS c FROM {t} "
              "WHERE eval_cp IS NOT NULL GROUP BY ply ORDER BY ply")
    answers = {}
    for name, sql in [("positions per game", per_game), ("average eval by ply", by_ply)]:
        answers[name] = (con.execute(sql.format(t="j")).fetchall(), con.execute(sql.format(t="p")).fetchall())
    polars_per_game = frame.group_by("game").agg(pl.len().alias("c")).sort("game")
    polars_by_ply = (frame.filter(pl.col("eval_cp").is_not_null()).group_by("ply")
                     .agg(pl.col("eval_cp").mean().round(9).alias("a"), pl.len().alias("c")).sort("ply"))
    polars = {"positions per game": [tuple(r) for r in polars_per_game.iter_rows()],
              "average eval by ply": [tuple(r) for r in polars_by_ply.iter_rows()]}
    for player in [t for t in tags if t in ("White", "Black")]:
        name = f"games per player ({player})"
        sql = f"SELECT {q(player)}, count(DISTINCT game) FROM {{t}} GROUP BY 1 ORDER BY 1 NULLS FIRST"
        answers[name] = (con.execute(sql.format(t="j")).fetchall(), con.execute(sql.format(t="p")).fetchall())
        g = frame.group_by(player).agg(pl.col("game").n_unique()).sort(player, nulls_last=False)
        polars[name] = [tuple(r) for r in g.iter_rows()]
    for name, (from_jsonl, from_parquet) in answers.items():
        if from_jsonl != from_parquet:
            problem(f"{name}: DuckDB answers differently over the Parquet file and the JSON Lines")
        if [tuple(r) for r in from_jsonl] != polars[name]:
            problem(f"{name}: Polars over the Parquet file differs from DuckDB over the JSON Lines")
    return np_


def main():
    job, listing = sys.argv[1], sys.argv[2]
    problems, files, rows = [], 0, 0
    for line in open(listing, encoding="utf-8"):
        parquet, jsonl, tags, *options = line.rstrip("\n").split("\t")
        tags = [t for t in tags.split(",") if t]
        rows += check(job, parquet, jsonl, tags, "epd" in options, problems) or 0
        files += 1
    for p in problems:
        print(p)
    print(f"parquet_check: {files} files, {rows} rows, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
