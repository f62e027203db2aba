//! Pins the exact bytes of every frame variant, so a change to the wire format
//! (a reordered field, a new variant in the middle, another bincode setting) is a
//! visible, deliberate change: the golden files under `tests/golden/` must be
//! regenerated with `BLESS=1 cargo test -p gsmcp-ipc --test golden` and the
//! protocol version considered. Also round-trips generated frames through the
//! codec.

use gsmcp_ipc::*;
use proptest::prelude::*;
use std::io::Cursor;
use std::path::PathBuf;

fn embedded_hello() -> Hello {
    Hello {
        protocol: PROTOCOL_VERSION,
        session_id: "0123456789abcdef0123456789abcdef".into(),
        port: 8000,
        backend: Backend::Embedded {
            repository: Some("/var/lib/gsmcp/repo.db".into()),
            user: "DataCurator".into(),
            credential: Credential::Password("swordfish".into()),
        },
        toolsets: vec!["Execution".into(), "Session".into()],
        options: vec![("maxResult".into(), "50000".into())],
        server_name: "gsmcp".into(),
        server_version: "0.1.0".into(),
        title: Some("GemStone".into()),
        instructions: Some("Commit with the commit tool.".into()),
        log_filter: "info".into(),
        memory: 1 << 30,
        withheld: vec![("Execution".into(), vec!["gemstone:execute".into()])],
        read_only: true,
        one_shot: true,
    }
}

fn gci_hello() -> Hello {
    Hello {
        backend: Backend::Gci {
            gemstone: Some("/opt/gemstone/GemStone64Bit3.7.5-x86_64.Linux".into()),
            library: None,
            stone: "!@db.example#netldi:gs64ldi!gs64stone".into(),
            gem_nrs: "!@db.example#netldi:gs64ldi!gemnetobject".into(),
            netldi: Some("gs64ldi".into()),
            host_user: Some("gemstone".into()),
            host_password: Some("host-secret".into()),
            user: "DataCurator".into(),
            credential: Credential::Password("swordfish".into()),
        },
        title: None,
        instructions: None,
        ..embedded_hello()
    }
}

/// One named instance of every `ToWorker` variant. The match in `to_worker_name`
/// has no wildcard, so a new variant does not compile until it is added here.
fn to_worker_frames() -> Vec<(&'static str, ToWorker)> {
    vec![
        (
            "to_worker_hello_embedded",
            ToWorker::Hello(embedded_hello()),
        ),
        ("to_worker_hello_gci", ToWorker::Hello(gci_hello())),
        (
            "to_worker_hello_ticket",
            ToWorker::Hello(Hello {
                backend: Backend::Embedded {
                    repository: Some("/var/lib/gsmcp/repo.db".into()),
                    user: "alice".into(),
                    credential: Credential::Ticket(
                        "gsmcp-ticket.1.07070707070707070707070707070707.1800000000.5fcb".into(),
                    ),
                },
                ..embedded_hello()
            }),
        ),
        (
            "to_worker_hello_jwt",
            ToWorker::Hello(Hello {
                backend: Backend::Gci {
                    gemstone: None,
                    library: Some("/opt/gemstone/lib/libgcits-3.7.5-64.so".into()),
                    stone: "gs64stone".into(),
                    gem_nrs: "gemnetobject".into(),
                    netldi: None,
                    host_user: None,
                    host_password: None,
                    user: "alice".into(),
                    credential: Credential::Jwt("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln".into()),
                },
                ..embedded_hello()
            }),
        ),
        (
            "to_worker_call",
            ToWorker::Call {
                call_id: 7,
                request: Request {
                    id: Some(Json::Int(1)),
                    method: "tools/call".into(),
                    params: Some(Json::Object(vec![
                        (
                            "_meta".into(),
                            Json::Object(vec![("progressToken".into(), Json::UInt(u64::MAX))]),
                        ),
                        (
                            "arguments".into(),
                            Json::Object(vec![
                                ("code".into(), Json::String("3 + 4".into())),
                                (
                                    "flags".into(),
                                    Json::Array(vec![Json::Bool(true), Json::Null]),
                                ),
                                ("limit".into(), Json::Int(-2)),
                                ("ratio".into(), Json::Float(0.25)),
                            ]),
                        ),
                        ("name".into(), Json::String("execute_code".into())),
                    ])),
                    progress_token: Some(Json::UInt(u64::MAX)),
                },
            },
        ),
        (
            "to_worker_call_notification",
            ToWorker::Call {
                call_id: 8,
                request: Request {
                    id: None,
                    method: "notifications/initialized".into(),
                    params: None,
                    progress_token: None,
                },
            },
        ),
        ("to_worker_cancel", ToWorker::Cancel { call_id: 300 }),
        ("to_worker_break", ToWorker::Break { hard: true }),
        ("to_worker_refresh", ToWorker::Refresh),
        (
            "to_worker_client_response",
            ToWorker::ClientResponse {
                response: Json::Object(vec![
                    ("id".into(), Json::String("s1".into())),
                    ("jsonrpc".into(), Json::String("2.0".into())),
                    ("result".into(), Json::Object(vec![])),
                ]),
            },
        ),
        ("to_worker_shutdown", ToWorker::Shutdown),
        ("to_worker_reclaim", ToWorker::Reclaim { stuck_secs: 1800 }),
    ]
}

