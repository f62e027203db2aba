//! The `requestState` of multi round-trip requests (MCP 2026-07-28): what a
//! worker wants carried from one round of a request to the next, sealed so
//! that a client can hand it back but not forge, alter, move or keep it.
//!
//! A round that needs client input answers an `InputRequiredResult`; the
//! client gathers the input and sends the request again with the answers and
//! the state. The worker's state is plain JSON (the answers so far); the
//! router seals it ([`StateKey::seal`]) into an opaque string bound to
//! ([`Binding`]) the principal, the method, the name or URI and a digest of
//! the arguments, valid for [`STATE_LIFETIME`], and opens it
//! ([`StateKey::open`]) when it comes back, refusing a string that fails any
//! of these. Only the router holds the key: a worker never sees a client's
//! string, only what the router verified.
//!
//! The string is `v1.` + base64url(payload JSON) + `.` + base64url(HMAC-SHA-256
//! of the payload under the key). The key is random per start, so state does
//! not outlive the router, unless `MCP_REQUEST_STATE_KEY_FILE` names a file
//! (private to the user, at least 32 bytes) that several routers behind one
//! address share.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// How long a sealed state is accepted: as long as a worker waits for a
/// client's answer in the session era.
pub const STATE_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// The longest sealed state the router makes or accepts: the answers of one
/// request are a few forms and messages.
pub const MAX_STATE_BYTES: usize = 256 * 1024;

const PREFIX: &str = "v1.";

/// The HMAC key of the router's request states.
pub struct StateKey(aws_lc_rs::hmac::Key);

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(<redacted>)")
    }
}

/// What a state is bound to: who asked, and which request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The principal's name.
    pub principal: String,
    /// The request's method.
    pub method: String,
    /// Hex SHA-256 of the request's salient parameters ([`Binding::of`]).
    pub digest: String,
}

impl Binding {
    /// The binding of a request of `principal`: its method and a digest of its
    /// name (or URI) and arguments, which include a `session` handle. The
    /// arguments are hashed in their canonical JSON (keys sorted).
    pub fn of(principal: &str, method: &str, params: Option<&Value>) -> Binding {
        let field = |f: &str| {
            params
                .and_then(|p| p.get(f))
                .cloned()
                .unwrap_or(Value::Null)
        };
        let salient = json!([field("name"), field("uri"), field("arguments")]);
        let digest =
            aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, salient.to_string().as_bytes());
        Binding {
            principal: principal.to_string(),
            method: method.to_string(),
            digest: crate::secret::hex(digest.as_ref()),
        }
    }
}

/// Why a client's `requestState` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Not a state this router sealed, or altered since.
    #[error(
        "requestState failed verification: it is not a state this server issued, or it was altered"
    )]
    Forged,
    /// Sealed longer ago than [`STATE_LIFETIME`].
    #[error("requestState expired: it is accepted for {} minutes after it was issued; send the request again without it", STATE_LIFETIME.as_secs() / 60)]
    Expired,
    /// Issued to another principal.
    #[error("requestState was issued to another principal")]
    OtherPrincipal,
    /// Issued for another request (method, name or arguments differ).
    #[error("requestState was issued for another request: send it only with the request (method, name and arguments) whose InputRequiredResult carried it")]
    OtherRequest,
    /// Longer than [`MAX_STATE_BYTES`].
    #[error("requestState is longer than {} KiB", MAX_STATE_BYTES / 1024)]
    TooLong,
}

impl StateError {
    /// The `kind` the refusal's `data` names.
    pub fn kind(&self) -> &'static str {
        match self {
            StateError::Forged => "forged",
            StateError::Expired => "expired",
            StateError::OtherPrincipal => "otherPrincipal",
            StateError::OtherRequest => "otherRequest",
            StateError::TooLong => "tooLong",
        }
    }
}

