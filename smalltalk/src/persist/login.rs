//! Making and opening repository sessions: the records a new repository
//! starts with, and a login in two steps: opening the store and checking the
//! user (`open_store`), then loading the kernel's and the user's objects into
//! a fresh image and attaching the repository to it (`load_login`). The public
//! face of both is `Session` (`api::repository`).

use std::path::{Path, PathBuf};

use gsmcp_store::{LoginOptions, Repository, StoreError, StoreSession};

use super::codec;
use super::image::{clear_dirty, collect_writes, Loader, OopMap, Prefetched};
use super::jwt;
use super::security::{may_change_kernel, DEVELOPER_USER};
use super::tickets;
use super::users::{UserRecord, Users, SECURITY_OOP};
use super::{
    make_user_objects, mark_kernel, read_users, store_err, KernelRecord, Missing, PersistError,
    RepoState, GLOBALS, KERNEL_BOUND, KERNEL_CLASS, KERNEL_OOP, PUBLISHED, TRANSCRIPT,
};
use super::{DEFAULT_PASSWORD, DEFAULT_USER, SYSTEM_USER};
use crate::interp::Vm;
use crate::object::known::CLASSES;
use crate::object::value::{FxHashMap, FxHashSet, Oop, Value};

/// Seconds since the Unix epoch.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The records a new repository starts with, made from the shipped kernel
/// in `vm`: every object, the kernel record and the users.
pub(crate) fn creation_writes(
    vm: &mut Vm,
    store: &mut StoreSession,
) -> Result<Vec<(u64, Vec<u8>)>, PersistError> {
    vm.collect_garbage();
    let mut map = OopMap::default();
    let (su_profile, su_globals) = make_user_objects(vm, SYSTEM_USER);
    let (dev_profile, dev_globals) = make_user_objects(vm, DEVELOPER_USER);
    let dc_profile = vm.roots.user_profile;
    let dc_globals = vm.roots.user_globals;
    let mut roots: Vec<(String, Oop)> = vec![];
    for (spec, &c) in CLASSES.iter().zip(vm.roots.all_classes.iter()) {
        let name = vm
            .heap
            .class_data(c)
            .and_then(|d| vm.string_of(Value::Obj(d.name)));
        if name.as_deref() != Some(spec.name) {
            return Err(PersistError::Create(format!(
                "bootstrap class {} is not where the kernel table puts it",
                spec.name
            )));
        }
        roots.push((spec.name.to_string(), c));
    }
    roots.push((GLOBALS.into(), vm.roots.globals));
    roots.push((PUBLISHED.into(), vm.roots.published));
    roots.push((TRANSCRIPT.into(), vm.roots.transcript));
    let mut extra: Vec<Oop> = vec![
        dc_profile,
        dc_globals,
        su_profile,
        su_globals,
        dev_profile,
        dev_globals,
    ];
    extra.extend(vm.roots.all_classes.iter().copied());
    let mut kernel = KernelRecord { entries: vec![] };
    let mut bound: FxHashMap<Oop, u64> = FxHashMap::default();
    for (name, o) in roots
        .iter()
        .map(|(n, o)| (Some(n.clone()), *o))
        .chain(extra.iter().map(|&o| (None, o)))
    {
        let s = match bound.get(&o) {
            Some(&s) => s,
            None => {
                let s = store.allocate_oop()?;
                map.bind(vm, o, s);
                vm.heap.write_meta(o);
                bound.insert(o, s);
                s
            }
        };
        if let Some(n) = name {
            kernel.entries.push((n, s));
        }
    }
    for c in &vm.roots.all_classes {
        kernel.entries.push((KERNEL_CLASS.into(), bound[c]));
    }
    let set = collect_writes(vm, &map, store, &[])?;
    // everything the creation made lies below this
    kernel
        .entries
        .push((KERNEL_BOUND.into(), store.allocate_oop()?));
    let user = |id: &str, profile: Oop, globals: Oop| {
        UserRecord::new(
            id,
            DEFAULT_PASSWORD,
            false,
            bound[&profile],
            bound[&globals],
        )
        .map_err(|e| PersistError::Create(format!("no random salt: {e}")))
    };
    let users = Users(vec![
        user(DEFAULT_USER, dc_profile, dc_globals)?,
        user(SYSTEM_USER, su_profile, su_globals)?,
        user(DEVELOPER_USER, dev_profile, dev_globals)?,
    ]);
    let mut writes = set.writes;
    writes.push((KERNEL_OOP, kernel.encode()));
    writes.push((SECURITY_OOP, users.encode()));
    Ok(writes)
}

