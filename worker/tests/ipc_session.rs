//! Drives the real `gsmcp-worker` binary exactly as the router does: a Unix
//! socketpair with the worker's end on fd 3, `Hello`, then JSON-RPC messages in
//! `Call` frames. Covers the handshake (and every way it fails), the MCP methods,
//! argument validation, toolset selection, cancel/break, shutdown, view hygiene
//! (Refresh and its note), and what a running call says to the client: progress,
//! logs, server requests answered by `ClientResponse` (or ended by cancel and
//! break), and the Conformance toolset's prompts, resources and completions.

use gsmcp_ipc::jsonrpc::{self, Request};
use gsmcp_ipc::startup;
use gsmcp_ipc::{
    read_frame, write_frame, Backend, Credential, Hello, Outcome, Ready, ToRouter, ToWorker,
    PROTOCOL_VERSION,
};
use serde_json::{json, Value};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

/// Guards against a hung worker turning into a hung test; not an assertion on speed.
const HANG_GUARD: Duration = Duration::from_secs(60);

fn hello() -> Hello {
    Hello {
        protocol: PROTOCOL_VERSION,
        session_id: "0123456789abcdef0123456789abcdef".into(),
        port: 0,
        backend: Backend::Embedded {
            repository: None,
            user: "DataCurator".into(),
            credential: Credential::Password("swordfish".into()),
        },
        toolsets: vec![],
        options: vec![],
        server_name: "gsmcp".into(),
        server_version: "0.1.0".into(),
        title: Some("GemStone".into()),
        instructions: None,
        log_filter: "warn".into(),
        memory: 1 << 30,
        withheld: Vec::new(),
        read_only: false,
        one_shot: false,
    }
}

struct Worker {
    child: Child,
    sock: UnixStream,
    next_call: u64,
    /// The last `ViewStatus` seen: (commits behind, needs commit).
    view: Option<(Option<u64>, bool)>,
    /// Every `ViewLag` seen, in order.
    lags: Vec<u64>,
    /// Whether the last `ViewStatus` said only an abort can move the view.
    must_abort: bool,
}

