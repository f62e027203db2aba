//! The exported C functions, one per GCI call, in the order of GemStone's
//! own header sections: login, execution, non-blocking calls, transactions,
//! object creation and conversion, structural access, the export set.
//!
//! Every function validates its pointers, runs its work on the session's
//! thread (`session.rs`), converts between OOPs and objects (`oops.rs`), and
//! reports a failure in the caller's `GciErrSType` with the sentinel the
//! GemStone documentation names for that call.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

use crate::session::{self, Engine};
use crate::stone;
use gsmcp_gci_abi::{self as abi, BoolType, GciErrSType, GciSession, GciTsObjInfo, OopType};
use gsmcp_smalltalk::{ExecError, Object, Shape};
use std::ffi::{c_char, c_int, c_uint, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The version this library presents itself as.
pub const VERSION: &str = "3.7.5";

type R<T> = Result<T, GciErrSType>;

/// Runs `body`, turning an error or a panic into `err` and `fail`.
fn guard<T>(err: *mut GciErrSType, fail: T, body: impl FnOnce() -> R<T>) -> T {
    let out = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|p| {
        let text = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(GciErrSType::gemstone(
            2717,
            &format!("internal error in the GCI library: {text}"),
        ))
    });
    match out {
        Ok(v) => {
            if !err.is_null() {
                // SAFETY: the caller passed a writable GciErrSType.
                unsafe { (*err).number = 0 };
            }
            v
        }
        Err(e) => {
            if !err.is_null() {
                // SAFETY: the caller passed a writable GciErrSType.
                unsafe { *err = e };
            }
            fail
        }
    }
}

fn arg_error(text: &str) -> GciErrSType {
    GciErrSType::gemstone(abi::ERR_ARGUMENT_ERROR, text)
}

/// A C string argument (NULL allowed).
unsafe fn opt_str(p: *const c_char) -> R<Option<String>> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller passed a NUL-terminated string.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    String::from_utf8(bytes.to_vec())
        .map(Some)
        .map_err(|_| arg_error("a string argument is not valid UTF-8"))
}

unsafe fn req_str(p: *const c_char, what: &str) -> R<String> {
    // SAFETY: forwarded.
    unsafe { opt_str(p) }?.ok_or_else(|| arg_error(&format!("{what} is NULL")))
}

/// `n` bytes at `p`, or up to the NUL when `n` is negative.
unsafe fn bytes_arg<'a>(p: *const c_char, n: isize) -> R<&'a [u8]> {
    if p.is_null() {
        return Err(arg_error("a source or string argument is NULL"));
    }
    if n < 0 {
        // SAFETY: the caller passed a NUL-terminated string.
        Ok(unsafe { CStr::from_ptr(p) }.to_bytes())
    } else {
        // SAFETY: the caller passed n readable bytes.
        Ok(unsafe { std::slice::from_raw_parts(p.cast(), n as usize) })
    }
}

/// Source text as the class it is said to be in: UTF-8 for Utf8 (and any
/// class but String), Latin-1 for String.
fn source_text(bytes: &[u8], class: OopType) -> R<String> {
    if class == abi::OOP_CLASS_STRING {
        if let Ok(s) = std::str::from_utf8(bytes) {
            if s.is_ascii() {
                return Ok(s.to_string());
            }
        }
        return Ok(bytes.iter().map(|&b| b as char).collect());
    }
    String::from_utf8(bytes.to_vec()).map_err(|_| arg_error("the source is not valid UTF-8"))
}

fn set<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: the caller passed a writable out-parameter.
        unsafe { *p = v };
    }
}

fn st_error(e: gsmcp_smalltalk::StError) -> GciErrSType {
    let mut g = GciErrSType::gemstone(e.number as i32, &e.description);
    if let Some(m) = &e.message_text {
        g.set_reason(m);
    }
    g
}

impl Engine {
    fn obj(&self, oop: OopType) -> R<Object> {
        let o = self.oops.decode(oop).ok_or_else(|| {
            GciErrSType::gemstone(
                abi::OBJ_ERR_DOES_NOT_EXIST,
                &format!("object with OOP {oop} does not exist"),
            )
        })?;
        if !self.session.exists(o) {
            return Err(GciErrSType::gemstone(
                abi::OBJ_ERR_DOES_NOT_EXIST,
                &format!("object with OOP {oop} does not exist"),
            ));
        }
        Ok(o)
    }

    fn oop(&mut self, o: Object) -> OopType {
        self.oops.encode(o)
    }

    /// The error report GemStone gives for a failed evaluation.
    fn exec_error(&mut self, e: ExecError) -> GciErrSType {
        let mut g = st_error(e.error);
        g.exception_obj = self.oop(e.exception);
        if let Some((number, offset, text)) = e.compile {
            let text = self.session.new_string(&text);
            let detail = self.session.new_array(&[
                Object::SmallInteger(number as i64),
                Object::SmallInteger(offset as i64),
                text,
            ]);
            if let Ok(detail) = detail {
                if let Ok(list) = self.session.new_array(&[detail]) {
                    g.args[0] = self.oop(list);
                    g.arg_count = 1;
                }
                self.session.release(detail);
            }
            self.session.release(text);
        }
        g
    }

    fn execute(&mut self, source: &str, context: OopType) -> R<OopType> {
        let crash = std::env::var("GSMCP_GCI_CRASH_MARK")
            .ok()
            .filter(|m| !m.is_empty());
        if crash.is_some_and(|m| source.contains(&m)) {
            // the test-only crash (a source holding the marker the environment
            // names): a real SIGSEGV inside the library
            // SAFETY: none: this store faults on purpose, as a bug in a native
            // library would (a raised signal would be absorbed by Rust's own
            // handler; a real fault is not).
            unsafe { std::ptr::write_volatile(std::ptr::dangling_mut::<u64>().wrapping_add(1), 0) };
        }
        let ctx = if context == abi::OOP_ILLEGAL {
            Object::Nil
        } else {
            self.obj(context)?
        };
        match self.session.execute(source, ctx) {
            Ok(o) => Ok(self.oop(o)),
            Err(e) => Err(self.exec_error(e)),
        }
    }

    fn perform(&mut self, recv: OopType, selector: &str, args: &[OopType]) -> R<OopType> {
        let r = self.obj(recv)?;
        let mut a = Vec::with_capacity(args.len());
        for &x in args {
            a.push(self.obj(x)?);
        }
        match self.session.perform(r, selector, &a) {
            Ok(o) => Ok(self.oop(o)),
            Err(e) => Err(self.exec_error(e)),
        }
    }

    fn symbol_text(&self, sym: OopType) -> R<String> {
        let o = self.obj(sym)?;
        self.session
            .string_of(o)
            .map_err(st_error)?
            .ok_or_else(|| arg_error("the selector is not a Symbol or String"))
    }

