//! The replay log of a session's event streams, which makes them resumable:
//! every message meant for a stream gets the stream's next event id
//! (`<stream>-<seq>`, `seq` from 1; the priming event is `<stream>-0`) and is
//! kept, within bounds, whether or not a writer is attached to deliver it.
//! A client whose connection ended (a network failure, or the server closing
//! it on purpose so the client polls) reconnects with a GET carrying
//! `Last-Event-ID`, and [`Streams::attach`] hands a new writer everything held
//! after that id, then what comes next.
//!
//! Bounds: a stream keeps at most [`MAX_EVENTS`] events and [`MAX_BYTES`] of
//! them (the oldest go first, and resuming from before them is refused as a
//! gap, never answered with a silent hole); a session keeps at most
//! [`MAX_STREAMS`] streams (finished ones are forgotten first). This module
//! knows event ids and nothing of HTTP, sessions or JSON-RPC.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;

/// What a stream's producer hands it.
#[derive(Debug)]
pub enum Item {
    /// A JSON-RPC message to write as an event.
    Message(String),
    /// The last message of the stream (a POST's response): write it and end.
    Last(String),
}

/// Most events a stream keeps for replay.
pub const MAX_EVENTS: usize = 256;
/// Most bytes of events a stream keeps for replay.
pub const MAX_BYTES: usize = 1 << 20;
/// Most streams a session keeps.
pub const MAX_STREAMS: usize = 16;

/// One event for a writer: its id, its text, and whether it ends the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The SSE event id, `<stream>-<seq>`.
    pub id: String,
    /// The JSON-RPC message.
    pub text: String,
    /// The stream's last event (a request's response): the writer ends after it.
    pub last: bool,
}

/// What a writer reads: held events, then live ones, or an order to close
/// the connection without ending the stream (the client is to reconnect).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// An event to write.
    Event(Entry),
    /// Close the connection; the stream lives on for a resuming GET.
    Release,
}

/// Why a stream cannot be resumed from an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresumable {
    /// No such stream is held (it never existed, or was forgotten), or it
    /// never gave that id.
    Unknown,
    /// Events after the id were dropped: the oldest held is `held_from`.
    Gap {
        /// The sequence number of the oldest event still held.
        held_from: u64,
        /// The stream is the session's standalone (GET) stream.
        standalone: bool,
    },
}

/// A stream attached to a new writer.
pub struct Resumed {
    /// What its producer pushes to.
    pub feed: Feed,
    /// What the new writer reads.
    pub reader: Reader,
    /// It is the session's standalone (GET) stream, not a request's.
    pub standalone: bool,
}

/// Whether a pushed event went to an attached writer or is only held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// A writer was attached and took it.
    Live,
    /// No writer: it waits for a resuming GET.
    Held,
    /// The stream is finished or forgotten: nothing was kept.
    Refused,
}

struct Log {
    stream: u64,
    next: u64,
    events: VecDeque<(u64, Entry)>,
    bytes: usize,
    finished: bool,
    /// The session's standalone (GET) stream, not a request's.
    standalone: bool,
    /// The attached writer's channel and its attachment number.
    reader: Option<(u64, mpsc::UnboundedSender<Delivery>)>,
    attachments: u64,
}

/// A writer's side of a stream: what it reads, and which attachment it is
/// (so a writer that ends detaches itself, never a later one).
pub struct Reader {
    /// Held events, then live ones.
    pub rx: mpsc::UnboundedReceiver<Delivery>,
    /// The attachment number.
    pub attachment: u64,
}

impl Log {
    fn oldest_held(&self) -> u64 {
        self.events.front().map_or(self.next, |(s, _)| *s)
    }
}

/// A session's streams. Shared by the session's HTTP requests and its actor.
#[derive(Default)]
pub struct Streams {
    logs: Mutex<VecDeque<Log>>,
}

impl Streams {
    fn lock(&self) -> MutexGuard<'_, VecDeque<Log>> {
        self.logs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the log of stream `stream` and answers the feed its producer
    /// pushes to and the first events' reader (for the writer of the request
    /// that opened it). The oldest streams are forgotten past [`MAX_STREAMS`],
    /// finished ones first.
    pub fn open(self: &Arc<Self>, stream: u64) -> (Feed, Reader) {
        self.open_as(stream, false)
    }

    /// [`Streams::open`] for the session's standalone (GET) stream.
    pub fn open_standalone(self: &Arc<Self>, stream: u64) -> (Feed, Reader) {
        self.open_as(stream, true)
    }

