//! The GCI-compatible library on its own, called through its C interface the
//! way any GCI client calls GemStone's: loaded with dlopen from a
//! GemStone-shaped directory, every call with an error struct, OOPs computed
//! by the client. Login, execute, perform, conversions, structural access,
//! errors, breaks, non-blocking calls, transactions, bad handles and threads.

// the bound functions keep GemStone's names; its error struct is a fixed 2 KB
// Every unsafe block here either loads the library and binds its functions by
// name to the C signatures of GemStone's gcits.hf, or calls one of them with a
// session handle the library gave (or one forged on purpose, which the library
// must refuse), an error struct and buffers the test owns and keeps alive
// across the call, and lengths that are those buffers' own: one safety
// argument for them all, said once here.
#![allow(non_snake_case, clippy::result_large_err)]
#![allow(clippy::undocumented_unsafe_blocks)]

use gsmcp_gci_abi::{self as abi, BoolType, GciErrSType, GciSession, OopType};
use gsmcp_tests::gci_product_dir;
use std::ffi::{c_char, c_int, c_uint, CString};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

type E = *mut GciErrSType;

macro_rules! library {
    ($($name:ident : fn($($arg:ty),*) -> $ret:ty;)*) => {
        #[allow(non_snake_case)]
        struct Gci {
            _lib: libloading::Library,
            $($name: unsafe extern "C" fn($($arg),*) -> $ret,)*
        }
        fn load() -> Gci {
            let path = gci_product_dir().join("lib").join(format!("libgcits-3.7.5-64.{}", abi::product::SUFFIX));
            // SAFETY: our own library; its initialisers do nothing unusual.
            let lib = unsafe { libloading::Library::new(&path) }.expect("load the GCI library");
            $(
                // SAFETY: each symbol has the signature declared here (gcits.hf's).
                let $name = unsafe { *lib.get::<unsafe extern "C" fn($($arg),*) -> $ret>(concat!(stringify!($name), "\0").as_bytes()).expect(stringify!($name)) };
            )*
            Gci { _lib: lib, $($name,)* }
        }
    };
}

library! {
    GciTsVersion: fn(*mut c_char, usize) -> c_uint;
    GciTsLogin: fn(*const c_char, *const c_char, *const c_char, BoolType, *const c_char, *const c_char, *const c_char, c_uint, c_int, *mut BoolType, E) -> GciSession;
    GciTsNbLogin: fn(*const c_char, *const c_char, *const c_char, BoolType, *const c_char, *const c_char, *const c_char, c_uint, c_int, *mut c_int) -> GciSession;
    GciTsNbLoginFinished: fn(GciSession, *mut BoolType, E) -> c_int;
    GciTsLogout: fn(GciSession, E) -> BoolType;
    GciTsEncrypt: fn(*const c_char, *mut c_char, usize) -> *mut c_char;
    GciTsSessionIsRemote: fn(GciSession) -> c_int;
    GciTsExecute: fn(GciSession, *const c_char, OopType, OopType, OopType, c_int, u16, E) -> OopType;
    GciTsExecuteFetchBytes: fn(GciSession, *const c_char, isize, OopType, OopType, OopType, *mut u8, isize, E) -> isize;
    GciTsNbExecute: fn(GciSession, *const c_char, OopType, OopType, OopType, c_int, u16, E) -> BoolType;
    GciTsNbPoll: fn(GciSession, c_int, E) -> c_int;
    GciTsNbResult: fn(GciSession, E) -> OopType;
    GciTsSocket: fn(GciSession, E) -> c_int;
    GciTsCallInProgress: fn(GciSession, E) -> c_int;
    GciTsBreak: fn(GciSession, BoolType, E) -> BoolType;
    GciTsClearStack: fn(GciSession, OopType, E) -> BoolType;
    GciTsPerform: fn(GciSession, OopType, OopType, *const c_char, *const OopType, c_int, c_int, u16, E) -> OopType;
    GciTsPerformFetchBytes: fn(GciSession, OopType, *const c_char, *const OopType, c_int, *mut u8, isize, E) -> isize;
    GciTsResolveSymbol: fn(GciSession, *const c_char, OopType, E) -> OopType;
    GciTsNewString: fn(GciSession, *const c_char, E) -> OopType;
    GciTsNewSymbol: fn(GciSession, *const c_char, E) -> OopType;
    GciTsNewUtf8String: fn(GciSession, *const c_char, BoolType, E) -> OopType;
    GciTsNewByteArray: fn(GciSession, *const u8, usize, E) -> OopType;
    GciTsNewObj: fn(GciSession, OopType, E) -> OopType;
    GciTsFetchBytes: fn(GciSession, OopType, i64, *mut u8, i64, E) -> i64;
    GciTsFetchUtf8Bytes: fn(GciSession, OopType, i64, *mut u8, i64, *mut OopType, E, c_int) -> i64;
    GciTsFetchClass: fn(GciSession, OopType, E) -> OopType;
    GciTsFetchSize: fn(GciSession, OopType, E) -> i64;
    GciTsFetchVaryingSize: fn(GciSession, OopType, E) -> i64;
    GciTsFetchOops: fn(GciSession, OopType, i64, *mut OopType, c_int, E) -> c_int;
    GciTsStoreOops: fn(GciSession, OopType, i64, *const OopType, c_int, E, BoolType) -> BoolType;
    GciTsStoreBytes: fn(GciSession, OopType, i64, *const u8, i64, OopType, E) -> BoolType;
    GciTsIsKindOf: fn(GciSession, OopType, OopType, E) -> c_int;
    GciTsI64ToOop: fn(GciSession, i64, E) -> OopType;
    GciTsOopToI64: fn(GciSession, OopType, *mut i64, E) -> BoolType;
    GciTsDoubleToOop: fn(GciSession, f64, E) -> OopType;
    GciTsOopToDouble: fn(GciSession, OopType, *mut f64, E) -> BoolType;
    GciTsCharToOop: fn(c_uint) -> OopType;
    GciTsOopToChar: fn(OopType) -> c_int;
    GciTsOopIsSpecial: fn(OopType) -> BoolType;
    GciTsCommit: fn(GciSession, E) -> BoolType;
    GciTsAbort: fn(GciSession, E) -> BoolType;
    GciTsReleaseObjs: fn(GciSession, *const OopType, c_int, E) -> BoolType;
    GciTsSaveObjs: fn(GciSession, *const OopType, c_int, E) -> BoolType;
    GciTsReleaseAllObjs: fn(GciSession, E) -> BoolType;
}

