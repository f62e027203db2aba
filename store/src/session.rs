//! One login: its view, its reads, its OOP allocation and its transaction state.
//!
//! A [`StoreSession`] reads every object as of its view (the newest version at or
//! below the view's commit number), so it sees one snapshot however many commits
//! other sessions make. It moves the view only when asked: `abort`,
//! `continue_view`, `commit`. This module owns the commit protocol (conflict check,
//! versions, commit row, view move in one durable SQLite transaction) and the
//! GemStone rule that a session whose commit failed refuses commits and continue
//! until it aborts. It must not keep object contents: pending changes belong to
//! the caller, which hands them to `commit`.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::changes::{self, ChangedSet};
use crate::collect::{self, Collection};
use crate::error::{Result, SqlContext, StoreError};
use crate::registry::{self, Registration};
use crate::schema::{self, Sync, LAST_COMMIT, NEXT_OOP, PRUNED_THROUGH};
use crate::shared::Shared;
use crate::versions::{changes_between, read_at};
use crate::{check_oop, DEFAULT_OOP_BLOCK, FIRST_ALLOCATED_OOP, MAX_OOP};

/// How much of the file [`StoreSession::scan`] maps (256 MiB; SQLite reads
/// any part beyond it with read calls).
const SCAN_MMAP: &str = "PRAGMA mmap_size = 268435456";

/// How a session logs in.
#[derive(Debug, Clone)]
pub struct LoginOptions {
    pub(crate) read_only: bool,
    pub(crate) oop_block: u64,
    pub(crate) label: String,
    pub(crate) spend: Option<Spend>,
}

/// A single-use login credential to spend with the login: its nonce and
/// when it stops being valid (Unix seconds).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spend {
    pub(crate) nonce: [u8; 16],
    pub(crate) expires: u64,
}

impl Default for LoginOptions {
    fn default() -> Self {
        LoginOptions {
            read_only: false,
            oop_block: DEFAULT_OOP_BLOCK,
            label: String::new(),
            spend: None,
        }
    }
}

impl LoginOptions {
    /// The defaults: read-write, the default OOP block, no label.
    pub fn new() -> Self {
        LoginOptions::default()
    }

    /// A login without commit privilege: every `commit` answers
    /// [`StoreError::ReadOnly`].
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// How many OOPs to reserve from the repository at a time (default 4096). A
    /// bigger block means fewer trips to the shared counter; unused OOPs of a
    /// block are never reused.
    pub fn oop_block(mut self, size: u64) -> Self {
        self.oop_block = size;
        self
    }

    /// Free text shown in the session registry (e.g. a worker's process title).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Spend a single-use login credential with this login: its `nonce` is
    /// recorded in the repository in the login's own transaction, and a login
    /// that presents a nonce already recorded fails with
    /// [`StoreError::TicketSpent`]. The record is kept until `expires` (Unix
    /// seconds), past which the layer above refuses the credential anyway.
    pub fn spend_ticket(mut self, nonce: [u8; 16], expires: u64) -> Self {
        self.spend = Some(Spend { nonce, expires });
        self
    }
}

/// A successful commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The commit's number, now the session's view. For a commit with nothing to
    /// write no commit is recorded and this is the latest commit number.
    pub commit: u64,
    /// What *other* sessions changed between the old view and this commit: the
    /// caller refreshes these objects (its own writes it already holds).
    pub changed: ChangedSet,
    /// A garbage collection is due, and this commit claimed it: the caller
    /// should mark and call [`StoreSession::collect`] (see `collect`).
    pub collect_due: bool,
}

/// Where a session stands, GemStone-style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxState {
    Open,
    /// A commit failed; commit and continue are refused until abort (2409).
    MustAbort,
}

/// A login to a repository. Not `Sync`: one thread drives it. Use [`ViewWatch`]
/// to ask how far behind it is from another thread.
pub struct StoreSession {
    shared: Arc<Shared>,
    conn: Connection,
    reg: Registration,
    view: u64,
    /// Collections committed at or below this the caller has been told of:
    /// its view, or beyond after [`StoreSession::acknowledge_collections`].
    collections_seen: u64,
    watch: Arc<AtomicU64>,
    state: TxState,
    read_only: bool,
    block: Range<u64>,
    block_size: u64,
    registered: bool,
}

impl std::fmt::Debug for StoreSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreSession")
            .field("id", &self.reg.id)
            .field("view", &self.view)
            .field("state", &self.state)
            .field("read_only", &self.read_only)
            .finish()
    }
}

