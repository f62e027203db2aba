//! Repository-backed sessions end to end: a repository file in a temporary
//! directory, logins in this process and in a second OS process (this test
//! binary re-executed as a line-driven session), commits, aborts, conflicts,
//! restarts, users and the errors GemStone gives.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use gsmcp_smalltalk::Session;

/// A fresh directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "gsmcp-persist-{tag}-{}-{}",
            std::process::id(),
            std::thread::current()
                .name()
                .unwrap_or("t")
                .replace("::", "-")
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn repo(&self) -> PathBuf {
        self.0.join("repository.db")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn new_repository(tag: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new(tag);
    let path = dir.repo();
    Session::create_repository(&path).expect("create repository");
    (dir, path)
}

fn login(path: &Path) -> Session {
    Session::login(path, "DataCurator", "swordfish").expect("login as DataCurator")
}

/// One command's outcome as the driver reports it: `ok <printString>` or
/// `error <number> <class>`.
fn run_line(session: &mut Option<Session>, path: &Path, line: &str) -> String {
    if let Some(rest) = line.strip_prefix("login ") {
        let mut parts = rest.splitn(2, ' ');
        let (user, password) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        return match Session::login(path, user, password) {
            Ok(s) => {
                *session = Some(s);
                "ok login".into()
            }
            Err(e) => format!("error {} {}", e.number, e.class_name),
        };
    }
    let Some(s) = session.as_mut() else {
        return "error 0 NotLoggedIn".into();
    };
    match s.evaluate_print_string(line) {
        Ok(v) => format!("ok {v}"),
        Err(e) => format!("error {} {}", e.number, e.class_name),
    }
}

/// A session in another OS process, driven line by line.
struct Remote {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Remote {
    fn start(path: &Path) -> Remote {
        let exe = std::env::current_exe().unwrap();
        let mut child = Command::new(exe)
            .args([
                "--exact",
                "line_driven_session",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("GSMCP_PERSIST_DRIVER_REPO", path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the second process");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Remote {
            child,
            stdin,
            stdout,
        }
    }

    fn run(&mut self, line: &str) -> String {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut out = String::new();
            assert!(
                self.stdout.read_line(&mut out).unwrap() > 0,
                "the second process ended before answering {line:?}"
            );
            // the test harness prints its own lines around ours
            if let Some(at) = out.find("REPLY ") {
                return out[at + 6..].trim_end().to_string();
            }
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The other process of the multi-process tests (re-executed with
/// GSMCP_PERSIST_DRIVER_REPO set). Run directly, it drives the same loop over a
/// fixed script against a repository of its own and checks the replies.
#[test]
fn line_driven_session() {
    if let Some(path) = std::env::var_os("GSMCP_PERSIST_COMMIT_LOOP") {
        commit_loop(Path::new(&path));
        return;
    }
    if let Some(path) = std::env::var_os("GSMCP_PERSIST_DRIVER_REPO") {
        let path = PathBuf::from(path);
        let mut session = None;
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let line = line.unwrap();
            let reply = run_line(&mut session, &path, &line);
            // on a line of its own: the harness prints its status line without a newline
            println!("\nREPLY {reply}");
            std::io::stdout().flush().unwrap();
        }
        return;
    }
    let (_dir, path) = new_repository("driver");
    let mut session = None;
    let script = [
        ("3 + 4", "error 0 NotLoggedIn"),
        ("login DataCurator wrong", "error 4051 SecurityError"),
        ("login DataCurator swordfish", "ok login"),
        ("3 + 4", "ok 7"),
        ("1/0", "error 2026 ZeroDivide"),
    ];
    for (line, want) in script {
        assert_eq!(run_line(&mut session, &path, line), want, "{line}");
    }
}

/// Commits forever: each commit sets #A and #B to the same new number and
/// reports it once the commit answered true.
fn commit_loop(path: &Path) {
    let mut s = login(path);
    loop {
        let n = s.evaluate_print_string("| n | n := (UserGlobals at: #A ifAbsent: [0]) + 1. UserGlobals at: #A put: n. UserGlobals at: #Pad put: (String new: 500 withAll: $x). UserGlobals at: #B put: n. n").unwrap();
        assert_eq!(
            s.evaluate_print_string("System commitTransaction").unwrap(),
            "true"
        );
        println!("\nCOMMITTED {n}");
        std::io::stdout().flush().unwrap();
    }
}

/// A cheap pseudo-random sequence (xorshift), seeded from the clock.
fn rng() -> impl FnMut(u64) -> u64 {
    let mut x = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    move |bound| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % bound
    }
}

#[test]
fn commits_survive_sigkill_at_random_points() {
    let (_dir, path) = new_repository("sigkill");
    let exe = std::env::current_exe().unwrap();
    let mut random = rng();
    let mut last_reported = 0u64;
    for round in 0..100 {
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "line_driven_session",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("GSMCP_PERSIST_COMMIT_LOOP", &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut last = 0u64;
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(n) = line.strip_prefix("COMMITTED ") {
                    last = n.trim().parse().unwrap();
                }
            }
            last
        });
        std::thread::sleep(std::time::Duration::from_millis(30 + random(120)));
        // SIGKILL: no destructor, no checkpoint, possibly in the middle of a commit
        child.kill().unwrap();
        child.wait().unwrap();
        let reported = reader.join().unwrap();
        let mut s = Session::login(&path, "DataCurator", "swordfish")
            .unwrap_or_else(|e| panic!("round {round}: the repository does not open: {e}"));
        let a: u64 = s
            .evaluate_print_string("UserGlobals at: #A ifAbsent: [0]")
            .unwrap()
            .parse()
            .unwrap();
        let b: u64 = s
            .evaluate_print_string("UserGlobals at: #B ifAbsent: [0]")
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(a, b, "round {round}: a partial commit is visible");
        assert!(
            a >= reported.max(last_reported),
            "round {round}: commit {reported} answered true but the repository holds {a}"
        );
        last_reported = a;
        s.logout().unwrap();
    }
    assert!(last_reported > 0, "no commit ever succeeded");
}

#[test]
fn commit_survives_a_new_login_and_needs_commit_is_truthful() {
    let (_dir, path) = new_repository("restart");
    let mut a = login(&path);
    let steps = [
        ("System needsCommit", "false"),
        ("System inTransaction", "true"),
        ("System transactionMode", "#autoBegin"),
        ("UserGlobals at: #Foo put: 42", "42"),
        (
            "UserGlobals at: #Text put: 'persistent ', 'text'",
            "'persistent text'",
        ),
        (
            "UserGlobals at: #Big put: 1000 factorial // 999 factorial * (2 raisedTo: 100)",
            "1267650600228229401496703205376000",
        ),
        (
            "UserGlobals at: #Nested put: (Array with: #sym with: 3.5 with: $a with: (OrderedCollection new add: 'x'; yourself))",
            "anArray( #sym, 3.5, $a, anOrderedCollection( 'x'))",
        ),
        ("System needsCommit", "true"),
        ("System commitTransaction", "true"),
        ("System needsCommit", "false"),
        (
            "(System transactionConflicts at: #commitResult)",
            "#success",
        ),
    ];
    for (src, want) in steps {
        assert_eq!(a.evaluate_print_string(src).unwrap(), want, "{src}");
    }
    a.logout().unwrap();
    let mut b = login(&path);
    let checks = [
        ("UserGlobals at: #Foo", "42"),
        ("UserGlobals at: #Text", "'persistent text'"),
        ("UserGlobals at: #Big", "1267650600228229401496703205376000"),
        (
            "UserGlobals at: #Nested",
            "anArray( #sym, 3.5, $a, anOrderedCollection( 'x'))",
        ),
        ("(UserGlobals at: #Nested) first == #sym", "true"),
        ("System needsCommit", "false"),
    ];
    for (src, want) in checks {
        assert_eq!(b.evaluate_print_string(src).unwrap(), want, "{src}");
    }
}

#[test]
fn classes_methods_comments_and_categories_survive_a_restart() {
    let (_dir, path) = new_repository("classes");
    let mut a = login(&path);
    let define = [
        "Object subclass: 'Account' instVarNames: #('balance') classVars: #('Rate') classInstVars: #('count') poolDictionaries: #() inDictionary: UserGlobals",
        "Account comment: 'A bank account'",
        "Account category: 'Bank'",
        "Account compileMethod: 'balance ^ balance ifNil: [0]' dictionaries: System myUserProfile symbolList category: 'accessing'",
        "Account compileMethod: 'deposit: n balance := self balance + n. ^ self' dictionaries: System myUserProfile symbolList category: 'operations'",
        "Account class compileMethod: 'rate ^ Rate ifNil: [Rate := 5]' dictionaries: System myUserProfile symbolList category: 'rates'",
        "UserGlobals at: #Acct put: (Account new deposit: 30; yourself)",
    ];
    for src in define {
        a.evaluate_print_string(src)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
    }
    assert_eq!(
        a.evaluate_print_string("System commitTransaction").unwrap(),
        "true"
    );
    a.logout().unwrap();

    let mut b = login(&path);
    let checks = [
        ("Acct balance", "30"),
        (
            "(Account new deposit: 5; deposit: 6; yourself) balance",
            "11",
        ),
        ("Account rate", "5"),
        ("Account comment", "'A bank account'"),
        ("Account category", "#Bank"),
        (
            "(Account categoryOfSelector: #deposit:) printString",
            "'#operations'",
        ),
        ("Acct class class == Account class", "true"),
        ("Acct class == Account", "true"),
        (
            "(Account compiledMethodAt: #balance) sourceString",
            "'balance ^ balance ifNil: [0]'",
        ),
    ];
    for (src, want) in checks {
        assert_eq!(b.evaluate_print_string(src).unwrap(), want, "{src}");
    }
    // methods a login never ran (compiled on first use) survive a commit of their class
    let mut lazy = login(&path);
    lazy.evaluate_print_string(
        "Account compileMethod: 'twice ^ self balance * 2' dictionaries: System myUserProfile symbolList category: 'extra'",
    )
    .unwrap();
    assert!(lazy.commit_transaction().unwrap());
    assert_eq!(
        lazy.evaluate_print_string("System needsCommit").unwrap(),
        "false"
    );
    drop(lazy);
    let mut after = login(&path);
    assert_eq!(after.evaluate_print_string("Acct twice").unwrap(), "60");
    assert_eq!(
        after
            .evaluate_print_string("(Account compiledMethodAt: #deposit:) sourceString")
            .unwrap(),
        "'deposit: n balance := self balance + n. ^ self'"
    );
    assert_eq!(
        after
            .evaluate_print_string("Account sourceCodeAt: #balance")
            .unwrap(),
        "'balance ^ balance ifNil: [0]'"
    );
    assert_eq!(
        after.evaluate_print_string("System needsCommit").unwrap(),
        "false",
        "compiling stored code is not a change"
    );
    drop(after);

    // redefining with a new shape makes a new class version that also persists
    // (b's view predates the commit above: it would conflict on Account)
    b.abort_transaction().unwrap();
    b.evaluate_print_string("Object subclass: 'Account' instVarNames: #('balance' 'owner') classVars: #('Rate') classInstVars: #('count') poolDictionaries: #() inDictionary: UserGlobals").unwrap();
    b.evaluate_print_string("Account compileMethod: 'owner ^ owner' dictionaries: System myUserProfile symbolList category: 'accessing'").unwrap();
    assert_eq!(
        b.evaluate_print_string("System commitTransaction").unwrap(),
        "true"
    );
    b.logout().unwrap();
    let mut c = login(&path);
    assert_eq!(c.evaluate_print_string("Account new owner").unwrap(), "nil");
    assert_eq!(
        c.evaluate_print_string("Account classHistory size")
            .unwrap(),
        "2"
    );
    assert_eq!(c.evaluate_print_string("Acct balance").unwrap(), "30");
}

#[test]
fn two_processes_see_commits_only_after_moving_their_view_and_conflict() {
    let (_dir, path) = new_repository("two");
    let mut a = login(&path);
    a.evaluate_print_string("UserGlobals at: #Shared put: 1. System commitTransaction")
        .unwrap();
    let mut b = Remote::start(&path);
    // DataCurator's UserGlobals is the object both processes write
    assert_eq!(b.run("login DataCurator swordfish"), "ok login");
    assert_eq!(b.run("UserGlobals at: #Shared"), "ok 1");

    assert_eq!(
        a.evaluate_print_string("UserGlobals at: #Shared put: 2")
            .unwrap(),
        "2"
    );
    assert_eq!(
        b.run("UserGlobals at: #Shared"),
        "ok 1",
        "an uncommitted change is invisible"
    );
    assert_eq!(
        a.evaluate_print_string("System commitTransaction").unwrap(),
        "true"
    );
    assert_eq!(
        b.run("UserGlobals at: #Shared"),
        "ok 1",
        "a commit is invisible until the view moves"
    );
    assert_eq!(b.run("System abortTransaction"), "ok true");
    assert_eq!(b.run("UserGlobals at: #Shared"), "ok 2");

    // continueTransaction moves the view and keeps B's own change
    assert_eq!(b.run("UserGlobals at: #OnlyB put: 'b'"), "ok 'b'");
    a.evaluate_print_string("(UserGlobals at: #Shared) printString")
        .unwrap();
    assert_eq!(
        a.evaluate_print_string("Globals at: #FromA put: 3. System commitTransaction")
            .unwrap(),
        "true"
    );
    assert_eq!(b.run("Globals at: #FromA ifAbsent: [nil]"), "ok nil");
    assert_eq!(b.run("System continueTransaction"), "ok true");
    assert_eq!(b.run("Globals at: #FromA"), "ok 3");
    assert_eq!(b.run("UserGlobals at: #OnlyB"), "ok 'b'");
    assert_eq!(b.run("System commitTransaction"), "ok true");
    assert_eq!(
        a.evaluate_print_string("System abortTransaction. UserGlobals at: #OnlyB")
            .unwrap(),
        "'b'"
    );

    // both write the same object: the second commit fails and the session must abort
    assert_eq!(
        a.evaluate_print_string("UserGlobals at: #Shared put: 10")
            .unwrap(),
        "10"
    );
    assert_eq!(b.run("UserGlobals at: #Shared put: 20"), "ok 20");
    assert_eq!(
        a.evaluate_print_string("System commitTransaction").unwrap(),
        "true"
    );
    assert_eq!(b.run("System commitTransaction"), "ok false");
    assert_eq!(
        b.run("System transactionConflicts at: #commitResult"),
        "ok #failure"
    );
    // the object both wrote is the association holding #Shared (the dictionary itself is unchanged)
    assert_eq!(
        b.run("(System transactionConflicts at: #'Write-Write') size"),
        "ok 1"
    );
    assert_eq!(
        b.run("(System transactionConflicts at: #'Write-Write') first key"),
        "ok #Shared"
    );
    assert_eq!(
        b.run("System commitTransaction"),
        "error 2409 TransactionError"
    );
    assert_eq!(
        b.run("System continueTransaction"),
        "error 2409 TransactionError"
    );
    assert_eq!(
        b.run("[System commitTransaction] on: TransactionError do: [:e | e number]"),
        "ok 2409"
    );
    assert_eq!(b.run("System abortTransaction"), "ok true");
    assert_eq!(b.run("UserGlobals at: #Shared"), "ok 10");
    assert_eq!(
        b.run("UserGlobals at: #Shared put: 30. System commitTransaction"),
        "ok true"
    );
    assert_eq!(
        a.evaluate_print_string("System abortTransaction. UserGlobals at: #Shared")
            .unwrap(),
        "30"
    );
}

#[test]
fn a_class_committed_in_one_process_is_usable_by_a_new_login_elsewhere() {
    let (_dir, path) = new_repository("classproc");
    let mut b = Remote::start(&path);
    assert_eq!(b.run("login DataCurator swordfish"), "ok login");
    assert_eq!(
        b.run("Object subclass: 'Point3' instVarNames: #('x' 'y' 'z') classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals"),
        "ok Point3"
    );
    assert_eq!(b.run("Point3 compileMethod: 'sum ^ (x ifNil: [1]) + (y ifNil: [2]) + (z ifNil: [3])' dictionaries: System myUserProfile symbolList category: 'math'"), "ok nil");
    assert_eq!(b.run("System commitTransaction"), "ok true");
    drop(b);
    let mut a = login(&path);
    assert_eq!(a.evaluate_print_string("Point3 new sum").unwrap(), "6");
}

#[test]
fn compiling_into_the_same_class_in_two_sessions_conflicts() {
    let (_dir, path) = new_repository("classconflict");
    let mut a = login(&path);
    a.evaluate_print_string("Object subclass: 'Shape' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. System commitTransaction").unwrap();
    let mut b = login(&path);
    a.evaluate_print_string("Shape compileMethod: 'area ^ 1' dictionaries: System myUserProfile symbolList category: 'a'").unwrap();
    b.evaluate_print_string("Shape compileMethod: 'perimeter ^ 2' dictionaries: System myUserProfile symbolList category: 'a'").unwrap();
    assert!(a.commit_transaction().unwrap());
    assert!(!b.commit_transaction().unwrap());
    b.abort_transaction().unwrap();
    assert_eq!(b.evaluate_print_string("Shape new area").unwrap(), "1");
    assert_eq!(
        b.evaluate_print_string("Shape new respondsTo: #perimeter")
            .unwrap(),
        "false"
    );
}

#[test]
fn abort_discards_changes_and_survives_garbage_collection() {
    let (_dir, path) = new_repository("abort");
    let mut a = login(&path);
    a.evaluate_print_string("UserGlobals at: #S put: 'kept'. UserGlobals at: #L put: (OrderedCollection with: 1 with: 2). System commitTransaction").unwrap();
    a.evaluate_print_string(
        "UserGlobals removeKey: #S. (UserGlobals at: #L) add: 3. UserGlobals at: #T put: 'temp'",
    )
    .unwrap();
    a.collect_garbage();
    // fresh objects reuse the slots the collector freed
    a.evaluate_print_string("(1 to: 1000) collect: [:i | i printString]")
        .unwrap();
    assert_eq!(
        a.evaluate_print_string("System needsCommit").unwrap(),
        "true"
    );
    a.abort_transaction().unwrap();
    assert_eq!(
        a.evaluate_print_string("System needsCommit").unwrap(),
        "false"
    );
    assert_eq!(
        a.evaluate_print_string("UserGlobals at: #S").unwrap(),
        "'kept'"
    );
    assert_eq!(
        a.evaluate_print_string("UserGlobals at: #L").unwrap(),
        "anOrderedCollection( 1, 2)"
    );
    assert_eq!(
        a.evaluate_print_string("UserGlobals includesKey: #T")
            .unwrap(),
        "false"
    );
}

#[test]
fn objects_that_cannot_be_committed_raise_2407_and_nothing_is_written() {
    let (_dir, path) = new_repository("uncommittable");
    let mut a = login(&path);
    a.evaluate_print_string(
        "UserGlobals at: #Block put: [:x | x + 1]. UserGlobals at: #Fine put: 7",
    )
    .unwrap();
    assert_eq!(
        a.evaluate_print_string(
            "[System commitTransaction] on: TransactionError do: [:e | e number]"
        )
        .unwrap(),
        "2407"
    );
    let err = a.commit_transaction().unwrap_err();
    assert_eq!(err.number, 2407);
    assert!(err.description.contains("ExecBlock"), "{}", err.description);
    let mut b = login(&path);
    assert_eq!(
        b.evaluate_print_string("UserGlobals includesKey: #Fine")
            .unwrap(),
        "false"
    );
    // once the block is gone the rest commits
    a.evaluate_print_string("UserGlobals removeKey: #Block")
        .unwrap();
    assert!(a.commit_transaction().unwrap());
    b.abort_transaction().unwrap();
    assert_eq!(
        b.evaluate_print_string("UserGlobals at: #Fine").unwrap(),
        "7"
    );
}

#[test]
fn users_passwords_and_a_read_only_profile() {
    let (_dir, path) = new_repository("users");
    let denied = [
        ("DataCurator", "wrong"),
        ("DataCurator", ""),
        ("Nobody", "swordfish"),
        ("", ""),
    ];
    for (user, password) in denied {
        let err = Session::login(&path, user, password)
            .err()
            .expect("login must fail");
        assert_eq!(
            (err.number, err.class_name.as_str()),
            (4051, "SecurityError"),
            "{user}/{password}"
        );
        assert!(!err.description.contains(password) || password.is_empty());
    }
    let mut su = Session::login(&path, "SystemUser", "swordfish").unwrap();
    assert_eq!(su.repository_user().as_deref(), Some("SystemUser"));
    assert_eq!(
        su.evaluate_print_string("UserGlobals at: #Mine put: 'su'. System commitTransaction")
            .unwrap(),
        "true"
    );

    let mut dc = login(&path);
    assert_eq!(
        dc.evaluate_print_string("UserGlobals includesKey: #Mine")
            .unwrap(),
        "false",
        "each user has an own UserGlobals"
    );
    dc.evaluate_print_string("AllUsers addNewUserWithId: 'alice' password: 'wonderland'")
        .unwrap();
    dc.evaluate_print_string(
        "AllUsers addNewUserWithId: 'reader' password: 'look' commitDisabled: true",
    )
    .unwrap();
    assert!(
        Session::login(&path, "alice", "wonderland").is_err(),
        "not committed yet"
    );
    dc.evaluate_print_string("Globals at: #SharedCounter put: 0")
        .unwrap();
    assert_eq!(
        dc.evaluate_print_string("System commitTransaction")
            .unwrap(),
        "true"
    );
    assert_eq!(
        dc.evaluate_print_string("AllUsers userIds").unwrap(),
        "anArray( 'DataCurator', 'SystemUser', 'Developer', 'alice', 'reader')"
    );
    let dup = dc
        .evaluate_print_string("AllUsers addNewUserWithId: 'alice' password: 'x'")
        .unwrap_err();
    assert_eq!(
        (dup.class_name.as_str(), dup.number),
        ("ImproperOperation", 2717)
    );

    // a user created and then aborted never exists; its objects are temporaries again
    dc.evaluate_print_string("AllUsers addNewUserWithId: 'ghost' password: 'boo'")
        .unwrap();
    dc.abort_transaction().unwrap();
    assert_eq!(
        dc.evaluate_print_string("AllUsers userWithId: 'ghost'")
            .unwrap(),
        "nil"
    );
    dc.evaluate_print_string("UserGlobals at: #Kept put: 'still here'")
        .unwrap();
    assert!(dc.commit_transaction().unwrap());
    assert!(Session::login(&path, "ghost", "boo").is_err());

    let mut alice = Session::login(&path, "alice", "wonderland").unwrap();
    assert_eq!(alice.user_id(), "alice");
    assert!(Session::login(&path, "alice", "Wonderland").is_err());
    assert_eq!(
        alice
            .evaluate_print_string("UserGlobals at: #Hers put: 1. System commitTransaction")
            .unwrap(),
        "true"
    );
    assert_eq!(
        alice
            .evaluate_print_string("System myUserProfile symbolList printString")
            .unwrap(),
        "'aSymbolList( UserGlobals, Globals, Published)'"
    );
    assert_eq!(
        alice
            .evaluate_print_string("System myUserProfile userId")
            .unwrap(),
        "'alice'"
    );
    let refused = alice
        .evaluate_print_string("AllUsers addNewUserWithId: 'mallory' password: 'x'")
        .unwrap_err();
    assert!(
        refused.description.contains("may not create users"),
        "{}",
        refused.description
    );

    let mut reader = Session::login(&path, "reader", "look").unwrap();
    assert_eq!(
        reader
            .evaluate_print_string("Globals at: #SharedCounter")
            .unwrap(),
        "0"
    );
    let err = reader
        .evaluate_print_string("System commitTransaction")
        .unwrap_err();
    assert_eq!(
        (err.number, err.class_name.as_str()),
        (2409, "TransactionError")
    );
    assert!(err.description.contains("read-only"), "{}", err.description);
    assert_eq!(
        reader
            .evaluate_print_string("System abortTransaction. Globals at: #SharedCounter")
            .unwrap(),
        "0"
    );
}

#[test]
fn bad_paths_and_files_are_errors() {
    let dir = TempDir::new("bad");
    let missing = dir.0.join("missing.db");
    let err = Session::login(&missing, "DataCurator", "swordfish")
        .err()
        .unwrap();
    assert!(
        err.description.contains("does not exist"),
        "{}",
        err.description
    );
    let garbage = dir.0.join("garbage.db");
    std::fs::write(
        &garbage,
        b"this is not a repository at all, just some text of some length",
    )
    .unwrap();
    let err = Session::login(&garbage, "DataCurator", "swordfish")
        .err()
        .unwrap();
    assert!(
        err.description.contains("not a gsmcp repository"),
        "{}",
        err.description
    );
    let err = Session::create_repository(&garbage).err().unwrap();
    assert!(
        err.description.contains("already exists"),
        "{}",
        err.description
    );
    assert!(
        std::fs::read(&garbage).unwrap().starts_with(b"this is not"),
        "an existing file is never touched"
    );
    let path = dir.repo();
    Session::create_repository(&path).unwrap();
    assert!(Session::create_repository(&path).is_err());
    assert!(Session::login(&path, "DataCurator", "swordfish").is_ok());
}

#[test]
fn commits_behind_counts_other_sessions_commits() {
    let (_dir, path) = new_repository("behind");
    let mut a = login(&path);
    let mut b = login(&path);
    let behind = b.commits_behind_reader().expect("a repository session");
    assert_eq!(behind(), Some(0));
    for i in 0..3 {
        a.evaluate_print_string(&format!(
            "UserGlobals at: #N put: {i}. System commitTransaction"
        ))
        .unwrap();
    }
    assert_eq!(behind(), Some(3));
    b.abort_transaction().unwrap();
    assert_eq!(behind(), Some(0));
    assert_eq!(b.evaluate_print_string("UserGlobals at: #N").unwrap(), "2");
    fn send<T: Send>(_: &T) {}
    send(&b);
    let mem = Session::bootstrap().unwrap();
    assert!(mem.commits_behind_reader().is_none());
    assert!(!mem.is_persistent());
}

#[test]
fn concurrent_creators_share_one_repository() {
    let dir = TempDir::new("race");
    let path = dir.repo();
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                let created = Session::create_repository_if_missing(&path).unwrap();
                let mut s = login(&path);
                s.evaluate_print_string(&format!("Globals at: #Creator{i} put: {i}"))
                    .unwrap();
                // every creator's commit lands in the same repository
                while !s.commit_transaction().unwrap() {
                    s.abort_transaction().unwrap();
                    s.evaluate_print_string(&format!("Globals at: #Creator{i} put: {i}"))
                        .unwrap();
                }
                created
            })
        })
        .collect();
    let created: Vec<bool> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(created.iter().filter(|&&c| c).count(), 1, "{created:?}");
    let mut s = login(&path);
    assert_eq!(
        s.evaluate_print_string(
            "(0 to: 2) collect: [:i | Globals at: ('Creator', i printString) asSymbol]"
        )
        .unwrap(),
        "anArray( 0, 1, 2)"
    );
    assert!(!Session::create_repository_if_missing(&path).unwrap());
}

