//! Users and their credentials: the security record (reserved OOP
//! [`SECURITY_OOP`]) listing every user with a salted, stretched password hash
//! (PBKDF2-HMAC-SHA-256), the read-only flag and the OOPs of the user's
//! UserProfile and UserGlobals, and, for a user enabled for JSON Web Token
//! logins, what such a token must say ([`JwtPolicy`]). It never stores, logs
//! or returns a plain password, and it compares hashes in constant time.

use super::codec::{CodecError, Reader, Writer};

/// The reserved OOP of the security record.
pub const SECURITY_OOP: u64 = 2;

/// PBKDF2 rounds: enough to make a stolen file's hashes slow to attack,
/// cheap enough (about 0.3 ms with SHA extensions, 1 ms without) for a login.
const ROUNDS: u32 = 2048;

/// The record's format: 1 has no JWT settings; 2 adds them to every user.
/// A record is written in format 1 while no user has them, so a repository
/// stays readable by builds that predate JWT logins until one is enabled.
const SECURITY_FORMAT: u8 = 1;
const SECURITY_FORMAT_JWT: u8 = 2;

/// What a JSON Web Token must say to log a user in (GemStone's
/// JwtSecurityData): the claim naming the user and the values it may have,
/// the issuers and the audiences it may come from and be for (`*`: any).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JwtPolicy {
    pub user_id_key: String,
    pub user_ids: Vec<String>,
    pub issuers: Vec<String>,
    pub audiences: Vec<String>,
}

/// One user of the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRecord {
    pub user_id: String,
    pub salt: [u8; 16],
    pub hash: [u8; 32],
    /// Commit-disabled: the user may read and evaluate but never commit.
    pub read_only: bool,
    /// Repository OOP of the user's UserProfile.
    pub profile: u64,
    /// Repository OOP of the user's own UserGlobals.
    pub user_globals: u64,
    /// Set when the user logs in with a JSON Web Token instead of a password.
    pub jwt: Option<JwtPolicy>,
}

impl UserRecord {
    /// A record for `user_id` with a fresh random salt.
    pub fn new(
        user_id: &str,
        password: &str,
        read_only: bool,
        profile: u64,
        user_globals: u64,
    ) -> std::io::Result<UserRecord> {
        let salt = random_salt()?;
        Ok(UserRecord {
            user_id: user_id.into(),
            salt,
            hash: password_hash(&salt, password),
            read_only,
            profile,
            user_globals,
            jwt: None,
        })
    }