/// A cheap, thread-safe handle answering how many commits a session's view is
/// behind the latest, without touching the session itself.
#[derive(Clone)]
pub struct ViewWatch {
    shared: Arc<Shared>,
    view: Arc<AtomicU64>,
}

impl std::fmt::Debug for ViewWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ViewWatch")
            .field("view", &self.view())
            .finish()
    }
}

impl ViewWatch {
    /// The session's current view.
    pub fn view(&self) -> u64 {
        self.view.load(Ordering::Acquire)
    }

    /// Commits made since the session's view.
    pub fn commits_behind(&self) -> Result<u64> {
        let view = self.view();
        Ok(self.shared.latest_commit()?.saturating_sub(view))
    }

    /// The newest commit of the repository.
    pub fn latest_commit(&self) -> Result<u64> {
        self.shared.latest_commit()
    }
}

/// Commits a repository may hold unpruned before a commit prunes a batch.
pub const AUTO_PRUNE_LAG: u64 = 8;

impl StoreSession {
    pub(crate) fn new(
        shared: Arc<Shared>,
        conn: Connection,
        reg: Registration,
        view: u64,
        options: &LoginOptions,
    ) -> StoreSession {
        StoreSession {
            shared,
            conn,
            reg,
            view,
            collections_seen: view,
            watch: Arc::new(AtomicU64::new(view)),
            state: TxState::Open,
            read_only: options.read_only,
            block: 0..0,
            block_size: options.oop_block,
            registered: true,
        }
    }

    pub(crate) fn busy_ms(&self) -> u64 {
        self.shared.busy_ms
    }

