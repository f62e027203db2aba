//! The store's error type: every way a repository operation can fail, as a value.
//!
//! This module owns the mapping from SQLite's result codes to the store's own
//! vocabulary (busy, corrupt, not a repository, disk full). It must not leak
//! SQLite-specific meaning to callers beyond the `source` chain: the upper layer
//! matches on these variants, never on SQLite codes.

use std::path::PathBuf;

use rusqlite::ErrorCode;

/// Result alias used throughout the crate.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Everything that can go wrong in the repository layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// `open` was given a path that does not exist.
    #[error("repository file {path} does not exist")]
    NotFound {
        /// The path given.
        path: PathBuf,
    },

    /// `create` was given a path that already exists.
    #[error("cannot create repository {path}: a file already exists there")]
    AlreadyExists {
        /// The path given.
        path: PathBuf,
    },

    /// The file exists but is not a repository of this kind (garbage, another
    /// application's SQLite database, or a file whose creation never finished).
    #[error("{path} is not a gsmcp repository: {reason}")]
    NotARepository {
        /// The file.
        path: PathBuf,
        /// What about it is not a repository.
        reason: String,
    },

    /// The file is empty: another process is creating the repository right now,
    /// or a creation was interrupted. (`open_or_create` waits for a concurrent
    /// creation to finish.)
    #[error("{path} is an empty file, not yet a repository (is it being created, or was its creation interrupted?)")]
    Uninitialised {
        /// The file.
        path: PathBuf,
    },

    /// The repository was written by a newer (or unknown) version of the store.
    #[error(
        "repository format {found} is not supported (this build reads format {supported}); \
         use a newer gsmcp"
    )]
    UnsupportedFormat {
        /// The format the file records.
        found: i64,
        /// The format this build reads.
        supported: i64,
    },

    /// The file is damaged: SQLite reported corruption, or a stored value does not
    /// decode.
    #[error("repository is corrupt: {detail}")]
    Corrupt {
        /// What was found damaged.
        detail: String,
    },

    /// Another session or process held the repository's write lock for longer than
    /// the busy timeout.
    #[error("repository is busy: another session held the write lock longer than {timeout_ms} ms")]
    Busy {
        /// How long this session waited.
        timeout_ms: u64,
    },

    /// The disk is full; nothing was written.
    #[error("disk full while writing the repository")]
    DiskFull,

    /// A write-write conflict: a commit since this session's view wrote some of
    /// the same objects. The session now refuses commits until `abort`.
    #[error("commit conflict: {} object(s) were written by another session since this view (first: {})",
        oops.len(), oops.first().copied().unwrap_or_default())]
    Conflict {
        /// The conflicting OOPs, sorted ascending.
        oops: Vec<u64>,
    },

    /// A garbage collection committed since this session's view deleted
    /// objects the session may still hold; nothing was written and the
    /// session may commit again. The caller makes the objects named here that
    /// it holds into new objects (anything it commits referring to them then
    /// stores them afresh), calls `acknowledge_collections(through)`, and
    /// retries.
    #[error("commit not made: a garbage collection since this view deleted {} object(s) the session may still hold", oops.len())]
    Collected {
        /// The collected OOPs, ascending.
        oops: Vec<u64>,
        /// The latest commit when the commit was tried.
        through: u64,
    },

    /// A previous commit failed with a conflict; commits and continue are refused
    /// until the session aborts (GemStone's TransactionError 2409).
    #[error("commit refused: a previous commit failed, abort the transaction first")]
    CommitRefused,

    /// The session was logged in read-only (a user without commit privilege).
    #[error("commit refused: this session is read-only")]
    ReadOnly,

    /// An OOP outside the valid range, or one that was never allocated.
    #[error("invalid OOP {oop}: {reason}")]
    InvalidOop {
        /// The OOP.
        oop: u64,
        /// Why it is not valid.
        reason: &'static str,
    },

    /// A single-use login credential was presented a second time
    /// ([`crate::LoginOptions::spend_ticket`]); nothing was logged in.
    #[error("login refused: this one-time login credential was already used")]
    TicketSpent,

    /// An argument the caller passed cannot work (e.g. a zero allocation block).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// Operating-system I/O failure outside SQLite (e.g. creating the file).
    #[error("I/O error on {path}")]
    Io {
        /// The file being worked on.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// Any other SQLite failure, with what the store was doing at the time.
    #[error("repository operation failed while {context}")]
    Sqlite {
        /// What the store was doing.
        context: &'static str,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
}

impl StoreError {
    /// Whether the error is a write-write conflict.
    pub fn is_conflict(&self) -> bool {
        matches!(self, StoreError::Conflict { .. })
    }

    /// GemStone's error number for the same condition, where one exists
    /// (2409: TransactionError after a failed commit).
    pub fn gemstone_error_number(&self) -> Option<u32> {
        match self {
            StoreError::CommitRefused => Some(2409),
            _ => None,
        }
    }
}

/// Classify a SQLite error raised while doing `context`.
pub(crate) fn sqlite(
    context: &'static str,
    busy_timeout_ms: u64,
    err: rusqlite::Error,
) -> StoreError {
    if let rusqlite::Error::SqliteFailure(code, msg) = &err {
        match code.code {
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                return StoreError::Busy {
                    timeout_ms: busy_timeout_ms,
                }
            }
            ErrorCode::DatabaseCorrupt => {
                return StoreError::Corrupt {
                    detail: msg.clone().unwrap_or_else(|| format!("{context}: {err}")),
                }
            }
            ErrorCode::DiskFull => return StoreError::DiskFull,
            _ => {}
        }
    }
    StoreError::Sqlite {
        context,
        source: err,
    }
}

/// Extension to attach a context to rusqlite results in one call.
pub(crate) trait SqlContext<T> {
    fn ctx(self, context: &'static str, busy_timeout_ms: u64) -> Result<T>;
}

impl<T> SqlContext<T> for std::result::Result<T, rusqlite::Error> {
    fn ctx(self, context: &'static str, busy_timeout_ms: u64) -> Result<T> {
        self.map_err(|e| sqlite(context, busy_timeout_ms, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: i32) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None)
    }

    #[test]
    fn sqlite_codes_map_to_store_vocabulary() {
        let table: &[(i32, &str)] = &[
            (rusqlite::ffi::SQLITE_BUSY, "Busy"),
            (rusqlite::ffi::SQLITE_LOCKED, "Busy"),
            (rusqlite::ffi::SQLITE_CORRUPT, "Corrupt"),
            (rusqlite::ffi::SQLITE_FULL, "DiskFull"),
            (rusqlite::ffi::SQLITE_IOERR, "Sqlite"),
        ];
        for (code, want) in table {
            let got = sqlite("testing", 5, failure(*code));
            let name = format!("{got:?}");
            assert!(
                name.starts_with(want),
                "code {code}: got {name}, want {want}"
            );
        }
    }

    #[test]
    fn refused_carries_gemstone_number() {
        assert_eq!(
            StoreError::CommitRefused.gemstone_error_number(),
            Some(2409)
        );
        assert_eq!(StoreError::ReadOnly.gemstone_error_number(), None);
    }
}
