//! What is left of an ended session: why it ended and whether uncommitted
//! work went with it, kept for a while under its id so that the client's next
//! request on it still gets 404 but learns what happened instead of a bare
//! "not found". Bounded in number and age; a tombstone is shown only to the
//! principal the session belonged to.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// How many ended sessions are remembered.
const MAX_TOMBSTONES: usize = 4096;

/// How long an ended session is remembered.
const KEEP: Duration = Duration::from_secs(3600);

/// Whether an ended session's uncommitted work was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uncommitted {
    /// It held uncommitted changes, and they were discarded.
    Discarded,
    /// It held none.
    None,
    /// The stone could not say (a call was running, or no status came).
    Unknown,
}

impl Uncommitted {
    /// From the worker's last report (`None`: never reported) and whether a
    /// call was running at the end.
    pub fn from_report(needs_commit: Option<bool>, call_running: bool) -> Uncommitted {
        match (needs_commit, call_running) {
            (Some(true), _) => Uncommitted::Discarded,
            (Some(false), false) => Uncommitted::None,
            _ => Uncommitted::Unknown,
        }
    }

    /// The word the log uses.
    pub fn word(self) -> &'static str {
        match self {
            Uncommitted::Discarded => "discarded",
            Uncommitted::None => "none",
            Uncommitted::Unknown => "unknown",
        }
    }

    /// The JSON value a client sees (`uncommittedLost`).
    pub fn lost(self) -> Option<bool> {
        match self {
            Uncommitted::Discarded => Some(true),
            Uncommitted::None => Some(false),
            Uncommitted::Unknown => None,
        }
    }
}

/// One ended session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// Why it ended, in words (`idle timeout`, `session deleted`, `worker
    /// exited (killed by signal 9)`, ...).
    pub reason: String,
    /// What happened to its uncommitted work.
    pub uncommitted: Uncommitted,
    /// The principal it belonged to.
    pub owner: String,
}

impl Ended {
    /// The message a request on the ended session gets.
    pub fn message(&self) -> String {
        format!(
            "Session not found: it ended ({}), and {}; start a new one with initialize",
            self.reason,
            self.work()
        )
    }

    /// What became of its uncommitted work, in words.
    pub fn work(&self) -> &'static str {
        match self.uncommitted {
            Uncommitted::Discarded => "its uncommitted changes were discarded",
            Uncommitted::None => "it held no uncommitted changes",
            Uncommitted::Unknown => "any uncommitted changes it held were lost",
        }
    }
}

/// The remembered ended sessions, oldest first.
#[derive(Debug, Default)]
pub struct Tombstones {
    by_id: HashMap<String, (Ended, Instant)>,
    order: VecDeque<String>,
}

impl Tombstones {
    /// Remembers that session `sid` ended at `now`.
    pub fn record(&mut self, sid: &str, ended: Ended, now: Instant) {
        self.prune(now);
        while self.order.len() >= MAX_TOMBSTONES {
            if let Some(old) = self.order.pop_front() {
                self.by_id.remove(&old);
            }
        }
        if self.by_id.insert(sid.to_string(), (ended, now)).is_none() {
            self.order.push_back(sid.to_string());
        }
    }

    /// How session `sid` ended, if it is remembered and belonged to `owner`.
    pub fn get(&mut self, sid: &str, owner: &str, now: Instant) -> Option<Ended> {
        self.prune(now);
        self.by_id
            .get(sid)
            .filter(|(e, _)| e.owner == owner)
            .map(|(e, _)| e.clone())
    }

    fn prune(&mut self, now: Instant) {
        while let Some(first) = self.order.front() {
            let expired = self
                .by_id
                .get(first)
                .is_none_or(|(_, at)| now.saturating_duration_since(*at) >= KEEP);
            if !expired {
                break;
            }
            if let Some(old) = self.order.pop_front() {
                self.by_id.remove(&old);
            }
        }
    }

    /// How many are remembered.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// None is remembered.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(reason: &str, uncommitted: Uncommitted) -> Ended {
        Ended {
            reason: reason.into(),
            uncommitted,
            owner: "alice".into(),
        }
    }

    #[test]
    fn reports_and_messages() {
        let table = [
            (Some(true), false, Uncommitted::Discarded),
            (Some(true), true, Uncommitted::Discarded),
            (Some(false), false, Uncommitted::None),
            (Some(false), true, Uncommitted::Unknown),
            (None, false, Uncommitted::Unknown),
        ];
        for (needs, running, want) in table {
            assert_eq!(
                Uncommitted::from_report(needs, running),
                want,
                "{needs:?} {running}"
            );
        }
        assert_eq!(
            ended("idle timeout", Uncommitted::Discarded).message(),
            "Session not found: it ended (idle timeout), and its uncommitted changes were \
             discarded; start a new one with initialize"
        );
        assert!(ended("session deleted", Uncommitted::None)
            .message()
            .contains("held no uncommitted changes"));
    }

    #[test]
    fn bounded_by_age_and_number_and_shown_to_the_owner_only() {
        let t0 = Instant::now();
        let mut t = Tombstones::default();
        t.record("a", ended("idle timeout", Uncommitted::None), t0);
        assert!(t.get("a", "alice", t0).is_some());
        assert!(
            t.get("a", "mallory", t0).is_none(),
            "another principal learns nothing"
        );
        assert!(t.get("b", "alice", t0).is_none());
        assert!(
            t.get("a", "alice", t0 + KEEP).is_none(),
            "forgotten after an hour"
        );
        assert!(t.is_empty());
        for i in 0..MAX_TOMBSTONES + 10 {
            t.record(&format!("s{i}"), ended("deleted", Uncommitted::None), t0);
        }
        assert_eq!(t.len(), MAX_TOMBSTONES);
        assert!(t.get("s0", "alice", t0).is_none(), "the oldest go first");
        assert!(t
            .get(&format!("s{}", MAX_TOMBSTONES + 9), "alice", t0)
            .is_some());
    }
}
