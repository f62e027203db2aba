//! The persistent repository of the embedded stone: the state a login attaches
//! to its `Vm` and the operations the engine reaches it through (methods made
//! resident and compiled on first use), and GemStone's transaction messages for
//! a repository-backed session (commit, abort, continue, conflicts,
//! needsCommit); `login` makes a new repository and loads a login, whose
//! public face is `Session` (`api::repository`). It joins the object memory (`heap`,
//! through its write barrier's dirty list) to the store (`gsmcp-store`, which
//! owns versions, views and conflict detection). See `PERSISTENCE.md`.
//!
//! Code map: `codec` (record bytes), `image` (heap ↔ records, OOP mapping,
//! loading and refreshing), `users` (credentials), `login` (creation and
//! login), `security` (who may change the kernel), `repair`, `collect`
//! (garbage collection), `prims` (the Smalltalk primitives). This module must not interpret Smalltalk itself beyond running
//! the repository's own file-in, and must never log or keep a plain password.

mod codec;
mod collect;
mod image;
pub mod jwt;
mod login;
mod prims;
mod repair;
pub(crate) mod security;
pub mod tickets;
pub(crate) mod users;

use std::path::{Path, PathBuf};

use gsmcp_store::{Repository, StoreError, StoreSession};

use crate::interp::repository::RepositoryOps;
use crate::interp::Vm;
use crate::interp::{ErrorKind, StError};
use crate::object::heap::Body;
use crate::object::value::{FxHashMap, FxHashSet, Oop, Value};
use codec::{CodecError, Reader, Writer};
use image::{clear_dirty, collect_writes, Loader, OopMap, PendingMethod, Prefetched};
use users::{JwtPolicy, UserRecord, Users, SECURITY_OOP};

pub use collect::{collect_garbage, GarbageReport};
pub(crate) use login::{creation_writes, load_login, open_store, Proof};
pub use repair::KernelRepair;
pub use security::DEVELOPER_USER;

/// The reserved OOP of the kernel record: which stored objects are the
/// bootstrap classes and the shared dictionaries.
pub(crate) const KERNEL_OOP: u64 = 1;
const KERNEL_FORMAT: u8 = 1;

/// The default login of a new repository, and its password, as in GemStone.
pub const DEFAULT_USER: &str = "DataCurator";
pub const DEFAULT_PASSWORD: &str = "swordfish";
/// The administrator, created with the same password.
pub const SYSTEM_USER: &str = "SystemUser";

/// The repository's additions to the kernel, filed in when it is created.
pub(crate) const REPOSITORY_GS: &str = include_str!("repository.gs");

/// Why a repository operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PersistError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("repository holds an undecodable object: {0}")]
    Corrupt(String),
    #[error("login failed: the user id or password is not valid")]
    LoginDenied,
    #[error("login failed: {0}")]
    LoginRefused(String),
    #[error(
        "login failed: the repository has no user {0}; an administrator adds it \
         (AllUsers addNewUserWithId:password:) and commits"
    )]
    NoSuchUser(String),
    #[error("{0}")]
    NotCommittable(String),
    #[error("cannot create the repository: {0}")]
    Create(String),
    #[error("{0}")]
    NotPermitted(String),
    #[error(
        "commit refused: {0} is a read-only (commit-disabled) user; it may read and evaluate, \
         and nothing it does can be committed"
    )]
    ReadOnlyUser(String),
    #[error(
        "commit refused: commits are disabled for this evaluation (the server commits only \
         through its own commit operation); the session's changes are kept, uncommitted"
    )]
    CommitDisabled,
    #[error(
        "the repository file {0} is an empty file, or one whose creation was interrupted before \
         the kernel was committed: remove it, and the next login creates it anew, or name \
         another file (MCP_REPOSITORY)"
    )]
    HalfMade(String),
}

impl From<CodecError> for PersistError {
    fn from(e: CodecError) -> PersistError {
        PersistError::Corrupt(e.0)
    }
}

impl From<PersistError> for StError {
    fn from(e: PersistError) -> StError {
        let (number, class_name) = match &e {
            PersistError::Store(StoreError::CommitRefused) => (2409, "TransactionError"),
            PersistError::Store(StoreError::ReadOnly) | PersistError::ReadOnlyUser(_) => {
                (2409, "TransactionError")
            }
            PersistError::NotCommittable(_) => (2407, "TransactionError"),
            PersistError::LoginDenied
            | PersistError::LoginRefused(_)
            | PersistError::NoSuchUser(_) => (4051, "SecurityError"),
            PersistError::NotPermitted(_) => (2717, "ImproperOperation"),
            _ => (4100, "RepositoryError"),
        };
        StError {
            kind: ErrorKind::Runtime,
            number,
            class_name: class_name.into(),
            message_text: Some(e.to_string()),
            description: format!("a {class_name} occurred (error {number}), {e}"),
            offset: None,
            line: None,
        }
    }
}

