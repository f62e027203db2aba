//! Finding and loading a GemStone thread-safe GCI library at run time: the
//! file (`$GEMSTONE/lib/libgcits-<version>-64.so`, or an explicit path), its
//! version from the file name, `libnetldi` opened first with RTLD_GLOBAL (the
//! GCI library leaves a thread-creation symbol to it), and the functions the
//! backend calls, each bound by name. A missing file, symbol or supported
//! version is an error naming the file and the fix; nothing is linked, so
//! gsmcp builds and runs without GemStone.

use gsmcp_gci_abi::{BoolType, GciErrSType, GciSession, OopType};
use std::ffi::{c_char, c_int, c_uint};
use std::path::{Path, PathBuf};

pub use gsmcp_gci_abi::product::{locate, version_of, SUFFIX};

/// Why a library could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LibraryError {
    #[error(
        "cannot load {path}: {cause} (is it a GemStone/S 64 client library for this platform?)"
    )]
    /// The dynamic loader refused the file.
    Load {
        /// The file.
        path: String,
        /// What the dynamic loader said.
        cause: String,
    },
    /// The file lacks a function the backend calls.
    #[error("{path} has no function {symbol}: it is not a thread-safe GCI library of GemStone 3.6 or later")]
    Symbol {
        /// The file.
        path: String,
        /// The function it lacks.
        symbol: String,
    },
}

type LoginFn = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_char,
    BoolType,
    *const c_char,
    *const c_char,
    *const c_char,
    c_uint,
    c_int,
    *mut BoolType,
    *mut GciErrSType,
) -> GciSession;
type NbLoginFn = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_char,
    BoolType,
    *const c_char,
    *const c_char,
    *const c_char,
    c_uint,
    c_int,
    *mut c_int,
) -> GciSession;
type NbLoginFinishedFn = unsafe extern "C" fn(GciSession, *mut BoolType, *mut GciErrSType) -> c_int;
type SessErrFn<T> = unsafe extern "C" fn(GciSession, *mut GciErrSType) -> T;
type ExecuteFn = unsafe extern "C" fn(
    GciSession,
    *const c_char,
    OopType,
    OopType,
    OopType,
    c_int,
    u16,
    *mut GciErrSType,
) -> OopType;
type PerformFn = unsafe extern "C" fn(
    GciSession,
    OopType,
    OopType,
    *const c_char,
    *const OopType,
    c_int,
    c_int,
    u16,
    *mut GciErrSType,
) -> OopType;
type FetchUtf8BytesFn = unsafe extern "C" fn(
    GciSession,
    OopType,
    i64,
    *mut u8,
    i64,
    *mut OopType,
    *mut GciErrSType,
    c_int,
) -> i64;
type FetchOopsFn =
    unsafe extern "C" fn(GciSession, OopType, i64, *mut OopType, c_int, *mut GciErrSType) -> c_int;
type OopsFn = unsafe extern "C" fn(GciSession, *const OopType, c_int, *mut GciErrSType) -> BoolType;
type BreakFn = unsafe extern "C" fn(GciSession, BoolType, *mut GciErrSType) -> BoolType;
type ClearStackFn = unsafe extern "C" fn(GciSession, OopType, *mut GciErrSType) -> BoolType;
type NewUtf8Fn =
    unsafe extern "C" fn(GciSession, *const c_char, usize, BoolType, *mut GciErrSType) -> OopType;
type VersionFn = unsafe extern "C" fn(*mut c_char, usize) -> c_uint;

/// A loaded library and the functions the backend uses.
pub struct Library {
    /// The file it was loaded from.
    pub path: PathBuf,
    /// Its version, from the file name (`3.7.5` of `libgcits-3.7.5-64.so`).
    pub version: String,
    /// `GciTsLogin`.
    pub login: LoginFn,
    /// `GciTsNbLogin`, where the library has it.
    pub nb_login: Option<NbLoginFn>,
    /// `GciTsNbLoginFinished`, where the library has it.
    pub nb_login_finished: Option<NbLoginFinishedFn>,
    /// `GciTsLogout`.
    pub logout: SessErrFn<BoolType>,
    /// `GciTsExecute`.
    pub execute: ExecuteFn,
    /// `GciTsPerform`.
    pub perform: PerformFn,
    /// `GciTsFetchUtf8Bytes`.
    pub fetch_utf8_bytes: FetchUtf8BytesFn,
    /// `GciTsFetchOops`.
    pub fetch_oops: FetchOopsFn,
    /// `GciTsReleaseObjs`.
    pub release_objs: OopsFn,
    /// `GciTsBreak`.
    pub brk: BreakFn,
    /// `GciTsClearStack`.
    pub clear_stack: ClearStackFn,
    /// `GciTsNewUtf8String`.
    pub new_utf8_string: NewUtf8Fn,
    /// `GciTsVersion`.
    pub version_fn: VersionFn,
    // the handles stay open for the process's life: the functions above point into them
    _lib: libloading::Library,
    _netldi: Option<libloading::os::unix::Library>,
}

impl Library {
    /// Loads the library at `path` (of `version`), its libnetldi sibling first.
    pub fn load(path: &Path, version: &str) -> Result<Library, LibraryError> {
        let shown = path.display().to_string();
        let netldi_path = path.with_file_name(format!("libnetldi-{version}-64.{SUFFIX}"));
        let netldi = if netldi_path.is_file() {
            // SAFETY: loading GemStone's own client library runs only its initialisers.
            let l = unsafe {
                libloading::os::unix::Library::open(
                    Some(&netldi_path),
                    libc::RTLD_NOW | libc::RTLD_GLOBAL,
                )
            }
            .map_err(|e| LibraryError::Load {
                path: netldi_path.display().to_string(),
                cause: e.to_string(),
            })?;
            Some(l)
        } else {
            None
        };
        // SAFETY: as above.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| LibraryError::Load {
            path: shown.clone(),
            cause: e.to_string(),
        })?;
        macro_rules! bind {
            ($name:literal) => {{
                // SAFETY: the symbol is GemStone's function of this signature (gcits.hf).
                let f = unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|_| {
                    LibraryError::Symbol {
                        path: shown.clone(),
                        symbol: $name.into(),
                    }
                })?;
                *f
            }};
        }
        macro_rules! optional {
            ($name:literal) => {{
                // SAFETY: as above.
                unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .ok()
                    .map(|f| *f)
            }};
        }
        Ok(Library {
            path: path.to_path_buf(),
            version: version.to_string(),
            login: bind!("GciTsLogin"),
            nb_login: optional!("GciTsNbLogin"),
            nb_login_finished: optional!("GciTsNbLoginFinished"),
            logout: bind!("GciTsLogout"),
            execute: bind!("GciTsExecute"),
            perform: bind!("GciTsPerform"),
            fetch_utf8_bytes: bind!("GciTsFetchUtf8Bytes"),
            fetch_oops: bind!("GciTsFetchOops"),
            release_objs: bind!("GciTsReleaseObjs"),
            brk: bind!("GciTsBreak"),
            clear_stack: bind!("GciTsClearStack"),
            new_utf8_string: bind!("GciTsNewUtf8String_"),
            version_fn: bind!("GciTsVersion"),
            _lib: lib,
            _netldi: netldi,
        })
    }

    /// What the library says it is (`GciTsVersion`).
    pub fn version_text(&self) -> String {
        let mut buf = [0 as c_char; 256];
        // SAFETY: the buffer is writable for its length.
        unsafe { (self.version_fn)(buf.as_mut_ptr(), buf.len()) };
        gsmcp_gci_abi::c_text(&buf)
    }
}
