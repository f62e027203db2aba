//! One GCI session: the thread that owns its embedded-stone login (a
//! `Session` is driven by one thread, with the stack deep recursion needs),
//! the queue of calls it runs, the state of a non-blocking call, and the pipe
//! whose read end is the session's "socket": it becomes readable when a
//! non-blocking login or call has finished, and is drained when the result
//! is collected.
//!
//! The registry maps the opaque handles given to clients to sessions, so a
//! stale or forged handle is an error (4100), never a dangling pointer. Any
//! thread may call into a session; calls are run one at a time in order, and
//! a break reaches a running call from any thread. A blocking call from a
//! thread with the stack an evaluation needs runs right there, under the
//! engine's lock; from any other thread it is handed to the session's own.

use crate::oops::OopMap;
use gsmcp_gci_abi::{self as abi, GciErrSType, OopType};
use gsmcp_smalltalk::{Interrupter, Session};
use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, OnceLock};

/// What a session's thread owns.
pub struct Engine {
    pub session: Session,
    pub oops: OopMap,
}

type Job = Box<dyn FnOnce(&mut Engine) + Send>;

/// Where the login stands.
enum LoginState {
    Pending,
    Ready,
    Failed(Box<GciErrSType>),
}

/// Where the non-blocking call stands.
enum Nb {
    Idle,
    Running,
    Done(Result<OopType, Box<GciErrSType>>),
}

pub struct Sess {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    /// The login's engine, held by whichever thread runs a call on it; `None`
    /// before the login and after the logout.
    engine: Arc<Mutex<Option<Engine>>>,
    interrupter: Mutex<Option<Interrupter>>,
    login: Mutex<LoginState>,
    nb: Mutex<Nb>,
    changed: Condvar,
    /// Blocking calls under way.
    blocking: AtomicUsize,
    read_end: OwnedFd,
    write_end: OwnedFd,
}

fn registry() -> &'static Mutex<HashMap<u64, Arc<Sess>>> {
    static REG: OnceLock<Mutex<HashMap<u64, Arc<Sess>>>> = OnceLock::new();
    REG.get_or_init(Default::default)
}

/// The stack below the caller an evaluation may use (what a thread made with
/// `Session::REQUIRED_STACK_BYTES` has left after a few megabytes of frames).
const EVALUATION_ROOM: usize = Session::REQUIRED_STACK_BYTES - (4 << 20);

/// How much stack lies below the calling thread's current frame (0 when it
/// cannot be told). The stack's low end is read once per thread.
fn caller_stack_room() -> usize {
    thread_local! {
        static LOW: usize = stack_low_end();
    }
    let probe = 0u8;
    let here = std::hint::black_box(&probe) as *const u8 as usize;
    LOW.with(|&low| {
        if low == 0 {
            0
        } else {
            here.saturating_sub(low)
        }
    })
}

#[cfg(target_os = "linux")]
fn stack_low_end() -> usize {
    // SAFETY: reads this thread's attributes into a zeroed struct it then frees.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return 0;
        }
        let mut addr = std::ptr::null_mut();
        let mut size = 0usize;
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        if ok {
            addr as usize
        } else {
            0
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn stack_low_end() -> usize {
    0
}

/// Counts a blocking call for as long as it runs (a panic included), so a
/// break reaches it and never the next one.
struct Busy<'a>(&'a AtomicUsize);