    /// The repository's shared connection, for what lies outside transactions.
    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }

    /// The registry id of this login.
    pub fn id(&self) -> u64 {
        self.reg.id
    }

    /// The commit number this session reads at.
    pub fn view(&self) -> u64 {
        self.view
    }

    /// Whether this session was logged in read-only.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// True after a failed commit, until `abort`: commit and continue are refused.
    pub fn must_abort(&self) -> bool {
        self.state == TxState::MustAbort
    }

    /// A handle other threads can use to read this session's lag.
    pub fn watch(&self) -> ViewWatch {
        ViewWatch {
            shared: Arc::clone(&self.shared),
            view: Arc::clone(&self.watch),
        }
    }

    /// Commits made since this session's view.
    pub fn commits_behind(&self) -> Result<u64> {
        let latest = schema::counter(&self.conn, LAST_COMMIT, self.busy_ms())?;
        Ok(latest.saturating_sub(self.view))
    }

    /// The object `oop` as of this view; `None` if it does not exist there (never
    /// written, or deleted).
    pub fn read(&self, oop: u64) -> Result<Option<Vec<u8>>> {
        check_oop(oop)?;
        read_at(&self.conn, oop, self.view, self.busy_ms())
    }

    /// Several objects as of this view, in the order asked, from one snapshot.
    pub fn read_many(&self, oops: &[u64]) -> Result<Vec<Option<Vec<u8>>>> {
        for &oop in oops {
            check_oop(oop)?;
        }
        let busy_ms = self.busy_ms();
        let tx = self
            .conn
            .unchecked_transaction()
            .ctx("starting a read", busy_ms)?;
        let mut out = Vec::with_capacity(oops.len());
        for &oop in oops {
            out.push(read_at(&tx, oop, self.view, busy_ms)?);
        }
        tx.commit().ctx("ending a read", busy_ms)?;
        Ok(out)
    }

    /// Call `f` with every object that exists as of this view, in OOP order;
    /// answers how many there were. For loading a whole repository at once.
    pub fn for_each_object(&self, mut f: impl FnMut(u64, &[u8])) -> Result<u64> {
        let busy_ms = self.busy_ms();
        let mut count = 0u64;
        self.scan_rows(
            "SELECT o.oop, o.data FROM objects o \
             WHERE o.version <= ?1 AND o.data IS NOT NULL AND NOT EXISTS \
               (SELECT 1 FROM objects n WHERE n.oop = o.oop AND n.version > o.version \
                AND n.version <= ?1) \
             ORDER BY o.oop",
            |row| {
                let oop: i64 = row.get(0).ctx("scanning objects", busy_ms)?;
                let data = row
                    .get_ref(1)
                    .and_then(|v| Ok(v.as_blob()?))
                    .ctx("scanning objects", busy_ms)?;
                f(oop as u64, data);
                count += 1;
                Ok(())
            },
        )?;
        Ok(count)
    }

    /// Call `f` with every object that exists as of this view, in no particular
    /// order; answers how many there were. The same objects as
    /// [`StoreSession::for_each_object`], found in one pass over the table
    /// without an index probe per row, which makes it the faster way to load a
    /// whole repository. It walks the rows newest first: versions are only ever
    /// inserted, each with the newest commit number, and a row's id never
    /// changes, so for every OOP the first row met at or below the view is its
    /// version as of the view (see DESIGN.md, "Views and reads").
    ///
    /// The pass reads the database file through a memory mapping (SQLite's
    /// `mmap_size`, for this call only): a login reads every page once, and
    /// a read system call and a copy per page cost a third of the pass.
    pub fn scan(&self, f: impl FnMut(u64, &[u8])) -> Result<u64> {
        let busy_ms = self.busy_ms();
        self.conn
            .execute_batch(SCAN_MMAP)
            .ctx("mapping the file for a scan", busy_ms)?;
        let r = self.scan_pass(f);
        let unmapped = self
            .conn
            .execute_batch("PRAGMA mmap_size = 0")
            .ctx("unmapping the file after a scan", busy_ms);
        let count = r?;
        unmapped?;
        Ok(count)
    }

    fn scan_pass(&self, mut f: impl FnMut(u64, &[u8])) -> Result<u64> {
        let busy_ms = self.busy_ms();
        let mut count = 0u64;
        let mut seen: std::collections::HashSet<i64, OopHashing> =
            std::collections::HashSet::default();
        self.scan_rows(
            "SELECT oop, data FROM objects WHERE version <= ?1 ORDER BY id DESC",
            |row| {
                let oop: i64 = row.get(0).ctx("scanning objects", busy_ms)?;
                if !seen.insert(oop) {
                    // an older version of an object already met
                    return Ok(());
                }
                match row.get_ref(1).ctx("scanning objects", busy_ms)? {
                    rusqlite::types::ValueRef::Null => {} // deleted as of the view
                    rusqlite::types::ValueRef::Blob(data) => {
                        f(oop as u64, data);
                        count += 1;
                    }
                    other => {
                        return Err(StoreError::Corrupt {
                            detail: format!(
                                "object {oop} holds a {:?} where bytes belong",
                                other.data_type()
                            ),
                        })
                    }
                }
                Ok(())
            },
        )?;
        Ok(count)
    }

    /// Runs `sql` (whose one parameter is this view) in a read transaction and
    /// hands `each` every row: the shared part of the whole-repository scans.
    fn scan_rows(
        &self,
        sql: &str,
        mut each: impl FnMut(&rusqlite::Row<'_>) -> Result<()>,
    ) -> Result<()> {
        let busy_ms = self.busy_ms();
        let tx = self
            .conn
            .unchecked_transaction()
            .ctx("starting a scan", busy_ms)?;
        {
            let mut stmt = tx.prepare_cached(sql).ctx("preparing a scan", busy_ms)?;
            let mut rows = stmt
                .query([self.view as i64])
                .ctx("scanning objects", busy_ms)?;
            while let Some(row) = rows.next().ctx("scanning objects", busy_ms)? {
                each(row)?;
            }
        }
        tx.commit().ctx("ending a scan", busy_ms)
    }

    /// A fresh OOP, never handed out before in this repository (by any session or
    /// process) and never a reserved root OOP.
    pub fn allocate_oop(&mut self) -> Result<u64> {
        if self.block.is_empty() {
            self.block = self.reserve_block(self.block_size)?;
        }
        let oop = self.block.start;
        self.block.start += 1;
        Ok(oop)
    }

    /// `count` fresh OOPs (see [`allocate_oop`](Self::allocate_oop)).
    pub fn allocate_oops(&mut self, count: usize) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            if self.block.is_empty() {
                let want = (count - out.len()) as u64;
                self.block = self.reserve_block(want.max(self.block_size))?;
            }
            let take = ((count - out.len()) as u64).min(self.block.end - self.block.start);
            out.extend(self.block.start..self.block.start + take);
            self.block.start += take;
        }
        Ok(out)
    }

    fn reserve_block(&mut self, size: u64) -> Result<Range<u64>> {
        let busy_ms = self.busy_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx("starting an OOP reservation", busy_ms)?;
        let next = schema::counter(&tx, NEXT_OOP, busy_ms)?;
        let end =
            next.checked_add(size)
                .filter(|&end| end <= MAX_OOP)
                .ok_or(StoreError::InvalidOop {
                    oop: next,
                    reason: "the repository has run out of OOPs",
                })?;
        schema::set_counter(&tx, NEXT_OOP, end, busy_ms)?;
        tx.commit().ctx("committing an OOP reservation", busy_ms)?;
        Ok(next..end)
    }

    /// Write the caller's changes (`Some(bytes)` = new contents, `None` = delete)
    /// as one atomic, durable commit, and move the view to it.
    ///
    /// Fails with [`StoreError::Conflict`] if a commit since this view wrote any of
    /// the same OOPs; the session then refuses commits until [`abort`](Self::abort).
    /// An OOP written twice in `writes` keeps its last value. An OOP at or above
    /// [`FIRST_ALLOCATED_OOP`] must have been allocated.
    pub fn commit<I, B>(&mut self, writes: I) -> Result<Committed>
    where
        I: IntoIterator<Item = (u64, Option<B>)>,
        B: AsRef<[u8]>,
    {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        if self.state == TxState::MustAbort {
            return Err(StoreError::CommitRefused);
        }
        let mut sorted: BTreeMap<u64, Option<B>> = BTreeMap::new();
        for (oop, data) in writes {
            check_oop(oop)?;
            sorted.insert(oop, data);
        }
        if sorted.is_empty() {
            let changed = self.move_view()?;
            return Ok(Committed {
                commit: changed.to_view(),
                changed,
                collect_due: false,
            });
        }
        let busy_ms = self.busy_ms();
        schema::set_sync(&self.conn, Sync::Full, busy_ms)?;
        let outcome = self.write_commit(&sorted);
        let restored = schema::set_sync(&self.conn, Sync::Normal, busy_ms);
        match outcome {
            Ok((commit, changed, collect_due)) => {
                self.set_view(commit);
                restored?;
                self.prune_step(commit);
                Ok(Committed {
                    commit,
                    changed,
                    collect_due,
                })
            }
            Err(e) => {
                if e.is_conflict() {
                    self.state = TxState::MustAbort;
                }
                Err(e)
            }
        }
    }

    /// After commit `commit`: prunes one batch when more than
    /// [`AUTO_PRUNE_LAG`] commits no live view can ask about any more are
    /// still unpruned (an old view that pins them costs nothing), so history
    /// no view can read is reclaimed as it accrues, a bounded piece at a time.
    /// The commit is durable already; a prune that fails (another process
    /// holds the write lock past the busy timeout) is left for the next commit
    /// to retry, and `gsmcp-store prune` reports such errors.
    fn prune_step(&mut self, commit: u64) {
        let busy_ms = self.busy_ms();
        // what could be pruned now: the commits up to the oldest live view
        let prunable = (|| -> Result<u64> {
            let pruned = schema::counter(&self.conn, PRUNED_THROUGH, busy_ms)?;
            let bound =
                crate::registry::min_view(&self.conn, busy_ms)?.map_or(commit, |v| v.min(commit));
            Ok(bound.saturating_sub(pruned))
        })()
        .unwrap_or(0);
        if prunable > AUTO_PRUNE_LAG {
            let _ = crate::prune::prune_batches(&mut self.conn, busy_ms, 1);
        }
    }

    /// The commit transaction proper. Answers the new commit number, what others
    /// changed since the view and whether a collection is due; changes nothing
    /// in `self` (the caller does).
    fn write_commit<B: AsRef<[u8]>>(
        &mut self,
        sorted: &BTreeMap<u64, Option<B>>,
    ) -> Result<(u64, ChangedSet, bool)> {
        let busy_ms = self.shared.busy_ms;
        let view = self.view;
        let seen = self.collections_seen.max(view);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx("starting the commit transaction", busy_ms)?;
        let latest = schema::counter(&tx, LAST_COMMIT, busy_ms)?;
        let next_oop = schema::counter(&tx, NEXT_OOP, busy_ms)?;
        if let Some((&oop, _)) = sorted.range(FIRST_ALLOCATED_OOP.max(next_oop)..).next() {
            return Err(StoreError::InvalidOop {
                oop,
                reason: "it was never allocated",
            });
        }
        let number = next_commit(latest)?;
        // Dropping `tx` on any early return rolls back; nothing was written.
        match collect::collected_since(&tx, seen, latest, busy_ms)? {
            Some(oops) if !oops.is_empty() => {
                return Err(StoreError::Collected {
                    oops,
                    through: latest,
                })
            }
            _ => {}
        }
        let changed = changes_between(&tx, view, latest, busy_ms)?;
        let conflicts = intersect(sorted.keys().copied(), changed.oops());
        if !conflicts.is_empty() {
            return Err(StoreError::Conflict { oops: conflicts });
        }
        let oops: Vec<u64> = sorted.keys().copied().collect();
        let versions = sorted
            .iter()
            .map(|(&oop, data)| (oop, data.as_ref().map(|d| d.as_ref())));
        record_commit(&tx, &self.reg, number, &oops, versions, busy_ms)?;
        let due = collect::count_writes(&tx, oops.len() as u64, busy_ms)?;
        tx.commit().ctx("committing", busy_ms)?;
        Ok((
            number,
            ChangedSet::new(view, number, changed.into_oops()),
            due,
        ))
    }

    /// Collects garbage: deletes the objects of `dead` — those the caller's
    /// mark at this session's view found no root reaching, `live` objects
    /// being reached — as one commit, after giving back every one a commit
    /// since the view wrote or refers to (through `references`, which answers
    /// the objects one object's bytes name) and what those reach. The view
    /// moves to the collection's commit. See the `collect` module.
    pub fn collect(
        &mut self,
        mut dead: HashSet<u64>,
        live: u64,
        references: &mut collect::References<'_>,
    ) -> Result<Collection> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        if self.state == TxState::MustAbort {
            return Err(StoreError::CommitRefused);
        }
        let busy_ms = self.busy_ms();
        let view = self.view;
        schema::set_sync(&self.conn, Sync::Full, busy_ms)?;
        let outcome = (|| -> Result<(Collection, u64)> {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .ctx("starting a collection", busy_ms)?;
            let latest = schema::counter(&tx, LAST_COMMIT, busy_ms)?;
            if matches!(collect::collected_since(&tx, view, latest, busy_ms)?, Some(o) if !o.is_empty())
            {
                tx.commit().ctx("ending a collection", busy_ms)?;
                let report = Collection {
                    superseded: true,
                    ..Collection::default()
                };
                return Ok((report, view));
            }
            let changed = changes_between(&tx, view, latest, busy_ms)?;
            let rescued =
                collect::rescue(&tx, &mut dead, changed.oops(), latest, references, busy_ms)?;
            let mut report = Collection {
                rescued,
                ..Collection::default()
            };
            if dead.is_empty() {
                report.again = collect::finish(&tx, None, live + rescued, busy_ms)?;
                tx.commit().ctx("ending a collection", busy_ms)?;
                return Ok((report, view));
            }
            let number = next_commit(latest)?;
            let mut oops: Vec<u64> = dead.into_iter().collect();
            oops.sort_unstable();
            let tombstones = oops.iter().map(|&oop| (oop, None));
            record_commit(&tx, &self.reg, number, &oops, tombstones, busy_ms)?;
            report.again = collect::finish(&tx, Some(number), live + rescued, busy_ms)?;
            tx.commit().ctx("committing a collection", busy_ms)?;
            report.commit = Some(number);
            report.collected = oops.len() as u64;
            Ok((report, number))
        })();
        let restored = schema::set_sync(&self.conn, Sync::Normal, busy_ms);
        let (report, to) = outcome?;
        restored?;
        if to != view {
            self.set_view(to);
        }
        Ok(report)
    }

    /// The caller has turned every object collected by commits up to
    /// `through` (as a [`StoreError::Collected`] named them) into new objects
    /// of its own: the next commit is not refused for those collections.
    pub fn acknowledge_collections(&mut self, through: u64) {
        self.collections_seen = self.collections_seen.max(through);
    }

    /// Discard the transaction: clear the failed-commit state and move the view to
    /// the latest commit. Answers what changed between the old and new view; the
    /// caller drops its own pending changes and refreshes these.
    pub fn abort(&mut self) -> Result<ChangedSet> {
        let changed = self.move_view()?;
        self.state = TxState::Open;
        Ok(changed)
    }

    /// Move the view to the latest commit keeping the transaction (the caller keeps
    /// its pending changes). Refused after a failed commit, until `abort`.
    pub fn continue_view(&mut self) -> Result<ChangedSet> {
        if self.state == TxState::MustAbort {
            return Err(StoreError::CommitRefused);
        }
        self.move_view()
    }

    fn move_view(&mut self) -> Result<ChangedSet> {
        let busy_ms = self.busy_ms();
        let from = self.view;
        // Fast path without the write lock: nothing committed since the view.
        if schema::counter(&self.conn, LAST_COMMIT, busy_ms)? == from {
            return Ok(ChangedSet::new(from, from, Vec::new()));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx("starting a view move", busy_ms)?;
        let latest = schema::counter(&tx, LAST_COMMIT, busy_ms)?;
        let changed = changes_between(&tx, from, latest, busy_ms)?;
        registry::move_view(&tx, &self.reg, latest, busy_ms)?;
        tx.commit().ctx("recording the view move", busy_ms)?;
        self.set_view(latest);
        Ok(changed)
    }

    fn set_view(&mut self, view: u64) {
        self.view = view;
        self.collections_seen = self.collections_seen.max(view);
        self.watch.store(view, Ordering::Release);
    }

    /// Leave the registry now, reporting any failure (dropping the session does
    /// the same silently).
    pub fn logout(mut self) -> Result<()> {
        self.registered = false;
        registry::unregister(&self.conn, self.reg.id, self.shared.busy_ms)
    }
}

