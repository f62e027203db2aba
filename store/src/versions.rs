//! Reading stored versions: an object as a view sees it (the newest version at
//! or below the view), and the objects the commits between two views wrote.
//! Sessions, the prune and the collector read through these; they take a
//! connection or a transaction and own no state.

use rusqlite::Connection;

use crate::changes::{self, ChangedSet};
use crate::error::{Result, SqlContext, StoreError};

/// The contents of `oop` as view `view` sees it (None: no version, or a
/// tombstone).
pub(crate) fn read_at(
    conn: &Connection,
    oop: u64,
    view: u64,
    busy_ms: u64,
) -> Result<Option<Vec<u8>>> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT data FROM objects WHERE oop = ?1 AND version <= ?2 ORDER BY version DESC LIMIT 1",
        )
        .ctx("preparing a read", busy_ms)?;
    let mut rows = stmt
        .query([oop as i64, view as i64])
        .ctx("reading an object", busy_ms)?;
    match rows.next().ctx("reading an object", busy_ms)? {
        None => Ok(None),
        Some(row) => row
            .get::<_, Option<Vec<u8>>>(0)
            .ctx("reading an object", busy_ms),
    }
}

/// The newest version of `oop` at or below `view`, and whether it is a
/// tombstone (a deleted object); None when there is no such version.
pub(crate) fn newest_at(
    conn: &Connection,
    oop: u64,
    view: u64,
    busy_ms: u64,
) -> Result<Option<(u64, bool)>> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT version, data IS NULL FROM objects WHERE oop = ?1 AND version <= ?2 \
             ORDER BY version DESC LIMIT 1",
        )
        .ctx("preparing a version lookup", busy_ms)?;
    let mut rows = stmt
        .query([oop as i64, view as i64])
        .ctx("looking up a version", busy_ms)?;
    match rows.next().ctx("looking up a version", busy_ms)? {
        None => Ok(None),
        Some(row) => {
            let version: i64 = row.get(0).ctx("looking up a version", busy_ms)?;
            let tombstone: bool = row.get(1).ctx("looking up a version", busy_ms)?;
            Ok(Some((version as u64, tombstone)))
        }
    }
}

/// The union of the write lists of commits `from+1 ..= to`. Every one of those
/// commit rows must exist: prune only drops rows at or below the oldest live view.
pub(crate) fn changes_between(
    conn: &Connection,
    from: u64,
    to: u64,
    busy_ms: u64,
) -> Result<ChangedSet> {
    if to <= from {
        return Ok(ChangedSet::new(from, to.max(from), Vec::new()));
    }
    let mut stmt = conn
        .prepare_cached(
            "SELECT writes FROM commits WHERE number > ?1 AND number <= ?2 ORDER BY number",
        )
        .ctx("preparing the changed-set query", busy_ms)?;
    let mut rows = stmt
        .query([from as i64, to as i64])
        .ctx("reading commit write lists", busy_ms)?;
    let mut lists = Vec::new();
    while let Some(row) = rows.next().ctx("reading commit write lists", busy_ms)? {
        let blob = row
            .get_ref(0)
            .and_then(|v| Ok(v.as_blob()?))
            .ctx("reading a write list", busy_ms)?;
        let mut list = Vec::new();
        changes::decode_oops_into(blob, &mut list)?;
        lists.push(list);
    }
    if lists.len() as u64 != to - from {
        return Err(StoreError::Corrupt {
            detail: format!(
                "commits {}..={} should all be recorded but only {} are",
                from + 1,
                to,
                lists.len()
            ),
        });
    }
    Ok(changes::merge(from, to, lists))
}