fn gci() -> &'static Gci {
    static G: OnceLock<Gci> = OnceLock::new();
    G.get_or_init(load)
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// One login, logged out when dropped.
struct S(GciSession);
// SAFETY: GciTs sessions may be used from any thread.
unsafe impl Send for S {}

impl Drop for S {
    fn drop(&mut self) {
        let mut err = GciErrSType::default();
        unsafe { (gci().GciTsLogout)(self.0, &mut err) };
    }
}

fn try_login(stone: &str, user: &str, password: &str, flags: c_uint) -> Result<S, GciErrSType> {
    let g = gci();
    let (stone, user, pw) = (c(stone), c(user), c(password));
    let mut err = GciErrSType::default();
    let mut init = 0;
    let s = unsafe {
        (g.GciTsLogin)(
            stone.as_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            user.as_ptr(),
            pw.as_ptr(),
            flags | abi::GCI_LOGIN_QUIET,
            0,
            &mut init,
            &mut err,
        )
    };
    if s.is_null() {
        Err(err)
    } else {
        assert_eq!(init, abi::TRUE);
        Ok(S(s))
    }
}

fn login() -> S {
    try_login(":memory:", "DataCurator", "swordfish", 0).expect("log in to an in-memory stone")
}

impl S {
    fn exec(&self, src: &str) -> Result<OopType, GciErrSType> {
        let src = c(src);
        let mut err = GciErrSType::default();
        let r = unsafe {
            (gci().GciTsExecute)(
                self.0,
                src.as_ptr(),
                abi::OOP_CLASS_UTF8,
                abi::OOP_NO_CONTEXT,
                abi::OOP_NIL,
                0,
                0,
                &mut err,
            )
        };
        if r == abi::OOP_ILLEGAL {
            Err(err)
        } else {
            Ok(r)
        }
    }
    fn ok(&self, src: &str) -> OopType {
        self.exec(src).unwrap_or_else(|e| panic!("{src}: {e:?}"))
    }
    fn class(&self, oop: OopType) -> OopType {
        let mut err = GciErrSType::default();
        unsafe { (gci().GciTsFetchClass)(self.0, oop, &mut err) }
    }
    fn bytes(&self, oop: OopType) -> Vec<u8> {
        let mut err = GciErrSType::default();
        let n = unsafe { (gci().GciTsFetchSize)(self.0, oop, &mut err) };
        assert!(n >= 0, "{err:?}");
        let mut buf = vec![0u8; n as usize];
        let got = unsafe { (gci().GciTsFetchBytes)(self.0, oop, 1, buf.as_mut_ptr(), n, &mut err) };
        assert_eq!(got, n, "{err:?}");
        buf
    }
    fn perform(&self, recv: OopType, sel: &str, args: &[OopType]) -> Result<OopType, GciErrSType> {
        let sel = c(sel);
        let mut err = GciErrSType::default();
        let r = unsafe {
            (gci().GciTsPerform)(
                self.0,
                recv,
                abi::OOP_ILLEGAL,
                sel.as_ptr(),
                args.as_ptr(),
                args.len() as c_int,
                0,
                0,
                &mut err,
            )
        };
        if r == abi::OOP_ILLEGAL {
            Err(err)
        } else {
            Ok(r)
        }
    }
    fn print(&self, oop: OopType) -> String {
        let p = self.perform(oop, "printString", &[]).unwrap();
        String::from_utf8(self.bytes(p)).unwrap()
    }
}