impl Drop for StoreSession {
    fn drop(&mut self) {
        if self.registered {
            // Best effort: a row left behind is reaped by prune once this process
            // has exited, so a failure here only delays pruning.
            let _ = registry::unregister(&self.conn, self.reg.id, self.shared.busy_ms);
        }
    }
}

/// The newest version of `oop` at or below `view`.
/// Hashing for sets of OOPs: one multiplication (Fibonacci hashing). OOPs are
/// dense integers chosen by the store, not by an adversary, so the default
/// SipHash buys nothing here and costs a scan several percent.
#[derive(Default, Clone, Copy)]
struct OopHashing;

impl std::hash::BuildHasher for OopHashing {
    type Hasher = OopHasher;
    fn build_hasher(&self) -> OopHasher {
        OopHasher(0)
    }
}

struct OopHasher(u64);

impl std::hash::Hasher for OopHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_i64(&mut self, i: i64) {
        self.0 = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The number of the commit after `latest`.
fn next_commit(latest: u64) -> Result<u64> {
    latest
        .checked_add(1)
        .filter(|&n| n <= i64::MAX as u64)
        .ok_or_else(|| StoreError::Corrupt {
            detail: format!("the commit counter ({latest}) cannot advance"),
        })
}

/// Writes commit `number`: one version per OOP (`None`: a tombstone), the
/// commit row with its write list `oops` (ascending), the counter, and the
/// committing session's registry view.
fn record_commit<'d>(
    tx: &Transaction<'_>,
    reg: &Registration,
    number: u64,
    oops: &[u64],
    versions: impl Iterator<Item = (u64, Option<&'d [u8]>)>,
    busy_ms: u64,
) -> Result<()> {
    {
        let mut insert = tx
            .prepare_cached("INSERT INTO objects (oop, version, data) VALUES (?1, ?2, ?3)")
            .ctx("preparing version inserts", busy_ms)?;
        for (oop, data) in versions {
            insert
                .execute(rusqlite::params![oop as i64, number as i64, data])
                .ctx("writing object versions", busy_ms)?;
        }
    }
    tx.prepare_cached(
        "INSERT INTO commits (number, time_ms, session, count, writes) VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .and_then(|mut s| {
        s.execute(rusqlite::params![
            number as i64,
            crate::now_ms(),
            reg.id as i64,
            oops.len() as i64,
            changes::encode_oops(oops)
        ])
    })
    .ctx("recording the commit", busy_ms)?;
    schema::set_counter(tx, LAST_COMMIT, number, busy_ms)?;
    registry::move_view(tx, reg, number, busy_ms)
}

/// Sorted intersection of two ascending sequences.
fn intersect(a: impl Iterator<Item = u64>, b: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut j = 0;
    for x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() {
            break;
        }
        if b[j] == x {
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::intersect;

    #[test]
    fn intersect_table() {
        let cases: &[(&[u64], &[u64], &[u64])] = &[
            (&[], &[1, 2], &[]),
            (&[1, 2], &[], &[]),
            (&[1, 3, 5, 7], &[2, 3, 4, 7, 9], &[3, 7]),
            (&[10], &[1, 2, 10], &[10]),
            (&[1, 2, 3], &[4, 5], &[]),
        ];
        for (a, b, want) in cases {
            assert_eq!(
                intersect(a.iter().copied(), b),
                want.to_vec(),
                "{a:?} ∩ {b:?}"
            );
        }
    }
}
