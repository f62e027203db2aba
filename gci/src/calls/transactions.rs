//! Commit, abort and begin.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

use super::*;
use gsmcp_gci_abi::{self as abi, BoolType, GciErrSType, GciSession};

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
