//! Signing keys and tokens for the OAuth tests and the benchmark: an ES256 key
//! generated on the spot, its JWK, JWTs it signs, and a small issuer serving
//! the JWKS on loopback. Nothing here validates anything; the router does.

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Base64url without padding (RFC 7515 §2).
pub fn b64url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (*b as u32) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// An ES256 signing key and its JWK.
pub struct Key {
    /// Its key id.
    pub kid: String,
    pkcs8: Vec<u8>,
    /// The public key as an uncompressed point.
    pub public: Vec<u8>,
    /// The public key in PEM form (what a stone is told to trust).
    pub public_pem: String,
}

impl Key {
    /// A new P-256 key named `kid`.
    pub fn new(kid: &str) -> Key {
        let pair = rcgen::KeyPair::generate().expect("a P-256 key");
        Key {
            kid: kid.into(),
            pkcs8: pair.serialize_der(),
            public: pair.public_key_raw().to_vec(),
            public_pem: pair.public_key_pem(),
        }
    }

    /// Its public JWK.
    pub fn jwk(&self) -> Value {
        assert_eq!(self.public.len(), 65, "an uncompressed P-256 point");
        json!({
            "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": self.kid,
            "x": b64url(&self.public[1..33]), "y": b64url(&self.public[33..]),
        })
    }

    /// A JWT of `claims` signed with this key, its header naming `kid`.
    pub fn sign(&self, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(kid.into());
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_ec_der(&self.pkcs8))
            .expect("sign a token")
    }
}

/// A test issuer: serves its JWKS on loopback and counts the fetches.
pub struct Issuer {
    /// The JWKS URL (`MCP_OAUTH_JWKS_URL`).
    pub url: String,
    jwks: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
}

impl Issuer {
    /// Starts serving the JWKS of `keys`.
    pub fn start(keys: &[&Key]) -> Issuer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/certs", listener.local_addr().unwrap());
        let jwks = Arc::new(Mutex::new(json!({ "keys": [] })));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (j, f) = (jwks.clone(), fetches.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                f.fetch_add(1, Ordering::SeqCst);
                let body = j.lock().unwrap().to_string();
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        let issuer = Issuer { url, jwks, fetches };
        issuer.publish(keys);
        issuer
    }

    /// Serves the JWKS of `keys` from now on.
    pub fn publish(&self, keys: &[&Key]) {
        *self.jwks.lock().unwrap() =
            json!({ "keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>() });
    }

    /// How many times the JWKS was fetched.
    pub fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}
