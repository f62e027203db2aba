//! The repository side of [`Session`]: creating a repository, logging in to
//! it, the transaction (commit, abort, continue), logging out, its users, and
//! the maintenance a session may start (garbage collection, kernel repair).
//! The machinery behind each is the persistence layer's (`crate::persist`);
//! this is its public face.

use std::path::Path;

use gsmcp_store::{LoginOptions, Repository, StoreError};

use super::Session;
use crate::image::bootstrap;
use crate::interp::{Interrupter, StError};
use crate::persist::{
    self, collect_garbage, creation_path, remove_repository_files, remove_stale_creations,
    security, store_err, GarbageReport, KernelRepair, Missing, PersistError, Proof,
    TransactionMark, DEFAULT_PASSWORD, DEVELOPER_USER, REPOSITORY_GS, SYSTEM_USER,
};

impl Session {
    /// Creates a repository file at `path` holding the bootstrapped kernel and
    /// the users DataCurator, SystemUser and Developer (password `swordfish`), as
    /// commit 1.
    /// Fails if a file exists there.
    pub fn create_repository(path: &Path) -> Result<(), StError> {
        if path.exists() {
            return Err(store_err(StoreError::AlreadyExists {
                path: path.to_path_buf(),
            }));
        }
        // Made aside and put in place only once the kernel is committed, so a
        // crash part way leaves no half-made repository at `path`.
        let temp = creation_path(path);
        remove_stale_creations(path);
        remove_repository_files(&temp);
        let made = Repository::create(&temp)
            .map_err(store_err)
            .and_then(|repo| Self::populate(&repo));
        let published = made.and_then(|()| {
            // the last connection is closed: the file holds every commit
            std::fs::hard_link(&temp, path).map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    store_err(StoreError::AlreadyExists {
                        path: path.to_path_buf(),
                    })
                } else {
                    PersistError::Create(format!("cannot put {} in place: {e}", path.display()))
                        .into()
                }
            })
        });
        remove_repository_files(&temp);
        published
    }

    /// The kernel a new repository is made with: the bootstrap and the
    /// repository's additions, which are the kernel's too.
    fn shipped() -> Result<Session, StError> {
        let mut s = Session::bootstrap()?;
        s.file_in(REPOSITORY_GS)?;
        s.vm_mut().mark_kernel_classes();
        Ok(s)
    }

    fn populate(repo: &Repository) -> Result<(), StError> {
        let mut s = Session::shipped()?;
        let mut store = repo
            .login(LoginOptions::new().label("create"))
            .map_err(store_err)?;
        let writes = s.run_on_eval_thread(|vm| persist::creation_writes(vm, &mut store))??;
        store
            .commit(writes.into_iter().map(|(o, b)| (o, Some(b))))
            .map_err(store_err)?;
        store.logout().map_err(store_err)?;
        Ok(())
    }

    /// Creates the repository at `path` unless a file exists there (another
    /// process may be creating it at this moment: [`Session::login`] waits for
    /// that). Answers whether this call created it.
    pub fn create_repository_if_missing(path: &Path) -> Result<bool, StError> {
        if path.exists() {
            return Ok(false);
        }
        match Session::create_repository(path) {
            Ok(()) => Ok(true),
            Err(_) if path.exists() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Logs in to the repository at `path` as `user`, checking the password,
    /// with a view of the latest commit.
    pub fn login(path: &Path, user: &str, password: &str) -> Result<Session, StError> {
        match Self::open(path, user, Proof::Password(password)) {
            Err(Missing::User) if security::adds_developer(user, password) => {
                // a repository made before the developer user existed gets it
                // once, as the repository's creation would have made it
                let mut admin =
                    Self::open(path, SYSTEM_USER, Proof::Internal).map_err(Missing::into_error)?;
                admin.create_user(DEVELOPER_USER, DEFAULT_PASSWORD, false)?;
                // a conflict: another login added it at the same moment
                let _ = admin.commit_transaction()?;
                admin.logout()?;
                Self::open(path, user, Proof::Password(password)).map_err(Missing::into_error)
            }
            r => r.map_err(Missing::into_error),
        }
    }

    /// Logs in to the repository at `path` as `user` with a one-time login
    /// ticket instead of a password (`persist::tickets`): the ticket must have
    /// been made for this user with the key beside the repository, must not
    /// have expired, and logs in once. The repository's users are not created
    /// here: a user it lacks is refused, naming it.
    pub fn login_with_ticket(path: &Path, user: &str, ticket: &str) -> Result<Session, StError> {
        Self::open(path, user, Proof::Ticket(ticket)).map_err(Missing::into_error)
    }

    /// Logs in to the repository at `path` as `user` with a JSON Web Token
    /// instead of a password (`persist::jwt`): the user must be enabled for
    /// JWT logins, and the token signed by a key the repository trusts and
    /// say what the user's JWT settings require. A user the repository lacks
    /// is refused as for a wrong password.
    pub fn login_with_jwt(path: &Path, user: &str, token: &str) -> Result<Session, StError> {
        Self::open(path, user, Proof::Jwt(token)).map_err(Missing::into_error)
    }

    /// Logs in as `user`, checking `proof` (none for the repository's own
    /// upgrade, above).
    fn open(path: &Path, user: &str, proof: Proof<'_>) -> Result<Session, Missing> {
        // a repository is put in place whole (`create_repository`): one with
        // no kernel was left by a crash or another program, and waiting will
        // not fill it
        let opened = persist::open_store(path, user, proof)?;
        let interrupter = Interrupter::default();
        let vm = Box::new(bootstrap::new_vm(
            interrupter.clone(),
            bootstrap::DEFAULT_MEMORY_LIMIT,
        ));
        let mut session = Session::from_vm(interrupter, vm);
        // Loading is iterative (no deep recursion), so it runs on the calling
        // thread: starting the interpreter's thread (a 512 MiB stack mapped and
        // unmapped) cost 0.1 ms on a quiet machine and 4 ms on a busy one.
        session.run_on_caller_thread(true);
        let loaded = session.run_on_eval_thread(move |vm| persist::load_login(vm, opened));
        session.run_on_caller_thread(false);
        loaded??;
        Ok(session)
    }

    /// Whether this session is backed by a repository.
    pub fn is_persistent(&self) -> bool {
        self.vm_ref().has_repository()
    }

    /// `System commitTransaction`: `Ok(true)` when committed, `Ok(false)` on a
    /// write-write conflict (the session then refuses commits until it aborts).
    /// In an in-memory image it is the image's own `System commitTransaction`.
    pub fn commit_transaction(&mut self) -> Result<bool, StError> {
        if !self.is_persistent() {
            return Ok(self.evaluate_print_string("System commitTransaction")? == "true");
        }
        self.run_on_eval_thread(|vm| vm.repo_commit())?
            .map_err(StError::from)
    }

    /// `System abortTransaction`: discards this session's changes and moves the
    /// view to the latest commit.
    /// In an in-memory image it is the image's own `System abortTransaction`.
    pub fn abort_transaction(&mut self) -> Result<(), StError> {
        if !self.is_persistent() {
            return self
                .evaluate_print_string("System abortTransaction")
                .map(|_| ());
        }
        self.run_on_eval_thread(|vm| vm.repo_abort())?
            .map_err(StError::from)
    }

    /// Whether a commit of this session failed, so that only an abort clears
    /// it (commit and `continueTransaction` are refused until then); `false`
    /// in memory.
    pub fn must_abort(&self) -> bool {
        self.vm_ref().repo().is_some_and(|r| r.must_abort())
    }

    /// `System continueTransaction`: moves the view keeping this session's changes.
    /// An in-memory image has no other sessions, so its view never moves.
    pub fn continue_transaction(&mut self) -> Result<(), StError> {
        if !self.is_persistent() {
            return Ok(());
        }
        self.run_on_eval_thread(|vm| vm.repo_continue())?
            .map_err(StError::from)
    }

    /// Logs out: the session's view is released (uncommitted changes are lost).
    /// A garbage collection this session started is waited for, and then what
    /// it deleted is pruned (this session's view pinned it).
    pub fn logout(mut self) -> Result<(), StError> {
        match self.vm_mut().take_repo() {
            Some(r) => r.logout(),
            None => Ok(()),
        }
    }

    /// Where this session's transaction stands: its view (the commit it reads
    /// at) and how many times it has aborted. Comparing two marks tells a caller
    /// whether code it ran moved the view (`System commitTransaction`,
    /// `continueTransaction`, `abortTransaction`) and whether it discarded the
    /// session's changes (an abort, even one that left the view where it was).
    /// `None` in memory, where there is no view to move.
    pub fn transaction_mark(&self) -> Option<TransactionMark> {
        self.vm_ref().repo().map(|r| r.transaction_mark())
    }

    /// A thread-safe reader of how many commits this session's view is behind
    /// the latest, for the worker's router-facing side; `None` in memory.
    #[allow(clippy::type_complexity)]
    pub fn commits_behind_reader(&self) -> Option<Box<dyn Fn() -> Option<u64> + Send + Sync>> {
        let read = self.view_reader()?;
        Some(Box::new(move || read().map(|(_, behind)| behind)))
    }

    /// A thread-safe reader of this session's view (the commit it reads at)
    /// and how many commits it is behind the latest, from one reading;
    /// `None` in memory.
    #[allow(clippy::type_complexity)]
    pub fn view_reader(&self) -> Option<Box<dyn Fn() -> Option<(u64, u64)> + Send + Sync>> {
        let watch = self.vm_ref().repo()?.watch();
        Some(Box::new(move || {
            let view = watch.view();
            let latest = watch.latest_commit().ok()?;
            Some((view, latest.saturating_sub(view)))
        }))
    }

    /// The repository user this session logged in as (`None` in memory).
    pub fn repository_user(&self) -> Option<String> {
        self.vm_ref().repo().map(|r| r.user_id().to_string())
    }

    /// Methods that no longer compiled when this session loaded them.
    pub fn load_warnings(&self) -> Vec<String> {
        self.vm_ref()
            .repo()
            .map(|r| r.warnings().to_vec())
            .unwrap_or_default()
    }

    /// Creates a user (written at the next commit). Only DataCurator and
    /// SystemUser may create users.
    pub fn create_user(
        &mut self,
        user: &str,
        password: &str,
        commit_disabled: bool,
    ) -> Result<(), StError> {
        let (u, p) = (user.to_string(), password.to_string());
        self.run_on_eval_thread(move |vm| vm.repo_add_user(&u, &p, commit_disabled).map(|_| ()))?
            .map_err(StError::from)
    }
}

impl Session {
    /// Collects the garbage of this session's repository now, on the calling
    /// thread (the session itself is not touched; see the module doc).
    pub fn collect_repository_garbage(&self) -> Result<GarbageReport, StError> {
        let path = self
            .vm_ref()
            .repo()
            .map(|r| r.path().to_path_buf())
            .ok_or_else(|| {
                StError::from(PersistError::NotPermitted(
                    "collecting garbage needs a repository; this session is in memory".into(),
                ))
            })?;
        collect_garbage(&path)
    }
}

impl Session {
    /// Restores the shipped kernel into the repository at `path` (see the
    /// module doc), as SystemUser, and commits it unless `dry_run`. Anyone
    /// who may write the file may do as much; this needs no password.
    pub fn repair_kernel(path: &std::path::Path, dry_run: bool) -> Result<KernelRepair, StError> {
        let mut fresh = Session::shipped()?;
        let shipped = std::sync::Arc::new(fresh.run_on_eval_thread(|vm| vm.shipped_kernel())?);
        drop(fresh);
        let mut admin =
            Session::open(path, SYSTEM_USER, Proof::Internal).map_err(|m| m.into_error())?;
        // kernel classes a repository made by an earlier build lacks are
        // defined first, so the repair below gives them their methods
        let (missing, mut early) = {
            let shipped = shipped.clone();
            admin.run_on_eval_thread(move |vm| {
                let mut early = KernelRepair::default();
                let missing = vm.missing_kernel_classes(&shipped, &mut early);
                (missing, early)
            })?
        };
        for (name, definition) in missing {
            match admin.evaluate_print_string(&definition) {
                Ok(_) => {
                    let adopted = {
                        let name = name.clone();
                        admin.run_on_eval_thread(move |vm| vm.adopt_kernel_class(&name))?
                    };
                    if adopted {
                        early.classes.push(name);
                    } else {
                        early
                            .not_restored
                            .push(format!("the kernel class {name} could not be defined"));
                    }
                }
                Err(e) => early.not_restored.push(format!(
                    "the kernel class {name} could not be defined: {}",
                    e.message_text.unwrap_or(e.description)
                )),
            }
        }
        let mut report = admin.run_on_eval_thread(move |vm| vm.repair_kernel(&shipped))??;
        report.classes = early.classes;
        report.not_restored.splice(0..0, early.not_restored);
        if dry_run || report.is_clean() {
            admin.abort_transaction()?;
        } else if admin.commit_transaction()? {
            report.committed = true;
        } else {
            return Err(PersistError::NotPermitted(
                "the repair conflicts with a commit another session made meanwhile: run it again"
                    .into(),
            )
            .into());
        }
        admin.logout()?;
        Ok(report)
    }
}
