//! Rows: the table's SQL, an analysis turned into columns ([`Row`]) and back ([`decode`], which
//! checks every move against the position), and the transaction that writes a batch.

use std::collections::HashMap;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior, params};

use crate::analysis::{Analysis, Score};
use crate::chess::{CastlingMode, Move, Position};
use crate::notation::{parse_uci, write_uci};

use super::key::Key;

pub(super) const CREATE: &str = "CREATE TABLE evals (
    key          INTEGER PRIMARY KEY,
    position     TEXT NOT NULL,
    engine       TEXT NOT NULL,
    search_limit TEXT NOT NULL,
    cp           INTEGER,
    mate         INTEGER,
    depth        INTEGER NOT NULL,
    seldepth     INTEGER NOT NULL,
    nodes        INTEGER NOT NULL,
    time_us      INTEGER NOT NULL,
    best         TEXT,
    pv           TEXT NOT NULL,
    CHECK ((cp IS NULL) <> (mate IS NULL))
)";

pub(super) const SELECT: &str = "SELECT position, engine, search_limit, cp, mate, depth, seldepth, nodes, \
    time_us, best, pv FROM evals WHERE key = ?1";

const INSERT: &str = "INSERT OR REPLACE INTO evals (key, position, engine, search_limit, cp, mate, \
    depth, seldepth, nodes, time_us, best, pv) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";

/// A stored analysis waiting to be committed, in its column form.
#[derive(Clone, Debug)]
pub(super) struct Row {
    position: String,
    engine: String,
    limit: String,
    cp: Option<i64>,
    mate: Option<i64>,
    depth: i64,
    seldepth: i64,
    nodes: i64,
    time_us: i64,
    best: Option<String>,
    pv: String,
}

impl Row {
    pub(super) fn new(key: Key<'_>, a: &Analysis, mode: CastlingMode) -> Row {
        let (cp, mate) = match a.score {
            Score::Cp(cp) => (Some(i64::from(cp)), None),
            Score::Mate(n) => (None, Some(i64::from(n))),
        };
        let best = a.best_move.map(|m| {
            let mut s = String::with_capacity(5);
            write_uci(m, mode, &mut s);
            s
        });
        let mut pv = String::with_capacity(a.pv.len() * 6);
        for (i, &m) in a.pv.iter().enumerate() {
            if i > 0 {
                pv.push(' ');
            }
            write_uci(m, mode, &mut pv);
        }
        Row {
            position: key.position,
            engine: key.engine.to_owned(),
            limit: key.limit,
            cp,
            mate,
            depth: i64::from(a.depth),
            seldepth: i64::from(a.seldepth),
            nodes: i64::try_from(a.nodes).unwrap_or(i64::MAX),
            time_us: i64::try_from(a.time.as_micros()).unwrap_or(i64::MAX),
            best,
            pv,
        }
    }

    pub(super) fn fields(&self) -> Fields<'_> {
        Fields {
            position: &self.position,
            engine: &self.engine,
            limit: &self.limit,
            cp: self.cp,
            mate: self.mate,
            depth: self.depth,
            seldepth: self.seldepth,
            nodes: self.nodes,
            time_us: self.time_us,
            best: self.best.as_deref(),
            pv: &self.pv,
        }
    }
}

/// A row as read, from memory or from the database, borrowed.
pub(super) struct Fields<'a> {
    pub(super) position: &'a str,
    pub(super) engine: &'a str,
    pub(super) limit: &'a str,
    pub(super) cp: Option<i64>,
    pub(super) mate: Option<i64>,
    pub(super) depth: i64,
    pub(super) seldepth: i64,
    pub(super) nodes: i64,
    pub(super) time_us: i64,
    pub(super) best: Option<&'a str>,
    pub(super) pv: &'a str,
}

impl<'a> Fields<'a> {
    /// Whether the row is the one `key` names (a hash collision is not).
    pub(super) fn is_for(&self, key: &Key<'_>) -> bool {
        self.position == key.position && self.engine == key.engine && self.limit == key.limit
    }

    /// The columns of a `SELECT` row; `None` when a column has the wrong type.
    pub(super) fn from_sql(r: &'a rusqlite::Row<'_>) -> Option<Fields<'a>> {
        let text = |i: usize| r.get_ref(i).ok()?.as_str().ok();
        let int = |i: usize| r.get_ref(i).ok()?.as_i64().ok();
        let int_or_null = |i: usize| r.get_ref(i).ok()?.as_i64_or_null().ok();
        Some(Fields {
            position: text(0)?,
            engine: text(1)?,
            limit: text(2)?,
            cp: int_or_null(3)?,
            mate: int_or_null(4)?,
            depth: int(5)?,
            seldepth: int(6)?,
            nodes: int(7)?,
            time_us: int(8)?,
            best: r.get_ref(9).ok()?.as_str_or_null().ok()?,
            pv: text(10)?,
        })
    }
}

/// What a row says about a key.
pub(super) enum Found {
    /// No row for the key (or a row for another key with the same hash).
    Absent,
    /// A row for the key whose values or moves do not make an analysis of the position.
    Stale,
    /// The analysis.
    Hit(Analysis),
}

/// The analysis a row holds for `pos`, checking every move against the position.
pub(super) fn decode(pos: &Position, key: &Key<'_>, f: Option<Fields<'_>>) -> Found {
    match f {
        Some(f) if !f.is_for(key) => Found::Absent,
        Some(f) => analysis(pos, &f).map_or(Found::Stale, Found::Hit),
        None => Found::Stale,
    }
}

fn analysis(pos: &Position, f: &Fields<'_>) -> Option<Analysis> {
    let score = match (f.cp, f.mate) {
        (Some(cp), None) => Score::Cp(i32::try_from(cp).ok()?),
        (None, Some(n)) => Score::Mate(i32::try_from(n).ok()?),
        _ => return None,
    };
    // A score no engine gives (a row edited, or written by another program) is not taken.
    if !score.in_range() {
        return None;
    }
    let best_move = match f.best {
        Some(text) => Some(parse_uci(pos, text.as_bytes()).ok()?),
        None => None,
    };
    let mut pv: Vec<Move> = Vec::new();
    let mut cur = *pos;
    for text in f.pv.split_ascii_whitespace() {
        let m = parse_uci(&cur, text.as_bytes()).ok()?;
        cur.play_unchecked(m);
        pv.push(m);
    }
    Some(Analysis {
        score,
        depth: u32::try_from(f.depth).ok()?,
        seldepth: u32::try_from(f.seldepth).ok()?,
        nodes: u64::try_from(f.nodes).ok()?,
        time: Duration::from_micros(u64::try_from(f.time_us).ok()?),
        best_move,
        pv,
    })
}

/// Commits `rows` in one transaction.
pub(super) fn write_batch(conn: &mut Connection, rows: &HashMap<i64, Row>) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    {
        let mut insert = tx.prepare_cached(INSERT)?;
        for (&key, r) in rows {
            insert.execute(params![
                key, r.position, r.engine, r.limit, r.cp, r.mate, r.depth, r.seldepth, r.nodes, r.time_us,
                r.best, r.pv
            ])?;
        }
    }
    tx.commit()
}
