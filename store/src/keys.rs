//! The repository's trusted signing keys: the public keys, each under a key
//! id, that the stone verifies JSON Web Token logins with (`System
//! addJwtKey:withId:`). They are not objects: a GemStone stone keeps them
//! outside every transaction, visible to every session at once and unaffected
//! by an abort, and so does this table (made on first use, so a file written
//! before it existed needs no migration). Unlike a stone's memory the file
//! keeps them across restarts; they go only when removed.

use rusqlite::{Connection, OptionalExtension};

use crate::error::{Result, SqlContext};
use crate::session::StoreSession;

const KEYS: &str = "
CREATE TABLE IF NOT EXISTS trusted_keys (
    kid TEXT PRIMARY KEY,
    key TEXT NOT NULL
) WITHOUT ROWID;
";

fn table(conn: &Connection, busy_ms: u64) -> Result<()> {
    conn.execute_batch(KEYS)
        .ctx("making the trusted-key table", busy_ms)
}

impl StoreSession {
    /// Every trusted key as (key id, key text), ordered by key id: as they
    /// are now, whatever this session's view.
    pub fn trusted_keys(&self) -> Result<Vec<(String, String)>> {
        let busy_ms = self.busy_ms();
        self.shared().with_conn(|c| {
            table(c, busy_ms)?;
            let mut st = c
                .prepare("SELECT kid, key FROM trusted_keys ORDER BY kid")
                .ctx("reading the trusted keys", busy_ms)?;
            let rows = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .ctx("reading the trusted keys", busy_ms)?;
            rows.collect::<std::result::Result<Vec<_>, _>>()
                .ctx("reading the trusted keys", busy_ms)
        })
    }

    /// The trusted key `kid`, if there is one.
    pub fn trusted_key(&self, kid: &str) -> Result<Option<String>> {
        let busy_ms = self.busy_ms();
        self.shared().with_conn(|c| {
            table(c, busy_ms)?;
            c.query_row("SELECT key FROM trusted_keys WHERE kid = ?1", [kid], |r| {
                r.get(0)
            })
            .optional()
            .ctx("reading a trusted key", busy_ms)
        })
    }

    /// Trusts `key` under `kid` at once, for every session. Answers false,
    /// changing nothing, when `kid` names a key already.
    pub fn add_trusted_key(&self, kid: &str, key: &str) -> Result<bool> {
        let busy_ms = self.busy_ms();
        self.shared().with_conn(|c| {
            table(c, busy_ms)?;
            let n = c
                .execute(
                    "INSERT OR IGNORE INTO trusted_keys (kid, key) VALUES (?1, ?2)",
                    [kid, key],
                )
                .ctx("adding a trusted key", busy_ms)?;
            Ok(n == 1)
        })
    }

    /// Stops trusting the key `kid` at once. Answers whether there was one.
    pub fn remove_trusted_key(&self, kid: &str) -> Result<bool> {
        let busy_ms = self.busy_ms();
        self.shared().with_conn(|c| {
            table(c, busy_ms)?;
            let n = c
                .execute("DELETE FROM trusted_keys WHERE kid = ?1", [kid])
                .ctx("removing a trusted key", busy_ms)?;
            Ok(n == 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{LoginOptions, Repository};

    #[test]
    fn keys_are_shared_at_once_and_outlive_an_abort() {
        let dir = std::env::temp_dir().join(format!("gsmcp-keys-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("keys.db");
        let repo = Repository::create(&path).unwrap();
        let mut a = repo.login(LoginOptions::new()).unwrap();
        let b = repo.login(LoginOptions::new()).unwrap();
        assert!(a.trusted_keys().unwrap().is_empty());
        assert!(a.add_trusted_key("k1", "PEM one").unwrap());
        assert!(
            !a.add_trusted_key("k1", "PEM two").unwrap(),
            "a kid is added once"
        );
        a.abort().unwrap();
        assert_eq!(b.trusted_key("k1").unwrap().as_deref(), Some("PEM one"));
        assert!(b.add_trusted_key("k0", "PEM zero").unwrap());
        let all = a.trusted_keys().unwrap();
        let kids: Vec<&str> = all.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(kids, ["k0", "k1"]);
        assert!(a.remove_trusted_key("k1").unwrap());
        assert!(!a.remove_trusted_key("k1").unwrap());
        assert_eq!(b.trusted_key("k1").unwrap(), None);
        drop((a, b, repo));
        let again = Repository::open(&path).unwrap();
        let s = again.login(LoginOptions::new()).unwrap();
        assert_eq!(s.trusted_key("k0").unwrap().as_deref(), Some("PEM zero"));
        drop((s, again));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
