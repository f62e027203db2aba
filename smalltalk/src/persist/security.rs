//! Who may change the kernel. In GemStone the kernel's objects belong to
//! SystemUser (the SystemObjectSecurityPolicy) and a user without write
//! authorization for them gets a SecurityError at the write. The embedded
//! stone does the same with one flag and one guard bit: at login (and after
//! every refresh) the kernel's objects are flagged `F_KERNEL` — the classes
//! and metaclasses the repository was created with, Globals and each of its
//! bindings, the user profiles, and each UserGlobals' binding of itself — and
//! a login by a user other than SystemUser and DataCurator carries `F_KERNEL`
//! in the heap's guard, so the write barrier refuses every store into them
//! (`execute_code` included: the barrier is below every path).
//!
//! One narrow rule lets such a user extend the kernel: a method may be added
//! to a kernel class under a selector for which the class neither defines
//! nor inherits a method of the shipped kernel, and such an extension method
//! may later be changed, recategorised or removed; the kernel's own methods
//! may not be replaced, removed or overridden in a kernel subclass. (GemStone
//! reaches the same end by other means — a developer login with write
//! authorization, or methods kept outside the class — none of which the
//! embedded stone has.) A kernel method is one whose repository OOP comes
//! from the repository's creation (below the kernel record's bound) or that
//! a kernel repair compiled (`repair`, the record's `%` entries); in a
//! repository made before the record kept a bound, every stored method of a
//! kernel class counts as the kernel's.
//!
//! This module owns the flags, the rule and the names of the users; the
//! barrier (`heap`) enforces it and `prims` turns a refusal into the
//! SecurityError.

use crate::interp::Vm;
use crate::object::heap::F_KERNEL;
use crate::object::value::{Oop, Value};

use super::{DEFAULT_PASSWORD, DEFAULT_USER, SYSTEM_USER};

/// The login the server's workers use by default: a developer, who may
/// define classes and methods in its own and the shared dictionaries and add
/// extension methods to kernel classes, but not change the kernel.
pub const DEVELOPER_USER: &str = "Developer";

/// Whether `user` has the privilege to change the kernel (GemStone's
/// administrators, kept for administration with topaz).
pub fn may_change_kernel(user: &str) -> bool {
    user == SYSTEM_USER || user == DEFAULT_USER
}

/// Whether a failed login as `user` with `password` is the first login of
/// the developer, in a repository made before it existed: the login adds it
/// (with the password every new repository gives it) and goes on.
pub(crate) fn adds_developer(user: &str, password: &str) -> bool {
    user == DEVELOPER_USER && password == DEFAULT_PASSWORD
}

impl Vm {
    /// Flags the kernel's objects in memory and, for an unprivileged user,
    /// guards them. Idempotent; cheap (the kernel classes and Globals'
    /// bindings), so it runs after every refresh, which may bring new
    /// bindings into Globals.
    pub(crate) fn protect_kernel(&mut self, privileged: bool) {
        let mut flagged: Vec<Oop> = self.roots.kernel.iter().copied().collect();
        flagged.push(self.roots.globals);
        flagged.push(self.roots.user_profile);
        if let Some(es) = self.dict_entries(Value::Obj(self.roots.globals)) {
            flagged.extend(es.into_iter().map(|(_, a)| a));
        }
        if let Some(own) = self
            .heap
            .find_symbol("UserGlobals")
            .and_then(|k| self.dict_assoc(Value::Obj(self.roots.user_globals), Value::Obj(k)))
        {
            flagged.push(own);
        }
        for o in flagged {
            self.heap.set_flags_quiet(o, F_KERNEL, 0);
        }
        if privileged {
            self.heap.guard &= !F_KERNEL;
        } else {
            self.heap.guard |= F_KERNEL;
        }
    }

    /// Whether this session may write `class`'s method for `selector` past
    /// the kernel guard: `class` is a guarded kernel class and the method a
    /// send of `selector` to its instances finds (its own or inherited), if
    /// any, is an extension, not the kernel's own — so an extension neither
    /// replaces a kernel method nor overrides one it inherits. False also
    /// when no guard stands in the way (the write needs no help).
    pub(crate) fn extends_kernel(&mut self, class: Oop, selector: Oop) -> bool {
        if !self.heap.refuses_for(class, F_KERNEL) {
            return false;
        }
        let mut c = Some(class);
        while let Some(k) = c {
            self.ensure_methods(k);
            let Some(d) = self.heap.class_data(k) else {
                return false;
            };
            if let Some(&m) = d.methods.get(&selector) {
                return !(self.roots.kernel.contains(&k) && self.is_kernel_method(m));
            }
            c = d.superclass;
        }
        true
    }

    /// Whether method object `m` is one the repository was created with.
    fn is_kernel_method(&self, m: Oop) -> bool {
        let Some(repo) = self.repo() else {
            return false;
        };
        match repo.map.store_of(self, m) {
            Some(s) => s < repo.kernel_bound || repo.kernel_methods.contains(&s),
            // made in this session: not yet stored, so not the kernel's
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Session;
    use crate::persist::users::{Users, SECURITY_OOP};
    use gsmcp_store::{LoginOptions, Repository};

    /// A repository made before the developer user existed (its security
    /// record holds DataCurator and SystemUser only) gets it at the
    /// developer's first login, once; a wrong password adds nothing.
    #[test]
    fn an_older_repository_gains_the_developer_at_its_first_login() {
        let dir = std::env::temp_dir().join(format!("gsmcp-dev-upgrade-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("old.db");
        Session::create_repository(&path).unwrap();
        {
            let repo = Repository::open(&path).unwrap();
            let mut store = repo.login(LoginOptions::new()).unwrap();
            let mut users = Users::decode(&store.read(SECURITY_OOP).unwrap().unwrap()).unwrap();
            users.0.retain(|u| u.user_id != DEVELOPER_USER);
            assert_eq!(users.0.len(), 2);
            store
                .commit([(SECURITY_OOP, Some(users.encode()))])
                .unwrap();
            store.logout().unwrap();
        }
        let denied = Session::login(&path, DEVELOPER_USER, "not-the-password").map(|_| ());
        assert_eq!(denied.unwrap_err().number, 4051);
        let mut s = Session::login(&path, DEVELOPER_USER, DEFAULT_PASSWORD).unwrap();
        assert_eq!(s.repository_user().as_deref(), Some(DEVELOPER_USER));
        let err = s
            .evaluate_print_string("Globals at: #Object put: nil")
            .unwrap_err();
        assert_eq!(
            (err.class_name.as_str(), err.number),
            ("SecurityError", 2108)
        );
        s.logout().unwrap();
        let repo = Repository::open(&path).unwrap();
        let store = repo.login(LoginOptions::new()).unwrap();
        let users = Users::decode(&store.read(SECURITY_OOP).unwrap().unwrap()).unwrap();
        assert_eq!(
            users
                .0
                .iter()
                .filter(|u| u.user_id == DEVELOPER_USER)
                .count(),
            1
        );
        store.logout().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_the_administrators_may_change_the_kernel() {
        for (user, may) in [
            (SYSTEM_USER, true),
            (DEFAULT_USER, true),
            (DEVELOPER_USER, false),
            ("reader", false),
            ("datacurator", false),
        ] {
            assert_eq!(may_change_kernel(user), may, "{user}");
        }
    }
}