    fn byte_body(&self, oop: OopType) -> R<Vec<u8>> {
        let o = self.obj(oop)?;
        if self.session.shape(o).map_err(st_error)? != Shape::Bytes {
            return Err(GciErrSType::gemstone(
                2094,
                "the result is not a byte object (String, ByteArray, Utf8)",
            ));
        }
        self.session.fetch_bytes(o, 0, usize::MAX).map_err(st_error)
    }

    fn utf8_of(&self, oop: OopType) -> R<Vec<u8>> {
        let o = self.obj(oop)?;
        match self.session.string_of(o).map_err(st_error)? {
            Some(s) => Ok(s.into_bytes()),
            None => Err(GciErrSType::gemstone(
                2094,
                "the object is not a String, Symbol or Unicode string",
            )),
        }
    }
}

/// The session a handle names, or its error.
fn sess(s: GciSession) -> R<std::sync::Arc<session::Sess>> {
    session::find(s)
}

/// Copies `bytes` into the caller's buffer of `cap` bytes.
unsafe fn copy_out(dest: *mut u8, cap: usize, bytes: &[u8]) -> usize {
    let n = bytes.len().min(cap);
    if n > 0 && !dest.is_null() {
        // SAFETY: the caller passed `cap` writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dest, n) };
    }
    n
}

// ===================== login / logout / session =====================

/// A password as the login flags say it was passed.
fn password_arg(p: Option<String>, encrypted: bool) -> R<String> {
    let p = p.unwrap_or_default();
    if encrypted {
        decrypt(&p).ok_or_else(|| {
            GciErrSType::gemstone(
                abi::GS_ERR_LOGIN_DENIAL,
                "the encrypted password is not one GciTsEncrypt made",
            )
        })
    } else {
        Ok(p)
    }
}

/// Starts a login; answers the handle. `wait` blocks until it is done.
unsafe fn login_common(
    stone_nrs: *const c_char,
    gem_service: *const c_char,
    user: *const c_char,
    password: *const c_char,
    flags: c_uint,
    wait: bool,
) -> R<GciSession> {
    // SAFETY: forwarded C strings.
    let (stone_nrs, gem_service, user, password) = unsafe {
        (
            opt_str(stone_nrs)?,
            opt_str(gem_service)?,
            opt_str(user)?,
            opt_str(password)?,
        )
    };
    if flags & abi::GCI_LOGIN_IS_SUBORDINATE != 0 {
        return Err(arg_error(
            "GCI_LOGIN_IS_SUBORDINATE is not allowed for a thread-safe login",
        ));
    }
    if let Some(g) = &gem_service {
        if stone::split_nrs(g).1 == abi::GCI_LNK_SERVICE {
            return Err(GciErrSType::gemstone(
                abi::ERR_IN_LOGIN,
                "a linked login (gcilnkobj) is not possible with the thread-safe GCI",
            ));
        }
    }
    let Some(user) = user.filter(|u| !u.is_empty()) else {
        return Err(GciErrSType::gemstone(
            abi::GS_ERR_LOGIN_DENIAL,
            "login denied: no GemStone user name",
        ));
    };
    let password = password_arg(password, flags & abi::GCI_LOGIN_PW_ENCRYPTED != 0)?;
    let stone = stone::resolve(stone_nrs.as_deref())?;
    let (handle, s) = session::Sess::start(move || stone::login(&stone, &user, &password))?;
    if wait {
        if let Err(e) = s.wait_login() {
            session::remove(handle);
            return Err(e);
        }
    }
    Ok(handle)
}

/// Logs in to a stone as `user` and answers the session, or null with `err` set.
#[no_mangle]
pub unsafe extern "C" fn GciTsLogin(
    stone_nrs: *const c_char,
    _host_user: *const c_char,
    _host_password: *const c_char,
    _host_pw_encrypted: BoolType,
    gem_service: *const c_char,
    user: *const c_char,
    password: *const c_char,
    flags: c_uint,
    _halt_on_err: c_int,
    executed_session_init: *mut BoolType,
    err: *mut GciErrSType,
) -> GciSession {
    guard(err, std::ptr::null_mut(), || {
        // SAFETY: forwarded C strings.
        let h = unsafe { login_common(stone_nrs, gem_service, user, password, flags, true) }?;
        set(executed_session_init, abi::TRUE);
        Ok(h)
    })
}

/// `GciTsLogin` with the NetLDI named apart (3.7.4.1 and later).
#[no_mangle]
pub unsafe extern "C" fn GciTsLogin_(
    stone_nrs: *const c_char,
    host_user: *const c_char,
    host_password: *const c_char,
    host_pw_encrypted: BoolType,
    gem_service: *const c_char,
    user: *const c_char,
    password: *const c_char,
    _netldi: *const c_char,
    flags: c_uint,
    halt_on_err: c_int,
    executed_session_init: *mut BoolType,
    err: *mut GciErrSType,
) -> GciSession {
    // SAFETY: forwarded.
    unsafe {
        GciTsLogin(
            stone_nrs,
            host_user,
            host_password,
            host_pw_encrypted,
            gem_service,
            user,
            password,
            flags,
            halt_on_err,
            executed_session_init,
            err,
        )
    }
}

/// Starts a login and answers the session at once; its socket is polled until the login is done.
#[no_mangle]
pub unsafe extern "C" fn GciTsNbLogin(
    stone_nrs: *const c_char,
    _host_user: *const c_char,
    _host_password: *const c_char,
    _host_pw_encrypted: BoolType,
    gem_service: *const c_char,
    user: *const c_char,
    password: *const c_char,
    flags: c_uint,
    _halt_on_err: c_int,
    login_poll_socket: *mut c_int,
) -> GciSession {
    let mut err = GciErrSType::default();
    let h = guard(&mut err, std::ptr::null_mut(), || {
        // SAFETY: forwarded C strings.
        unsafe { login_common(stone_nrs, gem_service, user, password, flags, false) }
    });
    if h.is_null() {
        // the failure is reported by GciTsNbLoginFinished on a session that
        // failed at once: keep it for that call
        match session::Sess::start(move || Err(err)) {
            Ok((handle, s)) => {
                set(login_poll_socket, s.socket());
                return handle;
            }
            Err(_) => return std::ptr::null_mut(),
        }
    }
    if let Ok(s) = session::find(h) {
        set(login_poll_socket, s.socket());
    }
    h
}

