//! The repository's garbage collection: deleting the objects no root reaches
//! any more, safely while other sessions in other processes read and commit.
//!
//! The store does not know what an object refers to; its caller does. The
//! caller marks (reads every object at its session's view, follows the
//! references from the roots) and hands the store the objects it found
//! unreachable, with a function that answers the references in one object's
//! bytes. [`StoreSession::collect`](crate::StoreSession::collect) then, under
//! the write lock, gives back every candidate that a commit after the mark
//! wrote or made reachable again (and everything such a candidate reaches),
//! and writes a tombstone for each of the rest as one commit, the
//! *collection*. Once no view reads below it, prune drops the tombstones and
//! every older version, and the file's pages go back (incremental vacuum).
//!
//! A session that logged in before a collection may still hold a collected
//! object in memory and be about to commit a reference to it. So a commit is
//! refused with [`StoreError::Collected`](crate::StoreError::Collected) (no
//! conflict, nothing written, the session not in the must-abort state) when
//! a collection it has not yet been told of happened since its view; the caller
//! turns the named objects in its memory into new ones and commits again. This
//! is GemStone's "voting" on possibly dead objects, done at the commit that
//! would need the vote.
//!
//! When to collect is decided here too: every commit counts the objects it
//! wrote, and the first commit after they exceed the objects alive at the last
//! collection (at least [`COLLECT_AFTER`]) is told a collection is due, so the
//! mark's cost is paid once per doubling. This module must not decode objects.

use std::collections::HashSet;

use rusqlite::Transaction;

use crate::error::Result;
use crate::schema::{
    self, COLLECTING_SINCE_MS, LAST_COLLECTION, LIVE_AT_COLLECTION, WRITTEN_SINCE_COLLECTION,
};

/// The fewest objects written since the last collection that make the next
/// one due: a repository of a few thousand objects is not marked after every
/// few commits.
pub const COLLECT_AFTER: u64 = 20_000;

/// How long a claimed collection may run before another session may claim
/// it again (its process may have died while marking).
const CLAIM_MS: u64 = 10 * 60 * 1000;

/// The caller's reading of one object: the OOPs its bytes name, or why they
/// cannot be read (which stops the collection with nothing deleted).
pub type References<'a> = dyn FnMut(u64, &[u8]) -> std::result::Result<Vec<u64>, String> + 'a;

/// What a collection did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collection {
    /// The collection's commit; `None` when nothing was left to delete.
    pub commit: Option<u64>,
    /// Objects deleted.
    pub collected: u64,
    /// Candidates given back because a commit after the mark wrote them or
    /// made them reachable, with what they reach.
    pub rescued: u64,
    /// A collection by another session committed after this one's mark, so
    /// this one deleted nothing (the next due collection marks again).
    pub superseded: bool,
    /// The objects written while it ran make another collection due, and
    /// this caller holds its claim: it should mark and collect again.
    pub again: bool,
}

/// The objects deleted by commits `seen+1 ..= latest`, when a collection is
/// among those commits (one counter read otherwise).
pub(crate) fn collected_since(
    tx: &Transaction<'_>,
    seen: u64,
    latest: u64,
    busy_ms: u64,
) -> Result<Option<Vec<u64>>> {
    if schema::counter_or_zero(tx, LAST_COLLECTION, busy_ms)? <= seen {
        return Ok(None);
    }
    let changed = crate::versions::changes_between(tx, seen, latest, busy_ms)?;
    let mut deleted = Vec::new();
    for &oop in changed.oops() {
        let tombstone = crate::versions::newest_at(tx, oop, latest, busy_ms)?.map(|(_, t)| t);
        if tombstone != Some(false) {
            deleted.push(oop);
        }
    }
    Ok(Some(deleted))
}

