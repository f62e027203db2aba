//! The repository file's layout: tables, format version, and how a connection to
//! it is opened and configured.
//!
//! This module owns every `CREATE` statement, the identification of a file as a
//! repository (SQLite `application_id` plus the `meta.format_version` row), and
//! the per-connection settings (WAL, busy timeout, synchronous level). It must not
//! implement transactions on objects; those live in `session` and `prune`.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::error::{sqlite, Result, SqlContext, StoreError};

/// The format this build writes and the newest it reads.
pub const FORMAT_VERSION: i64 = 1;

/// `PRAGMA application_id` of a repository file: "GSMS".
pub(crate) const APPLICATION_ID: i32 = 0x4753_4D53;

/// Names of the rows in `counters`.
pub(crate) const LAST_COMMIT: &str = "last_commit";
pub(crate) const NEXT_OOP: &str = "next_oop";
pub(crate) const PRUNED_THROUGH: &str = "pruned_through";
/// Counters of the garbage collection (`collect`). A file made before they
/// existed has none of these rows; a missing one reads as 0 ([`counter_or_zero`]).
pub(crate) const LAST_COLLECTION: &str = "last_collection";
pub(crate) const WRITTEN_SINCE_COLLECTION: &str = "written_since_collection";
pub(crate) const LIVE_AT_COLLECTION: &str = "live_at_collection";
pub(crate) const COLLECTING_SINCE_MS: &str = "collecting_since_ms";

/// The schema of format 1.
///
/// `objects` keeps one row per version of an object; `data` NULL is a tombstone
/// (the object was deleted by that commit). Object rows are a rowid table with a
/// separate `(oop, version)` index rather than a WITHOUT ROWID table because the
/// payloads (hundreds of bytes to kilobytes) would otherwise be copied into the
/// interior pages of the key b-tree and ruin its fan-out.
///
/// `commits` records every commit's sorted write list; it is what a view move
/// reads to answer "what changed", and what the write-write conflict check
/// intersects with. Rows at or below the oldest live view are dropped by prune.
///
/// `sessions` is the registry of live views: prune keeps every version some live
/// view may still read, and reaps rows whose process has died.
const SCHEMA: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value
) WITHOUT ROWID;
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE objects (
    id      INTEGER PRIMARY KEY,
    oop     INTEGER NOT NULL,
    version INTEGER NOT NULL,
    data    BLOB
);
CREATE UNIQUE INDEX objects_by_oop ON objects (oop, version);
CREATE TABLE commits (
    number  INTEGER PRIMARY KEY,
    time_ms INTEGER NOT NULL,
    session INTEGER NOT NULL,
    count   INTEGER NOT NULL,
    writes  BLOB NOT NULL
);
CREATE TABLE sessions (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    pid       INTEGER NOT NULL,
    start     INTEGER NOT NULL,
    host      TEXT NOT NULL,
    view      INTEGER NOT NULL,
    read_only INTEGER NOT NULL,
    label     TEXT NOT NULL,
    login_ms  INTEGER NOT NULL,
    moved_ms  INTEGER NOT NULL
);
";

/// Durability level of the next transactions on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sync {
    /// Commit fsyncs the WAL, and a commit that grows the WAL past 1000 pages
    /// checkpoints it: what a Smalltalk commit needs, and who should pay for
    /// checkpoints.
    Full,
    /// No fsync at commit, never a checkpoint. Used for bookkeeping (view
    /// registry, OOP blocks) whose loss on power failure is harmless (a later
    /// `Full` commit's fsync covers the earlier WAL frames anyway), so logins and
    /// view moves stay cheap and predictable.
    Normal,
}

pub(crate) fn set_sync(conn: &Connection, level: Sync, busy_ms: u64) -> Result<()> {
    let sql = match level {
        Sync::Full => "PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 1000;",
        Sync::Normal => "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;",
    };
    conn.execute_batch(sql)
        .ctx("setting the synchronous level", busy_ms)
}

/// Open a connection to an existing file. Does not configure or verify it: a
/// foreign file must not be switched to WAL before [`verify`] has said it is ours.
pub(crate) fn connect(path: &Path, busy_timeout: Duration) -> Result<Connection> {
    let busy_ms = busy_timeout.as_millis() as u64;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn =
        Connection::open_with_flags(path, flags).map_err(|e| classify_open(path, e, busy_ms))?;
    conn.busy_timeout(busy_timeout)
        .ctx("setting the busy timeout", busy_ms)?;
    conn.set_prepared_statement_cache_capacity(32);
    Ok(conn)
}

