//! End-to-end: hostile and odd input through the real router and worker ends
//! as a clear tool error while the session's worker lives on — never a
//! crash, a hang or a silent fallback. Each row is an input that once killed
//! or misled a worker, or pins a limit that keeps one from doing so.

#[path = "tools_util.rs"]
mod util;

use gsmcp_tests::Server;
use serde_json::json;
use util::mcp::{worker_of, Http};
use util::{eval, fails, ok, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_code_is_an_error_and_the_worker_lives_on() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    let pid = worker_of(server.port(), &s).expect("the session's worker");

    // a method whose frames each hold an expression 2000 sends deep
    ok(
        &mut s,
        "compile_class_definition",
        json!({"className": "Hostile"}),
    )
    .await;
    let deep = format!(
        "deep: n\n\t^ n = 0 ifTrue: [0] ifFalse: [(self deep: n - 1){}]",
        " + 1".repeat(2000)
    );
    ok(
        &mut s,
        "compile_method",
        json!({"className": "Hostile", "source": deep, "category": "deep"}),
    )
    .await;
    assert_eq!(eval(&mut s, "Hostile new deep: 2").await, "4000");

    // (code, error kind, what the message must say)
    let chain = format!("1{}", "+1".repeat(500_000));
    let parens = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    let temps: Vec<String> = (0..100_000).map(|i| format!("t{i}")).collect();
    let temps = format!("| {} | 1", temps.join(" "));
    let table: &[(&str, &str, &str)] = &[
        // overflowed the native stack compiling a 500k-deep tree
        (&chain, "compileError", "statement too large"),
        // overflowed the native stack in 5000 frames of the deep method
        ("Hostile new deep: 9000", "other", "AlmostOutOfStack"),
        (&parens, "compileError", "nested too deeply"),
        // overflowed the compiler's 16-bit slot numbers: a panic, the worker exited
        (&temps, "compileError", "too many variables"),
        ("String new: 1000000000", "other", "AlmostOutOfMemory"),
        (
            "| b | b := nil. b := [:n | b value: n + 1]. b value: 0",
            "other",
            "AlmostOutOfStack",
        ),
        ("Array new: -1", "other", "ImproperOperation"),
        ("[:x | x] value", "other", "wrong number of arguments"),
        ("3 +", "compileError", "expected an expression"),
        ("'abc", "compileError", "unterminated string"),
        ("1e99999999999", "compileError", "exponent too large"),
        // a 5 MB message text, three times over, made a reply larger than a
        // frame: the worker could not send it and the call hung until stopped
        (
            "(Error new messageText: (String new: 5000000 withAll: $e)) signal",
            "other",
            "characters dropped",
        ),
    ];
    for (code, kind, says) in table {
        let e = fails(&mut s, "execute_code", json!({ "code": code })).await;
        let label = &code[..code.len().min(40)];
        assert_eq!(e["kind"], *kind, "{label}: {e}");
        assert!(
            e.to_string().contains(says),
            "{label}: {says:?} missing from {e}"
        );
        assert_eq!(
            worker_of(server.port(), &s),
            Some(pid),
            "{label}: the worker died\n{}",
            server.log()
        );
    }
    // a runaway recursion's stack (10,000 activations) comes back bounded:
    // its frames, innermost first, at most 200 of them, and the text 20
    let e = fails(
        &mut s,
        "execute_code",
        json!({"code": "| b | b := nil. b := [:n | b value: n + 1]. b value: 0"}),
    )
    .await;
    let frames = e["frames"].as_array().expect("the stack's frames");
    assert!(
        !frames.is_empty() && frames.len() <= 200,
        "{}",
        frames.len()
    );
    assert!(
        frames[0]["frame"]
            .as_str()
            .is_some_and(|f| f.starts_with("[] in Executed Code")),
        "{}",
        frames[0]
    );
    assert!(e.to_string().len() < 100_000, "{}", e.to_string().len());
    assert_eq!(eval(&mut s, "3 + 4").await, "7");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reserved_words_never_name_variables_of_a_class() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    for (arg, name) in [
        ("instVarNames", "self"),
        ("instVarNames", "super"),
        ("classVars", "nil"),
        ("classInstVars", "thisContext"),
        ("instVarNames", "true"),
    ] {
        let e = fails(
            &mut s,
            "compile_class_definition",
            json!({"className": "Reserved", arg: [name]}),
        )
        .await;
        assert_eq!(e["kind"], "invalidParams", "{arg} {name}: {e}");
        assert!(e.to_string().contains("reserved word"), "{e}");
    }
    let e = fails(&mut s, "describe_class", json!({"className": "Reserved"})).await;
    assert_eq!(e["kind"], "notFound", "nothing was defined: {e}");
}