fn to_worker_name(f: &ToWorker) -> &'static str {
    match f {
        ToWorker::Hello(_) => "hello",
        ToWorker::Call { .. } => "call",
        ToWorker::Cancel { .. } => "cancel",
        ToWorker::Break { .. } => "break",
        ToWorker::Refresh => "refresh",
        ToWorker::ClientResponse { .. } => "client_response",
        ToWorker::Shutdown => "shutdown",
        ToWorker::Reclaim { .. } => "reclaim",
    }
}

fn to_router_frames() -> Vec<(&'static str, ToRouter)> {
    vec![
        (
            "to_router_ready",
            ToRouter::Ready(Ready {
                protocol: PROTOCOL_VERSION,
                pid: 4242,
                user: "DataCurator".into(),
                stone: "gs64stone".into(),
                tools_json: r#"[{"name":"status"}]"#.into(),
            }),
        ),
        (
            "to_router_failed",
            ToRouter::Failed {
                kind: "login".into(),
                message: "no such user".into(),
            },
        ),
        (
            "to_router_reply",
            ToRouter::Reply {
                call_id: 7,
                message: r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into(),
                outcome: Outcome::Ok,
            },
        ),
        (
            "to_router_reply_tool_error",
            ToRouter::Reply {
                call_id: 8,
                message: r#"{"jsonrpc":"2.0","id":2,"result":{"isError":true}}"#.into(),
                outcome: Outcome::ToolError("notFound".into()),
            },
        ),
        (
            "to_router_reply_rpc_error",
            ToRouter::Reply {
                call_id: 9,
                message: r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602}}"#.into(),
                outcome: Outcome::RpcError(-32602),
            },
        ),
        (
            "to_router_progress",
            ToRouter::Progress {
                call_id: 7,
                progress: 0.5,
                total: Some(2.0),
                message: Some("half way ✓".into()),
            },
        ),
        (
            "to_router_log",
            ToRouter::Log {
                call_id: None,
                level: "warning".into(),
                text: "slow".into(),
            },
        ),
        (
            "to_router_outbound",
            ToRouter::Outbound {
                call_id: Some(9),
                message: r#"{"jsonrpc":"2.0","method":"notifications/message"}"#.into(),
            },
        ),
        (
            "to_router_view_status",
            ToRouter::ViewStatus {
                commits_behind: Some(3),
                needs_commit: true,
                must_abort: false,
            },
        ),
        (
            "to_router_release_stream",
            ToRouter::ReleaseStream { call_id: 12 },
        ),
        (
            "to_router_view_lag",
            ToRouter::ViewLag { commits_behind: 25 },
        ),
    ]
}

fn to_router_name(f: &ToRouter) -> &'static str {
    match f {
        ToRouter::Ready(_) => "ready",
        ToRouter::Failed { .. } => "failed",
        ToRouter::Reply { .. } => "reply",
        ToRouter::Progress { .. } => "progress",
        ToRouter::Log { .. } => "log",
        ToRouter::Outbound { .. } => "outbound",
        ToRouter::ViewStatus { .. } => "view_status",
        ToRouter::ReleaseStream { .. } => "release_stream",
        ToRouter::ViewLag { .. } => "view_lag",
    }
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::new();
    for line in bytes.chunks(32) {
        for b in line {
            out.push_str(&format!("{b:02x}"));
        }
        out.push('\n');
    }
    out
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.hex"))
}

