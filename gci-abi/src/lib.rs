//! The C ABI of GemStone/S 64's thread-safe GCI (libgcits), written from the
//! published signatures and layouts: the types a call passes, the error struct
//! every call fills, the OOP encoding of immediates, the OOPs of the kernel
//! classes that clients compute themselves, and the flags and error numbers.
//!
//! Both sides of the seam use it: the worker's GCI backend, which loads a
//! library at run time and calls it, and the GCI-compatible library over the
//! embedded stone, which exports the same functions. It holds no code that
//! calls anything; a layout mistake here would be shared by both, so the
//! layouts are pinned by tests against the published sizes and offsets.
//! `product` says where a product directory keeps the library.

#![warn(missing_docs)]

pub mod product;

use std::ffi::{c_char, c_int, c_void};

/// An object identifier as GCI passes it.
pub type OopType = u64;
/// GCI's boolean: a C `int`, 1 or 0.
pub type BoolType = c_int;
/// A GCI session handle (opaque; null means failure).
pub type GciSession = *mut c_void;

/// GCI true.
pub const TRUE: BoolType = 1;
/// GCI false.
pub const FALSE: BoolType = 0;

/// Characters of an error message or reason, without the terminating NUL.
pub const GCI_ERR_STR_SIZE: usize = 1024;
/// Arguments an error carries at most.
pub const GCI_MAX_ERR_ARGS: usize = 10;
/// Characters a Symbol holds at most.
pub const GCI_MAX_SYMBOL_SIZE: usize = 1024;

/// The error report every GCI call fills on failure (`GciErrSType`).
#[repr(C)]
#[derive(Clone)]
pub struct GciErrSType {
    /// The error dictionary; [`OOP_GEMSTONE_ERROR_CAT`] for GemStone's errors.
    pub category: OopType,
    /// The process left at the error, or nil.
    pub context: OopType,
    /// The exception, or nil.
    pub exception_obj: OopType,
    /// The error's arguments; the first `arg_count` are meaningful.
    pub args: [OopType; GCI_MAX_ERR_ARGS],
    /// The error number (e.g. [`RT_ERR_DOES_NOT_UNDERSTAND`]).
    pub number: c_int,
    /// How many of `args` are set.
    pub arg_count: c_int,
    /// Nonzero: the session is gone.
    pub fatal: u8,
    /// NUL-terminated UTF-8.
    pub message: [c_char; GCI_ERR_STR_SIZE + 1],
    /// NUL-terminated UTF-8.
    pub reason: [c_char; GCI_ERR_STR_SIZE + 1],
}

impl Default for GciErrSType {
    /// The state GemStone's own initialiser leaves: nil context, category and
    /// exception, the first argument illegal, everything else zero.
    fn default() -> Self {
        let mut args = [0; GCI_MAX_ERR_ARGS];
        args[0] = OOP_ILLEGAL;
        GciErrSType {
            category: OOP_NIL,
            context: OOP_NIL,
            exception_obj: OOP_NIL,
            args,
            number: 0,
            arg_count: 0,
            fatal: 0,
            message: [0; GCI_ERR_STR_SIZE + 1],
            reason: [0; GCI_ERR_STR_SIZE + 1],
        }
    }
}

impl std::fmt::Debug for GciErrSType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GciErrSType")
            .field("number", &self.number)
            .field("fatal", &self.fatal)
            .field("message", &self.message_text())
            .field("reason", &self.reason_text())
            .finish_non_exhaustive()
    }
}

