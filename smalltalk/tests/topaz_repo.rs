//! `gsmcp-topaz --repo`: real `gsmcp-topaz` processes working on real
//! repository files in a private temporary directory.
//!
//! Covered: creating a repository (only with `--create`), filing a class in and
//! committing it in one process and using it from the next, logins with users
//! and passwords, uncommitted work lost at logout and discarded by `abort`, a
//! write-write conflict between two processes driven step by step through
//! their standard input, a read-only user's refused commit, and files that are
//! not repositories.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// A process that says nothing for this long is taken to be hung and the test
/// fails. It is a guard against a hang, not a speed requirement.
const HANG_GUARD: Duration = Duration::from_secs(300);

/// The class the tests file in (a GemStone-style load script).
fn account_fixture() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("scripts")
        .join("repo_account.gs");
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A private directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("gsmcp-topaz-repo-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create a temporary directory");
        TempDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// What one finished run printed.
#[derive(Debug)]
struct Run {
    stdout: String,
    stderr: String,
    status: Option<i32>,
}

impl Run {
    fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
}

/// Runs `gsmcp-topaz ARGS` to the end with `input` on standard input.
fn topaz(args: &[&str], repo: &Path, input: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gsmcp-topaz"))
        .args(args)
        .arg("--repo")
        .arg(repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gsmcp-topaz");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_string();
    // Written from a thread so a long input cannot deadlock against a full stdout.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("wait for gsmcp-topaz");
    // A process that stops early (an unusable repository) closes its stdin:
    // a broken pipe is then no error of the test.
    match writer.join().expect("stdin writer") {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            panic!("write stdin: {error}")
        }
        _ => {}
    }
    Run {
        stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8 stderr"),
        status: output.status.code(),
    }
}

/// `printit` of `code`.
fn printit(code: &str) -> String {
    format!("printit\n{code}\n%\n")
}

/// A repository holding the Account class and one committed account, made the
/// way the issue puts it: `gsmcp-topaz -q --repo R --create < load.gs`.
fn loaded_repository(dir: &TempDir) -> PathBuf {
    let repo = dir.path("accounts.gsr");
    let load = format!(
        "{}doit\nUserGlobals at: #Alice put: ((Account owner: 'alice') deposit: 100; withdraw: 30; yourself)\n%\ncommit\n",
        account_fixture()
    );
    let run = topaz(&["-q", "--create"], &repo, &load);
    assert_eq!(
        run.stdout, "",
        "a quiet, clean load prints nothing; {run:?}"
    );
    assert_eq!(run.status, Some(0), "{run:?}");
    repo
}

#[test]
fn a_missing_repository_needs_create() {
    let dir = TempDir::new("missing");
    let repo = dir.path("new.gsr");
    let run = topaz(&["-q"], &repo, &printit("3 + 4"));
    assert_eq!(run.status, Some(255), "{run:?}");
    assert_eq!(run.stdout, "", "nothing runs: {run:?}");
    assert!(
        run.stderr.contains("does not exist") && run.stderr.contains("--create"),
        "{run:?}"
    );
    assert!(!repo.exists(), "no file is made without --create");

    let run = topaz(&[], &repo, &printit("3 + 4"));
    assert_eq!(run.status, Some(255));
    assert!(!repo.exists());

    let run = topaz(&["--create"], &repo, &printit("3 + 4"));
    assert_eq!(run.status, Some(0), "{run:?}");
    let lines = run.lines();
    assert!(lines[0].starts_with("gsmcp-topaz "), "banner: {lines:?}");
    assert_eq!(lines[1], format!("Created repository {}", repo.display()));
    assert_eq!(&lines[2..], ["7"]);
    assert!(repo.exists());

    // --create on an existing repository just uses it.
    let run = topaz(&["-q", "--create"], &repo, &printit("3 + 4"));
    assert_eq!(
        (run.stdout.as_str(), run.status),
        ("7\n", Some(0)),
        "{run:?}"
    );
}

