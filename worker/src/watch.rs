//! The view's lag while nobody else reports it: a thread that reads how many
//! commits the login's view is behind, once a [`PERIOD`], and tells the router
//! (`ToRouter::ViewLag`) whenever it changed.
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
                let Some(behind) = lag() else { continue };
                if told == Some(behind) {
                    continue;
                }
                let frame = ToRouter::ViewLag {
                    commits_behind: behind,
                };
                if let Err(e) = sink.send_frame(&frame) {
                    tracing::debug!("the view watch stops: {e}");
                    return;
                }
                told = Some(behind);
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gsmcp_ipc::IpcError;
    use std::sync::atomic::{AtomicU64, Ordering};
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
    fn the_lag_is_told_when_it_changes_and_the_watch_stops_when_told() {
        let lag = Arc::new(AtomicU64::new(0));
        let (tx, rx) = mpsc::channel();
        let (stop_tx, stop_rx) = mpsc::channel();
        let reader = {
            let lag = lag.clone();
            Arc::new(move || Some(lag.load(Ordering::SeqCst))) as LagReader
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
        lag.store(7, Ordering::SeqCst);
        assert_eq!(next(), 7, "a change is told");
        std::thread::sleep(Duration::from_millis(50));
        assert!(rx.try_recv().is_err(), "an unchanged lag is not told again");
        drop(stop_tx);
        watch.join().unwrap();
    }
}