/// A repository session opened and checked, before its objects are loaded:
/// the store session, the users, the kernel record and the prefetched records.
pub(crate) struct Opened {
    store: StoreSession,
    users: Users,
    record: UserRecord,
    user_id: String,
    kernel: KernelRecord,
    kernel_bound: u64,
    privileged: bool,
    kernel_methods: FxHashSet<u64>,
    prefetched: Prefetched,
    path: PathBuf,
}

/// What a login proves who it is with.
#[derive(Clone, Copy)]
pub(crate) enum Proof<'a> {
    /// The user's password.
    Password(&'a str),
    /// A one-time login ticket (`tickets`).
    Ticket(&'a str),
    /// A JSON Web Token, for a user enabled for them (`jwt`).
    Jwt(&'a str),
    /// Nothing: the repository's own upgrade and repair, run as SystemUser.
    Internal,
}

/// Opens the repository at `path` and logs in to its store as `user`,
/// checking `proof`, and reads what loading needs.
pub(crate) fn open_store(path: &Path, user: &str, proof: Proof<'_>) -> Result<Opened, Missing> {
    let half_made = || PersistError::HalfMade(path.display().to_string());
    let mut options = LoginOptions::new().label(user);
    if let Proof::Ticket(ticket) = proof {
        let key = tickets::read_key(path).map_err(PersistError::LoginRefused)?;
        let checked =
            tickets::check(&key, user, ticket, unix_now()).map_err(PersistError::LoginRefused)?;
        options = options.spend_ticket(checked.nonce, checked.expires);
    }
    let repo = Repository::open(path).map_err(|e| match e {
        StoreError::Uninitialised { .. } => half_made().into(),
        e => store_err(e),
    })?;
    let mut store = repo.login(options).map_err(|e| match e {
        StoreError::TicketSpent => PersistError::LoginRefused(e.to_string()).into(),
        e => store_err(e),
    })?;
    if store.view() == 0 {
        let _ = store.logout();
        return Err(half_made().into());
    }
    let users = read_users(&store)?;
    let Some(record) = users.find(user).cloned() else {
        let _ = store.logout();
        return Err(match proof {
            // the ticket's maker authenticated the principal already: it may
            // hear that the repository lacks its user
            Proof::Ticket(_) => PersistError::NoSuchUser(user.to_string()).into(),
            _ => Missing::User,
        });
    };
    let refused = match proof {
        // a user who logs in by token has no password that works: the same
        // refusal as a wrong one, telling a guesser nothing
        Proof::Password(p) if record.jwt.is_some() || !record.check_password(p) => {
            Some(PersistError::LoginDenied)
        }
        Proof::Jwt(token) => match &record.jwt {
            None => Some(PersistError::LoginRefused(format!(
                "{user} is not enabled for JSON Web Token logins \
                 (UserProfile>>enableJwtAuthenticationWith:)"
            ))),
            Some(policy) => jwt::check(
                policy,
                user,
                token,
                |kid| store.trusted_key(kid).map_err(|e| e.to_string()),
                unix_now(),
            )
            .err()
            .map(|why| PersistError::LoginRefused(format!("JWT login as {user}: {why}"))),
        },
        _ => None,
    };
    if let Some(e) = refused {
        let _ = store.logout();
        return Err(e.into());
    }
    let users = if record.read_only {
        store.logout().map_err(store_err)?;
        store = repo
            .login(LoginOptions::new().read_only(true).label(user))
            .map_err(store_err)?;
        read_users(&store)?
    } else {
        users
    };
    let kernel = match store.read(KERNEL_OOP).map_err(store_err)? {
        Some(b) => KernelRecord::decode(&b)?,
        None => {
            return Err(PersistError::Corrupt("the repository has no kernel record".into()).into());
        }
    };
    let kernel_bound = kernel
        .entries
        .iter()
        .find(|(n, _)| n == KERNEL_BOUND)
        .map_or(u64::MAX, |&(_, o)| o);
    let privileged = may_change_kernel(user);
    let kernel_methods = kernel.methods();
    let mut prefetched = Prefetched::default();
    store
        .scan(|oop, data| {
            // methods are read when first used (`Loader::resolve_method`)
            if oop >= gsmcp_store::FIRST_ALLOCATED_OOP && !codec::is_method_record(data) {
                prefetched.insert(oop, data);
            }
        })
        .map_err(store_err)?;
    Ok(Opened {
        store,
        users,
        record,
        user_id: user.to_string(),
        kernel,
        kernel_bound,
        privileged,
        kernel_methods,
        prefetched,
        path: path.to_path_buf(),
    })
}

/// Loads an opened session into a fresh image's `vm` and attaches the
/// repository: the kernel's objects take the identity of their stored
/// versions, the user's profile and globals are read, and methods are left to
/// compile on first use.
pub(crate) fn load_login(vm: &mut Vm, opened: Opened) -> Result<(), PersistError> {
    let Opened {
        store,
        users,
        record,
        user_id,
        kernel,
        kernel_bound,
        privileged,
        kernel_methods,
        prefetched,
        path,
    } = opened;
    let prefetched_len = prefetched.len();
    let mut map = OopMap::default();
    map.reserve(prefetched_len);
    let warnings = {
        let mut loader = Loader::new(vm, &mut map, &store, prefetched);
        // a fresh heap; method dictionaries are materialised on first
        // use (`Vm::ensure_methods`)
        loader.login = true;
        // The fresh VM's bootstrap classes and shared dictionaries take the
        // identity of their stored versions, so `Known` and every interned
        // symbol stay valid.
        let mut pre: Vec<(Oop, u64)> = vec![];
        for (spec, &c) in CLASSES.iter().zip(loader.vm.roots.all_classes.iter()) {
            pre.push((c, kernel.get(spec.name)?));
        }
        pre.push((loader.vm.roots.globals, kernel.get(GLOBALS)?));
        pre.push((loader.vm.roots.published, kernel.get(PUBLISHED)?));
        pre.push((loader.vm.roots.transcript, kernel.get(TRANSCRIPT)?));
        pre.push((loader.vm.roots.user_profile, record.profile));
        pre.push((loader.vm.roots.user_globals, record.user_globals));
        for (i, &(c, s)) in pre.clone().iter().enumerate() {
            if i < CLASSES.len() {
                let meta = loader.vm.heap.get(c).class;
                let meta_s = loader.class_of_record(s)?;
                pre.push((meta, meta_s));
            }
        }
        for &(o, s) in &pre {
            loader.adopt(o, s)?;
        }
        loader.drain()?;
        let classes = std::mem::take(&mut loader.classes);
        mark_kernel(loader.vm, loader.map, &kernel, &classes);
        let profile = loader.vm.roots.user_profile;
        match loader.vm.heap.slot(profile, 1) {
            Value::Obj(list) => loader.vm.roots.symbol_list = list,
            _ => {
                return Err(PersistError::Corrupt(format!(
                    "the profile of {user_id} has no symbol list"
                )));
            }
        }
        let known: std::collections::HashSet<Oop> =
            loader.vm.roots.all_classes.iter().copied().collect();
        loader
            .vm
            .roots
            .all_classes
            .extend(classes.into_iter().filter(|c| !known.contains(c)));
        // methods compile on first use (`Vm::ensure_method`): a login does
        // not pay for code it never runs
        let pending = loader.take_methods();
        (loader.warnings, pending)
    };
    let (warnings, pending) = warnings;
    let pending = pending.into_iter().map(|p| (p.oop(), p)).collect();
    vm.methods_changed();
    let global_class = |vm: &mut Vm, name: &str| {
        vm.heap
            .find_symbol(name)
            .and_then(|sym| vm.dict_assoc(Value::Obj(vm.roots.globals), Value::Obj(sym)))
            .and_then(|a| vm.heap.slot(a, 1).oop())
            .filter(|&c| vm.heap.class_data(c).is_some())
            .unwrap_or(vm.k.error)
    };
    let transaction_error = global_class(vm, "TransactionError");
    let security_error = global_class(vm, "SecurityError");
    vm.set_session_id(store.id() as i64);
    clear_dirty(vm);
    // A read-only user may change what it creates, never a shared object.
    vm.heap.guard = if store.is_read_only() {
        crate::object::heap::F_PERSISTENT
    } else {
        0
    };
    vm.put_repo(Box::new(RepoState {
        store,
        map,
        users,
        users_dirty: false,
        user_id,
        conflicts: None,
        transaction_error,
        security_error,
        pending,
        stand_ins: vec![],
        warnings,
        aborts: 0,
        kernel_bound,
        privileged,
        kernel_methods,
        restored: vec![],
        restored_classes: vec![],
        path: path.to_path_buf(),
        collector: None,
    }));
    vm.protect_kernel(privileged);
    Ok(())
}