#[test]
fn a_class_filed_in_and_committed_is_there_for_the_next_process() {
    let dir = TempDir::new("filein");
    let repo = loaded_repository(&dir);
    let script = [
        printit("Alice"),
        printit("Alice history"),
        printit("Account opened"),
        printit("(Account owner: 'bob') deposit: 5; deposit: 6; yourself"),
        printit("Account opened"),
        printit("Alice withdraw: 1000"),
        printit("(Account compiledMethodAt: #deposit:) isNil"),
        printit("Account categoryOfSelector: #withdraw:"),
        printit("System myUserProfile userId"),
    ]
    .concat();
    let run = topaz(&["-q"], &repo, &script);
    assert_eq!(
        run.lines(),
        [
            "alice: 70",
            "anOrderedCollection( #deposit->100, #withdraw->30)",
            "1",
            "bob: 11",
            "2",
            "ERROR 2318, a UserDefinedError occurred (error 2318), reason:halt, insufficient funds",
            "false",
            "#transactions",
            "'DataCurator'",
        ],
        "{run:?}"
    );
    assert_eq!(run.status, Some(1), "one error: {run:?}");

    // That process committed nothing: bob and the second Opened are gone.
    let run = topaz(&["-q"], &repo, &printit("Account opened"));
    assert_eq!(run.stdout, "1\n", "{run:?}");
}

#[test]
fn logout_loses_and_abort_discards_uncommitted_work() {
    let dir = TempDir::new("logout");
    let repo = loaded_repository(&dir);
    let script = [
        "doit\nUserGlobals at: #Kept put: 1\n%\ncommit\n",
        "doit\nUserGlobals at: #Lost put: 2. Alice deposit: 1000\n%\n",
        "logout\n",
        &printit("3 + 4"),
        "login\n",
        &printit("{UserGlobals includesKey: #Lost. UserGlobals at: #Kept. Alice balance}"),
        "doit\nUserGlobals at: #Kept put: 5. Alice deposit: 1\n%\n",
        &printit("{UserGlobals at: #Kept. Alice balance}"),
        "abort\n",
        &printit("{UserGlobals at: #Kept. Alice balance}"),
        "doit\nUserGlobals at: #NeverCommitted put: 3\n%\n",
    ]
    .concat();
    let run = topaz(&["-q"], &repo, &script);
    assert_eq!(
        run.lines(),
        [
            "ERROR not logged in (use login)",
            "anArray( false, 1, 70)",
            "anArray( 5, 71)",
            "anArray( 1, 70)",
        ],
        "{run:?}"
    );
    assert_eq!(run.status, Some(1), "{run:?}");

    // Ending the process without commit loses the work too.
    let run = topaz(
        &["-q"],
        &repo,
        &printit("{UserGlobals includesKey: #Lost. UserGlobals includesKey: #NeverCommitted. UserGlobals at: #Kept}"),
    );
    assert_eq!(run.stdout, "anArray( false, false, 1)\n", "{run:?}");
}

#[test]
fn progress_messages_without_q() {
    let dir = TempDir::new("progress");
    let repo = loaded_repository(&dir);
    let script = [
        "set user DataCurator\nset password swordfish\nset gemstone gs64stone\nlogin\n",
        &printit("Alice balance"),
        "commit\nabort\nlogin\nlogout\nlogout\nlogin\n",
    ]
    .concat();
    let run = topaz(&[], &repo, &script);
    let lines = run.lines();
    assert!(lines[0].starts_with("gsmcp-topaz "), "banner: {lines:?}");
    assert_eq!(
        &lines[1..],
        [
            "Successful login",
            "70",
            "Successful commit",
            "Aborted transaction",
            "Already logged in",
            "Logged out",
            "Not logged in",
            "Successful login",
        ],
        "{run:?}"
    );
    assert_eq!(run.status, Some(0));
}

