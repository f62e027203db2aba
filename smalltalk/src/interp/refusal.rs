//! A store the write barrier refused (a read-only session writing a shared
//! object, an unprivileged user writing the kernel), turned into the
//! SecurityError the engine signals: at the end of the primitive during which
//! it happened, or at once for a store the interpreter made itself. The
//! attached repository names the class and the user; an image with none
//! signals Error.

use crate::interp::primitive::P;
use crate::interp::{Unwind, Vm, R};
use crate::object::heap::F_KERNEL;
use crate::object::known::exc;
use crate::object::value::{Oop, Value};

/// GemStone's error for a store into an object the user may not write. The
/// class is SecurityError, as GemStone's; the number is this project's choice
/// (see PERSISTENCE.md, "Read-only users").
pub const NO_WRITE_AUTHORIZATION: i64 = 2108;

impl Vm {
    /// Ends a primitive during which the write barrier refused a store: the
    /// primitive's own answer is dropped and SecurityError is signalled instead
    /// (an unwind already in progress wins and the refusal is forgotten).
    #[cold]
    pub(crate) fn refused_in_primitive(&mut self, result: Result<Option<Value>, Unwind>) -> P {
        match result {
            Ok(_) => self.signal_refused_write().map(Some),
            Err(u) => {
                self.heap.refused = None;
                Err(u)
            }
        }
    }

    /// Signals SecurityError for the store the write barrier last refused.
    #[cold]
    pub(crate) fn signal_refused_write(&mut self) -> R {
        let Some(o) = self.heap.refused.take() else {
            return Ok(Value::Nil);
        };
        let (class, user) = self
            .repository_ops()
            .and_then(|ops| (ops.refusal)(self))
            .unwrap_or_else(|| (self.k.error, String::from("this user")));
        let what = self.describe_refused(o);
        let text = if self.heap.is_kernel_object(o) && self.heap.refuses_for(o, F_KERNEL) {
            format!(
                "no write authorization: {what} belongs to SystemUser (the kernel), and {user} \
                 may not change or remove the kernel's classes, methods, globals or user \
                 profiles; it may subclass kernel classes, add extension methods to them under \
                 new selectors, and define its own classes and globals in UserGlobals or another \
                 dictionary of its own"
            )
        } else {
            format!(
                "no write authorization: {user} is a read-only user and may not modify {what}, a \
                 persistent object shared through the repository; only objects this session \
                 created may be changed"
            )
        };
        let ex = self.new_exception(class, Some(&text), None);
        if let Value::Obj(e) = ex {
            self.heap
                .store(e, exc::NUMBER, Value::Int(NO_WRITE_AUTHORIZATION));
        }
        self.signal(ex)
    }

    /// "the class Foo", "Foo class", "a SymbolDictionary (UserGlobals)"...
    fn describe_refused(&self, o: Oop) -> String {
        let name_of = |c: Oop| {
            self.heap
                .class_data(c)
                .and_then(|d| self.string_of(Value::Obj(d.name)))
                .unwrap_or_else(|| "?".into())
        };
        if let Some(d) = self.heap.class_data(o) {
            return if d.is_meta {
                format!("the class {} class", name_of(d.this_class))
            } else {
                format!("the class {}", name_of(o))
            };
        }
        let class = name_of(self.heap.get(o).class);
        if class.ends_with("Association") {
            if let Some(key) = self.string_of(self.heap.slot(o, 0)) {
                return format!(
                    "the binding of #{key} ({article_free})",
                    article_free = class
                );
            }
        }
        let article = if class.starts_with(['A', 'E', 'I', 'O', 'U']) {
            "an"
        } else {
            "a"
        };
        if o == self.roots.globals {
            return "Globals".into();
        }
        if o == self.roots.published {
            return "Published".into();
        }
        if o == self.roots.user_globals {
            return "UserGlobals".into();
        }
        format!("{article} {class}")
    }
}
