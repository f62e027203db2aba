//! The session lifetime policy as a pure state machine: when a session is
//! probed with a server `ping`, and when it is released (idle, never streamed,
//! stream lost, probe unanswered, absolute lifetime). A session holding
//! uncommitted changes is released by none of the quicker rules (never
//! streamed, stream lost) before the idle timeout.
//!
//! It owns no timer and no I/O: the session actor feeds it events with the time
//! they happened (`now`), and runs a maintenance pass that asks for the next
//! [`Action`]. Time is always passed in, so tests drive it with made-up instants
//! and no sleeping. It must not know about HTTP, JSON-RPC or workers.

use std::time::{Duration, Instant};

/// The knobs of the policy (validated by `config`).
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// No request for this long releases the session (`MCP_IDLE_TIMEOUT`).
    pub idle: Duration,
    /// A session that never opened a stream is released this long after its
    /// last request (`MCP_STREAMLESS_IDLE_TIMEOUT`).
    pub streamless_idle: Duration,
    /// A session whose stream closed has this long to open a new one (`MCP_STREAM_GRACE`).
    pub stream_grace: Duration,
    /// Release the session this long after it opened, whatever it does (`MCP_SESSION_LIFETIME`).
    pub lifetime: Option<Duration>,
    /// How long before the idle deadline a session with an open stream is probed.
    pub probe_lead: Duration,
    /// How long a probe may stay unanswered before the session is released.
    pub probe_timeout: Duration,
    /// A maintenance pass this much later than planned means the host was
    /// suspended (or the process stopped): forgive instead of reaping.
    pub suspend_threshold: Duration,
}

impl Policy {
    /// Derives the probe timings from the idle timeout: the probe goes out a
    /// quarter of the idle time (at most a minute) before the deadline and may
    /// take half of that (at most 30 s) to be answered.
    pub fn new(
        idle: Duration,
        streamless_idle: Duration,
        stream_grace: Duration,
        lifetime: Option<Duration>,
    ) -> Policy {
        let probe_lead = (idle / 4).min(Duration::from_secs(60));
        let probe_timeout = (probe_lead / 2).min(Duration::from_secs(30));
        Policy {
            idle,
            streamless_idle,
            stream_grace,
            lifetime,
            probe_lead,
            probe_timeout,
            suspend_threshold: Duration::from_secs(30),
        }
    }
}

/// Why a session is released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// No traffic for the idle timeout.
    Idle,
    /// No stream was ever opened, and the session went quiet.
    Streamless,
    /// The standalone stream closed and was not reopened in the grace period.
    StreamLost,
    /// A liveness probe went unanswered.
    ProbeUnanswered,
    /// The absolute session lifetime was reached.
    Lifetime,
}

impl Release {
    /// The reason in words, for the log.
    pub fn describe(self) -> &'static str {
        match self {
            Release::Idle => "idle timeout",
            Release::Streamless => "no stream opened and idle",
            Release::StreamLost => "stream closed and not reopened within the grace period",
            Release::ProbeUnanswered => "liveness probe unanswered",
            Release::Lifetime => "session lifetime reached",
        }
    }
}

/// What the actor must do after a maintenance pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Keep the session as it is.
    Nothing,
    /// Send a `ping` on the standalone stream `stream`, then report it with
    /// [`Lifetime::probe_sent`].
    Probe {
        /// The stream to send it on.
        stream: u64,
    },
    /// End the session, for this reason.
    Release(Release),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Never,
    Open(u64),
    Lost { since: Instant },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Probe {
    token: u64,
    stream: u64,
    sent: Instant,
}

/// One session's lifetime state.
#[derive(Debug, Clone)]
pub struct Lifetime {
    policy: Policy,
    opened: Instant,
    last_activity: Instant,
    stream: Stream,
    probe: Option<Probe>,
    /// The activity instant a probe already proved alive; no second probe
    /// until there is new activity.
    proven_for: Option<Instant>,
    /// The session holds uncommitted changes: only the idle timeout (and the
    /// absolute lifetime) may release it, not the quicker streamless and
    /// stream-loss rules.
    holds_work: bool,
    /// The client has streams to open (the session era); a stateless handle
    /// has none, so only the idle timeout and the lifetime release it.
    streams: bool,
}

impl Lifetime {
    /// The state of a session opened at `now`, released by `policy`.
    pub fn new(policy: Policy, now: Instant) -> Lifetime {
        Lifetime {
            policy,
            opened: now,
            last_activity: now,
            stream: Stream::Never,
            probe: None,
            proven_for: None,
            holds_work: false,
            streams: true,
        }
    }

    /// The state of a stateless login opened at `now`: its client has no
    /// stream to open or lose and cannot be probed, so it is released only
    /// by the idle timeout and the absolute lifetime.
    pub fn without_streams(policy: Policy, now: Instant) -> Lifetime {
        Lifetime {
            streams: false,
            ..Lifetime::new(policy, now)
        }
    }