/// Chooses incremental vacuum for a brand-new, empty file: pages prune frees
/// go back to the file system a bounded number at a time (`prune`,
/// `incremental_vacuum`). Only possible before the file's first page is
/// written, so before [`configure`] puts it in WAL mode.
pub(crate) fn choose_incremental_vacuum(conn: &Connection, busy_ms: u64) -> Result<()> {
    conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL")
        .ctx("choosing incremental vacuum", busy_ms)
}

/// What a checkpoint leaves of a WAL that grew beyond it (16 MiB).
const WAL_SIZE_LIMIT: &str = "PRAGMA journal_size_limit = 16777216";

/// Put a connection to a verified repository in WAL mode with bookkeeping-level
/// durability (commits raise it to `Full` for their own transaction).
pub(crate) fn configure(conn: &Connection, path: &Path, busy_ms: u64) -> Result<()> {
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(|e| classify_open(path, e, busy_ms))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::NotARepository {
            path: path.to_path_buf(),
            reason: format!("cannot switch the file to WAL mode (it stays in {mode} mode)"),
        });
    }
    keep_wal_file(conn);
    // A checkpoint that empties the WAL cuts it back to this size: a WAL
    // grown by large commits (while a long scan held a reader, say) would
    // otherwise stay that size on disk for good.
    conn.execute_batch(WAL_SIZE_LIMIT)
        .ctx("limiting the WAL size", busy_ms)?;
    set_sync(conn, Sync::Normal, busy_ms)
}

/// Keeps the WAL file when the last connection closes (SQLite's persistent
/// WAL): the closer still checkpoints it, but the next opener finds it instead
/// of creating it, which cost every login of an otherwise idle repository two
/// fsyncs (the new file and its directory). Crash safety is unchanged: a
/// checkpointed WAL holds nothing the database file lacks.
fn keep_wal_file(conn: &Connection) {
    let mut on: std::os::raw::c_int = 1;
    // SAFETY: the handle is this open connection's; SQLITE_FCNTL_PERSIST_WAL
    // reads and writes one int through the pointer, which outlives the call.
    // Its only failure (a VFS without the control) leaves the default, which
    // is correct, only slower.
    unsafe {
        rusqlite::ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            rusqlite::ffi::SQLITE_FCNTL_PERSIST_WAL,
            (&mut on as *mut std::os::raw::c_int).cast(),
        );
    }
}

/// Check that an open file is a repository in a format this build reads.
pub(crate) fn verify(conn: &Connection, path: &Path, busy_ms: u64) -> Result<()> {
    // One read transaction, so a creation committing between two of the reads
    // cannot make the file look half-made.
    let tx = conn
        .unchecked_transaction()
        .map_err(|e| classify_open(path, e, busy_ms))?;
    verify_in(&tx, path, busy_ms)?;
    tx.commit().map_err(|e| classify_open(path, e, busy_ms))
}

fn verify_in(conn: &Connection, path: &Path, busy_ms: u64) -> Result<()> {
    let not_repo = |reason: String| StoreError::NotARepository {
        path: path.to_path_buf(),
        reason,
    };
    let app_id: i32 = conn
        .pragma_query_value(None, "application_id", |row| row.get(0))
        .map_err(|e| classify_open(path, e, busy_ms))?;
    if app_id != APPLICATION_ID {
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
            .map_err(|e| classify_open(path, e, busy_ms))?;
        if app_id == 0 && tables == 0 {
            return Err(StoreError::Uninitialised {
                path: path.to_path_buf(),
            });
        }
        return Err(not_repo(format!(
            "it is a SQLite database of another application (application_id {app_id:#x})"
        )));
    }
    let format: Option<i64> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'format_version'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(|e| match e {
            rusqlite::Error::SqliteFailure(..) => {
                not_repo(format!("its meta table is missing or unreadable ({e})"))
            }
            other => not_repo(format!("its format version is not an integer ({other})")),
        })?;
    match format {
        None => Err(not_repo("it has no format version".to_string())),
        Some(found) if found != FORMAT_VERSION => Err(StoreError::UnsupportedFormat {
            found,
            supported: FORMAT_VERSION,
        }),
        Some(_) => Ok(()),
    }
}

/// Lay out a new, empty repository in `conn` (a freshly created empty file).
pub(crate) fn initialise(conn: &mut Connection, busy_ms: u64, first_oop: u64) -> Result<()> {
    let tx = conn
        .transaction()
        .ctx("starting the creation transaction", busy_ms)?;
    tx.execute_batch(SCHEMA)
        .ctx("creating the tables", busy_ms)?;
    tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))
        .ctx("setting the application id", busy_ms)?;
    let now = crate::now_ms();
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('format_version', ?1), ('created_ms', ?2), \
         ('created_by', ?3)",
        rusqlite::params![
            FORMAT_VERSION,
            now,
            concat!("gsmcp-store ", env!("CARGO_PKG_VERSION"))
        ],
    )
    .ctx("writing the meta rows", busy_ms)?;
    tx.execute(
        "INSERT INTO counters (name, value) VALUES (?1, 0), (?2, ?3), (?4, 0)",
        rusqlite::params![LAST_COMMIT, NEXT_OOP, first_oop as i64, PRUNED_THROUGH],
    )
    .ctx("writing the counters", busy_ms)?;
    tx.commit().ctx("committing the new repository", busy_ms)
}

