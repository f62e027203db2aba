//! The OAuth 2.1 resource server (`MCP_AUTH=oauth`): validating a JWT access
//! token against its issuer's keys, and the Protected Resource Metadata
//! (RFC 9728) a client reads to find the authorization server.
//!
//! A token is accepted when its algorithm is on the allow-list (never `none`;
//! HMAC only with a configured secret), its signature verifies with the key its
//! `kid` names in the issuer's JWKS (fetched from `MCP_OAUTH_JWKS_URL` with
//! caching, and fetched again, at most once per [`REFRESH_GAP`], when a token
//! names a key the cache lacks; or read from a file), its `iss` is the issuer,
//! its `aud` holds this resource (RFC 8707), `exp` and `nbf` hold with a small
//! leeway, and it carries every required scope (`scope` or `scp`). A token that
//! verified is remembered by its digest until it expires, so a client's next
//! request costs a hash and a lookup, not a signature check.

use crate::identity::{Denied, Principal};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The least time between two JWKS fetches caused by unknown key ids, so a
/// stream of forged `kid`s cannot make the router hammer the issuer.
pub const REFRESH_GAP: Duration = Duration::from_secs(10);
/// How long fetched keys are used before they are fetched again anyway.
pub const KEYS_TTL: Duration = Duration::from_secs(600);
/// The largest JWKS document accepted.
pub const MAX_JWKS: usize = 512 * 1024;
/// How many verified tokens are remembered.
const VERIFIED_CACHE: usize = 4096;
/// The algorithms allowed when `MCP_OAUTH_ALGORITHMS` is not set: every
/// asymmetric one.
pub const DEFAULT_ALGORITHMS: &str = "RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,EdDSA";

/// Where the issuer's keys come from.
#[derive(Debug, Clone)]
pub enum JwksSource {
    /// Fetched over HTTP(S) (`MCP_OAUTH_JWKS_URL`; plain http only on loopback).
    Url(String),
    /// Read once from a file (`MCP_OAUTH_JWKS_FILE`).
    File(PathBuf),
}