impl Worker {
    /// Starts the binary with its end of a fresh socketpair on fd 3.
    fn start() -> Worker {
        let (ours, theirs) = UnixStream::pair().expect("socketpair");
        let fd = theirs.as_raw_fd();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gsmcp-worker"));
        cmd.args(startup::worker_args(0, "01234567", "DataCurator"))
            .env(startup::IPC_FD_ENV, startup::IPC_FD.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: in the child between fork and exec, as `prepare_child` requires.
        unsafe {
            cmd.pre_exec(move || startup::prepare_child(fd, parent));
        }
        let child = cmd.spawn().expect("spawn gsmcp-worker");
        drop(theirs);
        ours.set_read_timeout(Some(HANG_GUARD)).unwrap();
        Worker {
            child,
            sock: ours,
            next_call: 1,
            view: None,
            lags: Vec::new(),
            must_abort: false,
        }
    }

    fn send(&mut self, frame: &ToWorker) {
        write_frame(&mut self.sock, frame).expect("write frame");
    }

    /// The next frame but the view watch's lag reports, which are recorded
    /// (they come whenever the lag changes, between any two frames).
    fn recv(&mut self) -> ToRouter {
        loop {
            match read_frame(&mut self.sock).expect("read frame") {
                ToRouter::ViewLag { commits_behind } => self.lags.push(commits_behind),
                other => return other,
            }
        }
    }

    /// The next frame, which must be a `ViewStatus`: (commits behind, needs
    /// commit, must abort).
    fn view_status(&mut self) -> (Option<u64>, bool, bool) {
        match self.recv() {
            ToRouter::ViewStatus {
                commits_behind,
                needs_commit,
                must_abort,
            } => (commits_behind, needs_commit, must_abort),
            other => panic!("expected the view status, got {other:?}"),
        }
    }

    fn handshake(&mut self, h: Hello) -> ToRouter {
        self.send(&ToWorker::Hello(h));
        self.recv()
    }

    /// A worker that answered Ready to `h`.
    fn ready(h: Hello) -> (Worker, Ready) {
        let mut w = Worker::start();
        match w.handshake(h) {
            ToRouter::Ready(r) => (w, r),
            other => panic!("expected Ready, got {other:?}"),
        }
    }

    /// Sends one request or notification as a Call, read as the router
    /// reads it; answers its call id.
    fn call_raw(&mut self, message: &Value) -> u64 {
        let call_id = self.next_call;
        self.next_call += 1;
        let classified = jsonrpc::classify(message.to_string().as_bytes()).expect("a message");
        let request = Request::from_message(classified).expect("a request or notification");
        self.send(&ToWorker::Call { call_id, request });
        call_id
    }

    /// The next Reply, checked against `call_id`, parsed. View status frames
    /// (sent after each call on a repository) are recorded on the way.
    fn reply(&mut self, call_id: u64) -> Value {
        loop {
            match self.recv() {
                ToRouter::Reply {
                    call_id: got,
                    message,
                    outcome,
                } => {
                    assert_eq!(got, call_id, "reply for the wrong call: {message}");
                    let reply: Value = serde_json::from_str(&message).expect("reply is JSON");
                    assert_eq!(outcome, outcome_of(&reply), "the outcome of {message}");
                    return reply;
                }
                ToRouter::ViewStatus {
                    commits_behind,
                    needs_commit,
                    must_abort,
                } => {
                    self.view = Some((commits_behind, needs_commit));
                    self.must_abort = must_abort;
                }
                other => panic!("expected a Reply, got {other:?}"),
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_call;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let call = self.call_raw(&msg);
        let v = self.reply(call);
        assert_eq!(v["id"], json!(id), "reply carries the request's id");
        v
    }

    fn tool(&mut self, name: &str, args: Value) -> Value {
        let v = self.request("tools/call", json!({"name": name, "arguments": args}));
        v.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {name} answered an error: {v}"))
    }

    fn wait(mut self) -> ExitStatus {
        self.child.wait().expect("wait for the worker")
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn handshake_answers_ready_with_the_tool_list() {
    let (w, ready) = Worker::ready(hello());
    assert_eq!(ready.protocol, PROTOCOL_VERSION);
    assert_eq!(ready.pid, w.child.id());
    assert_eq!(ready.user, "DataCurator");
    assert!(!ready.stone.is_empty());
    let tools: Value = serde_json::from_str(&ready.tools_json).expect("tools_json is JSON");
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "execute_code",
            "abort",
            "commit",
            "refresh",
            "status",
            "list_all_classes",
            "list_classes",
            "list_dictionaries",
            "list_dictionary_entries",
            "describe_class",
            "export_class_source",
            "get_class_definition",
            "get_class_hierarchy",
            "get_method_source",
            "list_methods",
            "find_implementors",
            "find_references_to",
            "find_senders",
            "search_method_source",
            "add_dictionary",
            "compile_class_definition",
            "compile_method",
            "delete_class",
            "delete_method",
            "file_in",
            "format_source",
            "remove_dictionary",
            "set_class_comment",
            "rename_method",
            "change_method_signature",
            "generate_accessors",
            "push_up_methods",
            "push_down_methods",
            "move_method",
            "add_instance_variable",
            "remove_instance_variable",
            "rename_instance_variable",
            "rename_class",
            "extract_temporary",
            "inline_temporary",
            "extract_method",
            "inline_method",
            "list_test_classes",
            "run_test_class",
            "run_test_method",
            "list_failing_tests",
            "describe_test_failure"
        ]
    );
    for t in tools.as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object");
        assert_eq!(t["inputSchema"]["additionalProperties"], false);
    }
}

#[test]
fn handshake_failures_are_reported_and_the_worker_exits_nonzero() {
    // a local stone through the library under `gemstone`
    let gci_under = |gemstone: &str, user: &str, credential: Credential| Backend::Gci {
        gemstone: Some(gemstone.into()),
        library: None,
        stone: "gs64stone".into(),
        gem_nrs: "gemnetobject".into(),
        netldi: None,
        host_user: None,
        host_password: None,
        user: user.into(),
        credential,
    };
    let gci = gci_under(
        "/nonexistent/gemstone",
        "DataCurator",
        Credential::Password("swordfish".into()),
    );
    // a product directory whose library predates JWT logins (3.7.4.1)
    let old = std::env::temp_dir().join(format!("gsmcp-old-gci-{}", std::process::id()));
    std::fs::create_dir_all(old.join("lib")).unwrap();
    std::fs::write(old.join("lib/libgcits-3.7.2-64.so"), b"").unwrap();
    let old_gci = gci_under(
        &old.display().to_string(),
        "alice",
        Credential::Jwt("eyJhbGciOiJFUzI1NiJ9.e30.c2ln".into()),
    );
    let table: Vec<(&str, Hello, &str, &str)> = vec![
        (
            "protocol",
            Hello {
                protocol: PROTOCOL_VERSION + 1,
                ..hello()
            },
            "protocol",
            "frame protocol",
        ),
        (
            "gci",
            Hello {
                backend: gci,
                ..hello()
            },
            "library",
            "/nonexistent/gemstone/lib",
        ),
        (
            "toolset",
            Hello {
                toolsets: vec!["Session".into(), "Bogus".into()],
                ..hello()
            },
            "config",
            "Bogus",
        ),
        (
            "user",
            Hello {
                backend: Backend::Embedded {
                    repository: None,
                    user: "Nobody".into(),
                    credential: Credential::Password("x".into()),
                },
                ..hello()
            },
            "login",
            "Nobody",
        ),
        (
            "token on an in-memory image",
            Hello {
                backend: Backend::Embedded {
                    repository: None,
                    user: "DataCurator".into(),
                    credential: Credential::Jwt("eyJhbGciOiJFUzI1NiJ9.e30.c2ln".into()),
                },
                ..hello()
            },
            "login",
            "no users of its own",
        ),
        (
            "token on a library before 3.7.4.1",
            Hello {
                backend: old_gci,
                ..hello()
            },
            "library",
            "3.7.4.1 or later",
        ),
    ];
    for (case, h, kind, mentions) in table {
        let mut w = Worker::start();
        match w.handshake(h) {
            ToRouter::Failed { kind: k, message } => {
                assert_eq!(k, kind, "{case}: {message}");
                assert!(
                    message.contains(mentions),
                    "{case}: {message:?} should mention {mentions:?}"
                );
            }
            other => panic!("{case}: expected Failed, got {other:?}"),
        }
        let status = w.wait();
        assert!(
            !status.success(),
            "{case}: the worker must exit non-zero, got {status}"
        );
    }
    let _ = std::fs::remove_dir_all(&old);
}

#[test]
fn a_first_frame_other_than_hello_ends_the_worker() {
    let mut w = Worker::start();
    w.send(&ToWorker::Shutdown);
    let status = w.wait();
    assert!(!status.success(), "{status}");
}

#[test]
fn garbage_on_the_socket_ends_the_worker_loudly() {
    let (mut w, _) = Worker::ready(hello());
    // A length prefix over the limit: the worker must refuse it, not allocate it.
    w.sock.write_all(&u32::MAX.to_le_bytes()).unwrap();
    let status = w.wait();
    assert!(!status.success(), "{status}");
}

#[test]
fn a_second_hello_ends_the_worker_loudly() {
    let (mut w, _) = Worker::ready(hello());
    w.send(&ToWorker::Hello(hello()));
    let status = w.wait();
    assert!(!status.success(), "{status}");
}

#[test]
fn initialize_negotiates_the_protocol_version() {
    let (mut w, _) = Worker::ready(hello());
    let table = [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ];
    for (requested, answered) in table {
        let v = w.request(
            "initialize",
            json!({"protocolVersion": requested, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        let r = &v["result"];
        assert_eq!(r["protocolVersion"], answered, "requested {requested}");
        assert_eq!(
            r["capabilities"],
            json!({"tools": {"listChanged": false}, "logging": {},
                   "prompts": {"listChanged": false}, "completions": {},
                   "resources": {"subscribe": true, "listChanged": false}}),
            "the Workflow toolset's prompts, the Browsing toolset's resources (and their \
             completion)"
        );
        assert_eq!(
            r["serverInfo"],
            json!({"name": "gsmcp", "version": "0.1.0", "title": "GemStone"})
        );
        let instructions = r["instructions"].as_str().expect("default instructions");
        assert!(instructions.contains("commit"), "{instructions}");
        // which rules end a session, and that uncommitted work goes with it
        assert!(
            instructions.contains("idle timeout") && instructions.contains("discarded"),
            "{instructions}"
        );
    }
}

#[test]
fn configured_instructions_replace_the_default() {
    let (mut w, _) = Worker::ready(Hello {
        instructions: Some("Be careful.".into()),
        title: None,
        ..hello()
    });
    let v = w.request("initialize", json!({"protocolVersion": "2025-11-25"}));
    assert_eq!(v["result"]["instructions"], "Be careful.");
    assert_eq!(
        v["result"]["serverInfo"],
        json!({"name": "gsmcp", "version": "0.1.0"})
    );
}

#[test]
fn protocol_faults_are_json_rpc_errors() {
    let (mut w, _) = Worker::ready(hello());
    // (method, params, expected code, substring of the message)
    let table: Vec<(&str, Value, i64, &str)> = vec![
        ("tools/list", json!({"cursor": "abc"}), -32602, "cursor"),
        ("no/such/method", json!({}), -32601, "no/such/method"),
        (
            "logging/setLevel",
            json!({"level": "info"}),
            -32601,
            "logging/setLevel",
        ),
        ("tools/list", json!([1, 2]), -32602, "params"),
        ("tools/call", json!({}), -32602, "name"),
        ("tools/call", json!({"name": 7}), -32602, "name"),
        (
            "tools/call",
            json!({"name": "no_such_tool"}),
            -32602,
            "no_such_tool",
        ),
        (
            "tools/call",
            json!({"name": "status", "arguments": "x"}),
            -32602,
            "arguments",
        ),
        ("initialize", json!({}), -32602, "protocolVersion"),
    ];
    for (method, params, code, mentions) in table {
        let v = w.request(method, params.clone());
        assert_eq!(v["error"]["code"], code, "{method} {params}: {v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains(mentions),
            "{method} {params}: {msg:?} should mention {mentions:?}"
        );
    }
}

#[test]
fn ping_and_tools_list() {
    let (mut w, ready) = Worker::ready(hello());
    assert_eq!(w.request("ping", json!({}))["result"], json!({}));
    let v = w.request("tools/list", json!({}));
    let listed = &v["result"]["tools"];
    assert_eq!(
        listed,
        &serde_json::from_str::<Value>(&ready.tools_json).unwrap()
    );
    assert!(v["result"].get("nextCursor").is_none());
    let exec = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "execute_code")
        .unwrap();
    assert_eq!(exec["inputSchema"]["required"], json!(["code"]));
    assert_eq!(exec["inputSchema"]["properties"]["code"]["type"], "string");
    assert_eq!(exec["annotations"]["readOnlyHint"], false);
    let status = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "status")
        .unwrap();
    assert_eq!(status["annotations"]["readOnlyHint"], true);
}

/// The router passes on every well-formed request; one the worker cannot
/// serve still gets exactly one answer, with its id.
#[test]
fn requests_the_worker_cannot_serve_get_exactly_one_answer() {
    let (mut w, _) = Worker::ready(hello());
    // (message, expected code)
    let table: Vec<(Value, i64)> = vec![
        (
            json!({"jsonrpc": "2.0", "id": 9, "method": "no/such"}),
            -32601,
        ),
        (
            json!({"jsonrpc": "2.0", "id": "k", "method": "ping", "params": [1]}),
            -32602,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 4}}),
            -32602,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {}}),
            -32602,
        ),
        (
            json!({"jsonrpc": "2.0", "id": u64::MAX, "method": "tools/call",
                   "params": {"name": "execute_code", "arguments": [1]}}),
            -32602,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {}}),
            -32602,
        ),
    ];
    for (message, code) in table {
        let call = w.call_raw(&message);
        let v = w.reply(call);
        assert_eq!(v["error"]["code"], code, "{message}: {v}");
        assert_eq!(v["id"], message["id"], "{message}: {v}");
    }
}