#[test]
fn logins_check_the_user_and_password() {
    let dir = TempDir::new("users");
    let repo = loaded_repository(&dir);
    let denied = "ERROR 4051, a SecurityError occurred (error 4051), login failed: the user id or password is not valid";
    let table: Vec<(&str, Vec<&str>, i32)> = vec![
        // Defaults: DataCurator / swordfish, logged in implicitly.
        (
            "printit\nSystem myUserProfile userId\n%\n",
            vec!["'DataCurator'"],
            0,
        ),
        (
            "set user SystemUser\nset password swordfish\nlogin\nprintit\nSystem myUserProfile userId\n%\n",
            vec!["'SystemUser'"],
            0,
        ),
        (
            "set password wrong\nlogin\nprintit\n3 + 4\n%\n",
            vec![denied, "ERROR not logged in (use login)"],
            2,
        ),
        (
            "set user Nobody\nlogin\nprintit\n3 + 4\n%\n",
            vec![denied, "ERROR not logged in (use login)"],
            2,
        ),
        // Setting a user means the script logs in itself, as in topaz.
        (
            "set user DataCurator\nprintit\n3 + 4\n%\nlogin\nprintit\n3 + 4\n%\n",
            vec!["ERROR not logged in (use login)", "7"],
            1,
        ),
        // A failed login can be retried with the right password.
        (
            "set password wrong\nlogin\nset password swordfish\nlogin\nprintit\nAlice balance\n%\n",
            vec![denied, "70"],
            1,
        ),
    ];
    for (script, lines, status) in table {
        let run = topaz(&["-q"], &repo, script);
        assert_eq!(run.lines(), lines, "script {script:?}: {run:?}");
        assert_eq!(run.status, Some(status), "script {script:?}: {run:?}");
    }
}

#[test]
fn a_read_only_users_writes_and_commit_are_errors() {
    let dir = TempDir::new("readonly");
    let repo = loaded_repository(&dir);
    let run = topaz(
        &["-q"],
        &repo,
        "doit\nAllUsers addNewUserWithId: 'auditor' password: 'ledger' commitDisabled: true\n%\ncommit\n",
    );
    assert_eq!((run.stdout.as_str(), run.status), ("", Some(0)), "{run:?}");
    let script = [
        "set user auditor\nset password ledger\nlogin\n",
        &printit("System myUserProfile userId"),
        "doit\nUserGlobals at: #Audited put: true\n%\ncommit\nerrorcount\n",
    ]
    .concat();
    let run = topaz(&["-q"], &repo, &script);
    let lines = run.lines();
    assert_eq!(lines.len(), 4, "{run:?}");
    assert_eq!(lines[0], "'auditor'");
    // the store into its (shared, persistent) UserGlobals is refused at once ...
    assert!(
        lines[1].starts_with(
            "ERROR 2108, a SecurityError occurred (error 2108), no write authorization: auditor"
        ),
        "{run:?}"
    );
    // ... and the commit too
    assert!(
        lines[2].starts_with("ERROR 2409, a TransactionError occurred (error 2409), commit refused: auditor is a read-only"),
        "{run:?}"
    );
    assert_eq!(lines[3], "2");
    assert_eq!(run.status, Some(2));
    let run = topaz(
        &["-q"],
        &repo,
        "set user auditor\nset password ledger\nlogin\nprintit\nUserGlobals includesKey: #Audited\n%\n",
    );
    assert_eq!(run.stdout, "false\n", "{run:?}");
}

/// A `gsmcp-topaz -q` process driven one step at a time through its stdin.
struct Interactive {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    marks: usize,
}

impl Interactive {
    fn start(repo: &Path) -> Interactive {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gsmcp-topaz"))
            .arg("-q")
            .arg("--repo")
            .arg(repo)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start gsmcp-topaz");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Interactive {
            child,
            stdin,
            lines,
            marks: 0,
        }
    }

    /// Sends `script`, then answers what it printed: everything up to a marker
    /// evaluated after it, so the step has finished when this returns.
    fn step(&mut self, script: &str) -> Vec<String> {
        self.marks += 1;
        let mark = format!("'step {} done'", self.marks);
        let text = format!("{script}{}", printit(&mark));
        self.stdin
            .write_all(text.as_bytes())
            .and_then(|_| self.stdin.flush())
            .expect("write to gsmcp-topaz");
        let mut printed = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(HANG_GUARD)
                .unwrap_or_else(|e| panic!("no marker after {script:?} ({e}); so far {printed:?}"));
            if line == mark {
                return printed;
            }
            printed.push(line);
        }
    }

    /// Closes stdin and answers the exit status.
    fn finish(self) -> Option<i32> {
        let Interactive {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        child.wait().expect("wait for gsmcp-topaz").code()
    }
}