#[test]
fn version_and_remote_flag() {
    let g = gci();
    let mut buf = [0 as c_char; 128];
    assert_eq!(
        unsafe { (g.GciTsVersion)(buf.as_mut_ptr(), buf.len()) },
        abi::GCI_PRODUCT_GS64
    );
    let text: String = buf
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| b as u8 as char)
        .collect();
    assert!(text.starts_with("3.7.5 "), "{text}");
    let s = login();
    assert_eq!(unsafe { (g.GciTsSessionIsRemote)(s.0) }, 1);
    assert_eq!(
        unsafe { (g.GciTsSessionIsRemote)(0xdead0 as GciSession) },
        -1
    );
}

#[test]
fn executes_answer_gemstone_oops() {
    let s = login();
    // (source, expected OOP if immediate, expected class OOP, printString)
    let table: &[(&str, Option<OopType>, OopType, &str)] = &[
        (
            "3 + 4",
            Some(abi::small_int_oop(7).unwrap()),
            abi::OOP_CLASS_SMALL_INTEGER,
            "7",
        ),
        (
            "nil",
            Some(abi::OOP_NIL),
            abi::OOP_CLASS_UNDEFINED_OBJECT,
            "nil",
        ),
        (
            "$A",
            Some(abi::char_oop('A' as u32).unwrap()),
            abi::OOP_CLASS_CHARACTER,
            "$A",
        ),
        ("'abc'", None, abi::OOP_CLASS_STRING, "'abc'"),
        ("#foo", None, abi::OOP_CLASS_SYMBOL, "#foo"),
        (
            "Array with: 1 with: 2",
            None,
            abi::OOP_CLASS_ARRAY,
            "anArray( 1, 2)",
        ),
        // the embedded kernel's large integers are not yet GemStone's LargeInteger
        ("1 bitShift: 70", None, 0, "1180591620717411303424"),
        ("String", Some(abi::OOP_CLASS_STRING), 0, "String"),
    ];
    for &(src, oop, class, print) in table {
        let r = s.ok(src);
        if let Some(o) = oop {
            assert_eq!(r, o, "{src}");
        }
        if class != 0 {
            assert_eq!(s.class(r), class, "class of {src}");
        }
        // the class a client fetches is the one Smalltalk answers
        assert_eq!(s.class(r), s.ok(&format!("({src}) class")), "{src}");
        assert_eq!(s.print(r), print, "{src}");
    }
    // the true OOP and the kernel's own classes
    assert_eq!(s.ok("true"), abi::OOP_TRUE);
    assert_eq!(s.ok("3 > 4"), abi::OOP_FALSE);
    assert_eq!(s.ok("Object"), 72193);
    let name = c("Object");
    let mut err = GciErrSType::default();
    assert_eq!(
        unsafe { (gci().GciTsResolveSymbol)(s.0, name.as_ptr(), abi::OOP_NIL, &mut err) },
        72193
    );
    let none = c("NoSuchGlobalAnywhere");
    assert_eq!(
        unsafe { (gci().GciTsResolveSymbol)(s.0, none.as_ptr(), abi::OOP_NIL, &mut err) },
        abi::OOP_ILLEGAL
    );
    // results of any length, UTF-8 included, come back whole
    let big = s.ok("(String new: 300000) atAllPut: $x; yourself");
    assert_eq!(s.bytes(big).len(), 300000);
    let mut buf = [0u8; 64];
    let mut utf8 = abi::OOP_ILLEGAL;
    let wide =
        s.ok("(String with: (Character value: 233)) , (String with: (Character value: 9731))");
    let n = unsafe {
        (gci().GciTsFetchUtf8Bytes)(s.0, wide, 1, buf.as_mut_ptr(), 64, &mut utf8, &mut err, 0)
    };
    assert_eq!(std::str::from_utf8(&buf[..n as usize]).unwrap(), "é☃");
    let mut buf = [0u8; 16];
    let n = unsafe {
        (gci().GciTsExecuteFetchBytes)(
            s.0,
            c("'hello' , ' world'").as_ptr(),
            -1,
            abi::OOP_CLASS_UTF8,
            abi::OOP_NO_CONTEXT,
            abi::OOP_NIL,
            buf.as_mut_ptr(),
            16,
            &mut err,
        )
    };
    assert_eq!(&buf[..n as usize], b"hello world");
    let n = unsafe {
        (gci().GciTsExecuteFetchBytes)(
            s.0,
            c("'this is longer than sixteen'").as_ptr(),
            -1,
            abi::OOP_CLASS_UTF8,
            abi::OOP_NO_CONTEXT,
            abi::OOP_NIL,
            buf.as_mut_ptr(),
            16,
            &mut err,
        )
    };
    assert_eq!(
        (n, err.number),
        (-1, abi::ERR_ARGUMENT_ERROR),
        "a result larger than the buffer is an error, not a cut"
    );
}