impl StateKey {
    /// A key from 32 random bytes: states last as long as this router.
    pub fn random() -> Result<StateKey, String> {
        let bytes: [u8; 32] = crate::secret::random("the request-state key")?;
        Ok(StateKey::from_bytes(&bytes))
    }

    /// A key from `bytes` (a shared key file's content).
    pub fn from_bytes(bytes: &[u8]) -> StateKey {
        StateKey(aws_lc_rs::hmac::Key::new(
            aws_lc_rs::hmac::HMAC_SHA256,
            bytes,
        ))
    }

    /// The key in `path` (`MCP_REQUEST_STATE_KEY_FILE`): private to the user,
    /// at least 32 bytes once surrounding white space is trimmed.
    pub fn from_file(path: &Path) -> Result<StateKey, String> {
        const WHAT: &str = "MCP_REQUEST_STATE_KEY_FILE";
        crate::private::check_private_file(path, WHAT)?;
        let bytes = std::fs::read(path).map_err(|e| format!("{WHAT} {}: {e}", path.display()))?;
        let key = bytes.trim_ascii();
        if key.len() < 32 {
            return Err(format!(
                "{WHAT} {}: holds {} bytes; a key needs at least 32 (e.g. `head -c 32 /dev/urandom | base64 > FILE`)",
                path.display(),
                key.len()
            ));
        }
        Ok(StateKey::from_bytes(key))
    }

    /// Seals `content` (the worker's plain state) for `binding`, valid until
    /// `now` (Unix seconds) + [`STATE_LIFETIME`]. `Err` when the sealed state
    /// would exceed [`MAX_STATE_BYTES`].
    pub fn seal(&self, binding: &Binding, content: &Value, now: u64) -> Result<String, StateError> {
        let payload = json!({
            "p": binding.principal,
            "m": binding.method,
            "d": binding.digest,
            "e": now + STATE_LIFETIME.as_secs(),
            "s": content,
        })
        .to_string();
        let tag = aws_lc_rs::hmac::sign(&self.0, payload.as_bytes());
        let sealed = format!(
            "{PREFIX}{}.{}",
            URL_SAFE_NO_PAD.encode(payload.as_bytes()),
            URL_SAFE_NO_PAD.encode(tag.as_ref())
        );
        match sealed.len() > MAX_STATE_BYTES {
            true => Err(StateError::TooLong),
            false => Ok(sealed),
        }
    }