/// The text of a NUL-terminated C buffer (lossy UTF-8; all of it when no NUL).
pub fn c_text(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Copies `text` into a NUL-terminated buffer, cut at a character boundary
/// so the buffer stays valid UTF-8.
fn set_c_text(buf: &mut [c_char], text: &str) {
    let mut end = text.len().min(buf.len() - 1);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    for (d, s) in buf.iter_mut().zip(text.as_bytes()[..end].iter()) {
        *d = *s as c_char;
    }
    buf[end] = 0;
}

impl GciErrSType {
    /// The message as text.
    pub fn message_text(&self) -> String {
        c_text(&self.message)
    }
    /// The reason as text.
    pub fn reason_text(&self) -> String {
        c_text(&self.reason)
    }
    /// Sets the message (cut to fit, at a character boundary).
    pub fn set_message(&mut self, text: &str) {
        set_c_text(&mut self.message, text);
    }
    /// Sets the reason (cut to fit, at a character boundary).
    pub fn set_reason(&mut self, text: &str) {
        set_c_text(&mut self.reason, text);
    }
    /// A GemStone error with this number and message, nothing else.
    pub fn gemstone(number: i32, message: &str) -> GciErrSType {
        let mut e = GciErrSType {
            category: OOP_GEMSTONE_ERROR_CAT,
            number,
            ..GciErrSType::default()
        };
        e.set_message(message);
        e
    }
}

/// The per-object information `GciTsFetchObjInfo` answers (40 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct GciTsObjInfo {
    /// The object.
    pub obj_id: OopType,
    /// Its class.
    pub obj_class: OopType,
    /// Named plus indexed size.
    pub obj_size: i64,
    /// Named instance variables.
    pub named_size: c_int,
    /// Access bits and implementation (low two bits: 0 pointers, 1 bytes,
    /// 2 non-sequenceable collection, 3 special).
    pub access: u32,
    /// The object's security policy.
    pub object_security_policy_id: u16,
    /// Further flag bits.
    pub extra_bits: u16,
    /// Padding to 40 bytes.
    pub _pad: u32,
}

/// The implementation kinds in [`GciTsObjInfo::access`].
pub const GC_FORMAT_OOP: u32 = 0;
/// Bytes.
pub const GC_FORMAT_BYTE: u32 = 1;
/// A non-sequenceable collection.
pub const GC_FORMAT_NSC: u32 = 2;
/// An immediate (special) object.
pub const GC_FORMAT_SPECIAL: u32 = 3;
/// The bits of `access` that hold the implementation kind.
pub const GC_IMPLEMENTATION_MASK: u32 = 0x03;
/// The object has indexed slots.
pub const GC_INDEXABLE_MASK: u32 = 0x04;
/// The object is invariant.
pub const GC_INVARIANT_MASK: u32 = 0x08;

// ----- OOPs of immediates -----

/// No object: what a failed call answers.
pub const OOP_ILLEGAL: OopType = 0x01;
/// `nil`.
pub const OOP_NIL: OopType = 0x14;
/// `false`.
pub const OOP_FALSE: OopType = 0x0C;
/// `true`.
pub const OOP_TRUE: OopType = 0x10C;
/// GemStone's remote `nil`, distinct from [`OOP_NIL`].
pub const OOP_REMOTE_NIL: OopType = 0x114;
/// The Character with code point 0.
pub const OOP_ASCII_NUL: OopType = 0x1C;
/// The "no context" value of an execute's context argument.
pub const OOP_NO_CONTEXT: OopType = OOP_ILLEGAL;

/// Low-bits tag of an object identifier.
pub const OOP_TAG_POM_OOP: OopType = 0x1;
/// Low-bits tag of a SmallInteger.
pub const OOP_TAG_SMALLINT: OopType = 0x2;
/// Low-bits tag of a SmallDouble.
pub const OOP_TAG_SMALLDOUBLE: OopType = 0x6;
/// Low-bits tag of the other immediates (Character, nil, true, false).
pub const OOP_TAG_SPECIAL: OopType = 0x4;
/// How many low bits a SmallInteger's tag takes.
pub const OOP_NUM_TAG_BITS: u32 = 3;
const OOP_CHAR_TAG: OopType = 0x1C;

/// The least SmallInteger.
pub const MIN_SMALL_INT: i64 = -(1 << 60);
/// The greatest SmallInteger.
pub const MAX_SMALL_INT: i64 = (1 << 60) - 1;

/// Whether `oop` is an immediate (SmallInteger, SmallDouble, Character, nil,
/// true, false…) rather than an object identifier.
pub fn oop_is_special(oop: OopType) -> bool {
    oop & 7 != 0 && oop & 1 == 0
}

/// The OOP of a SmallInteger, if `n` is in range.
pub fn small_int_oop(n: i64) -> Option<OopType> {
    (MIN_SMALL_INT..=MAX_SMALL_INT)
        .contains(&n)
        .then_some(((n << OOP_NUM_TAG_BITS) as OopType) | OOP_TAG_SMALLINT)
}

/// The value of a SmallInteger OOP.
pub fn small_int_value(oop: OopType) -> Option<i64> {
    (oop & 7 == OOP_TAG_SMALLINT).then_some((oop as i64) >> OOP_NUM_TAG_BITS)
}

/// The OOP of a Character, if `cp` is a code point.
pub fn char_oop(cp: u32) -> Option<OopType> {
    (cp <= 0x10FFFF).then_some(((cp as OopType) << 8) | OOP_CHAR_TAG)
}