    fn open_as(self: &Arc<Self>, stream: u64, standalone: bool) -> (Feed, Reader) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut logs = self.lock();
        while logs.len() >= MAX_STREAMS {
            let victim = logs.iter().position(|l| l.finished).unwrap_or(0);
            logs.remove(victim);
        }
        logs.push_back(Log {
            stream,
            next: 1,
            events: VecDeque::new(),
            bytes: 0,
            finished: false,
            standalone,
            reader: Some((1, tx)),
            attachments: 1,
        });
        let feed = Feed {
            streams: self.clone(),
            stream,
        };
        (feed, Reader { rx, attachment: 1 })
    }

    /// Attaches a new writer to stream `stream`, to resume after its event
    /// `after`: the reader first holds every event kept after it, then gets
    /// new ones; an earlier writer is detached (its connection ends). A
    /// finished stream's reader ends after its last event (at once, when the
    /// client already had it).
    pub fn attach(self: &Arc<Self>, stream: u64, after: u64) -> Result<Resumed, Unresumable> {
        let mut logs = self.lock();
        let log = logs
            .iter_mut()
            .find(|l| l.stream == stream)
            .ok_or(Unresumable::Unknown)?;
        if after >= log.next {
            // an id this stream never gave
            return Err(Unresumable::Unknown);
        }
        let held_from = log.oldest_held();
        if after + 1 < held_from {
            return Err(Unresumable::Gap {
                held_from,
                standalone: log.standalone,
            });
        }
        let (tx, rx) = mpsc::unbounded_channel();
        for (seq, entry) in &log.events {
            if *seq > after {
                let _ = tx.send(Delivery::Event(entry.clone()));
            }
        }
        log.attachments += 1;
        let attachment = log.attachments;
        log.reader = match log.finished {
            true => None,
            false => Some((attachment, tx)),
        };
        let feed = Feed {
            streams: self.clone(),
            stream,
        };
        Ok(Resumed {
            feed,
            reader: Reader { rx, attachment },
            standalone: log.standalone,
        })
    }

    /// Detaches writer `attachment` of `stream` (it ended); later events are
    /// held for the next one.
    pub fn detach(&self, stream: u64, attachment: u64) {
        if let Some(log) = self.lock().iter_mut().find(|l| l.stream == stream) {
            if log.reader.as_ref().is_some_and(|(a, _)| *a == attachment) {
                log.reader = None;
            }
        }
    }
}

/// What a stream's producer pushes to.
#[derive(Clone)]
pub struct Feed {
    streams: Arc<Streams>,
    stream: u64,
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Feed({})", self.stream)
    }
}

impl std::fmt::Debug for Streams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Streams({} held)", self.lock().len())
    }
}

impl Feed {
    /// The stream's number.
    pub fn stream(&self) -> u64 {
        self.stream
    }

    /// Gives `item` the stream's next id, keeps it and hands it to the
    /// attached writer, if any. A `Last` item finishes the stream.
    pub fn push(&self, item: Item) -> Pushed {
        let mut logs = self.streams.lock();
        let Some(log) = logs.iter_mut().find(|l| l.stream == self.stream) else {
            return Pushed::Refused;
        };
        if log.finished {
            return Pushed::Refused;
        }
        let (text, last) = match item {
            Item::Message(t) => (t, false),
            Item::Last(t) => (t, true),
        };
        let seq = log.next;
        log.next += 1;
        let entry = Entry {
            id: format!("{}-{seq}", self.stream),
            text,
            last,
        };
        log.finished = last;
        log.bytes += entry.text.len();
        log.events.push_back((seq, entry.clone()));
        while log.events.len() > MAX_EVENTS || (log.bytes > MAX_BYTES && log.events.len() > 1) {
            if let Some((_, old)) = log.events.pop_front() {
                log.bytes -= old.text.len();
            }
        }
        let live = log
            .reader
            .as_ref()
            .is_some_and(|(_, r)| r.send(Delivery::Event(entry)).is_ok());
        if !live {
            log.reader = None;
        }
        match live {
            true => Pushed::Live,
            false => Pushed::Held,
        }
    }

    /// Whether a writer is attached now.
    pub fn attached(&self) -> bool {
        let logs = self.streams.lock();
        logs.iter()
            .find(|l| l.stream == self.stream)
            .is_some_and(|l| l.reader.is_some())
    }

    /// Closes the attached writer's connection without ending the stream:
    /// the client is to reconnect with `Last-Event-ID`. False if none was attached.
    pub fn release(&self) -> bool {
        let mut logs = self.streams.lock();
        let Some(log) = logs.iter_mut().find(|l| l.stream == self.stream) else {
            return false;
        };
        match log.reader.take() {
            Some((_, r)) => r.send(Delivery::Release).is_ok(),
            None => false,
        }
    }