/// `GciTsNbLogin` with the NetLDI name (not used by this library).
#[no_mangle]
pub unsafe extern "C" fn GciTsNbLogin_(
    stone_nrs: *const c_char,
    host_user: *const c_char,
    host_password: *const c_char,
    host_pw_encrypted: BoolType,
    gem_service: *const c_char,
    user: *const c_char,
    password: *const c_char,
    _netldi: *const c_char,
    flags: c_uint,
    halt_on_err: c_int,
    login_poll_socket: *mut c_int,
) -> GciSession {
    // SAFETY: forwarded.
    unsafe {
        GciTsNbLogin(
            stone_nrs,
            host_user,
            host_password,
            host_pw_encrypted,
            gem_service,
            user,
            password,
            flags,
            halt_on_err,
            login_poll_socket,
        )
    }
}

/// 1 done, 0 still running, -1 failed (the session is gone then).
#[no_mangle]
pub unsafe extern "C" fn GciTsNbLoginFinished(
    s: GciSession,
    executed_session_init: *mut BoolType,
    err: *mut GciErrSType,
) -> c_int {
    guard(err, -1, || {
        let sess = sess(s)?;
        match sess.login_outcome() {
            None => Ok(0),
            Some(Ok(())) => {
                set(executed_session_init, abi::TRUE);
                Ok(1)
            }
            Some(Err(e)) => {
                session::remove(s);
                Err(e)
            }
        }
    })
}

fn logout(s: GciSession) -> R<BoolType> {
    let sess = session::remove(s).ok_or_else(session::bad_session)?;
    sess.shut_down();
    Ok(abi::TRUE)
}

/// Logs the session out, discarding its uncommitted changes, and frees it.
#[no_mangle]
pub unsafe extern "C" fn GciTsLogout(s: GciSession, err: *mut GciErrSType) -> BoolType {
    guard(err, abi::FALSE, || logout(s))
}

/// `GciTsLogout` without waiting for a call in progress.
#[no_mangle]
pub unsafe extern "C" fn GciTsNbLogout(s: GciSession, err: *mut GciErrSType) -> BoolType {
    guard(err, abi::FALSE, || logout(s))
}

/// 1 for a session of this library (never a linked one), -1 for an invalid handle.
#[no_mangle]
pub extern "C" fn GciTsSessionIsRemote(s: GciSession) -> c_int {
    if session::find(s).is_ok() {
        1
    } else {
        -1
    }
}

/// The socket a non-blocking call's completion is signalled on.
#[no_mangle]
pub unsafe extern "C" fn GciTsSocket(s: GciSession, err: *mut GciErrSType) -> c_int {
    guard(err, -1, || Ok(sess(s)?.socket()))
}

/// Whether a non-blocking call is in progress on the session (1) or not (0).
#[no_mangle]
pub unsafe extern "C" fn GciTsCallInProgress(s: GciSession, err: *mut GciErrSType) -> c_int {
    guard(err, -1, || Ok(sess(s)?.busy() as c_int))
}

/// Breaks the session's running call: soft (an error the code may handle) or hard.
#[no_mangle]
pub unsafe extern "C" fn GciTsBreak(
    s: GciSession,
    hard: BoolType,
    err: *mut GciErrSType,
) -> BoolType {
    guard(err, abi::FALSE, || {
        sess(s)?.interrupt(hard != 0);
        Ok(abi::TRUE)
    })
}

/// Nothing to clear: the embedded stone unwinds an evaluation that ends in
/// an error, leaving no suspended process.
#[no_mangle]
pub unsafe extern "C" fn GciTsClearStack(
    s: GciSession,
    _process: OopType,
    err: *mut GciErrSType,
) -> BoolType {
    guard(err, abi::FALSE, || {
        sess(s)?;
        Ok(abi::TRUE)
    })
}

/// Continues a process stopped at an error; this library unwinds at every error, so it refuses.
#[no_mangle]
pub unsafe extern "C" fn GciTsContinueWith(
    s: GciSession,
    _process: OopType,
    _replace_top: OopType,
    _continue_with_error: *mut GciErrSType,
    _flags: c_int,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        sess(s)?;
        Err(GciErrSType::gemstone(
            abi::RT_ERR_UNCONTINUABLE_ERROR,
            "the process cannot be continued: the embedded stone unwinds an evaluation at its error",
        ))
    })
}

/// GemStone/S 64's product number; writes the version text.
#[no_mangle]
pub unsafe extern "C" fn GciTsVersion(buf: *mut c_char, size: usize) -> c_uint {
    let text = format!(
        "{VERSION} build gsmcp-{} (embedded stone)",
        env!("CARGO_PKG_VERSION")
    );
    if !buf.is_null() && size > 0 {
        // SAFETY: the caller passed `size` writable bytes.
        let n = unsafe { copy_out(buf.cast(), size - 1, text.as_bytes()) };
        // SAFETY: n < size.
        unsafe { *buf.add(n) = 0 };
    }
    abi::GCI_PRODUCT_GS64
}

/// Turns gem tracing on or off; a no-op here.
#[no_mangle]
pub extern "C" fn GciTsGemTrace(_s: GciSession, _enable: c_int, _err: *mut GciErrSType) -> c_int {
    0
}

/// Shuts the library down; it holds nothing that needs it.
#[no_mangle]
pub extern "C" fn GciShutdown() {}

/// Unloads the library; it holds nothing that needs it.
#[no_mangle]
pub extern "C" fn GciUnload() {}

const ENCRYPTED_PREFIX: &str = "gsmcp1:";

/// A password scrambled so it does not travel or sit in memory as itself;
/// only this library turns it back. NULL when it is empty or the buffer is
/// too small.
#[no_mangle]
pub unsafe extern "C" fn GciTsEncrypt(
    password: *const c_char,
    out: *mut c_char,
    size: usize,
) -> *mut c_char {
    // SAFETY: forwarded.
    let Ok(Some(p)) = (unsafe { opt_str(password) }) else {
        return std::ptr::null_mut();
    };
    if p.is_empty() || out.is_null() {
        return std::ptr::null_mut();
    }
    let mut text = String::from(ENCRYPTED_PREFIX);
    for (i, b) in p.bytes().enumerate() {
        text.push_str(&format!("{:02x}", b ^ (0x5A ^ (i as u8).wrapping_mul(31))));
    }
    if text.len() + 1 > size {
        return std::ptr::null_mut();
    }
    // SAFETY: `size` bytes are writable and the text and NUL fit.
    unsafe {
        copy_out(out.cast(), size, text.as_bytes());
        *out.add(text.len()) = 0;
    }
    out
}

fn decrypt(text: &str) -> Option<String> {
    let hex = text.strip_prefix(ENCRYPTED_PREFIX)?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let mut bytes = Vec::with_capacity(hex.len() / 2);
    for i in 0..hex.len() / 2 {
        let b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        bytes.push(b ^ (0x5A ^ (i as u8).wrapping_mul(31)));
    }
    String::from_utf8(bytes).ok()
}

