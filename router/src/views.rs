//! View hygiene: when a session's view is moved forward, when it is stuck
//! and its transaction is aborted, and when a call that pins it is
//! interrupted. Pure policy, like [`crate::lifetime`]: the session's actor
//! feeds it the worker's reports and the time, and does what it answers.
//!
//! Every view a session holds keeps the repository from reclaiming the
//! history after it (the embedded stone prunes only below the oldest live
//! view; a GemStone stone keeps commit records for it). So, once a view is
//! at least [`ViewPolicy::max_behind`] commits behind:
//! - **Refresh**: between calls (whether the session is busy with calls or
//!   idle), a view is moved forward if the session holds no uncommitted
//!   changes. Moving the view under uncommitted changes would let them
//!   overwrite what others committed meanwhile with no conflict to say so,
//!   so a session with changes keeps its view until it commits or aborts.
//! - **Stuck**: a session whose commit failed cannot move its view until it
//!   aborts (its changes conflict with others' commits and can never be
//!   committed). Stuck that far behind for [`ViewPolicy::stuck_grace`], its
//!   transaction is aborted (`Reclaim`), and its next result says what was
//!   discarded and why.
//! - **Pinned**: a call that has run for [`ViewPolicy::pinned_grace`] while its
//!   view is that far behind is interrupted, as a deadline interrupts, so
//!   the view can move after it.
//!
//! The lag comes from the worker (after each call, after a refresh, and from
//! its watch while a call runs or the session idles), so all of this applies
//! where the stone can say how far a view lags: the embedded stone on a
//! repository file. A GemStone stone watches its own commit-record backlog
//! (`STN_CR_BACKLOG_THRESHOLD`, signaled aborts, lost views).

use std::time::{Duration, Instant};

/// The deployment's view settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewPolicy {
    /// `MCP_MAX_COMMITS_BEHIND`: how far behind a view is moved forward;
    /// `None`: views are left alone, and nothing below applies.
    pub max_behind: Option<u64>,
    /// `MCP_STUCK_VIEW_GRACE`: how long a view may stay stuck; `None`: for ever.
    pub stuck_grace: Option<Duration>,
    /// `MCP_PINNED_VIEW_GRACE`: how long a call may run with its view that far
    /// behind; `None`: as long as its deadline allows.
    pub pinned_grace: Option<Duration>,
}

/// What the actor must do for the view now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewAction {
    /// Nothing.
    Nothing,
    /// Send `Refresh` (between calls).
    Refresh,
    /// Send `Reclaim` (between calls): the view was stuck this long.
    Reclaim {
        /// How long it was stuck.
        stuck: Duration,
    },
    /// Interrupt the running call: its view is this many commits behind.
    Interrupt {
        /// How far behind.
        behind: u64,
    },
}

/// One session's view, as its reports tell it.
#[derive(Debug, Clone)]
pub struct View {
    policy: ViewPolicy,
    /// Commits behind, as last reported.
    behind: u64,
    /// The session may hold uncommitted changes (until a report says not).
    dirty: bool,
    /// A commit failed and only an abort clears it.
    must_abort: bool,
    /// A `Refresh` or `Reclaim` was sent and the report after it has not come.
    pending: bool,
    /// The last one sent was a `Reclaim`.
    reclaimed: bool,
    /// Since when the view has been stuck far behind.
    stuck_since: Option<Instant>,
}

impl View {
    /// A view nothing is known of yet.
    pub fn new(policy: ViewPolicy) -> View {
        View {
            policy,
            behind: 0,
            dirty: true,
            must_abort: false,
            pending: false,
            reclaimed: false,
            stuck_since: None,
        }
    }

    /// Since when the view has been stuck far behind, if it is.
    pub fn stuck_since(&self) -> Option<Instant> {
        self.stuck_since
    }

    fn far_behind(&self) -> bool {
        self.policy.max_behind.is_some_and(|max| self.behind >= max)
    }

    fn update_stuck(&mut self, now: Instant) {
        self.stuck_since = match self.must_abort && self.far_behind() {
            true => self.stuck_since.or(Some(now)),
            false => None,
        };
    }

    /// The worker's view status (after a call, a `Refresh` or a `Reclaim`):
    /// the lag where the stone can say, whether the session holds uncommitted
    /// changes, and whether only an abort can move its view.
    pub fn status(&mut self, behind: Option<u64>, dirty: bool, must_abort: bool, now: Instant) {
        self.pending = false;
        if let Some(b) = behind {
            self.behind = b;
        }
        self.dirty = dirty;
        self.must_abort = must_abort;
        if std::mem::take(&mut self.reclaimed) {
            // a reclaim that did not free the view waits another grace
            self.stuck_since = None;
        }
        self.update_stuck(now);
    }

    /// The worker's watch: the lag while a call runs or the session idles.
    pub fn lag(&mut self, behind: u64, now: Instant) {
        self.behind = behind;
        self.update_stuck(now);
    }