/// The code point of a Character OOP.
pub fn char_value(oop: OopType) -> Option<u32> {
    (oop & 0xFF == OOP_CHAR_TAG)
        .then_some((oop >> 8) as u32)
        .filter(|&c| c <= 0x10FFFF)
}

/// The OOP of the object with this object number (a disk object id).
pub fn objid_oop(number: u64) -> OopType {
    (number << 8) | OOP_TAG_POM_OOP
}

/// The object number of an object identifier.
pub fn oop_objid(oop: OopType) -> Option<u64> {
    (oop & 0xFF == OOP_TAG_POM_OOP).then_some(oop >> 8)
}

// ----- kernel class OOPs (the same in 3.6.x and 3.7.x) -----

/// The class `Array`.
pub const OOP_CLASS_ARRAY: OopType = 66817;
/// The class `ByteArray`.
pub const OOP_CLASS_BYTE_ARRAY: OopType = 103425;
/// The class `String`.
pub const OOP_CLASS_STRING: OopType = 74753;
/// The class `Symbol`.
pub const OOP_CLASS_SYMBOL: OopType = 110849;
/// The class `SmallInteger`.
pub const OOP_CLASS_SMALL_INTEGER: OopType = 74241;
/// The class `SmallDouble`.
pub const OOP_CLASS_SMALL_DOUBLE: OopType = 121345;
/// The class `Float`.
pub const OOP_CLASS_FLOAT: OopType = 135937;
/// The class `Character`.
pub const OOP_CLASS_CHARACTER: OopType = 68353;
/// The class `Boolean`.
pub const OOP_CLASS_BOOLEAN: OopType = 68097;
/// The class `UndefinedObject`.
pub const OOP_CLASS_UNDEFINED_OBJECT: OopType = 76289;
/// The class `Utf8`.
pub const OOP_CLASS_UTF8: OopType = 154113;
/// The class `Unicode7`.
pub const OOP_CLASS_UNICODE7: OopType = 154369;
/// The class `Unicode16`.
pub const OOP_CLASS_UNICODE16: OopType = 154625;
/// The class `Unicode32`.
pub const OOP_CLASS_UNICODE32: OopType = 154881;
/// The class `DoubleByteString`.
pub const OOP_CLASS_DOUBLE_BYTE_STRING: OopType = 143873;
/// The class `QuadByteString`.
pub const OOP_CLASS_QUAD_BYTE_STRING: OopType = 144385;
/// The class `GsProcess`.
pub const OOP_CLASS_GS_PROCESS: OopType = 134657;
/// The class `CompileError`.
pub const OOP_CLASS_COMPILE_ERROR: OopType = 132097;
/// The class `System`.
pub const OOP_CLASS_SYSTEM: OopType = 76033;
/// The error category of GemStone's own errors.
pub const OOP_GEMSTONE_ERROR_CAT: OopType = 231169;