impl<'a> Busy<'a> {
    fn enter(n: &'a AtomicUsize) -> Busy<'a> {
        n.fetch_add(1, Ordering::SeqCst);
        Busy(n)
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

static NEXT: AtomicU64 = AtomicU64::new(1);

/// The error for a handle that names no session.
pub fn bad_session() -> GciErrSType {
    let mut e = GciErrSType::gemstone(
        abi::GCI_ERR_BAD_SESSION_ID,
        "the session is invalid or logged out",
    );
    e.fatal = 1;
    e
}

fn in_progress() -> GciErrSType {
    GciErrSType::gemstone(
        abi::GCI_ERR_OP_IN_PROGRESS,
        "a non-blocking call is in progress on this session; collect its result first",
    )
}

fn session_lost(why: &str) -> GciErrSType {
    let mut e = GciErrSType::gemstone(abi::GCI_ERR_BAD_SESSION_ID, why);
    e.fatal = 1;
    e
}

/// The session a handle names.
pub fn find(handle: *mut std::ffi::c_void) -> Result<Arc<Sess>, GciErrSType> {
    lock(registry())
        .get(&(handle as u64))
        .cloned()
        .ok_or_else(bad_session)
}

/// Forgets a session (its thread ends once its queue is dropped).
pub fn remove(handle: *mut std::ffi::c_void) -> Option<Arc<Sess>> {
    lock(registry()).remove(&(handle as u64))
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills two descriptors that we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

impl Sess {
    /// Starts a session whose thread logs in with `login`; answers its handle
    /// at once (the login's outcome arrives through [`Sess::login_outcome`]).
    pub fn start(
        login: impl FnOnce() -> Result<Session, GciErrSType> + Send + 'static,
    ) -> Result<(*mut std::ffi::c_void, Arc<Sess>), GciErrSType> {
        let (read_end, write_end) = pipe().map_err(|e| {
            GciErrSType::gemstone(
                abi::ERR_IN_LOGIN,
                &format!("cannot make the session's socket: {e}"),
            )
        })?;
        let (tx, rx) = mpsc::channel::<Job>();
        let engine = Arc::new(Mutex::new(None));
        let sess = Arc::new(Sess {
            jobs: Mutex::new(Some(tx)),
            engine: engine.clone(),
            interrupter: Mutex::new(None),
            login: Mutex::new(LoginState::Pending),
            nb: Mutex::new(Nb::Idle),
            changed: Condvar::new(),
            blocking: AtomicUsize::new(0),
            read_end,
            write_end,
        });
        let id = NEXT.fetch_add(1, Ordering::Relaxed) << 4;
        let handle = id as *mut std::ffi::c_void;
        let mine = sess.clone();
        let spawned = std::thread::Builder::new()
            .name("gcits-session".into())
            .stack_size(Session::REQUIRED_STACK_BYTES)
            .spawn(move || {
                let mut session = match login() {
                    Ok(s) => s,
                    Err(e) => {
                        mine.set_login(LoginState::Failed(Box::new(e)));
                        return;
                    }
                };
                session.run_on_caller_thread(true);
                *lock(&mine.interrupter) = Some(session.interrupter());
                let oops = OopMap::new(&mut session);
                *lock(&engine) = Some(Engine { session, oops });
                mine.set_login(LoginState::Ready);
                drop(mine);
                while let Ok(job) = rx.recv() {
                    if let Some(e) = lock(&engine).as_mut() {
                        job(e);
                    }
                }
                if let Some(e) = lock(&engine).take() {
                    let _ = e.session.logout();
                }
            });
        if let Err(e) = spawned {
            return Err(GciErrSType::gemstone(
                abi::ERR_IN_LOGIN,
                &format!("cannot start the session's thread: {e}"),
            ));
        }
        lock(registry()).insert(id, sess.clone());
        Ok((handle, sess))
    }

    fn set_login(&self, state: LoginState) {
        *lock(&self.login) = state;
        self.signal();
        self.changed.notify_all();
    }

    /// Makes the socket readable.
    fn signal(&self) {
        // SAFETY: writes one byte from a valid buffer to our own pipe.
        unsafe { libc::write(self.write_end.as_raw_fd(), [1u8].as_ptr().cast(), 1) };
    }

    /// Makes the socket unreadable again.
    fn drain(&self) {
        let mut buf = [0u8; 16];
        // SAFETY: reads into a valid buffer from our own non-blocking pipe.
        while unsafe {
            libc::read(
                self.read_end.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        } > 0
        {}
    }

    /// The descriptor that becomes readable when a non-blocking login or
    /// call has finished.
    pub fn socket(&self) -> RawFd {
        self.read_end.as_raw_fd()
    }

    /// The login's outcome: `None` while it runs, after which the socket is drained.
    pub fn login_outcome(&self) -> Option<Result<(), GciErrSType>> {
        let state = lock(&self.login);
        match &*state {
            LoginState::Pending => None,
            LoginState::Ready => {
                self.drain();
                Some(Ok(()))
            }
            LoginState::Failed(e) => {
                self.drain();
                Some(Err((**e).clone()))
            }
        }
    }

    /// Waits for the login to finish.
    pub fn wait_login(&self) -> Result<(), GciErrSType> {
        let mut state = lock(&self.login);
        while matches!(*state, LoginState::Pending) {
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        drop(state);
        self.login_outcome()
            .unwrap_or_else(|| Err(session_lost("login state lost")))
    }

    fn ready(&self) -> Result<(), GciErrSType> {
        match &*lock(&self.login) {
            LoginState::Ready => Ok(()),
            LoginState::Pending => Err(GciErrSType::gemstone(
                abi::GCI_ERR_OP_IN_PROGRESS,
                "the session's non-blocking login has not finished",
            )),
            LoginState::Failed(_) => Err(bad_session()),
        }
    }

    fn send(&self, job: Job) -> Result<(), GciErrSType> {
        match &*lock(&self.jobs) {
            Some(tx) => tx
                .send(job)
                .map_err(|_| session_lost("the session's engine has ended")),
            None => Err(bad_session()),
        }
    }

    /// Runs `f` and waits for its answer: on the calling thread when its stack
    /// has room for an evaluation, else on the session's thread.
    pub fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Engine) -> T + Send + 'static,
    ) -> Result<T, GciErrSType> {
        self.idle()?;
        let _busy = Busy::enter(&self.blocking);
        if caller_stack_room() >= EVALUATION_ROOM {
            return self.here(f);
        }
        let (tx, rx) = mpsc::sync_channel(1);
        self.send(Box::new(move |e: &mut Engine| {
            let _ = tx.send(f(e));
        }))?;
        rx.recv()
            .map_err(|_| session_lost("the session's engine ended during the call"))
    }

    /// Runs `f` on the calling thread whatever its stack: only for calls that
    /// run no Smalltalk and no collection (fetches, the export set).
    pub fn read<T>(&self, f: impl FnOnce(&mut Engine) -> T) -> Result<T, GciErrSType> {
        self.idle()?;
        self.here(f)
    }

    /// Refuses a call while the login is unfinished or a non-blocking call
    /// is under way.
    fn idle(&self) -> Result<(), GciErrSType> {
        self.ready()?;
        if !matches!(*lock(&self.nb), Nb::Idle) {
            return Err(in_progress());
        }
        Ok(())
    }

    fn here<T>(&self, f: impl FnOnce(&mut Engine) -> T) -> Result<T, GciErrSType> {
        match lock(&self.engine).as_mut() {
            Some(e) => Ok(f(e)),
            None => Err(session_lost("the session has logged out")),
        }
    }

    /// Starts `f` on the session's thread without waiting.
    pub fn start_nb(
        self: &Arc<Self>,
        f: impl FnOnce(&mut Engine) -> Result<OopType, GciErrSType> + Send + 'static,
    ) -> Result<(), GciErrSType> {
        self.ready()?;
        {
            let mut nb = lock(&self.nb);
            if !matches!(*nb, Nb::Idle) {
                return Err(in_progress());
            }
            *nb = Nb::Running;
        }
        let me = self.clone();
        let sent = self.send(Box::new(move |e: &mut Engine| {
            let r = f(e).map_err(Box::new);
            *lock(&me.nb) = Nb::Done(r);
            me.signal();
            me.changed.notify_all();
        }));
        if let Err(e) = sent {
            *lock(&self.nb) = Nb::Idle;
            return Err(e);
        }
        Ok(())
    }

    /// `GciTsNbPoll`: 1 when the result is ready, 0 when not yet (after
    /// waiting up to `timeout_ms`, -1 forever).
    pub fn poll(&self, timeout_ms: i32) -> Result<bool, GciErrSType> {
        match &*lock(&self.nb) {
            Nb::Idle => {
                return Err(GciErrSType::gemstone(
                    abi::GCI_ERR_NO_START_CMD,
                    "no non-blocking call is in progress",
                ))
            }
            Nb::Done(_) => return Ok(true),
            Nb::Running => {}
        }
        let mut pfd = libc::pollfd {
            fd: self.socket(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: polls one valid pollfd.
        unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
        Ok(matches!(*lock(&self.nb), Nb::Done(_)))
    }

    /// `GciTsNbResult`: waits for the non-blocking call and collects its result.
    pub fn result(&self) -> Result<OopType, GciErrSType> {
        let mut nb = lock(&self.nb);
        loop {
            match std::mem::replace(&mut *nb, Nb::Idle) {
                Nb::Idle => {
                    return Err(GciErrSType::gemstone(
                        abi::GCI_ERR_NO_START_CMD,
                        "no non-blocking call is in progress",
                    ))
                }
                Nb::Done(r) => {
                    self.drain();
                    return r.map_err(|e| *e);
                }
                Nb::Running => {
                    *nb = Nb::Running;
                    nb = self.changed.wait(nb).unwrap_or_else(|p| p.into_inner());
                }
            }
        }
    }

    /// Whether a call is running (blocking or not, result uncollected included).
    pub fn busy(&self) -> bool {
        self.blocking.load(Ordering::SeqCst) > 0 || !matches!(*lock(&self.nb), Nb::Idle)
    }

    /// Breaks the running call; nothing when none runs (a break must never
    /// hit the next call).
    pub fn interrupt(&self, hard: bool) {
        let running =
            self.blocking.load(Ordering::SeqCst) > 0 || matches!(*lock(&self.nb), Nb::Running);
        if !running {
            return;
        }
        if let Some(i) = &*lock(&self.interrupter) {
            if hard {
                i.hard_break();
            } else {
                i.soft_break();
            }
        }
    }

    /// Ends the session: a running call is broken hard, the queue closed, and
    /// the thread logs out once the call has unwound.
    pub fn shut_down(&self) {
        self.interrupt(true);
        lock(&self.jobs).take();
    }
}