#[test]
fn errors_fill_the_error_struct_as_gemstone_does() {
    let s = login();
    let e = s.exec("1/0").unwrap_err();
    assert_eq!(e.number, 2026, "{e:?}");
    assert_eq!(e.category, abi::OOP_GEMSTONE_ERROR_CAT);
    assert_eq!(e.fatal, 0);
    assert!(e.message_text().contains("ZeroDivide"), "{e:?}");
    assert_eq!(
        s.class(e.exception_obj),
        131329,
        "the exception is a ZeroDivide"
    );
    let text = s.perform(e.exception_obj, "description", &[]).unwrap();
    assert!(String::from_utf8(s.bytes(text)).unwrap().contains("divide"));
    let mut err = GciErrSType::default();
    assert_eq!(
        unsafe { (gci().GciTsClearStack)(s.0, e.context, &mut err) },
        abi::TRUE
    );

    let e = s.exec("Object new fooBar").unwrap_err();
    assert_eq!(e.number, abi::RT_ERR_DOES_NOT_UNDERSTAND);

    // a compile error: 1001 with errorDetails {{number. offset. text}} in arg 1
    let e = s.exec("3 +").unwrap_err();
    assert_eq!(
        (e.number, e.arg_count),
        (abi::COMPILER_ERR_STDB, 1),
        "{e:?}"
    );
    let mut detail = [0; 1];
    assert_eq!(
        unsafe { (gci().GciTsFetchOops)(s.0, e.args[0], 1, detail.as_mut_ptr(), 1, &mut err) },
        1
    );
    let mut parts = [0; 3];
    assert_eq!(
        unsafe { (gci().GciTsFetchOops)(s.0, detail[0], 1, parts.as_mut_ptr(), 3, &mut err) },
        3
    );
    assert_eq!(
        abi::small_int_value(parts[1]),
        Some(4),
        "1-based offset of the error"
    );
    assert!(!s.bytes(parts[2]).is_empty());

    // a session continues after every error; errors leave no process to continue
    assert_eq!(s.ok("3 + 4"), abi::small_int_oop(7).unwrap());
    // an OOP that names nothing
    let e = s.perform(abi::objid_oop(1 << 40), "size", &[]).unwrap_err();
    assert_eq!(e.number, abi::OBJ_ERR_DOES_NOT_EXIST);
}

