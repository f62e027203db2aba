//! Who may talk to the router: the authentication mode (`MCP_AUTH`), the
//! bearer token and its check (or, with `MCP_AUTH=oauth`, the JWT check of
//! [`crate::oauth`]), and the refusal a request without the right credentials
//! gets.
//!
//! The check reads only the request head, so a refused request is answered
//! before any of its body is read. With `MCP_AUTH=token` the router keeps the
//! token's SHA-256 digest, never the token: a presented token is hashed and the
//! two digests are compared in constant time, so neither the comparison's time
//! nor a memory dump tells anything about the token.

pub use crate::identity::{Denied, Principal, TokenDigest, REALM};
use hyper::header::{HeaderMap, AUTHORIZATION};
use std::path::Path;

/// Random bytes in a generated token (256 bits).
pub const TOKEN_BYTES: usize = 32;
/// The shortest token a token file may hold.
pub const MIN_TOKEN_CHARS: usize = 32;
/// The longest token a token file may hold (a header line must carry it).
pub const MAX_TOKEN_CHARS: usize = 4096;

/// How clients authenticate.
#[derive(Debug)]
pub enum Auth {
    /// No authentication: only safe on loopback.
    Off,
    /// One shared bearer token (`MCP_AUTH=token`), kept as its digest.
    Token(TokenDigest),
    /// JWT access tokens of an OAuth 2.1 authorization server (`MCP_AUTH=oauth`).
    OAuth(Box<crate::oauth::OAuth>),
}

impl Auth {
    /// The mode's name, as `MCP_AUTH` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Auth::Off => "off",
            Auth::Token(_) => "token",
            Auth::OAuth(_) => "oauth",
        }
    }

    /// The `WWW-Authenticate` header value for a refusal.
    pub fn challenge(&self, denied: &Denied) -> String {
        match self {
            Auth::OAuth(o) => o.challenge(denied),
            _ => match denied {
                Denied::Missing => format!("Bearer realm=\"{REALM}\""),
                _ => format!(
                    "Bearer realm=\"{REALM}\", error=\"invalid_token\", \
                     error_description=\"the bearer token is not valid for this server\""
                ),
            },
        }
    }

    /// The OAuth settings, in that mode.
    pub fn oauth(&self) -> Option<&crate::oauth::OAuth> {
        match self {
            Auth::OAuth(o) => Some(o),
            _ => None,
        }
    }

    /// Whether clients must authenticate.
    pub fn is_on(&self) -> bool {
        !matches!(self, Auth::Off)
    }

    /// Decides from the request head who is asking, or why not.
    pub async fn check(&self, headers: &HeaderMap) -> Result<Principal, Denied> {
        match self {
            Auth::Off => Ok(Principal::Anonymous),
            Auth::Token(digest) => match digest.matches(bearer_token(headers)?) {
                true => Ok(Principal::TokenHolder),
                false => Err(Denied::InvalidToken),
            },
            Auth::OAuth(o) => o.check(bearer_token(headers)?).await,
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
    let bytes: [u8; TOKEN_BYTES] = crate::secret::random("a random token")?;
    Ok(crate::secret::hex(&bytes))
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

    #[tokio::test]
    async fn bearer_headers() {
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
            assert_eq!(&auth.check(&h).await, want, "{header:?}");
        }
        assert_eq!(
            Auth::Off.check(&HeaderMap::new()).await,
            Ok(Principal::Anonymous)
        );
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
