//! Secrets as values: [`Secret`], a string that is never printed, and the
//! random bytes and their hex spelling that the router's tokens, session ids,
//! login key and ticket nonces are made of.

/// A secret (a password, a made token): never printed (`Debug` shows
/// `<redacted>`), never in a message.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A secret holding `s`.
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    /// The value of the environment variable `name`, if set.
    pub fn from_env(name: &str) -> Option<Secret> {
        std::env::var(name).ok().map(Secret)
    }
    /// The secret itself, for the worker's Hello frame or the one place that shows it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// Seconds since the Unix epoch: the clock of tickets, tokens and sealed
/// states.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `N` bytes from the operating system's random number generator; `what`
/// names what they are for in the error.
pub fn random<const N: usize>(what: &str) -> Result<[u8; N], String> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| {
        format!("cannot make {what}: the system's random number generator failed ({e})")
    })?;
    Ok(bytes)
}

/// `bytes` as lower-case hex digits.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `N` bytes that `2N` hex digits spell, or `None`.
pub fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// 128 bits from the OS CSPRNG, as 32 lower-case hex characters: a session id.
pub fn new_session_id() -> Result<String, String> {
    let bytes: [u8; 16] = random("a session id")?;
    Ok(hex(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_32_hex_and_distinct() {
        let a = new_session_id().unwrap();
        let b = new_session_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }

    #[test]
    fn hex_round_trips_and_secrets_hide() {
        let b: [u8; 4] = random("a test").unwrap();
        assert_eq!(unhex::<4>(&hex(&b)), Some(b));
        assert_eq!(hex(&[0, 171, 255]), "00abff");
        assert_eq!(unhex::<2>("00a"), None);
        assert_eq!(unhex::<2>("zz00"), None);
        assert_eq!(format!("{:?}", Secret::new("s3cret")), "<redacted>");
    }
}