#[test]
fn notifications_get_no_reply() {
    let (mut w, _) = Worker::ready(hello());
    for n in [
        "notifications/initialized",
        "notifications/cancelled",
        "notifications/whatever",
    ] {
        w.call_raw(&json!({"jsonrpc": "2.0", "method": n}));
    }
    // The next frame the worker sends is the ping's reply.
    let v = w.request("ping", json!({}));
    assert_eq!(v["result"], json!({}));
}

#[test]
fn invalid_arguments_are_tool_errors_naming_the_argument() {
    let (mut w, _) = Worker::ready(hello());
    // (tool, arguments, substring of the message)
    let table: Vec<(&str, Value, &str)> = vec![
        ("execute_code", json!({}), "'code'"),
        (
            "execute_code",
            json!({"code": 3}),
            "'code' must be a string",
        ),
        (
            "execute_code",
            json!({"code": "3", "extra": true}),
            "'extra'",
        ),
        ("execute_code", json!({"source": "3"}), "'source'"),
        ("status", json!({"verbose": true}), "'verbose'"),
    ];
    for (tool, args, mentions) in table {
        let r = w.tool(tool, args.clone());
        assert_eq!(r["isError"], true, "{tool} {args}: {r}");
        assert_eq!(
            r["structuredContent"]["error"]["kind"], "invalidParams",
            "{tool} {args}: {r}"
        );
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(mentions),
            "{tool} {args}: {text:?} should mention {mentions:?}"
        );
    }
    // A tool without arguments may be called with none, null or {}.
    for params in [
        json!({"name": "status"}),
        json!({"name": "status", "arguments": null}),
    ] {
        let v = w.request("tools/call", params.clone());
        assert!(v.get("result").is_some(), "{params}: {v}");
    }
}

#[test]
fn only_the_configured_toolsets_are_served() {
    let (mut w, ready) = Worker::ready(Hello {
        toolsets: vec!["session".into()],
        ..hello()
    });
    let tools: Value = serde_json::from_str(&ready.tools_json).unwrap();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["abort", "commit", "refresh", "status"]);
    let v = w.request(
        "tools/call",
        json!({"name": "execute_code", "arguments": {"code": "3 + 4"}}),
    );
    assert_eq!(v["error"]["code"], -32602, "{v}");
}

