//! The GCI backend: a [`Login`] to a GemStone/S 64 stone through its
//! thread-safe C library, loaded at run time (`library.rs`).
//!
//! An evaluation is one blocking `GciTsExecute` on the engine thread; the
//! reader thread breaks it with `GciTsBreak` through the [`Breaker`] (the
//! library allows that from any thread, and ignores a break when no call
//! runs). Blocking, not `GciTsNbExecute` and a wait on the socket, because a
//! library that runs the call in the caller's thread answers it without a
//! thread hand-over. Results come back as UTF-8, the first page in the same
//! call as the encoding, later pages of any total length; objects are
//! released in batches. A Smalltalk error becomes the same [`StError`] the
//! embedded stone gives (number, class name, messageText, description, and
//! for a compile error its offset and line); a fatal error ends the worker,
//! so its client hears `sessionGone`.

// GemStone's error struct is a fixed 2 KB, made only on a failure
#![allow(clippy::result_large_err)]

pub mod library;

use crate::backend::{Breaker, Login, LoginError};
use gsmcp_gci_abi::product::{has_jwt_logins, JWT_LOGINS_SINCE};
use gsmcp_gci_abi::{self as abi, GciErrSType, GciSession, OopType};
use gsmcp_ipc::Credential;
use gsmcp_smalltalk::{ErrorKind, StError, TransactionMark};
use library::Library;
use std::ffi::CString;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The first page of a result: most answers fit it, in one library call.
const FIRST_PAGE: usize = 16 << 10;
/// The page size longer results are fetched in.
const PAGE: usize = 256 << 10;
/// How many small objects wait to be released together.
const RELEASE_BATCH: usize = 16;
/// How long a login may take before it is given up.
const LOGIN_BOUND: Duration = Duration::from_secs(60);
/// The least time between a soft and a hard break: a hard break sooner has
/// been seen to crash the client library.
const HARD_AFTER_SOFT: Duration = Duration::from_millis(300);

/// A session handle, shared with the breaker (the library is thread-safe).
#[derive(Clone, Copy)]
struct Handle(GciSession);
// SAFETY: GciTs sessions may be used from any thread; the library serialises.
unsafe impl Send for Handle {}
// SAFETY: as for Send: the library serialises calls on one session itself.
unsafe impl Sync for Handle {}

impl Handle {
    /// The raw handle (a method, so closures capture the whole `Send` handle).
    fn ptr(self) -> GciSession {
        self.0
    }
}

/// Everything the backend needs to log in.
pub struct Settings<'a> {
    /// `$GEMSTONE`, the product directory the library is found under.
    pub gemstone: Option<&'a str>,
    /// `MCP_GCI_LIBRARY`, a library file named directly.
    pub library: Option<&'a str>,
    /// The stone's name (`MCP_STONE`).
    pub stone: &'a str,
    /// The gem's NRS (`MCP_GEM_NRS`).
    pub gem_nrs: &'a str,
    /// The NetLDI (`MCP_NETLDI`), for a remote or RPC gem.
    pub netldi: Option<&'a str>,
    /// The host user the gem runs as (`MCP_HOST_USER`).
    pub host_user: Option<&'a str>,
    /// That user's host password.
    pub host_password: Option<&'a str>,
    /// The GemStone user to log in as.
    pub user: &'a str,
    /// Its password, or the session's access token (a JWT login).
    pub credential: &'a Credential,
}

/// One GCI session: the library, the session handle and its breaker.
pub struct GciLogin {
    lib: Arc<Library>,
    sess: Handle,
    breaker: Arc<GciBreaker>,
    user: String,
    stone: String,
    /// Objects finished with, waiting to be released in one call.
    pending: Mutex<Vec<OopType>>,
    /// The stack report of the error that ended the last evaluation.
    last_stack: Mutex<Option<String>>,
}

struct GciBreaker {
    lib: Arc<Library>,
    sess: Handle,
    last_soft: Mutex<Option<Instant>>,
}

