//! Dropping object versions that no live view can read any more.
//!
//! The bound is the oldest view in the registry (or the latest commit when nobody
//! is logged in). For every object a commit at or below the bound wrote, prune
//! keeps the newest version at or below the bound and everything newer, deletes
//! the older versions, and deletes the kept version too when it is a tombstone
//! (reading a missing object and a deleted one answer the same). The commit rows
//! at or below the bound go as well: no live view will ever ask what they changed.
//! Work is proportional to what was committed since the previous prune, done in
//! short write transactions so commits of other sessions interleave. It runs
//! on its own after commits (a session whose commit leaves more than
//! `AUTO_PRUNE_LAG` commits unpruned prunes one batch), and whole on demand
//! (`gsmcp-store prune`).
//!
//! It also compacts on demand (`gsmcp-store compact`): every free page back to
//! the file system, converting a file older than incremental vacuum.
//!
//! This module owns those procedures and their reports. It must not touch rows above
//! the bound, and must compute the bound under the write lock (login registers
//! its view under the same lock, so a new view is never missed).

use rusqlite::{Connection, TransactionBehavior};

use crate::changes;
use crate::error::{Result, SqlContext};
use crate::registry;
use crate::schema::{self, LAST_COMMIT, PRUNED_THROUGH};

/// Commits handled per write transaction.
const BATCH: i64 = 128;
/// Free pages returned to the file system per prune pass (16 MiB of 4 KiB
/// pages): the file shrinks as history goes, never in one long write.
const VACUUM_PAGES: u32 = 4096;

/// What a prune did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PruneReport {
    /// Versions older than this commit were considered (the oldest live view).
    pub bound: u64,
    /// Commit rows dropped.
    pub commits: u64,
    /// Object versions deleted (old versions and tombstones).
    pub versions: u64,
    /// Registry rows of dead processes removed.
    pub sessions_reaped: u64,
}

pub(crate) fn prune(conn: &mut Connection, busy_ms: u64) -> Result<PruneReport> {
    prune_batches(conn, busy_ms, usize::MAX)
}

/// Prunes at most `batches` batches of [`BATCH`] commits: bounded work, for
/// the step a commit takes ([`crate::session`], `AUTO_PRUNE_LAG`).
pub(crate) fn prune_batches(
    conn: &mut Connection,
    busy_ms: u64,
    batches: usize,
) -> Result<PruneReport> {
    let mut report = PruneReport::default();
    for _ in 0..batches {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx("starting a prune batch", busy_ms)?;
        report.sessions_reaped += registry::reap_dead(&tx, busy_ms)? as u64;
        let latest = schema::counter(&tx, LAST_COMMIT, busy_ms)?;
        let bound = registry::min_view(&tx, busy_ms)?.map_or(latest, |v| v.min(latest));
        report.bound = bound;

        let batch: Vec<(i64, Vec<u64>)> = {
            let mut stmt = tx
                .prepare_cached("SELECT number, writes FROM commits WHERE number <= ?1 ORDER BY number LIMIT ?2")
                .ctx("reading commits to prune", busy_ms)?;
            let mut rows = stmt
                .query([bound as i64, BATCH])
                .ctx("reading commits to prune", busy_ms)?;
            let mut out = Vec::new();
            while let Some(row) = rows.next().ctx("reading commits to prune", busy_ms)? {
                let number: i64 = row.get(0).ctx("reading commits to prune", busy_ms)?;
                let blob = row
                    .get_ref(1)
                    .and_then(|v| Ok(v.as_blob()?))
                    .ctx("reading commits to prune", busy_ms)?;
                let mut oops = Vec::new();
                changes::decode_oops_into(blob, &mut oops)?;
                out.push((number, oops));
            }
            out
        };
        let Some(&(last, _)) = batch.last() else {
            tx.commit().ctx("ending prune", busy_ms)?;
            break;
        };
        let mut oops: Vec<u64> = batch.into_iter().flat_map(|(_, o)| o).collect();
        oops.sort_unstable();
        oops.dedup();
        {
            let mut older = tx
                .prepare_cached("DELETE FROM objects WHERE oop = ?1 AND version < ?2")
                .ctx("preparing prune", busy_ms)?;
            let mut exact = tx
                .prepare_cached("DELETE FROM objects WHERE oop = ?1 AND version = ?2")
                .ctx("preparing prune", busy_ms)?;
            for oop in oops {
                let Some((version, tombstone)) =
                    crate::versions::newest_at(&tx, oop, bound as u64, busy_ms)?
                else {
                    continue;
                };
                let version = version as i64;
                report.versions += older
                    .execute([oop as i64, version])
                    .ctx("pruning", busy_ms)? as u64;
                if tombstone {
                    report.versions += exact
                        .execute([oop as i64, version])
                        .ctx("pruning", busy_ms)? as u64;
                }
            }
        }
        report.commits += tx
            .execute("DELETE FROM commits WHERE number <= ?1", [last])
            .ctx("dropping pruned commits", busy_ms)? as u64;
        schema::set_counter(&tx, PRUNED_THROUGH, last as u64, busy_ms)?;
        tx.commit().ctx("committing a prune batch", busy_ms)?;
    }
    if report.commits == 0 {
        return Ok(report);
    }
    if report.versions > 0 {
        // give back what the deleted versions freed: a bounded amount after a
        // commit's batch, all of it in a whole prune (on demand, after a
        // collection); a no-op in a file made before repositories chose
        // incremental vacuum
        let pages = if batches == usize::MAX {
            0
        } else {
            VACUUM_PAGES
        };
        give_back_pages(conn, pages, busy_ms)?;
    }
    // Bookkeeping connections never checkpoint on their own; prune may have
    // written a lot, so move it into the database file now.
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
        .ctx("checkpointing after prune", busy_ms)?;
    Ok(report)
}

/// Returns up to `pages` free pages (0: all) to the file system. SQLite frees
/// one page per step of the statement, so it is stepped to its end.
fn give_back_pages(conn: &Connection, pages: u32, busy_ms: u64) -> Result<()> {
    let mut stmt = conn
        .prepare(&format!("PRAGMA incremental_vacuum({pages})"))
        .ctx("returning freed pages", busy_ms)?;
    let mut rows = stmt.query([]).ctx("returning freed pages", busy_ms)?;
    while rows.next().ctx("returning freed pages", busy_ms)?.is_some() {}
    Ok(())
}

/// Gives every free page back to the file system, converting a file made
/// before repositories chose incremental vacuum (its pages were only ever
/// reused) with one `VACUUM`, which rewrites the file (it waits for other
/// writers like any write, and needs free disk for a second copy). Answers
/// whether the file was converted.
pub(crate) fn compact(conn: &Connection, busy_ms: u64) -> Result<bool> {
    let mode: i64 = conn
        .query_row("PRAGMA auto_vacuum", [], |r| r.get(0))
        .ctx("reading the vacuum mode", busy_ms)?;
    // 2 = INCREMENTAL
    let converted = mode != 2;
    if converted {
        conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL; VACUUM;")
            .ctx("rewriting the file (VACUUM)", busy_ms)?;
    } else {
        give_back_pages(conn, 0, busy_ms)?;
    }
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .ctx("checkpointing after compacting", busy_ms)?;
    Ok(converted)
}
