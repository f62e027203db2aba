//! Who may talk to the router: the authentication mode (`MCP_AUTH`), the
//! bearer token and its check, and the refusal a request without the right
//! credentials gets.
//!
//! The check reads only the request head, so a refused request is answered
//! before any of its body is read. With `MCP_AUTH=token` the router keeps the
//! token's SHA-256 digest, never the token: a presented token is hashed and the
//! two digests are compared in constant time, so neither the comparison's time
//! nor a memory dump tells anything about the token.

use hyper::header::{HeaderMap, AUTHORIZATION};
use std::path::Path;
use subtle::ConstantTimeEq;

/// The realm named in every challenge.
pub const REALM: &str = "gsmcp";
/// Random bytes in a generated token (256 bits).
pub const TOKEN_BYTES: usize = 32;
/// The shortest token a token file may hold.
pub const MIN_TOKEN_CHARS: usize = 32;
/// The longest token a token file may hold (a header line must carry it).
pub const MAX_TOKEN_CHARS: usize = 4096;

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
}

impl std::fmt::Debug for TokenDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenDigest(<redacted>)")
    }
}

/// How clients authenticate.
#[derive(Debug, Clone)]
pub enum Auth {
    /// No authentication: only safe on loopback.
    Off,
    /// One shared bearer token (`MCP_AUTH=token`), kept as its digest.
    Token(TokenDigest),
}

/// Who made a request, as far as authentication tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// Authentication is off: anyone on the bound interface.
    Anonymous,
    /// The holder of the shared bearer token.
    TokenHolder,
}

impl Principal {
    /// The name the log gives this principal.
    pub fn name(&self) -> &str {
        match self {
            Principal::Anonymous => "anonymous",
            Principal::TokenHolder => "token",
        }
    }
}

/// Why a request was refused (answered 401 with a `WWW-Authenticate: Bearer`
/// challenge, RFC 6750).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denied {
    /// No `Authorization` header, or one of another scheme: the request carries
    /// no bearer token, so the challenge has no error code.
    Missing,
    /// A bearer token that is malformed or not the right one.
    InvalidToken,
}

impl Denied {
    /// The `WWW-Authenticate` header value.
    pub fn challenge(self) -> String {
        match self {
            Denied::Missing => format!("Bearer realm=\"{REALM}\""),
            Denied::InvalidToken => format!(
                "Bearer realm=\"{REALM}\", error=\"invalid_token\", \
                 error_description=\"the bearer token is not valid for this server\""
            ),
        }
    }

    /// The message of the JSON-RPC error body.
    pub fn message(self) -> &'static str {
        match self {
            Denied::Missing => {
                "Unauthorized: send this server's bearer token in the Authorization header (Bearer <token>)"
            }
            Denied::InvalidToken => "Unauthorized: the bearer token is not valid for this server",
        }
    }
}

impl Auth {
    /// The mode's name, as `MCP_AUTH` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Auth::Off => "off",
            Auth::Token(_) => "token",
        }
    }

    /// Whether clients must authenticate.
    pub fn is_on(&self) -> bool {
        !matches!(self, Auth::Off)
    }

    /// Decides from the request head who is asking, or why not.
    pub fn check(&self, headers: &HeaderMap) -> Result<Principal, Denied> {
        let digest = match self {
            Auth::Off => return Ok(Principal::Anonymous),
            Auth::Token(d) => d,
        };
        let token = bearer_token(headers)?;
        if digest.matches(token) {
            Ok(Principal::TokenHolder)
        } else {
            Err(Denied::InvalidToken)
        }
    }
}

/// The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1: the
/// scheme is case-insensitive, the token is `token68`).
pub fn bearer_token(headers: &HeaderMap) -> Result<&str, Denied> {
    let Some(value) = headers.get(AUTHORIZATION) else {
        return Err(Denied::Missing);
    };
    let text = value.to_str().map_err(|_| Denied::InvalidToken)?.trim();
    let (scheme, rest) = text.split_once(' ').unwrap_or((text, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Denied::Missing);
    }
    let token = rest.trim_start_matches(' ');
    let token68 = |b: u8| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b);
    let body = token.trim_end_matches('=');
    if body.is_empty() || !body.bytes().all(token68) {
        return Err(Denied::InvalidToken);
    }
    Ok(token)
}

/// A new random token: 256 bits as 64 hexadecimal digits.
pub fn generate_token() -> Result<String, String> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| format!("cannot draw a random token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Reads a token file: its first line, which must be at least
/// [`MIN_TOKEN_CHARS`] printable characters without spaces, in a file only its
/// owner may read.
pub fn read_token_file(path: &Path) -> Result<String, String> {
    let shown = path.display();
    crate::private::check_private_file(path, "MCP_TOKEN_FILE")?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("MCP_TOKEN_FILE {shown}: cannot read it ({e})"))?;
    let token = text.lines().next().unwrap_or("").trim();
    if token.len() < MIN_TOKEN_CHARS || token.len() > MAX_TOKEN_CHARS {
        return Err(format!(
            "MCP_TOKEN_FILE {shown}: the token must be {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} \
             characters (it is {}); leave MCP_TOKEN_FILE unset to have one generated",
            token.len()
        ));
    }
    if !token
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b))
    {
        return Err(format!(
            "MCP_TOKEN_FILE {shown}: the token may hold only letters, digits and -._~+/= \
             (it travels in an HTTP header)"
        ));
    }
    Ok(token.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[test]
    fn bearer_headers() {
        let token = "0123456789abcdef0123456789abcdef";
        let auth = Auth::Token(TokenDigest::of(token));
        let table: &[(Option<&str>, Result<Principal, Denied>)] = &[
            (None, Err(Denied::Missing)),
            (Some("Basic dXNlcjpwYXNz"), Err(Denied::Missing)),
            (Some("Bearer"), Err(Denied::InvalidToken)),
            (Some("Bearer "), Err(Denied::InvalidToken)),
            (Some("Bearer not a token"), Err(Denied::InvalidToken)),
            (
                Some("Bearer 0123456789abcdef0123456789abcdee"),
                Err(Denied::InvalidToken),
            ),
            (
                Some("Bearer 0123456789abcdef0123456789abcdef"),
                Ok(Principal::TokenHolder),
            ),
            (
                Some("bearer 0123456789abcdef0123456789abcdef"),
                Ok(Principal::TokenHolder),
            ),
            (
                Some("BEARER  0123456789abcdef0123456789abcdef "),
                Ok(Principal::TokenHolder),
            ),
            (
                Some("Bearer 0123456789abcdef0123456789abcdef0"),
                Err(Denied::InvalidToken),
            ),
        ];
        for (header, want) in table {
            let mut h = HeaderMap::new();
            if let Some(v) = header {
                h.insert(AUTHORIZATION, HeaderValue::from_str(v).unwrap());
            }
            assert_eq!(&auth.check(&h), want, "{header:?}");
        }
        assert_eq!(Auth::Off.check(&HeaderMap::new()), Ok(Principal::Anonymous));
    }

    #[test]
    fn generated_tokens_are_256_bits_and_differ() {
        let a = generate_token().unwrap();
        let b = generate_token().unwrap();
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(TokenDigest::of(&a).matches(&a));
        assert!(!TokenDigest::of(&a).matches(&b));
        assert_eq!(
            format!("{:?}", TokenDigest::of(&a)),
            "TokenDigest(<redacted>)"
        );
    }
}