/// Counts `written` objects towards the next collection (the first commit
/// counted is taken as the live data instead); answers whether one is due now, and if so claims it (no other commit is told until it ran or
/// its claim is [`CLAIM_MS`] old).
pub(crate) fn count_writes(tx: &Transaction<'_>, written: u64, busy_ms: u64) -> Result<bool> {
    if schema::optional_counter(tx, LIVE_AT_COLLECTION, busy_ms)?.is_none() {
        // the first commit counted (a repository's creation, or the first
        // commit of a file older than these counters) is taken as live data
        schema::put_counter(tx, LIVE_AT_COLLECTION, written, busy_ms)?;
        return Ok(false);
    }
    let total = schema::counter_or_zero(tx, WRITTEN_SINCE_COLLECTION, busy_ms)? + written;
    schema::put_counter(tx, WRITTEN_SINCE_COLLECTION, total, busy_ms)?;
    let live = schema::counter_or_zero(tx, LIVE_AT_COLLECTION, busy_ms)?;
    if total < live.max(COLLECT_AFTER) {
        return Ok(false);
    }
    let now = crate::now_ms().max(1) as u64;
    let claimed = schema::counter_or_zero(tx, COLLECTING_SINCE_MS, busy_ms)?;
    if claimed != 0 && now.saturating_sub(claimed) < CLAIM_MS {
        return Ok(false);
    }
    schema::put_counter(tx, COLLECTING_SINCE_MS, now, busy_ms)?;
    // the claim consumes the count: what is written while the collection
    // runs counts towards the next one
    schema::put_counter(tx, WRITTEN_SINCE_COLLECTION, 0, busy_ms)?;
    Ok(true)
}

/// Removes from `dead` every candidate a commit after the mark (`changed`,
/// read at `latest`) wrote or refers to, and everything dead such a candidate
/// reaches; answers how many were given back.
pub(crate) fn rescue(
    tx: &Transaction<'_>,
    dead: &mut HashSet<u64>,
    changed: &[u64],
    latest: u64,
    references: &mut References<'_>,
    busy_ms: u64,
) -> Result<u64> {
    let mut rescued = 0u64;
    let mut stack: Vec<u64> = Vec::new();
    let mut follow = |oop: u64, stack: &mut Vec<u64>, dead: &mut HashSet<u64>| -> Result<()> {
        let Some(data) = crate::versions::read_at(tx, oop, latest, busy_ms)? else {
            return Ok(());
        };
        let refs = references(oop, &data).map_err(|why| crate::StoreError::Corrupt {
            detail: format!("object {oop}: {why}"),
        })?;
        for r in refs {
            if dead.remove(&r) {
                stack.push(r);
            }
        }
        Ok(())
    };
    for &oop in changed {
        if dead.remove(&oop) {
            stack.push(oop);
        } else {
            follow(oop, &mut stack, dead)?;
        }
    }
    while let Some(oop) = stack.pop() {
        rescued += 1;
        follow(oop, &mut stack, dead)?;
    }
    Ok(rescued)
}

/// Records a collection that left `live` objects, committed as `number`
/// (`None`: it found nothing to delete), and ends its claim — unless the
/// objects written while it ran already make the next one due: then the claim
/// is renewed and the answer is true (the collector runs again at once rather
/// than leaving that garbage for a commit to notice).
pub(crate) fn finish(
    tx: &Transaction<'_>,
    number: Option<u64>,
    live: u64,
    busy_ms: u64,
) -> Result<bool> {
    if let Some(number) = number {
        schema::put_counter(tx, LAST_COLLECTION, number, busy_ms)?;
    }
    schema::put_counter(tx, LIVE_AT_COLLECTION, live, busy_ms)?;
    let written = schema::counter_or_zero(tx, WRITTEN_SINCE_COLLECTION, busy_ms)?;
    if written >= live.max(COLLECT_AFTER) {
        schema::put_counter(tx, WRITTEN_SINCE_COLLECTION, 0, busy_ms)?;
        schema::put_counter(
            tx,
            COLLECTING_SINCE_MS,
            crate::now_ms().max(1) as u64,
            busy_ms,
        )?;
        return Ok(true);
    }
    schema::put_counter(tx, COLLECTING_SINCE_MS, 0, busy_ms)?;
    Ok(false)
}
