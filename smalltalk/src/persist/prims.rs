//! The Smalltalk face of a repository session: primitives 313..=316 (System
//! commitTransaction, abortTransaction, inTransaction, needsCommit) replaced for
//! repository-backed sessions, and 380..=399 (continueTransaction,
//! transactionConflicts, transactionMode, AllUsers, JSON Web Token logins and
//! the keys they are verified with). Failures are signalled as Smalltalk
//! exceptions (TransactionError 2409/2407, ImproperOperation 2717,
//! ArgumentError), never panics.

use super::jwt;
use super::users::JwtPolicy;
use super::PersistError;
use crate::interp::primitive::P;
use crate::interp::Vm;
use crate::object::heap::Body;
use crate::object::known::exc;
use crate::object::primitives::*;
use crate::object::value::Value;

impl Vm {
    /// Dispatches a repository primitive; `Ok(None)` lets the method's fallback code run.
    pub(crate) fn persist_prim(&mut self, n: u16, rp: usize, argc: usize) -> P {
        let arg = |vm: &Vm, i: usize| {
            if i < argc {
                vm.stack[rp + 1 + i]
            } else {
                Value::Nil
            }
        };
        // keys are read the same with a repository or without
        match n {
            TLS_PUBLIC_KEY_KIND => {
                let Some(pem) = self.string_of(arg(self, 0)) else {
                    return Ok(None);
                };
                return match jwt::PublicKey::from_pem(&pem) {
                    Ok(key) => Ok(Some(self.sym(key.kind))),
                    Err(e) => self.signal_argument(&e),
                };
            }
            TLS_PUBLIC_KEY_FILE => {
                let Some(path) = self.string_of(arg(self, 0)) else {
                    return Ok(None);
                };
                if self.repo().is_some_and(|r| !r.privileged) {
                    return self.signal_persist(PersistError::NotPermitted(
                        "only an administrator (SystemUser, DataCurator) reads key files on the \
                         stone's host; others use GsTlsPublicKey newFromPemString:"
                            .into(),
                    ));
                }
                return match read_key_file(&path) {
                    Ok(text) => Ok(Some(self.new_string(&text))),
                    Err(e) => self.signal_argument(&e),
                };
            }
            _ => {}
        }
        if !self.has_repository() {
            // in-memory image: the Smalltalk fallback code answers
            return Ok(None);
        }
        match n {
            SYSTEM_COMMIT_TRANSACTION if !self.may_commit() => {
                self.signal_persist(PersistError::CommitDisabled)
            }
            SYSTEM_COMMIT_TRANSACTION => match self.repo_commit() {
                Ok(b) => Ok(Some(Value::bool(b))),
                Err(e) => self.signal_persist(e),
            },
            SYSTEM_ABORT_TRANSACTION => match self.repo_abort() {
                Ok(()) => Ok(Some(Value::True)),
                Err(e) => self.signal_persist(e),
            },
            SYSTEM_IN_TRANSACTION => Ok(Some(Value::True)),
            SYSTEM_NEEDS_COMMIT => Ok(Some(Value::bool(self.repo_needs_commit()))),
            SYSTEM_CONTINUE_TRANSACTION => {
                if self.repo().is_some_and(|r| r.store.must_abort()) {
                    return self.signal_persist(PersistError::Store(
                        gsmcp_store::StoreError::CommitRefused,
                    ));
                }
                match self.repo_continue() {
                    Ok(()) => Ok(Some(Value::True)),
                    Err(e) => self.signal_persist(e),
                }
            }
            SYSTEM_TRANSACTION_CONFLICTS => Ok(Some(self.transaction_conflicts())),
            SYSTEM_TRANSACTION_MODE => Ok(Some(self.sym("autoBegin"))),
            USERS_ADD_USER | USERS_ADD_USER_COMMIT_DISABLED => {
                let (Some(user), Some(password)) =
                    (self.string_of(arg(self, 0)), self.string_of(arg(self, 1)))
                else {
                    return Ok(None);
                };
                let disabled = match (n, arg(self, 2)) {
                    (USERS_ADD_USER, _) => false,
                    (_, Value::True) => true,
                    (_, Value::False) => false,
                    _ => return Ok(None),
                };
                match self.repo_add_user(&user, &password, disabled) {
                    Ok(p) => Ok(Some(Value::Obj(p))),
                    Err(e) => self.signal_persist(e),
                }
            }
            USERS_USER_IDS => {
                let ids: Vec<String> = self
                    .repo()
                    .map(|r| r.users.0.iter().map(|u| u.user_id.clone()).collect())
                    .unwrap_or_default();
                let items = ids.iter().map(|s| self.new_string(s)).collect();
                Ok(Some(self.new_array(items)))
            }
            USER_ENABLE_JWT => {
                let Some(user) = self.string_of(arg(self, 0)) else {
                    return Ok(None);
                };
                let Some(key) = self.string_of(arg(self, 1)) else {
                    return Ok(None);
                };
                let mut lists = Vec::with_capacity(3);
                for i in 2..5 {
                    let Some(items) = self.strings_of(arg(self, i)) else {
                        return Ok(None);
                    };
                    lists.push(items);
                }
                let audiences = lists.pop().unwrap_or_default();
                let issuers = lists.pop().unwrap_or_default();
                let user_ids = lists.pop().unwrap_or_default();
                let policy = JwtPolicy {
                    user_id_key: key,
                    user_ids,
                    issuers,
                    audiences,
                };
                match self.repo_enable_jwt(&user, policy) {
                    Ok(()) => Ok(Some(arg(self, 0))),
                    Err(e) => self.signal_persist(e),
                }
            }
            SYSTEM_ADD_JWT_KEY | SYSTEM_REMOVE_JWT_KEY => {
                // addJwtKey: pem withId: kid, or removeJwtKeyWithId: kid
                let (kid, pem) = if n == SYSTEM_ADD_JWT_KEY {
                    (arg(self, 1), Some(arg(self, 0)))
                } else {
                    (arg(self, 0), None)
                };
                let Some(kid) = self.string_of(kid) else {
                    return Ok(None);
                };
                let pem = match pem.map(|p| self.string_of(p)) {
                    Some(None) => return Ok(None),
                    p => p.flatten(),
                };
                match self.repo_change_key(&kid, pem.as_deref()) {
                    Ok(Ok(())) => Ok(Some(Value::True)),
                    Ok(Err(why)) => self.signal_argument(&why),
                    Err(e) => self.signal_persist(e),
                }
            }
            SYSTEM_JWT_KEYS => {
                let keys = match self.repo_state().store.trusted_keys() {
                    Ok(k) => k,
                    Err(e) => return self.signal_persist(e.into()),
                };
                let items = keys
                    .iter()
                    .flat_map(|(kid, pem)| [kid, pem])
                    .map(|s| self.new_string(s))
                    .collect();
                Ok(Some(self.new_array(items)))
            }
            USERS_USER_WITH_ID => {
                let Some(user) = self.string_of(arg(self, 0)) else {
                    return Ok(None);
                };
                match self.repo_user_profile(&user) {
                    Ok(p) => Ok(Some(p.map(Value::Obj).unwrap_or(Value::Nil))),
                    Err(e) => self.signal_persist(e),
                }
            }
            _ => Ok(None),
        }
    }