/// A repository login's state, held by the VM (`Vm::repo`).
pub struct RepoState {
    store: StoreSession,
    map: OopMap,
    users: Users,
    /// Users were created in this transaction: the security record is written at commit.
    users_dirty: bool,
    user_id: String,
    /// Repository OOPs both this session and another commit wrote, after a failed commit.
    conflicts: Option<Vec<u64>>,
    /// The class TransactionError (not among the VM's well-known classes).
    transaction_error: Oop,
    /// The class SecurityError (Error in a repository created before it existed).
    security_error: Oop,
    /// Methods loaded at login whose code is compiled on first use, by method object.
    pending: FxHashMap<Oop, PendingMethod>,
    /// Stored methods that could not be compiled (or read) in this session and
    /// were replaced by stand-ins that signal why. A failure may come from the
    /// session's own state (a global it removed, a symbol list it emptied), so
    /// an abort or a continue turns them back into pending methods, compiled
    /// again on first use against the state the view now shows.
    stand_ins: Vec<PendingMethod>,
    warnings: Vec<String>,
    /// How many times this session has aborted (see [`Session::transaction_mark`]).
    aborts: u64,
    /// Repository OOPs below this were allocated when the repository was
    /// created: the kernel's (`security`). `u64::MAX` in a repository made
    /// before the kernel record kept the bound.
    kernel_bound: u64,
    /// Whether this login may change the kernel (`security::may_change_kernel`).
    privileged: bool,
    /// Repository OOPs of kernel methods a kernel repair compiled (above
    /// `kernel_bound`, the kernel's all the same), from the kernel record.
    kernel_methods: FxHashSet<u64>,
    /// Method objects this session's kernel repair compiled, recorded in the
    /// kernel record at commit (`repair`).
    restored: Vec<Oop>,
    /// Classes (and their metaclasses) this session's kernel repair defined
    /// because the repository predates them, recorded as the kernel's at
    /// commit.
    restored_classes: Vec<Oop>,
    /// The repository file, for the garbage collections this session starts.
    path: PathBuf,
    /// The garbage collection a commit of this session started (`collect`).
    collector: Option<std::thread::JoinHandle<Result<GarbageReport, PersistError>>>,
}

/// How many times a commit is tried again after learning of collections
/// (each time the collected objects it holds become new objects).
const COLLECTED_RETRIES: usize = 8;

impl RepoState {
    /// Logs this session's store out (its view is released). A garbage
    /// collection it started is waited for, and then what it deleted is
    /// pruned (this session's view pinned it).
    pub(crate) fn logout(mut self: Box<Self>) -> Result<(), StError> {
        let collected = self.collector.is_some();
        self.finish_collection(true);
        self.store.logout().map_err(store_err)?;
        if collected {
            // This session's view no longer pins the collection's
            // tombstones and the versions below them. The logout is
            // done whatever the prune answers: one that fails (the
            // write lock busy) leaves them to the next commit's prune.
            let _ = Repository::open(&self.path).and_then(|repo| repo.prune());
        }
        Ok(())
    }

    /// Whether a commit failed and only an abort clears it.
    pub(crate) fn must_abort(&self) -> bool {
        self.store.must_abort()
    }

    /// Where this session's transaction stands (see `Session::transaction_mark`).
    pub(crate) fn transaction_mark(&self) -> TransactionMark {
        TransactionMark {
            view: self.store.view(),
            aborts: self.aborts,
        }
    }

    /// A thread-safe reader of this session's place behind the latest commit.
    pub(crate) fn watch(&self) -> gsmcp_store::ViewWatch {
        self.store.watch()
    }

    /// The repository user this session logged in as.
    pub(crate) fn user_id(&self) -> &str {
        &self.user_id
    }

    /// Methods that no longer compiled when this session loaded them.
    pub(crate) fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The repository file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a garbage collection on a thread of its own, unless one this
    /// session started still runs.
    fn start_collection(&mut self) {
        self.finish_collection(false);
        if self.collector.is_some() {
            return;
        }
        let path = self.path.clone();
        match std::thread::Builder::new()
            .name("gsmcp-collect".into())
            .spawn(move || collect::collect_repository(&path))
        {
            Ok(handle) => self.collector = Some(handle),
            Err(e) => self
                .warnings
                .push(format!("garbage collection not started: {e}")),
        }
    }

    /// Reaps the collection this session started once it has ended (or
    /// waits for it, with `wait`); a failure becomes a load warning.
    fn finish_collection(&mut self, wait: bool) {
        let Some(handle) = self.collector.take() else {
            return;
        };
        if !wait && !handle.is_finished() {
            self.collector = Some(handle);
            return;
        }
        match handle.join() {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => self
                .warnings
                .push(format!("garbage collection failed: {e}")),
            Err(_) => self
                .warnings
                .push("garbage collection failed: its thread panicked".into()),
        }
    }
}