#[test]
fn execute_code_answers_the_print_string() {
    let (mut w, _) = Worker::ready(hello());
    let table = [
        ("3 + 4", "7"),
        ("'it''s'", "'it''s'"),
        ("#(1 $a 'b' #c) size", "4"),
    ];
    for (code, printed) in table {
        let r = w.tool("execute_code", json!({"code": code}));
        assert_eq!(r["isError"], false, "{code}: {r}");
        assert_eq!(
            r["content"],
            json!([{"type": "text", "text": printed}]),
            "{code}"
        );
        assert_eq!(r["structuredContent"]["result"], printed, "{code}");
        assert_eq!(r["structuredContent"]["truncated"], false, "{code}");
    }
}

#[test]
fn execute_code_caps_huge_results() {
    let (mut w, _) = Worker::ready(hello());
    let r = w.tool(
        "execute_code",
        json!({"code": "String new: 60000 withAll: $x"}),
    );
    assert_eq!(r["isError"], false, "{r}");
    let s = &r["structuredContent"];
    assert_eq!(s["truncated"], true);
    // The printString is the 60000 x's between quotes: 60002 characters, 50000 kept.
    assert_eq!(s["droppedCharacters"], 10_002);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("10002 more characters dropped"),
        "{}",
        &text[text.len() - 120..]
    );
}

#[test]
fn smalltalk_errors_are_tool_errors_with_kinds() {
    let (mut w, _) = Worker::ready(hello());
    let r = w.tool("execute_code", json!({"code": "1/0"}));
    assert_eq!(r["isError"], true, "{r}");
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["kind"], "other", "{r}");
    assert_eq!(e["number"], 2026, "{r}");
    assert_eq!(e["class"], "ZeroDivide", "{r}");

    let r = w.tool("execute_code", json!({"code": "3 +"}));
    assert_eq!(r["isError"], true, "{r}");
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["kind"], "compileError", "{r}");
    assert!(
        e["offset"].as_u64().is_some(),
        "compile errors carry an offset: {r}"
    );
    assert!(
        e["line"].as_u64().is_some(),
        "compile errors carry a line: {r}"
    );

    // The session survives its errors.
    let r = w.tool("execute_code", json!({"code": "3 + 4"}));
    assert_eq!(r["structuredContent"]["result"], "7", "{r}");
}

#[test]
fn status_reports_the_login() {
    let (mut w, ready) = Worker::ready(hello());
    let r = w.tool("status", json!({}));
    assert_eq!(r["isError"], false, "{r}");
    let s = &r["structuredContent"];
    assert_eq!(s["user"], ready.user);
    assert_eq!(s["stone"], ready.stone);
    assert!(s["session"].as_u64().is_some(), "{r}");
    assert_eq!(
        s["needsCommit"], false,
        "a fresh login has no uncommitted changes: {r}"
    );
    assert!(
        s["commitsBehind"].is_null(),
        "an in-memory image has no shared view: {r}"
    );
    // after the call: no view (an in-memory image has none), only what the
    // call's own result said
    assert_eq!(w.view_status(), (None, false, false));
}

const ENDLESS: &str = "[true] whileTrue. #never";

/// Starts an endless evaluation and waits until it is running: the worker answers
/// nothing while it runs, so "no reply yet" is checked by the ping that queues
/// behind it being answered only after the break.
fn start_endless(w: &mut Worker) -> u64 {
    let id = w.next_call;
    w.call_raw(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "execute_code", "arguments": {"code": ENDLESS}}}))
}

#[test]
fn cancel_interrupts_the_running_call() {
    let (mut w, _) = Worker::ready(hello());
    let call = start_endless(&mut w);
    let ping = w.call_raw(&json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}));
    // The cancel may reach the worker before the engine thread starts the call;
    // both orders must end in the cancelled answer.
    w.send(&ToWorker::Cancel { call_id: call });
    let v = w.reply(call);
    assert_eq!(v["error"]["code"], -32800, "{v}");
    assert_eq!(v["error"]["data"]["kind"], "cancelled", "{v}");
    assert_eq!(w.reply(ping)["result"], json!({}));
    // The break did not leak into the next call.
    let r = w.tool("execute_code", json!({"code": "3 + 4"}));
    assert_eq!(r["structuredContent"]["result"], "7", "{r}");
}

#[test]
fn breaks_end_the_running_evaluation_as_a_tool_error() {
    let (mut w, _) = Worker::ready(hello());
    for (hard, number, reason) in [(false, 6003, "soft break"), (true, 6004, "hard break")] {
        let call = start_endless(&mut w);
        // A break that arrives before the evaluation starts is dropped, so keep
        // breaking until the call answers: the first Reply frame ends the loop.
        let v = loop {
            w.send(&ToWorker::Break { hard });
            w.sock
                .set_read_timeout(Some(Duration::from_millis(50)))
                .unwrap();
            match read_frame::<ToRouter, _>(&mut w.sock) {
                Ok(ToRouter::Reply {
                    call_id, message, ..
                }) => {
                    assert_eq!(call_id, call);
                    break serde_json::from_str::<Value>(&message).unwrap();
                }
                // the status after the previous call, the view watch's lag
                Ok(ToRouter::ViewStatus { .. } | ToRouter::ViewLag { .. }) => continue,
                Ok(other) => panic!("unexpected frame {other:?}"),
                Err(_) => continue,
            }
        };
        w.sock.set_read_timeout(Some(HANG_GUARD)).unwrap();
        let r = &v["result"];
        assert_eq!(r["isError"], true, "{v}");
        let e = &r["structuredContent"]["error"];
        assert_eq!(e["kind"], "other", "{v}");
        assert_eq!(e["number"], number, "{v}");
        assert_eq!(e["reason"], reason, "{v}");
    }
}

#[test]
fn shutdown_aborts_the_running_call_and_exits_zero() {
    let (mut w, _) = Worker::ready(hello());
    let call = start_endless(&mut w);
    w.send(&ToWorker::Shutdown);
    // The running call is aborted by a hard break and still answered.
    let v = w.reply(call);
    assert!(v.get("result").is_some() || v.get("error").is_some(), "{v}");
    let status = w.wait();
    assert!(status.success(), "{status}");
}