#[test]
fn perform_conversions_and_new_objects() {
    let g = gci();
    let s = login();
    let mut err = GciErrSType::default();
    let seven = s
        .perform(
            abi::small_int_oop(3).unwrap(),
            "+",
            &[abi::small_int_oop(4).unwrap()],
        )
        .unwrap();
    assert_eq!(seven, abi::small_int_oop(7).unwrap());
    let mut buf = [0u8; 8];
    let n = unsafe {
        (g.GciTsPerformFetchBytes)(
            s.0,
            seven,
            c("printString").as_ptr(),
            std::ptr::null(),
            0,
            buf.as_mut_ptr(),
            8,
            &mut err,
        )
    };
    assert_eq!(&buf[..n as usize], b"7");

    // integers both ways, SmallInteger and LargeInteger
    for n in [
        0i64,
        -1,
        55,
        abi::MAX_SMALL_INT,
        abi::MIN_SMALL_INT,
        i64::MAX,
        i64::MIN + 1,
    ] {
        let oop = unsafe { (g.GciTsI64ToOop)(s.0, n, &mut err) };
        assert_ne!(oop, abi::OOP_ILLEGAL, "{n}: {err:?}");
        let mut back = 0;
        assert_eq!(
            unsafe { (g.GciTsOopToI64)(s.0, oop, &mut back, &mut err) },
            abi::TRUE,
            "{n}"
        );
        assert_eq!(back, n);
        assert_eq!(
            unsafe { (g.GciTsOopIsSpecial)(oop) } != 0,
            abi::small_int_oop(n).is_some(),
            "{n}"
        );
    }
    // doubles
    for f in [1.5f64, -0.25, 1e300, 3.0e-310] {
        let oop = unsafe { (g.GciTsDoubleToOop)(s.0, f, &mut err) };
        let mut back = 0.0;
        assert_eq!(
            unsafe { (g.GciTsOopToDouble)(s.0, oop, &mut back, &mut err) },
            abi::TRUE
        );
        assert_eq!(back, f);
    }
    let d = s.ok("1.5");
    assert!(matches!(
        s.class(d),
        abi::OOP_CLASS_SMALL_DOUBLE | abi::OOP_CLASS_FLOAT
    ));
    assert_eq!(
        s.print(unsafe { (g.GciTsDoubleToOop)(s.0, 2.5, &mut err) }),
        "2.5"
    );
    // characters need no session
    for ch in [0u32, 65, 0x263A, 0x10FFFF] {
        let oop = unsafe { (g.GciTsCharToOop)(ch) };
        assert_eq!(unsafe { (g.GciTsOopToChar)(oop) }, ch as c_int);
    }
    assert_eq!(unsafe { (g.GciTsCharToOop)(0x110000) }, abi::OOP_ILLEGAL);
    assert_eq!(unsafe { (g.GciTsOopToChar)(abi::OOP_NIL) }, -1);

    // new objects, their bodies, kinds
    let st = unsafe { (g.GciTsNewString)(s.0, c("hello").as_ptr(), &mut err) };
    assert_eq!(
        (s.class(st), s.bytes(st)),
        (abi::OOP_CLASS_STRING, b"hello".to_vec())
    );
    assert_eq!(
        unsafe { (g.GciTsIsKindOf)(s.0, st, 80385, &mut err) },
        1,
        "a String is a CharacterCollection"
    );
    assert_eq!(
        unsafe { (g.GciTsIsKindOf)(s.0, st, abi::OOP_CLASS_ARRAY, &mut err) },
        0
    );
    assert_eq!(
        unsafe {
            (g.GciTsStoreBytes)(
                s.0,
                st,
                1,
                b"J".as_ptr(),
                1,
                abi::OOP_CLASS_STRING,
                &mut err,
            )
        },
        abi::TRUE
    );
    assert_eq!(s.print(st), "'Jello'");
    let sym = unsafe { (g.GciTsNewSymbol)(s.0, c("fooBar:").as_ptr(), &mut err) };
    assert_eq!(s.class(sym), abi::OOP_CLASS_SYMBOL);
    assert_eq!(
        s.perform(sym, "numArgs", &[]).unwrap(),
        abi::small_int_oop(1).unwrap()
    );
    let u = unsafe { (g.GciTsNewUtf8String)(s.0, c("naïve ☃").as_ptr(), abi::TRUE, &mut err) };
    assert_eq!(
        s.perform(u, "size", &[]).unwrap(),
        abi::small_int_oop(7).unwrap()
    );
    let ba = unsafe { (g.GciTsNewByteArray)(s.0, [1u8, 2, 255].as_ptr(), 3, &mut err) };
    assert_eq!(
        (s.class(ba), s.bytes(ba)),
        (abi::OOP_CLASS_BYTE_ARRAY, vec![1, 2, 255])
    );
    let arr = s.ok("Array new: 3");
    assert_eq!(unsafe { (g.GciTsFetchVaryingSize)(s.0, arr, &mut err) }, 3);
    let vals = [abi::small_int_oop(9).unwrap(), st, abi::OOP_TRUE];
    assert_eq!(
        unsafe { (g.GciTsStoreOops)(s.0, arr, 1, vals.as_ptr(), 3, &mut err, abi::FALSE) },
        abi::TRUE
    );
    let mut back = [0; 3];
    assert_eq!(
        unsafe { (g.GciTsFetchOops)(s.0, arr, 1, back.as_mut_ptr(), 3, &mut err) },
        3
    );
    assert_eq!(back, vals);
    assert_eq!(s.print(arr), "anArray( 9, 'Jello', true)");
    let oc = unsafe { (g.GciTsNewObj)(s.0, 92673, &mut err) };
    assert_eq!(s.class(oc), 92673, "an OrderedCollection: {err:?}");
    // an invariant object refuses stores
    let lit = s.ok("#(1 2 3)");
    let stored = unsafe { (g.GciTsStoreOops)(s.0, lit, 1, vals.as_ptr(), 1, &mut err, abi::FALSE) };
    if s.print(s.perform(lit, "isInvariant", &[]).unwrap()) == "true" {
        assert_eq!(stored, abi::FALSE);
    }
}