/// A session's view and abort count at one moment ([`Session::transaction_mark`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransactionMark {
    /// The commit the session's view reads.
    pub view: u64,
    /// How many times the session has aborted.
    pub aborts: u64,
}

/// Why [`Session::open`] failed: no such user (which a login reports as a
/// denial, as it does a wrong password), or any other error.
pub(crate) enum Missing {
    User,
    Error(StError),
}

impl Missing {
    pub(crate) fn into_error(self) -> StError {
        match self {
            Missing::User => PersistError::LoginDenied.into(),
            Missing::Error(e) => e,
        }
    }
}

impl<E: Into<StError>> From<E> for Missing {
    fn from(e: E) -> Missing {
        Missing::Error(e.into())
    }
}

/// The bootstrap classes and shared objects by name, as repository OOPs.
pub(crate) struct KernelRecord {
    entries: Vec<(String, u64)>,
}

impl KernelRecord {
    fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(KERNEL_FORMAT);
        w.uv(self.entries.len() as u64);
        for (n, o) in &self.entries {
            w.str(n);
            w.uv(*o);
        }
        w.buf
    }
    fn decode(data: &[u8]) -> Result<KernelRecord, PersistError> {
        let mut r = Reader::new(data);
        let f = r.u8()?;
        if f != KERNEL_FORMAT {
            return Err(PersistError::Corrupt(format!("kernel record format {f}")));
        }
        let n = r.len(2)?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            entries.push((r.str()?, r.oop()?));
        }
        Ok(KernelRecord { entries })
    }
    /// The kernel methods a kernel repair recorded.
    fn methods(&self) -> FxHashSet<u64> {
        self.entries
            .iter()
            .filter(|(n, _)| n == KERNEL_METHOD)
            .map(|&(_, o)| o)
            .collect()
    }
    fn get(&self, name: &str) -> Result<u64, PersistError> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, o)| *o)
            .ok_or_else(|| PersistError::Corrupt(format!("the kernel record names no {name}")))
    }
}

/// The name of the kernel record's entries for the kernel's classes (one per
/// class: every class the repository was created with; see `Roots::kernel`).
pub(crate) const KERNEL_CLASS: &str = "&";

/// Shared objects named in the kernel record besides the bootstrap classes.
pub(crate) const GLOBALS: &str = "@Globals";
pub(crate) const PUBLISHED: &str = "@Published";
pub(crate) const TRANSCRIPT: &str = "@Transcript";
/// The first repository OOP the creation did not allocate (`security`).
pub(crate) const KERNEL_BOUND: &str = "#bound";
/// The name of the kernel record's entries for kernel methods a kernel
/// repair compiled (`repair`).
const KERNEL_METHOD: &str = "%";

/// Makes the login's kernel classes (`Roots::kernel`) the ones the repository
/// was created with, as its kernel record names them. A repository created
/// before the record named them has every class it holds taken as the
/// kernel's: kernel-only evaluations then restrict nothing there, as before.
pub(crate) fn mark_kernel(vm: &mut Vm, map: &OopMap, kernel: &KernelRecord, loaded: &[Oop]) {
    let recorded: Vec<Oop> = kernel
        .entries
        .iter()
        .filter(|(n, _)| n == KERNEL_CLASS)
        .filter_map(|&(_, s)| map.heap_of(vm, s))
        .collect();
    let classes = if recorded.is_empty() {
        let mut all = vm.roots.all_classes.clone();
        all.extend_from_slice(loaded);
        all
    } else {
        recorded
    };
    vm.roots.kernel.clear();
    for c in classes {
        if vm.heap.class_data(c).is_some_and(|d| !d.is_meta) {
            vm.mark_kernel_class(c);
        }
    }
}

/// Where a repository for `path` is made before it is put in place:
/// `<path>.creating-<pid>-<n>` beside it (same file system, so a link works;
/// `n` tells apart creations by threads of one process).
pub(crate) fn creation_path(path: &Path) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut p = path.as_os_str().to_owned();
    p.push(format!(".creating-{}-{n}", std::process::id()));
    p.into()
}

/// Removes a repository file and its SQLite companions, if there are any.
pub(crate) fn remove_repository_files(path: &Path) {
    let _ = std::fs::remove_file(path);
    for ext in ["-wal", "-shm", "-journal"] {
        let mut p = path.as_os_str().to_owned();
        p.push(ext);
        let _ = std::fs::remove_file(p);
    }
}

