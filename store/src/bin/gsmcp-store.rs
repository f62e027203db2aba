//! `gsmcp-store`: inspect and exercise a repository file from the command line.
//!
//! Subcommands: `create`, `info`, `check`, `prune`, `compact` for operators; `shell`, a line
//! protocol on stdin/stdout driving one login (what the multi-process tests use to
//! interleave two processes deterministically); `exercise` and `counter`, load
//! generators that commit in a loop and report each answered commit (what the
//! crash and concurrency tests kill and check). This binary is glue over the
//! library; it must not reach into the file other than through `gsmcp_store`.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use gsmcp_store::{Repository, StoreError, StoreSession};

const USAGE: &str = "usage:
  gsmcp-store create PATH
  gsmcp-store info PATH
  gsmcp-store check PATH
  gsmcp-store prune PATH
  gsmcp-store compact PATH
  gsmcp-store forget PATH SESSION-ID
  gsmcp-store shell PATH [--read-only] [--label TEXT]
  gsmcp-store exercise PATH --objects K --tag-base T [--commits N]
  gsmcp-store counter PATH --oop OOP --times N

shell reads one command per line and answers one line each:
  view | behind | alloc | read OOP | write OOP TEXT | delete OOP
  commit | abort | continue | quit";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let Some(path) = rest.first() else {
        eprintln!("{command}: missing the repository path\n{USAGE}");
        return ExitCode::from(2);
    };
    let flags = &rest[1..];
    let result = match command.as_str() {
        "create" => Repository::create(path)
            .map(|r| println!("created {}", r.path().display()))
            .map_err(Failure::from),
        "info" => info(path),
        "check" => check(path),
        "prune" => prune(path),
        "compact" => compact(path),
        "forget" => forget(path, flags),
        "shell" => shell(path, flags),
        "exercise" => exercise(path, flags),
        "counter" => counter(path, flags),
        other => Err(Failure::Usage(format!("unknown command {other:?}"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("gsmcp-store: {msg}\n{USAGE}");
            ExitCode::from(2)
        }
        Err(Failure::Store(e)) => {
            eprintln!("gsmcp-store: {}", chain(&e));
            ExitCode::FAILURE
        }
    }
}

enum Failure {
    Usage(String),
    Store(StoreError),
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

/// An error with its sources, "outer: inner: innermost".
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// Value of `--name VALUE` among `flags`, parsed.
fn flag<T: std::str::FromStr>(flags: &[String], name: &str) -> Result<Option<T>, Failure> {
    match flags.iter().position(|f| f == name) {
        None => Ok(None),
        Some(i) => {
            let raw = flags
                .get(i + 1)
                .ok_or_else(|| Failure::Usage(format!("{name} needs a value")))?;
            raw.parse()
                .map(Some)
                .map_err(|_| Failure::Usage(format!("{name}: cannot use {raw:?}")))
        }
    }
}

fn required<T: std::str::FromStr>(flags: &[String], name: &str) -> Result<T, Failure> {
    flag(flags, name)?.ok_or_else(|| Failure::Usage(format!("{name} is required")))
}

fn info(path: &str) -> Result<(), Failure> {
    let repo = Repository::open(path)?;
    let s = repo.statistics()?;
    println!("file            {}", repo.path().display());
    println!("latest commit   {}", s.latest_commit);
    println!("pruned through  {}", s.pruned_through);
    println!("next OOP        {}", s.next_oop);
    println!("live objects    {}", s.live_objects);
    println!("versions        {}", s.versions);
    println!("commit rows     {}", s.commit_rows);
    println!("file bytes      {}", s.file_bytes);
    for session in repo.sessions()? {
        println!(
            "session {} pid {} view {} ({} behind){}{} {}",
            session.id,
            session.pid,
            session.view,
            s.latest_commit.saturating_sub(session.view),
            if session.read_only { " read-only" } else { "" },
            if session.alive { "" } else { " DEAD" },
            session.label
        );
    }
    Ok(())
}

fn check(path: &str) -> Result<(), Failure> {
    let repo = Repository::open(path)?;
    let problems = repo.integrity_check()?;
    if problems.is_empty() {
        println!("ok");
        Ok(())
    } else {
        for p in &problems {
            println!("{p}");
        }
        Err(Failure::Store(StoreError::Corrupt {
            detail: format!("{} problem(s) found", problems.len()),
        }))
    }
}

fn prune(path: &str) -> Result<(), Failure> {
    let r = Repository::open(path)?.prune()?;
    println!(
        "pruned through view {}: {} commit rows, {} versions, {} dead sessions",
        r.bound, r.commits, r.versions, r.sessions_reaped
    );
    Ok(())
}

fn compact(path: &str) -> Result<(), Failure> {
    let c = Repository::open(path)?.compact()?;
    println!(
        "compacted {path}: {} -> {} bytes{} (pruned {} commit rows, {} versions)",
        c.bytes_before,
        c.bytes_after,
        if c.converted {
            "; rewritten to give free pages back from now on"
        } else {
            ""
        },
        c.pruned.commits,
        c.pruned.versions
    );
    Ok(())
}

fn forget(path: &str, flags: &[String]) -> Result<(), Failure> {
    let id: u64 = flags
        .first()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| Failure::Usage("forget needs a session id (see info)".into()))?;
    if Repository::open(path)?.forget_session(id)? {
        println!("forgot session {id}");
        Ok(())
    } else {
        Err(Failure::Usage(format!("no session {id} is registered")))
    }
}

/// Bytes as a line: `text ...` when printable UTF-8, else `hex ...`.
fn show(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => format!("text {s}"),
        _ => format!(
            "hex {}",
            bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ),
    }
}

