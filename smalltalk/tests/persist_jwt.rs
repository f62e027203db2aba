//! JSON Web Token logins end to end on a repository file: an administrator
//! enables a user for them with a JwtSecurityData and trusts a signing key
//! (`System addJwtKey:withId:`), both in Smalltalk as on a GemStone stone;
//! then a table of logins — tokens good and bad, a password for a token user,
//! a token for a password user — each logs in as its user or is refused with
//! the reason, never quoting the token.

use std::path::PathBuf;

use gsmcp_smalltalk::Session;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn repository(tag: &str) -> (TempDir, PathBuf) {
    let dir = std::env::temp_dir().join(format!("gsmcp-jwt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("repository.db");
    Session::create_repository(&path).expect("create repository");
    (TempDir(dir), path)
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

struct Signer {
    private: String,
    public: String,
}

impl Signer {
    fn new() -> Signer {
        let k = rcgen::KeyPair::generate().expect("a P-256 key");
        Signer {
            private: k.serialize_pem(),
            public: k.public_key_pem(),
        }
    }

    fn token(&self, kid: &str, claims: &Value) -> String {
        let mut h = Header::new(Algorithm::ES256);
        h.kid = Some(kid.into());
        let key = EncodingKey::from_ec_pem(self.private.as_bytes()).unwrap();
        jsonwebtoken::encode(&h, claims, &key).unwrap()
    }
}

fn claims(sub: &str) -> Value {
    json!({"sub": sub, "iss": "https://id.example", "aud": "gemstone",
           "iat": now(), "exp": now() + 300})
}

fn eval(s: &mut Session, code: &str) -> Result<String, String> {
    s.evaluate_print_string(code)
        .map_err(|e| e.message_text.unwrap_or(e.description))
}

/// The administrator's provisioning, as GemStone's own scripts write it.
fn provision(dc: &mut Session, pem: &str) {
    let script = format!(
        "| sec |
         AllUsers addNewUserWithId: 'alice' password: 'unused-by-jwt'.
         AllUsers addNewUserWithId: 'bob' password: 'bobs-password'.
         System commitTransaction.
         sec := JwtSecurityData new.
         sec userIdKey: #sub; addUserId: 'alice-uuid'; addIssuer: 'https://id.example'; addAudience: 'gemstone'.
         (AllUsers userWithId: 'alice') enableJwtAuthenticationWith: sec.
         System addJwtKey: (GsTlsPublicKey newFromPemString: '{pem}') withId: 'k1'.
         true"
    );
    assert_eq!(eval(dc, &script).unwrap(), "true");
}

#[test]
fn a_user_enabled_for_jwt_logs_in_with_a_token_and_nothing_else() {
    let (_dir, path) = repository("logins");
    let signer = Signer::new();
    let mut dc = Session::login(&path, "DataCurator", "swordfish").unwrap();
    provision(&mut dc, &signer.public);

    // the key is trusted at once; the user's settings only once committed
    assert!(
        Session::login(&path, "alice", "unused-by-jwt").is_ok(),
        "not committed yet"
    );
    let early = Session::login_with_jwt(&path, "alice", &signer.token("k1", &claims("alice-uuid")));
    let why = early
        .err()
        .expect("not committed yet")
        .message_text
        .unwrap();
    assert!(
        why.contains("not enabled for JSON Web Token logins"),
        "{why}"
    );
    assert_eq!(eval(&mut dc, "System commitTransaction").unwrap(), "true");

    let other = Signer::new();
    let good = signer.token("k1", &claims("alice-uuid"));
    let table: Vec<(&str, String, Result<(), &str>)> = vec![
        ("alice", good.clone(), Ok(())),
        (
            "alice",
            signer.token("k1", &claims("bob-uuid")),
            Err("names someone other than alice"),
        ),
        (
            "alice",
            other.token("k1", &claims("alice-uuid")),
            Err("signature does not verify"),
        ),
        (
            "alice",
            signer.token("k2", &claims("alice-uuid")),
            Err("trusts no key with id \"k2\""),
        ),
        (
            "alice",
            signer.token(
                "k1",
                &json!({"sub": "alice-uuid", "iss": "https://id.example",
                  "aud": "gemstone", "exp": now() - 3600}),
            ),
            Err("expired"),
        ),
        (
            "alice",
            "not a token".into(),
            Err("not a well-formed JSON Web Token"),
        ),
        (
            "bob",
            signer.token("k1", &claims("alice-uuid")),
            Err("bob is not enabled"),
        ),
        (
            "ghost",
            good.clone(),
            Err("user id or password is not valid"),
        ),
    ];
    for (user, token, want) in table {
        let got = Session::login_with_jwt(&path, user, &token);
        match (want, got) {
            (Ok(()), Ok(mut s)) => {
                assert_eq!(
                    eval(&mut s, "System myUserProfile userId").unwrap(),
                    format!("'{user}'")
                );
                s.logout().unwrap();
            }
            (Err(part), Err(e)) => {
                assert_eq!(
                    (e.number, e.class_name.as_str()),
                    (4051, "SecurityError"),
                    "{user}"
                );
                let text = e.message_text.unwrap_or(e.description);
                assert!(text.contains(part), "{user}: {text}");
                assert!(
                    !text.contains(&token) || token.len() < 12,
                    "the refusal quotes the token"
                );
            }
            (want, got) => panic!("{user}: wanted {want:?}, got {:?}", got.err()),
        }
    }
    // a token user's password no longer works, and says no more than a wrong one
    let e = Session::login(&path, "alice", "unused-by-jwt")
        .err()
        .unwrap();
    assert_eq!(e.number, 4051);
    assert!(e
        .message_text
        .unwrap_or(e.description)
        .contains("user id or password is not valid"));
    assert!(Session::login(&path, "bob", "bobs-password").is_ok());

    // the keys as Smalltalk sees them, and their removal, which is immediate
    assert_eq!(
        eval(&mut dc, "| k | k := System jwtPublicKeys. {k size. k first. (k at: 2) printString. (k at: 2) algorithm}").unwrap(),
        "anArray( 2, 'k1', 'a GsTlsPublicKey(EC)', #EC)"
    );
    assert_eq!(
        eval(&mut dc, "System removeJwtKeyWithId: 'k1'").unwrap(),
        "true"
    );
    let gone = Session::login_with_jwt(&path, "alice", &good)
        .err()
        .unwrap();
    assert!(gone.message_text.unwrap().contains("trusts no key"));
}

#[test]
fn who_may_change_jwt_settings_and_what_they_accept() {
    let (_dir, path) = repository("admin");
    let signer = Signer::new();
    let mut dc = Session::login(&path, "DataCurator", "swordfish").unwrap();
    provision(&mut dc, &signer.public);
    assert_eq!(eval(&mut dc, "System commitTransaction").unwrap(), "true");
    let add = |kid: &str| {
        format!(
            "System addJwtKey: (GsTlsPublicKey newFromPemString: '{}') withId: '{kid}'",
            signer.public
        )
    };
    let table: Vec<(String, &str)> = vec![
        (add("k1"), "is trusted already"),
        (add(""), "a key id is 1 to 256 characters"),
        ("GsTlsPublicKey newFromPemString: 'hello'".into(), "not a PEM public key"),
        ("GsTlsPublicKey newFromPemString: 42".into(), "takes a String"),
        ("System addJwtKey: 'pem text' withId: 'k3'".into(), "takes a GsTlsPublicKey"),
        ("System removeJwtKeyWithId: 'nope'".into(), "no key with id \"nope\""),
        ("GsTlsPublicKey newFromPemFile: '/nonexistent/key.pem'".into(), "cannot open"),
        ("(AllUsers userWithId: 'DataCurator') enableJwtAuthenticationWith: JwtSecurityData new".into(),
         "validUserIds must not be empty"),
        ("(AllUsers userWithId: 'DataCurator') enableJwtAuthenticationWith: (JwtSecurityData new addUserId: 'x'; addIssuer: #*; addAudience: #*; yourself)".into(),
         "DataCurator is an administrator and keeps its password login"),
        ("(AllUsers userWithId: 'bob') enableJwtAuthenticationWith: 3".into(), "takes a JwtSecurityData"),
        ("JwtSecurityData new userIdKey: ''".into(), "userIdKey must be a non-empty String"),
        ("JwtSecurityData new addIssuer: 7".into(), "an issuer must be a non-empty String"),
    ];
    for (code, part) in &table {
        let e = eval(&mut dc, code).expect_err(code);
        assert!(e.contains(part), "{code}: {e}");
    }
    // a developer may read the trusted keys but change nothing
    let mut dev = Session::login(&path, "Developer", "swordfish").unwrap();
    assert_eq!(eval(&mut dev, "System jwtPublicKeys size").unwrap(), "2");
    for code in [
        add("k9"),
        "System removeJwtKeyWithId: 'k1'".to_string(),
        "(AllUsers userWithId: 'bob') enableJwtAuthenticationWith: (JwtSecurityData new addUserId: 'x'; addIssuer: #*; addAudience: #*; yourself)".into(),
        "GsTlsPublicKey newFromPemFile: '/etc/hostname'".into(),
    ] {
        let e = eval(&mut dev, &code).expect_err(&code);
        assert!(e.contains("Developer may not") || e.contains("only an administrator"), "{code}: {e}");
    }
    // a key file an administrator names is read, and only if it is a PEM key
    let file = path.with_extension("pem");
    std::fs::write(&file, &signer.public).unwrap();
    assert_eq!(
        eval(
            &mut dc,
            &format!(
                "(GsTlsPublicKey newFromPemFile: '{}') algorithm",
                file.display()
            )
        )
        .unwrap(),
        "#EC"
    );
    std::fs::write(&file, "secret=do-not-show-me\n").unwrap();
    let e = eval(
        &mut dc,
        &format!("GsTlsPublicKey newFromPemFile: '{}'", file.display()),
    )
    .unwrap_err();
    assert!(
        e.contains("not a PEM public key") && !e.contains("do-not-show-me"),
        "{e}"
    );
}
