//! Structural access: an object's class, size and existence, kind tests, and
//! fetching and storing bytes, characters and OOPs, object info.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

use super::*;
use gsmcp_gci_abi::{self as abi, BoolType, GciErrSType, GciSession, GciTsObjInfo, OopType};
use gsmcp_smalltalk::Shape;
use std::ffi::{c_char, c_int};

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