    /// Whether `password` is this user's password (constant-time comparison).
    pub fn check_password(&self, password: &str) -> bool {
        let h = password_hash(&self.salt, password);
        h.iter()
            .zip(self.hash.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

/// Every user of the repository, as the security record holds them.
pub struct Users(pub Vec<UserRecord>);

impl Users {
    pub fn find(&self, user_id: &str) -> Option<&UserRecord> {
        self.0.iter().find(|u| u.user_id == user_id)
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        let jwt = self.0.iter().any(|u| u.jwt.is_some());
        w.u8(if jwt {
            SECURITY_FORMAT_JWT
        } else {
            SECURITY_FORMAT
        });
        w.uv(self.0.len() as u64);
        for u in &self.0 {
            w.str(&u.user_id);
            w.buf.extend_from_slice(&u.salt);
            w.buf.extend_from_slice(&u.hash);
            w.u8(u.read_only as u8);
            w.uv(u.profile);
            w.uv(u.user_globals);
            if jwt {
                match &u.jwt {
                    None => w.u8(0),
                    Some(p) => {
                        w.u8(1);
                        w.str(&p.user_id_key);
                        for list in [&p.user_ids, &p.issuers, &p.audiences] {
                            w.uv(list.len() as u64);
                            list.iter().for_each(|s| w.str(s));
                        }
                    }
                }
            }
        }
        w.buf
    }

    pub fn decode(data: &[u8]) -> Result<Users, CodecError> {
        let mut r = Reader::new(data);
        let f = r.u8()?;
        if f != SECURITY_FORMAT && f != SECURITY_FORMAT_JWT {
            return Err(CodecError(format!("security record format {f}")));
        }
        let n = r.len(50)?;
        let mut users = Vec::with_capacity(n);
        for _ in 0..n {
            let user_id = r.str()?;
            let mut salt = [0u8; 16];
            for b in &mut salt {
                *b = r.u8()?;
            }
            let mut hash = [0u8; 32];
            for b in &mut hash {
                *b = r.u8()?;
            }
            let read_only = r.u8()? != 0;
            let profile = r.oop()?;
            let user_globals = r.oop()?;
            let jwt = if f == SECURITY_FORMAT_JWT && r.u8()? != 0 {
                let user_id_key = r.str()?;
                let mut list = || -> Result<Vec<String>, CodecError> {
                    let n = r.len(1)?;
                    (0..n).map(|_| r.str()).collect()
                };
                Some(JwtPolicy {
                    user_id_key,
                    user_ids: list()?,
                    issuers: list()?,
                    audiences: list()?,
                })
            } else {
                None
            };
            users.push(UserRecord {
                user_id,
                salt,
                hash,
                read_only,
                profile,
                user_globals,
                jwt,
            });
        }
        if !r.at_end() {
            return Err(CodecError("trailing bytes in the security record".into()));
        }
        Ok(Users(users))
    }
}

fn random_salt() -> std::io::Result<[u8; 16]> {
    use std::io::Read;
    let mut salt = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut salt)?;
    Ok(salt)
}

/// PBKDF2-HMAC-SHA-256 of `password` with `salt`, one 32-byte block.
pub fn password_hash(salt: &[u8], password: &str) -> [u8; 32] {
    pbkdf2(salt, password.as_bytes(), ROUNDS)
}

fn pbkdf2(salt: &[u8], password: &[u8], rounds: u32) -> [u8; 32] {
    let mac = Hmac::new(password);
    let mut msg = salt.to_vec();
    msg.extend_from_slice(&1u32.to_be_bytes());
    let mut u = mac.mac(&msg);
    let mut out = u;
    for _ in 1..rounds {
        u = mac.mac32(&u);
        out.iter_mut().zip(u.iter()).for_each(|(o, x)| *o ^= x);
    }
    out
}

/// The SHA-256 initial hash value (FIPS 180-4, 5.3.3).
const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// HMAC-SHA-256 (RFC 2104) with one key: the hash states after the padded key
/// blocks are computed once, so each MAC of a 32-byte message (a PBKDF2
/// round) costs two compressions. The compression is the `sha2` crate's,
/// which uses the CPU's SHA extensions when it has them.
pub(crate) struct Hmac {
    inner: [u32; 8],
    outer: [u32; 8],
}

impl Hmac {
    pub(crate) fn new(key: &[u8]) -> Hmac {
        let mut k = [0u8; 64];
        if key.len() > 64 {
            k[..32].copy_from_slice(&sha256(key));
        } else {
            k[..key.len()].copy_from_slice(key);
        }
        let pad = |x: u8| {
            let mut state = IV;
            let block: [u8; 64] = std::array::from_fn(|i| k[i] ^ x);
            sha2::block_api::compress256(&mut state, &[block]);
            state
        };
        Hmac {
            inner: pad(0x36),
            outer: pad(0x5c),
        }
    }

    pub(crate) fn mac(&self, msg: &[u8]) -> [u8; 32] {
        let ih = finish(self.inner, msg, 64);
        finish(self.outer, &ih, 64)
    }

    /// `mac` of a 32-byte message without allocating.
    fn mac32(&self, msg: &[u8; 32]) -> [u8; 32] {
        let ih = finish32(self.inner, msg);
        finish32(self.outer, &ih)
    }
}

/// SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    finish(IV, data, 0)
}

/// Hashes `data` from `state`, which has absorbed `done` bytes already (a
/// multiple of 64), and pads: the digest.
fn finish(mut state: [u32; 8], data: &[u8], done: u64) -> [u8; 32] {
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((done + data.len() as u64) * 8).to_be_bytes());
    let blocks: Vec<[u8; 64]> = msg
        .chunks_exact(64)
        .map(|c| c.try_into().expect("64-byte chunks"))
        .collect();
    sha2::block_api::compress256(&mut state, &blocks);
    digest(&state)
}

