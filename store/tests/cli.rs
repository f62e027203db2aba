//! The `gsmcp-store` operator commands against real files: what they print and
//! the exit status they end with (0 done, 1 failed, 2 misused).

mod common;

use std::process::Command;

use common::{tool, Scratch, Shell};

/// Run the tool; answer (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(tool())
        .args(args)
        .output()
        .expect("run gsmcp-store");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn operator_commands_report_on_a_repository() {
    let dir = Scratch::new("cli");
    let repo = dir.path("repo.db");
    let repo = repo.to_str().unwrap();

    let (code, out, _) = run(&["create", repo]);
    assert_eq!((code, out.trim()), (0, format!("created {repo}").as_str()));

    let (code, out, _) = run(&[
        "exercise",
        repo,
        "--objects",
        "2",
        "--tag-base",
        "1",
        "--commits",
        "3",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 3);

    let mut held = Shell::start(std::path::Path::new(repo), &["--label", "held-open"]);
    let (code, out, _) = run(&["info", repo]);
    assert_eq!(code, 0);
    for want in [
        "latest commit   3",
        "live objects    8",
        "versions        12",
        "commit rows     3",
    ] {
        assert!(out.contains(want), "info lacks {want:?}:\n{out}");
    }
    let session_line = out
        .lines()
        .find(|l| l.contains("held-open"))
        .expect("the open shell is listed");
    assert!(
        session_line.contains("view 3 (0 behind)") && !session_line.contains("DEAD"),
        "{session_line}"
    );
    let id = session_line.split_whitespace().nth(1).unwrap().to_string();

    let (code, out, _) = run(&["check", repo]);
    assert_eq!((code, out.trim()), (0, "ok"));

    let (code, out, _) = run(&["prune", repo]);
    assert_eq!(code, 0);
    assert_eq!(
        out.trim(),
        "pruned through view 3: 3 commit rows, 4 versions, 0 dead sessions"
    );

    let (code, out, _) = run(&["compact", repo]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with(&format!("compacted {repo}: ")) && !out.contains("rewritten"),
        "a file made by this build gives pages back already: {out}"
    );

    assert_eq!(held.ask("behind"), "behind 0");
    let (code, out, _) = run(&["forget", repo, &id]);
    assert_eq!(
        (code, out.trim()),
        (0, format!("forgot session {id}").as_str())
    );
    let (code, _, err) = run(&["forget", repo, &id]);
    assert_eq!(code, 2, "{err}");
    held.quit();
}

#[test]
fn misuse_and_bad_files_end_with_a_message_and_a_status() {
    let dir = Scratch::new("cli-bad");
    let garbage = dir.path("garbage.db");
    std::fs::write(&garbage, b"definitely not a database, just text").unwrap();
    let garbage = garbage.to_str().unwrap();
    let missing = dir.path("missing.db");
    let missing = missing.to_str().unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (&[], 2, "usage"),
        (&["info"], 2, "missing the repository path"),
        (&["frobnicate", garbage], 2, "unknown command"),
        (&["info", garbage], 1, "is not a gsmcp repository"),
        (&["check", missing], 1, "does not exist"),
        (
            &["exercise", garbage, "--objects", "2"],
            2,
            "--tag-base is required",
        ),
        (
            &["exercise", garbage, "--objects", "x", "--tag-base", "1"],
            2,
            "--objects: cannot use",
        ),
        (
            &["counter", missing, "--oop", "7", "--times", "1"],
            1,
            "does not exist",
        ),
        (&["forget", garbage], 2, "needs a session id"),
    ];
    for (args, want_code, want_text) in cases {
        let (code, _, err) = run(args);
        assert_eq!(code, *want_code, "{args:?}: {err}");
        assert!(err.contains(want_text), "{args:?}: {err}");
    }
    let (code, _, err) = run(&["create", garbage]);
    assert_eq!(code, 1);
    assert!(err.contains("already exists"), "{err}");
}