#[test]
fn damaged_records_are_errors_not_panics() {
    use gsmcp_store::{LoginOptions, Repository};
    // (reserved OOP, bytes written over it): the kernel record, the security record
    let damage: &[(u64, &[u8])] = &[
        (1, b""),
        (1, &[1, 200, 3]),
        (2, b"not a security record"),
        (2, &[1, 5]),
    ];
    for &(oop, bytes) in damage {
        let (_dir, path) = new_repository("damaged");
        {
            let repo = Repository::open(&path).unwrap();
            let mut s = repo.login(LoginOptions::new().label("vandal")).unwrap();
            s.commit([(oop, Some(bytes.to_vec()))]).unwrap();
            s.logout().unwrap();
        }
        let err = Session::login(&path, "DataCurator", "swordfish")
            .err()
            .unwrap_or_else(|| panic!("login succeeded over damaged object {oop}"));
        assert_eq!(err.class_name, "RepositoryError", "{}", err.description);
        assert!(
            err.description.contains("undecodable") || err.description.contains("format"),
            "{}",
            err.description
        );
    }
    // an ordinary object damaged: the user's UserGlobals is found through the security record
    let (_dir, path) = new_repository("damaged-object");
    let mut a = login(&path);
    a.evaluate_print_string(
        "UserGlobals at: #Victim put: (Array new: 3). System commitTransaction",
    )
    .unwrap();
    drop(a);
    let repo = Repository::open(&path).unwrap();
    let mut s = repo.login(LoginOptions::new().label("vandal")).unwrap();
    let mut victims = vec![];
    s.for_each_object(|oop, data| {
        // the Array record: format 1, kind Ptr, then 3 nils at the end
        if data.len() > 4 && data[1] == 1 && data.ends_with(&[3, 0, 0, 0]) {
            victims.push(oop);
        }
    })
    .unwrap();
    assert!(!victims.is_empty());
    s.commit(victims.iter().map(|&o| (o, Some(vec![1, 1, 0xff]))))
        .unwrap();
    s.logout().unwrap();
    let err = Session::login(&path, "DataCurator", "swordfish")
        .err()
        .expect("damaged object");
    assert!(
        err.description.contains("undecodable"),
        "{}",
        err.description
    );
}

