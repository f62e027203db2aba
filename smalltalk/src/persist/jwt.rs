//! JSON Web Token logins: how the stone lets a user in whose password field
//! carries a JWT (GemStone 3.7.4.1's `GCI_JWT_PASSWORD`), and the public keys
//! it trusts for them.
//!
//! A login by token succeeds only when every check passes, in this order:
//! the user exists and is enabled for JWT logins (`UserProfile>>
//! enableJwtAuthenticationWith:`, kept as the user's [`JwtPolicy`]); the
//! token's header names a key id (`kid`) the repository trusts (`System
//! addJwtKey:withId:`, kept outside transactions by the store); its algorithm
//! is one that key's kind signs with (RSA: RS/PS 256–512; EC: ES256/ES384;
//! Ed25519: EdDSA — never `none`, never HMAC); the signature verifies; `exp`
//! is present and not past and `nbf`, when present, is reached (both with
//! [`LEEWAY`]); `iss` is one of the user's issuers and `aud` (a string or a
//! list) names one of its audiences (`*` accepts any); and the user's claim
//! (`userIdKey`, `sub` by default) is a string among its user ids. The token
//! is never kept, logged or quoted in a refusal.

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;

use super::users::JwtPolicy;

/// Clock skew allowed on `exp` and `nbf`, in seconds.
pub const LEEWAY: u64 = 60;

/// The longest token a login takes (a JWT of a few claims is under 2 KiB).
pub const MAX_TOKEN: usize = 16 * 1024;

/// The longest key text `addJwtKey:withId:` takes.
pub const MAX_KEY: usize = 16 * 1024;

/// The claim that names the user when a policy names none.
pub const DEFAULT_USER_ID_KEY: &str = "sub";

/// A trusted public key, from its PEM text: the key and the algorithms its
/// kind signs with.
pub struct PublicKey {
    key: DecodingKey,
    algorithms: &'static [Algorithm],
    /// What kind of key it is (`RSA`, `EC`, `Ed25519`), for messages.
    pub kind: &'static str,
}

const RSA: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
];
const EC: &[Algorithm] = &[Algorithm::ES256, Algorithm::ES384];
const ED: &[Algorithm] = &[Algorithm::EdDSA];

impl PublicKey {
    /// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`, or an RSA
    /// `BEGIN RSA PUBLIC KEY`). Anything else — a private key, a
    /// certificate, text that is not PEM — is refused.
    pub fn from_pem(pem: &str) -> Result<PublicKey, String> {
        if pem.len() > MAX_KEY {
            return Err(format!("the key text is longer than {MAX_KEY} bytes"));
        }
        let t = pem.trim();
        if !(t.starts_with("-----BEGIN PUBLIC KEY-----")
            || t.starts_with("-----BEGIN RSA PUBLIC KEY-----"))
        {
            return Err("not a PEM public key (-----BEGIN PUBLIC KEY-----)".into());
        }
        let b = t.as_bytes();
        if let Ok(key) = DecodingKey::from_rsa_pem(b) {
            return Ok(PublicKey {
                key,
                algorithms: RSA,
                kind: "RSA",
            });
        }
        if let Ok(key) = DecodingKey::from_ec_pem(b) {
            return Ok(PublicKey {
                key,
                algorithms: EC,
                kind: "EC",
            });
        }
        if let Ok(key) = DecodingKey::from_ed_pem(b) {
            return Ok(PublicKey {
                key,
                algorithms: ED,
                kind: "Ed25519",
            });
        }
        Err("not an RSA, EC or Ed25519 public key in PEM form".into())
    }
}

