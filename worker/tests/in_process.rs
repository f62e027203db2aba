//! The worker's serve loop run inside the test process, over an in-memory
//! byte pipe instead of a socket (`serve_over`): the same frames as the router
//! sends, answered by the same engine thread on a real in-memory image. The
//! end-to-end tests over real processes (`ipc_session.rs`, the `tests` crate)
//! cover the process around it.

use gsmcp_ipc::jsonrpc::{self, Request};
use gsmcp_ipc::{
    read_frame, write_frame, Backend, Credential, Hello, ToRouter, ToWorker, PROTOCOL_VERSION,
};
use serde_json::{json, Value};
use std::io::{self, Read, Write};
use std::sync::mpsc;
use std::time::Duration;

/// Guards against a hung loop turning into a hung test; not an assertion on speed.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// One direction of an in-memory byte pipe: writes are chunks on a channel.
struct PipeWriter(mpsc::Sender<Vec<u8>>);

struct PipeReader {
    chunks: mpsc::Receiver<Vec<u8>>,
    pending: Vec<u8>,
    at: usize,
}

fn pipe() -> (PipeWriter, PipeReader) {
    let (tx, rx) = mpsc::channel();
    (
        PipeWriter(tx),
        PipeReader {
            chunks: rx,
            pending: Vec::new(),
            at: 0,
        },
    )
}

impl Write for PipeWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .send(buf.to_vec())
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.pending.len() {
            match self.chunks.recv_timeout(HANG_GUARD) {
                Ok(chunk) => (self.pending, self.at) = (chunk, 0),
                // the writer is gone: end of stream
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(0),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(io::Error::from(io::ErrorKind::TimedOut))
                }
            }
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn hello() -> Hello {
    Hello {
        protocol: PROTOCOL_VERSION,
        session_id: "fedcba9876543210fedcba9876543210".into(),
        port: 0,
        backend: Backend::Embedded {
            repository: None,
            user: "DataCurator".into(),
            credential: Credential::Password("swordfish".into()),
        },
        toolsets: vec!["Execution".into(), "Session".into()],
        options: vec![],
        server_name: "gsmcp".into(),
        server_version: "0".into(),
        title: None,
        instructions: None,
        log_filter: "warn".into(),
        memory: 1 << 30,
        withheld: Vec::new(),
        read_only: false,
        one_shot: false,
    }
}

fn request(id: u64, method: &str, params: Value) -> Request {
    let text = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    Request::from_message(jsonrpc::classify(text.to_string().as_bytes()).unwrap()).unwrap()
}

/// Frames until the Reply to `call_id`, parsed.
fn reply(from_worker: &mut PipeReader, call_id: u64) -> Value {
    loop {
        match read_frame::<ToRouter, _>(from_worker).expect("a frame") {
            ToRouter::Reply {
                call_id: c,
                message,
                ..
            } => {
                assert_eq!(c, call_id);
                return serde_json::from_str(&message).unwrap();
            }
            ToRouter::ViewStatus { .. } | ToRouter::ViewLag { .. } | ToRouter::Log { .. } => {}
            other => panic!("unexpected frame {other:?}"),
        }
    }
}

#[test]
fn a_session_is_served_over_an_in_memory_pipe() {
    let (mut to_worker, worker_in) = pipe();
    let (worker_out, mut from_worker) = pipe();
    let serving =
        std::thread::spawn(move || gsmcp_worker::serve_over(worker_in, worker_out, hello()));
    match read_frame::<ToRouter, _>(&mut from_worker).expect("Ready") {
        ToRouter::Ready(ready) => {
            assert_eq!(ready.user, "DataCurator");
            let tools: Value = serde_json::from_str(&ready.tools_json).unwrap();
            assert!(tools
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["name"] == "execute_code"));
        }
        other => panic!("expected Ready, got {other:?}"),
    }
    // (request, a path into the answer, what it must be)
    let table: Vec<(Request, &str, Value)> = vec![
        (
            request(
                1,
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
            ),
            "/result/protocolVersion",
            json!("2025-06-18"),
        ),
        (request(2, "ping", json!({})), "/result", json!({})),
        (
            request(
                3,
                "tools/call",
                json!({"name": "execute_code", "arguments": {"code": "3 + 4"}}),
            ),
            "/result/content/0/text",
            json!("7"),
        ),
        (
            request(
                4,
                "tools/call",
                json!({"name": "execute_code", "arguments": {"code": "UserGlobals at: #InProcess put: 42"}}),
            ),
            "/result/isError",
            json!(false),
        ),
        (
            request(
                5,
                "tools/call",
                json!({"name": "execute_code", "arguments": {"code": "(UserGlobals at: #InProcess) + 1"}}),
            ),
            "/result/content/0/text",
            json!("43"),
        ),
        (
            request(6, "no/such", json!({})),
            "/error/code",
            json!(jsonrpc::METHOD_NOT_FOUND),
        ),
        (
            request(
                7,
                "tools/call",
                json!({"name": "find_senders", "arguments": {}}),
            ),
            "/error/code",
            json!(jsonrpc::INVALID_PARAMS),
        ),
    ];
    for (call_id, (req, path, expected)) in (1u64..).zip(table) {
        let method = req.method.clone();
        write_frame(
            &mut to_worker,
            &ToWorker::Call {
                call_id,
                request: req,
            },
        )
        .unwrap();
        let answer = reply(&mut from_worker, call_id);
        assert_eq!(answer["id"], json!(call_id), "{method}: {answer}");
        assert_eq!(answer.pointer(path), Some(&expected), "{method}: {answer}");
    }
    write_frame(&mut to_worker, &ToWorker::Shutdown).unwrap();
    serving
        .join()
        .unwrap()
        .expect("the loop ends cleanly on Shutdown");
}

#[test]
fn the_loop_ends_when_its_input_ends() {
    let (to_worker, worker_in) = pipe();
    let (worker_out, mut from_worker) = pipe();
    let serving =
        std::thread::spawn(move || gsmcp_worker::serve_over(worker_in, worker_out, hello()));
    assert!(matches!(
        read_frame::<ToRouter, _>(&mut from_worker),
        Ok(ToRouter::Ready(_))
    ));
    drop(to_worker);
    serving
        .join()
        .unwrap()
        .expect("end of input is a clean end");
}
