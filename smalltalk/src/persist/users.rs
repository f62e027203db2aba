//! Users and their credentials: the security record (reserved OOP
//! [`SECURITY_OOP`]) listing every user with a salted, stretched password hash
//! (PBKDF2-HMAC-SHA-256), the read-only flag and the OOPs of the user's
//! UserProfile and UserGlobals. It never stores, logs or returns a plain
//! password, and it compares hashes in constant time.

use super::codec::{CodecError, Reader, Writer};

/// The reserved OOP of the security record.
pub const SECURITY_OOP: u64 = 2;

/// PBKDF2 rounds: enough to make a stolen file's hashes slow to attack,
/// cheap enough (about a millisecond) for a login.
const ROUNDS: u32 = 2048;

const SECURITY_FORMAT: u8 = 1;

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
        w.u8(SECURITY_FORMAT);
        w.uv(self.0.len() as u64);
        for u in &self.0 {
            w.str(&u.user_id);
            w.buf.extend_from_slice(&u.salt);
            w.buf.extend_from_slice(&u.hash);
            w.u8(u.read_only as u8);
            w.uv(u.profile);
            w.uv(u.user_globals);
        }
        w.buf
    }

    pub fn decode(data: &[u8]) -> Result<Users, CodecError> {
        let mut r = Reader::new(data);
        let f = r.u8()?;
        if f != SECURITY_FORMAT {
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
            users.push(UserRecord {
                user_id,
                salt,
                hash,
                read_only,
                profile: r.oop()?,
                user_globals: r.oop()?,
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
    let key = password.as_bytes();
    let mut msg = salt.to_vec();
    msg.extend_from_slice(&1u32.to_be_bytes());
    let mut u = hmac_sha256(key, &msg);
    let mut out = u;
    for _ in 1..ROUNDS {
        u = hmac_sha256(key, &u);
        out.iter_mut().zip(u.iter()).for_each(|(o, x)| *o ^= x);
    }
    out
}

fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&sha256(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
    inner.extend_from_slice(msg);
    let ih = sha256(&inner);
    let mut outer: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
    outer.extend_from_slice(&ih);
    sha256(&outer)
}

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// SHA-256 (FIPS 180-4) of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes([
                block[4 * i],
                block[4 * i + 1],
                block[4 * i + 2],
                block[4 * i + 3],
            ]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (i, x) in h.iter().enumerate() {
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
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
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
        for n in 0..bytes.len() {
            assert!(Users::decode(&bytes[..n]).is_err());
        }
    }
}