/// The transaction calls of the public API work on an in-memory image too: they
/// answer what the image's own System messages answer, and never panic.
#[test]
fn transaction_calls_on_an_in_memory_image() {
    let mut s = Session::bootstrap().expect("in-memory login");
    assert!(!s.is_persistent());
    s.evaluate_print_string("UserGlobals at: #InMemory put: 1")
        .unwrap();
    assert!(s.commit_transaction().expect("commit in memory"));
    s.abort_transaction().expect("abort in memory");
    s.continue_transaction().expect("continue in memory");
    assert_eq!(
        s.evaluate_print_string("(UserGlobals at: #InMemory ifAbsent: [0]) + 1")
            .unwrap(),
        "2"
    );
    s.logout().expect("logout in memory");
}

/// Moving the view over another session's commit loads what it changed; that
/// is not a change of this session's own, so nothing is left to commit.
#[test]
fn continue_over_another_commit_leaves_nothing_to_commit() {
    let (_dir, path) = new_repository("continue-clean");
    let mut a = login(&path);
    let mut b = login(&path);
    a.evaluate_print_string("UserGlobals at: #Shared put: 1")
        .unwrap();
    assert!(a.commit_transaction().unwrap());
    b.abort_transaction().unwrap();
    assert_eq!(
        b.evaluate_print_string("UserGlobals at: #Shared").unwrap(),
        "1"
    );
    a.evaluate_print_string("UserGlobals at: #Shared put: 2")
        .unwrap();
    assert!(a.commit_transaction().unwrap());
    b.continue_transaction().unwrap();
    assert_eq!(
        b.evaluate_print_string("UserGlobals at: #Shared").unwrap(),
        "2"
    );
    assert_eq!(
        b.evaluate_print_string("System needsCommit").unwrap(),
        "false"
    );
    // The same when this session had already named a Symbol the commit made persistent.
    assert_eq!(
        b.evaluate_print_string("UserGlobals at: #BrandNew ifAbsent: [#none]")
            .unwrap(),
        "#none"
    );
    a.evaluate_print_string("UserGlobals at: #BrandNew put: 3")
        .unwrap();
    assert!(a.commit_transaction().unwrap());
    b.continue_transaction().unwrap();
    assert_eq!(
        b.evaluate_print_string("UserGlobals at: #BrandNew")
            .unwrap(),
        "3"
    );
    assert_eq!(
        b.evaluate_print_string("System needsCommit").unwrap(),
        "false"
    );
}

