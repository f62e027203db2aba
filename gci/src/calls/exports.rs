//! The export set: the objects a client holds, kept alive until released.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

use super::*;
use gsmcp_gci_abi::{self as abi, BoolType, GciErrSType, GciSession, OopType};
use std::ffi::c_int;

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