#[test]
fn exported_objects_survive_collections_until_released() {
    let g = gci();
    let s = login();
    let mut err = GciErrSType::default();
    let kept = s.ok("'kept' copy");
    // plenty of garbage and an explicit collection between calls
    s.ok("1 to: 200000 do: [:i | i printString]. 0");
    assert_eq!(s.print(kept), "'kept'");
    assert_eq!(
        unsafe { (g.GciTsSaveObjs)(s.0, [kept].as_ptr(), 1, &mut err) },
        abi::TRUE
    );
    assert_eq!(
        unsafe { (g.GciTsReleaseObjs)(s.0, [kept].as_ptr(), 1, &mut err) },
        abi::TRUE
    );
    assert_eq!(unsafe { (g.GciTsReleaseAllObjs)(s.0, &mut err) }, abi::TRUE);
}

fn wait_ready(s: &S, bound: Duration) -> bool {
    let start = Instant::now();
    let mut err = GciErrSType::default();
    while start.elapsed() < bound {
        if unsafe { (gci().GciTsNbPoll)(s.0, 50, &mut err) } == 1 {
            return true;
        }
    }
    false
}

#[test]
fn non_blocking_calls_breaks_and_the_socket() {
    let g = gci();
    let s = login();
    let mut err = GciErrSType::default();
    // the socket becomes readable when the call has finished
    assert_eq!(
        unsafe {
            (g.GciTsNbExecute)(
                s.0,
                c("3 + 4").as_ptr(),
                abi::OOP_CLASS_UTF8,
                abi::OOP_NO_CONTEXT,
                abi::OOP_NIL,
                0,
                0,
                &mut err,
            )
        },
        abi::TRUE
    );
    let fd = unsafe { (g.GciTsSocket)(s.0, &mut err) };
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    assert_eq!(
        unsafe { libc::poll(&mut pfd, 1, 10_000) },
        1,
        "readable when done"
    );
    assert_eq!(
        unsafe { (g.GciTsNbResult)(s.0, &mut err) },
        abi::small_int_oop(7).unwrap()
    );
    pfd.revents = 0;
    assert_eq!(
        unsafe { libc::poll(&mut pfd, 1, 0) },
        0,
        "drained once collected"
    );
    // a result with no call under way
    assert_eq!(
        unsafe { (g.GciTsNbResult)(s.0, &mut err) },
        abi::OOP_ILLEGAL
    );
    assert_eq!(err.number, abi::GCI_ERR_NO_START_CMD);

    // soft and hard breaks end a runaway call; the session goes on
    for (hard, number) in [
        (abi::FALSE, abi::RT_ERR_SOFT_BREAK),
        (abi::TRUE, abi::RT_ERR_HARD_BREAK),
    ] {
        assert_eq!(
            unsafe {
                (g.GciTsNbExecute)(
                    s.0,
                    c("[true] whileTrue").as_ptr(),
                    abi::OOP_CLASS_UTF8,
                    abi::OOP_NO_CONTEXT,
                    abi::OOP_NIL,
                    0,
                    0,
                    &mut err,
                )
            },
            abi::TRUE
        );
        assert!(!wait_ready(&s, Duration::from_millis(200)), "still running");
        assert_eq!(unsafe { (g.GciTsCallInProgress)(s.0, &mut err) }, 1);
        // anything else on the session is refused meanwhile
        assert_eq!(s.exec("1").unwrap_err().number, abi::GCI_ERR_OP_IN_PROGRESS);
        assert_eq!(unsafe { (g.GciTsBreak)(s.0, hard, &mut err) }, abi::TRUE);
        assert!(
            wait_ready(&s, Duration::from_secs(20)),
            "the break ends the call"
        );
        assert_eq!(
            unsafe { (g.GciTsNbResult)(s.0, &mut err) },
            abi::OOP_ILLEGAL
        );
        assert_eq!(err.number, number);
        assert_eq!(unsafe { (g.GciTsCallInProgress)(s.0, &mut err) }, 0);
        assert_eq!(s.ok("3 + 4"), abi::small_int_oop(7).unwrap());
    }
    // a break while idle is nothing: it does not hit the next call
    assert_eq!(
        unsafe { (g.GciTsBreak)(s.0, abi::FALSE, &mut err) },
        abi::TRUE
    );
    assert_eq!(
        s.ok("(1 to: 1000) inject: 0 into: [:a :b | a + b]"),
        abi::small_int_oop(500500).unwrap()
    );
}

