//! Who is asking and why a request is refused, shared by the authentication
//! modes: the principal a credential names, the refusals (RFC 6750's cases),
//! and the SHA-256 digest by which a bearer token is known without being kept.

use subtle::ConstantTimeEq;

/// The realm named in every challenge.
pub const REALM: &str = "gsmcp";

/// A SHA-256 digest of a bearer token.
#[derive(Clone)]
pub struct TokenDigest([u8; 32]);

impl TokenDigest {
    /// The digest of `token`.
    pub fn of(token: &str) -> TokenDigest {
        let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, token.as_bytes());
        let mut out = [0u8; 32];
        out.copy_from_slice(d.as_ref());
        TokenDigest(out)
    }

    /// Whether `token` hashes to this digest, compared in constant time.
    pub fn matches(&self, token: &str) -> bool {
        TokenDigest::of(token).0.ct_eq(&self.0).into()
    }

    /// The digest's bytes (a cache key; never a secret's stand-in for display).
    pub fn bytes(&self) -> [u8; 32] {
        self.0
    }
}

impl std::fmt::Debug for TokenDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenDigest(<redacted>)")
    }
}

/// Who made a request, as far as authentication tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// Authentication is off: anyone on the bound interface.
    Anonymous,
    /// The holder of the shared bearer token.
    TokenHolder,
    /// The user an OAuth access token names, with the token's scopes.
    User {
        /// The value of the user claim.
        name: String,
        /// The scopes the token carries.
        scopes: Vec<String>,
        /// The access token itself, which a GemStone per-user worker logs in
        /// with (never printed: `Secret`).
        token: crate::secret::Secret,
    },
}

impl Principal {
    /// The name the log gives this principal.
    pub fn name(&self) -> &str {
        match self {
            Principal::Anonymous => "anonymous",
            Principal::TokenHolder => "token",
            Principal::User { name, .. } => name,
        }
    }
}

/// Why a request was refused (answered 401, or 403 for a missing scope, with
/// a `WWW-Authenticate: Bearer` challenge, RFC 6750).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// No `Authorization` header, or one of another scheme: the request carries
    /// no bearer token, so the challenge has no error code.
    Missing,
    /// A bearer token that is malformed or not the right one.
    InvalidToken,
    /// An access token refused for the reason given (expired, wrong audience…).
    Rejected(String),
    /// A valid access token without this required scope (403).
    InsufficientScope(String),
    /// A valid access token whose user has no repository user here (403).
    NoAccount(String),
}

impl Denied {
    /// The HTTP status: 403 for a missing scope or account, else 401.
    pub fn status(&self) -> u16 {
        match self {
            Denied::InsufficientScope(_) | Denied::NoAccount(_) => 403,
            _ => 401,
        }
    }

    /// The message of the JSON-RPC error body.
    pub fn message(&self) -> String {
        match self {
            Denied::Missing => "Unauthorized: send this server's bearer token in the Authorization header (Bearer <token>)".into(),
            Denied::InvalidToken => "Unauthorized: the bearer token is not valid for this server".into(),
            Denied::Rejected(why) => format!("Unauthorized: {why}"),
            Denied::InsufficientScope(scope) => {
                format!("Forbidden: the access token lacks the scope {scope}")
            }
            Denied::NoAccount(why) => format!("Forbidden: {why}"),
        }
    }
}