/// The table of spent single-use login credentials, made on first use so a
/// file of format 1 written before it existed needs no migration.
const SPENT_TICKETS: &str = "
CREATE TABLE IF NOT EXISTS spent_tickets (
    nonce   BLOB PRIMARY KEY,
    expires INTEGER NOT NULL
) WITHOUT ROWID;
";

/// Records `nonce` as spent until `expires` (Unix seconds), in the caller's
/// write transaction, after dropping the records that have expired; a nonce
/// already recorded is [`StoreError::TicketSpent`].
pub(crate) fn spend_ticket(
    conn: &Connection,
    nonce: &[u8],
    expires: u64,
    busy_ms: u64,
) -> Result<()> {
    conn.execute_batch(SPENT_TICKETS)
        .ctx("making the spent-ticket table", busy_ms)?;
    let now = (crate::now_ms() / 1000).max(0);
    conn.execute("DELETE FROM spent_tickets WHERE expires < ?1", [now])
        .ctx("dropping expired tickets", busy_ms)?;
    let expires = i64::try_from(expires).unwrap_or(i64::MAX);
    match conn.execute(
        "INSERT INTO spent_tickets (nonce, expires) VALUES (?1, ?2)",
        rusqlite::params![nonce, expires],
    ) {
        Ok(_) => Ok(()),
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
        {
            Err(StoreError::TicketSpent)
        }
        Err(e) => Err(e).ctx("spending a login ticket", busy_ms),
    }
}

/// Read one counter.
pub(crate) fn counter(conn: &Connection, name: &str, busy_ms: u64) -> Result<u64> {
    optional_counter(conn, name, busy_ms)?.ok_or_else(|| StoreError::Corrupt {
        detail: format!("counter {name} is missing"),
    })
}

/// Read one counter a file may lack (one added after format 1 was fixed):
/// a missing row is 0.
pub(crate) fn counter_or_zero(conn: &Connection, name: &str, busy_ms: u64) -> Result<u64> {
    Ok(optional_counter(conn, name, busy_ms)?.unwrap_or(0))
}

pub(crate) fn optional_counter(conn: &Connection, name: &str, busy_ms: u64) -> Result<Option<u64>> {
    let value: Option<i64> = conn
        .prepare_cached("SELECT value FROM counters WHERE name = ?1")
        .and_then(|mut s| s.query_row([name], |r| r.get(0)).optional())
        .map_err(|e| match e {
            rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::FromSqlConversionFailure(..) => StoreError::Corrupt {
                detail: format!("counter {name} is not an integer"),
            },
            other => sqlite("reading a counter", busy_ms, other),
        })?;
    value
        .map(|v| {
            u64::try_from(v).map_err(|_| StoreError::Corrupt {
                detail: format!("counter {name} is negative"),
            })
        })
        .transpose()
}

/// Set one counter, adding its row when the file lacks it.
pub(crate) fn put_counter(conn: &Connection, name: &str, value: u64, busy_ms: u64) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO counters (name, value) VALUES (?1, ?2) \
         ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    )
    .and_then(|mut s| s.execute(rusqlite::params![name, value as i64]))
    .ctx("updating a counter", busy_ms)?;
    Ok(())
}

/// Set one counter.
pub(crate) fn set_counter(conn: &Connection, name: &str, value: u64, busy_ms: u64) -> Result<()> {
    conn.prepare_cached("UPDATE counters SET value = ?2 WHERE name = ?1")
        .and_then(|mut s| s.execute(rusqlite::params![name, value as i64]))
        .ctx("updating a counter", busy_ms)?;
    Ok(())
}

/// Errors while opening or identifying a file: "not a database" means the file is
/// not ours, whatever SQLite calls it.
fn classify_open(path: &Path, err: rusqlite::Error, busy_ms: u64) -> StoreError {
    if let rusqlite::Error::SqliteFailure(code, _) = &err {
        if code.code == rusqlite::ErrorCode::NotADatabase {
            return StoreError::NotARepository {
                path: path.to_path_buf(),
                reason: "it is not a SQLite database".to_string(),
            };
        }
    }
    sqlite("opening the repository file", busy_ms, err)
}