/// A name longer than a GemStone Symbol holds is refused before any
/// Smalltalk runs, whichever tool it is given to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_longer_than_a_symbol_are_invalid_params() {
    let server = Server::start();
    let mut s = Http::new(&server.url).open().await;
    let long = "L".repeat(10_000);
    for (tool, args) in [
        ("compile_class_definition", json!({"className": long})),
        (
            "compile_class_definition",
            json!({"className": "Short", "instVarNames": [long.to_lowercase()]}),
        ),
        ("describe_class", json!({"className": long})),
        (
            "get_method_source",
            json!({"className": "Object", "selector": long}),
        ),
        ("find_implementors", json!({"selector": long})),
        ("list_classes", json!({"dictionaryName": long})),
    ] {
        let e = fails(&mut s, tool, args).await;
        assert_eq!(e["kind"], "invalidParams", "{tool}: {e}");
        assert!(e.to_string().contains("at most 1024"), "{tool}: {e}");
    }
    assert_eq!(eval(&mut s, "3 + 4").await, "7");
}

/// An answer too large to cross the worker's socket (a result cap set high,
/// every character twice in the reply) is a JSON-RPC error saying so, at
/// once; the worker lives on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_too_large_to_send_is_an_error_not_a_hang() {
    let server = Server::builder()
        .env("MCP_TOOLSET_OPTIONS", "Execution.maxResultChars=10000000")
        .start();
    let mut s = Http::new(&server.url).open().await;
    let pid = worker_of(server.port(), &s).expect("the session's worker");
    let a = s
        .call(
            "execute_code",
            json!({"code": "String new: 9000000 withAll: $a"}),
        )
        .await;
    assert_eq!(a.status, 200, "{a:?}");
    let e = a.error();
    assert_eq!(e["code"], -32603, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap_or("")
            .contains("a reply may carry"),
        "{e}"
    );
    assert_eq!(worker_of(server.port(), &s), Some(pid), "{}", server.log());
    assert_eq!(
        eval(&mut s, "(String new: 3000000 withAll: $a) size").await,
        "3000000"
    );
}