/// Kernel classes whose OOPs are fixed in every GemStone 3.7 repository, by
/// name, as clients compute them.
pub const KERNEL_CLASS_OOPS: &[(&str, OopType)] = &[
    ("AbstractDictionary", 110593),
    ("AbstractException", 130305),
    ("AbstractFraction", 156417),
    ("AlmostOutOfMemory", 138753),
    ("AlmostOutOfStack", 141825),
    ("ArgumentError", 139009),
    ("ArgumentTypeError", 141569),
    ("Array", OOP_CLASS_ARRAY),
    ("Association", 67073),
    ("Behavior", 67585),
    ("Boolean", OOP_CLASS_BOOLEAN),
    ("ByteArray", OOP_CLASS_BYTE_ARRAY),
    ("Character", OOP_CLASS_CHARACTER),
    ("CharacterCollection", 80385),
    ("Class", 68609),
    ("ClassOrganizer", 93185),
    ("Collection", 68865),
    ("CompileError", OOP_CLASS_COMPILE_ERROR),
    ("Date", 100609),
    ("DateTime", 118785),
    ("DoubleByteString", OOP_CLASS_DOUBLE_BYTE_STRING),
    ("DoubleByteSymbol", 144129),
    ("Error", 130817),
    ("Exception", 137729),
    ("ExceptionSet", 130049),
    ("ExecBlock", 143361),
    ("Float", OOP_CLASS_FLOAT),
    ("Fraction", 77825),
    ("GsCurrentSession", 103937),
    ("GsNMethod", 144897),
    ("GsProcess", OOP_CLASS_GS_PROCESS),
    ("Halt", 133121),
    ("IdentityBag", 67329),
    ("IdentityKeyValueDictionary", 90881),
    ("IdentitySet", 73985),
    ("ImproperOperation", 142593),
    ("Integer", 70145),
    ("Interval", 103169),
    ("KeyValueDictionary", 79361),
    ("LargeInteger", 136193),
    ("LockError", 149505),
    ("Magnitude", 71169),
    ("MessageNotUnderstood", 131073),
    ("Metaclass3", 146177),
    ("MultiByteString", 136449),
    ("NameError", 131585),
    ("Notification", 133377),
    ("Number", 71937),
    ("Object", 72193),
    ("OffsetError", 139777),
    ("OrderedCollection", 92673),
    ("OutOfRange", 140033),
    ("PositionableStream", 72449),
    ("QuadByteString", OOP_CLASS_QUAD_BYTE_STRING),
    ("QuadByteSymbol", 144641),
    ("ReadStream", 72705),
    ("ScaledDecimal", 146433),
    ("SecurityError", 140801),
    ("SequenceableCollection", 73729),
    ("SmallDouble", OOP_CLASS_SMALL_DOUBLE),
    ("SmallFraction", 156161),
    ("SmallInteger", OOP_CLASS_SMALL_INTEGER),
    ("SortedCollection", 92929),
    ("Stream", 74497),
    ("String", OOP_CLASS_STRING),
    ("Symbol", OOP_CLASS_SYMBOL),
    ("SymbolAssociation", 111617),
    ("SymbolDictionary", 111361),
    ("SymbolKeyValueDictionary", 111105),
    ("SymbolList", 78593),
    ("SymbolSet", 113921),
    ("System", OOP_CLASS_SYSTEM),
    ("TestFailure", 152577),
    ("Time", 100865),
    ("TransactionError", 150273),
    ("UndefinedObject", OOP_CLASS_UNDEFINED_OBJECT),
    ("Unicode16", OOP_CLASS_UNICODE16),
    ("Unicode32", OOP_CLASS_UNICODE32),
    ("Unicode7", OOP_CLASS_UNICODE7),
    ("UnorderedCollection", 96257),
    ("UserProfile", 76545),
    ("Utf16", 158465),
    ("Utf8", OOP_CLASS_UTF8),
    ("Warning", 152321),
    ("WriteStream", 77057),
    ("ZeroDivide", 131329),
];

/// The last OOP GemStone reserves for kernel objects; object numbers above
/// it (and above the error categories) are free for a repository's own.
pub const OOP_LAST_RESERVED: OopType = 240_000;

// ----- flags -----

/// Login flag: the password is already encrypted.
pub const GCI_LOGIN_PW_ENCRYPTED: u32 = 0x1;
/// Login flag: a subordinate session of another.
pub const GCI_LOGIN_IS_SUBORDINATE: u32 = 0x2;
/// Login flag: no login messages.
pub const GCI_LOGIN_QUIET: u32 = 0x10;
/// Login flag (GemStone 3.7.4.1 and later): the password is a JSON Web Token,
/// which the stone verifies against the login user's JWT settings and its
/// trusted keys.
pub const GCI_JWT_PASSWORD: u32 = 0x800;

/// Execute/perform flag: debugging enabled (breakpoints take effect).
pub const GCI_PERFORM_FLAG_ENABLE_DEBUG: c_int = 1;
/// Execute/perform flag: no asynchronous events during the call.
pub const GCI_PERFORM_FLAG_DISABLE_ASYNC_EVENTS: c_int = 2;

/// The gem service name a linked login would use; libgcits refuses it.
pub const GCI_LNK_SERVICE: &str = "gcilnkobj";
/// The default gem service.
pub const GCI_RPC_SERVICE: &str = "gemnetobject";
/// The default stone name.
pub const DEFAULT_STONE: &str = "gs64stone";

// ----- error numbers -----