impl Breaker for GciBreaker {
    fn soft_break(&self) {
        *self.last_soft.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        let mut err = GciErrSType::default();
        // SAFETY: a live session; GciTsBreak may be called from any thread.
        unsafe { (self.lib.brk)(self.sess.0, abi::FALSE, &mut err) };
    }
    fn hard_break(&self) {
        let since = self
            .last_soft
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .map(|t| t.elapsed());
        let wait = since.and_then(|s| HARD_AFTER_SOFT.checked_sub(s));
        let (lib, sess) = (self.lib.clone(), self.sess);
        let send = move || {
            let mut err = GciErrSType::default();
            // SAFETY: as for the soft break.
            unsafe { (lib.brk)(sess.ptr(), abi::TRUE, &mut err) };
        };
        match wait {
            // never block the caller (the IPC reader) for the pause
            Some(w) => {
                let _ = std::thread::Builder::new()
                    .name("gci-hard-break".into())
                    .spawn(move || {
                        std::thread::sleep(w);
                        send();
                    });
            }
            None => send(),
        }
    }
    fn clear(&self) {
        // GemStone ignores a break when no call runs: nothing stays pending
    }
}

fn cstring(what: &str, s: &str) -> Result<CString, LoginError> {
    CString::new(s).map_err(|_| LoginError::Refused(format!("{what} contains a NUL character")))
}

/// What a failed login means, and the setting to change.
fn login_error(err: &GciErrSType, s: &Settings, lib: &Library) -> LoginError {
    let msg = err.message_text();
    let text = match err.number {
        abi::GS_ERR_LOGIN_DENIAL if matches!(s.credential, Credential::Jwt(_)) => format!(
            "the stone refused the access token as a login for user {:?}: the user must be \
             enabled for JWT logins (UserProfile>>enableJwtAuthenticationWith:) with settings \
             that accept the token, and the stone must trust the key that signed it (System \
             addJwtKey:withId:) [{msg}]",
            s.user
        ),
        abi::GS_ERR_LOGIN_DENIAL => format!(
            "the stone refused user {:?}: the user id or password is not valid (check \
             MCP_WORKER_USER and MCP_WORKER_PASSWORD or MCP_WORKER_PASSWORD_FILE) [{msg}]",
            s.user
        ),
        abi::NET_ERR_NO_SUCH_STN => format!(
            "no stone {:?} was found (check MCP_STONE; `gslist -l` on the stone's host lists \
             the running stones) [{msg}]",
            s.stone
        ),
        abi::ERR_IN_LOGIN => format!(
            "the login failed before reaching the stone: often the NetLDI was not found or \
             refused the gem (check MCP_GEM_NRS, MCP_NETLDI and the host user) [{msg}]"
        ),
        abi::LGC_ERR_INCOMPAT_GCI => format!(
            "the library {} (GemStone {}) does not match the stone's version: use the client \
             library of the stone's release (GEMSTONE or MCP_GCI_LIBRARY) [{msg}]",
            lib.path.display(),
            lib.version
        ),
        n => format!("the login failed with GemStone error {n}: {msg}"),
    };
    LoginError::Refused(text)
}

/// The most frames a failed evaluation's stack report is asked for.
const STACK_LEVELS: i64 = 100;

/// Waits for `fd` to become readable (a finished call), up to `bound`.
fn wait_readable(fd: i32, bound: Option<Duration>) -> bool {
    let start = Instant::now();
    loop {
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: polls one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, 200) };
        if n > 0 {
            return true;
        }
        if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return false;
        }
        if bound.is_some_and(|b| start.elapsed() > b) {
            return false;
        }
    }
}