/// One client's committed class-side `name`, `superclass`, `category` and
/// `printOn:` (each committing and looping) never run in another client's
/// session: its browsing, search and editing tools reflect through the
/// kernel's methods, answer at once, and commit nothing of the victim's; code
/// the victim runs itself cannot commit either, only the commit tool does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_clients_overrides_never_run_in_tools() {
    if gsmcp_tests::test_backend_is_gci() {
        // GemStone dispatches every send to the receiver's class; kernel-only
        // reflection and the commit switch are the embedded stone's
        return;
    }
    let repo = gsmcp_tests::harness::scratch_path("overrides.db");
    let server = Server::builder()
        .env("MCP_REPOSITORY", &repo)
        // a tool that ran the looping code would end as an error, not hang the test
        .env("MCP_REQUEST_TIMEOUT", "30s")
        .start();
    let http = Http::new(&server.url);
    let mut attacker = http.open().await;

    let trap = "System commitTransaction. [true] whileTrue";
    ok(
        &mut attacker,
        "compile_class_definition",
        json!({"className": "Evil"}),
    )
    .await;
    for (meta, source) in [
        // the answers are built, so only running the code can put the word in a result
        (true, format!("name {trap}. ^ ('Hij' , 'acked') asSymbol")),
        (true, format!("superclass {trap}. ^ nil")),
        (true, format!("category {trap}. ^ 'Hij' , 'acked'")),
        (true, format!("isBehavior {trap}. ^ false")),
        (false, format!("printOn: aStream {trap}")),
        (false, "hijacked ^ #hijacked".to_string()),
    ] {
        ok(
            &mut attacker,
            "compile_method",
            json!({"className": "Evil", "meta": meta, "source": source, "category": "trap"}),
        )
        .await;
    }
    eval(
        &mut attacker,
        "UserGlobals at: #EvilThing put: Evil new. true",
    )
    .await;
    ok(&mut attacker, "commit", json!({})).await;

    // the victim holds uncommitted work while it browses
    let mut victim = http.open().await;
    ok(
        &mut victim,
        "compile_class_definition",
        json!({"className": "Pending"}),
    )
    .await;
    let evil = json!({"className": "Evil"});
    let table: Vec<(&str, serde_json::Value)> = vec![
        ("list_all_classes", json!({})),
        ("list_classes", json!({"dictionaryName": "UserGlobals"})),
        (
            "list_dictionary_entries",
            json!({"dictionaryName": "UserGlobals"}),
        ),
        ("list_dictionaries", json!({})),
        ("describe_class", evil.clone()),
        ("get_class_definition", evil.clone()),
        ("get_class_hierarchy", evil.clone()),
        ("export_class_source", evil.clone()),
        ("list_methods", evil.clone()),
        ("find_implementors", json!({"selector": "hijacked"})),
        ("find_senders", json!({"selector": "whileTrue"})),
        ("find_references_to", json!({"name": "Evil"})),
        (
            "set_class_comment",
            json!({"className": "Pending", "comment": "kept"}),
        ),
    ];
    for (tool, args) in table {
        let r = ok(&mut victim, tool, args.clone()).await;
        let answer = r["structuredContent"].to_string();
        assert!(
            !answer.contains("Hijacked"),
            "{tool} {args} ran the attacker's code: {answer}"
        );
    }
    let r = ok(&mut victim, "describe_class", evil.clone()).await;
    assert_eq!(r["structuredContent"]["name"], "Evil", "{r}");

    // nothing of the victim's was committed: a third session does not see it
    let mut third = http.open().await;
    assert_eq!(
        eval(&mut third, "UserGlobals includesKey: #Pending").await,
        "false"
    );
    let status = ok(&mut victim, "status", json!({})).await;
    assert_eq!(status["structuredContent"]["needsCommit"], true, "{status}");

    // code the victim runs itself may not commit; the commit tool may
    let r = victim.execute("System commitTransaction").await;
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        text(&r).contains("only through its own commit operation"),
        "{r}"
    );
    ok(&mut victim, "commit", json!({})).await;
    ok(&mut third, "abort", json!({})).await;
    assert_eq!(
        eval(&mut third, "UserGlobals includesKey: #Pending").await,
        "true"
    );
}