#[test]
fn conflicting_commits_between_two_processes() {
    let dir = TempDir::new("conflict");
    let repo = loaded_repository(&dir);
    let mut a = Interactive::start(&repo);
    let mut b = Interactive::start(&repo);
    // Both log in (implicitly) and see the same committed state.
    assert_eq!(a.step(&printit("Alice balance")), ["70"]);
    assert_eq!(b.step(&printit("Alice balance")), ["70"]);

    // Both change the same account; A commits first.
    assert_eq!(
        a.step("doit\nAlice deposit: 1\n%\ncommit\n"),
        Vec::<String>::new()
    );
    let failed = b.step("doit\nAlice withdraw: 20\n%\ncommit\n");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0].starts_with("ERROR commit failed: write-write conflict")
            && failed[0].contains("an instance of Account"),
        "{failed:?}"
    );
    // Until it aborts, B may not commit again.
    let refused = b.step("commit\n");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].starts_with("ERROR 2409, "), "{refused:?}");

    // After abort B sees A's commit and its own change is gone; retried, it commits.
    assert_eq!(
        b.step(&format!("abort\n{}", printit("Alice balance"))),
        ["71"]
    );
    assert_eq!(
        b.step("doit\nAlice withdraw: 20\n%\ncommit\n"),
        Vec::<String>::new()
    );

    // Methods: compiling into one class in both sessions conflicts as well.
    assert_eq!(
        a.step(&format!("abort\n{}", printit("Alice balance"))),
        ["51"]
    );
    assert_eq!(
        a.step("category: 'queries'\nmethod: Account\nisEmpty\n\t^ balance = 0\n%\ncommit\n"),
        Vec::<String>::new()
    );
    let failed = b.step(
        "category: 'queries'\nmethod: Account\nisRich\n\t^ balance > 1000\n%\ncommit\nerrorcount\n",
    );
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(
        failed[0].starts_with("ERROR commit failed: write-write conflict")
            && failed[0].contains("Account"),
        "{failed:?}"
    );
    assert_eq!(failed[1], "3", "B's errors so far");

    assert_eq!(a.finish(), Some(0));
    assert_eq!(b.finish(), Some(3));

    let run = topaz(
        &["-q"],
        &repo,
        &printit("{Alice balance. Alice isEmpty. Account includesSelector: #isRich}"),
    );
    assert_eq!(run.stdout, "anArray( 51, false, false)\n", "{run:?}");
}

#[test]
fn a_file_that_is_not_a_repository_stops_the_run() {
    let dir = TempDir::new("notours");
    let text = dir.path("notes.txt");
    fs::write(&text, "not a repository at all\n").unwrap();
    let empty = dir.path("empty.gsr");
    fs::write(&empty, "").unwrap();
    let folder = dir.path("folder");
    fs::create_dir(&folder).unwrap();
    let script = format!("{}{}", printit("3 + 4"), printit("4 + 5"));
    // (file, what stdout says, what stderr says, status)
    let table: Vec<(&Path, &str, &str, i32)> = vec![
        (&text, "is not a gsmcp repository", "", 1),
        (&empty, "empty file", "", 1),
        (&folder, "", "is a directory", 255),
    ];
    for (path, stdout, stderr, status) in table {
        let run = topaz(&["-q"], path, &script);
        assert_eq!(run.status, Some(status), "{path:?}: {run:?}");
        assert!(run.stderr.contains(stderr), "{path:?}: {run:?}");
        if stdout.is_empty() {
            assert_eq!(run.stdout, "", "{path:?}: {run:?}");
        } else {
            let lines = run.lines();
            assert_eq!(lines.len(), 1, "the run stops at once: {run:?}");
            assert!(
                lines[0].starts_with("ERROR 4100, a RepositoryError") && lines[0].contains(stdout),
                "{path:?}: {run:?}"
            );
        }
    }
    // The files are left as they were.
    assert_eq!(
        fs::read_to_string(&text).unwrap(),
        "not a repository at all\n"
    );
    assert_eq!(fs::read(&empty).unwrap().len(), 0);
}

#[test]
fn transcript_output_is_shown_once_across_commit_abort_and_login() {
    let dir = TempDir::new("transcript");
    let repo = dir.path("transcript.gsr");
    let show = |word: &str| format!("doit\nTranscript show: '{word}'; cr\n%\n");
    let script = [
        show("one"),
        "commit\n".into(),
        show("two"),
        "abort\n".into(),
        show("three"),
        "logout\nlogin\n".into(),
        show("four"),
        "doit\nTranscript show: 'five'\n%\ncommit\n".into(),
    ]
    .concat();
    let run = topaz(&["-q", "--create"], &repo, &script);
    assert_eq!(
        run.lines(),
        ["one", "two", "three", "four", "five"],
        "{run:?}"
    );
    assert_eq!(run.status, Some(0));
    // A later login does not replay what earlier runs wrote.
    let run = topaz(&["-q"], &repo, &show("six"));
    assert_eq!(run.lines(), ["six"], "{run:?}");
}

