//! Symbols, making objects (strings, symbols, byte arrays, instances) and
//! converting between OOPs and C values (integers, doubles, characters).

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

use super::*;
use crate::session::Engine;
use gsmcp_gci_abi::{self as abi, BoolType, GciErrSType, GciSession, OopType};
use gsmcp_smalltalk::Object;
use std::ffi::{c_char, c_int, c_uint};

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