// ===================== execute / perform =====================

unsafe fn source_of(e: &Engine, src: *const c_char, size: isize, source_oop: OopType) -> R<String> {
    if src.is_null() {
        let o = e.obj(source_oop)?;
        return e
            .session
            .string_of(o)
            .map_err(st_error)?
            .ok_or_else(|| arg_error("the source object is not a String"));
    }
    // SAFETY: forwarded.
    source_text(unsafe { bytes_arg(src, size) }?, source_oop)
}

/// Copies what the caller passed before the call moves to the session's thread.
struct Source {
    bytes: Option<Vec<u8>>,
    class_or_obj: OopType,
}

unsafe fn take_source(src: *const c_char, size: isize, source_oop: OopType) -> R<Source> {
    Ok(Source {
        bytes: if src.is_null() {
            None
        } else {
            // SAFETY: forwarded.
            Some(unsafe { bytes_arg(src, size) }?.to_vec())
        },
        class_or_obj: source_oop,
    })
}

impl Source {
    fn text(&self, e: &Engine) -> R<String> {
        match &self.bytes {
            // SAFETY: a NULL source reads the object; no pointer is used.
            None => unsafe { source_of(e, std::ptr::null(), -1, self.class_or_obj) },
            Some(b) => source_text(b, self.class_or_obj),
        }
    }
}

/// `GciTsExecute` with the length of the source (-1: NUL-terminated).
#[no_mangle]
pub unsafe extern "C" fn GciTsExecute_(
    s: GciSession,
    src: *const c_char,
    size: isize,
    source_oop: OopType,
    context: OopType,
    _symbol_list: OopType,
    _flags: c_int,
    _env: u16,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        // SAFETY: forwarded.
        let source = unsafe { take_source(src, size, source_oop) }?;
        sess(s)?.call(move |e| {
            let text = source.text(e)?;
            e.execute(&text, context)
        })?
    })
}

/// Compiles and runs Smalltalk source (text, or a String OOP) in `context`, answering its result.
#[no_mangle]
pub unsafe extern "C" fn GciTsExecute(
    s: GciSession,
    src: *const c_char,
    source_oop: OopType,
    context: OopType,
    symbol_list: OopType,
    flags: c_int,
    env: u16,
    err: *mut GciErrSType,
) -> OopType {
    // SAFETY: forwarded.
    unsafe {
        GciTsExecute_(
            s,
            src,
            -1,
            source_oop,
            context,
            symbol_list,
            flags,
            env,
            err,
        )
    }
}

/// Executes and copies the result's bytes. A result larger than the buffer
/// is an error, not a silent cut (GemStone does not document that case).
#[no_mangle]
pub unsafe extern "C" fn GciTsExecuteFetchBytes(
    s: GciSession,
    src: *const c_char,
    size: isize,
    source_oop: OopType,
    context: OopType,
    _symbol_list: OopType,
    result: *mut u8,
    max: isize,
    err: *mut GciErrSType,
) -> isize {
    guard(err, -1, || {
        // SAFETY: forwarded.
        let source = unsafe { take_source(src, size, source_oop) }?;
        // SAFETY: forwarded.
        unsafe {
            answer_bytes(s, result, max, move |e| {
                let text = source.text(e)?;
                e.execute(&text, context)
            })
        }
    })
}

/// Runs `f` and copies the bytes of the object it answers (released again)
/// into the caller's `max` bytes at `result`; a longer answer is an error.
unsafe fn answer_bytes(
    s: GciSession,
    result: *mut u8,
    max: isize,
    f: impl FnOnce(&mut Engine) -> R<OopType> + Send + 'static,
) -> R<isize> {
    let bytes = sess(s)?.call(move |e| {
        let oop = f(e)?;
        let body = e.byte_body(oop);
        if let Some(o) = e.oops.decode(oop) {
            e.session.release(o);
        }
        body
    })??;
    if bytes.len() > max.max(0) as usize {
        return Err(GciErrSType::gemstone(
            abi::ERR_ARGUMENT_ERROR,
            &format!(
                "the result has {} bytes, more than the buffer's {max}",
                bytes.len()
            ),
        ));
    }
    // SAFETY: the caller passed `max` writable bytes.
    Ok(unsafe { copy_out(result, max as usize, &bytes) } as isize)
}

unsafe fn oop_args(args: *const OopType, n: c_int) -> R<Vec<OopType>> {
    if n < 0 {
        return Err(arg_error("a negative number of arguments"));
    }
    if n == 0 {
        return Ok(vec![]);
    }
    if args.is_null() {
        return Err(arg_error("the arguments are NULL"));
    }
    // SAFETY: the caller passed n OOPs.
    Ok(unsafe { std::slice::from_raw_parts(args, n as usize) }.to_vec())
}

/// The selector a perform names: `sym`, or `selector` when `sym` is illegal.
unsafe fn take_selector(sym: OopType, selector: *const c_char) -> R<Result<String, OopType>> {
    if sym == abi::OOP_ILLEGAL {
        // SAFETY: forwarded.
        Ok(Ok(unsafe { req_str(selector, "the selector") }?))
    } else {
        Ok(Err(sym))
    }
}

fn selector_text(e: &Engine, sel: Result<String, OopType>) -> R<String> {
    match sel {
        Ok(s) => Ok(s),
        Err(sym) => e.symbol_text(sym),
    }
}

/// Sends a message (selector as text or Symbol OOP) with arguments to a receiver, answering its result.
#[no_mangle]
pub unsafe extern "C" fn GciTsPerform(
    s: GciSession,
    receiver: OopType,
    a_symbol: OopType,
    selector: *const c_char,
    args: *const OopType,
    n: c_int,
    _flags: c_int,
    _env: u16,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        // SAFETY: forwarded.
        let (sel, args) = unsafe { (take_selector(a_symbol, selector)?, oop_args(args, n)?) };
        sess(s)?.call(move |e| {
            let sel = selector_text(e, sel)?;
            e.perform(receiver, &sel, &args)
        })?
    })
}

/// Sends a message and copies the bytes of its result into the caller's buffer.
#[no_mangle]
pub unsafe extern "C" fn GciTsPerformFetchBytes(
    s: GciSession,
    receiver: OopType,
    selector: *const c_char,
    args: *const OopType,
    n: c_int,
    result: *mut u8,
    max: isize,
    err: *mut GciErrSType,
) -> isize {
    guard(err, -1, || {
        // SAFETY: forwarded.
        let (sel, args) = unsafe { (req_str(selector, "the selector")?, oop_args(args, n)?) };
        // SAFETY: forwarded.
        unsafe { answer_bytes(s, result, max, move |e| e.perform(receiver, &sel, &args)) }
    })
}