/// `finish` of 32 bytes after one absorbed block: exactly one padded block.
fn finish32(mut state: [u32; 8], data: &[u8; 32]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(data);
    block[32] = 0x80;
    block[56..].copy_from_slice(&((64u64 + 32) * 8).to_be_bytes());
    sha2::block_api::compress256(&mut state, &[block]);
    digest(&state)
}

fn digest(state: &[u32; 8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, x) in state.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn sha256_and_hmac_match_published_vectors() {
        let cases: &[(&[u8], &str)] = &[
            (
                b"",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            ),
            (
                b"abc",
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
            (
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(hex(&sha256(input)), *want);
        }
        // RFC 4231 test case 2
        assert_eq!(
            hex(&Hmac::new(b"Jefe").mac(b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn pbkdf2_matches_published_and_reference_vectors() {
        // RFC 7914 section 11 inputs, 32-byte output
        assert_eq!(
            hex(&pbkdf2(b"salt", b"password", 1)),
            "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"
        );
        assert_eq!(
            hex(&pbkdf2(b"salt", b"password", 4096)),
            "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"
        );
        // the stored hashes' parameters (2,048 rounds), and a key longer than a
        // block, against Python's hashlib.pbkdf2_hmac
        let salt: Vec<u8> = (0..16).collect();
        assert_eq!(
            hex(&password_hash(&salt, "swordfish")),
            "7698af83d2ceb0f63c890c8569cd666faed23de5667cd7e915055d8a0225ccdd"
        );
        assert_eq!(
            hex(&password_hash(b"NaCl", &"k".repeat(100))),
            "439ebfe23ec9c8c992b35ae20f32b81becbef41e68d29e902f9ae2ff173b10a5"
        );
    }

    #[test]
    fn passwords_check_and_records_round_trip() {
        let u = UserRecord::new("alice", "s3cret", true, 1500, 1501).unwrap();
        assert!(u.check_password("s3cret"));
        assert!(!u.check_password("s3cret "));
        assert!(!u.check_password(""));
        let users = Users(vec![
            u.clone(),
            UserRecord::new("bob", "", false, 1600, 1601).unwrap(),
        ]);
        let back = Users::decode(&users.encode()).unwrap();
        assert_eq!(back.0, users.0);
        assert!(back.find("bob").unwrap().check_password(""));
        assert!(!users.encode().windows(6).any(|w| w == b"s3cret"));
        let bytes = users.encode();
        assert_eq!(
            bytes[0], SECURITY_FORMAT,
            "no JWT settings: the first format"
        );
        for n in 0..bytes.len() {
            assert!(Users::decode(&bytes[..n]).is_err());
        }
        let mut with_jwt = users;
        with_jwt.0[1].jwt = Some(JwtPolicy {
            user_id_key: "preferred_username".into(),
            user_ids: vec!["bob".into(), "robert".into()],
            issuers: vec!["https://id.example".into()],
            audiences: vec!["*".into()],
        });
        let bytes = with_jwt.encode();
        assert_eq!(bytes[0], SECURITY_FORMAT_JWT);
        assert_eq!(Users::decode(&bytes).unwrap().0, with_jwt.0);
        for n in 0..bytes.len() {
            assert!(Users::decode(&bytes[..n]).is_err());
        }
    }
}