#[test]
fn logins_nonblocking_encrypted_and_refused() {
    let g = gci();
    // non-blocking login: the poll socket turns readable, then Finished says 1
    let (stone, user, pw) = (c(":memory:"), c("DataCurator"), c("swordfish"));
    let mut fd = -1;
    let s = unsafe {
        (g.GciTsNbLogin)(
            stone.as_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            user.as_ptr(),
            pw.as_ptr(),
            abi::GCI_LOGIN_QUIET,
            0,
            &mut fd,
        )
    };
    assert!(!s.is_null() && fd >= 0);
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    assert_eq!(unsafe { libc::poll(&mut pfd, 1, 60_000) }, 1);
    let (mut init, mut err) = (0, GciErrSType::default());
    assert_eq!(
        unsafe { (g.GciTsNbLoginFinished)(s, &mut init, &mut err) },
        1,
        "{err:?}"
    );
    let s = S(s);
    assert_eq!(s.ok("3 + 4"), abi::small_int_oop(7).unwrap());

    // an encrypted password
    let mut buf = [0 as c_char; 256];
    let enc = unsafe { (g.GciTsEncrypt)(pw.as_ptr(), buf.as_mut_ptr(), buf.len()) };
    assert!(!enc.is_null());
    let enc = unsafe { std::ffi::CStr::from_ptr(enc) }
        .to_str()
        .unwrap()
        .to_string();
    assert_ne!(enc, "swordfish");
    try_login(":memory:", "DataCurator", &enc, abi::GCI_LOGIN_PW_ENCRYPTED)
        .expect("encrypted login");
    assert!(unsafe { (g.GciTsEncrypt)(c("").as_ptr(), buf.as_mut_ptr(), buf.len()) }.is_null());
    assert!(unsafe { (g.GciTsEncrypt)(pw.as_ptr(), buf.as_mut_ptr(), 4) }.is_null());

    // refusals, each with GemStone's number
    let repo = gsmcp_tests::harness::scratch_path("gci-refusals.repository");
    let repo = repo.to_str().unwrap();
    let table: &[(&str, &str, &str, i32)] = &[
        (repo, "DataCurator", "wrong", abi::GS_ERR_LOGIN_DENIAL),
        (repo, "NoSuchUser", "swordfish", abi::GS_ERR_LOGIN_DENIAL),
        (
            ":memory:",
            "SystemUser",
            "swordfish",
            abi::GS_ERR_LOGIN_DENIAL,
        ),
        (
            "!@far.away.example!gs64stone",
            "DataCurator",
            "swordfish",
            abi::NET_ERR_NO_SUCH_STN,
        ),
        (
            "/proc/no/such/dir/x.repository",
            "DataCurator",
            "swordfish",
            abi::NET_ERR_NO_SUCH_STN,
        ),
    ];
    for &(stone, user, pw, number) in table {
        let e = try_login(stone, user, pw, 0)
            .err()
            .unwrap_or_else(|| panic!("{stone} {user}: logged in"));
        assert_eq!(e.number, number, "{stone} {user}: {e:?}");
        assert!(
            !e.message_text().contains(pw) || pw == "swordfish",
            "the password never shows"
        );
    }
    // the right password on the same repository logs in
    try_login(repo, "DataCurator", "swordfish", 0).expect("log in to the repository");
    // a bad handle, and one logged out
    let refused = |h: GciSession| {
        let mut err = GciErrSType::default();
        // SAFETY: a C string and a writable error struct; the handle is the point.
        let r = unsafe {
            (g.GciTsExecute)(
                h,
                c("1").as_ptr(),
                abi::OOP_CLASS_UTF8,
                abi::OOP_NO_CONTEXT,
                abi::OOP_NIL,
                0,
                0,
                &mut err,
            )
        };
        assert_eq!(
            (r, err.number),
            (abi::OOP_ILLEGAL, abi::GCI_ERR_BAD_SESSION_ID)
        );
    };
    refused(0x7777_0000usize as GciSession);
    let gone = login();
    let h = gone.0;
    drop(gone);
    refused(h);
}