// ===================== non-blocking =====================

/// `GciTsExecute` as a non-blocking call: its result is fetched with `GciTsNbResult`.
#[no_mangle]
pub unsafe extern "C" fn GciTsNbExecute(
    s: GciSession,
    src: *const c_char,
    source_oop: OopType,
    context: OopType,
    _symbol_list: OopType,
    _flags: c_int,
    _env: u16,
    err: *mut GciErrSType,
) -> BoolType {
    guard(err, abi::FALSE, || {
        // SAFETY: forwarded.
        let source = unsafe { take_source(src, -1, source_oop) }?;
        sess(s)?.start_nb(move |e| {
            let text = source.text(e)?;
            e.execute(&text, context)
        })?;
        Ok(abi::TRUE)
    })
}

/// `GciTsPerform` as a non-blocking call: its result is fetched with `GciTsNbResult`.
#[no_mangle]
pub unsafe extern "C" fn GciTsNbPerform(
    s: GciSession,
    receiver: OopType,
    a_symbol: OopType,
    selector: *const c_char,
    args: *const OopType,
    n: c_int,
    _flags: c_int,
    _env: u16,
    err: *mut GciErrSType,
) -> BoolType {
    guard(err, abi::FALSE, || {
        // SAFETY: forwarded.
        let (sel, args) = unsafe { (take_selector(a_symbol, selector)?, oop_args(args, n)?) };
        sess(s)?.start_nb(move |e| {
            let sel = selector_text(e, sel)?;
            e.perform(receiver, &sel, &args)
        })?;
        Ok(abi::TRUE)
    })
}

/// Waits up to `timeout_ms` for the non-blocking call to finish: 1 done, 0 not yet, -1 error.
#[no_mangle]
pub unsafe extern "C" fn GciTsNbPoll(
    s: GciSession,
    timeout_ms: c_int,
    err: *mut GciErrSType,
) -> c_int {
    guard(err, -1, || Ok(sess(s)?.poll(timeout_ms)? as c_int))
}

/// The result of the finished non-blocking call.
#[no_mangle]
pub unsafe extern "C" fn GciTsNbResult(s: GciSession, err: *mut GciErrSType) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || sess(s)?.result())
}

// ===================== transactions =====================

/// Commits the session's transaction; false with `err` set on a conflict or failure.
#[no_mangle]
pub unsafe extern "C" fn GciTsCommit(s: GciSession, err: *mut GciErrSType) -> BoolType {
    guard(err, abi::FALSE, || {
        let ok = sess(s)?.call(|e| e.session.commit_transaction().map_err(st_error))??;
        if ok {
            Ok(abi::TRUE)
        } else {
            Err(GciErrSType::gemstone(
                0,
                "the commit failed: it conflicts with another session's",
            ))
        }
    })
}

/// Aborts the session's transaction, discarding its changes.
#[no_mangle]
pub unsafe extern "C" fn GciTsAbort(s: GciSession, err: *mut GciErrSType) -> BoolType {
    guard(err, abi::FALSE, || {
        sess(s)?.call(|e| e.session.abort_transaction().map_err(st_error))??;
        Ok(abi::TRUE)
    })
}

/// Begins a transaction (`System beginTransaction`).
#[no_mangle]
pub unsafe extern "C" fn GciTsBegin(s: GciSession, err: *mut GciErrSType) -> BoolType {
    guard(err, abi::FALSE, || {
        sess(s)?.call(|e| e.execute("System beginTransaction", abi::OOP_ILLEGAL))??;
        Ok(abi::TRUE)
    })
}

// ===================== symbols =====================

fn resolve(e: &mut Engine, name: &str) -> R<OopType> {
    match e.session.resolve(name).map_err(st_error)? {
        Some(o) => Ok(e.oop(o)),
        None => Ok(abi::OOP_ILLEGAL),
    }
}

/// The object a name (NUL-terminated) is bound to in the session's symbol list.
#[no_mangle]
pub unsafe extern "C" fn GciTsResolveSymbol(
    s: GciSession,
    name: *const c_char,
    _symbol_list: OopType,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        // SAFETY: forwarded.
        let name = unsafe { req_str(name, "the name") }?;
        sess(s)?.call(move |e| resolve(e, &name))?
    })
}

/// The object a name (a String or Symbol OOP) is bound to in the session's symbol list.
#[no_mangle]
pub unsafe extern "C" fn GciTsResolveSymbolObj(
    s: GciSession,
    name: OopType,
    _symbol_list: OopType,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        sess(s)?.call(move |e| {
            let n = e.symbol_text(name)?;
            resolve(e, &n)
        })?
    })
}

// ===================== creating objects =====================

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

unsafe fn new_text(s: GciSession, text: String, symbol: bool) -> R<OopType> {
    sess(s)?.call(move |e| {
        let o = if symbol {
            e.session.new_symbol(&text)
        } else {
            e.session.new_string(&text)
        };
        e.oop(o)
    })
}

/// A new String of `n` bytes (Latin-1 characters).
#[no_mangle]
pub unsafe extern "C" fn GciTsNewString_(
    s: GciSession,
    text: *const c_char,
    n: usize,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        // SAFETY: forwarded.
        let t = latin1(unsafe { bytes_arg(text, n as isize) }?);
        // SAFETY: `s` and `err` are the caller's, forwarded as received.
        unsafe { new_text(s, t, false) }
    })
}

/// A new String of a NUL-terminated text.
#[no_mangle]
pub unsafe extern "C" fn GciTsNewString(
    s: GciSession,
    text: *const c_char,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        // SAFETY: forwarded.
        let t = latin1(unsafe { bytes_arg(text, -1) }?);
        // SAFETY: `s` and `err` are the caller's, forwarded as received.
        unsafe { new_text(s, t, false) }
    })
}

/// The Symbol of a NUL-terminated text.
#[no_mangle]
pub unsafe extern "C" fn GciTsNewSymbol(
    s: GciSession,
    text: *const c_char,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        // SAFETY: forwarded.
        let b = unsafe { bytes_arg(text, -1) }?;
        let t = String::from_utf8(b.to_vec()).unwrap_or_else(|_| latin1(b));
        if t.chars().count() > abi::GCI_MAX_SYMBOL_SIZE {
            return Err(arg_error("a Symbol holds at most 1024 characters"));
        }
        // SAFETY: `s` and `err` are the caller's, forwarded as received.
        unsafe { new_text(s, t, true) }
    })
}

