//! Executing source and performing selectors, blocking and not, with the
//! answer as an object or as fetched bytes.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

use super::*;
use crate::session::Engine;
use gsmcp_gci_abi::{self as abi, BoolType, GciErrSType, GciSession, OopType};
use std::ffi::{c_char, c_int};

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