/// What a read-only (commit-disabled) user may not do: every store into a
/// shared persistent object fails with SecurityError, which the session can
/// catch; the session stays usable and nothing changes, in its memory or in the
/// repository.
/// `code` fails with SecurityError 2108 whose description names every word.
fn assert_security_error(session: &mut Session, code: &str, words: &[&str]) {
    let err = session.evaluate_print_string(code).expect_err(code);
    assert_eq!(
        (err.class_name.as_str(), err.number),
        ("SecurityError", 2108),
        "{code}: {}",
        err.description
    );
    assert!(
        words.iter().all(|w| err.description.contains(w)),
        "{code}: {}",
        err.description
    );
}

#[test]
fn a_read_only_user_may_read_everything_and_change_only_its_own_objects() {
    let (_dir, path) = new_repository("readonly");
    let mut dc = login(&path);
    for setup in [
        "AllUsers addNewUserWithId: 'reader' password: 'look' commitDisabled: true",
        "Globals at: #SharedCounter put: 0",
        "Globals at: #SharedArray put: (Array with: 1 with: 2 with: 3)",
        "Globals at: #SharedString put: 'abc' copy",
        "Globals at: #SharedOc put: (OrderedCollection with: 1)",
        // full: the next add grows the array first (the growth fast paths)
        "Globals at: #SharedFullOc put: ((OrderedCollection new: 4) add: 1; add: 2; add: 3; yourself)",
        "Globals at: #SharedStream put: ((WriteStream on: (String new: 2)) nextPutAll: 'ab'; yourself)",
        "Object subclass: 'SharedThing' instVarNames: #('a') classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Globals",
        "SharedThing compileMethod: 'one ^ 1' dictionaries: System myUserProfile symbolList category: 'x'",
        "SharedThing comment: 'shared'",
        "Globals at: #SharedThingInstance put: SharedThing new",
        "UserGlobals at: #Mine put: 1",
    ] {
        dc.evaluate_print_string(setup).expect(setup);
    }
    assert!(dc.commit_transaction().unwrap());
    let before = |s: &mut Session| {
        s.evaluate_print_string(
            "{SharedCounter. SharedArray. SharedString. SharedOc. SharedFullOc. SharedStream contents. \
              SharedStream collection. SharedThing comment. \
              SharedThing selectors asSortedCollection asArray. SharedThingInstance instVarAt: 1. \
              Object comment size. (Object includesSelector: #yourself). \
              (Object includesSelector: #readOnlyProbe). (UserGlobals includesKey: #X). \
              (Globals includesKey: #Scratch)}",
        )
        .unwrap()
    };
    let shared_state = before(&mut dc);
    dc.logout().unwrap();

    let mut reader = Session::login(&path, "reader", "look").unwrap();
    assert_eq!(before(&mut reader), shared_state, "reads see everything");
    let refused = [
        "UserGlobals at: #X put: 1",
        "Globals at: #SharedCounter put: 1",
        "Globals removeKey: #SharedCounter",
        "SharedCounter := 7",
        "(Globals associationAt: #SharedCounter) value: 5",
        "SharedArray at: 1 put: 9",
        "SharedArray become: (Array new: 2)",
        "SharedString at: 1 put: $x",
        "SharedOc add: 2",
        "SharedOc removeFirst",
        "SharedFullOc add: 4",
        "SharedFullOc _growAtEnd",
        "SharedStream nextPut: $c",
        "SharedStream nextPutAll: 'cd'",
        "SharedStream _grow",
        "SharedThingInstance instVarAt: 1 put: 3",
        "SharedThing compileMethod: 'two ^ 2' dictionaries: System myUserProfile symbolList category: 'x'",
        "Object compileMethod: 'readOnlyProbe ^ 2' dictionaries: System myUserProfile symbolList category: 'x'",
        "SharedThing removeSelector: #one",
        "Object removeSelector: #yourself",
        "SharedThing comment: 'changed'",
        "Object comment: 'changed'",
        "Object subclass: 'Scratch' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals",
        "Object subclass: 'Scratch' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: SymbolDictionary new",
        "Object subclass: 'SharedThing' instVarNames: #('a' 'b') classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Globals",
    ];
    for code in refused {
        assert_security_error(&mut reader, code, &["no write authorization", "reader"]);
        assert_eq!(
            reader.evaluate_print_string("3 + 4").unwrap(),
            "7",
            "usable after {code}"
        );
        assert_eq!(before(&mut reader), shared_state, "unchanged after {code}");
        assert_eq!(
            reader.evaluate_print_string("System needsCommit").unwrap(),
            "false",
            "{code}"
        );
    }
    // catchable, with GemStone's protocol
    assert_eq!(
        reader
            .evaluate_print_string(
                "[UserGlobals at: #X put: 1] on: SecurityError do: [:e | e number]"
            )
            .unwrap(),
        "2108"
    );
    // its own objects are its to change; stored code runs
    assert_eq!(
        reader
            .evaluate_print_string(
                "| a oc d | a := Array new: 2. a at: 1 put: 5. oc := OrderedCollection new. \
                 oc add: 1; add: 2. d := SymbolDictionary new. d at: #k put: 3. \
                 {a. oc size. d at: #k. SharedThing new one}"
            )
            .unwrap(),
        "anArray( anArray( 5, nil), 2, 3, 1)"
    );
    let err = reader.commit_transaction().unwrap_err();
    assert_eq!(
        (err.number, err.class_name.as_str()),
        (2409, "TransactionError")
    );
    reader.abort_transaction().unwrap();
    assert_eq!(before(&mut reader), shared_state);
    reader.logout().unwrap();
    let mut dc = login(&path);
    assert_eq!(before(&mut dc), shared_state, "the repository is unchanged");
}

