//! A stand-in for `gsmcp-worker` that speaks the real frames and is scripted by
//! the tool it is asked to call, so the router's streams, server requests,
//! deadlines, cancellation and view hygiene can be tested end to end without a
//! Smalltalk backend. The router under test starts it through `MCP_WORKER_BIN`.
//!
//! Tools (`tools/call` `params.name`, arguments in `params.arguments`):
//! * `echo` — answers at once with `{"echo": arguments}`.
//! * `progress {steps, logs, decreasing}` — sends `logs` log lines (levels
//!   cycling debug/info/warning) and `steps` progress frames (plus one lower
//!   value after the first when `decreasing`), then answers.
//! * `sample` — sends a `sampling/createMessage` request with the worker's own
//!   id, waits for the `ClientResponse`, and answers with that response.
//! * `busy {cancel, soft, hard, lag}` — reports `ViewLag` with `lag` commits
//!   when given, then spins until an interruption it honours
//!   (`"honour"`/`"ignore"` for each of Cancel, soft Break, hard Break) and
//!   answers with which one ended it.
//! * `sleep {ms}` — blocks the thread, then answers.
//! * `view {behind, dirty, mustAbort}` — reports `ViewStatus` with `behind`
//!   commits (and whether the session holds changes, and whether a commit
//!   failed), then answers.
//! * `lag {behind}` — reports `ViewLag`, as the worker's watch does, then answers.
//! * `refreshes` — answers with how many `Refresh` and `Reclaim` frames
//!   arrived so far.
//! * `standalone` — sends a notification and a `ping` request not tied to the
//!   call (they go to the standalone stream), then answers.
//! * `die` — exits with status 3 without answering.
//! * `test_tool_with_progress`, `test_tool_with_logging`, `test_sampling`,
//!   `test_elicitation` — the shapes the official conformance scenarios of the
//!   same names expect, so the router's side of them can be checked with the
//!   real suite before the worker serves them.
//!
//! It must stay a faithful peer of the frame protocol and nothing more.

use gsmcp_ipc::{read_frame, write_frame, Outcome, Ready, ToRouter, ToWorker, PROTOCOL_VERSION};
use serde_json::{json, Value};
use std::os::unix::net::UnixStream;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::Duration;

struct Peer {
    out: UnixStream,
    inbox: Receiver<ToWorker>,
    refreshes: u64,
    reclaims: u64,
    next_request: u64,
}

impl Peer {
    fn send(&mut self, frame: &ToRouter) {
        if write_frame(&mut self.out, frame).is_err() {
            std::process::exit(0);
        }
    }

    fn reply(&mut self, call_id: u64, id: &Value, result: Value) {
        let message = json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string();
        self.send(&ToRouter::Reply {
            call_id,
            message,
            outcome: Outcome::Ok,
        });
    }

    fn text_result(text: String) -> Value {
        json!({ "content": [{ "type": "text", "text": text }] })
    }

    /// The next frame that is not a Refresh (counted) or a stray control frame.
    fn next(&mut self) -> ToWorker {
        loop {
            match self.inbox.recv() {
                Ok(ToWorker::Refresh) => self.refreshes += 1,
                Ok(ToWorker::Reclaim { .. }) => self.reclaims += 1,
                Ok(ToWorker::Shutdown) | Err(_) => std::process::exit(0),
                Ok(frame) => return frame,
            }
        }
    }
}

