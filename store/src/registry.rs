//! The registry of live views (`sessions` table).
//!
//! Every login registers its process identity and view here, and updates the row
//! whenever its view moves; prune reads the smallest registered view to know which
//! old versions may still be read. This module owns those rows and the reaping of
//! rows whose process has died. It must not decide what to prune.
//!
//! Safety rule kept by callers: a row's view is never larger than the view its
//! session actually reads at. Views only move forward, and a session updates its
//! row in the same transaction that computes its new view, before any read at the
//! new view happens.

use rusqlite::Connection;

use crate::error::{Result, SqlContext, StoreError};
use crate::liveness::{Liveness, ProcessId};

/// One registered login, as `Repository::sessions` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    /// Registry id (never reused).
    pub id: u64,
    /// The process the login belongs to.
    pub pid: u32,
    /// The commit its view reads.
    pub view: u64,
    /// It was opened read-only.
    pub read_only: bool,
    /// Free text the login gave (e.g. the worker's process title).
    pub label: String,
    /// When it logged in (milliseconds since the Unix epoch).
    pub login_ms: i64,
    /// When the view last moved.
    pub moved_ms: i64,
    /// Whether the owning process still exists (checked when listed). A process
    /// in another pid namespace cannot be checked and counts as alive.
    pub alive: bool,
}

/// What a session needs to (re)create its row.
#[derive(Debug, Clone)]
pub(crate) struct Registration {
    pub id: u64,
    pub process: ProcessId,
    pub read_only: bool,
    pub label: String,
    pub login_ms: i64,
}

pub(crate) fn register(
    conn: &Connection,
    process: ProcessId,
    view: u64,
    read_only: bool,
    label: &str,
    busy_ms: u64,
) -> Result<Registration> {
    let now = crate::now_ms();
    conn.prepare_cached(
        "INSERT INTO sessions (pid, start, host, view, read_only, label, login_ms, moved_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
    )
    .and_then(|mut s| {
        s.execute(rusqlite::params![
            process.pid,
            process.start as i64,
            process.host,
            view as i64,
            read_only,
            label,
            now
        ])
    })
    .ctx("registering the session", busy_ms)?;
    Ok(Registration {
        id: conn.last_insert_rowid() as u64,
        process,
        read_only,
        label: label.to_string(),
        login_ms: now,
    })
}

/// Record a session's new view. If the row has vanished (reaped by a process that
/// misjudged us dead), put it back under the same id.
pub(crate) fn move_view(
    conn: &Connection,
    reg: &Registration,
    view: u64,
    busy_ms: u64,
) -> Result<()> {
    let now = crate::now_ms();
    let updated = conn
        .prepare_cached("UPDATE sessions SET view = ?2, moved_ms = ?3 WHERE id = ?1")
        .and_then(|mut s| s.execute(rusqlite::params![reg.id as i64, view as i64, now]))
        .ctx("recording the session's view", busy_ms)?;
    if updated == 0 {
        conn.prepare_cached(
            "INSERT INTO sessions (id, pid, start, host, view, read_only, label, login_ms, moved_ms) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .and_then(|mut s| {
            s.execute(rusqlite::params![
                reg.id as i64,
                reg.process.pid,
                reg.process.start as i64,
                reg.process.host,
                view as i64,
                reg.read_only,
                reg.label,
                reg.login_ms,
                now
            ])
        })
        .ctx("re-registering the session", busy_ms)?;
    }
    Ok(())
}

pub(crate) fn unregister(conn: &Connection, id: u64, busy_ms: u64) -> Result<()> {
    conn.prepare_cached("DELETE FROM sessions WHERE id = ?1")
        .and_then(|mut s| s.execute([id as i64]))
        .ctx("unregistering the session", busy_ms)?;
    Ok(())
}

pub(crate) fn list(conn: &Connection, busy_ms: u64) -> Result<Vec<SessionRecord>> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT id, pid, start, host, view, read_only, label, login_ms, moved_ms \
             FROM sessions ORDER BY id",
        )
        .ctx("listing sessions", busy_ms)?;
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, bool>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, i64>(7)?,
                r.get::<_, i64>(8)?,
            ))
        })
        .ctx("listing sessions", busy_ms)?;
    let mut out = Vec::new();
    for row in rows {
        let (id, pid, start, host, view, read_only, label, login_ms, moved_ms) =
            row.ctx("listing sessions", busy_ms)?;
        let (Ok(id), Ok(pid), Ok(start), Ok(view)) = (
            u64::try_from(id),
            u32::try_from(pid),
            u64::try_from(start),
            u64::try_from(view),
        ) else {
            return Err(StoreError::Corrupt {
                detail: format!("session row {id} has out-of-range fields"),
            });
        };
        let alive = ProcessId { pid, start, host }.liveness() != Liveness::Dead;
        out.push(SessionRecord {
            id,
            pid,
            view,
            read_only,
            label,
            login_ms,
            moved_ms,
            alive,
        });
    }
    Ok(out)
}

/// Delete the rows of sessions whose process is gone; answer how many.
pub(crate) fn reap_dead(conn: &Connection, busy_ms: u64) -> Result<usize> {
    let dead: Vec<u64> = list(conn, busy_ms)?
        .into_iter()
        .filter(|s| !s.alive)
        .map(|s| s.id)
        .collect();
    for id in &dead {
        unregister(conn, *id, busy_ms)?;
    }
    Ok(dead.len())
}

/// The smallest view any registered session holds.
pub(crate) fn min_view(conn: &Connection, busy_ms: u64) -> Result<Option<u64>> {
    let v: Option<i64> = conn
        .prepare_cached("SELECT min(view) FROM sessions")
        .and_then(|mut s| s.query_row([], |r| r.get(0)))
        .ctx("reading the oldest live view", busy_ms)?;
    Ok(v.map(|v| v.max(0) as u64))
}