/// Compares `bytes` with the golden file, or rewrites it under `BLESS=1`.
fn check_golden(name: &str, bytes: &[u8]) -> Result<(), String> {
    let path = golden_path(name);
    let text = hex(bytes);
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e} (create it with BLESS=1)", path.display()))?;
    if expected != text {
        return Err(format!(
            "{name}: bytes differ from {}\nexpected:\n{expected}got:\n{text}",
            path.display()
        ));
    }
    Ok(())
}

#[test]
fn every_frame_variant_matches_its_golden_bytes() {
    let mut problems = Vec::new();
    let mut worker_variants = std::collections::BTreeSet::new();
    for (name, frame) in to_worker_frames() {
        worker_variants.insert(to_worker_name(&frame));
        let bytes = encode_frame(&frame).unwrap();
        if let Err(p) = check_golden(name, &bytes) {
            problems.push(p);
        }
        assert_eq!(
            decode_body::<ToWorker>(&bytes[4..]).unwrap(),
            frame,
            "{name} round trip"
        );
        assert_eq!(
            u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize,
            bytes.len() - 4,
            "{name} prefix"
        );
    }
    let mut router_variants = std::collections::BTreeSet::new();
    for (name, frame) in to_router_frames() {
        router_variants.insert(to_router_name(&frame));
        let bytes = encode_frame(&frame).unwrap();
        if let Err(p) = check_golden(name, &bytes) {
            problems.push(p);
        }
        assert_eq!(
            decode_body::<ToRouter>(&bytes[4..]).unwrap(),
            frame,
            "{name} round trip"
        );
    }
    assert_eq!(
        worker_variants.len(),
        8,
        "one golden per ToWorker variant: {worker_variants:?}"
    );
    assert_eq!(
        router_variants.len(),
        9,
        "one golden per ToRouter variant: {router_variants:?}"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_stray_golden_files() {
    let known: std::collections::BTreeSet<String> = to_worker_frames()
        .iter()
        .map(|(n, _)| n.to_string())
        .chain(to_router_frames().iter().map(|(n, _)| n.to_string()))
        .collect();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let stem = name.strip_suffix(".hex").unwrap_or(&name);
        assert!(
            known.contains(stem),
            "{name} in {} belongs to no frame",
            dir.display()
        );
    }
}

#[test]
fn the_password_never_shows_in_debug_output() {
    for hello in [embedded_hello(), gci_hello()] {
        let shown = format!("{:?}", ToWorker::Hello(hello));
        assert!(!shown.contains("swordfish"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
        assert!(
            !shown.contains("0123456789abcdef0123"),
            "only 8 characters of the session id: {shown}"
        );
    }
}

#[test]
fn frames_stream_back_to_back() {
    let mut wire = Vec::new();
    for (_, f) in to_worker_frames() {
        write_frame(&mut wire, &f).unwrap();
    }
    let mut r = Cursor::new(wire);
    for (name, f) in to_worker_frames() {
        assert_eq!(read_frame::<ToWorker, _>(&mut r).unwrap(), f, "{name}");
    }
    assert!(matches!(
        read_frame::<ToWorker, _>(&mut r),
        Err(IpcError::Closed)
    ));
}

#[test]
fn a_frame_of_the_other_direction_is_refused() {
    // A Ready body is not a ToWorker frame; it must not decode as some other variant silently.
    let bytes = encode_frame(&to_router_frames()[0].1).unwrap();
    assert!(decode_body::<ToWorker>(&bytes[4..]).is_err());
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![".{0,40}", Just(String::new()), "[\\x00-\\x7f]{0,200}"]
}

fn json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(Json::Int),
        any::<u64>().prop_map(Json::UInt),
        (-1e9f64..1e9).prop_map(Json::Float),
        text().prop_map(Json::String),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
            proptest::collection::vec((text(), inner), 0..4).prop_map(Json::Object),
        ]
    })
}