fn main() {
    let socket = gsmcp_ipc::startup::ipc_socket().expect("the IPC socket");
    let mut reader = socket.try_clone().expect("clone the socket");
    let (tx, inbox) = mpsc::channel();
    std::thread::spawn(move || loop {
        match read_frame::<ToWorker, _>(&mut reader) {
            Ok(frame) => {
                if tx.send(frame).is_err() {
                    return;
                }
            }
            Err(_) => std::process::exit(0),
        }
    });
    let mut peer = Peer {
        out: socket,
        inbox,
        refreshes: 0,
        reclaims: 0,
        next_request: 1,
    };
    match peer.next() {
        ToWorker::Hello(_) => {}
        _ => std::process::exit(2),
    }
    let tools =
        json!([{ "name": "echo", "description": "echo", "inputSchema": { "type": "object" } }]);
    peer.send(&ToRouter::Ready(Ready {
        protocol: PROTOCOL_VERSION,
        pid: std::process::id(),
        user: "fake".into(),
        stone: "fake".into(),
        tools_json: tools.to_string(),
    }));
    loop {
        let (call_id, request) = match peer.next() {
            ToWorker::Call { call_id, request } => (call_id, request),
            _ => continue,
        };
        let Some(id) = request.id.map(Value::from) else {
            continue;
        };
        let params = request.params.map(Value::from).unwrap_or(Value::Null);
        match request.method.as_str() {
            "initialize" => {
                let version = params["protocolVersion"]
                    .as_str()
                    .unwrap_or("2025-11-25")
                    .to_string();
                peer.reply(
                    call_id,
                    &id,
                    json!({
                        "protocolVersion": version,
                        "capabilities": { "tools": {}, "logging": {} },
                        "serverInfo": { "name": "fake-worker", "version": "0" },
                    }),
                );
            }
            "tools/call" => {
                let name = params["name"].as_str().unwrap_or("").to_string();
                let args = params["arguments"].clone();
                call_tool(&mut peer, call_id, &id, &name, &args);
            }
            "tools/list" => peer.reply(call_id, &id, json!({ "tools": tools })),
            _ => peer.reply(call_id, &id, json!({})),
        }
    }
}

/// Sends a request to the client with the worker's own id and waits for the
/// answer; returns that id and the response.
fn ask(peer: &mut Peer, call_id: u64, method: &str, params: Value) -> (String, Value) {
    let own = format!("worker-{}", peer.next_request);
    peer.next_request += 1;
    let request = json!({ "jsonrpc": "2.0", "id": own, "method": method, "params": params });
    peer.send(&ToRouter::Outbound {
        call_id: Some(call_id),
        message: request.to_string(),
    });
    loop {
        if let ToWorker::ClientResponse { response } = peer.next() {
            return (own, response.into());
        }
    }
}