/// Abort undoes everything a client did to its own session: after it removed
/// a global, a stored method first compiled meanwhile works again;
/// after it emptied its own symbol list, the transaction tools still work
/// (they send to System itself) and abort brings the list back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_restores_a_session_its_client_broke() {
    let repo = gsmcp_tests::harness::scratch_path("abort-restores.db");
    let server = Server::builder().env("MCP_REPOSITORY", &repo).start();
    let http = Http::new(&server.url);
    let mut a = http.open().await;
    ok(
        &mut a,
        "compile_class_definition",
        json!({"className": "Keeper"}),
    )
    .await;
    eval(&mut a, "UserGlobals at: #KeptClass put: Array. true").await;
    ok(
        &mut a,
        "compile_method",
        json!({"className": "Keeper", "source": "make ^ KeptClass new: 2", "category": "making"}),
    )
    .await;
    ok(&mut a, "commit", json!({})).await;

    // a new login compiles the stored method on first use
    let mut b = http.open().await;
    eval(&mut b, "UserGlobals removeKey: #KeptClass. true").await;
    let broken = b.execute("Keeper new make").await;
    assert_eq!(broken["isError"], true, "{broken}");
    ok(&mut b, "abort", json!({})).await;
    assert_eq!(eval(&mut b, "Keeper new make").await, "anArray( nil, nil)");
    assert_eq!(eval(&mut b, "(Array new: 1) size").await, "1");

    // the client empties its own symbol list: nothing resolves any more
    eval(
        &mut b,
        "| sl | sl := System myUserProfile symbolList. [sl isEmpty] whileFalse: [sl remove: sl first]. true",
    )
    .await;
    let r = b.execute("Object").await;
    assert_eq!(r["isError"], true, "{r}");
    let status = ok(&mut b, "status", json!({})).await;
    assert_eq!(status["structuredContent"]["needsCommit"], true, "{status}");
    ok(&mut b, "abort", json!({})).await;
    let status = ok(&mut b, "status", json!({})).await;
    assert_eq!(
        status["structuredContent"]["needsCommit"], false,
        "{status}"
    );
    let r = ok(&mut b, "list_dictionaries", json!({})).await;
    assert!(r.to_string().contains("UserGlobals"), "{r}");
    assert_eq!(eval(&mut b, "Keeper new make").await, "anArray( nil, nil)");
}

/// A field of `/proc/<pid>/<file>` (the first number on the line starting
/// with `key`).
fn proc_number(pid: u32, file: &str, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l[key.len()..].split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/{file}:\n{text}"))
}

/// Under a small memory ceiling (MCP_WORKER_MEMORY) the concatenation bomb
/// and its kin end in AlmostOutOfMemory where the object would be made, the
/// session and its worker live on well under the ceiling's address space,
/// and the OS limit behind the ceiling is in force.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_stays_under_its_memory_ceiling() {
    if gsmcp_tests::test_backend_is_gci() {
        // a GemStone login's objects live in its gem, not in the worker
        return;
    }
    const CEILING: u64 = 128 << 20;
    let server = Server::builder().env("MCP_WORKER_MEMORY", "128m").start();
    let mut s = Http::new(&server.url).open().await;
    let pid = worker_of(server.port(), &s).expect("the session's worker");
    let limit = proc_number(pid, "limits", "Max address space");
    assert_eq!(limit, CEILING * 4 + (2 << 30), "the worker's RLIMIT_AS");

    let bombs = [
        "| s | s := 'ab'. 29 timesRepeat: [s := s , s]. s size",
        "| s | s := 'abcd'. 25 timesRepeat: [s := s , s]. s asSymbol size",
        "| a | a := Array new: 8. 30 timesRepeat: [a := a , a]. a size",
        "| c | c := OrderedCollection new. [true] whileTrue: [c add: (String new: 100000)]",
    ];
    for bomb in bombs {
        let r = s.execute(bomb).await;
        assert_eq!(r["isError"], true, "{bomb}: {r}");
        assert!(text(&r).contains("AlmostOutOfMemory"), "{bomb}: {r}");
        assert_eq!(eval(&mut s, "3 + 4").await, "7", "after {bomb}");
    }
    assert_eq!(
        eval(
            &mut s,
            "[| s | s := 'ab'. 29 timesRepeat: [s := s , s]] on: AlmostOutOfMemory do: [:e | e return: #caught]"
        )
        .await,
        "#caught"
    );
    assert_eq!(worker_of(server.port(), &s), Some(pid), "the same worker");
    let peak = proc_number(pid, "status", "VmHWM:") * 1024;
    eprintln!("worker peak resident set: {} MiB", peak >> 20);
    assert!(
        peak < 4 * CEILING,
        "the worker peaked at {} MiB under a {} MiB ceiling",
        peak >> 20,
        CEILING >> 20
    );
}

