//! `pgnkit cache merge`: the analyses of several cache files (one per shard of a run, each kept
//! on its node's local disk) added to one, so that the next run on any node starts warm.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::{APPLICATION_ID, CacheError, SCHEMA_VERSION, open_writer};

/// Checks that `path` is a pgnkit cache of this schema version, reading it only.
fn check_source(path: &Path) -> Result<(), CacheError> {
    let open_err = |source| CacheError::Open { path: path.to_path_buf(), source };
    if !path.is_file() {
        let source = rusqlite::Error::InvalidPath(path.to_path_buf());
        return Err(open_err(source));
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(open_err)?;
    let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(open_err)?;
    let version: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(open_err)?;
    match app {
        APPLICATION_ID if version == SCHEMA_VERSION => Ok(()),
        APPLICATION_ID => Err(CacheError::Version { path: path.to_path_buf(), found: version }),
        _ => Err(CacheError::Foreign { path: path.to_path_buf() }),
    }
}

/// Adds every analysis of the caches `sources` to the cache at `dest` (created when missing),
/// each source in one transaction (SQLite attaches a database only outside one): a key `dest`
/// already holds keeps its row (a key is the position, engine and limit, whose analysis is
/// reproducible, so a merge stopped half-way leaves only good rows). Returns the rows added.
pub fn merge(dest: &Path, sources: &[PathBuf]) -> Result<u64, CacheError> {
    for s in sources {
        check_source(s)?;
    }
    let mut conn = open_writer(dest)?;
    let mut added = 0u64;
    for (i, s) in sources.iter().enumerate() {
        let err = |error| CacheError::Merge { from: s.clone(), dest: dest.to_path_buf(), error };
        let name = format!("src{i}");
        let path = s.to_string_lossy().into_owned();
        conn.execute("ATTACH DATABASE ?1 AS ?2", [&path, &name]).map_err(err)?;
        let tx = conn.transaction().map_err(err)?;
        let n = tx
            .execute(&format!("INSERT OR IGNORE INTO main.evals SELECT * FROM {name}.evals"), [])
            .map_err(err)?;
        tx.commit().map_err(err)?;
        conn.execute("DETACH DATABASE ?1", [&name]).map_err(err)?;
        added += n as u64;
    }
    Ok(added)
}