/// Logs in through the library `settings` name.
pub fn login(settings: &Settings) -> Result<Box<dyn Login>, LoginError> {
    let (path, version) = library::locate(settings.gemstone, settings.library)
        .map_err(|e| LoginError::Library(e.to_string()))?;
    // what the login proves itself with decides, before anything is loaded,
    // whether this library can make it
    let (password, flags) = match settings.credential {
        Credential::Password(p) => (cstring("the worker password", p)?, abi::GCI_LOGIN_QUIET),
        Credential::Jwt(token) => {
            if !has_jwt_logins(&version) {
                return Err(LoginError::Library(format!(
                    "the GCI library {} is GemStone {version}, whose logins do not take a JSON \
                     Web Token: per-user workers need {JWT_LOGINS_SINCE} or later (or set \
                     MCP_WORKER_LOGIN=shared)",
                    path.display()
                )));
            }
            (
                cstring("the access token", token)?,
                abi::GCI_LOGIN_QUIET | abi::GCI_JWT_PASSWORD,
            )
        }
        Credential::Ticket(_) => {
            return Err(LoginError::Refused(
                "a login ticket is for the embedded stone; a GemStone stone takes a password \
                 or an access token"
                    .into(),
            ))
        }
    };
    if let Some(g) = settings.gemstone {
        // the library reads the product directory (and NetLDI lock files) from here
        std::env::set_var("GEMSTONE", g);
    }
    if let Some(n) = settings.netldi {
        std::env::set_var("GEMSTONE_NRS_ALL", format!("#netldi:{n}"));
    }
    let lib =
        Arc::new(Library::load(&path, &version).map_err(|e| LoginError::Library(e.to_string()))?);
    let stone = cstring("MCP_STONE", settings.stone)?;
    let gem = cstring("MCP_GEM_NRS", settings.gem_nrs)?;
    let user = cstring("MCP_WORKER_USER", settings.user)?;
    let host_user = settings
        .host_user
        .map(|u| cstring("the host user", u))
        .transpose()?;
    let host_password = settings
        .host_password
        .map(|p| cstring("the host password", p))
        .transpose()?;
    let ptr = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
    let mut err = GciErrSType::default();
    let mut init = abi::FALSE;
    let sess = match (lib.nb_login, lib.nb_login_finished) {
        (Some(nb_login), Some(finished)) => {
            let mut fd = -1;
            // SAFETY: valid C strings; out-parameters point at locals.
            let s = unsafe {
                nb_login(
                    stone.as_ptr(),
                    ptr(&host_user),
                    ptr(&host_password),
                    abi::FALSE,
                    gem.as_ptr(),
                    user.as_ptr(),
                    password.as_ptr(),
                    flags,
                    0,
                    &mut fd,
                )
            };
            if s.is_null() {
                return Err(LoginError::Refused(
                    "the GCI library could not start a login".into(),
                ));
            }
            let start = Instant::now();
            loop {
                // SAFETY: a session handle the library gave us.
                match unsafe { finished(s, &mut init, &mut err) } {
                    1 => break s,
                    0 if start.elapsed() < LOGIN_BOUND => {
                        wait_readable(fd, Some(Duration::from_millis(500)));
                    }
                    0 => {
                        return Err(LoginError::Refused(format!(
                            "the login did not finish within {LOGIN_BOUND:?} (is the stone {} reachable?)",
                            settings.stone
                        )))
                    }
                    _ => return Err(login_error(&err, settings, &lib)),
                }
            }
        }
        _ => {
            // SAFETY: as above.
            let s = unsafe {
                (lib.login)(
                    stone.as_ptr(),
                    ptr(&host_user),
                    ptr(&host_password),
                    abi::FALSE,
                    gem.as_ptr(),
                    user.as_ptr(),
                    password.as_ptr(),
                    flags,
                    0,
                    &mut init,
                    &mut err,
                )
            };
            if s.is_null() {
                return Err(login_error(&err, settings, &lib));
            }
            s
        }
    };
    let sess = Handle(sess);
    let breaker = Arc::new(GciBreaker {
        lib: lib.clone(),
        sess,
        last_soft: Mutex::new(None),
    });
    let mut login = GciLogin {
        lib,
        sess,
        breaker,
        user: String::new(),
        stone: String::new(),
        pending: Mutex::new(Vec::new()),
        last_stack: Mutex::new(None),
    };
    login.user = login
        .evaluate_string("System myUserProfile userId")
        .map_err(|e| LoginError::Refused(format!("cannot read the login's user: {e}")))?;
    login.stone = login
        .evaluate_string("System stoneName")
        .unwrap_or_else(|_| settings.stone.to_string());
    Ok(Box::new(login))
}

impl GciLogin {
    fn s(&self) -> GciSession {
        self.sess.0
    }