#[test]
fn shutdown_when_idle_exits_zero() {
    let (mut w, _) = Worker::ready(hello());
    w.send(&ToWorker::Shutdown);
    assert!(matches!(
        read_frame::<ToRouter, _>(&mut w.sock),
        Err(gsmcp_ipc::IpcError::Closed)
    ));
    let status = w.wait();
    assert!(status.success(), "{status}");
}

#[test]
fn the_router_closing_the_socket_ends_the_worker() {
    let (w, _) = Worker::ready(hello());
    w.sock.shutdown(std::net::Shutdown::Both).unwrap();
    let status = w.wait();
    assert!(status.success(), "{status}");
}

#[test]
fn started_by_hand_it_explains_itself() {
    // No IPC socket on fd 3 (stdin/out/err only) and the usual argv.
    let out = Command::new(env!("CARGO_BIN_EXE_gsmcp-worker"))
        .args(["8000", "01234567", "DataCurator"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a socket"), "{err}");
    // Wrong argv.
    let out = Command::new(env!("CARGO_BIN_EXE_gsmcp-worker"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("usage"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn frames_between_calls_are_harmless() {
    let (mut w, _) = Worker::ready(hello());
    // None of these is answered, and none may leak into the next call: a break
    // with nothing running must not interrupt the evaluation that follows.
    w.send(&ToWorker::Refresh);
    w.send(&ToWorker::ClientResponse {
        response: json!({"jsonrpc": "2.0", "id": "s1", "result": {}}).into(),
    });
    w.send(&ToWorker::Cancel { call_id: 999 });
    w.send(&ToWorker::Break { hard: false });
    w.send(&ToWorker::Break { hard: true });
    let r = w.tool(
        "execute_code",
        json!({"code": "| s | s := 0. 1 to: 100000 do: [:i | s := s + i]. s"}),
    );
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["result"], "5000050000");
}

#[test]
fn runaway_recursion_is_a_tool_error_not_a_crash() {
    let (mut w, _) = Worker::ready(hello());
    let r = w.tool(
        "execute_code",
        json!({"code": "| b | b := [:n | (b value: n + 1) + 1]. b value: 0"}),
    );
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["structuredContent"]["error"]["kind"], "other", "{r}");
    let r = w.tool("execute_code", json!({"code": "3 + 4"}));
    assert_eq!(
        r["structuredContent"]["result"], "7",
        "the session survives: {r}"
    );
}

/// A fresh directory for one test's repository file.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gsmcp-worker-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn repo_hello(path: &std::path::Path, user: &str, password: &str) -> Hello {
    Hello {
        backend: Backend::Embedded {
            repository: Some(path.display().to_string()),
            user: user.into(),
            credential: Credential::Password(password.into()),
        },
        ..hello()
    }
}

#[test]
fn sessions_on_one_repository_share_only_committed_work() {
    let dir = scratch_dir("shared");
    let repo = dir.join("repo.db");
    // The first login creates the repository.
    let (mut a, ready) = Worker::ready(repo_hello(&repo, "DataCurator", "swordfish"));
    assert!(repo.exists());
    assert_eq!(ready.stone, repo.display().to_string());
    let (mut b, _) = Worker::ready(repo_hello(&repo, "DataCurator", "swordfish"));

    let r = a.tool(
        "execute_code",
        json!({"code": "UserGlobals at: #Answer put: 42"}),
    );
    assert_eq!(r["structuredContent"]["result"], "42", "{r}");
    let s = a.tool("status", json!({}));
    assert_eq!(s["structuredContent"]["needsCommit"], true, "{s}");
    // Not committed: B does not see it.
    let r = b.tool(
        "execute_code",
        json!({"code": "UserGlobals at: #Answer ifAbsent: [#none]"}),
    );
    assert_eq!(r["structuredContent"]["result"], "#none", "{r}");

    // code may not commit; the commit tool does
    let r = a.tool("execute_code", json!({"code": "System commitTransaction"}));
    assert_eq!(r["isError"], true, "{r}");
    let r = a.tool("commit", json!({}));
    assert_eq!(r["structuredContent"]["committed"], true, "{r}");
    // B's view is now one commit behind, and says so.
    let s = b.tool("status", json!({}));
    assert_eq!(s["structuredContent"]["commitsBehind"], 1, "{s}");
    // A view status follows each reply; the next round trip brings it in.
    b.request("ping", json!({}));
    a.request("ping", json!({}));
    assert_eq!(
        b.view,
        Some((Some(1), false)),
        "the view status after B's call"
    );
    assert_eq!(
        a.view,
        Some((Some(0), false)),
        "A committed: no changes, not behind"
    );
    // Refresh (between calls) moves B's view to the newest commit, reports the
    // new view status, and the next tool result says what happened.
    b.send(&ToWorker::Refresh);
    // The status after B's ping is still unread; the one after Refresh follows it.
    for expected in [1, 0] {
        match b.recv() {
            ToRouter::ViewStatus { commits_behind, .. } => {
                assert_eq!(commits_behind, Some(expected))
            }
            other => panic!("expected a view status, got {other:?}"),
        }
    }
    let r = b.tool(
        "execute_code",
        json!({"code": "UserGlobals at: #Answer ifAbsent: [#none]"}),
    );
    assert_eq!(r["structuredContent"]["result"], "42", "{r}");
    let note = r["content"][1]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no note: {r}"));
    assert!(
        note.contains("moved forward") && note.contains("1 commit "),
        "{note}"
    );
    // The note is said once. (A `[session]` line, which ends any result while
    // the session holds uncommitted changes, is not this note.)
    let r = b.tool("execute_code", json!({"code": "1"}));
    let lines: Vec<&str> = r["content"]
        .as_array()
        .map(|c| c.iter().filter_map(|i| i["text"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(lines.first(), Some(&"1"), "{r}");
    assert!(lines[1..].iter().all(|l| l.starts_with("[session]")), "{r}");
    let s = b.tool("status", json!({}));
    assert_eq!(s["structuredContent"]["commitsBehind"], 0, "{s}");
    drop((a, b));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_commit_is_reported_and_reclaimed_and_the_watch_tells_the_lag() {
    let dir = scratch_dir("stuck");
    let repo = dir.join("repo.db");
    let (mut a, _) = Worker::ready(repo_hello(&repo, "DataCurator", "swordfish"));
    let (mut b, _) = Worker::ready(repo_hello(&repo, "DataCurator", "swordfish"));
    // A and B change the same global; B commits first, so A's commit fails
    let set = |v: &str| json!({"code": format!("UserGlobals at: #Contested put: {v}")});
    a.tool("execute_code", set("1"));
    b.tool("execute_code", set("2"));
    let r = b.tool("commit", json!({}));
    assert_eq!(r["structuredContent"]["committed"], true, "{r}");
    // the watch tells A's lag without a call of A's
    let told = std::time::Instant::now();
    a.sock
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    while !a.lags.contains(&1) {
        assert!(
            told.elapsed() < Duration::from_secs(10),
            "no lag told: {:?}",
            a.lags
        );
        if let Ok(ToRouter::ViewLag { commits_behind }) = read_frame::<ToRouter, _>(&mut a.sock) {
            a.lags.push(commits_behind);
        }
    }
    a.sock.set_read_timeout(None).unwrap();
    let r = a.tool("commit", json!({}));
    assert_eq!(r["structuredContent"]["error"]["kind"], "conflict", "{r}");
    a.request("ping", json!({}));
    assert!(a.must_abort, "the status after the failed commit says so");
    assert_eq!(a.view, Some((Some(1), true)));
    // the router's Reclaim aborts A's transaction and moves the view
    a.send(&ToWorker::Reclaim { stuck_secs: 1800 });
    // the client hears of it at once on its standalone stream (a log line), and
    // the view status follows
    let told = loop {
        match a.recv() {
            ToRouter::Log {
                call_id: None,
                level,
                text,
            } => break (level, text),
            // the status after the ping
            ToRouter::ViewStatus { .. } => {}
            other => panic!("expected the warning, got {other:?}"),
        }
    };
    assert_eq!(told.0, "warning");
    assert!(
        told.1.contains("aborted this session's transaction"),
        "{told:?}"
    );
    assert_eq!(a.view_status(), (Some(0), false, false));
    let r = a.tool(
        "execute_code",
        json!({"code": "UserGlobals at: #Contested"}),
    );
    assert_eq!(
        r["structuredContent"]["result"], "2",
        "B's value, A's discarded: {r}"
    );
    let text: Vec<&str> = r["content"]
        .as_array()
        .map(|c| c.iter().filter_map(|i| i["text"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        text.iter()
            .any(|t| t.contains("aborted this session's transaction")
                && t.contains("stayed 1 commits behind for 1800 s")),
        "the next result says why: {r}"
    );
    drop((a, b));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wrong_password_is_a_failed_login() {
    let dir = scratch_dir("password");
    let repo = dir.join("repo.db");
    let (w, _) = Worker::ready(repo_hello(&repo, "DataCurator", "swordfish"));
    drop(w);
    let mut w = Worker::start();
    match w.handshake(repo_hello(&repo, "DataCurator", "not-the-password")) {
        ToRouter::Failed { kind, message } => {
            assert_eq!(kind, "login", "{message}");
            assert!(message.contains("password"), "{message}");
        }
        other => panic!("expected Failed, got {other:?}"),
    }
    assert!(!w.wait().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn workers_racing_to_create_a_repository_all_log_in() {
    let dir = scratch_dir("race");
    let repo = dir.join("repo.db");
    let mut workers: Vec<Worker> = (0..3).map(|_| Worker::start()).collect();
    for w in &mut workers {
        w.send(&ToWorker::Hello(repo_hello(
            &repo,
            "DataCurator",
            "swordfish",
        )));
    }
    for w in &mut workers {
        match w.recv() {
            ToRouter::Ready(r) => assert_eq!(r.user, "DataCurator"),
            other => panic!("expected Ready, got {other:?}"),
        }
        let r = w.tool("execute_code", json!({"code": "3 + 4"}));
        assert_eq!(r["structuredContent"]["result"], "7", "{r}");
    }
    drop(workers);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every frame up to and including the Reply to `call_id` (view status frames skipped).
fn frames_until_reply(w: &mut Worker, call_id: u64) -> (Vec<ToRouter>, Value) {
    let mut seen = Vec::new();
    loop {
        match w.recv() {
            ToRouter::Reply {
                call_id: got,
                message,
                ..
            } => {
                assert_eq!(got, call_id, "reply for the wrong call: {message}");
                return (seen, serde_json::from_str(&message).expect("reply is JSON"));
            }
            ToRouter::ViewStatus { .. } => {}
            other => seen.push(other),
        }
    }
}

fn conformance_worker(client_caps: Value) -> Worker {
    let (mut w, ready) = Worker::ready(Hello {
        toolsets: vec!["Execution".into(), "Conformance".into()],
        ..hello()
    });
    let tools: Value = serde_json::from_str(&ready.tools_json).unwrap();
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "test_sampling"),
        "{tools}"
    );
    let init = w.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": client_caps, "clientInfo": {"name": "t", "version": "1"}}),
    );
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["resources"]["subscribe"], true, "{caps}");
    assert!(
        caps["prompts"].is_object()
            && caps["completions"].is_object()
            && caps["logging"].is_object(),
        "{caps}"
    );
    w
}

fn start_tool(w: &mut Worker, name: &str, args: Value, progress: bool) -> u64 {
    let id = w.next_call;
    let mut params = json!({"name": name, "arguments": args});
    if progress {
        params["_meta"] = json!({"progressToken": "tok"});
    }
    w.call_raw(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
}

#[test]
fn conformance_is_opt_in() {
    let (mut w, ready) = Worker::ready(hello());
    assert!(!ready.tools_json.contains("test_simple_text"));
    // the prompts listed are the Workflow toolset's, none of the fixtures'
    let v = w.request("prompts/list", json!({}));
    let prompts = v["result"]["prompts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !prompts.is_empty()
            && prompts
                .iter()
                .all(|p| p["name"].as_str().unwrap().starts_with("gemstone-")),
        "{v}"
    );
    // the resources are the repository's (templates only), none of the fixtures'
    let v = w.request("resources/list", json!({}));
    assert_eq!(v["result"]["resources"], json!([]), "{v}");
    let v = w.request("resources/templates/list", json!({}));
    let templates = v["result"]["resourceTemplates"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !templates.is_empty()
            && templates.iter().all(|t| t["uriTemplate"]
                .as_str()
                .unwrap()
                .starts_with("gemstone://")),
        "{v}"
    );
    let v = w.request("tools/call", json!({"name": "test_simple_text"}));
    assert_eq!(v["error"]["code"], -32602, "{v}");
}

#[test]
fn progress_and_logs_come_before_the_result() {
    let mut w = conformance_worker(json!({}));
    // (tool, with a progress token, expected frames before the reply)
    let call = start_tool(&mut w, "test_tool_with_progress", json!({}), true);
    let (frames, reply) = frames_until_reply(&mut w, call);
    let progress: Vec<(f64, Option<f64>)> = frames
        .iter()
        .map(|f| match f {
            ToRouter::Progress {
                call_id,
                progress,
                total,
                ..
            } if *call_id == call => (*progress, *total),
            other => panic!("unexpected frame {other:?}"),
        })
        .collect();
    assert_eq!(
        progress,
        [
            (0.0, Some(100.0)),
            (50.0, Some(100.0)),
            (100.0, Some(100.0))
        ]
    );
    assert_eq!(reply["result"]["isError"], false, "{reply}");

    // Without a token no progress frame is sent at all.
    let call = start_tool(&mut w, "test_tool_with_progress", json!({}), false);
    let (frames, _) = frames_until_reply(&mut w, call);
    assert!(frames.is_empty(), "{frames:?}");

    let call = start_tool(&mut w, "test_tool_with_logging", json!({}), false);
    let (frames, reply) = frames_until_reply(&mut w, call);
    assert_eq!(frames.len(), 3, "{frames:?}");
    for f in &frames {
        assert!(
            matches!(f, ToRouter::Log { call_id: Some(c), level, .. } if *c == call && level == "info"),
            "{f:?}"
        );
    }
    assert!(
        reply["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()),
        "{reply}"
    );

    // execute_code reports its start and its end when asked.
    let call = start_tool(&mut w, "execute_code", json!({"code": "3 + 4"}), true);
    let (frames, reply) = frames_until_reply(&mut w, call);
    let values: Vec<f64> = frames
        .iter()
        .filter_map(|f| match f {
            ToRouter::Progress { progress, .. } => Some(*progress),
            _ => None,
        })
        .collect();
    assert_eq!(values, [0.0, 1.0]);
    assert_eq!(
        reply["result"]["structuredContent"]["result"], "7",
        "{reply}"
    );
}

/// The request the worker sends to the client, with its own id.
fn outbound(w: &mut Worker, call: u64) -> Value {
    loop {
        match w.recv() {
            ToRouter::Outbound {
                call_id: Some(c),
                message,
            } if c == call => return serde_json::from_str(&message).unwrap(),
            // the status after the previous call
            ToRouter::ViewStatus { .. } => continue,
            other => panic!("expected an Outbound request, got {other:?}"),
        }
    }
}

#[test]
fn server_requests_round_trip_and_end_on_cancel_or_break() {
    let mut w = conformance_worker(json!({"sampling": {}, "elicitation": {}}));
    let call = start_tool(
        &mut w,
        "test_sampling",
        json!({"prompt": "name a colour"}),
        false,
    );
    let req = outbound(&mut w, call);
    assert_eq!(req["method"], "sampling/createMessage");
    assert_eq!(req["params"]["maxTokens"], 100);
    assert_eq!(
        req["params"]["messages"][0]["content"]["text"],
        "name a colour"
    );
    // A stray answer with another id is not taken for the real one.
    w.send(&ToWorker::ClientResponse {
        response: json!({"jsonrpc": "2.0", "id": "elsewhere", "result": {}}).into(),
    });
    let answer = json!({"jsonrpc": "2.0", "id": req["id"], "result": {"role": "assistant", "model": "m",
        "content": {"type": "text", "text": "ultramarine"}}});
    w.send(&ToWorker::ClientResponse {
        response: answer.into(),
    });
    let (_, reply) = frames_until_reply(&mut w, call);
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("ultramarine"), "{reply}");

    // The router's timeout and no-stream answers become tool errors naming them.
    for (kind, says) in [("timeout", "in time"), ("noStream", "no open stream")] {
        let call = start_tool(
            &mut w,
            "test_elicitation",
            json!({"message": "who are you?"}),
            false,
        );
        let req = outbound(&mut w, call);
        assert_eq!(
            req["params"]["requestedSchema"]["required"],
            json!(["username", "email"])
        );
        let err = json!({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32001, "message": "x", "data": {"kind": kind}}});
        w.send(&ToWorker::ClientResponse {
            response: err.into(),
        });
        let (_, reply) = frames_until_reply(&mut w, call);
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        assert!(
            reply["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains(says),
            "{reply}"
        );
    }

    // Cancel while waiting for the client: the one answer is the cancellation.
    let call = start_tool(
        &mut w,
        "test_elicitation_sep1034_defaults",
        json!({}),
        false,
    );
    let req = outbound(&mut w, call);
    assert_eq!(
        req["params"]["requestedSchema"]["properties"]["score"]["default"],
        95.5
    );
    w.send(&ToWorker::Cancel { call_id: call });
    let (_, reply) = frames_until_reply(&mut w, call);
    assert_eq!(reply["error"]["code"], -32800, "{reply}");
    // A late answer to the cancelled request is dropped, not given to the next call.
    w.send(&ToWorker::ClientResponse {
        response: json!({"jsonrpc": "2.0", "id": req["id"], "result": {"action": "accept"}}).into(),
    });

    // A break while waiting ends the call as a tool error.
    let call = start_tool(&mut w, "test_elicitation_sep1330_enums", json!({}), false);
    let req = outbound(&mut w, call);
    assert!(req["params"]["requestedSchema"]["properties"]["titledSingle"]["oneOf"].is_array());
    w.send(&ToWorker::Break { hard: false });
    let (_, reply) = frames_until_reply(&mut w, call);
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert!(
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("soft break"),
        "{reply}"
    );
    assert_eq!(w.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn server_requests_need_the_declared_capability() {
    let mut w = conformance_worker(json!({"sampling": {}}));
    let r = w.tool("test_elicitation", json!({"message": "hi"}));
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["structuredContent"]["error"]["kind"], "refused", "{r}");
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("elicitation"),
        "{r}"
    );
}

#[test]
fn conformance_prompts_resources_and_completion() {
    let mut w = conformance_worker(json!({}));
    // (method, params, JSON pointer into the result, expected value) — or an error code.
    let ok: Vec<(&str, Value, &str, Value)> = vec![
        ("resources/read", json!({"uri": "test://static-text"}), "/contents/0/mimeType", json!("text/plain")),
        ("resources/read", json!({"uri": "test://static-binary"}), "/contents/0/blob", json!("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGPQqr/yHwAE0QJ9PWShagAAAABJRU5ErkJggg==")),
        ("resources/templates/list", json!({}), "/resourceTemplates/0/uriTemplate", json!("test://template/{id}/data")),
        ("resources/subscribe", json!({"uri": "test://watched-resource"}), "", json!({})),
        ("resources/unsubscribe", json!({"uri": "test://watched-resource"}), "", json!({})),
        ("prompts/get", json!({"name": "test_simple_prompt"}), "/messages/0/role", json!("user")),
        ("prompts/get", json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://example-resource"}}), "/messages/0/content/type", json!("resource")),
        ("prompts/get", json!({"name": "test_prompt_with_image"}), "/messages/0/content/mimeType", json!("image/png")),
        ("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "test"}}), "/completion/values", json!(["test", "testing"])),
    ];
    for (method, params, pointer, expected) in ok {
        let v = w.request(method, params.clone());
        assert_eq!(
            v["result"].pointer(pointer),
            Some(&expected),
            "{method} {params}: {v}"
        );
    }
    let v = w.request("resources/read", json!({"uri": "test://template/123/data"}));
    assert!(
        v["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("123"),
        "{v}"
    );
    let v = w.request("prompts/get", json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "testValue1", "arg2": "testValue2"}}));
    let text = v["result"]["messages"].to_string();
    assert!(
        text.contains("testValue1") && text.contains("testValue2"),
        "{v}"
    );
    let listed = w.request("prompts/list", json!({}));
    for p in listed["result"]["prompts"].as_array().unwrap() {
        assert!(
            p["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{p}"
        );
    }
    let errors: Vec<(&str, Value, i64)> = vec![
        ("resources/read", json!({"uri": "test://nothing"}), -32002),
        ("resources/read", json!({}), -32602),
        ("prompts/get", json!({"name": "nope"}), -32602),
        (
            "prompts/get",
            json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "x"}}),
            -32602,
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}}),
            -32602,
        ),
    ];
    for (method, params, code) in errors {
        let v = w.request(method, params.clone());
        assert_eq!(v["error"]["code"], code, "{method} {params}: {v}");
    }
}

/// A repository file that cannot hold a kernel fails the login at once with
/// its path and the fix, never a wait for the handshake timeout.
#[test]
fn damaged_or_half_made_repository_files_fail_the_login_at_once() {
    let dir = scratch_dir("damaged");
    // (file, how it is made, what the message must say)
    type Row = (&'static str, fn(&std::path::Path), &'static str);
    let table: [Row; 3] = [
        ("empty.db", |p| std::fs::write(p, b"").unwrap(), "remove it"),
        (
            "half.db",
            |p| drop(gsmcp_store::Repository::create(p).unwrap()),
            "remove it",
        ),
        (
            "junk.db",
            |p| std::fs::write(p, vec![0x5au8; 8192]).unwrap(),
            "junk.db",
        ),
    ];
    for (name, make, says) in table {
        let repo = dir.join(name);
        make(&repo);
        let started = std::time::Instant::now();
        let mut w = Worker::start();
        match w.handshake(repo_hello(&repo, "DataCurator", "swordfish")) {
            ToRouter::Failed { kind, message } => {
                assert_eq!(kind, "login", "{name}: {message}");
                assert!(message.contains(name), "{name}: {message}");
                assert!(message.contains(says), "{name}: {message}");
            }
            other => panic!("{name}: expected Failed, got {other:?}"),
        }
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{name}: took {:?}",
            started.elapsed()
        );
        assert!(!w.wait().success());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A worker killed at any point while it creates the repository leaves
/// either no file or a whole one, and nothing that stops the next start.
#[test]
fn a_creation_killed_part_way_leaves_a_working_start() {
    let dir = scratch_dir("killed");
    let repo = dir.join("repo.db");
    for delay_ms in [0u64, 10, 40, 80, 150, 250, 400] {
        let mut w = Worker::start();
        w.send(&ToWorker::Hello(repo_hello(
            &repo,
            "DataCurator",
            "swordfish",
        )));
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = w.child.kill();
        let _ = w.child.wait();
        let (mut ok, _) = Worker::ready(repo_hello(&repo, "DataCurator", "swordfish"));
        let r = ok.tool("execute_code", json!({"code": "3 + 4"}));
        assert_eq!(
            r["structuredContent"]["result"], "7",
            "after {delay_ms} ms: {r}"
        );
        drop(ok);
        // start from nothing again for the next delay
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let _ = std::fs::remove_file(e.path());
        }
    }
    // a creation a dead process left is cleaned up by the next creation
    let stale = dir.join(format!("repo.db.creating-{}", dead_pid()));
    std::fs::write(&stale, b"left by a crash").unwrap();
    let (w, _) = Worker::ready(repo_hello(&repo, "DataCurator", "swordfish"));
    drop(w);
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".creating-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pid of a process that has ended.
fn dead_pid() -> u32 {
    let mut c = Command::new("true").spawn().expect("spawn true");
    let pid = c.id();
    c.wait().unwrap();
    pid
}

/// The outcome a reply's text shows: what the worker must report beside it.
fn outcome_of(reply: &Value) -> Outcome {
    if let Some(code) = reply.pointer("/error/code").and_then(Value::as_i64) {
        return Outcome::RpcError(code);
    }
    match reply.pointer("/result/isError") {
        Some(Value::Bool(true)) => Outcome::ToolError(
            reply
                .pointer("/result/structuredContent/error/kind")
                .and_then(Value::as_str)
                .unwrap_or("other")
                .to_string(),
        ),
        _ => Outcome::Ok,
    }
}
