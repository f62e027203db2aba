//! A repository file as a whole: creating and opening it, logging in, and the
//! questions any thread may ask about it (latest commit, how far behind a view is,
//! who is logged in, how big it is).
//!
//! This module owns the identification of the file at open (cheap: no scan), the
//! shared connection used for repository-wide queries, and login. It must not read
//! or write objects; a [`StoreSession`] does that on its own connection.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Result, SqlContext, StoreError};
use crate::liveness::ProcessId;
use crate::schema::{self, LAST_COMMIT, NEXT_OOP, PRUNED_THROUGH};
use crate::session::{LoginOptions, StoreSession};
use crate::shared::Shared;
use crate::{registry, SessionRecord, FIRST_ALLOCATED_OOP};

/// How the repository is opened.
#[derive(Debug, Clone)]
pub struct RepositoryOptions {
    /// How long a transaction waits for another session's write lock before the
    /// operation fails with [`StoreError::Busy`].
    pub busy_timeout: Duration,
}

impl Default for RepositoryOptions {
    fn default() -> Self {
        RepositoryOptions {
            busy_timeout: Duration::from_secs(10),
        }
    }
}

/// An open repository file. Cheap to clone; every clone shares one connection for
/// repository-wide queries. Each login opens its own connection.
#[derive(Clone)]
pub struct Repository {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Repository {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repository")
            .field("path", &self.shared.path)
            .finish()
    }
}

/// Repository-wide figures, as `gsmcp-store info` prints them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statistics {
    /// The newest commit's number.
    pub latest_commit: u64,
    /// The next OOP a block of allocation would start at.
    pub next_oop: u64,
    /// Commits at or below this number have been pruned (their write lists are
    /// gone; their surviving versions remain).
    pub pruned_through: u64,
    /// Objects that exist as of the latest commit.
    pub live_objects: u64,
    /// Stored versions, including old ones prune has not yet removed and tombstones.
    pub versions: u64,
    /// Commit rows still kept (those above the oldest live view at the last prune).
    pub commit_rows: u64,
    /// Logins registered now.
    pub sessions: u64,
    /// Size of the database file plus its WAL.
    pub file_bytes: u64,
}

/// What [`Repository::compact`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compaction {
    /// What the prune that compaction starts with removed.
    pub pruned: crate::PruneReport,
    /// The file was rewritten to give pages back on its own from now on.
    pub converted: bool,
    /// The database file plus its WAL, before and after.
    pub bytes_before: u64,
    /// The same, after.
    pub bytes_after: u64,
}

impl Repository {
    /// Create a new, empty repository at `path`. Fails if anything exists there.
    pub fn create(path: impl AsRef<Path>) -> Result<Repository> {
        Repository::create_with(path, &RepositoryOptions::default())
    }

    /// [`Repository::create`] with `options`.
    pub fn create_with(path: impl AsRef<Path>, options: &RepositoryOptions) -> Result<Repository> {
        let path = path.as_ref();
        // create_new makes "does it exist?" and "make it" one atomic step, so two
        // processes creating the same path cannot both succeed.
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(StoreError::AlreadyExists {
                    path: path.to_path_buf(),
                })
            }
            Err(source) => {
                return Err(StoreError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        }
        let busy_ms = options.busy_timeout.as_millis() as u64;
        let made = (|| {
            let mut conn = schema::connect(path, options.busy_timeout)?;
            schema::choose_incremental_vacuum(&conn, busy_ms)?;
            schema::configure(&conn, path, busy_ms)?;
            schema::initialise(&mut conn, busy_ms, FIRST_ALLOCATED_OOP)?;
            Ok::<_, StoreError>(conn)
        })();
        match made {
            Ok(conn) => Ok(Repository::from_conn(path, options, conn)),
            Err(e) => {
                // Leave no half-made repository behind: a later open would call
                // it "not a repository" and a later create would refuse the path.
                for suffix in ["", "-wal", "-shm"] {
                    let mut p = path.as_os_str().to_owned();
                    p.push(suffix);
                    let _ = std::fs::remove_file(PathBuf::from(p));
                }
                Err(e)
            }
        }
    }