/// A string of the UTF-8 text's characters (a String when every character
/// is below 256, else a wide string). The embedded stone has no Utf8 class,
/// so `convertToUnicode` false answers the same.
#[no_mangle]
pub unsafe extern "C" fn GciTsNewUtf8String_(
    s: GciSession,
    text: *const c_char,
    n: usize,
    _convert_to_unicode: BoolType,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        // SAFETY: forwarded.
        let b = unsafe { bytes_arg(text, n as isize) }?;
        let t =
            String::from_utf8(b.to_vec()).map_err(|_| arg_error("the text is not valid UTF-8"))?;
        // SAFETY: `s` and `err` are the caller's, forwarded as received.
        unsafe { new_text(s, t, false) }
    })
}

/// A new String (or wide string when needed) of UTF-8 text.
#[no_mangle]
pub unsafe extern "C" fn GciTsNewUtf8String(
    s: GciSession,
    text: *const c_char,
    convert: BoolType,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        // SAFETY: forwarded.
        let n = unsafe { bytes_arg(text, -1) }?.len();
        // SAFETY: `text` holds `n` bytes (just measured); the rest is forwarded.
        Ok(unsafe { GciTsNewUtf8String_(s, text, n, convert, err) })
    })
}

/// A new ByteArray of the given bytes.
#[no_mangle]
pub unsafe extern "C" fn GciTsNewByteArray(
    s: GciSession,
    body: *const u8,
    n: usize,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        let bytes = if n == 0 {
            vec![]
        } else {
            // SAFETY: forwarded.
            unsafe { bytes_arg(body.cast(), n as isize) }?.to_vec()
        };
        sess(s)?.call(move |e| {
            let class = e.obj(abi::OOP_CLASS_BYTE_ARRAY)?;
            let o = e.session.new_bytes(class, &bytes).map_err(st_error)?;
            Ok(e.oop(o))
        })?
    })
}

/// A new instance of a class (no indexed slots).
#[no_mangle]
pub unsafe extern "C" fn GciTsNewObj(
    s: GciSession,
    class: OopType,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        sess(s)?.call(move |e| e.perform(class, "basicNew", &[]))?
    })
}

// ===================== conversions =====================

/// The Integer of a 64-bit value (a SmallInteger, or a LargeInteger when it does not fit).
#[no_mangle]
pub unsafe extern "C" fn GciTsI64ToOop(s: GciSession, n: i64, err: *mut GciErrSType) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        if let Some(oop) = abi::small_int_oop(n) {
            return Ok(oop);
        }
        // a LargeInteger: the literal is a number we printed, never client text
        sess(s)?.call(move |e| e.execute(&n.to_string(), abi::OOP_ILLEGAL))?
    })
}

/// The 64-bit value of an Integer; fails for anything else or one out of range.
#[no_mangle]
pub unsafe extern "C" fn GciTsOopToI64(
    s: GciSession,
    oop: OopType,
    result: *mut i64,
    err: *mut GciErrSType,
) -> BoolType {
    guard(err, abi::FALSE, || {
        if let Some(n) = abi::small_int_value(oop) {
            set(result, n);
            return Ok(abi::TRUE);
        }
        let text = sess(s)?.call(move |e| {
            let p = e.perform(oop, "printString", &[])?;
            let bytes = e.byte_body(p);
            if let Some(o) = e.oops.decode(p) {
                e.session.release(o);
            }
            bytes
        })??;
        let n: i64 = String::from_utf8_lossy(&text)
            .parse()
            .map_err(|_| arg_error("the object is not an Integer that fits in 64 bits"))?;
        set(result, n);
        Ok(abi::TRUE)
    })
}

/// The Float object of a double.
#[no_mangle]
pub unsafe extern "C" fn GciTsDoubleToOop(s: GciSession, f: f64, err: *mut GciErrSType) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        sess(s)?.call(move |e| e.oop(Object::Double(f)))
    })
}

/// The double value of a Float or a SmallInteger.
#[no_mangle]
pub unsafe extern "C" fn GciTsOopToDouble(
    s: GciSession,
    oop: OopType,
    result: *mut f64,
    err: *mut GciErrSType,
) -> BoolType {
    guard(err, abi::FALSE, || {
        let f = sess(s)?.read(move |e| match e.obj(oop)? {
            Object::Double(f) => Ok(f),
            Object::SmallInteger(n) => Ok(n as f64),
            _ => Err(arg_error("the object is not a Float or SmallDouble")),
        })??;
        set(result, f);
        Ok(abi::TRUE)
    })
}

/// Whether an OOP is a special (immediate) object: SmallInteger, Character, Boolean, nil, SmallDouble.
#[no_mangle]
pub extern "C" fn GciTsOopIsSpecial(oop: OopType) -> BoolType {
    abi::oop_is_special(oop) as BoolType
}

/// The class of a special object, without a session.
#[no_mangle]
pub extern "C" fn GciTsFetchSpecialClass(oop: OopType) -> OopType {
    if abi::small_int_value(oop).is_some() {
        abi::OOP_CLASS_SMALL_INTEGER
    } else if abi::char_value(oop).is_some() {
        abi::OOP_CLASS_CHARACTER
    } else if oop == abi::OOP_NIL || oop == abi::OOP_REMOTE_NIL {
        abi::OOP_CLASS_UNDEFINED_OBJECT
    } else if oop == abi::OOP_TRUE || oop == abi::OOP_FALSE {
        abi::OOP_CLASS_BOOLEAN
    } else if oop & 7 == abi::OOP_TAG_SMALLDOUBLE {
        abi::OOP_CLASS_SMALL_DOUBLE
    } else {
        abi::OOP_ILLEGAL
    }
}

/// The code point of a Character OOP, or -1.
#[no_mangle]
pub extern "C" fn GciTsOopToChar(oop: OopType) -> c_int {
    abi::char_value(oop).map_or(-1, |c| c as c_int)
}

/// The Character OOP of a code point.
#[no_mangle]
pub extern "C" fn GciTsCharToOop(ch: c_uint) -> OopType {
    abi::char_oop(ch).unwrap_or(abi::OOP_ILLEGAL)
}

/// Always illegal: this library passes doubles as objects (see `oops.rs`).
#[no_mangle]
pub extern "C" fn GciTsDoubleToSmallDouble(_f: f64) -> OopType {
    abi::OOP_ILLEGAL
}

/// The SmallInteger OOP of a 32-bit value.
#[no_mangle]
pub extern "C" fn GciTsI32ToOop(n: c_int) -> OopType {
    abi::small_int_oop(n as i64).unwrap_or(abi::OOP_ILLEGAL)
}

/// The SmallInteger OOP of a 32-bit value (the older name).
#[no_mangle]
pub extern "C" fn GciI32ToOop(n: c_int) -> OopType {
    GciTsI32ToOop(n)
}

// ===================== structural access =====================