    /// `System transactionConflicts`: #commitResult and, after a failed
    /// commit, #'Write-Write' → the conflicting objects (those in memory) and
    /// #'Write-Write-OOPs' → their repository OOPs.
    fn transaction_conflicts(&mut self) -> Value {
        let conflicts = self.repo().and_then(|r| r.conflicts.clone());
        let d = self
            .heap
            .alloc(self.k.symbol_dictionary, Body::Dict(Box::default()));
        let result = match &conflicts {
            None => "none",
            Some(c) if c.is_empty() => "success",
            Some(_) => "failure",
        };
        let (k, v) = (self.sym("commitResult"), self.sym(result));
        self.dict_at_put(d, k, v);
        if let Some(oops) = conflicts.filter(|c| !c.is_empty()) {
            let objects: Vec<Value> = {
                let repo = self.repo().expect("repository session");
                oops.iter()
                    .filter_map(|&s| repo.map.heap_of(self, s))
                    .map(Value::Obj)
                    .collect()
            };
            let arr = self.new_array(objects);
            let k = self.sym("Write-Write");
            self.dict_at_put(d, k, arr);
            let nums = self.new_array(oops.iter().map(|&s| Value::Int(s as i64)).collect());
            let k = self.sym("Write-Write-OOPs");
            self.dict_at_put(d, k, nums);
        }
        Value::Obj(d)
    }

    /// Signals an ArgumentError saying `why`.
    fn signal_argument(&mut self, why: &str) -> P {
        let ex = self.new_exception(self.k.argument_error, Some(why), None);
        self.signal(ex).map(Some)
    }

    /// The Strings of an Array of Strings or Symbols, or None.
    fn strings_of(&mut self, v: Value) -> Option<Vec<String>> {
        let items = self.array_items(v)?;
        items.into_iter().map(|i| self.string_of(i)).collect()
    }

    /// Signals a repository failure: TransactionError 2409 (refused commit,
    /// store failure) or 2407 (uncommittable object); ImproperOperation 2717
    /// for refused user administration.
    fn signal_persist(&mut self, e: PersistError) -> P {
        let transaction_error = self.repo().map(|r| r.transaction_error);
        let (class, number): (_, i64) = match &e {
            PersistError::NotCommittable(_) => (transaction_error, 2407),
            // refused user administration is not a transaction failure
            PersistError::NotPermitted(_) => (Some(self.k.improper_operation), 2717),
            _ => (transaction_error, 2409),
        };
        let class = class.unwrap_or(self.k.error);
        let text = e.to_string();
        let ex = self.new_exception(class, Some(&text), None);
        if let Value::Obj(o) = ex {
            self.heap.store(o, exc::NUMBER, Value::Int(number));
        }
        self.signal(ex).map(Some)
    }
}

/// The text of the key file at `path`: at most [`jwt::MAX_KEY`] bytes, and a
/// PEM public key (never echoed when it is not, so no other file's content
/// reaches a client).
fn read_key_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
    let mut text = String::new();
    file.take(jwt::MAX_KEY as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|_| format!("{path} is not a PEM public key"))?;
    jwt::PublicKey::from_pem(&text).map_err(|e| format!("{path}: {e}"))?;
    Ok(text)
}
