//! The view's lag while nobody else reports it: a thread that reads the
//! login's view and how many commits it is behind, once a [`PERIOD`], and
//! tells the router the lag (`ToRouter::ViewLag`) whenever either changed:
//! a view that moved and fell behind again by as much is news too.
//!
//! The engine thread reports the view after every call, but a call may run
//! for minutes while other sessions commit, and an idle session hears of no
//! commit at all; the router needs the lag in both cases to move an idle view
//! forward and to interrupt a call whose old view keeps the repository from
//! reclaiming history. The reading needs no login (it is the stone's counter
//! against the view's number), so it runs beside the engine and never waits
//! for it. Only a stone that can say has one ([`crate::backend::LagReader`]).

use crate::backend::LagReader;
use crate::notify::FrameSink;
use gsmcp_ipc::ToRouter;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

/// How often the lag is read.
pub const PERIOD: Duration = Duration::from_secs(1);

/// Starts the watch: it reads `lag` every `period` and sends what changed
/// through `sink`, until `stop` is dropped (or sent to) or a frame cannot be
/// sent.
pub fn spawn(
    lag: LagReader,
    sink: Box<dyn FrameSink>,
    stop: Receiver<()>,
    period: Duration,
) -> std::io::Result<thread::JoinHandle<()>> {
    thread::Builder::new()
        .name("gsmcp-watch".into())
        .spawn(move || {
            let mut told = None;
            while let Err(RecvTimeoutError::Timeout) = stop.recv_timeout(period) {
                let Some(now) = lag() else { continue };
                if told == Some(now) {
                    continue;
                }
                let frame = ToRouter::ViewLag {
                    commits_behind: now.1,
                };
                if let Err(e) = sink.send_frame(&frame) {
                    tracing::debug!("the view watch stops: {e}");
                    return;
                }
                told = Some(now);
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gsmcp_ipc::IpcError;
    use std::sync::{mpsc, Arc, Mutex};

    struct Chan(Mutex<mpsc::Sender<ToRouter>>);
    impl FrameSink for Chan {
        fn send_frame(&self, frame: &ToRouter) -> Result<(), IpcError> {
            self.0
                .lock()
                .unwrap()
                .send(frame.clone())
                .map_err(|_| IpcError::Closed)
        }
    }

    #[test]
    fn the_lag_is_told_when_it_or_the_view_changes_and_the_watch_stops_when_told() {
        // (the view, the newest commit), changed together
        let state = Arc::new(Mutex::new((10u64, 10u64)));
        let (tx, rx) = mpsc::channel();
        let (stop_tx, stop_rx) = mpsc::channel();
        let reader = {
            let state = state.clone();
            Arc::new(move || {
                let (view, latest) = *state.lock().unwrap();
                Some((view, latest - view))
            }) as LagReader
        };
        let watch = spawn(
            reader,
            Box::new(Chan(Mutex::new(tx))),
            stop_rx,
            Duration::from_millis(5),
        )
        .unwrap();
        let next = || match rx.recv_timeout(Duration::from_secs(5)).unwrap() {
            ToRouter::ViewLag { commits_behind } => commits_behind,
            other => panic!("{other:?}"),
        };
        assert_eq!(next(), 0);
        *state.lock().unwrap() = (10, 11);
        assert_eq!(next(), 1, "a change is told");
        std::thread::sleep(Duration::from_millis(50));
        assert!(rx.try_recv().is_err(), "an unchanged lag is not told again");
        // the view moved (a refresh) and another commit came between two
        // readings: the lag is 1 again, and the router must hear it again
        *state.lock().unwrap() = (11, 12);
        assert_eq!(next(), 1, "behind again by as much");
        drop(stop_tx);
        watch.join().unwrap();
    }
}