/// The growth fast paths (an OrderedCollection's array, a WriteStream's
/// collection) store into persistent objects through the write barrier: the
/// grown objects are committed and a new login sees them.
#[test]
fn collections_grown_by_the_fast_paths_are_committed() {
    let (_dir, path) = new_repository("grown");
    let mut dc = login(&path);
    for setup in [
        "UserGlobals at: #Oc put: ((OrderedCollection new: 4) add: 1; add: 2; add: 3; yourself)",
        "UserGlobals at: #Ws put: ((WriteStream on: (String new: 2)) nextPutAll: 'ab'; yourself)",
    ] {
        dc.evaluate_print_string(setup).expect(setup);
    }
    assert!(dc.commit_transaction().unwrap());
    dc.logout().unwrap();

    let mut a = login(&path);
    a.evaluate_print_string(
        "Oc add: 4; add: 5. Ws nextPut: $c; nextPutAll: (String new: 20 withAll: $d). true",
    )
    .unwrap();
    assert_eq!(
        a.evaluate_print_string("System needsCommit").unwrap(),
        "true"
    );
    assert!(a.commit_transaction().unwrap());
    a.logout().unwrap();

    let mut b = login(&path);
    assert_eq!(
        b.evaluate_print_string(
            "{Oc. Oc size. Ws contents size. Ws contents first: 4. Ws collection size}"
        )
        .unwrap(),
        "anArray( anOrderedCollection( 1, 2, 3, 4, 5), 5, 23, 'abcd', 32)"
    );
}

/// Methods are read from the repository on first use, not at login: what a
/// session runs is the code of its view, even when it first runs it after
/// another session committed a new version; abort shows the new one; a
/// collection in between does not confuse placeholders with other objects.
#[test]
fn methods_read_on_first_use_follow_the_sessions_view() {
    let (_dir, path) = new_repository("lazy");
    let mut dc = login(&path);
    for code in [
        "Object subclass: 'Lazy' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals",
        "Lazy compileMethod: 'v ^ 1' dictionaries: System myUserProfile symbolList category: 'old'",
        "Lazy compileMethod: 'u ^ self v + 10' dictionaries: System myUserProfile symbolList category: 'old'",
    ] {
        dc.evaluate_print_string(code).expect(code);
    }
    assert!(dc.commit_transaction().unwrap());

    let mut a = login(&path);
    let mut b = login(&path);
    for code in [
        "Lazy compileMethod: 'v ^ 2' dictionaries: System myUserProfile symbolList category: 'new'",
        "Lazy compileMethod: 'w ^ 3' dictionaries: System myUserProfile symbolList category: 'new'",
    ] {
        b.evaluate_print_string(code).expect(code);
    }
    assert!(b.commit_transaction().unwrap());

    // A runs Lazy's methods only now: they are the ones of its view
    a.collect_garbage();
    assert_eq!(
        a.evaluate_print_string("(1 to: 500) collect: [:i | i printString]. Lazy new u")
            .unwrap(),
        "11"
    );
    assert_eq!(
        a.evaluate_print_string("{Lazy new v. Lazy includesSelector: #w. (Lazy sourceCodeAt: #v) asString. Lazy categoryOfSelector: #v}")
            .unwrap(),
        "anArray( 1, false, 'v ^ 1', #old)"
    );
    a.abort_transaction().unwrap();
    assert_eq!(
        a.evaluate_print_string("{Lazy new u. Lazy new w. (Lazy sourceCodeAt: #v) asString. Lazy categoryOfSelector: #v}")
            .unwrap(),
        "anArray( 12, 3, 'v ^ 2', #new)"
    );
    assert!(a.load_warnings().is_empty(), "{:?}", a.load_warnings());
    // and a restart reads them again
    drop((a, b, dc));
    let mut c = login(&path);
    assert_eq!(
        c.evaluate_print_string("Lazy new u + Lazy new w").unwrap(),
        "15"
    );
}

/// A stored method whose record cannot be read when it is first used is a
/// Smalltalk error naming the class, the selector and the cause — one a
/// handler can catch — never a silent `doesNotUnderstand`; the other methods
/// of the class work, and nothing of the stand-in is ever committed.
#[test]
fn an_unreadable_method_record_is_an_error_naming_the_method() {
    use gsmcp_store::{LoginOptions, Repository};
    let (_dir, path) = new_repository("unreadable-method");
    let mut dc = login(&path);
    for code in [
        // an instance variable named like the stand-in's first argument
        "Object subclass: 'Damaged' instVarNames: #(arg1) classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals",
        "Damaged compileMethod: 'keep ^ 7' dictionaries: System myUserProfile symbolList category: 'ok'",
        "Damaged compileMethod: 'broken ^ ''marker-unary''' dictionaries: System myUserProfile symbolList category: 'ok'",
        "Damaged compileMethod: 'at: i put: v ^ ''marker-keyword''' dictionaries: System myUserProfile symbolList category: 'ok'",
        "Damaged compileMethod: '+ other ^ ''marker-binary''' dictionaries: System myUserProfile symbolList category: 'ok'",
    ] {
        dc.evaluate_print_string(code).expect(code);
    }
    assert!(dc.commit_transaction().unwrap());
    drop(dc);

    // every record holding a marker, by OOP, as the store holds it now
    let records = || {
        let repo = Repository::open(&path).unwrap();
        let s = repo.login(LoginOptions::new().label("vandal")).unwrap();
        let mut found = std::collections::BTreeMap::new();
        s.for_each_object(|oop, data| {
            if data.windows(7).any(|w| w == b"marker-") {
                found.insert(oop, data.to_vec());
            }
        })
        .unwrap();
        found
    };
    let marked = records();
    assert_eq!(marked.len(), 3, "one record per marked method");
    // two records cut in half (still method records by their header), one deleted
    let damage: Vec<(u64, Option<Vec<u8>>)> = marked
        .iter()
        .map(|(&oop, data)| {
            let keyword = data.windows(14).any(|w| w == b"marker-keyword");
            (oop, (!keyword).then(|| data[..data.len() / 2].to_vec()))
        })
        .collect();
    {
        let repo = Repository::open(&path).unwrap();
        let mut s = repo.login(LoginOptions::new().label("vandal")).unwrap();
        s.commit(damage.clone()).unwrap();
        s.logout().unwrap();
    }
    let stored_damage = || {
        let repo = Repository::open(&path).unwrap();
        let s = repo.login(LoginOptions::new().label("vandal")).unwrap();
        damage
            .iter()
            .map(|(oop, _)| (*oop, s.read(*oop).unwrap()))
            .collect::<Vec<_>>()
    };
    assert_eq!(stored_damage(), damage);

    let mut a = login(&path);
    assert_eq!(a.evaluate_print_string("Damaged new keep").unwrap(), "7");
    for (send, selector, cause) in [
        ("Damaged new broken", "Damaged>>broken", "undecodable"),
        (
            "Damaged new at: 1 put: 2",
            "Damaged>>at:put:",
            "does not hold",
        ),
        ("Damaged new + 3", "Damaged>>+", "undecodable"),
    ] {
        let err = a.evaluate_print_string(send).expect_err(send);
        assert_eq!(err.class_name, "Error", "{send}: {}", err.description);
        let text = err.message_text.clone().unwrap_or_default();
        for part in ["repository error", selector, "cannot be read", cause] {
            assert!(
                text.contains(part),
                "{send}: {part:?} missing from {text:?}"
            );
        }
    }
    assert_eq!(
        a.evaluate_print_string(
            "[Damaged new broken] on: Error do: [:e | (e messageText includesString: 'Damaged>>broken') printString]"
        )
        .unwrap(),
        "'true'"
    );
    assert_eq!(a.load_warnings().len(), 3, "{:?}", a.load_warnings());
    // a commit of this session writes none of the stand-ins
    a.evaluate_print_string("UserGlobals at: #AfterDamage put: 1")
        .unwrap();
    assert!(a.commit_transaction().unwrap());
    drop(a);
    assert_eq!(
        stored_damage(),
        damage,
        "the damaged records are as they were"
    );
    let mut b = login(&path);
    // searches read a fresh login's methods in one go: the damaged records
    // are left out, and using them still says why
    assert_eq!(
        b.evaluate_print_string(
            "{(ClassOrganizer new substringSearch: 'marker-' ignoreCase: false) first size. (ClassOrganizer new sendersOf: #zork) first size. (ClassOrganizer new implementorsOf: #keep) size}"
        )
        .unwrap(),
        "anArray( 0, 0, 1)"
    );
    let err = b.evaluate_print_string("Damaged new broken").unwrap_err();
    assert!(
        err.message_text
            .unwrap_or_default()
            .contains("cannot be read"),
        "{}",
        err.description
    );
}

