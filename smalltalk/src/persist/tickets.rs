//! One-time login credentials ("login tickets"): how a repository lets a
//! login in as a user without that user's password, once.
//!
//! A repository that accepts tickets has a key file beside it
//! (`<repository>.login-key`: 64 hex digits, private to its owner). Whoever
//! can read that file may mint a ticket for any user, so it is exactly as
//! sensitive as the repository file itself; gsmcp's router makes it, and
//! nothing of the key ever enters the repository or Smalltalk. A ticket is
//! `gsmcp-ticket.1.<nonce>.<expires>.<mac>`: a random 128-bit nonce (32 hex
//! digits), the Unix second it stops being valid, and the HMAC-SHA-256 with
//! the key of the version, the user id, the nonce and the expiry, so a ticket
//! names its user and cannot be moved to another. A login checks the MAC in
//! constant time and the expiry here, and spends the nonce in the store in the
//! login's own transaction, so a ticket logs in at most once across every
//! process sharing the file. Tickets live at most [`MAX_LIFETIME`].

use std::path::{Path, PathBuf};

use super::users::Hmac;

/// What every ticket starts with (the format's version included).
pub const PREFIX: &str = "gsmcp-ticket.1.";

/// The longest a ticket may be valid for, from now.
pub const MAX_LIFETIME: u64 = 600;

/// The key file of the repository at `repository`.
pub fn key_path(repository: &Path) -> PathBuf {
    let mut name = repository.as_os_str().to_os_string();
    name.push(".login-key");
    PathBuf::from(name)
}

/// A ticket that passed every check but the store's: the nonce to spend and
/// its expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Checked {
    pub(crate) nonce: [u8; 16],
    pub(crate) expires: u64,
}

/// The text the MAC covers.
fn signed_text(user: &str, nonce_hex: &str, expires: u64) -> Vec<u8> {
    format!("{PREFIX}\n{user}\n{nonce_hex}\n{expires}").into_bytes()
}

/// The ticket for `user` with `nonce`, valid until `expires`, under `key`
/// (for tests and tools; the router mints its own the same way).
pub fn mint(key: &[u8; 32], user: &str, nonce: &[u8; 16], expires: u64) -> String {
    let nonce_hex = hex(nonce);
    let mac = Hmac::new(key).mac(&signed_text(user, &nonce_hex, expires));
    format!("{PREFIX}{nonce_hex}.{expires}.{}", hex(&mac))
}

/// Checks `ticket` for `user` against `key` at `now` (Unix seconds).
pub(crate) fn check(key: &[u8; 32], user: &str, ticket: &str, now: u64) -> Result<Checked, String> {
    let malformed = || "the login ticket is malformed".to_string();
    let rest = ticket.strip_prefix(PREFIX).ok_or_else(malformed)?;
    let mut parts = rest.split('.');
    let (Some(nonce_hex), Some(expires_text), Some(mac_hex), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(malformed());
    };
    let nonce: [u8; 16] = unhex(nonce_hex).ok_or_else(malformed)?;
    let mac: [u8; 32] = unhex(mac_hex).ok_or_else(malformed)?;
    if expires_text.is_empty() || !expires_text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed());
    }
    let expires: u64 = expires_text.parse().map_err(|_| malformed())?;
    let want = Hmac::new(key).mac(&signed_text(user, nonce_hex, expires));
    let differs = want
        .iter()
        .zip(mac.iter())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    if differs != 0 {
        return Err("the login ticket was not made for this user and repository".into());
    }
    if expires < now {
        return Err("the login ticket has expired".into());
    }
    if expires > now.saturating_add(MAX_LIFETIME) {
        return Err(format!(
            "the login ticket is valid for longer than {MAX_LIFETIME} seconds"
        ));
    }
    Ok(Checked { nonce, expires })
}

/// Reads the key of the repository at `repository`: the file must exist, be
/// a regular file private to its owner, and hold 64 hex digits.
pub(crate) fn read_key(repository: &Path) -> Result<[u8; 32], String> {
    use std::os::unix::fs::MetadataExt;
    let path = key_path(repository);
    let shown = path.display();
    let meta = std::fs::symlink_metadata(&path).map_err(|e| {
        format!(
            "this repository accepts no login tickets: its key file {shown} cannot be read ({e})"
        )
    })?;
    if !meta.is_file() {
        return Err(format!("the login key {shown} is not a regular file"));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(format!(
            "the login key {shown} may be read by others (mode {:o}): it must be private (chmod 600)",
            meta.mode() & 0o777
        ));
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("the login key {shown} cannot be read ({e})"))?;
    unhex(text.lines().next().unwrap_or("").trim())
        .ok_or_else(|| format!("the login key {shown} does not hold 64 hex digits"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [0x42; 32];
    const NONCE: [u8; 16] = [0x07; 16];

    /// The wire form, fixed: the router mints tickets with its own code and
    /// its test holds the same vector (computed independently with Python's hmac).
    #[test]
    fn the_ticket_format_is_fixed() {
        assert_eq!(
            mint(&KEY, "alice", &NONCE, 1_800_000_000),
            "gsmcp-ticket.1.07070707070707070707070707070707.1800000000.\
             5fcb2ab176f6d6fc9b40e25dbb6cec9c40fb7ed9fb94b7afbe460ba517dd5be1"
        );
    }

    #[test]
    fn checks_answer_each_refusal() {
        let now = 1_800_000_000 - 60;
        let good = mint(&KEY, "alice", &NONCE, 1_800_000_000);
        assert_eq!(
            check(&KEY, "alice", &good, now),
            Ok(Checked {
                nonce: NONCE,
                expires: 1_800_000_000
            })
        );
        let refused =
            |user: &str, ticket: &str, now: u64| check(&KEY, user, ticket, now).unwrap_err();
        let cases: Vec<(String, &str, u64, &str)> = vec![
            (good.clone(), "bob", now, "not made for this user"),
            (
                good.replace(".1800000000.", ".1800000001."),
                "alice",
                now,
                "not made for this user",
            ),
            (good.clone(), "alice", 1_800_000_001, "has expired"),
            (good.clone(), "alice", now - MAX_LIFETIME, "longer than"),
            (
                good[..good.len() - 1].to_string(),
                "alice",
                now,
                "malformed",
            ),
            (
                good.replace("gsmcp-ticket.1.", "gsmcp-ticket.2."),
                "alice",
                now,
                "malformed",
            ),
            (format!("{good}.x"), "alice", now, "malformed"),
            (
                good.replace(".1800000000.", ".+1800000000."),
                "alice",
                now,
                "malformed",
            ),
            ("swordfish".into(), "alice", now, "malformed"),
            (String::new(), "alice", now, "malformed"),
        ];
        for (ticket, user, at, why) in cases {
            let got = refused(user, &ticket, at);
            assert!(got.contains(why), "{ticket:?} for {user}: {got}");
        }
        let other_key = check(&[0x43; 32], "alice", &good, now).unwrap_err();
        assert!(other_key.contains("not made for this user"), "{other_key}");
    }
}