    /// The content of `sealed` if this key sealed it, for `binding`, and it
    /// has not expired at `now` (Unix seconds).
    pub fn open(&self, binding: &Binding, sealed: &str, now: u64) -> Result<Value, StateError> {
        if sealed.len() > MAX_STATE_BYTES {
            return Err(StateError::TooLong);
        }
        let (payload, tag) = sealed
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split_once('.'))
            .ok_or(StateError::Forged)?;
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| StateError::Forged)?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| StateError::Forged)?;
        // constant-time: the tag is checked before anything is read
        aws_lc_rs::hmac::verify(&self.0, &payload, &tag).map_err(|_| StateError::Forged)?;
        let Ok(Value::Object(mut payload)) = serde_json::from_slice::<Value>(&payload) else {
            return Err(StateError::Forged);
        };
        let text = |k: &str| payload.get(k).and_then(Value::as_str);
        if payload
            .get("e")
            .and_then(Value::as_u64)
            .is_none_or(|e| now > e)
        {
            return Err(StateError::Expired);
        }
        if text("p") != Some(&binding.principal) {
            return Err(StateError::OtherPrincipal);
        }
        if text("m") != Some(&binding.method) || text("d") != Some(&binding.digest) {
            return Err(StateError::OtherRequest);
        }
        Ok(payload.remove("s").unwrap_or(Value::Null))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(principal: &str, args: Value) -> Binding {
        Binding::of(
            principal,
            "tools/call",
            Some(&json!({"name": "t", "arguments": args, "_meta": {"x": 1}})),
        )
    }

    #[test]
    fn a_sealed_state_opens_only_for_its_request_principal_and_time() {
        let key = StateKey::random().unwrap();
        let content = json!({"answers": {"a": {"action": "accept"}}});
        let b = binding("ann", json!({"x": 1, "y": [1, 2]}));
        let sealed = key.seal(&b, &content, 1000).unwrap();
        assert!(sealed.starts_with(PREFIX));
        assert_eq!(key.open(&b, &sealed, 1000).unwrap(), content);
        // the arguments' order does not matter, _meta is not part of it
        let same = Binding::of(
            "ann",
            "tools/call",
            Some(&json!({"arguments": {"y": [1, 2], "x": 1}, "name": "t"})),
        );
        assert_eq!(key.open(&same, &sealed, 1000).unwrap(), content);
        let later = 1000 + STATE_LIFETIME.as_secs();
        assert_eq!(key.open(&b, &sealed, later).unwrap(), content);

        let mut flipped = sealed.clone().into_bytes();
        let at = PREFIX.len() + 5;
        flipped[at] = if flipped[at] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(flipped).unwrap();
        let other_key = StateKey::random().unwrap();
        let table: [(&StateKey, Binding, String, u64, StateError); 8] = [
            (
                &key,
                b.clone(),
                format!("{sealed}-TAMPERED"),
                1000,
                StateError::Forged,
            ),
            (&key, b.clone(), flipped, 1000, StateError::Forged),
            (&key, b.clone(), "junk".into(), 1000, StateError::Forged),
            (&key, b.clone(), "v1.e30.".into(), 1000, StateError::Forged),
            (
                &other_key,
                b.clone(),
                sealed.clone(),
                1000,
                StateError::Forged,
            ),
            (
                &key,
                b.clone(),
                sealed.clone(),
                later + 1,
                StateError::Expired,
            ),
            (
                &key,
                binding("bob", json!({"x": 1, "y": [1, 2]})),
                sealed.clone(),
                1000,
                StateError::OtherPrincipal,
            ),
            (
                &key,
                binding("ann", json!({"x": 2, "y": [1, 2]})),
                sealed.clone(),
                1000,
                StateError::OtherRequest,
            ),
        ];
        for (i, (k, b, s, now, want)) in table.into_iter().enumerate() {
            assert_eq!(k.open(&b, &s, now), Err(want), "case {i}");
        }
        let other_method = Binding {
            method: "prompts/get".into(),
            ..b.clone()
        };
        assert_eq!(
            key.open(&other_method, &sealed, 1000),
            Err(StateError::OtherRequest)
        );
    }

    #[test]
    fn state_is_bounded_both_ways() {
        let key = StateKey::random().unwrap();
        let b = binding("ann", json!({}));
        let big = json!({"answers": {"a": "x".repeat(MAX_STATE_BYTES)}});
        assert_eq!(key.seal(&b, &big, 0), Err(StateError::TooLong));
        let long = "v".repeat(MAX_STATE_BYTES + 1);
        assert_eq!(key.open(&b, &long, 0), Err(StateError::TooLong));
    }

    #[test]
    fn a_shared_key_file_must_be_private_and_long_enough() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("gsmcp-state-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("key");
        let write = |text: &str, mode: u32| {
            std::fs::write(&file, text).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        write("short\n", 0o600);
        assert!(StateKey::from_file(&file)
            .unwrap_err()
            .contains("at least 32"));
        write(&"k".repeat(40), 0o644);
        assert!(StateKey::from_file(&file)
            .unwrap_err()
            .contains("chmod 600"));
        write(&format!("{}\n", "k".repeat(40)), 0o600);
        let a = StateKey::from_file(&file).unwrap();
        let b = StateKey::from_bytes("k".repeat(40).as_bytes());
        let bind = binding("ann", json!({}));
        let sealed = a.seal(&bind, &json!({}), 5).unwrap();
        assert_eq!(b.open(&bind, &sealed, 5).unwrap(), json!({}));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