/// The kernel is SystemUser's: each damage a hostile trial once committed
/// (and bricked the repository with, for everyone and across restarts) is a
/// SecurityError for the developer login, from `execute_code` itself; a
/// commit after each writes none of it, and a second session and a restarted
/// server find the kernel whole. The developer still adds extension methods
/// to kernel classes and subclasses them. On both backends: the GCI library
/// logs in to the same embedded stone as the same user.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kernel_survives_a_hostile_developer() {
    let repo = gsmcp_tests::harness::scratch_path("kernel-damage.db");
    let start = || {
        Server::builder()
            .env("MCP_REPOSITORY", &repo)
            .env("MCP_WORKER_USER", "Developer")
            .start()
    };
    let compile = |class: &str, src: &str| {
        format!(
            "{class} compileMethod: '{}' dictionaries: System myUserProfile symbolList \
             category: 'damage'",
            src.replace('\'', "''")
        )
    };
    let damage = [
        "Globals at: #Object put: nil".to_string(),
        "Globals removeKey: #Array".into(),
        "UserGlobals removeKey: #UserGlobals".into(),
        compile("Object", "printString [true] whileTrue"),
        compile("Object", "printString ^ self error: 'raised'"),
        compile("String", ", aString ^ nil"),
        compile("WriteStream", "nextPutAll: aCollection ^ nil"),
        compile("Symbol", "asString ^ nil"),
        compile("Behavior", "name [true] whileTrue"),
        compile("UserProfile", "symbolList ^ nil"),
    ];
    {
        let server = start();
        let http = Http::new(&server.url);
        let mut a = http.open().await;
        let status = ok(&mut a, "status", json!({})).await;
        assert_eq!(status["structuredContent"]["user"], "Developer");
        for code in &damage {
            let r = a.execute(code).await;
            let e = &r["structuredContent"]["error"];
            assert_eq!(r["isError"], true, "{code}: {r}");
            assert_eq!(
                (e["class"].as_str(), e["number"].as_i64()),
                (Some("SecurityError"), Some(2108)),
                "{code}: {r}"
            );
            assert!(text(&r).contains("belongs to SystemUser"), "{code}: {r}");
            ok(&mut a, "commit", json!({})).await;
            let mut b = http.open().await;
            kernel_is_whole(&mut b).await;
            b.delete().await;
        }
        // what a developer does to the kernel: extend it and subclass it
        eval(&mut a, &compile("Object", "kernelExtensionProbe ^ 42")).await;
        eval(
            &mut a,
            "OrderedCollection subclass: 'Stack' instVarNames: #() classVars: #() \
             classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true",
        )
        .await;
        ok(&mut a, "commit", json!({})).await;
        kernel_is_whole(&mut a).await;
    }
    // a restart: every login still works, and the extension is there
    let server = start();
    let mut c = Http::new(&server.url).open().await;
    kernel_is_whole(&mut c).await;
    assert_eq!(
        eval(&mut c, "{3 kernelExtensionProbe. Stack new size}").await,
        "anArray( 42, 0)"
    );
}

/// What the kernel damage broke answers as a fresh kernel's does: printing,
/// concatenation, streams, names, lookup through the symbol list, browsing.
async fn kernel_is_whole(s: &mut util::mcp::Session) {
    let probe = "{Object name. (Array new: 2) size. 'a' , 'b'. #abc asString. \
                 (WriteStream on: String new) nextPutAll: 'xy'; contents. 3 printString. \
                 System myUserProfile symbolList size. \
                 (UserGlobals at: #UserGlobals) == UserGlobals} printString";
    assert_eq!(
        eval(s, probe).await,
        "'anArray( #Object, 2, ''ab'', ''abc'', ''xy'', ''3'', 3, true)'"
    );
    let r = ok(
        s,
        "describe_class",
        json!({"className": "OrderedCollection"}),
    )
    .await;
    assert!(text(&r).contains("SequenceableCollection"), "{r}");
}