    /// Whether the session holds uncommitted changes now.
    pub fn set_holds_work(&mut self, holds: bool) {
        self.holds_work = holds;
    }

    /// The release policy this session follows.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// A request (or the end of one) from the client.
    pub fn activity(&mut self, now: Instant) {
        self.last_activity = now;
    }

    /// A standalone stream `gen` opened; it supersedes any earlier one, and a
    /// probe written to the earlier one no longer proves anything.
    pub fn stream_opened(&mut self, gen: u64) {
        self.stream = Stream::Open(gen);
        if self.probe.is_some_and(|p| p.stream != gen) {
            self.probe = None;
        }
    }

    /// Stream `gen` closed. A close of a superseded stream changes nothing.
    pub fn stream_closed(&mut self, gen: u64, now: Instant) {
        if self.stream == Stream::Open(gen) {
            self.stream = Stream::Lost { since: now };
            self.probe = None;
        }
    }

    /// The probe `token` was written to stream `stream` at `now`.
    pub fn probe_sent(&mut self, token: u64, stream: u64, now: Instant) {
        self.probe = Some(Probe {
            token,
            stream,
            sent: now,
        });
    }

    /// The client answered probe `token`. True if that proved the session
    /// alive (the probe is current and went to the current stream).
    pub fn probe_answered(&mut self, token: u64) -> bool {
        match self.probe {
            Some(p) if p.token == token && self.stream == Stream::Open(p.stream) => {
                self.probe = None;
                self.proven_for = Some(self.last_activity);
                true
            }
            _ => false,
        }
    }