/// A login leaves every class's method dictionary as stored and fills it the
/// first time anything reads it: what it then sees is its own view's version,
/// another session's later commit only after abort; compiling into a class
/// whose dictionary was never used still conflicts with a commit to it; a
/// class written for another reason (a new subclass) without its dictionary
/// ever being used keeps every method; the searches see the methods of
/// classes nothing has touched.
#[test]
fn method_dictionaries_are_filled_on_first_use_at_the_sessions_view() {
    let (_dir, path) = new_repository("lazy-dictionaries");
    let mut dc = login(&path);
    let sl = "dictionaries: System myUserProfile symbolList";
    for code in [
        "Object subclass: 'Kept' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals".to_string(),
        "Object subclass: 'Edited' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals".into(),
        "Object subclass: 'Searched' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals".into(),
        format!("Kept compileMethod: 'a ^ 1' {sl} category: 'one'"),
        format!("Kept compileMethod: 'b ^ 2' {sl} category: 'two'"),
        format!("Kept class compileMethod: 'make ^ self new' {sl} category: 'making'"),
        format!("Edited compileMethod: 'v ^ 1' {sl} category: 'old'"),
        format!("Searched compileMethod: 'probe ^ self zorkLazily: Kept' {sl} category: 'search'"),
        format!("Searched class compileMethod: 'probe ^ #zorkLazily:' {sl} category: 'search'"),
    ] {
        dc.evaluate_print_string(&code).expect(&code);
    }
    assert!(dc.commit_transaction().unwrap());
    drop(dc);

    // searches right after a login see the methods of untouched classes
    let mut s = login(&path);
    s.collect_garbage();
    assert_eq!(
        s.evaluate_print_string(
            "((ClassOrganizer new sendersOf: #zorkLazily:) first collect: [:m | m inClass name , (m inClass isMeta ifTrue: [' class'] ifFalse: ['']) , '>>' , m selector]) asArray"
        )
        .unwrap(),
        "anArray( 'Searched>>probe', 'Searched class>>probe')"
    );
    assert_eq!(
        s.evaluate_print_string(
            "{(ClassOrganizer new implementorsOf: #make) size. ((ClassOrganizer new referencesToObject: Kept) collect: [:m | m selector]) asArray. (ClassOrganizer new substringSearch: 'self zorkLazily' ignoreCase: false) first size}"
        )
        .unwrap(),
        "anArray( 1, anArray( #probe), 1)"
    );
    drop(s);

    let mut a = login(&path);
    a.collect_garbage();
    let mut b = Remote::start(&path);
    assert_eq!(b.run("login DataCurator swordfish"), "ok login");
    for code in [
        "Edited compileMethod: 'v ^ 2' dictionaries: System myUserProfile symbolList category: 'new'",
        "Edited compileMethod: 'w ^ 3' dictionaries: System myUserProfile symbolList category: 'new'",
        "Kept removeSelector: #b",
        "Kept compileMethod: 'c ^ 3' dictionaries: System myUserProfile symbolList category: 'three'",
    ] {
        assert!(b.run(code).starts_with("ok "), "{code}");
    }
    assert_eq!(b.run("System commitTransaction"), "ok true");

    // A reads Edited's and Kept's dictionaries for the first time: its view's
    assert_eq!(
        a.evaluate_print_string(
            "{Edited new v. Edited includesSelector: #w. Edited selectors asArray. Edited categoryOfSelector: #v. Kept selectors asSortedCollection asArray. (Kept sourceCodeAt: #b) asString. Kept make a}"
        )
        .unwrap(),
        "anArray( 1, false, anArray( #v), #old, anArray( #a, #b), 'b ^ 2', 1)"
    );
    a.abort_transaction().unwrap();
    assert_eq!(
        a.evaluate_print_string(
            "{Edited new v. Edited new w. Edited categoryOfSelector: #v. Kept selectors asSortedCollection asArray. Kept new c}"
        )
        .unwrap(),
        "anArray( 2, 3, #new, anArray( #a, #c), 3)"
    );

    // a class whose dictionary A never used: B commits to it, then A compiles
    // into it — the second commit conflicts on the class
    assert!(b
        .run("Searched compileMethod: 'other ^ 4' dictionaries: System myUserProfile symbolList category: 'x'")
        .starts_with("ok "));
    assert_eq!(b.run("System commitTransaction"), "ok true");
    a.evaluate_print_string(
        "Searched compileMethod: 'mine ^ 5' dictionaries: System myUserProfile symbolList category: 'x'",
    )
    .unwrap();
    assert!(!a.commit_transaction().unwrap(), "a write-write conflict");
    a.abort_transaction().unwrap();
    assert_eq!(
        a.evaluate_print_string("{Searched new other. Searched includesSelector: #mine}")
            .unwrap(),
        "anArray( 4, false)"
    );
    drop(a);

    // a new subclass writes its superclass (its subclasses) without using
    // the superclass's dictionary: every method survives the commit
    let mut c = login(&path);
    c.evaluate_print_string(
        "Kept subclass: 'KeptChild' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals",
    )
    .unwrap();
    assert!(c.commit_transaction().unwrap());
    drop(c);
    drop(b);
    let mut d = login(&path);
    assert_eq!(
        d.evaluate_print_string(
            "{Kept selectors asSortedCollection asArray. KeptChild new c. KeptChild make a. Kept subclasses size. Kept categoryOfSelector: #c}"
        )
        .unwrap(),
        "anArray( anArray( #a, #c), 3, 1, 1, #three)"
    );
    assert!(d.load_warnings().is_empty(), "{:?}", d.load_warnings());
}

/// A kernel-only evaluation runs the kernel's methods even where a class of
/// the repository overrides them, in the session that defined the class and
/// in a later login (the kernel's classes come from the repository's record,
/// not from names); a commit-disabled one cannot commit and keeps its changes.
#[test]
fn restricted_evaluations_run_no_repository_code_and_cannot_commit() {
    use gsmcp_smalltalk::EvalPolicy;
    let restricted = EvalPolicy {
        client_code: false,
        may_commit: false,
    };
    let (_dir, path) = new_repository("policy");
    let mut a = login(&path);
    let define = [
        "Object subclass: 'Evil' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals",
        "Evil class compileMethod: 'name System commitTransaction. [true] whileTrue. ^ #Hijacked'",
        "Evil compileMethod: 'printOn: aStream [true] whileTrue'",
        "OrderedCollection subclass: 'EvilList' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals",
        "EvilList compileMethod: 'size ^ 99'",
        "System commitTransaction",
    ];
    for src in define {
        // `. true`: the printString of a method would ask Evil its name
        a.evaluate_print_string(&format!("{src}. true"))
            .unwrap_or_else(|e| panic!("{src}: {e}"));
    }
    a.logout().unwrap();

    let mut b = login(&path);
    b.evaluate_print_string("UserGlobals at: #Pending put: 1")
        .unwrap();
    b.set_policy(restricted);
    // (expression, printString under the restricted policy)
    let table = [
        ("Evil name", "#Evil"),
        ("Evil new printString", "'anEvil'"),
        ("(EvilList new add: 1; add: 2; yourself) size", "2"),
        ("(OrderedCollection new add: 3; yourself) size", "1"),
        ("Evil class name", "#Evil"),
        ("System needsCommit", "true"),
        (
            "[System commitTransaction] on: TransactionError do: [:e | e messageText]",
            "'commit refused: commits are disabled for this evaluation (the server commits only through its own commit operation); the session''s changes are kept, uncommitted'",
        ),
        ("System needsCommit", "true"),
    ];
    for (src, want) in table {
        assert_eq!(b.evaluate_print_string(src).unwrap(), want, "{src}");
    }
    // the session's own changes stay: another login still sees nothing of them
    let mut c = login(&path);
    assert_eq!(
        c.evaluate_print_string("UserGlobals includesKey: #Pending")
            .unwrap(),
        "false"
    );
    b.set_policy(EvalPolicy::UNRESTRICTED);
    assert_eq!(
        b.evaluate_print_string("(EvilList new add: 1; yourself) size")
            .unwrap(),
        "99"
    );
    assert_eq!(
        b.evaluate_print_string("System commitTransaction").unwrap(),
        "true"
    );
    c.abort_transaction().unwrap();
    assert_eq!(
        c.evaluate_print_string("UserGlobals includesKey: #Pending")
            .unwrap(),
        "true"
    );
}

