//! What a repository and every session and watch made from it share: the
//! file's path, the lock timeout, and one connection for short
//! repository-wide queries.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::Connection;

use crate::error::Result;
use crate::schema::{self, LAST_COMMIT};

/// State shared by a repository and every session and watch made from it.
pub(crate) struct Shared {
    pub path: PathBuf,
    pub busy_timeout: Duration,
    pub busy_ms: u64,
    /// For short repository-wide queries (latest commit, registry listing). A
    /// mutex, not a connection per caller, because these queries take microseconds
    /// and a router thread asking "how far behind?" must not open files.
    conn: Mutex<Connection>,
}

impl Shared {
    /// What a repository at `path` opened with `conn` shares.
    pub fn new(path: PathBuf, busy_timeout: Duration, conn: Connection) -> Shared {
        Shared {
            path,
            busy_timeout,
            busy_ms: busy_timeout.as_millis() as u64,
            conn: Mutex::new(conn),
        }
    }

    pub fn with_conn<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        // A panic elsewhere while holding the lock cannot leave the connection
        // half-changed (every use is a whole statement or transaction), so a
        // poisoned lock is still usable.
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    pub fn latest_commit(&self) -> Result<u64> {
        self.with_conn(|c| schema::counter(c, LAST_COMMIT, self.busy_ms))
    }

    /// A fresh, configured connection to the (already verified) file.
    pub fn connect(&self) -> Result<Connection> {
        let conn = schema::connect(&self.path, self.busy_timeout)?;
        schema::configure(&conn, &self.path, self.busy_ms)?;
        Ok(conn)
    }
}
