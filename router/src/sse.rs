//! Server-Sent Events: the response body that carries an event stream, the
//! wire format of events, and the writer task that feeds one stream.
//!
//! A stream is fed by exactly one writer task. The writer writes the priming
//! event (an id to resume from, and the reconnection delay in `retry`), then
//! each event it is handed with the id it was given (`crate::replay`
//! numbers and keeps them), and keep-alive comments while nothing else is
//! sent. Every write waits at most `write_timeout` for the client to take it,
//! so a client that stops reading costs one stalled task for that long, never
//! the session. The writer ends when its feed closes (stream superseded),
//! after the last event, when it is told to release the connection (the
//! client is to reconnect and resume), when a write times out, or when hyper
//! drops the body (the client went away); it then reports the end through
//! `on_close`. This module knows SSE framing and nothing of sessions or
//! JSON-RPC.

use crate::replay::Delivery;
use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

/// How many events may wait between the writer and hyper.
const BODY_BUFFER: usize = 4;

/// A streamed response body fed from a channel.
pub struct SseBody {
    rx: mpsc::Receiver<Bytes>,
}

impl Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.rx.poll_recv(cx).map(|o| o.map(|b| Ok(Frame::data(b))))
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

pub use crate::replay::Item;

/// One SSE event with an id and JSON data.
pub fn event(id: &str, data: &str) -> Bytes {
    // JSON text from serde never contains a raw newline, but a worker's text
    // might; each line must be its own `data:` field.
    let mut out = format!("id: {id}\nevent: message\n");
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line.trim_end_matches('\r'));
        out.push('\n');
    }
    out.push('\n');
    Bytes::from(out)
}

/// How long a client waits before it reconnects, in milliseconds (the
/// `retry` field of the priming event and of a released connection).
pub const RETRY_MS: u64 = 1000;

/// The priming event: an id and empty data, so the client has an id to
/// resume from, and the reconnection delay.
pub fn priming(id: &str) -> Bytes {
    Bytes::from(format!("id: {id}\nretry: {RETRY_MS}\ndata: \n\n"))
}

/// A keep-alive comment, ignored by clients.
pub fn keep_alive() -> Bytes {
    Bytes::from_static(b": keep-alive\n\n")
}

/// How one stream is written.
#[derive(Debug, Clone)]
pub struct WriterConfig {
    /// The session-unique stream number, the prefix of every event id.
    pub stream: u64,
    /// The id of the priming event the stream opens with (the session era's
    /// streams can be resumed from it); none for the stateless era's, which
    /// cannot be resumed.
    pub priming: Option<String>,
    /// The interval of keep-alive comments.
    pub keep_alive: Duration,
    /// The longest one write may take before the stream is given up.
    pub write_timeout: Duration,
    /// The message trace of the stream's frames, when the trace is on.
    pub trace: Option<crate::trace::StreamTrace>,
}

/// Why a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Its feed closed or the last message was written.
    Finished,
    /// It was told to close the connection; the stream lives on.
    Released,
    /// The client went away (hyper dropped the body).
    ClientGone,
    /// The client did not take a write within the write timeout.
    Stalled,
}

/// Creates a body and starts its writer, which writes what `feed` delivers.
/// `on_close` runs once when the writer ends.
pub fn start(
    config: WriterConfig,
    feed: mpsc::UnboundedReceiver<Delivery>,
    on_close: impl FnOnce(End) + Send + 'static,
) -> SseBody {
    let (tx, rx) = mpsc::channel(BODY_BUFFER);
    tokio::spawn(async move {
        let stream = config.stream;
        let end = write_all(config, feed, tx).await;
        tracing::debug!(stream, ?end, "event stream ended");
        on_close(end);
    });
    SseBody { rx }
}

async fn put(tx: &mpsc::Sender<Bytes>, bytes: Bytes, timeout: Duration) -> Result<(), End> {
    match tokio::time::timeout(timeout, tx.send(bytes)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(End::ClientGone),
        Err(_) => Err(End::Stalled),
    }
}

async fn write_all(
    config: WriterConfig,
    mut feed: mpsc::UnboundedReceiver<Delivery>,
    tx: mpsc::Sender<Bytes>,
) -> End {
    let timeout = config.write_timeout;
    if let Some(id) = &config.priming {
        if let Err(e) = put(&tx, priming(id), timeout).await {
            return e;
        }
    }
    let mut tick = tokio::time::interval_at(
        tokio::time::Instant::now() + config.keep_alive,
        config.keep_alive,
    );
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let delivery = tokio::select! {
            d = feed.recv() => match d {
                Some(d) => d,
                None => return End::Finished,
            },
            _ = tick.tick() => {
                if let Err(e) = put(&tx, keep_alive(), timeout).await {
                    return e;
                }
                continue;
            }
            _ = tx.closed() => return End::ClientGone,
        };
        let entry = match delivery {
            Delivery::Event(entry) => entry,
            Delivery::Release => {
                let retry = Bytes::from(format!("retry: {RETRY_MS}\n\n"));
                return match put(&tx, retry, timeout).await {
                    Ok(()) => End::Released,
                    Err(e) => e,
                };
            }
        };
        if let Some(trace) = &config.trace {
            trace.frame(&entry.text);
        }
        if let Err(e) = put(&tx, event(&entry.id, &entry.text), timeout).await {
            return e;
        }
        tick.reset();
        if entry.last {
            return End::Finished;
        }
    }
}