fn oop_list(oops: &[u64]) -> String {
    if oops.is_empty() {
        "-".to_string()
    } else {
        oops.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    }
}

fn error_line(e: &StoreError) -> String {
    match e {
        StoreError::Conflict { oops } => format!("error conflict {}", oop_list(oops)),
        StoreError::CommitRefused => "error refused".to_string(),
        StoreError::ReadOnly => "error read-only".to_string(),
        other => format!("error other {}", chain(other)),
    }
}

fn shell(path: &str, flags: &[String]) -> Result<(), Failure> {
    let repo = Repository::open(path)?;
    let read_only = flags.iter().any(|f| f == "--read-only");
    let label: String = flag(flags, "--label")?.unwrap_or_default();
    let mut session = repo.login(
        gsmcp_store::LoginOptions::new()
            .read_only(read_only)
            .label(label),
    )?;
    let mut pending: std::collections::BTreeMap<u64, Option<Vec<u8>>> = Default::default();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let line = line.trim_end();
        let (word, arg) = line.split_once(' ').unwrap_or((line, ""));
        let answer = match word {
            "" => continue,
            "quit" => break,
            _ => shell_command(&mut session, &mut pending, word, arg),
        };
        let _ = writeln!(out, "{answer}");
        let _ = out.flush();
    }
    session.logout()?;
    Ok(())
}

fn shell_command(
    session: &mut StoreSession,
    pending: &mut std::collections::BTreeMap<u64, Option<Vec<u8>>>,
    word: &str,
    arg: &str,
) -> String {
    let oop_arg = |text: &str| -> Result<u64, String> {
        text.split(' ')
            .next()
            .unwrap_or("")
            .parse()
            .map_err(|_| format!("error usage bad OOP {text:?}"))
    };
    let result: Result<String, String> = match word {
        "view" => Ok(format!("view {}", session.view())),
        "behind" => session
            .commits_behind()
            .map(|n| format!("behind {n}"))
            .map_err(|e| error_line(&e)),
        "alloc" => session
            .allocate_oop()
            .map(|o| format!("oop {o}"))
            .map_err(|e| error_line(&e)),
        "read" => oop_arg(arg).and_then(|oop| match pending.get(&oop) {
            Some(Some(bytes)) => Ok(show(bytes)),
            Some(None) => Ok("none".to_string()),
            None => match session.read(oop) {
                Ok(Some(bytes)) => Ok(show(&bytes)),
                Ok(None) => Ok("none".to_string()),
                Err(e) => Err(error_line(&e)),
            },
        }),
        "write" => oop_arg(arg).map(|oop| {
            let text = arg.split_once(' ').map_or("", |(_, t)| t);
            pending.insert(oop, Some(text.as_bytes().to_vec()));
            "ok".to_string()
        }),
        "delete" => oop_arg(arg).map(|oop| {
            pending.insert(oop, None);
            "ok".to_string()
        }),
        "commit" => match session.commit(pending.iter().map(|(o, d)| (*o, d.as_deref()))) {
            Ok(c) => {
                pending.clear();
                Ok(format!(
                    "committed {} changed {}",
                    c.commit,
                    oop_list(c.changed.oops())
                ))
            }
            Err(e) => Err(error_line(&e)),
        },
        "abort" => session.abort().map_err(|e| error_line(&e)).map(|c| {
            pending.clear();
            format!("aborted {} changed {}", c.to_view(), oop_list(c.oops()))
        }),
        "continue" => session
            .continue_view()
            .map(|c| format!("continued {} changed {}", c.to_view(), oop_list(c.oops())))
            .map_err(|e| error_line(&e)),
        other => Err(format!("error usage unknown command {other:?}")),
    };
    result.unwrap_or_else(|e| e)
}