fn to_worker() -> impl Strategy<Value = ToWorker> {
    prop_oneof![
        (
            any::<u64>(),
            proptest::option::of(json()),
            text(),
            proptest::option::of(json())
        )
            .prop_map(|(call_id, id, method, params)| ToWorker::Call {
                call_id,
                request: Request {
                    id,
                    method,
                    params,
                    progress_token: None,
                },
            }),
        any::<u64>().prop_map(|call_id| ToWorker::Cancel { call_id }),
        any::<bool>().prop_map(|hard| ToWorker::Break { hard }),
        Just(ToWorker::Refresh),
        Just(ToWorker::Shutdown),
        any::<u64>().prop_map(|stuck_secs| ToWorker::Reclaim { stuck_secs }),
        json().prop_map(|response| ToWorker::ClientResponse { response }),
        (
            any::<u32>(),
            text(),
            any::<u16>(),
            proptest::option::of(text()),
            proptest::collection::vec(text(), 0..4)
        )
            .prop_map(
                |(protocol, session_id, port, repository, toolsets)| ToWorker::Hello(Hello {
                    protocol,
                    session_id,
                    port,
                    backend: Backend::Embedded {
                        repository,
                        user: "u".into(),
                        credential: Credential::Password("p".into()),
                    },
                    toolsets,
                    ..embedded_hello()
                })
            ),
    ]
}

fn to_router() -> impl Strategy<Value = ToRouter> {
    prop_oneof![
        (
            any::<u64>(),
            text(),
            prop_oneof![
                Just(Outcome::Ok),
                text().prop_map(Outcome::ToolError),
                any::<i64>().prop_map(Outcome::RpcError)
            ]
        )
            .prop_map(|(call_id, message, outcome)| ToRouter::Reply {
                call_id,
                message,
                outcome
            }),
        (text(), text()).prop_map(|(kind, message)| ToRouter::Failed { kind, message }),
        (
            any::<u64>(),
            any::<f64>(),
            proptest::option::of(any::<f64>()),
            proptest::option::of(text())
        )
            .prop_map(|(call_id, progress, total, message)| ToRouter::Progress {
                call_id,
                progress,
                total,
                message
            }),
        (proptest::option::of(any::<u64>()), text(), text()).prop_map(|(call_id, level, text)| {
            ToRouter::Log {
                call_id,
                level,
                text,
            }
        }),
        (proptest::option::of(any::<u64>()), text())
            .prop_map(|(call_id, message)| ToRouter::Outbound { call_id, message }),
        any::<u64>().prop_map(|call_id| ToRouter::ReleaseStream { call_id }),
        any::<u64>().prop_map(|commits_behind| ToRouter::ViewLag { commits_behind }),
        (
            proptest::option::of(any::<u64>()),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(commits_behind, needs_commit, must_abort)| {
                ToRouter::ViewStatus {
                    commits_behind,
                    needs_commit,
                    must_abort,
                }
            }),
        (any::<u32>(), any::<u32>(), text(), text(), text()).prop_map(
            |(protocol, pid, user, stone, tools_json)| {
                ToRouter::Ready(Ready {
                    protocol,
                    pid,
                    user,
                    stone,
                    tools_json,
                })
            }
        ),
    ]
}

/// Equality that treats NaN as equal to itself, for frames carrying floats.
fn same_router(a: &ToRouter, b: &ToRouter) -> bool {
    match (a, b) {
        (
            ToRouter::Progress {
                call_id: c1,
                progress: p1,
                total: t1,
                message: m1,
            },
            ToRouter::Progress {
                call_id: c2,
                progress: p2,
                total: t2,
                message: m2,
            },
        ) => {
            c1 == c2
                && p1.to_bits() == p2.to_bits()
                && t1.map(f64::to_bits) == t2.map(f64::to_bits)
                && m1 == m2
        }
        _ => a == b,
    }
}

proptest! {
    #[test]
    fn to_worker_frames_round_trip(frame in to_worker()) {
        let bytes = encode_frame(&frame).unwrap();
        prop_assert_eq!(read_frame::<ToWorker, _>(&mut Cursor::new(&bytes)).unwrap(), frame);
    }

    #[test]
    fn to_router_frames_round_trip(frame in to_router()) {
        let bytes = encode_frame(&frame).unwrap();
        let back = read_frame::<ToRouter, _>(&mut Cursor::new(&bytes)).unwrap();
        prop_assert!(same_router(&back, &frame), "{:?} != {:?}", back, frame);
    }
}