/// Checks `token` as the proof of a login as `user`, whose JWT settings are
/// `policy`; `trusted` answers the PEM text of the key a key id names.
/// `now` is Unix seconds. The error says which check failed.
pub fn check(
    policy: &JwtPolicy,
    user: &str,
    token: &str,
    trusted: impl FnOnce(&str) -> Result<Option<String>, String>,
    now: u64,
) -> Result<(), String> {
    if token.len() > MAX_TOKEN {
        return Err(format!("the token is longer than {MAX_TOKEN} bytes"));
    }
    let header = jsonwebtoken::decode_header(token)
        .map_err(|_| "the password is not a well-formed JSON Web Token".to_string())?;
    let kid = header
        .kid
        .as_deref()
        .ok_or("the token's header names no key (kid)")?;
    let pem = trusted(kid)?.ok_or_else(|| {
        format!("the stone trusts no key with id {kid:?} (System addJwtKey:withId:)")
    })?;
    let key = PublicKey::from_pem(&pem).map_err(|e| format!("the trusted key {kid:?}: {e}"))?;
    if !key.algorithms.contains(&header.alg) {
        return Err(format!(
            "the token's algorithm {:?} is not one the {} key {kid:?} signs with",
            header.alg, key.kind
        ));
    }
    let mut validation = Validation::new(header.alg);
    validation.algorithms = vec![header.alg];
    validation.leeway = LEEWAY;
    validation.validate_exp = true;
    validation.validate_nbf = true;
    validation.validate_aud = false;
    validation.set_required_spec_claims(&["exp"]);
    let claims = jsonwebtoken::decode::<Value>(token, &key.key, &validation)
        .map_err(|e| {
            use jsonwebtoken::errors::ErrorKind as K;
            match e.kind() {
                K::ExpiredSignature => "the token has expired",
                K::ImmatureSignature => "the token is not valid yet (nbf)",
                K::InvalidSignature => "the token's signature does not verify",
                K::MissingRequiredClaim(_) => "the token has no expiry (exp)",
                _ => "the token is not valid",
            }
            .to_string()
        })?
        .claims;
    // `decode` checks exp against the system clock; `now` is the caller's
    let exp = claims.get("exp").and_then(Value::as_u64).unwrap_or(0);
    if exp.saturating_add(LEEWAY) < now {
        return Err("the token has expired".into());
    }
    let any = |list: &[String]| list.iter().any(|s| s == "*");
    let issuer = claims.get("iss").and_then(Value::as_str);
    if !any(&policy.issuers) && !issuer.is_some_and(|i| policy.issuers.iter().any(|s| s == i)) {
        return Err(format!(
            "the token's issuer is not one {user} accepts (JwtSecurityData addIssuer:)"
        ));
    }
    let audiences: Vec<&str> = match claims.get("aud") {
        Some(Value::String(a)) => vec![a.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if !any(&policy.audiences)
        && !audiences
            .iter()
            .any(|a| policy.audiences.iter().any(|s| s == a))
    {
        return Err(format!(
            "the token's audience is not one {user} accepts (JwtSecurityData addAudience:)"
        ));
    }
    let key_name = if policy.user_id_key.is_empty() {
        DEFAULT_USER_ID_KEY
    } else {
        &policy.user_id_key
    };
    match claims.get(key_name).and_then(Value::as_str) {
        Some(named) if policy.user_ids.iter().any(|u| u == named) => Ok(()),
        Some(_) => Err(format!(
            "the token's {key_name} claim names someone other than {user}"
        )),
        None => Err(format!("the token has no {key_name} claim naming a user")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header};
    use serde_json::json;

    const NOW: u64 = 2_000_000_000;

    /// A key pair of rcgen's `alg`: the private key's PEM and the public one's.
    fn pair(alg: &'static rcgen::SignatureAlgorithm) -> (String, String) {
        let k = rcgen::KeyPair::generate_for(alg).expect("a key");
        (k.serialize_pem(), k.public_key_pem())
    }

    fn sign(alg: Algorithm, kid: Option<&str>, private_pem: &str, claims: &Value) -> String {
        let mut h = Header::new(alg);
        h.kid = kid.map(str::to_string);
        let key = match alg {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(private_pem.as_bytes()),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(private_pem.as_bytes()),
            _ => EncodingKey::from_rsa_pem(private_pem.as_bytes()),
        }
        .expect("an encoding key");
        jsonwebtoken::encode(&h, claims, &key).expect("a token")
    }

    fn policy() -> JwtPolicy {
        JwtPolicy {
            user_id_key: "sub".into(),
            user_ids: vec!["alice-uuid".into()],
            issuers: vec!["https://id.example".into()],
            audiences: vec!["https://gs.example/mcp".into()],
        }
    }

    fn good() -> Value {
        json!({"sub": "alice-uuid", "iss": "https://id.example",
               "aud": "https://gs.example/mcp", "iat": NOW, "exp": NOW + 600})
    }

    fn with(f: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Value {
        let mut c = good();
        f(c.as_object_mut().unwrap());
        c
    }

    #[test]
    fn a_token_logs_in_only_when_every_check_passes() {
        let (ec_private, ec_public) = pair(&rcgen::PKCS_ECDSA_P256_SHA256);
        let (other_private, _) = pair(&rcgen::PKCS_ECDSA_P256_SHA256);
        let (ed_private, ed_public) = pair(&rcgen::PKCS_ED25519);
        let (rsa_private, rsa_public) = pair(&rcgen::PKCS_RSA_SHA256);
        let trusted = |kid: &str| -> Result<Option<String>, String> {
            Ok(match kid {
                "ec" => Some(ec_public.clone()),
                "ed" => Some(ed_public.clone()),
                "rsa" => Some(rsa_public.clone()),
                "junk" => Some("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----".into()),
                _ => None,
            })
        };
        let es = |kid: &str, c: &Value| sign(Algorithm::ES256, Some(kid), &ec_private, c);
        let wildcard = JwtPolicy {
            issuers: vec!["*".into()],
            audiences: vec!["*".into()],
            ..policy()
        };
        let by_name = JwtPolicy {
            user_id_key: "preferred_username".into(),
            user_ids: vec!["alice".into()],
            ..policy()
        };
        let hs = {
            let mut h = Header::new(Algorithm::HS256);
            h.kid = Some("ec".into());
            jsonwebtoken::encode(&h, &good(), &EncodingKey::from_secret(b"a shared secret"))
                .unwrap()
        };
        // the header {"alg":"none","kid":"ec"}, base64url, on a good token's claims
        let none = format!(
            "eyJhbGciOiJub25lIiwia2lkIjoiZWMifQ.{}.",
            es("ec", &good()).split('.').nth(1).unwrap()
        );
        let table: Vec<(&str, JwtPolicy, String, Result<(), &str>)> = vec![
            ("valid ES256", policy(), es("ec", &good()), Ok(())),
            (
                "valid RS256",
                policy(),
                sign(Algorithm::RS256, Some("rsa"), &rsa_private, &good()),
                Ok(()),
            ),
            (
                "valid PS384",
                policy(),
                sign(Algorithm::PS384, Some("rsa"), &rsa_private, &good()),
                Ok(()),
            ),
            (
                "valid EdDSA",
                policy(),
                sign(Algorithm::EdDSA, Some("ed"), &ed_private, &good()),
                Ok(()),
            ),
            (
                "audience in a list",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.insert("aud".into(), json!(["x", "https://gs.example/mcp"]));
                    }),
                ),
                Ok(()),
            ),
            (
                "wildcards",
                wildcard.clone(),
                es(
                    "ec",
                    &with(|c| {
                        c.remove("iss");
                        c.insert("aud".into(), json!("elsewhere"));
                    }),
                ),
                Ok(()),
            ),
            (
                "another user claim",
                by_name.clone(),
                es(
                    "ec",
                    &with(|c| {
                        c.insert("preferred_username".into(), json!("alice"));
                    }),
                ),
                Ok(()),
            ),
            (
                "garbage",
                policy(),
                "not.a.jwt".into(),
                Err("not a well-formed"),
            ),
            (
                "no kid",
                policy(),
                sign(Algorithm::ES256, None, &ec_private, &good()),
                Err("names no key"),
            ),
            (
                "unknown kid",
                policy(),
                es("k9", &good()),
                Err("trusts no key with id \"k9\""),
            ),
            (
                "bad trusted key",
                policy(),
                es("junk", &good()),
                Err("the trusted key \"junk\""),
            ),
            (
                "wrong key",
                policy(),
                sign(Algorithm::ES256, Some("ec"), &other_private, &good()),
                Err("signature does not verify"),
            ),
            (
                "EC token on the Ed25519 key",
                policy(),
                es("ed", &good()),
                Err("not one the Ed25519 key"),
            ),
            ("HMAC", policy(), hs, Err("not one the EC key")),
            ("alg none", policy(), none, Err("not a well-formed")),
            (
                "expired",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.insert("exp".into(), json!(NOW - LEEWAY - 1));
                    }),
                ),
                Err("expired"),
            ),
            (
                "within the leeway",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.insert("exp".into(), json!(NOW - 10));
                    }),
                ),
                Ok(()),
            ),
            (
                "no exp",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.remove("exp");
                    }),
                ),
                Err("no expiry"),
            ),
            (
                "not yet valid",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.insert("nbf".into(), json!(4_000_000_000u64));
                        c.insert("exp".into(), json!(4_000_000_600u64));
                    }),
                ),
                Err("not valid yet"),
            ),
            (
                "wrong issuer",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.insert("iss".into(), json!("https://evil"));
                    }),
                ),
                Err("issuer is not one alice accepts"),
            ),
            (
                "no issuer",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.remove("iss");
                    }),
                ),
                Err("issuer"),
            ),
            (
                "wrong audience",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.insert("aud".into(), json!("https://other"));
                    }),
                ),
                Err("audience is not one alice accepts"),
            ),
            (
                "no audience",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.remove("aud");
                    }),
                ),
                Err("audience"),
            ),
            (
                "another user's token",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.insert("sub".into(), json!("bob-uuid"));
                    }),
                ),
                Err("names someone other than alice"),
            ),
            (
                "no user claim",
                by_name.clone(),
                es("ec", &good()),
                Err("no preferred_username claim"),
            ),
            (
                "user claim not a string",
                by_name,
                es(
                    "ec",
                    &with(|c| {
                        c.insert("preferred_username".into(), json!(["alice"]));
                    }),
                ),
                Err("no preferred_username claim"),
            ),
            (
                "sub not a string",
                policy(),
                es(
                    "ec",
                    &with(|c| {
                        c.insert("sub".into(), json!(["alice-uuid"]));
                    }),
                ),
                Err("not valid"),
            ),
            (
                "too long",
                policy(),
                "a".repeat(MAX_TOKEN + 1),
                Err("longer than"),
            ),
        ];
        // exp is checked against the real clock by the library too: the
        // table's times are far in the future, so only `NOW` decides expiry
        for (name, policy, token, want) in table {
            let got = check(&policy, "alice", &token, trusted, NOW);
            match (want, &got) {
                (Ok(()), Ok(())) => {}
                (Err(part), Err(e)) => assert!(e.contains(part), "{name}: {e}"),
                _ => panic!("{name}: {got:?}"),
            }
            if let Err(e) = &got {
                assert!(
                    !e.contains(&token[..token.len().min(20)]) || token.len() < 20,
                    "{name}: the refusal quotes the token"
                );
            }
        }
    }

    #[test]
    fn keys_are_read_from_pem_and_nothing_else() {
        let (private, public) = pair(&rcgen::PKCS_ECDSA_P256_SHA256);
        assert_eq!(PublicKey::from_pem(&public).unwrap().kind, "EC");
        let (_, ed) = pair(&rcgen::PKCS_ED25519);
        assert_eq!(PublicKey::from_pem(&ed).unwrap().kind, "Ed25519");
        let (_, rsa) = pair(&rcgen::PKCS_RSA_SHA256);
        assert_eq!(PublicKey::from_pem(&rsa).unwrap().kind, "RSA");
        for bad in [
            private.as_str(),
            "",
            "hello",
            "-----BEGIN PUBLIC KEY-----\n!!\n-----END PUBLIC KEY-----",
        ] {
            assert!(PublicKey::from_pem(bad).is_err(), "{bad}");
        }
        assert!(PublicKey::from_pem(&"x".repeat(MAX_KEY + 1)).is_err());
    }
}
