//! The repository's garbage collection, the half that knows what a record
//! refers to: the mark. It reads every object at one view (a login of its own,
//! no heap), follows the references from the reserved roots (the kernel
//! record, the security record and so every user's profile and UserGlobals),
//! and hands the objects nothing reaches to the store, which deletes them in
//! one commit after giving back any that a commit since the mark wrote or made
//! reachable (`gsmcp_store::StoreSession::collect`), then prunes. A session
//! holding a collected object in memory stores it afresh when it commits a
//! reference to it (`Vm::repo_commit_with`).
//!
//! It runs on a thread of its own after a commit the store says made one due
//! (about once per doubling of the objects written), and on demand
//! (`gsmcp-topaz --collect-garbage`, [`Session::collect_repository_garbage`]). A record
//! it cannot decode stops it with nothing deleted. This module must not touch
//! a session's heap.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use gsmcp_store::{LoginOptions, Repository, FIRST_ALLOCATED_OOP};

use super::codec::Record;
use super::users::{Users, SECURITY_OOP};
use super::{KernelRecord, PersistError, KERNEL_OOP};
use crate::interp::StError;
use crate::object::value::{FxHashMap, FxHashSet};

/// What a collection did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GarbageReport {
    /// Objects the mark found reachable.
    pub live: u64,
    /// Objects deleted.
    pub collected: u64,
    /// Unreachable at the mark, given back because a commit since made them
    /// reachable or wrote them.
    pub rescued: u64,
    /// Object versions the prune after it dropped.
    pub versions_pruned: u64,
    /// Another collection committed during a mark; that pass deleted nothing.
    pub superseded: bool,
    /// Marks run: more than one when the objects written during a pass made
    /// the next collection due at once (at most 8).
    pub passes: usize,
    /// How long the whole collection took.
    pub elapsed: Duration,
}

impl std::fmt::Display for GarbageReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.superseded {
            return write!(f, "another collection ran meanwhile; nothing collected");
        }
        write!(
            f,
            "{} objects live, {} collected, {} given back to commits made meanwhile, \
             {} versions pruned, {} pass(es) in {} ms",
            self.live,
            self.collected,
            self.rescued,
            self.versions_pruned,
            self.passes,
            self.elapsed.as_millis()
        )
    }
}

/// The repository OOPs the stored object `oop` (its bytes `data`) names.
pub fn references(oop: u64, data: &[u8]) -> Result<Vec<u64>, String> {
    match oop {
        KERNEL_OOP => KernelRecord::decode(data)
            .map(|k| k.entries.iter().map(|&(_, o)| o).collect())
            .map_err(|e| e.to_string()),
        SECURITY_OOP => Users::decode(data)
            .map(|u| {
                u.0.iter()
                    .flat_map(|u| [u.profile, u.user_globals])
                    .collect()
            })
            .map_err(|e| e.0),
        o if o < FIRST_ALLOCATED_OOP => Err(format!(
            "reserved object {o} is not one this build knows, so what it refers to is unknown"
        )),
        _ => Record::decode(data)
            .map(|r| r.references())
            .map_err(|e| e.0),
    }
}

/// How many collections one call runs at most while the objects written
/// during each make the next due at once (see `GarbageReport::passes`).
const PASSES: usize = 8;

/// Marks at the latest commit and collects the repository at `path`, again
/// while what was written meanwhile makes another collection due. Safe while
/// other sessions and processes work on it.
pub fn collect_garbage(path: &Path) -> Result<GarbageReport, StError> {
    collect_repository(path).map_err(StError::from)
}

pub(super) fn collect_repository(path: &Path) -> Result<GarbageReport, PersistError> {
    let started = Instant::now();
    let repo = Repository::open(path)?;
    let mut total = GarbageReport::default();
    for _ in 0..PASSES {
        let (pass, again) = collect_once(&repo)?;
        total.live = pass.live;
        total.collected += pass.collected;
        total.rescued += pass.rescued;
        total.versions_pruned += pass.versions_pruned;
        total.superseded |= pass.superseded;
        total.passes += 1;
        if !again {
            break;
        }
    }
    total.elapsed = started.elapsed();
    Ok(total)
}

/// One mark and collection; answers whether the store asks for another.
fn collect_once(repo: &Repository) -> Result<(GarbageReport, bool), PersistError> {
    let mut store = repo.login(LoginOptions::new().label("garbage collection"))?;
    // every object at the view, with the references it names (one buffer)
    let mut at: FxHashMap<u64, (usize, usize)> = FxHashMap::default();
    let mut refs: Vec<u64> = vec![];
    let mut failure: Option<String> = None;
    store.scan(|oop, data| match references(oop, data) {
        Ok(r) if failure.is_none() => {
            at.insert(oop, (refs.len(), r.len()));
            refs.extend(r);
        }
        Ok(_) => {}
        Err(e) => {
            failure.get_or_insert_with(|| format!("object {oop}: {e}"));
        }
    })?;
    if let Some(why) = failure {
        return Err(PersistError::Corrupt(format!(
            "garbage collection stopped, nothing deleted: {why}"
        )));
    }
    let mut marked: FxHashSet<u64> = FxHashSet::default();
    let mut stack: Vec<u64> = at
        .keys()
        .copied()
        .filter(|&o| o < FIRST_ALLOCATED_OOP)
        .collect();
    while let Some(o) = stack.pop() {
        if let Some(&(start, len)) = at.get(&o) {
            if marked.insert(o) {
                stack.extend(&refs[start..start + len]);
            }
        }
    }
    let dead: HashSet<u64> = at.keys().copied().filter(|o| !marked.contains(o)).collect();
    drop((at, refs));
    let live = marked.len() as u64;
    let done = store.collect(dead, live, &mut references)?;
    store.logout()?;
    let versions_pruned = if done.commit.is_some() {
        repo.prune()?.versions
    } else {
        0
    };
    let report = GarbageReport {
        live: live + done.rescued,
        collected: done.collected,
        rescued: done.rescued,
        versions_pruned,
        superseded: done.superseded,
        ..GarbageReport::default()
    };
    Ok((report, done.again))
}