    /// What to do at `now`; `running` is when the call in flight started, if
    /// one is. A `Refresh` or `Reclaim` is sent once, until the report after
    /// it comes back.
    pub fn pass(&mut self, now: Instant, running: Option<Instant>) -> ViewAction {
        if !self.far_behind() {
            return ViewAction::Nothing;
        }
        if let Some(started) = running {
            let pinned = self
                .policy
                .pinned_grace
                .is_some_and(|g| now.saturating_duration_since(started) >= g);
            return match pinned {
                true => ViewAction::Interrupt {
                    behind: self.behind,
                },
                false => ViewAction::Nothing,
            };
        }
        if self.pending {
            return ViewAction::Nothing;
        }
        let action = match (self.must_abort, self.stuck_since, self.policy.stuck_grace) {
            (true, Some(since), Some(grace)) if now.saturating_duration_since(since) >= grace => {
                ViewAction::Reclaim {
                    stuck: now.saturating_duration_since(since),
                }
            }
            (true, _, _) => ViewAction::Nothing,
            (false, _, _) if self.dirty => ViewAction::Nothing,
            (false, _, _) => ViewAction::Refresh,
        };
        self.pending = action != ViewAction::Nothing;
        self.reclaimed = matches!(action, ViewAction::Reclaim { .. });
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    fn policy() -> ViewPolicy {
        ViewPolicy {
            max_behind: Some(5),
            stuck_grace: Some(60 * S),
            pinned_grace: Some(10 * S),
        }
    }

    #[test]
    fn only_a_clean_view_far_behind_is_refreshed_once_until_the_report() {
        let t = Instant::now();
        // (behind, dirty, must abort, what a pass between calls does)
        let table = [
            (4, false, false, ViewAction::Nothing),
            (5, false, false, ViewAction::Refresh),
            (50, false, false, ViewAction::Refresh),
            (50, true, false, ViewAction::Nothing),
            (50, true, true, ViewAction::Nothing),
        ];
        for (behind, dirty, must_abort, action) in table {
            let mut v = View::new(policy());
            v.status(Some(behind), dirty, must_abort, t);
            assert_eq!(v.pass(t, None), action, "{behind} {dirty} {must_abort}");
            assert_eq!(v.pass(t + S, None), ViewAction::Nothing, "once");
        }
        let mut v = View::new(policy());
        v.lag(9, t);
        assert_eq!(v.pass(t, None), ViewAction::Nothing, "unknown: maybe dirty");
        v.status(Some(0), false, false, t);
        v.lag(9, t + S);
        assert_eq!(
            v.pass(t + S, None),
            ViewAction::Refresh,
            "the watch's lag, clean"
        );
        assert_eq!(v.pass(t + 2 * S, None), ViewAction::Nothing, "sent");
        v.status(Some(0), false, false, t + 2 * S);
        assert_eq!(v.pass(t + 2 * S, None), ViewAction::Nothing);
    }

    #[test]
    fn a_failed_commit_far_behind_is_reclaimed_after_its_grace() {
        let t = Instant::now();
        let mut v = View::new(policy());
        v.status(Some(1), true, true, t);
        assert_eq!(v.stuck_since(), None, "not far behind: nothing pinned");
        v.lag(7, t + S);
        assert_eq!(v.stuck_since(), Some(t + S));
        v.lag(9, t + 2 * S);
        assert_eq!(v.stuck_since(), Some(t + S), "from when it first was");
        for at in [2 * S, 30 * S, 60 * S] {
            assert_eq!(v.pass(t + at, None), ViewAction::Nothing, "{at:?}");
        }
        assert_eq!(
            v.pass(t + 61 * S, None),
            ViewAction::Reclaim { stuck: 60 * S }
        );
        assert_eq!(v.pass(t + 62 * S, None), ViewAction::Nothing, "sent once");
        v.status(Some(0), false, false, t + 62 * S);
        assert_eq!(v.stuck_since(), None);
        assert_eq!(v.pass(t + 63 * S, None), ViewAction::Nothing);
        // an abort of its own unsticks it
        let mut own = View::new(policy());
        own.status(Some(9), true, true, t);
        own.status(Some(0), false, false, t + S);
        assert_eq!(own.pass(t + 99 * S, None), ViewAction::Nothing);
        // a reclaim that failed is tried again only after another grace
        let mut again = View::new(policy());
        again.status(Some(9), true, true, t);
        assert!(matches!(
            again.pass(t + 60 * S, None),
            ViewAction::Reclaim { .. }
        ));
        again.status(Some(9), true, true, t + 60 * S);
        assert_eq!(again.pass(t + 61 * S, None), ViewAction::Nothing);
        assert!(matches!(
            again.pass(t + 120 * S, None),
            ViewAction::Reclaim { .. }
        ));
    }

    #[test]
    fn a_call_is_interrupted_only_after_its_grace_and_only_when_far_behind() {
        let t = Instant::now();
        let mut v = View::new(policy());
        v.status(Some(2), true, false, t);
        assert_eq!(
            v.pass(t + 11 * S, Some(t)),
            ViewAction::Nothing,
            "not behind"
        );
        v.lag(7, t);
        assert_eq!(
            v.pass(t + 9 * S, Some(t)),
            ViewAction::Nothing,
            "young call"
        );
        assert_eq!(
            v.pass(t + 10 * S, Some(t)),
            ViewAction::Interrupt { behind: 7 }
        );
        // a running call is never refreshed or reclaimed under
        let mut idle = View::new(ViewPolicy {
            pinned_grace: None,
            ..policy()
        });
        idle.status(Some(7), false, false, t);
        assert_eq!(idle.pass(t + 99 * S, Some(t)), ViewAction::Nothing);
        assert_eq!(idle.pass(t + 99 * S, None), ViewAction::Refresh);
    }

    #[test]
    fn without_a_bound_or_a_grace_nothing_happens() {
        let t = Instant::now();
        let mut v = View::new(ViewPolicy {
            max_behind: None,
            ..policy()
        });
        v.status(Some(1_000), false, true, t);
        assert_eq!(v.pass(t + 999 * S, None), ViewAction::Nothing);
        assert_eq!(v.pass(t + 999 * S, Some(t)), ViewAction::Nothing);
        let mut forever = View::new(ViewPolicy {
            stuck_grace: None,
            ..policy()
        });
        forever.status(Some(9), true, true, t);
        assert_eq!(forever.pass(t + 9_999 * S, None), ViewAction::Nothing);
    }
}