/// The class of an object.
#[no_mangle]
pub unsafe extern "C" fn GciTsFetchClass(
    s: GciSession,
    oop: OopType,
    err: *mut GciErrSType,
) -> OopType {
    guard(err, abi::OOP_ILLEGAL, || {
        sess(s)?.read(move |e| {
            let o = e.obj(oop)?;
            let c = e.session.class_of(o).map_err(st_error)?;
            Ok(e.oop(c))
        })?
    })
}

/// The size of an object: its bytes, or its named plus indexed slots.
#[no_mangle]
pub unsafe extern "C" fn GciTsFetchSize(s: GciSession, oop: OopType, err: *mut GciErrSType) -> i64 {
    guard(err, -1, || {
        sess(s)?.read(move |e| {
            let o = e.obj(oop)?;
            Ok(e.session.size(o).map_err(st_error)? as i64)
        })?
    })
}

/// The number of indexed slots (or bytes) of an object.
#[no_mangle]
pub unsafe extern "C" fn GciTsFetchVaryingSize(
    s: GciSession,
    oop: OopType,
    err: *mut GciErrSType,
) -> i64 {
    guard(err, -1, || {
        sess(s)?.read(move |e| {
            let o = e.obj(oop)?;
            let all = e.session.size(o).map_err(st_error)?;
            let named = e.session.named_size(o).map_err(st_error)?;
            Ok(all.saturating_sub(named) as i64)
        })?
    })
}

/// Whether an OOP names an object of the session.
#[no_mangle]
pub unsafe extern "C" fn GciTsObjExists(s: GciSession, oop: OopType) -> BoolType {
    let mut err = GciErrSType::default();
    guard(&mut err, abi::FALSE, || {
        Ok(sess(s)?.read(move |e| e.obj(oop).is_ok())? as BoolType)
    })
}

fn is_kind_of(s: GciSession, oop: OopType, class: OopType) -> R<c_int> {
    sess(s)?.read(move |e| {
        let o = e.obj(oop)?;
        let c = e.obj(class)?;
        Ok(e.session.is_kind_of(o, c).map_err(st_error)? as c_int)
    })?
}

/// Whether an object is an instance of a class or of one of its subclasses.
#[no_mangle]
pub unsafe extern "C" fn GciTsIsKindOf(
    s: GciSession,
    oop: OopType,
    class: OopType,
    err: *mut GciErrSType,
) -> c_int {
    guard(err, -1, || is_kind_of(s, oop, class))
}

/// `GciTsIsKindOf`, with the class given as an OOP and checked to be a class.
#[no_mangle]
pub unsafe extern "C" fn GciTsIsKindOfClass(
    s: GciSession,
    oop: OopType,
    class: OopType,
    err: *mut GciErrSType,
) -> c_int {
    guard(err, -1, || is_kind_of(s, oop, class))
}

/// Whether a class is a class or a subclass of another.
#[no_mangle]
pub unsafe extern "C" fn GciTsIsSubclassOf(
    s: GciSession,
    class: OopType,
    superclass: OopType,
    err: *mut GciErrSType,
) -> c_int {
    guard(err, -1, || {
        let r = sess(s)?.call(move |e| e.perform(class, "isSubclassOf:", &[superclass]))??;
        Ok((r == abi::OOP_TRUE) as c_int)
    })
}

/// Copies bytes of a byte object, from a 1-based index, into the caller's buffer; answers how many.
#[no_mangle]
pub unsafe extern "C" fn GciTsFetchBytes(
    s: GciSession,
    oop: OopType,
    start: i64,
    dest: *mut u8,
    n: i64,
    err: *mut GciErrSType,
) -> i64 {
    guard(err, -1, || {
        if start < 1 || n < 0 {
            return Err(arg_error(
                "the start index must be 1 or more and the count not negative",
            ));
        }
        let bytes = sess(s)?.read(move |e| {
            let o = e.obj(oop)?;
            e.session
                .fetch_bytes(o, (start - 1) as usize, n as usize)
                .map_err(st_error)
        })??;
        // SAFETY: the caller passed n writable bytes.
        Ok(unsafe { copy_out(dest, n as usize, &bytes) } as i64)
    })
}

/// Copies the characters of a string as Latin-1 text, NUL-terminated, into the caller's buffer.
#[no_mangle]
pub unsafe extern "C" fn GciTsFetchChars(
    s: GciSession,
    oop: OopType,
    start: i64,
    dest: *mut c_char,
    max: i64,
    err: *mut GciErrSType,
) -> i64 {
    guard(err, -1, || {
        if start < 1 || max < 1 || dest.is_null() {
            return Err(arg_error(
                "the start index and the buffer size must be 1 or more",
            ));
        }
        let bytes = sess(s)?.read(move |e| {
            let o = e.obj(oop)?;
            e.session
                .fetch_bytes(o, (start - 1) as usize, (max - 1) as usize)
                .map_err(st_error)
        })??;
        // SAFETY: max writable bytes; the count plus the NUL fit.
        let n = unsafe { copy_out(dest.cast(), (max - 1) as usize, &bytes) };
        // SAFETY: n < max, so the NUL lands inside the caller's buffer.
        unsafe { *dest.add(n) = 0 };
        Ok(n as i64)
    })
}

/// The UTF-8 of a string from 1-based byte `start`. This library computes it
/// on every call and answers no separate Utf8 object (`*utf8_string` is nil).
#[no_mangle]
pub unsafe extern "C" fn GciTsFetchUtf8Bytes(
    s: GciSession,
    oop: OopType,
    start: i64,
    dest: *mut u8,
    size: i64,
    utf8_string: *mut OopType,
    err: *mut GciErrSType,
    _flags: c_int,
) -> i64 {
    guard(err, -1, || {
        if start < 1 || size < 0 {
            return Err(arg_error(
                "the start index must be 1 or more and the size not negative",
            ));
        }
        set(utf8_string, abi::OOP_NIL);
        let utf8 = sess(s)?.read(move |e| e.utf8_of(oop))??;
        let from = ((start - 1) as usize).min(utf8.len());
        // SAFETY: the caller passed `size` writable bytes.
        Ok(unsafe { copy_out(dest, size as usize, &utf8[from..]) } as i64)
    })
}

/// Copies the characters of a string as UTF-8, NUL-terminated, into the caller's buffer.
#[no_mangle]
pub unsafe extern "C" fn GciTsFetchUtf8(
    s: GciSession,
    oop: OopType,
    dest: *mut u8,
    size: i64,
    required: *mut i64,
    err: *mut GciErrSType,
) -> i64 {
    guard(err, -1, || {
        let utf8 = sess(s)?.read(move |e| e.utf8_of(oop))??;
        set(required, utf8.len() as i64);
        // SAFETY: the caller passed `size` writable bytes.
        Ok(unsafe { copy_out(dest, size.max(0) as usize, &utf8) } as i64)
    })
}