fn call_tool(peer: &mut Peer, call_id: u64, id: &Value, name: &str, args: &Value) {
    match name {
        "echo" => peer.reply(call_id, id, json!({ "content": [], "structuredContent": { "echo": args } })),
        "progress" => {
            let steps = args["steps"].as_u64().unwrap_or(3);
            let logs = args["logs"].as_u64().unwrap_or(0);
            let levels = ["debug", "info", "warning"];
            for i in 0..logs {
                peer.send(&ToRouter::Log {
                    call_id: Some(call_id),
                    level: levels[i as usize % 3].into(),
                    text: format!("log {i}"),
                });
            }
            let pause = std::time::Duration::from_millis(args["pauseMs"].as_u64().unwrap_or(0));
            for i in 0..steps {
                std::thread::sleep(pause);
                peer.send(&ToRouter::Progress {
                    call_id,
                    progress: (i + 1) as f64,
                    total: Some(steps as f64),
                    message: Some(format!("step {}", i + 1)),
                });
                if i == 0 && args["decreasing"].as_bool() == Some(true) {
                    peer.send(&ToRouter::Progress {
                        call_id,
                        progress: 0.5,
                        total: Some(steps as f64),
                        message: None,
                    });
                }
            }
            peer.reply(call_id, id, Peer::text_result("done".into()));
        }
        "sample" => {
            let params = json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }], "maxTokens": 100 });
            let (own, response) = ask(peer, call_id, "sampling/createMessage", params);
            peer.reply(
                call_id,
                id,
                json!({ "content": [], "structuredContent": { "sent_id": own, "response": response } }),
            );
        }
        "test_tool_with_progress" => {
            for p in [0.0, 50.0, 100.0] {
                peer.send(&ToRouter::Progress { call_id, progress: p, total: Some(100.0), message: None });
                std::thread::sleep(Duration::from_millis(20));
            }
            peer.reply(call_id, id, Peer::text_result("progress done".into()));
        }
        "test_tool_with_logging" => {
            for text in ["starting", "working", "finished"] {
                peer.send(&ToRouter::Log { call_id: Some(call_id), level: "info".into(), text: text.into() });
                std::thread::sleep(Duration::from_millis(20));
            }
            peer.reply(call_id, id, Peer::text_result("logging done".into()));
        }
        "test_sampling" => {
            let prompt = args["prompt"].as_str().unwrap_or("").to_string();
            let params = json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }], "maxTokens": 100 });
            let (_, response) = ask(peer, call_id, "sampling/createMessage", params);
            peer.reply(call_id, id, Peer::text_result(format!("LLM response: {}", response["result"]["content"]["text"])));
        }
        "test_elicitation" => {
            let params = json!({
                "message": args["message"].as_str().unwrap_or(""),
                "requestedSchema": { "type": "object", "properties": {
                    "username": { "type": "string" }, "email": { "type": "string" } },
                    "required": ["username", "email"] },
            });
            let (_, response) = ask(peer, call_id, "elicitation/create", params);
            peer.reply(call_id, id, Peer::text_result(format!("User response: {}", response["result"])));
        }
        "busy" => {
            if let Some(lag) = args["lag"].as_u64() {
                peer.send(&ToRouter::ViewLag { commits_behind: lag });
            }
            let honours = |key: &str| args[key].as_str() != Some("ignore");
            let ended_by = loop {
                match peer.inbox.try_recv() {
                    Ok(ToWorker::Cancel { call_id: c }) if c == call_id && honours("cancel") => {
                        break "cancel"
                    }
                    Ok(ToWorker::Break { hard: false }) if honours("soft") => break "softBreak",
                    Ok(ToWorker::Break { hard: true }) if honours("hard") => break "hardBreak",
                    Ok(ToWorker::Shutdown) => std::process::exit(0),
                    Ok(ToWorker::Refresh) => peer.refreshes += 1,
                    Ok(_) => {}
                    Err(TryRecvError::Empty) => std::hint::spin_loop(),
                    Err(TryRecvError::Disconnected) => std::process::exit(0),
                }
            };
            let message = json!({ "jsonrpc": "2.0", "id": id, "result": {
                "content": [{ "type": "text", "text": format!("interrupted by {ended_by}") }],
                "isError": true,
                "structuredContent": { "endedBy": ended_by },
            }});
            peer.send(&ToRouter::Reply { call_id, message: message.to_string(), outcome: Outcome::Ok });
        }
        "sleep" => {
            std::thread::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(100)));
            peer.reply(call_id, id, Peer::text_result("slept".into()));
        }
        "view" => {
            peer.send(&ToRouter::ViewStatus {
                commits_behind: Some(args["behind"].as_u64().unwrap_or(0)),
                needs_commit: args["dirty"].as_bool().unwrap_or(false),
                must_abort: args["mustAbort"].as_bool().unwrap_or(false),
            });
            peer.reply(call_id, id, Peer::text_result("view reported".into()));
        }
        "lag" => {
            peer.send(&ToRouter::ViewLag { commits_behind: args["behind"].as_u64().unwrap_or(0) });
            peer.reply(call_id, id, Peer::text_result("lag reported".into()));
        }
        "refreshes" => {
            let (n, r) = (peer.refreshes, peer.reclaims);
            peer.reply(call_id, id, json!({ "content": [], "structuredContent": { "refreshes": n, "reclaims": r } }));
        }
        "standalone" => {
            let note = json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": "test://x" } });
            peer.send(&ToRouter::Outbound { call_id: None, message: note.to_string() });
            peer.reply(call_id, id, Peer::text_result("sent".into()));
        }
        "die" => std::process::exit(3),
        other => peer.reply(
            call_id,
            id,
            json!({ "content": [{ "type": "text", "text": format!("unknown tool {other}") }], "isError": true }),
        ),
    }
}
