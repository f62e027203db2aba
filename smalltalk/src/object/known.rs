//! The classes and selectors the VM itself refers to ("well-known objects"): the
//! table of bootstrap classes (name, superclass, format, instance variables,
//! GemStone error number) and the struct holding their OOPs once created.
//! It owns that table only; creating the objects is `bootstrap`'s job.

use crate::object::heap::Format;
use crate::object::value::Oop;

/// One bootstrap class: name, superclass name, format, instance variables, error number.
pub struct ClassSpec {
    pub name: &'static str,
    pub superclass: Option<&'static str>,
    pub format: Format,
    pub ivars: &'static [&'static str],
    pub error_number: u32,
}

const fn c(
    name: &'static str,
    superclass: &'static str,
    format: Format,
    ivars: &'static [&'static str],
) -> ClassSpec {
    ClassSpec {
        name,
        superclass: Some(superclass),
        format,
        ivars,
        error_number: 0,
    }
}

const fn e(name: &'static str, superclass: &'static str, error_number: u32) -> ClassSpec {
    ClassSpec {
        name,
        superclass: Some(superclass),
        format: Format::Ptr,
        ivars: &[],
        error_number,
    }
}

use Format::*;

pub const CLASSES: &[ClassSpec] = &[
    ClassSpec {
        name: "Object",
        superclass: None,
        format: Ptr,
        ivars: &[],
        error_number: 0,
    },
    c("Behavior", "Object", Special, &[]),
    c("Class", "Behavior", Special, &[]),
    c("Metaclass", "Behavior", Special, &[]),
    c("Boolean", "Object", Special, &[]),
    c("True", "Boolean", Special, &[]),
    c("False", "Boolean", Special, &[]),
    c("UndefinedObject", "Object", Special, &[]),
    c("Magnitude", "Object", Ptr, &[]),
    c("Character", "Magnitude", Special, &[]),
    c("Number", "Magnitude", Ptr, &[]),
    c("Integer", "Number", Ptr, &[]),
    c("SmallInteger", "Integer", Special, &[]),
    c("LargePositiveInteger", "Integer", Special, &[]),
    c("LargeNegativeInteger", "Integer", Special, &[]),
    c("BinaryFloat", "Number", Ptr, &[]),
    c("Float", "BinaryFloat", Special, &[]),
    c("SmallDouble", "BinaryFloat", Special, &[]),
    c("Fraction", "Number", Ptr, &["numerator", "denominator"]),
    c(
        "ScaledDecimal",
        "Number",
        Ptr,
        &["numerator", "denominator", "scale"],
    ),
    c("Association", "Object", Ptr, &["key", "value"]),
    c("SymbolAssociation", "Association", Ptr, &[]),
    c("Collection", "Object", Ptr, &[]),
    c("SequenceableCollection", "Collection", Ptr, &[]),
    c("ArrayedCollection", "SequenceableCollection", Ptr, &[]),
    c("Array", "ArrayedCollection", IdxPtr, &[]),
    c("SymbolList", "Array", IdxPtr, &[]),
    c("ByteArray", "ArrayedCollection", Bytes, &[]),
    c("CharacterCollection", "ArrayedCollection", Ptr, &[]),
    c("String", "CharacterCollection", Bytes, &[]),
    c("Symbol", "String", Bytes, &[]),
    c("Unicode7", "String", Bytes, &[]),
    c("MultiByteString", "CharacterCollection", Ptr, &[]),
    c("DoubleByteString", "MultiByteString", Dbyte, &[]),
    c("Unicode16", "DoubleByteString", Dbyte, &[]),
    c("DoubleByteSymbol", "DoubleByteString", Dbyte, &[]),
    c("QuadByteString", "MultiByteString", Qbyte, &[]),
    c("Unicode32", "QuadByteString", Qbyte, &[]),
    c("QuadByteSymbol", "QuadByteString", Qbyte, &[]),
    c("AbstractDictionary", "Collection", Ptr, &[]),
    c("SymbolDictionary", "AbstractDictionary", Dict, &[]),
    c("SessionTemps", "SymbolDictionary", Dict, &[]),
    c("ExecBlock", "Object", Special, &[]),
    c("GsNMethod", "Object", Special, &[]),
    c("Message", "Object", Ptr, &["selector", "args"]),
    c("ExceptionSet", "Object", Ptr, &["exceptions"]),
    c("UserProfile", "Object", Ptr, &["userId", "symbolList"]),
    c("System", "Object", Ptr, &[]),
    c("TranscriptStream", "Object", Ptr, &[]),
    c("Time", "Magnitude", Ptr, &[]),
    c("Delay", "Object", Ptr, &["milliseconds"]),
    c("VariableContext", "Object", IdxPtr, &[]),
    c(
        "AbstractException",
        "Object",
        Ptr,
        &[
            "gsResumable",
            "gsTrappable",
            "gsNumber",
            "currGsHandler",
            "gsStack",
            "gsReason",
            "gsDetails",
            "tag",
            "messageText",
            "gsArgs",
        ],
    ),
    e("Exception", "AbstractException", 2318),
    e("Error", "Exception", 2318),
    e("ArithmeticError", "Error", 2318),
    e("ZeroDivide", "ArithmeticError", 2026),
    ClassSpec {
        name: "MessageNotUnderstood",
        superclass: Some("Error"),
        format: Ptr,
        ivars: &["receiver", "message"],
        error_number: 2010,
    },
    e("CompileError", "Error", 1001),
    e("ImproperOperation", "Error", 2717),
    e("ArgumentError", "ImproperOperation", 2718),
    e("ArgumentTypeError", "ImproperOperation", 2094),
    e("OutOfRange", "ImproperOperation", 2061),
    e("CannotReturn", "ImproperOperation", 2011),
    e("IllegalResumeAttempt", "ImproperOperation", 2008),
    e("LookupError", "ImproperOperation", 2023),
    e("TransactionError", "Error", 2409),
    e("AlmostOutOfStack", "Error", 3139),
    e("AlmostOutOfMemory", "Error", 3140),
    e("TestFailure", "Exception", 2318),
    e("Notification", "Exception", 2318),
    e("Warning", "Exception", 2318),
    e("CompileWarning", "Warning", 2318),
    e("ControlInterrupt", "Exception", 2318),
    e("Break", "ControlInterrupt", 6003),
    e("Halt", "ControlInterrupt", 2709),
];