/// A feed of `items` already numbered `<stream>-1`, `<stream>-2`, ... for a
/// stream that is not kept for replay (the stateless era's).
pub fn unkept(stream: u64) -> (UnkeptFeed, mpsc::UnboundedReceiver<Delivery>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (UnkeptFeed { tx, stream, seq: 0 }, rx)
}

/// What [`unkept`] answers: numbers items as it sends them.
pub struct UnkeptFeed {
    tx: mpsc::UnboundedSender<Delivery>,
    stream: u64,
    seq: u64,
}

impl UnkeptFeed {
    /// Sends `item`; false if the writer is gone.
    pub fn send(&mut self, item: Item) -> bool {
        self.seq += 1;
        let (text, last) = match item {
            Item::Message(t) => (t, false),
            Item::Last(t) => (t, true),
        };
        let entry = crate::replay::Entry {
            id: format!("{}-{}", self.stream, self.seq),
            text,
            last,
        };
        self.tx.send(Delivery::Event(entry)).is_ok()
    }

    /// Resolves when the writer is gone.
    pub async fn closed(&self) {
        self.tx.closed().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[test]
    fn event_format() {
        assert_eq!(
            &event("3-1", "{\"a\":1}")[..],
            b"id: 3-1\nevent: message\ndata: {\"a\":1}\n\n"
        );
        assert_eq!(
            &event("1-2", "a\nb")[..],
            b"id: 1-2\nevent: message\ndata: a\ndata: b\n\n"
        );
        assert_eq!(&priming("0-0")[..], b"id: 0-0\nretry: 1000\ndata: \n\n");
    }

    #[tokio::test]
    async fn writes_priming_messages_and_ends_after_the_last() {
        let (mut feed_tx, feed) = unkept(5);
        let (end_tx, end_rx) = tokio::sync::oneshot::channel();
        let cfg = WriterConfig {
            stream: 5,
            keep_alive: Duration::from_secs(60),
            write_timeout: Duration::from_secs(5),
            priming: Some("5-0".into()),
            trace: None,
        };
        feed_tx.send(Item::Message("m0".into()));
        let body = start(cfg, feed, move |e| {
            let _ = end_tx.send(e);
        });
        feed_tx.send(Item::Message("m1".into()));
        feed_tx.send(Item::Last("r".into()));
        let all = body.collect().await.unwrap().to_bytes();
        let text = String::from_utf8(all.to_vec()).unwrap();
        assert_eq!(
            text,
            "id: 5-0\nretry: 1000\ndata: \n\nid: 5-1\nevent: message\ndata: m0\n\nid: 5-2\nevent: message\ndata: m1\n\nid: 5-3\nevent: message\ndata: r\n\n"
        );
        assert_eq!(end_rx.await.unwrap(), End::Finished);
    }

    #[tokio::test(start_paused = true)]
    async fn a_reader_that_stops_is_dropped_after_the_write_timeout() {
        let (mut feed_tx, feed) = unkept(1);
        let (end_tx, end_rx) = tokio::sync::oneshot::channel();
        let cfg = WriterConfig {
            stream: 1,
            keep_alive: Duration::from_secs(1),
            write_timeout: Duration::from_secs(2),
            priming: Some("1-0".into()),
            trace: None,
        };
        let body = start(cfg, feed, move |e| {
            let _ = end_tx.send(e);
        });
        for i in 0..20 {
            feed_tx.send(Item::Message(format!("m{i}")));
        }
        // Nobody polls the body: the buffer fills and a write times out.
        assert_eq!(end_rx.await.unwrap(), End::Stalled);
        drop(body);
    }

    #[tokio::test(start_paused = true)]
    async fn keep_alive_comments_and_client_gone() {
        let (_feed_tx, feed) = unkept(2);
        let (end_tx, end_rx) = tokio::sync::oneshot::channel();
        let cfg = WriterConfig {
            stream: 2,
            keep_alive: Duration::from_secs(15),
            write_timeout: Duration::from_secs(5),
            priming: Some("2-0".into()),
            trace: None,
        };
        let mut body = start(cfg, feed, move |e| {
            let _ = end_tx.send(e);
        });
        let f = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(&f[..], b"id: 2-0\nretry: 1000\ndata: \n\n");
        let f = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(&f[..], b": keep-alive\n\n");
        drop(body);
        assert_eq!(end_rx.await.unwrap(), End::ClientGone);
    }
}