/// The deterministic contents `exercise` writes for object `j` of tag `tag`:
/// a readable header, then a body whose length and bytes depend on both.
fn payload(tag: u64, j: u64) -> Vec<u8> {
    let mut bytes = format!("{tag}:{j}:").into_bytes();
    let len = 16 + (tag * 7 + j * 13) % 700;
    bytes.extend((0..len).map(|i| ((tag * 31 + j * 17 + i) % 251) as u8));
    bytes
}

fn exercise(path: &str, flags: &[String]) -> Result<(), Failure> {
    let objects: u64 = required(flags, "--objects")?;
    let tag_base: u64 = required(flags, "--tag-base")?;
    let commits: u64 = flag(flags, "--commits")?.unwrap_or(0);
    if objects == 0 || objects > gsmcp_store::RESERVED_OOPS.end() / 2 {
        return Err(Failure::Usage("--objects must be between 1 and 511".into()));
    }
    let repo = Repository::open(path)?;
    let mut session = repo.login(gsmcp_store::LoginOptions::new().label("exercise"))?;
    let mut out = std::io::stdout().lock();
    let mut n = 0u64;
    while commits == 0 || n < commits {
        let tag = tag_base + n;
        let fresh = session.allocate_oops(objects as usize)?;
        // Every commit writes `objects` new objects and overwrites the same
        // `objects` root OOPs, all carrying its tag: a partial commit would show
        // as a tag with fewer new objects, or roots with mixed tags.
        let mut writes: Vec<(u64, Option<Vec<u8>>)> = Vec::new();
        for j in 0..objects {
            writes.push((fresh[j as usize], Some(payload(tag, j))));
            writes.push((j + 1, Some(payload(tag, objects + j))));
        }
        let c = session.commit(writes)?;
        // Reported only after commit has answered: the parent holds us to it.
        let _ = writeln!(out, "committed {} {} {}", c.commit, tag, oop_list(&fresh));
        let _ = out.flush();
        n += 1;
    }
    Ok(())
}

fn counter(path: &str, flags: &[String]) -> Result<(), Failure> {
    let oop: u64 = required(flags, "--oop")?;
    let times: u64 = required(flags, "--times")?;
    let repo = Repository::open(path)?;
    let mut session = repo.login(gsmcp_store::LoginOptions::new().label("counter"))?;
    let mut conflicts = 0u64;
    for _ in 0..times {
        loop {
            let current: u64 = match session.read(oop)? {
                None => 0,
                Some(bytes) => std::str::from_utf8(&bytes)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| {
                        Failure::Store(StoreError::Corrupt {
                            detail: format!("counter object {oop} is not a number"),
                        })
                    })?,
            };
            match session.commit([(oop, Some((current + 1).to_string()))]) {
                Ok(_) => break,
                Err(StoreError::Conflict { .. }) => {
                    conflicts += 1;
                    session.abort()?;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
    println!("done {times} conflicts {conflicts}");
    Ok(())
}