    /// Open an existing repository. Cheap: identifies the file and checks its
    /// format, never scans it.
    pub fn open(path: impl AsRef<Path>) -> Result<Repository> {
        Repository::open_with(path, &RepositoryOptions::default())
    }

    /// [`Repository::open`] with `options`.
    pub fn open_with(path: impl AsRef<Path>, options: &RepositoryOptions) -> Result<Repository> {
        let path = path.as_ref();
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                return Err(StoreError::NotARepository {
                    path: path.to_path_buf(),
                    reason: "it is not a regular file".to_string(),
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::NotFound {
                    path: path.to_path_buf(),
                })
            }
            Err(source) => {
                return Err(StoreError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        }
        let busy_ms = options.busy_timeout.as_millis() as u64;
        let conn = schema::connect(path, options.busy_timeout)?;
        schema::verify(&conn, path, busy_ms)?;
        schema::configure(&conn, path, busy_ms)?;
        Ok(Repository::from_conn(path, options, conn))
    }

    /// Open the repository at `path`, creating an empty one if nothing is there.
    pub fn open_or_create(path: impl AsRef<Path>) -> Result<Repository> {
        Repository::open_or_create_with(path, &RepositoryOptions::default())
    }

    /// [`Repository::open_or_create`] with `options`.
    pub fn open_or_create_with(
        path: impl AsRef<Path>,
        options: &RepositoryOptions,
    ) -> Result<Repository> {
        let path = path.as_ref();
        match Repository::open_with(path, options) {
            Err(StoreError::NotFound { .. }) => match Repository::create_with(path, options) {
                // Another process created it between our two steps; it may still
                // be laying out the tables.
                Err(StoreError::AlreadyExists { .. }) => {
                    Repository::open_when_created(path, options)
                }
                other => other,
            },
            Err(StoreError::Uninitialised { .. }) => Repository::open_when_created(path, options),
            other => other,
        }
    }

    /// Open a file another process is creating: retry while it is still empty, for
    /// at most the busy timeout.
    fn open_when_created(path: &Path, options: &RepositoryOptions) -> Result<Repository> {
        let deadline = std::time::Instant::now() + options.busy_timeout;
        loop {
            match Repository::open_with(path, options) {
                Err(StoreError::Uninitialised { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                other => return other,
            }
        }
    }

    fn from_conn(path: &Path, options: &RepositoryOptions, conn: Connection) -> Repository {
        Repository {
            shared: Arc::new(Shared::new(path.to_path_buf(), options.busy_timeout, conn)),
        }
    }

    /// The repository file's path.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// The number of the newest commit (0 for a repository never committed to).
    pub fn latest_commit(&self) -> Result<u64> {
        self.shared.latest_commit()
    }

    /// How many commits a session holding `view` would see by moving its view now.
    pub fn commits_behind(&self, view: u64) -> Result<u64> {
        Ok(self.latest_commit()?.saturating_sub(view))
    }

    /// Log in: open a connection, take the latest commit as the view and register
    /// it, so no prune removes what the view can read.
    pub fn login(&self, options: LoginOptions) -> Result<StoreSession> {
        if options.oop_block == 0 {
            return Err(StoreError::InvalidArgument(
                "the OOP block size must be at least 1".into(),
            ));
        }
        let shared = Arc::clone(&self.shared);
        let mut conn = shared.connect()?;
        let busy_ms = shared.busy_ms;
        // One write transaction for "read latest" and "register it": prune takes
        // the same lock to compute its bound, so it can never miss this view.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx("starting the login transaction", busy_ms)?;
        if let Some(spend) = options.spend {
            schema::spend_ticket(&tx, &spend.nonce, spend.expires, busy_ms)?;
        }
        let view = schema::counter(&tx, LAST_COMMIT, busy_ms)?;
        let reg = registry::register(
            &tx,
            ProcessId::current(),
            view,
            options.read_only,
            &options.label,
            busy_ms,
        )?;
        tx.commit().ctx("committing the login", busy_ms)?;
        Ok(StoreSession::new(shared, conn, reg, view, &options))
    }

    /// Every registered login, with whether its process is still alive.
    pub fn sessions(&self) -> Result<Vec<SessionRecord>> {
        self.shared
            .with_conn(|c| registry::list(c, self.shared.busy_ms))
    }

    /// Remove a registry row by hand: for a session whose process cannot be checked
    /// from here (another pid namespace) and is known to be gone. Answers whether
    /// the row existed. Never use it on a live session: prune would then drop
    /// versions its view still reads.
    pub fn forget_session(&self, id: u64) -> Result<bool> {
        let busy_ms = self.shared.busy_ms;
        self.shared.with_conn(|c| {
            let n = c
                .execute("DELETE FROM sessions WHERE id = ?1", [id as i64])
                .ctx("forgetting a session", busy_ms)?;
            Ok(n > 0)
        })
    }

    /// Drop every version no live view can read (see `prune`). Safe while other
    /// sessions and processes work; it takes the write lock in short batches.
    pub fn prune(&self) -> Result<crate::PruneReport> {
        let mut conn = self.shared.connect()?;
        crate::prune::prune(&mut conn, self.shared.busy_ms)
    }

    /// Figures about the whole file. Counts objects and versions, so this one
    /// scans; nothing on a session's path calls it.
    pub fn statistics(&self) -> Result<Statistics> {
        let busy_ms = self.shared.busy_ms;
        let mut stats = self.shared.with_conn(|c| {
            let tx = c.transaction().ctx("starting a statistics read", busy_ms)?;
            let count = |sql: &str| -> Result<u64> {
                let n: i64 = tx
                    .query_row(sql, [], |r| r.get(0))
                    .ctx("counting", busy_ms)?;
                Ok(n.max(0) as u64)
            };
            let latest = schema::counter(&tx, LAST_COMMIT, busy_ms)?;
            Ok(Statistics {
                latest_commit: latest,
                next_oop: schema::counter(&tx, NEXT_OOP, busy_ms)?,
                pruned_through: schema::counter(&tx, PRUNED_THROUGH, busy_ms)?,
                live_objects: count(
                    "SELECT count(*) FROM objects o WHERE data IS NOT NULL AND NOT EXISTS \
                     (SELECT 1 FROM objects n WHERE n.oop = o.oop AND n.version > o.version)",
                )?,
                versions: count("SELECT count(*) FROM objects")?,
                commit_rows: count("SELECT count(*) FROM commits")?,
                sessions: count("SELECT count(*) FROM sessions")?,
                file_bytes: 0,
            })
        })?;
        stats.file_bytes = self.file_bytes();
        Ok(stats)
    }

    /// Size of the database file plus its WAL.
    fn file_bytes(&self) -> u64 {
        ["", "-wal"]
            .iter()
            .map(|suffix| {
                let mut p = self.shared.path.as_os_str().to_owned();
                p.push(suffix);
                std::fs::metadata(PathBuf::from(p)).map_or(0, |m| m.len())
            })
            .sum()
    }

    /// Prunes whole, then gives every free page back to the file system (a
    /// file made before repositories chose incremental vacuum is rewritten
    /// once, and shrinks on its own afterwards). Safe while others work; the
    /// rewrite holds the write lock while it runs.
    pub fn compact(&self) -> Result<Compaction> {
        let bytes_before = self.file_bytes();
        let pruned = self.prune()?;
        let conn = self.shared.connect()?;
        let converted = crate::prune::compact(&conn, self.shared.busy_ms)?;
        drop(conn);
        Ok(Compaction {
            pruned,
            converted,
            bytes_before,
            bytes_after: self.file_bytes(),
        })
    }

    /// SQLite's own structural check of the file; answers the problems found.
    pub fn integrity_check(&self) -> Result<Vec<String>> {
        let busy_ms = self.shared.busy_ms;
        self.shared.with_conn(|c| {
            let mut stmt = c
                .prepare("PRAGMA integrity_check")
                .ctx("checking integrity", busy_ms)?;
            let rows = stmt
                .query_map([], |r| r.get::<_, String>(0))
                .ctx("checking integrity", busy_ms)?;
            let mut problems = Vec::new();
            for row in rows {
                let line = row.ctx("checking integrity", busy_ms)?;
                if line != "ok" {
                    problems.push(line);
                }
            }
            Ok(problems)
        })
    }
}