/// Copies OOPs of a pointer object's slots, from a 1-based index, into the caller's buffer.
#[no_mangle]
pub unsafe extern "C" fn GciTsFetchOops(
    s: GciSession,
    oop: OopType,
    start: i64,
    dest: *mut OopType,
    n: c_int,
    err: *mut GciErrSType,
) -> c_int {
    guard(err, -1, || {
        if start < 1 || n < 0 || (n > 0 && dest.is_null()) {
            return Err(arg_error(
                "the start index must be 1 or more and the buffer given",
            ));
        }
        let oops = sess(s)?.read(move |e| {
            let o = e.obj(oop)?;
            let slots = e
                .session
                .fetch_slots(o, (start - 1) as usize, n as usize)
                .map_err(st_error)?;
            Ok::<_, GciErrSType>(slots.into_iter().map(|x| e.oop(x)).collect::<Vec<_>>())
        })??;
        for (i, o) in oops.iter().enumerate() {
            // SAFETY: the caller passed n writable OOPs; i < n.
            unsafe { *dest.add(i) = *o };
        }
        Ok(oops.len() as c_int)
    })
}

/// Stores OOPs into a pointer object's slots from a 1-based index, growing it when they run past its end.
#[no_mangle]
pub unsafe extern "C" fn GciTsStoreOops(
    s: GciSession,
    oop: OopType,
    start: i64,
    values: *const OopType,
    n: c_int,
    err: *mut GciErrSType,
    _overlay: BoolType,
) -> BoolType {
    guard(err, abi::FALSE, || {
        if start < 1 {
            return Err(arg_error("the start index must be 1 or more"));
        }
        // SAFETY: forwarded.
        let values = unsafe { oop_args(values, n) }?;
        sess(s)?.call(move |e| {
            let o = e.obj(oop)?;
            let mut vals = Vec::with_capacity(values.len());
            for v in &values {
                vals.push(e.obj(*v)?);
            }
            e.session
                .store_slots(o, (start - 1) as usize, &vals)
                .map_err(st_error)
        })??;
        Ok(abi::TRUE)
    })
}

/// Stores bytes into a byte object from a 1-based index, growing it when they run past its end.
#[no_mangle]
pub unsafe extern "C" fn GciTsStoreBytes(
    s: GciSession,
    oop: OopType,
    start: i64,
    bytes: *const u8,
    n: i64,
    _of_class: OopType,
    err: *mut GciErrSType,
) -> BoolType {
    guard(err, abi::FALSE, || {
        if start < 1 || n < 0 {
            return Err(arg_error(
                "the start index must be 1 or more and the count not negative",
            ));
        }
        let body = if n == 0 {
            vec![]
        } else {
            // SAFETY: forwarded.
            unsafe { bytes_arg(bytes.cast(), n as isize) }?.to_vec()
        };
        sess(s)?.call(move |e| {
            let o = e.obj(oop)?;
            e.session
                .store_bytes(o, (start - 1) as usize, &body)
                .map_err(st_error)
        })??;
        Ok(abi::TRUE)
    })
}

/// Fills `info` and copies as much of the body as fits in `buffer` (bytes of
/// a byte object, OOPs of a pointer object); answers the bytes copied.
#[no_mangle]
pub unsafe extern "C" fn GciTsFetchObjInfo(
    s: GciSession,
    oop: OopType,
    add_to_export_set: BoolType,
    info: *mut GciTsObjInfo,
    buffer: *mut u8,
    size: usize,
    err: *mut GciErrSType,
) -> i64 {
    guard(err, -1, || {
        let (i, body) = sess(s)?.read(move |e| {
            let o = e.obj(oop)?;
            if add_to_export_set != 0 {
                e.session.export(o).map_err(st_error)?;
            }
            let class = e.session.class_of(o).map_err(st_error)?;
            let shape = e.session.shape(o).map_err(st_error)?;
            let all = e.session.size(o).map_err(st_error)?;
            let named = e.session.named_size(o).map_err(st_error)?;
            let format = match shape {
                Shape::Special => abi::GC_FORMAT_SPECIAL,
                Shape::Bytes => abi::GC_FORMAT_BYTE,
                _ => abi::GC_FORMAT_OOP,
            };
            let mut access = format;
            if all > named {
                access |= abi::GC_INDEXABLE_MASK;
            }
            let info = GciTsObjInfo {
                obj_id: oop,
                obj_class: e.oop(class),
                obj_size: all as i64,
                named_size: named as c_int,
                access,
                ..GciTsObjInfo::default()
            };
            let body = match shape {
                Shape::Bytes => e.session.fetch_bytes(o, 0, size).map_err(st_error)?,
                Shape::Pointers => {
                    let slots = e.session.fetch_slots(o, 0, size / 8).map_err(st_error)?;
                    slots
                        .into_iter()
                        .flat_map(|x| e.oop(x).to_ne_bytes())
                        .collect()
                }
                _ => vec![],
            };
            Ok::<_, GciErrSType>((info, body))
        })??;
        set(info, i);
        // SAFETY: the caller passed `size` writable bytes.
        Ok(unsafe { copy_out(buffer, size, &body) } as i64)
    })
}

// ===================== the export set =====================

fn each_oop(s: GciSession, oops: *const OopType, n: c_int, save: bool) -> R<BoolType> {
    // SAFETY: forwarded.
    let oops = unsafe { oop_args(oops, n) }?;
    sess(s)?.read(move |e| {
        for oop in oops {
            if let Some(o) = e.oops.decode(oop) {
                if save {
                    e.session.export(o).map_err(st_error)?;
                } else {
                    e.session.release(o);
                }
            }
        }
        Ok::<_, GciErrSType>(abi::TRUE)
    })?
}

/// Adds objects to the export set, so they stay alive between calls.
#[no_mangle]
pub unsafe extern "C" fn GciTsSaveObjs(
    s: GciSession,
    oops: *const OopType,
    n: c_int,
    err: *mut GciErrSType,
) -> BoolType {
    guard(err, abi::FALSE, || each_oop(s, oops, n, true))
}

/// Removes objects from the export set.
#[no_mangle]
pub unsafe extern "C" fn GciTsReleaseObjs(
    s: GciSession,
    oops: *const OopType,
    n: c_int,
    err: *mut GciErrSType,
) -> BoolType {
    guard(err, abi::FALSE, || each_oop(s, oops, n, false))
}

/// Empties the export set.
#[no_mangle]
pub unsafe extern "C" fn GciTsReleaseAllObjs(s: GciSession, err: *mut GciErrSType) -> BoolType {
    guard(err, abi::FALSE, || {
        sess(s)?.call(|e| e.session.release_all())?;
        Ok(abi::TRUE)
    })
}