    /// Ends the stream without a last event (a superseded standalone
    /// stream): its writer ends, and nothing more is kept.
    pub fn finish(&self) {
        let mut logs = self.streams.lock();
        if let Some(log) = logs.iter_mut().find(|l| l.stream == self.stream) {
            log.finished = true;
            log.reader = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(reader: &mut Reader) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(d) = reader.rx.try_recv() {
            out.push(match d {
                Delivery::Event(e) => format!("{}{}", e.id, if e.last { "!" } else { "" }),
                Delivery::Release => "release".into(),
            });
        }
        out
    }

    #[test]
    fn events_are_numbered_kept_and_replayed_after_an_id() {
        let streams = Arc::new(Streams::default());
        let (feed, mut first) = streams.open(3);
        assert_eq!(feed.push(Item::Message("a".into())), Pushed::Live);
        assert!(feed.release(), "the writer is told to let go");
        assert_eq!(drain(&mut first), ["3-1", "release"]);
        // detached: held for the next writer
        assert_eq!(feed.push(Item::Message("b".into())), Pushed::Held);
        assert_eq!(feed.push(Item::Last("reply".into())), Pushed::Held);
        assert_eq!(
            feed.push(Item::Message("late".into())),
            Pushed::Refused,
            "finished"
        );
        // (resume after, replayed)
        let table: &[(u64, &[&str])] = &[
            (0, &["3-1", "3-2", "3-3!"]),
            (1, &["3-2", "3-3!"]),
            (3, &[]),
        ];
        for (after, expected) in table {
            let mut r = streams.attach(3, *after).expect("held").reader;
            assert_eq!(drain(&mut r), *expected, "after {after}");
        }
        assert_eq!(
            streams.attach(3, 4).err(),
            Some(Unresumable::Unknown),
            "an id never given"
        );
        assert_eq!(
            streams.attach(9, 0).err(),
            Some(Unresumable::Unknown),
            "no such stream"
        );
    }

    #[test]
    fn a_later_writer_takes_over_and_an_ended_one_detaches_only_itself() {
        let streams = Arc::new(Streams::default());
        let (feed, first) = streams.open_standalone(1);
        let mut second = streams.attach(1, 0).expect("held");
        assert!(second.standalone);
        // the first writer ends after the second attached: the second stays
        streams.detach(1, first.attachment);
        assert_eq!(feed.push(Item::Message("x".into())), Pushed::Live);
        assert_eq!(drain(&mut second.reader), ["1-1"]);
        streams.detach(1, second.reader.attachment);
        assert_eq!(feed.push(Item::Message("y".into())), Pushed::Held);
        feed.finish();
        assert_eq!(feed.push(Item::Message("z".into())), Pushed::Refused);
    }

    #[test]
    fn the_oldest_events_go_first_and_resuming_before_them_is_a_gap() {
        let streams = Arc::new(Streams::default());
        let (feed, first) = streams.open(2);
        streams.detach(2, first.attachment);
        for i in 0..MAX_EVENTS + 10 {
            assert_eq!(feed.push(Item::Message(format!("m{i}"))), Pushed::Held);
        }
        let gap = Unresumable::Gap {
            held_from: 11,
            standalone: false,
        };
        assert_eq!(streams.attach(2, 0).err(), Some(gap));
        assert!(
            streams.attach(2, 9).is_err(),
            "still before the oldest held"
        );
        let mut r = streams.attach(2, 10).expect("held from 11").reader;
        assert_eq!(drain(&mut r).len(), MAX_EVENTS);
        // bytes are bounded too (one event over the bound is still kept)
        let (big, _r) = streams.open(5);
        for _ in 0..4 {
            big.push(Item::Message("x".repeat(MAX_BYTES / 2)));
        }
        assert!(matches!(
            streams.attach(5, 0),
            Err(Unresumable::Gap { held_from: 3, .. })
        ));
    }

    #[test]
    fn a_session_keeps_a_bounded_number_of_streams_finished_ones_forgotten_first() {
        let streams = Arc::new(Streams::default());
        let (live, _r) = streams.open(100);
        for s in 0..MAX_STREAMS as u64 + 5 {
            let (f, _r) = streams.open(s);
            f.push(Item::Last("done".into()));
        }
        assert_eq!(streams.lock().len(), MAX_STREAMS);
        assert_eq!(
            live.push(Item::Message("still".into())),
            Pushed::Live,
            "the unfinished stream is kept"
        );
    }
}
