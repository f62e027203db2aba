//! The exported C functions, one per GCI call, in the order of GemStone's
//! own header sections: login, execution, non-blocking calls, transactions,
//! object creation and conversion, structural access, the export set.
//!
//! Every function validates its pointers, runs its work on the session's
//! thread (`session.rs`), converts between OOPs and objects (`oops.rs`), and
//! reports a failure in the caller's `GciErrSType` with the sentinel the
//! GemStone documentation names for that call.
//!
//! One file per section: `login`, `execute` (with the non-blocking
//! calls), `transactions`, `objects` (symbols, creation, conversions),
//! `access` (structural access) and `exports` (the export set); this file
//! holds what they share: the error and panic guard, argument checks, and
//! reaching a session's engine.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

mod access;
mod execute;
mod exports;
mod login;
mod objects;
mod transactions;

pub use access::*;
pub use execute::*;
pub use exports::*;
pub use login::*;
pub use objects::*;
pub use transactions::*;

use crate::session::{self, Engine};
use gsmcp_gci_abi::{self as abi, GciErrSType, GciSession, OopType};
use gsmcp_smalltalk::{ExecError, Object, Shape};
use std::ffi::{c_char, c_int, CStr};
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