/// The resource server's settings, validated at start-up.
pub struct OAuth {
    /// `MCP_OAUTH_ISSUER`: the `iss` every token must carry, and the
    /// authorization server the metadata names.
    pub issuer: String,
    /// `MCP_OAUTH_AUDIENCE`: this server's resource identifier (its `/mcp`
    /// URL), which every token's `aud` must hold.
    pub audience: String,
    /// Scopes every token must carry (`MCP_OAUTH_SCOPES`).
    pub required_scopes: Vec<String>,
    /// Further scopes the metadata advertises (`MCP_OAUTH_EXTRA_SCOPES`).
    pub extra_scopes: Vec<String>,
    /// The claim naming the repository user (`MCP_OAUTH_USER_CLAIM`, `sub`).
    pub user_claim: String,
    /// `MCP_OAUTH_USER_MAP`: the repository user of each claim value; with
    /// a map, a principal it does not name is refused (403).
    user_map: Option<HashMap<String, String>>,
    algorithms: Vec<Algorithm>,
    hmac: Option<DecodingKey>,
    /// The HMAC secret as text, for the redaction layer only.
    hmac_text: Option<String>,
    leeway: u64,
    source: JwksSource,
    keys: Mutex<KeyCache>,
    verified: Mutex<HashMap<[u8; 32], Verified>>,
    fetch_lock: tokio::sync::Mutex<()>,
    http: reqwest::Client,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("required_scopes", &self.required_scopes)
            .field("algorithms", &self.algorithms)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct KeyCache {
    keys: HashMap<String, DecodingKey>,
    /// The only key's, when the set has one key without an id.
    anonymous: Option<DecodingKey>,
    fetched: Option<Instant>,
    /// The last fetch an unknown `kid` caused.
    forced: Option<Instant>,
    /// How many fetches made this cache, so a request that waited for
    /// another's fetch sees that one happened.
    generation: u64,
}

#[derive(Clone)]
struct Verified {
    user: String,
    scopes: Vec<String>,
    exp: u64,
}

/// The claims read from a token (signature, `iss`, `aud`, `exp`, `nbf` are
/// checked by the decoder).
#[derive(Deserialize)]
struct Claims {
    exp: u64,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<ScopeList>,
    #[serde(flatten)]
    rest: HashMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ScopeList {
    Text(String),
    List(Vec<String>),
}

/// The settings `OAuth::new` takes, as the command line gave them.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `MCP_OAUTH_ISSUER`.
    pub issuer: Option<String>,
    /// `MCP_OAUTH_AUDIENCE`.
    pub audience: Option<String>,
    /// `MCP_OAUTH_JWKS_URL`.
    pub jwks_url: Option<String>,
    /// `MCP_OAUTH_JWKS_FILE`.
    pub jwks_file: Option<PathBuf>,
    /// `MCP_OAUTH_SCOPES`.
    pub scopes: String,
    /// `MCP_OAUTH_EXTRA_SCOPES`.
    pub extra_scopes: String,
    /// `MCP_OAUTH_ALGORITHMS`.
    pub algorithms: String,
    /// `MCP_OAUTH_HMAC_SECRET_FILE`.
    pub hmac_secret_file: Option<PathBuf>,
    /// `MCP_OAUTH_LEEWAY` in seconds.
    pub leeway: u64,
    /// `MCP_OAUTH_USER_CLAIM`.
    pub user_claim: String,
    /// `MCP_OAUTH_USER_MAP`.
    pub user_map: Option<PathBuf>,
}

/// Whether `text` can name a repository user: 1 to 1024 characters (a
/// Symbol's limit), none of them a control character.
fn is_user_id(text: &str) -> bool {
    !text.is_empty() && text.chars().count() <= 1024 && !text.chars().any(char::is_control)
}

/// Reads `MCP_OAUTH_USER_MAP`: a JSON object from claim values to repository
/// user ids, e.g. `{"4f1c…": "alice", "bob@example.com": "bob"}`.
fn read_user_map(path: &std::path::Path) -> Result<HashMap<String, String>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("MCP_OAUTH_USER_MAP {shown}: cannot read it ({e})"))?;
    let map: HashMap<String, String> = serde_json::from_str(&text).map_err(|e| {
        format!(
            "MCP_OAUTH_USER_MAP {shown}: not a JSON object of claim values to repository \
             users, e.g. {{\"alice@example.com\": \"alice\"}} ({e})"
        )
    })?;
    if map.is_empty() {
        return Err(format!(
            "MCP_OAUTH_USER_MAP {shown}: the map is empty, so it would refuse everyone"
        ));
    }
    match map.iter().find(|(k, v)| !is_user_id(k) || !is_user_id(v)) {
        Some((k, v)) => Err(format!(
            "MCP_OAUTH_USER_MAP {shown}: {k:?} -> {v:?}: claim values and user ids are 1 to \
             1024 characters without control characters"
        )),
        None => Ok(map),
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

impl OAuth {
    /// Checks the settings (and reads a key file) before the port is bound.
    pub fn new(s: Settings) -> Result<OAuth, Vec<String>> {
        let mut problems = Vec::new();
        let issuer = s.issuer.clone().unwrap_or_default();
        if issuer.is_empty() {
            problems.push("MCP_AUTH=oauth needs MCP_OAUTH_ISSUER, the authorization server's issuer URL (the `iss` of its tokens)".into());
        }
        let audience = s.audience.clone().unwrap_or_default();
        if !(audience.starts_with("https://") || audience.starts_with("http://")) {
            problems.push("MCP_AUTH=oauth needs MCP_OAUTH_AUDIENCE, this server's resource identifier: its URL as clients reach it, e.g. https://gemstone.example.com/mcp".into());
        }
        let source = match (&s.jwks_url, &s.jwks_file) {
            (Some(url), None) if jwks_url_ok(url) => Some(JwksSource::Url(url.clone())),
            (Some(url), None) => {
                problems.push(format!("MCP_OAUTH_JWKS_URL {url:?} must be an https:// URL (plain http only on a loopback address)"));
                None
            }
            (None, Some(file)) => Some(JwksSource::File(file.clone())),
            (Some(_), Some(_)) => {
                problems.push("set MCP_OAUTH_JWKS_URL or MCP_OAUTH_JWKS_FILE, not both".into());
                None
            }
            (None, None) => {
                problems.push("MCP_AUTH=oauth needs the issuer's keys: MCP_OAUTH_JWKS_URL (fetched and cached) or MCP_OAUTH_JWKS_FILE".into());
                None
            }
        };
        let mut algorithms = Vec::new();
        let alg_text = if s.algorithms.trim().is_empty() {
            DEFAULT_ALGORITHMS
        } else {
            &s.algorithms
        };
        for name in words(alg_text) {
            match Algorithm::from_str(&name) {
                Ok(a) => algorithms.push(a),
                Err(_) => problems.push(format!(
                    "MCP_OAUTH_ALGORITHMS: {name:?} is not a JWS algorithm (use e.g. RS256, PS256, ES256, EdDSA; `none` is never allowed)"
                )),
            }
        }
        let is_hmac =
            |a: &Algorithm| matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512);
        let mut hmac_text = None;
        let hmac = match &s.hmac_secret_file {
            None => {
                if algorithms.iter().any(is_hmac) {
                    problems.push("MCP_OAUTH_ALGORITHMS names an HMAC algorithm but no MCP_OAUTH_HMAC_SECRET_FILE is set".into());
                }
                None
            }
            Some(path) => {
                match crate::private::check_private_file(path, "MCP_OAUTH_HMAC_SECRET_FILE")
                    .and_then(|()| {
                        std::fs::read(path).map_err(|e| {
                            format!("MCP_OAUTH_HMAC_SECRET_FILE {}: {e}", path.display())
                        })
                    }) {
                    Ok(bytes) if bytes.trim_ascii().len() >= 32 => {
                        hmac_text = std::str::from_utf8(bytes.trim_ascii())
                            .ok()
                            .map(String::from);
                        if !algorithms.iter().any(is_hmac) {
                            problems.push("MCP_OAUTH_HMAC_SECRET_FILE is set: name the HMAC algorithm it is for in MCP_OAUTH_ALGORITHMS (e.g. HS256)".into());
                        }
                        Some(DecodingKey::from_secret(bytes.trim_ascii()))
                    }
                    Ok(_) => {
                        problems.push(
                            "MCP_OAUTH_HMAC_SECRET_FILE: the secret must be at least 32 bytes"
                                .into(),
                        );
                        None
                    }
                    Err(e) => {
                        problems.push(e);
                        None
                    }
                }
            }
        };
        let user_claim = if s.user_claim.trim().is_empty() {
            "sub".to_string()
        } else {
            s.user_claim.trim().to_string()
        };
        let user_map = match &s.user_map {
            None => None,
            Some(path) => match read_user_map(path) {
                Ok(m) => Some(m),
                Err(e) => {
                    problems.push(e);
                    None
                }
            },
        };
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .build();
        let http = match http {
            Ok(h) => Some(h),
            Err(e) => {
                problems.push(format!("cannot make the HTTP client for the JWKS: {e}"));
                None
            }
        };
        let mut keys = KeyCache::default();
        if let Some(JwksSource::File(path)) = &source {
            match std::fs::read(path)
                .map_err(|e| e.to_string())
                .and_then(|b| parse_jwks(&b))
            {
                Ok(k) => keys = k,
                Err(e) => problems.push(format!("MCP_OAUTH_JWKS_FILE {}: {e}", path.display())),
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let (Some(source), Some(http)) = (source, http) else {
            return Err(vec!["incomplete OAuth settings".into()]);
        };
        Ok(OAuth {
            issuer,
            audience,
            required_scopes: words(&s.scopes),
            extra_scopes: words(&s.extra_scopes),
            user_claim,
            user_map,
            algorithms,
            hmac,
            hmac_text,
            leeway: s.leeway,
            source,
            keys: Mutex::new(keys),
            verified: Mutex::new(HashMap::new()),
            fetch_lock: tokio::sync::Mutex::new(()),
            http,
        })
    }

    /// The configured secrets the redaction layer hides by value (the HMAC
    /// secret, when tokens may be HMAC-signed).
    pub fn secrets(&self) -> Vec<&str> {
        self.hmac_text.as_deref().into_iter().collect()
    }

    /// The metadata document's URL for the `resource_metadata` of a challenge:
    /// the well-known path with the resource's path appended (RFC 9728 §3.1).
    pub fn metadata_url(&self) -> String {
        let rest = self
            .audience
            .split_once("://")
            .map(|(_, r)| r)
            .unwrap_or("");
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let scheme = self.audience.split("://").next().unwrap_or("https");
        let path = path.trim_end_matches('/');
        match path.is_empty() {
            true => format!("{scheme}://{host}{METADATA_PATH}"),
            false => format!("{scheme}://{host}{METADATA_PATH}/{path}"),
        }
    }

    /// The Protected Resource Metadata document (RFC 9728 §2).
    pub fn metadata(&self) -> serde_json::Value {
        let mut scopes = self.required_scopes.clone();
        for s in &self.extra_scopes {
            if !scopes.contains(s) {
                scopes.push(s.clone());
            }
        }
        serde_json::json!({
            "resource": self.audience,
            "authorization_servers": [self.issuer],
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
            "resource_name": "gsmcp",
        })
    }

    /// The `WWW-Authenticate` value for a refusal.
    pub fn challenge(&self, denied: &Denied) -> String {
        let mut c = format!(
            "Bearer realm=\"{}\", resource_metadata=\"{}\"",
            crate::identity::REALM,
            self.metadata_url()
        );
        if !self.required_scopes.is_empty() {
            c.push_str(&format!(", scope=\"{}\"", self.required_scopes.join(" ")));
        }
        match denied {
            Denied::Missing => {}
            Denied::InvalidToken => {
                c.push_str(", error=\"invalid_token\", error_description=\"the bearer token is not valid for this server\"")
            }
            Denied::Rejected(why) => c.push_str(&format!(
                ", error=\"invalid_token\", error_description=\"{}\"",
                why.replace('"', "'")
            )),
            Denied::NoAccount(_) => {}
            Denied::InsufficientScope(missing) => c.push_str(&format!(
                ", error=\"insufficient_scope\", error_description=\"the token lacks scope {}\"",
                missing.replace('"', "'")
            )),
        }
        c
    }

    /// Validates a bearer token: who it names, or why not.
    pub async fn check(&self, token: &str) -> Result<Principal, Denied> {
        let digest = crate::identity::TokenDigest::of(token).bytes();
        let now = crate::secret::unix_now();
        if let Some(v) = self
            .verified
            .lock()
            .ok()
            .and_then(|m| m.get(&digest).cloned())
        {
            if v.exp + self.leeway > now {
                return self.admit(v, token);
            }
        }
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| Denied::Rejected("the token is not a well-formed JWT".into()))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(Denied::Rejected(format!(
                "algorithm {:?} is not allowed",
                header.alg
            )));
        }
        let key = match header.alg {
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => self
                .hmac
                .clone()
                .ok_or_else(|| Denied::Rejected("HMAC tokens are not accepted".into()))?,
            _ => self.key(header.kid.as_deref()).await?,
        };
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.leeway = self.leeway;
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = jsonwebtoken::decode::<Claims>(token, &key, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind as K;
            Denied::Rejected(
                match e.kind() {
                    K::ExpiredSignature => "the token has expired",
                    K::ImmatureSignature => "the token is not valid yet",
                    K::InvalidIssuer => "the token is from another issuer",
                    K::InvalidAudience => "the token is for another resource",
                    K::InvalidSignature => "the token's signature does not verify",
                    K::MissingRequiredClaim(_) => "the token lacks a required claim",
                    _ => "the token is not valid for this server",
                }
                .into(),
            )
        })?;
        let claims = data.claims;
        let mut scopes: Vec<String> = claims.scope.as_deref().map(words).unwrap_or_default();
        match claims.scp {
            Some(ScopeList::Text(t)) => scopes.extend(words(&t)),
            Some(ScopeList::List(l)) => scopes.extend(l),
            None => {}
        }
        let named = match claims.rest.get(&self.user_claim) {
            Some(serde_json::Value::String(u)) if is_user_id(u) => u,
            _ => {
                return Err(Denied::Rejected(format!(
                    "the token has no {} claim naming a user",
                    self.user_claim
                )))
            }
        };
        let user = match &self.user_map {
            None => named.clone(),
            Some(map) => map.get(named).cloned().ok_or_else(|| {
                Denied::NoAccount(format!(
                    "the token's user {named:?} has no repository user in MCP_OAUTH_USER_MAP"
                ))
            })?,
        };
        let verified = Verified {
            user,
            scopes,
            exp: claims.exp,
        };
        if let Ok(mut m) = self.verified.lock() {
            if m.len() >= VERIFIED_CACHE {
                m.retain(|_, v| v.exp + self.leeway > now);
                if m.len() >= VERIFIED_CACHE {
                    m.clear();
                }
            }
            m.insert(digest, verified.clone());
        }
        self.admit(verified, token)
    }

    fn admit(&self, v: Verified, token: &str) -> Result<Principal, Denied> {
        if let Some(missing) = self.required_scopes.iter().find(|s| !v.scopes.contains(s)) {
            return Err(Denied::InsufficientScope(missing.clone()));
        }
        Ok(Principal::User {
            name: v.user,
            scopes: v.scopes,
            token: crate::secret::Secret::new(token),
        })
    }

    /// The verification key a token's `kid` names, fetching the JWKS again
    /// when the cache lacks it (or is old) and the last forced fetch is not
    /// too recent.
    async fn key(&self, kid: Option<&str>) -> Result<DecodingKey, Denied> {
        let lookup = |cache: &KeyCache| match kid {
            Some(k) => cache.keys.get(k).cloned(),
            None => cache.anonymous.clone(),
        };
        let (found, stale, may_force, generation) = {
            let cache = self.keys.lock().map_err(|_| Denied::InvalidToken)?;
            let stale = cache.fetched.is_none_or(|t| t.elapsed() > KEYS_TTL);
            let may_force = cache.forced.is_none_or(|t| t.elapsed() >= REFRESH_GAP);
            (lookup(&cache), stale, may_force, cache.generation)
        };
        let url = match &self.source {
            JwksSource::Url(url) => url,
            JwksSource::File(_) => {
                return found
                    .ok_or_else(|| Denied::Rejected("the token names an unknown key".into()))
            }
        };
        if let (Some(key), false) = (&found, stale) {
            return Ok(key.clone());
        }
        if found.is_none() && !stale && !may_force {
            return Err(Denied::Rejected("the token names an unknown key".into()));
        }
        // one fetch at a time; whoever waited reads what it fetched
        let _guard = self.fetch_lock.lock().await;
        {
            // another request fetched while this one waited
            let cache = self.keys.lock().map_err(|_| Denied::InvalidToken)?;
            if cache.generation != generation {
                return lookup(&cache)
                    .ok_or_else(|| Denied::Rejected("the token names an unknown key".into()));
            }
        }
        // a fetch for a key the fresh cache lacks is the one rate-limited
        let forced = found.is_none() && !stale;
        match self.fetch(url).await {
            Ok(mut fetched) => {
                let now = Instant::now();
                fetched.fetched = Some(now);
                fetched.generation = generation + 1;
                fetched.forced = match forced {
                    true => Some(now),
                    false => self.keys.lock().ok().and_then(|c| c.forced),
                };
                let key = lookup(&fetched);
                if let Ok(mut cache) = self.keys.lock() {
                    *cache = fetched;
                }
                tracing::info!(url = %url, "fetched the issuer's keys");
                key.ok_or_else(|| Denied::Rejected("the token names an unknown key".into()))
            }
            Err(e) => {
                tracing::warn!(url = %url, "cannot fetch the issuer's keys: {e}");
                if let Ok(mut cache) = self.keys.lock() {
                    cache.forced = Some(Instant::now());
                }
                found.ok_or_else(|| Denied::Rejected("the issuer's keys cannot be fetched".into()))
            }
        }
    }

    async fn fetch(&self, url: &str) -> Result<KeyCache, String> {
        let mut resp = self.http.get(url).send().await.map_err(|e| e.to_string())?;
        if !resp.status().is_success() {
            return Err(format!("HTTP {}", resp.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| e.to_string())? {
            if body.len() + chunk.len() > MAX_JWKS {
                return Err(format!("the JWKS is larger than {MAX_JWKS} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        parse_jwks(&body)
    }
}

/// The well-known path of the metadata document.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// A JWKS URL must use https, except on a loopback address.
fn jwks_url_ok(url: &str) -> bool {
    if url.starts_with("https://") {
        return true;
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split('/').next().unwrap_or("");
    let host = host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host);
    host == "localhost" || host == "[::1]" || host.starts_with("127.")
}

/// The signing keys of a JWKS document (keys for encryption are skipped).
fn parse_jwks(bytes: &[u8]) -> Result<KeyCache, String> {
    let set: JwkSet =
        serde_json::from_slice(bytes).map_err(|e| format!("not a JWKS document ({e})"))?;
    let mut cache = KeyCache::default();
    let usable: Vec<_> = set
        .keys
        .iter()
        .filter(|k| {
            !matches!(
                k.common.public_key_use,
                Some(jsonwebtoken::jwk::PublicKeyUse::Encryption)
            )
        })
        .collect();
    for jwk in &usable {
        let Ok(key) = DecodingKey::from_jwk(jwk) else {
            continue;
        };
        match &jwk.common.key_id {
            Some(kid) => {
                cache.keys.insert(kid.clone(), key);
            }
            None if usable.len() == 1 => cache.anonymous = Some(key),
            None => {}
        }
    }
    if cache.keys.is_empty() && cache.anonymous.is_none() {
        return Err("the JWKS holds no usable signing key".into());
    }
    Ok(cache)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jwks_urls() {
        for (url, ok) in [
            ("https://issuer.example.com/jwks", true),
            ("http://127.0.0.1:8080/jwks", true),
            ("http://localhost/jwks", true),
            ("http://issuer.example.com/jwks", false),
            ("ftp://x", false),
        ] {
            assert_eq!(jwks_url_ok(url), ok, "{url}");
        }
    }

    #[test]
    fn the_hmac_secret_is_redacted_wherever_it_occurs() {
        use std::os::unix::fs::PermissionsExt;
        let file = std::env::temp_dir().join(format!("gsmcp-hmac-{}", std::process::id()));
        let secret = "an-hmac-secret-of-at-least-32-bytes-0123456789";
        std::fs::write(&file, format!("{secret}\n")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let o = OAuth::new(Settings {
            issuer: Some("https://id.example.com".into()),
            audience: Some("https://gs.example.com/mcp".into()),
            jwks_url: Some("https://id.example.com/certs".into()),
            algorithms: "HS256".into(),
            hmac_secret_file: Some(file.clone()),
            ..Settings::default()
        })
        .unwrap();
        let auth = crate::auth::Auth::OAuth(Box::new(o));
        let r = crate::access::redactor_for(&auth, ["a-worker-password"]);
        let line = format!("key {secret} and a-worker-password");
        let said = r.redact(&line);
        assert!(
            !said.contains(secret) && !said.contains("a-worker-password"),
            "{said}"
        );
        let _ = std::fs::remove_file(&file);
    }

    #[test]
    fn metadata_urls() {
        let settings = |audience: &str| Settings {
            issuer: Some("https://id.example.com/realms/shop".into()),
            audience: Some(audience.into()),
            jwks_url: Some("https://id.example.com/certs".into()),
            ..Settings::default()
        };
        let o = OAuth::new(settings("https://gs.example.com/mcp")).unwrap();
        assert_eq!(
            o.metadata_url(),
            "https://gs.example.com/.well-known/oauth-protected-resource/mcp"
        );
        let o = OAuth::new(settings("https://gs.example.com")).unwrap();
        assert_eq!(
            o.metadata_url(),
            "https://gs.example.com/.well-known/oauth-protected-resource"
        );
        let e = OAuth::new(Settings::default()).unwrap_err();
        assert!(e.iter().any(|p| p.contains("MCP_OAUTH_ISSUER")), "{e:?}");
        assert!(e.iter().any(|p| p.contains("MCP_OAUTH_JWKS_URL")), "{e:?}");
        let e = OAuth::new(Settings {
            algorithms: "RS256,none".into(),
            ..settings("https://gs.example.com/mcp")
        })
        .unwrap_err();
        assert!(e.iter().any(|p| p.contains("\"none\"")), "{e:?}");
        let e = OAuth::new(Settings {
            algorithms: "HS256".into(),
            ..settings("https://gs.example.com/mcp")
        })
        .unwrap_err();
        assert!(e.iter().any(|p| p.contains("HMAC")), "{e:?}");
    }
}