    /// The maintenance pass. `late` is how much later than planned the pass
    /// runs (or the wall-clock time that passed while the monotonic clock did
    /// not); `busy` is true while a call is in flight.
    pub fn pass(&mut self, now: Instant, late: Duration, busy: bool) -> Action {
        if late >= self.policy.suspend_threshold {
            // The host slept: nobody could have talked to us. Start every clock
            // afresh instead of reaping every session at once.
            self.last_activity = now;
            if let Stream::Lost { .. } = self.stream {
                self.stream = Stream::Lost { since: now };
            }
            if let Some(p) = &mut self.probe {
                p.sent = now;
            }
            return Action::Nothing;
        }
        if let Some(lifetime) = self.policy.lifetime {
            if now.saturating_duration_since(self.opened) >= lifetime {
                return Action::Release(Release::Lifetime);
            }
        }
        if busy {
            // A running call is activity; its own deadline bounds it.
            self.last_activity = now;
            return Action::Nothing;
        }
        let idle_for = now.saturating_duration_since(self.last_activity);
        match self.stream {
            Stream::Never => {
                if self.holds_work || !self.streams {
                    if idle_for >= self.policy.idle {
                        return Action::Release(Release::Idle);
                    }
                } else if idle_for >= self.policy.streamless_idle.min(self.policy.idle) {
                    return Action::Release(Release::Streamless);
                }
                Action::Nothing
            }
            Stream::Lost { since } => {
                if !self.holds_work
                    && now.saturating_duration_since(since) >= self.policy.stream_grace
                {
                    return Action::Release(Release::StreamLost);
                }
                if idle_for >= self.policy.idle {
                    return Action::Release(Release::Idle);
                }
                Action::Nothing
            }
            Stream::Open(gen) => {
                if idle_for >= self.policy.idle {
                    return Action::Release(Release::Idle);
                }
                if let Some(p) = self.probe {
                    if now.saturating_duration_since(p.sent) >= self.policy.probe_timeout {
                        return Action::Release(Release::ProbeUnanswered);
                    }
                    return Action::Nothing;
                }
                let probe_at = self.policy.idle.saturating_sub(self.policy.probe_lead);
                if idle_for >= probe_at && self.proven_for != Some(self.last_activity) {
                    return Action::Probe { stream: gen };
                }
                Action::Nothing
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    fn policy() -> Policy {
        // idle 100 s: probe at 75 s, probe timeout 12.5 s.
        Policy::new(100 * S, 60 * S, 10 * S, None)
    }

    /// One step of a scenario: at `t` seconds, do `event`, expect `action`.
    #[derive(Debug, Clone, Copy)]
    enum Ev {
        Activity,
        Open(u64),
        Close(u64),
        /// Probe sent with this token on this stream.
        Sent(u64, u64),
        /// Answer to this token; the bool is whether it proved anything.
        Answer(u64, bool),
        /// The worker reported whether the session holds uncommitted changes.
        Work(bool),
        Pass {
            late: u64,
            busy: bool,
        },
    }

    /// At `t` seconds, do the event, expect the action.
    type Step = (f64, Ev, Action);

    fn run(name: &str, policy: Policy, steps: &[Step]) {
        run_from(name, Lifetime::new, policy, steps)
    }

    /// [`run`] for a lifetime `make` starts.
    fn run_from(name: &str, make: fn(Policy, Instant) -> Lifetime, policy: Policy, steps: &[Step]) {
        let t0 = Instant::now();
        let mut l = make(policy, t0);
        for (i, (t, ev, expect)) in steps.iter().enumerate() {
            let now = t0 + Duration::from_secs_f64(*t);
            let got = match *ev {
                Ev::Activity => {
                    l.activity(now);
                    Action::Nothing
                }
                Ev::Open(g) => {
                    l.stream_opened(g);
                    Action::Nothing
                }
                Ev::Close(g) => {
                    l.stream_closed(g, now);
                    Action::Nothing
                }
                Ev::Sent(token, stream) => {
                    l.probe_sent(token, stream, now);
                    Action::Nothing
                }
                Ev::Answer(token, proves) => {
                    assert_eq!(l.probe_answered(token), proves, "{name} step {i}: answer");
                    Action::Nothing
                }
                Ev::Work(holds) => {
                    l.set_holds_work(holds);
                    Action::Nothing
                }
                Ev::Pass { late, busy } => l.pass(now, Duration::from_secs(late), busy),
            };
            assert_eq!(got, *expect, "{name} step {i} at {t}s: {ev:?}");
        }
    }

    fn pass() -> Ev {
        Ev::Pass {
            late: 0,
            busy: false,
        }
    }

    use Action::{Nothing, Probe as P, Release as R};

    #[test]
    fn scenarios() {
        let table: &[(&str, Policy, &[Step])] = &[
            (
                "streamless release",
                policy(),
                &[
                    (10.0, Ev::Activity, Nothing),
                    (69.0, pass(), Nothing),
                    (70.0, pass(), R(Release::Streamless)),
                ],
            ),
            (
                "uncommitted work keeps a streamless session until the idle timeout",
                policy(),
                &[
                    (10.0, Ev::Activity, Nothing),
                    (10.0, Ev::Work(true), Nothing),
                    (70.0, pass(), Nothing),
                    (109.0, pass(), Nothing),
                    (110.0, pass(), R(Release::Idle)),
                ],
            ),
            (
                "committed work lets the streamless rule apply again",
                policy(),
                &[
                    (10.0, Ev::Work(true), Nothing),
                    (70.0, pass(), Nothing),
                    (71.0, Ev::Work(false), Nothing),
                    (71.0, pass(), R(Release::Streamless)),
                ],
            ),
            (
                "uncommitted work outlasts a lost stream's grace",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (0.0, Ev::Work(true), Nothing),
                    (5.0, Ev::Close(1), Nothing),
                    (16.0, pass(), Nothing),
                    (99.0, pass(), Nothing),
                    (100.0, pass(), R(Release::Idle)),
                ],
            ),
            (
                "a busy streamless session is kept",
                policy(),
                &[
                    (
                        70.0,
                        Ev::Pass {
                            late: 0,
                            busy: true,
                        },
                        Nothing,
                    ),
                    (129.0, pass(), Nothing),
                    (130.0, pass(), R(Release::Streamless)),
                ],
            ),
            (
                "probe answered proves alive but idle still ends it",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (74.0, pass(), Nothing),
                    (75.0, pass(), P { stream: 1 }),
                    (75.0, Ev::Sent(7, 1), Nothing),
                    (76.0, pass(), Nothing),
                    (77.0, Ev::Answer(7, true), Nothing),
                    (90.0, pass(), Nothing),
                    (99.0, pass(), Nothing),
                    (100.0, pass(), R(Release::Idle)),
                ],
            ),
            (
                "probe unanswered releases early",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (75.0, pass(), P { stream: 1 }),
                    (75.0, Ev::Sent(7, 1), Nothing),
                    (87.0, pass(), Nothing),
                    (87.5, pass(), R(Release::ProbeUnanswered)),
                ],
            ),
            (
                "activity after a proven probe allows a new probe later",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (75.0, pass(), P { stream: 1 }),
                    (75.0, Ev::Sent(1, 1), Nothing),
                    (76.0, Ev::Answer(1, true), Nothing),
                    (80.0, Ev::Activity, Nothing),
                    (154.0, pass(), Nothing),
                    (155.0, pass(), P { stream: 1 }),
                ],
            ),
            (
                "stream handover discards a stale probe",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (75.0, pass(), P { stream: 1 }),
                    (75.0, Ev::Sent(3, 1), Nothing),
                    (76.0, Ev::Open(2), Nothing),
                    // The answer to the probe on the superseded stream proves nothing.
                    (77.0, Ev::Answer(3, false), Nothing),
                    (77.0, pass(), P { stream: 2 }),
                    (77.0, Ev::Sent(4, 2), Nothing),
                    (78.0, Ev::Answer(4, true), Nothing),
                    (99.0, pass(), Nothing),
                ],
            ),
            (
                "a probe on an old stream answered after handover is not taken",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (75.0, Ev::Sent(3, 1), Nothing),
                    (75.5, Ev::Open(2), Nothing),
                    (76.0, Ev::Answer(3, false), Nothing),
                    (76.0, pass(), P { stream: 2 }),
                    (76.0, Ev::Sent(5, 2), Nothing),
                    (88.5, pass(), R(Release::ProbeUnanswered)),
                ],
            ),
            (
                "stream lost, not reopened",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (5.0, Ev::Close(1), Nothing),
                    (14.0, pass(), Nothing),
                    (15.0, pass(), R(Release::StreamLost)),
                ],
            ),
            (
                "stream lost, reopened within the grace",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (5.0, Ev::Close(1), Nothing),
                    (14.0, Ev::Open(2), Nothing),
                    (15.0, pass(), Nothing),
                    (60.0, pass(), Nothing),
                ],
            ),
            (
                "closing a superseded stream changes nothing",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (1.0, Ev::Open(2), Nothing),
                    (2.0, Ev::Close(1), Nothing),
                    (30.0, pass(), Nothing),
                ],
            ),
            (
                "absolute lifetime",
                Policy::new(100 * S, 60 * S, 10 * S, Some(50 * S)),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (49.0, Ev::Activity, Nothing),
                    (
                        49.0,
                        Ev::Pass {
                            late: 0,
                            busy: true,
                        },
                        Nothing,
                    ),
                    (
                        50.0,
                        Ev::Pass {
                            late: 0,
                            busy: true,
                        },
                        R(Release::Lifetime),
                    ),
                ],
            ),
            (
                "suspend forgiveness",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (5.0, Ev::Close(1), Nothing),
                    // The host slept for an hour: forgive.
                    (
                        3600.0,
                        Ev::Pass {
                            late: 3590,
                            busy: false,
                        },
                        Nothing,
                    ),
                    (3609.0, pass(), Nothing),
                    (3610.0, pass(), R(Release::StreamLost)),
                ],
            ),
            (
                "suspend forgiveness of an idle session",
                policy(),
                &[
                    (0.0, Ev::Open(1), Nothing),
                    (
                        500.0,
                        Ev::Pass {
                            late: 400,
                            busy: false,
                        },
                        Nothing,
                    ),
                    (574.0, pass(), Nothing),
                    (575.0, pass(), P { stream: 1 }),
                ],
            ),
            (
                "a late pass below the threshold still reaps",
                policy(),
                &[
                    (
                        10.0,
                        Ev::Pass {
                            late: 29,
                            busy: false,
                        },
                        Nothing,
                    ),
                    (
                        80.0,
                        Ev::Pass {
                            late: 29,
                            busy: false,
                        },
                        R(Release::Streamless),
                    ),
                ],
            ),
        ];
        for (name, policy, steps) in table {
            run(name, policy.clone(), steps);
        }
    }

    #[test]
    fn a_stateless_login_is_released_by_the_idle_timeout_and_the_lifetime_only() {
        let with_lifetime = Policy::new(100 * S, 60 * S, 10 * S, Some(150 * S));
        let table: &[(&str, Policy, &[Step])] = &[
            (
                "quiet past the streamless time, holding nothing: kept until idle",
                policy(),
                &[
                    (10.0, Ev::Activity, Nothing),
                    (70.0, pass(), Nothing),
                    (105.0, pass(), Nothing),
                    (110.0, pass(), R(Release::Idle)),
                ],
            ),
            (
                "never probed: it has no stream",
                policy(),
                &[
                    (80.0, pass(), Nothing),
                    (99.0, pass(), Nothing),
                    (100.0, pass(), R(Release::Idle)),
                ],
            ),
            (
                "busy keeps it; the lifetime ends it anyway",
                with_lifetime,
                &[
                    (90.0, Ev::Activity, Nothing),
                    (149.0, pass(), Nothing),
                    (150.0, pass(), R(Release::Lifetime)),
                ],
            ),
        ];
        for (name, policy, steps) in table {
            run_from(name, Lifetime::without_streams, policy.clone(), steps);
        }
    }

    #[test]
    fn probe_timings_derive_from_idle() {
        let p = Policy::new(30 * 60 * S, 60 * S, 10 * S, None);
        assert_eq!(p.probe_lead, 60 * S);
        assert_eq!(p.probe_timeout, 30 * S);
        let p = Policy::new(4 * S, 60 * S, 10 * S, None);
        assert_eq!(p.probe_lead, S);
        assert_eq!(p.probe_timeout, S / 2);
    }
}
