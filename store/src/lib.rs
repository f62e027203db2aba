//! gsmcp-store: the repository file of the embedded stone.
//!
//! A repository is one SQLite file (WAL mode) holding every persistent object by
//! OOP, once per version: the commit that wrote it. A login ([`StoreSession`])
//! takes a view (a commit number) and reads the newest version of each object at
//! or below it, so it sees one consistent snapshot until it moves the view with
//! `abort`, `continue_view` or `commit`. Each move answers the [`ChangedSet`]
//! between the old and the new view, so the layer above refreshes only what
//! changed. `commit` is atomic and durable (the WAL is fsynced before it
//! answers) and fails on a write-write conflict with any commit since the view,
//! after which the session refuses commits until it aborts, as GemStone does.
//! Many sessions in many OS processes share one file; SQLite's locking
//! serialises commits.
//!
//! Object contents are opaque bytes here: the Smalltalk layer owns their encoding
//! and decides which OOPs are well-known roots (1..=1023, never handed out by
//! [`StoreSession::allocate_oop`]). This crate must not know Smalltalk, must not do
//! network I/O and has no async runtime.
//!
//! ```
//! use gsmcp_store::{LoginOptions, Repository, StoreError};
//! # let dir = std::env::temp_dir().join(format!("gsmcp-store-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let repo = Repository::open_or_create(dir.join("repo.db"))?;
//! let mut alice = repo.login(LoginOptions::new().label("alice"))?;
//! let mut bob = repo.login(LoginOptions::new().label("bob"))?;
//!
//! let obj = alice.allocate_oop()?;
//! alice.commit([(1, Some(b"root".to_vec())), (obj, Some(b"child".to_vec()))])?;
//! assert_eq!(bob.read(obj)?, None); // bob's view predates the commit
//!
//! let changed = bob.abort()?; // discard, move to the latest commit
//! assert_eq!(changed.oops(), &[1, obj]);
//! assert_eq!(bob.read(obj)?.as_deref(), Some(&b"child"[..]));
//!
//! alice.commit([(1, Some(b"alice's root".to_vec()))])?;
//! match bob.commit([(1, Some(b"bob's root".to_vec()))]) {
//!     Err(StoreError::Conflict { oops }) => assert_eq!(oops, vec![1]),
//!     other => panic!("expected a conflict, got {other:?}"),
//! }
//! assert!(matches!(bob.continue_view(), Err(StoreError::CommitRefused)));
//! bob.abort()?;
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), StoreError>(())
//! ```
//!
//! Code map: [`repository`] opens/creates the file and answers repository-wide
//! questions; [`session`] is a login's view, reads, OOP allocation and the
//! transaction state machine; `prune` drops versions no live view can read
//! (a bounded batch after commits, and whole on demand); `collect` is the
//! garbage collection's store half (the caller marks);
//! `registry` is the table of live views; `schema` is the file layout;
//! `changes` encodes write lists and builds changed sets; `liveness` tells
//! whether a registered process still exists.

#![warn(missing_docs)]

mod changes;
mod collect;
mod error;
mod keys;
mod liveness;
mod prune;
mod registry;
pub mod repository;
mod schema;
pub mod session;
mod shared;
mod versions;

pub use changes::ChangedSet;
pub use collect::{Collection, References, COLLECT_AFTER};
pub use error::{Result, StoreError};
pub use prune::PruneReport;
pub use registry::SessionRecord;
pub use repository::{Compaction, Repository, RepositoryOptions, Statistics};
pub use schema::FORMAT_VERSION;
pub use session::{Committed, LoginOptions, StoreSession, ViewWatch};

/// OOPs reserved for the well-known roots the layer above assigns itself.
/// [`StoreSession::allocate_oop`] never answers one of these.
pub const RESERVED_OOPS: std::ops::RangeInclusive<u64> = 1..=1023;

/// The first OOP handed out by allocation.
pub const FIRST_ALLOCATED_OOP: u64 = 1024;

/// The largest OOP the file can hold (SQLite integers are signed 64-bit).
pub const MAX_OOP: u64 = i64::MAX as u64;

/// Default number of OOPs a session reserves at a time.
pub const DEFAULT_OOP_BLOCK: u64 = 4096;

/// Milliseconds since the Unix epoch, for the informational time columns.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Reject OOP 0 and OOPs beyond what the file can hold.
pub(crate) fn check_oop(oop: u64) -> Result<()> {
    if oop == 0 {
        return Err(StoreError::InvalidOop {
            oop,
            reason: "OOP 0 is not an object",
        });
    }
    if oop > MAX_OOP {
        return Err(StoreError::InvalidOop {
            oop,
            reason: "beyond the largest OOP a repository holds",
        });
    }
    Ok(())
}