/// 1001: the source does not compile (`CompileError`).
pub const COMPILER_ERR_STDB: i32 = 1001;
/// 2010: a message was not understood.
pub const RT_ERR_DOES_NOT_UNDERSTAND: i32 = 2010;
/// 2101: an OOP that names no object.
pub const OBJ_ERR_DOES_NOT_EXIST: i32 = 2101;
/// 2147: the session is already logged in.
pub const GCI_ERR_ALREADY_LOGGED_IN: i32 = 2147;
/// 2203: a non-blocking call is still in progress on the session.
pub const GCI_ERR_OP_IN_PROGRESS: i32 = 2203;
/// 2204: no non-blocking call was started.
pub const GCI_ERR_NO_START_CMD: i32 = 2204;
/// 2414: the call is not supported here.
pub const GCI_ERR_CALL_NOT_SUPPORTED: i32 = 2414;
/// 2718: an argument of the wrong kind or out of range.
pub const ERR_ARGUMENT_ERROR: i32 = 2718;
/// 2739: an error that cannot be continued.
pub const ERR_UNCONTINUABLE: i32 = 2739;
/// 4040: the library and the stone are of incompatible versions.
pub const LGC_ERR_INCOMPAT_GCI: i32 = 4040;
/// 4051: the login was refused (user or password).
pub const GS_ERR_LOGIN_DENIAL: i32 = 4051;
/// 4065: no stone of that name.
pub const NET_ERR_NO_SUCH_STN: i32 = 4065;
/// 4100: not a valid session handle.
pub const GCI_ERR_BAD_SESSION_ID: i32 = 4100;
/// 4147: the login failed.
pub const ERR_IN_LOGIN: i32 = 4147;
/// 6003: a soft break (catchable).
pub const RT_ERR_SOFT_BREAK: i32 = 6003;
/// 6004: a hard break (not catchable).
pub const RT_ERR_HARD_BREAK: i32 = 6004;
/// 6011: the process cannot be continued after its error.
pub const RT_ERR_UNCONTINUABLE_ERROR: i32 = 6011;

/// The product GciTsVersion names (GemStone/S 64).
pub const GCI_PRODUCT_GS64: u32 = 3;

/// `GciTsVersion`'s signature, for callers that bind it by name.
pub type VersionFn = unsafe extern "C" fn(buf: *mut c_char, size: usize) -> u32;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn err_struct_layout_is_gemstones() {
        assert_eq!(size_of::<GciErrSType>(), 2168);
        assert_eq!(align_of::<GciErrSType>(), 8);
        let table = [
            (offset_of!(GciErrSType, category), 0),
            (offset_of!(GciErrSType, context), 8),
            (offset_of!(GciErrSType, exception_obj), 16),
            (offset_of!(GciErrSType, args), 24),
            (offset_of!(GciErrSType, number), 104),
            (offset_of!(GciErrSType, arg_count), 108),
            (offset_of!(GciErrSType, fatal), 112),
            (offset_of!(GciErrSType, message), 113),
            (offset_of!(GciErrSType, reason), 1138),
        ];
        for (got, want) in table {
            assert_eq!(got, want);
        }
        assert_eq!(size_of::<GciTsObjInfo>(), 40);
    }

    #[test]
    fn immediates_encode_as_gemstone_does() {
        let table: &[(OopType, Option<i64>, Option<u32>)] = &[
            (2, Some(0), None),
            (442, Some(55), None),
            (0x0A, Some(1), None),
            (small_int_oop(-1).unwrap(), Some(-1), None),
            (16668, None, Some('A' as u32)),
            (OOP_ASCII_NUL, None, Some(0)),
            (OOP_NIL, None, None),
        ];
        for &(oop, int, ch) in table {
            assert_eq!(small_int_value(oop), int, "{oop:#x}");
            assert_eq!(char_value(oop), ch, "{oop:#x}");
            if let Some(n) = int {
                assert_eq!(small_int_oop(n), Some(oop));
            }
            if let Some(c) = ch {
                assert_eq!(char_oop(c), Some(oop));
            }
        }
        assert_eq!(small_int_oop(MAX_SMALL_INT + 1), None);
        assert_eq!(
            small_int_value(small_int_oop(MIN_SMALL_INT).unwrap()),
            Some(MIN_SMALL_INT)
        );
        assert_eq!(char_oop(0x110000), None);
        for special in [OOP_NIL, OOP_TRUE, OOP_FALSE, 2, 16668] {
            assert!(oop_is_special(special), "{special:#x}");
        }
        for not_special in [OOP_ILLEGAL, OOP_CLASS_STRING, objid_oop(1 << 30)] {
            assert!(!oop_is_special(not_special), "{not_special:#x}");
        }
        assert_eq!(oop_objid(OOP_CLASS_STRING), Some(292));
    }

    #[test]
    fn error_text_is_cut_at_a_character_boundary() {
        let mut e = GciErrSType::default();
        let long = "é".repeat(600);
        e.set_message(&long);
        let m = e.message_text();
        assert!(m.len() <= GCI_ERR_STR_SIZE && m.chars().all(|c| c == 'é'));
        assert_eq!(m.len(), 1024);
    }
}