/// After a client removes a kernel global and aborts, nothing compiled or
/// looked up against the discarded state survives: a stored method first
/// compiled while the global was gone works again, and so does one compiled
/// anew in the session.
#[test]
fn abort_undoes_what_was_compiled_against_discarded_state() {
    let (_dir, path) = new_repository("abort-caches");
    let mut a = login(&path);
    for src in [
        "Object subclass: 'Keeper' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals. true",
        "Keeper compileMethod: 'make ^ Array new: 2'. true",
        "System commitTransaction",
    ] {
        a.evaluate_print_string(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    }
    a.logout().unwrap();
    let mut b = login(&path);
    b.evaluate_print_string("Globals removeKey: #Array. true")
        .unwrap();
    let broken = b.evaluate_print_string("Keeper new make");
    assert!(
        broken.is_err() || broken.as_deref() == Ok("nil"),
        "{broken:?}"
    );
    b.abort_transaction().unwrap();
    // (expression, printString after the abort)
    let table = [
        ("Keeper new make", "anArray( nil, nil)"),
        ("Array new: 1", "anArray( nil)"),
        ("(Globals at: #Array) name", "#Array"),
    ];
    for (src, want) in table {
        assert_eq!(b.evaluate_print_string(src).unwrap(), want, "{src}");
    }
    // the same through the Smalltalk message and after a refresh
    b.evaluate_print_string("Globals removeKey: #Array. true")
        .unwrap();
    let _ = b.evaluate_print_string("Keeper new make");
    b.evaluate_print_string("System abortTransaction").unwrap();
    assert_eq!(
        b.evaluate_print_string("Keeper new make").unwrap(),
        "anArray( nil, nil)"
    );
}

/// The kernel is SystemUser's: the default developer login gets a
/// SecurityError at each write that would damage it (the ten damages of a
/// hostile trial among them), commits, and the repository still works for a
/// new login; it may subclass kernel classes and add, change and remove its
/// own extension methods in them. DataCurator keeps its powers.
#[test]
fn the_kernel_belongs_to_system_user() {
    let (_dir, path) = new_repository("kernel");
    let dev = || Session::login(&path, "Developer", "swordfish").expect("login as Developer");
    let mut s = dev();
    let compile = |class: &str, src: &str| {
        format!(
            "{class} compileMethod: '{}' dictionaries: System myUserProfile symbolList category: 'x'",
            src.replace('\'', "''")
        )
    };
    let refused = [
        "Globals at: #Object put: nil".to_string(),
        "Globals removeKey: #Array".into(),
        "UserGlobals removeKey: #UserGlobals".into(),
        "UserGlobals at: #UserGlobals put: nil".into(),
        compile("Object", "printString [true] whileTrue"),
        compile("Object", "printString ^ self error: 'no'"),
        compile("String", ", aString ^ nil"),
        compile("WriteStream", "nextPutAll: aCollection ^ self"),
        compile("Symbol", "asString ^ 3"),
        compile("Behavior", "name [true] whileTrue"),
        compile("UserProfile", "symbolList ^ nil"),
        compile("Object class", "new ^ nil"),
        "Object removeSelector: #yourself".into(),
        "Behavior removeSelector: #new".into(),
        "Object comment: 'changed'".into(),
        "Globals at: #NewGlobal put: 3".into(),
        "(Globals associationAt: #Array) value: nil".into(),
        "System myUserProfile instVarAt: 2 put: nil".into(),
        "Globals become: SymbolDictionary new".into(),
        "Object subclass: 'Array' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Globals".into(),
    ];
    let probe = "{Object name. Array new size. 'a' , 'b'. #abc asString. \
                 (WriteStream on: String new) nextPutAll: 'xy'; contents. 3 printString. \
                 System myUserProfile symbolList size. (UserGlobals at: #UserGlobals) == UserGlobals. \
                 Object comment size. (Globals includesKey: #NewGlobal)}";
    let healthy = s.evaluate_print_string(probe).unwrap();
    for code in &refused {
        assert_security_error(&mut s, code, &["belongs to SystemUser", "Developer"]);
        assert_eq!(
            s.evaluate_print_string(probe).unwrap(),
            healthy,
            "after {code}"
        );
    }
    // what a developer does: its own classes and globals, subclasses of kernel
    // classes, and extension methods it may change and remove again
    for code in [
        "UserGlobals at: #Mine put: 1".to_string(),
        "Published at: #Shared put: 2".into(),
        "Object subclass: 'Gadget' instVarNames: #('a') classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals".into(),
        "OrderedCollection subclass: 'Pile' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals".into(),
        compile("Gadget", "size ^ 7"),
        compile("Object", "gadgetProbe ^ 1"),
        compile("Object class", "gadgetMaker ^ 2"),
        compile("String", "shout ^ self asUppercase , '!'"),
    ] {
        s.evaluate_print_string(&code).unwrap_or_else(|e| panic!("{code}: {}", e.description));
    }
    assert!(
        s.commit_transaction().unwrap(),
        "the developer's work commits"
    );
    assert_eq!(s.evaluate_print_string(probe).unwrap(), healthy);
    s.logout().unwrap();

    // a new login: the kernel is whole, the developer's work is there, and
    // its extension methods stay its own to change and remove
    let mut s = dev();
    assert_eq!(s.evaluate_print_string(probe).unwrap(), healthy);
    assert_eq!(
        s.evaluate_print_string("{Mine. Shared. Gadget new size. 3 gadgetProbe. Object gadgetMaker. 'hi' shout. Pile new size}")
            .unwrap(),
        "anArray( 1, 2, 7, 1, 2, 'HI!', 0)"
    );
    for code in [
        compile("Object", "gadgetProbe ^ 10"),
        "String removeSelector: #shout".into(),
        "Object class removeSelector: #gadgetMaker".into(),
    ] {
        s.evaluate_print_string(&code)
            .unwrap_or_else(|e| panic!("{code}: {}", e.description));
    }
    assert!(s.commit_transaction().unwrap());
    s.logout().unwrap();
    let mut s = dev();
    assert_eq!(
        s.evaluate_print_string(
            "{3 gadgetProbe. ('hi' respondsTo: #shout). (Object respondsTo: #gadgetMaker)}"
        )
        .unwrap(),
        "anArray( 10, false, false)"
    );
    let err = s.evaluate_print_string(&refused[4]).unwrap_err();
    assert_eq!(err.number, 2108, "still refused in a later login");
    s.logout().unwrap();

    // DataCurator administers: it may change the kernel (and the change is
    // then an ordinary method, no longer the shipped kernel's)
    let mut dc = login(&path);
    dc.evaluate_print_string(&compile("Object", "adminProbe ^ #admin"))
        .unwrap();
    dc.evaluate_print_string("Object comment: 'kept by the administrator'")
        .unwrap();
    assert!(dc.commit_transaction().unwrap());
    dc.logout().unwrap();
    let mut s = dev();
    assert_eq!(
        s.evaluate_print_string("{3 adminProbe. Object comment}")
            .unwrap(),
        "anArray( #admin, 'kept by the administrator')"
    );
}

/// A kernel a privileged user damaged and committed is restored by a kernel
/// repair from the shipped kernel; the user's classes, data and extension
/// methods stay; a dry run changes nothing; a second repair finds it whole;
/// and the developer may not replace a method the repair restored.
#[test]
fn a_kernel_repair_restores_what_a_privileged_user_damaged() {
    let (_dir, path) = new_repository("repair");
    let mut dc = login(&path);
    let compile = |class: &str, src: &str| {
        format!(
            "{class} compileMethod: '{}' dictionaries: System myUserProfile symbolList \
             category: 'damage'.\n",
            src.replace('\'', "''")
        )
    };
    // the user's own work, to be kept
    dc.evaluate_print_string(
        "Object subclass: 'Keeper' instVarNames: #() classVars: #() classInstVars: #() \
         poolDictionaries: #() inDictionary: UserGlobals. \
         UserGlobals at: #Kept put: (Array with: 1 with: 2). \
         Published at: #Shared put: 'shared'",
    )
    .unwrap();
    let mut work = compile("Keeper", "answer ^ 7");
    work.push_str(&compile("Object", "keeperExtension ^ 42"));
    dc.evaluate_print_string(&work).unwrap();
    assert!(dc.commit_transaction().unwrap());
    let probe = "{Keeper new answer. 3 keeperExtension. Kept. Shared. 'a' , 'b'. #abc asString. \
                 3 printString. #(1) isNil. Array new size. 3 isNil. \
                 (UserGlobals at: #UserGlobals) == UserGlobals. Object name}";
    let healthy = dc.evaluate_print_string(probe).unwrap();
    // the developer sees the shared and kernel parts (not DataCurator's UserGlobals)
    let dev_probe = "{Shared. 'a' , 'b'. #abc asString. 3 printString. #(1) isNil. 3 isNil. \
                     (UserGlobals at: #UserGlobals) == UserGlobals. Object name}";
    let dev_healthy = Session::login(&path, "Developer", "swordfish")
        .unwrap()
        .evaluate_print_string(dev_probe)
        .unwrap();
    // damage, all in one evaluation (its names are bound when it compiles)
    let mut damage = String::new();
    damage.push_str(&compile("String", ", aString ^ nil"));
    damage.push_str(&compile("Symbol", "asString ^ 3"));
    damage.push_str(&compile("Array", "isNil ^ true"));
    damage.push_str(&compile("Object", "printString ^ self error: 'no'"));
    damage.push_str(
        "Object removeSelector: #isNil. UserGlobals removeKey: #UserGlobals. \
         Globals removeKey: #Array. Globals at: #Object put: nil. \
         System myUserProfile instVarAt: 2 put: nil. nil",
    );
    let _ = dc.evaluate_print_string(&damage);
    assert!(dc.commit_transaction().unwrap());
    dc.logout().unwrap();
    let broken = Session::login(&path, "DataCurator", "swordfish").map(|_| ());
    assert!(broken.is_err(), "the damage did not take: {broken:?}");

    let dry = Session::repair_kernel(&path, true).unwrap();
    assert!(!dry.committed && !dry.is_clean(), "{dry:?}");
    assert_eq!(
        Session::repair_kernel(&path, true).unwrap(),
        dry,
        "a dry run changed something"
    );
    let done = Session::repair_kernel(&path, false).unwrap();
    assert!(done.committed, "{done:?}");
    assert_eq!(done.not_restored, Vec::<String>::new());
    for line in ["Globals at: #Object", "Globals at: #Array"] {
        assert!(done.bindings.iter().any(|b| b == line), "{line}: {done:?}");
    }
    assert!(
        done.bindings
            .iter()
            .any(|b| b == "UserGlobals at: #UserGlobals of DataCurator"),
        "{done:?}"
    );
    // a kernel method changed or removed is compiled again; one added over
    // an inherited kernel method (`,` and `asString` are inherited there) goes
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    assert_eq!(
        sorted(&done.methods),
        ["Object>>isNil", "Object>>printString"]
    );
    assert_eq!(
        sorted(&done.removed),
        ["Array>>isNil", "String>>,", "Symbol>>asString"]
    );
    assert_eq!(done.symbol_lists, vec!["DataCurator".to_string()]);
    assert!(Session::repair_kernel(&path, false).unwrap().is_clean());

    let mut dc = login(&path);
    assert_eq!(dc.evaluate_print_string(probe).unwrap(), healthy);
    let mut dev = Session::login(&path, "Developer", "swordfish").unwrap();
    assert_eq!(dev.evaluate_print_string(dev_probe).unwrap(), dev_healthy);
    // a restored method is the kernel's: the developer may not replace it
    assert_security_error(
        &mut dev,
        &compile("Object", "printString ^ nil"),
        &["belongs to SystemUser"],
    );
    assert_security_error(
        &mut dev,
        &compile("String", ", aString ^ nil"),
        &["belongs to SystemUser"],
    );
}

/// Evaluates `code` in `s`, answering its printString (panics on an error).
fn ev(s: &mut Session, code: &str) -> String {
    s.evaluate_print_string(code)
        .unwrap_or_else(|e| panic!("{code}: {}", e.description))
}

#[test]
fn a_session_holding_collected_objects_stores_them_afresh_when_it_refers_to_them() {
    let (_dir, path) = new_repository("collect-held");
    let mut a = login(&path);
    ev(
        &mut a,
        "UserGlobals at: #Holder put: (Array new: 1); at: #Other put: (Array new: 1)",
    );
    ev(
        &mut a,
        "Holder at: 1 put: (Array with: 1 with: 'two' copy with: #aSymbolOnlyThisHolds). \
         System commitTransaction",
    );
    let mut b = login(&path);
    assert_eq!(
        ev(&mut b, "Holder at: 1 put: nil. System commitTransaction"),
        "true"
    );
    let report = b.collect_repository_garbage().expect("collect");
    // the array, its string and the symbol only it named
    assert_eq!(report.collected, 3, "{report}");
    // A's view predates both: it still holds the array, changes it and names it
    // from another object; the commit stores the array, its string and the
    // symbol afresh instead of a reference to collected objects
    assert_eq!(
        ev(
            &mut a,
            "| x | x := Holder at: 1. x at: 1 put: 99. Other at: 1 put: x. \
             System commitTransaction"
        ),
        "true"
    );
    let mut c = login(&path);
    assert_eq!(
        ev(&mut c, "Other at: 1"),
        "anArray( 99, 'two', #aSymbolOnlyThisHolds)"
    );
    assert_eq!(ev(&mut c, "Holder at: 1"), "nil");
    assert_eq!(
        ev(&mut c, "(Other at: 1) last == #aSymbolOnlyThisHolds"),
        "true"
    );
    // B, whose view is after the collection, refreshes onto A's commit
    ev(&mut b, "System abortTransaction");
    assert_eq!(
        ev(&mut b, "Other at: 1"),
        "anArray( 99, 'two', #aSymbolOnlyThisHolds)"
    );
    for s in [a, b, c] {
        s.logout().unwrap();
    }
    let mut d = login(&path);
    assert_eq!(ev(&mut d, "(Other at: 1) at: 2"), "'two'");
}

#[test]
fn commits_start_collections_that_keep_the_repository_near_its_live_data() {
    let (_dir, path) = new_repository("collect-auto");
    let store = gsmcp_store::Repository::open(&path).unwrap();
    let base = store.statistics().unwrap().live_objects;
    // each round's commit makes the previous round's 20,000 strings garbage;
    // a logout waits for the collection its commit started
    let rounds = 5 + base / 20_000;
    for i in 0..rounds {
        let mut a = login(&path);
        ev(
            &mut a,
            &format!(
                "UserGlobals at: #Data put: ((1 to: 20000) collect: [:i | i printString , '{i}']). \
                 System commitTransaction"
            ),
        );
        a.logout().unwrap();
    }
    let stats = store.statistics().unwrap();
    eprintln!("{rounds} rounds of 20,000 objects over {base}: {stats:?}");
    // live: the kernel, the Array and its strings, what commits added (symbols,
    // an association), and at most the garbage written since the last
    // collection was due (less than the live objects then); without
    // collections, every round's strings
    assert!(
        stats.live_objects <= base + 2 * 20_001 + 100,
        "{rounds} rounds of 20,000 objects over {base}: {stats:?}"
    );
    assert!(
        stats.versions <= stats.live_objects + 100,
        "old versions and tombstones of collected objects pruned: {stats:?}"
    );
    let mut b = login(&path);
    assert_eq!(ev(&mut b, "(UserGlobals at: #Data) size"), "20000");
}

/// A login ticket logs its user in once, and only its user; the repository
/// decides with the key file beside it, and the refusals name their reason.
#[test]
fn login_tickets_log_in_their_user_once() {
    use gsmcp_smalltalk::tickets;
    use std::os::unix::fs::PermissionsExt;
    let (_dir, path) = new_repository("tickets");
    let mut dc = login(&path);
    dc.evaluate_print_string("AllUsers addNewUserWithId: 'alice' password: 'wonderland'")
        .unwrap();
    dc.evaluate_print_string(
        "AllUsers addNewUserWithId: 'reader' password: 'look' commitDisabled: true",
    )
    .unwrap();
    assert!(dc.commit_transaction().unwrap());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let key = [0x5a; 32];
    let ticket = |user: &str, nonce: u8| tickets::mint(&key, user, &[nonce; 16], now + 60);
    let refusal = |user: &str, t: &str| match Session::login_with_ticket(&path, user, t) {
        Ok(_) => panic!("{user} logged in with {t}"),
        Err(e) => (e.number, e.message_text.unwrap_or_default()),
    };

    // no key file: the repository accepts no tickets
    let (n, why) = refusal("alice", &ticket("alice", 1));
    assert_eq!(n, 4051);
    assert!(why.contains("accepts no login tickets"), "{why}");
    let key_file = tickets::key_path(&path);
    std::fs::write(&key_file, format!("{}\n", "5a".repeat(32))).unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (_, why) = refusal("alice", &ticket("alice", 1));
    assert!(why.contains("must be private"), "{why}");
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();

    let t = ticket("alice", 1);
    let mut alice = Session::login_with_ticket(&path, "alice", &t).expect("alice's ticket");
    assert_eq!(alice.user_id(), "alice");
    assert_eq!(
        alice
            .evaluate_print_string("UserGlobals at: #ByTicket put: 1. System commitTransaction")
            .unwrap(),
        "true"
    );
    let (_, why) = refusal("alice", &t);
    assert!(why.contains("already used"), "{why}");
    let (_, why) = refusal("DataCurator", &ticket("alice", 2));
    assert!(why.contains("not made for this user"), "{why}");
    let (_, why) = refusal("alice", "swordfish");
    assert!(why.contains("malformed"), "{why}");
    let (_, why) = refusal("nobody", &ticket("nobody", 3));
    assert!(why.contains("has no user nobody"), "{why}");

    // a read-only user logs in read-only by ticket too
    let mut reader =
        Session::login_with_ticket(&path, "reader", &ticket("reader", 4)).expect("reader");
    let e = reader
        .evaluate_print_string("UserGlobals at: #X put: 1")
        .unwrap_err();
    assert_eq!(e.number, 2108, "{e:?}");
}