macro_rules! known {
    ($($field:ident = $name:literal),* $(,)?) => {
        /// OOPs of the classes the VM refers to directly.
        #[derive(Debug, Clone, Default)]
        #[allow(dead_code)] // the full table, whether or not the VM reads every entry yet
        pub struct Known {
            $(pub $field: Oop,)*
        }
        impl Known {
            /// Fills the struct from a name lookup (every name must exist).
            pub fn from_lookup(mut f: impl FnMut(&str) -> Oop) -> Known {
                Known { $($field: f($name),)* }
            }
        }
    };
}

known! {
    object = "Object", behavior = "Behavior", class = "Class", metaclass = "Metaclass",
    boolean = "Boolean", true_class = "True", false_class = "False", undefined = "UndefinedObject",
    character = "Character", number = "Number", integer = "Integer", small_integer = "SmallInteger",
    large_pos = "LargePositiveInteger", large_neg = "LargeNegativeInteger",
    float = "Float", small_double = "SmallDouble", fraction = "Fraction", scaled = "ScaledDecimal",
    association = "Association", symbol_association = "SymbolAssociation",
    array = "Array", symbol_list = "SymbolList", byte_array = "ByteArray",
    character_collection = "CharacterCollection",
    string = "String", symbol = "Symbol", unicode7 = "Unicode7",
    double_byte_string = "DoubleByteString", unicode16 = "Unicode16", double_byte_symbol = "DoubleByteSymbol",
    quad_byte_string = "QuadByteString", unicode32 = "Unicode32", quad_byte_symbol = "QuadByteSymbol",
    symbol_dictionary = "SymbolDictionary", session_temps = "SessionTemps",
    exec_block = "ExecBlock", method = "GsNMethod", message = "Message", exception_set = "ExceptionSet",
    user_profile = "UserProfile", system = "System", transcript_stream = "TranscriptStream",
    variable_context = "VariableContext",
    abstract_exception = "AbstractException", exception = "Exception", error = "Error",
    zero_divide = "ZeroDivide", message_not_understood = "MessageNotUnderstood",
    compile_error = "CompileError", improper_operation = "ImproperOperation",
    argument_error = "ArgumentError", argument_type_error = "ArgumentTypeError",
    out_of_range = "OutOfRange", cannot_return = "CannotReturn",
    illegal_resume_attempt = "IllegalResumeAttempt", lookup_error = "LookupError",
    almost_out_of_stack = "AlmostOutOfStack", almost_out_of_memory = "AlmostOutOfMemory",
    notification = "Notification", warning = "Warning", break_class = "Break", halt = "Halt",
}

/// Instance variable indices (0-based) of AbstractException.
pub mod exc {
    pub const NUMBER: usize = 2;
    pub const HANDLER: usize = 3;
    pub const STACK: usize = 4;
    pub const DETAILS: usize = 6;
    pub const MESSAGE_TEXT: usize = 8;
    pub const ARGS: usize = 9;
    /// MessageNotUnderstood's own ivars follow the ten inherited ones.
    pub const MNU_RECEIVER: usize = 10;
    pub const MNU_MESSAGE: usize = 11;
}