    /// Ends the worker: the session is gone, and only the router can tell the
    /// client (`sessionGone`).
    fn lost(&self, err: &GciErrSType) -> ! {
        tracing::error!(
            number = err.number,
            "the GemStone session was lost: {}",
            err.message_text()
        );
        std::process::exit(75)
    }

    /// Gives objects back to the stone. Small ones wait in a batch (one
    /// library call, a round trip on a real stone, per [`RELEASE_BATCH`]);
    /// `now` sends the batch at once, for a result that may hold memory.
    fn release(&self, oops: &[OopType], now: bool) {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.extend(
            oops.iter()
                .copied()
                .filter(|&o| !abi::oop_is_special(o) && o != abi::OOP_ILLEGAL),
        );
        if pending.is_empty() || (!now && pending.len() < RELEASE_BATCH) {
            return;
        }
        let mut err = GciErrSType::default();
        // SAFETY: a live session and a valid buffer of OOPs.
        unsafe {
            (self.lib.release_objs)(self.s(), pending.as_ptr(), pending.len() as i32, &mut err)
        };
        pending.clear();
    }

    fn perform(
        &self,
        recv: OopType,
        selector: &str,
        args: &[OopType],
    ) -> Result<OopType, GciErrSType> {
        let sel = CString::new(selector).expect("selectors have no NUL");
        let mut err = GciErrSType::default();
        // SAFETY: a live session, a C string and a valid argument buffer.
        let r = unsafe {
            (self.lib.perform)(
                self.s(),
                recv,
                abi::OOP_ILLEGAL,
                sel.as_ptr(),
                args.as_ptr(),
                args.len() as i32,
                0,
                0,
                &mut err,
            )
        };
        if r == abi::OOP_ILLEGAL && err.number != 0 {
            return Err(err);
        }
        Ok(r)
    }

