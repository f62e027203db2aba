//! Logging in and out (blocking and not), the session's state and socket,
//! breaks, the library's version, and GemStone's password encryption.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

use super::*;
use crate::session::{self};
use crate::stone;
use gsmcp_gci_abi::{self as abi, BoolType, GciErrSType, GciSession, OopType};
use std::ffi::{c_char, c_int, c_uint};

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
    let proof = if flags & abi::GCI_JWT_PASSWORD != 0 {
        // the token is the password as it stands: never encrypted
        stone::Proof::Jwt(password.unwrap_or_default())
    } else {
        stone::Proof::Password(password_arg(
            password,
            flags & abi::GCI_LOGIN_PW_ENCRYPTED != 0,
        )?)
    };
    let stone = stone::resolve(stone_nrs.as_deref())?;
    let (handle, s) = session::Sess::start(move || stone::login(&stone, &user, &proof))?;
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