/// `--repair-kernel`: a kernel DataCurator damaged and committed is reported
/// by a dry run, restored and committed by a repair, found whole by the next
/// one, and the script's own class is still there.
#[test]
fn repair_kernel_restores_a_damaged_kernel() {
    let dir = TempDir::new("repair");
    let repo = loaded_repository(&dir);
    let damage = "printit\nGlobals removeKey: #Array. \
                  Object compileMethod: 'yourself ^ nil' \
                  dictionaries: System myUserProfile symbolList category: 'damage'. 0\n%\ncommit\n";
    let run = topaz(&["-q"], &repo, damage);
    assert_eq!(run.status, Some(0), "{run:?}");
    let run = topaz(&["-q"], &repo, &printit("Array"));
    assert_eq!(run.status, Some(1), "the damage did not take: {run:?}");

    let dry = topaz(&["--repair-kernel", "--dry-run"], &repo, "");
    assert_eq!(dry.status, Some(0), "{dry:?}");
    assert!(
        dry.lines()
            .contains(&"would restore binding Globals at: #Array")
            && dry
                .lines()
                .contains(&"would restore method Object>>yourself"),
        "{dry:?}"
    );
    let run = topaz(&["--repair-kernel"], &repo, "");
    assert_eq!(run.status, Some(0), "{run:?}");
    assert_eq!(
        run.lines()
            .into_iter()
            .filter(|l| l.starts_with("restored "))
            .count(),
        2,
        "{run:?}"
    );
    assert!(run.stdout.contains("committed the repair"), "{run:?}");
    let again = topaz(&["--repair-kernel"], &repo, "");
    assert!(again.stdout.contains("is whole"), "{again:?}");
    let run = topaz(
        &["-q"],
        &repo,
        &printit("{Array new size. 3 yourself. Account name size}"),
    );
    assert_eq!(
        (run.stdout.as_str(), run.status),
        ("anArray( 0, 3, 7)\n", Some(0)),
        "{run:?}"
    );
    let refused = topaz(&["--repair-kernel", "--create"], &repo, "");
    assert_eq!(refused.status, Some(255), "{refused:?}");
}

#[test]
fn collect_garbage_deletes_what_no_root_reaches() {
    let dir = TempDir::new("collect");
    let repo = loaded_repository(&dir);
    let garbage = "printit\nUserGlobals at: #Scratch put: ((1 to: 500) collect: [:i | i printString]). 0\n%\ncommit\n\
                   printit\nUserGlobals removeKey: #Scratch. 0\n%\ncommit\n";
    let run = topaz(&["-q"], &repo, garbage);
    assert_eq!(run.status, Some(0), "{run:?}");
    let collected = |run: &Run| -> u64 {
        let line = run
            .lines()
            .into_iter()
            .find(|l| l.starts_with("collected "))
            .unwrap_or_else(|| panic!("no report: {run:?}"))
            .to_string();
        let (_, after) = line.split_once("live, ").expect("live count");
        after.split(' ').next().unwrap().parse().expect("a number")
    };
    let run = topaz(&["--collect-garbage"], &repo, "");
    assert_eq!(run.status, Some(0), "{run:?}");
    // the Array, its 500 strings, the association and the symbol #Scratch
    assert_eq!(collected(&run), 503, "{run:?}");
    let again = topaz(&["--collect-garbage"], &repo, "");
    assert_eq!(collected(&again), 0, "{again:?}");
    // what the script filed in is still there
    let run = topaz(&["-q"], &repo, &printit("Account name size"));
    assert_eq!(
        (run.stdout.as_str(), run.status),
        ("7\n", Some(0)),
        "{run:?}"
    );
    let refused = topaz(&["--collect-garbage", "--create"], &repo, "");
    assert_eq!(refused.status, Some(255), "{refused:?}");
}