    /// The UTF-8 text of a String-like object, in one call when it fits the
    /// first page. A String with code points above 127 is encoded by the
    /// stone, which answers the new Utf8 object; the later pages come from it.
    fn fetch_text(&self, string: OopType) -> Result<String, GciErrSType> {
        let mut out = Vec::new();
        let mut page = vec![0u8; FIRST_PAGE];
        let mut from = string;
        let mut encoded = abi::OOP_NIL;
        let fetched = loop {
            let mut err = GciErrSType::default();
            let mut made = abi::OOP_NIL;
            // SAFETY: `page` has its length of writable bytes; `made` is writable.
            let n = unsafe {
                (self.lib.fetch_utf8_bytes)(
                    self.s(),
                    from,
                    out.len() as i64 + 1,
                    page.as_mut_ptr(),
                    page.len() as i64,
                    &mut made,
                    &mut err,
                    0,
                )
            };
            if made != abi::OOP_NIL && made != abi::OOP_ILLEGAL && encoded == abi::OOP_NIL {
                encoded = made;
                from = made;
            }
            if n < 0 {
                break Err(err);
            }
            let n = n as usize;
            out.extend_from_slice(&page[..n]);
            if n < page.len() {
                break Ok(());
            }
            page.resize(PAGE, 0);
        };
        self.release(&[encoded], out.len() >= FIRST_PAGE);
        fetched?;
        Ok(String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    fn fetch_oops(&self, oop: OopType, n: usize) -> Vec<OopType> {
        let mut buf = vec![abi::OOP_NIL; n];
        let mut err = GciErrSType::default();
        // SAFETY: `buf` holds n OOPs.
        let got = unsafe {
            (self.lib.fetch_oops)(self.s(), oop, 1, buf.as_mut_ptr(), n as i32, &mut err)
        };
        buf.truncate(got.max(0) as usize);
        buf
    }

    /// The optional text of an object (nil answers `None`).
    fn text_or_nil(&self, oop: OopType) -> Option<String> {
        (oop != abi::OOP_NIL)
            .then(|| self.fetch_text(oop).ok())
            .flatten()
    }

    /// The stack report of a failed evaluation: GemStone leaves the halted
    /// process in `err.context`, whose report is asked for as Jasper asks
    /// (`stackReportToLevel:withArgsAndTemps:andMethods:`); a stone that
    /// leaves none (the embedded one through gsmcp's library) is asked for
    /// its exception's own `stackReport`. `None` when neither answers.
    fn error_stack(&self, err: &GciErrSType) -> Option<String> {
        let live = |o: OopType| o != abi::OOP_NIL && o != abi::OOP_ILLEGAL;
        let report = if live(err.context) {
            let level = abi::small_int_oop(STACK_LEVELS)?;
            self.perform(
                err.context,
                "stackReportToLevel:withArgsAndTemps:andMethods:",
                &[level, abi::OOP_FALSE, abi::OOP_FALSE],
            )
        } else if live(err.exception_obj) && err.number != 1001 {
            self.perform(err.exception_obj, "stackReport", &[])
        } else {
            return None;
        }
        .ok()?;
        let text = self.text_or_nil(report);
        self.release(&[report], false);
        text.filter(|t| !t.trim().is_empty())
    }

    /// The [`StError`] a GemStone error report describes, as the embedded
    /// stone would give it.
    fn st_error(&self, source: &str, err: &GciErrSType) -> StError {
        if err.fatal != 0 || (4000..5000).contains(&err.number) {
            self.lost(err);
        }
        let number = err.number.max(0) as u32;
        let kind = match number {
            1001 => ErrorKind::Compile,
            6003 | 6004 => ErrorKind::Break,
            3139 | 3140 => ErrorKind::Limit,
            _ => ErrorKind::Runtime,
        };
        let mut e = StError {
            kind,
            number,
            class_name: String::new(),
            message_text: None,
            description: err.message_text(),
            offset: None,
            line: None,
        };
        if number == 1001 {
            e.class_name = "CompileError".into();
            // arg 1: an Array of {errorNumber. offset. text} (GemStone's errorDetails)
            if err.arg_count >= 1 {
                if let Some(&first) = self.fetch_oops(err.args[0], 1).first() {
                    let d = self.fetch_oops(first, 3);
                    if let (Some(off), Some(&text)) =
                        (d.get(1).copied().and_then(abi::small_int_value), d.get(2))
                    {
                        let off = off.max(1) as usize;
                        e.offset = Some(off);
                        e.line =
                            Some(1 + source.chars().take(off - 1).filter(|&c| c == '\n').count());
                        e.message_text = self.text_or_nil(text);
                    }
                }
            }
        } else if err.exception_obj != abi::OOP_NIL {
            let ex = err.exception_obj;
            let parts: Vec<Option<String>> = ["class", "messageText", "description"]
                .iter()
                .map(|sel| {
                    let v = self.perform(ex, sel, &[]).ok()?;
                    let t = if *sel == "class" {
                        let name = self.perform(v, "name", &[]).ok();
                        name.and_then(|n| {
                            let t = self.text_or_nil(n);
                            self.release(&[n], false);
                            t
                        })
                    } else {
                        self.text_or_nil(v)
                    };
                    self.release(&[v], false);
                    t
                })
                .collect();
            e.class_name = parts[0].clone().unwrap_or_else(|| "Error".into());
            e.message_text = parts[1].clone();
            if let Some(d) = parts[2].clone() {
                e.description = d;
            }
        }
        let stack = self.error_stack(err);
        if let Ok(mut last) = self.last_stack.lock() {
            *last = stack;
        }
        if err.context != abi::OOP_NIL && err.context != abi::OOP_ILLEGAL {
            let mut e2 = GciErrSType::default();
            // SAFETY: the process the error left, on a live session.
            unsafe { (self.lib.clear_stack)(self.s(), err.context, &mut e2) };
        }
        self.release(&[err.exception_obj, err.args[0]], false);
        e
    }

    /// Runs `source` as a doit. The call blocks this thread; a break from
    /// the reader thread ends it (`GciTsBreak` may be called from any thread).
    fn execute(&self, source: &str) -> Result<OopType, GciErrSType> {
        let mut err = GciErrSType::default();
        // a source with a NUL cannot travel as a C string: it goes as an object
        let (text, source_obj) = match CString::new(source) {
            Ok(c) => (Some(c), abi::OOP_CLASS_UTF8),
            Err(_) => {
                // SAFETY: `source` is valid for its length.
                let obj = unsafe {
                    (self.lib.new_utf8_string)(
                        self.s(),
                        source.as_ptr().cast(),
                        source.len(),
                        abi::TRUE,
                        &mut err,
                    )
                };
                if obj == abi::OOP_ILLEGAL {
                    return Err(err);
                }
                (None, obj)
            }
        };
        // SAFETY: a live session, and a C string or NULL with the source object.
        let r = unsafe {
            (self.lib.execute)(
                self.s(),
                text.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
                source_obj,
                abi::OOP_NO_CONTEXT,
                abi::OOP_NIL,
                0,
                0,
                &mut err,
            )
        };
        if text.is_none() {
            self.release(&[source_obj], true);
        }
        if r == abi::OOP_ILLEGAL {
            return Err(err);
        }
        Ok(r)
    }

    fn evaluate(&mut self, source: &str, print: bool) -> Result<String, StError> {
        if let Ok(mut last) = self.last_stack.lock() {
            *last = None;
        }
        let result = self.execute(source);
        let result = result.map_err(|e| self.st_error(source, &e))?;
        let (text, printed) = if print {
            match self.perform(result, "printString", &[]) {
                Ok(p) => (self.fetch_text(p), p),
                Err(e) => (Err(e), abi::OOP_NIL),
            }
        } else {
            (self.fetch_text(result), abi::OOP_NIL)
        };
        let large = text.as_ref().map_or(true, |t| t.len() >= FIRST_PAGE);
        self.release(&[result, printed], large);
        text.map_err(|e| {
            // a tool's own Smalltalk answers Strings; anything else is named
            if !print && e.fatal == 0 && !(4000..5000).contains(&e.number) {
                StError {
                    kind: ErrorKind::Runtime,
                    number: 2094,
                    class_name: "ArgumentTypeError".into(),
                    message_text: Some("the result is not a String".into()),
                    description:
                        "a ArgumentTypeError occurred (error 2094), the result is not a String"
                            .into(),
                    offset: None,
                    line: None,
                }
            } else {
                self.st_error(source, &e)
            }
        })
    }
}

impl Login for GciLogin {
    fn evaluate_print_string(&mut self, source: &str) -> Result<String, StError> {
        self.evaluate(source, true)
    }
    fn evaluate_string(&mut self, source: &str) -> Result<String, StError> {
        self.evaluate(source, false)
    }
    fn last_error_stack(&self) -> Option<String> {
        self.last_stack.lock().ok().and_then(|s| s.clone())
    }
    fn user(&self) -> String {
        self.user.clone()
    }
    fn stone(&self) -> String {
        self.stone.clone()
    }
    fn breaker(&self) -> Arc<dyn Breaker> {
        self.breaker.clone()
    }
    fn refresh(&mut self) -> Result<(), StError> {
        self.evaluate_print_string("System continueTransaction")
            .map(|_| ())
    }
    fn commits_behind(&self) -> Option<u64> {
        None
    }
    fn transaction_mark(&self) -> Option<TransactionMark> {
        None
    }
    fn system_print_string(&mut self, selector: &str) -> Result<String, StError> {
        let what = format!("System {selector}");
        let result = self
            .perform(abi::OOP_CLASS_SYSTEM, selector, &[])
            .map_err(|e| self.st_error(&what, &e))?;
        let printed = self.perform(result, "printString", &[]);
        let text = printed.and_then(|p| self.fetch_text(p).map(|t| (t, p)));
        match text {
            Ok((text, printed)) => {
                self.release(&[result, printed], false);
                Ok(text)
            }
            Err(e) => {
                self.release(&[result], false);
                Err(self.st_error(&what, &e))
            }
        }
    }
    fn set_policy(&mut self, _policy: gsmcp_smalltalk::EvalPolicy) {
        // GemStone offers no kernel-only dispatch or per-evaluation commit
        // switch; its own security rules govern what an evaluation may do
    }
    fn logout(self: Box<Self>) {
        let mut err = GciErrSType::default();
        // SAFETY: the session is ours and no call runs.
        if unsafe { (self.lib.logout)(self.s(), &mut err) } == abi::FALSE {
            tracing::warn!("logout failed: {}", err.message_text());
        }
    }
}