/// Removes what creations of `path` by processes that no longer run left.
pub(crate) fn remove_stale_creations(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!("{name}.creating-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(rest) = file.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        let pid: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let Ok(pid) = pid.parse::<i32>() else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

pub(crate) fn store_err(e: StoreError) -> StError {
    PersistError::Store(e).into()
}

/// A new user's UserGlobals, symbol list and profile (not yet persistent).
pub(crate) fn make_user_objects(vm: &mut Vm, user_id: &str) -> (Oop, Oop) {
    let ug = vm
        .heap
        .alloc(vm.k.symbol_dictionary, Body::Dict(Box::default()));
    let key = vm.sym("UserGlobals");
    vm.dict_at_put(ug, key, Value::Obj(ug));
    let list = vm.heap.alloc(
        vm.k.symbol_list,
        Body::Ptr(vec![
            Value::Obj(ug),
            Value::Obj(vm.roots.globals),
            Value::Obj(vm.roots.published),
        ]),
    );
    let id = vm.new_string(user_id);
    let profile = vm
        .heap
        .alloc(vm.k.user_profile, Body::Ptr(vec![id, Value::Obj(list)]));
    (profile, ug)
}

pub(crate) fn read_users(store: &StoreSession) -> Result<Users, StError> {
    match store.read(SECURITY_OOP).map_err(store_err)? {
        Some(b) => Ok(Users::decode(&b).map_err(PersistError::from)?),
        None => Err(PersistError::Corrupt(
            "the repository has no security record (was it created by gsmcp?)".into(),
        )
        .into()),
    }
}

impl<'a> Loader<'a> {
    /// The repository OOP of the class of stored object `s`.
    fn class_of_record(&mut self, s: u64) -> Result<u64, PersistError> {
        match self.peek(s)? {
            Some(rec) => Ok(rec.class),
            None => Err(PersistError::Corrupt(format!(
                "the kernel record names object {s}, which the repository does not hold"
            ))),
        }
    }
}

/// The engine's view of a repository session (see `interp::repository`).
static OPS: RepositoryOps = RepositoryOps {
    materialise_methods: Vm::materialise_methods,
    compile_if_pending: Vm::compile_if_pending,
    read_pending_code: Vm::read_pending_code,
    read_pending_codes: Vm::read_pending_codes,
    pending_source: Vm::pending_source,
    extends_kernel: Vm::extends_kernel,
    primitive: Vm::persist_prim,
    refusal: Vm::refusal,
};

impl Vm {
    /// This session's repository state; None for an in-memory image.
    #[inline]
    pub(crate) fn repo(&self) -> Option<&RepoState> {
        self.attached()
    }

    /// This session's repository state, mutably.
    #[inline]
    pub(crate) fn repo_mut(&mut self) -> Option<&mut RepoState> {
        self.attached_mut()
    }

    /// Takes the repository state out for work that also needs the whole
    /// `Vm`; [`Vm::put_repo`] puts it back.
    pub(crate) fn take_repo(&mut self) -> Option<Box<RepoState>> {
        self.detach()
    }

    /// Attaches (or puts back) the repository state.
    pub(crate) fn put_repo(&mut self, repo: Box<RepoState>) {
        self.attach(&OPS, repo);
    }

    /// SecurityError, and the user to name, for a write the barrier refused.
    fn refusal(&self) -> Option<(Oop, String)> {
        self.repo().map(|r| (r.security_error, r.user_id.clone()))
    }
}

impl Vm {
    /// Makes the stored method dictionary and categories of `class`
    /// resident (see [`Vm::ensure_methods`]). Each method becomes the object
    /// already in memory for it or a placeholder whose record is read (at
    /// this session's view) when the method is first used; nothing is read
    /// from the store here, so this cannot fail.
    #[cold]
    fn materialise_methods(&mut self, class: Oop) {
        // only a repository login leaves dictionaries stored, and it keeps its
        // repository state until the session ends
        let Some(mut repo) = self.take_repo() else {
            return;
        };
        if let Some(st) = self
            .heap
            .class_data_quiet(class)
            .and_then(|d| d.stored_methods.take())
        {
            let mut methods = FxHashMap::default();
            methods.reserve(st.methods.len());
            for &(sel, s) in &st.methods {
                let mo = match repo.map.heap_of(self, s) {
                    Some(o) => o,
                    None => {
                        let o = image::placeholder(self, &mut repo.map, s);
                        repo.pending
                            .insert(o, PendingMethod::unread(o, s, class, sel));
                        o
                    }
                };
                methods.insert(sel, mo);
            }
            let categories = st.categories.iter().copied().collect();
            if let Some(d) = self.heap.class_data_quiet(class) {
                d.methods = methods;
                d.categories = categories;
            }
        }
        self.put_repo(repo);
    }

    /// Compiles a stored method loaded without its code, on its first use
    /// (see [`Vm::ensure_method`]).
    fn compile_if_pending(&mut self, mo: Oop) {
        if self.repo().is_some_and(|r| !r.pending.is_empty()) {
            self.compile_pending(mo);
        }
    }

    /// The source of method object `mo` while it is stored and not compiled
    /// yet, so `sourceCodeAt:` and source scans need not compile it; None for
    /// a compiled method or anything else.
    /// Call [`Vm::read_stored_code`] first: a method a class named at login
    /// has no source in memory until its record is read.
    fn pending_source(&self, mo: Oop) -> Option<&str> {
        let repo = self.repo()?;
        repo.pending.get(&mo)?.current_source(self, &repo.map)
    }

    /// Reads the records of the stored, uncompiled method objects among `mos`
    /// in one store read (one snapshot of this session's view) rather than
    /// one read each, for a search about to visit them all. Reads nothing
    /// when fewer than two need it. A record that cannot be read or decoded
    /// is left for `ensure_method`, which reports it when the method is used.
    fn read_pending_codes(&mut self, mos: &[Oop]) {
        if self.repo().is_none_or(|r| r.pending.is_empty()) {
            return;
        }
        let Some(mut repo) = self.take_repo() else {
            return;
        };
        let wanted: Vec<Oop> = mos
            .iter()
            .copied()
            .filter(|mo| {
                repo.pending
                    .get(mo)
                    .is_some_and(|p| p.is_unread() && p.is_wanted(self, &repo.map))
            })
            .collect();
        let mut unread: Vec<PendingMethod> = wanted
            .iter()
            .filter_map(|mo| repo.pending.remove(mo))
            .collect();
        if unread.len() > 1 {
            let oops: Vec<u64> = unread.iter().map(PendingMethod::store).collect();
            if let Ok(records) = repo.store.read_many(&oops) {
                let mut prefetched = Prefetched::default();
                for (&s, data) in oops.iter().zip(&records) {
                    if let Some(data) = data {
                        prefetched.insert(s, data);
                    }
                }
                self.unguarded(|vm| {
                    let mut loader = Loader::new(vm, &mut repo.map, &repo.store, prefetched);
                    for p in &mut unread {
                        // an error leaves the record unread (see above)
                        let _ = loader.read_code(p);
                    }
                });
            }
        }
        for p in unread {
            repo.pending.insert(p.oop(), p);
        }
        self.put_repo(repo);
    }

    /// Reads the record of a stored, uncompiled method object at this
    /// session's view, without compiling it. A record that cannot be read is
    /// left for `ensure_method`, which reports it when the method is used.
    fn read_pending_code(&mut self, mo: Oop) {
        // the common case costs one lookup: not pending, or its record read already
        let unread = self
            .repo()
            .and_then(|r| r.pending.get(&mo))
            .is_some_and(|p| p.is_unread());
        if !unread {
            return;
        }
        let Some(mut repo) = self.take_repo() else {
            return;
        };
        if let Some(mut p) = repo.pending.remove(&mo) {
            if p.is_unread() && p.is_wanted(self, &repo.map) {
                self.unguarded(|vm| {
                    let mut loader =
                        Loader::new(vm, &mut repo.map, &repo.store, Prefetched::default());
                    // an error leaves the record unread: ensure_method reports it on use
                    let _ = loader.read_code(&mut p);
                });
            }
            repo.pending.insert(mo, p);
        }
        self.put_repo(repo);
    }

    fn compile_pending(&mut self, mo: Oop) {
        let Some(mut repo) = self.take_repo() else {
            return;
        };
        if let Some(mut p) = repo.pending.remove(&mo) {
            let again = p.again();
            let w = self.unguarded(|vm| {
                if !p.is_wanted(vm, &repo.map) {
                    return None;
                }
                // the record of a method a class named at login is read now, at this
                // session's view (a newer version would have been refreshed already)
                let read = {
                    let mut loader =
                        Loader::new(vm, &mut repo.map, &repo.store, Prefetched::default());
                    loader.read_code(&mut p)
                };
                match read {
                    Ok(()) => p.compile(vm, &repo.map),
                    Err(e) => Some(p.fail(vm, &format!("its record cannot be read: {e}"))),
                }
            });
            if let Some(w) = w {
                repo.warnings.push(w);
                repo.stand_ins.push(again);
            }
        }
        self.put_repo(repo);
    }

    /// Runs the repository layer's own changes to persistent objects (loading a
    /// record, compiling stored code) past a read-only session's write guard:
    /// they bring the heap to the view, they are not the user's writes.
    fn unguarded<T>(&mut self, f: impl FnOnce(&mut Vm) -> T) -> T {
        let guard = std::mem::replace(&mut self.heap.guard, 0);
        let r = f(self);
        self.heap.guard = guard;
        r
    }

    fn repo_state(&mut self) -> &mut RepoState {
        self.repo_mut()
            .expect("repository primitive in a repository session")
    }

    /// Re-reads `oops` (those in memory), plus this session's own changes when
    /// `discard` is set; then clears the dirty list if `discard`.
    fn refresh(&mut self, changed: &[u64], discard: bool) -> Result<(), PersistError> {
        let mut repo = self.take_repo().expect("refresh in a repository session");
        let result = self.unguarded(|vm| vm.refresh_with(&mut repo, changed, discard));
        self.put_repo(repo);
        result
    }

    fn refresh_with(
        &mut self,
        repo: &mut RepoState,
        changed: &[u64],
        discard: bool,
    ) -> Result<(), PersistError> {
        let mut todo: Vec<u64> = vec![];
        let mut keep: Vec<(Oop, bool)> = vec![];
        let dirty_persistent: Vec<u64> = self
            .heap
            .dirty
            .iter()
            .filter_map(|&o| repo.map.store_of(self, o))
            .collect();
        if discard {
            todo.extend(dirty_persistent.iter().copied());
            todo.extend(changed.iter().copied());
        } else {
            let mine: std::collections::HashSet<u64> = dirty_persistent.iter().copied().collect();
            todo.extend(changed.iter().copied().filter(|s| !mine.contains(s)));
            keep = self
                .heap
                .dirty
                .iter()
                .map(|&o| (o, repo.map.store_of(self, o).is_some()))
                .collect();
        }
        todo.sort_unstable();
        todo.dedup();
        if todo.contains(&SECURITY_OOP) && (discard || !repo.users_dirty) {
            repo.users = match repo.store.read(SECURITY_OOP)? {
                Some(b) => Users::decode(&b)?,
                None => return Err(PersistError::Corrupt("the security record vanished".into())),
            };
            repo.users_dirty = false;
        }
        if discard {
            repo.users_dirty = false;
            repo.restored.clear();
            repo.restored_classes.clear();
        }
        if todo.contains(&KERNEL_OOP) {
            // a kernel repair committed
            if let Some(data) = repo.store.read(KERNEL_OOP)? {
                repo.kernel_methods = KernelRecord::decode(&data)?.methods();
            }
        }
        for p in std::mem::take(&mut repo.stand_ins) {
            if p.undo_stand_in(self, &repo.map) {
                repo.pending.insert(p.oop(), p);
            }
        }
        let repo_stand_ins;
        let (classes, warnings) = {
            let mut loader = Loader::new(self, &mut repo.map, &repo.store, Prefetched::default());
            for &s in &todo {
                if s >= gsmcp_store::FIRST_ALLOCATED_OOP {
                    loader.refresh(s)?;
                }
            }
            loader.drain()?;
            loader.compile_methods();
            repo_stand_ins = std::mem::take(&mut loader.stand_ins);
            (std::mem::take(&mut loader.classes), loader.warnings)
        };
        repo.stand_ins.extend(repo_stand_ins);
        repo.warnings.extend(warnings);
        for c in classes {
            if !self.roots.all_classes.contains(&c) {
                self.roots.all_classes.push(c);
            }
        }
        clear_dirty(self);
        if !discard {
            // This session's changes stay pending — except a temporary object the
            // refresh just bound to a stored one (a Symbol this session named
            // before another session committed it): it now holds the stored
            // version, which is no change of this session's.
            for (o, was_persistent) in keep {
                if self.heap.try_get(o).is_some()
                    && (was_persistent || repo.map.store_of(self, o).is_none())
                {
                    self.heap.write_meta(o);
                }
            }
        }
        let privileged = repo.privileged;
        // `repo` is out of `self` here, and `protect_kernel` reads no repository state
        self.protect_kernel(privileged);
        self.methods_changed();
        Ok(())
    }

    /// Whether this session has changes a commit would write.
    pub(crate) fn repo_needs_commit(&mut self) -> bool {
        let repo = self.repo().expect("repository session");
        repo.users_dirty
            || self
                .heap
                .dirty
                .iter()
                .any(|&o| repo.map.store_of(self, o).is_some())
    }

    pub(crate) fn repo_commit(&mut self) -> Result<bool, PersistError> {
        let mut repo = self.take_repo().expect("commit in a repository session");
        let r = self.repo_commit_with(&mut repo);
        self.put_repo(repo);
        match r {
            Ok(Some(changed)) => {
                self.refresh(&changed, false)?;
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Answers the OOPs others changed (for a refresh) or `None` on a conflict.
    fn repo_commit_with(&mut self, repo: &mut RepoState) -> Result<Option<Vec<u64>>, PersistError> {
        if repo.store.must_abort() {
            return Err(PersistError::Store(StoreError::CommitRefused));
        }
        if repo.store.is_read_only() {
            return Err(PersistError::ReadOnlyUser(repo.user_id.clone()));
        }
        let mut tries = 0;
        loop {
            match self.repo_try_commit(repo)? {
                Err(StoreError::Collected { oops, through }) if tries < COLLECTED_RETRIES => {
                    // A collection deleted objects this session may hold: any it
                    // commits a reference to is stored afresh by the next try.
                    for s in oops {
                        repo.map.forget(self, s);
                    }
                    repo.store.acknowledge_collections(through);
                    tries += 1;
                }
                Err(StoreError::Conflict { oops }) => {
                    repo.conflicts = Some(oops);
                    return Ok(None);
                }
                Err(e) => return Err(e.into()),
                Ok(changed) => return Ok(Some(changed)),
            }
        }
    }

    /// One try of a commit: the store's refusal (a conflict, collections to
    /// learn of) as the inner error, the OOPs others changed otherwise.
    fn repo_try_commit(
        &mut self,
        repo: &mut RepoState,
    ) -> Result<Result<Vec<u64>, StoreError>, PersistError> {
        let set = collect_writes(self, &repo.map, &mut repo.store, &[])?;
        let mut writes = set.writes;
        if repo.users_dirty {
            writes.push((SECURITY_OOP, repo.users.encode()));
        }
        let mut restored = vec![];
        if !repo.restored.is_empty() || !repo.restored_classes.is_empty() {
            let Some(data) = repo.store.read(KERNEL_OOP)? else {
                return Err(PersistError::Corrupt("the kernel record vanished".into()));
            };
            let mut kernel = KernelRecord::decode(&data)?;
            let store_of = |o: Oop| {
                set.new
                    .iter()
                    .find(|(n, _)| *n == o)
                    .map(|&(_, s)| s)
                    .or_else(|| repo.map.store_of(self, o))
            };
            restored.extend(repo.restored.iter().filter_map(|&m| store_of(m)));
            let classes: Vec<u64> = repo
                .restored_classes
                .iter()
                .filter_map(|&c| store_of(c))
                .collect();
            kernel
                .entries
                .extend(restored.iter().map(|&s| (KERNEL_METHOD.to_string(), s)));
            // a record that names no class (a repository from before it
            // did) takes every class as the kernel's: naming some would
            // make only those the kernel's
            if kernel.entries.iter().any(|(n, _)| n == KERNEL_CLASS) {
                kernel
                    .entries
                    .extend(classes.into_iter().map(|s| (KERNEL_CLASS.to_string(), s)));
            }
            writes.push((KERNEL_OOP, kernel.encode()));
        }
        match repo
            .store
            .commit(writes.into_iter().map(|(o, b)| (o, Some(b))))
        {
            Ok(done) => {
                for (o, s) in set.new {
                    repo.map.bind(self, o, s);
                }
                clear_dirty(self);
                repo.users_dirty = false;
                repo.kernel_methods.extend(restored);
                repo.restored.clear();
                repo.restored_classes.clear();
                repo.conflicts = Some(vec![]);
                if done.collect_due {
                    repo.start_collection();
                } else {
                    repo.finish_collection(false);
                }
                Ok(Ok(done.changed.into_oops()))
            }
            Err(e @ (StoreError::Conflict { .. } | StoreError::Collected { .. })) => Ok(Err(e)),
            Err(e) => Err(e.into()),
        }
    }

    pub(crate) fn repo_abort(&mut self) -> Result<(), PersistError> {
        let changed = self.repo_state().store.abort()?;
        self.repo_state().conflicts = None;
        self.repo_state().aborts += 1;
        self.refresh(changed.oops(), true)
    }

    pub(crate) fn repo_continue(&mut self) -> Result<(), PersistError> {
        let changed = self.repo_state().store.continue_view()?;
        self.refresh(changed.oops(), false)
    }

    /// Creates a user and its objects; answers the new UserProfile.
    pub(crate) fn repo_add_user(
        &mut self,
        user: &str,
        password: &str,
        commit_disabled: bool,
    ) -> Result<Oop, PersistError> {
        self.require_administrator("create users")?;
        if user.is_empty() || user.chars().any(|c| c.is_control()) {
            return Err(PersistError::NotPermitted(format!(
                "invalid user id {user:?}"
            )));
        }
        if self.repo_state().users.find(user).is_some() {
            return Err(PersistError::NotPermitted(format!(
                "a user {user} already exists"
            )));
        }
        if self.repo_state().store.is_read_only() {
            return Err(PersistError::Store(StoreError::ReadOnly));
        }
        let (profile, ug) = make_user_objects(self, user);
        let mut repo = self.take_repo().expect("repository session");
        let r = (|| -> Result<(), PersistError> {
            let sp = repo.store.allocate_oop()?;
            let sg = repo.store.allocate_oop()?;
            let rec = UserRecord::new(user, password, commit_disabled, sp, sg)
                .map_err(|e| PersistError::NotPermitted(format!("no random salt: {e}")))?;
            repo.map.bind(self, profile, sp);
            repo.map.bind(self, ug, sg);
            self.heap.write_meta(profile);
            self.heap.write_meta(ug);
            repo.users.0.push(rec);
            repo.users_dirty = true;
            Ok(())
        })();
        self.put_repo(repo);
        r.map(|_| profile)
    }

    /// Refuses, saying it may not `what`, a login other than an
    /// administrator's (`security::may_change_kernel`).
    fn require_administrator(&mut self, what: &str) -> Result<(), PersistError> {
        let repo = self.repo_state();
        if !repo.privileged {
            return Err(PersistError::NotPermitted(format!(
                "{} may not {what}",
                repo.user_id
            )));
        }
        Ok(())
    }

    /// Makes `user` log in with JSON Web Tokens that satisfy `policy`, and no
    /// longer with its password, once this session commits. The
    /// administrators keep their password logins: a stone whose
    /// administrators could be locked out by an identity provider's outage
    /// is not one to run.
    pub(crate) fn repo_enable_jwt(
        &mut self,
        user: &str,
        policy: JwtPolicy,
    ) -> Result<(), PersistError> {
        self.require_administrator("enable JSON Web Token logins")?;
        if security::may_change_kernel(user) {
            return Err(PersistError::NotPermitted(format!(
                "{user} is an administrator and keeps its password login"
            )));
        }
        if self.repo_state().store.is_read_only() {
            return Err(PersistError::Store(StoreError::ReadOnly));
        }
        let repo = self.repo_state();
        let Some(record) = repo.users.0.iter_mut().find(|r| r.user_id == user) else {
            return Err(PersistError::NotPermitted(format!(
                "there is no user {user}"
            )));
        };
        record.jwt = Some(policy);
        repo.users_dirty = true;
        Ok(())
    }

    /// Trusts `pem` under `kid` for JSON Web Token logins (`pem` given), or
    /// stops trusting `kid` (`None`), at once and outside the transaction, as
    /// a stone does. The inner error is a refused argument.
    pub(crate) fn repo_change_key(
        &mut self,
        kid: &str,
        pem: Option<&str>,
    ) -> Result<Result<(), String>, PersistError> {
        self.require_administrator("change the trusted JWT keys")?;
        if kid.is_empty() || kid.len() > 256 || kid.chars().any(char::is_control) {
            return Ok(Err(
                "a key id is 1 to 256 characters with no control characters".into(),
            ));
        }
        let store = &self.repo_state().store;
        Ok(match pem {
            Some(pem) => {
                if let Err(e) = jwt::PublicKey::from_pem(pem) {
                    return Ok(Err(e));
                }
                if store.add_trusted_key(kid, pem.trim())? {
                    Ok(())
                } else {
                    Err(format!(
                        "a key with id {kid:?} is trusted already: remove it first \
                         (System removeJwtKeyWithId:)"
                    ))
                }
            }
            None => {
                if store.remove_trusted_key(kid)? {
                    Ok(())
                } else {
                    Err(format!("no key with id {kid:?} is trusted"))
                }
            }
        })
    }

    /// The UserProfile of `user`, faulted in if need be.
    pub(crate) fn repo_user_profile(&mut self, user: &str) -> Result<Option<Oop>, PersistError> {
        let Some(profile) = self.repo_state().users.find(user).map(|r| r.profile) else {
            return Ok(None);
        };
        let r = self.repo_object(profile);
        if let Ok(Some(o)) = &r {
            // a user profile is the kernel's (`security`)
            self.heap
                .set_flags_quiet(*o, crate::object::heap::F_KERNEL, 0);
        }
        r
    }

    /// The object stored at repository OOP `s`, faulted in if need be; None
    /// when it is not stored (made in this transaction and gone from memory).
    pub(crate) fn repo_object(&mut self, s: u64) -> Result<Option<Oop>, PersistError> {
        let mut repo = self.take_repo().expect("repository session");
        let guard = std::mem::replace(&mut self.heap.guard, 0);
        let r = (|| {
            if let Some(o) = repo.map.heap_of(self, s) {
                return Ok(Some(o));
            }
            if repo.store.read(s)?.is_none() {
                return Ok(None);
            }
            let mut loader = Loader::new(self, &mut repo.map, &repo.store, Prefetched::default());
            let o = loader.resolve(s)?;
            loader.drain()?;
            loader.compile_methods();
            Ok(Some(o))
        })();
        self.heap.guard = guard;
        self.put_repo(repo);
        r
    }
}