#[test]
fn jwt_logins_carry_the_token_as_the_password() {
    // a user enabled for JWT logins and a trusted key, set up over GCI as an
    // administrator would on a GemStone 3.7.4.1 stone
    let key = gsmcp_tests::jwt::Key::new("gci-k1");
    let repo = gsmcp_tests::harness::scratch_path("gci-jwt.repository");
    let repo = repo.to_str().unwrap();
    let admin = try_login(repo, "DataCurator", "swordfish", 0).expect("log in as DataCurator");
    let setup = format!(
        "| sec | AllUsers addNewUserWithId: 'alice' password: 'alices-password'. \
         sec := JwtSecurityData new. sec addUserId: 'alice-sub'; addIssuer: #*; addAudience: #*. \
         (AllUsers userWithId: 'alice') enableJwtAuthenticationWith: sec. \
         System addJwtKey: (GsTlsPublicKey newFromPemString: '{}') withId: 'gci-k1'. \
         System commitTransaction",
        key.public_pem
    );
    assert_eq!(admin.ok(&setup), abi::OOP_TRUE);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let token = |sub: &str| {
        key.sign(
            "gci-k1",
            &serde_json::json!({"sub": sub, "iss": "https://id.test", "aud": "gs", "exp": now + 300}),
        )
    };
    let alice =
        try_login(repo, "alice", &token("alice-sub"), abi::GCI_JWT_PASSWORD).expect("a JWT login");
    let who = alice.ok("System myUserProfile userId");
    assert_eq!(alice.print(who), "'alice'");
    // (login, password, flags) -> part of the refusal; each is 4051
    let refusals: &[(&str, String, c_uint, &str)] = &[
        // the token without the flag is a (wrong) password
        (
            repo,
            token("alice-sub"),
            0,
            "user id or password is not valid",
        ),
        // the password no longer logs alice in
        (
            repo,
            "alices-password".into(),
            0,
            "user id or password is not valid",
        ),
        (
            repo,
            token("bob-sub"),
            abi::GCI_JWT_PASSWORD,
            "names someone other than alice",
        ),
        (
            ":memory:",
            token("alice-sub"),
            abi::GCI_JWT_PASSWORD,
            "no users enabled for JWT",
        ),
    ];
    for (stone, password, flags, part) in refusals {
        let user = if *stone == ":memory:" {
            "DataCurator"
        } else {
            "alice"
        };
        let e = try_login(stone, user, password, *flags)
            .err()
            .unwrap_or_else(|| panic!("{stone} {flags}: logged in"));
        assert_eq!(e.number, abi::GS_ERR_LOGIN_DENIAL, "{e:?}");
        assert!(
            e.message_text().contains(part),
            "{part}: {}",
            e.message_text()
        );
        assert!(
            !e.message_text().contains(password.as_str()),
            "the token never shows"
        );
    }
}

#[test]
fn the_default_stone_lives_in_the_product_directory() {
    // NULL stone means gs64stone: $GEMSTONE/data/gs64stone.repository, made on first login
    let g = gci();
    let dir = gci_product_dir();
    let (user, pw) = (c("DataCurator"), c("swordfish"));
    let mut err = GciErrSType::default();
    let mut init = 0;
    std::env::set_var("GEMSTONE", dir);
    let s = unsafe {
        (g.GciTsLogin)(
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            user.as_ptr(),
            pw.as_ptr(),
            abi::GCI_LOGIN_QUIET,
            0,
            &mut init,
            &mut err,
        )
    };
    assert!(!s.is_null(), "{err:?}");
    let s = S(s);
    assert!(dir.join("data/gs64stone.repository").is_file());
    assert_eq!(s.ok("3 + 4"), abi::small_int_oop(7).unwrap());
}

#[test]
fn two_sessions_commit_and_abort_on_one_repository() {
    let g = gci();
    let repo = gsmcp_tests::harness::scratch_path("gci-two.repository");
    let repo = repo.to_str().unwrap();
    let a = try_login(repo, "DataCurator", "swordfish", 0).unwrap();
    let b = try_login(repo, "DataCurator", "swordfish", 0).unwrap();
    let mut err = GciErrSType::default();
    a.ok("UserGlobals at: #GciShared put: 42");
    assert_eq!(
        b.print(b.ok("UserGlobals at: #GciShared ifAbsent: [nil]")),
        "nil",
        "uncommitted work is A's own"
    );
    assert_eq!(
        unsafe { (g.GciTsCommit)(a.0, &mut err) },
        abi::TRUE,
        "{err:?}"
    );
    assert_eq!(
        b.print(b.ok("UserGlobals at: #GciShared ifAbsent: [nil]")),
        "nil",
        "B's view is older"
    );
    assert_eq!(unsafe { (g.GciTsAbort)(b.0, &mut err) }, abi::TRUE);
    assert_eq!(b.print(b.ok("UserGlobals at: #GciShared")), "42");
    // a write-write conflict: both change the same object, the second commit fails
    a.ok("UserGlobals at: #GciShared put: 1");
    b.ok("UserGlobals at: #GciShared put: 2");
    assert_eq!(unsafe { (g.GciTsCommit)(a.0, &mut err) }, abi::TRUE);
    assert_eq!(
        unsafe { (g.GciTsCommit)(b.0, &mut err) },
        abi::FALSE,
        "B conflicts with A"
    );
    assert_eq!(unsafe { (g.GciTsAbort)(b.0, &mut err) }, abi::TRUE);
    assert_eq!(b.print(b.ok("UserGlobals at: #GciShared")), "1");
}

#[test]
fn sessions_on_many_threads_at_once() {
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let s = login();
                for j in 0..20 {
                    let r = s.ok(&format!("{i} * 1000 + {j}"));
                    assert_eq!(r, abi::small_int_oop(i * 1000 + j).unwrap());
                }
                // one session may be used from another thread too
                std::thread::spawn(move || {
                    assert_eq!(s.ok("2 + 2"), abi::small_int_oop(4).unwrap())
                })
                .join()
                .unwrap();
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
