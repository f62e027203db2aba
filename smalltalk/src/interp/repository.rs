//! The repository a login is attached to, as the layers below the repository
//! see it. A session's objects may be stored and not resident yet: a class's
//! method dictionary left in the store until the class is used, a method
//! object whose code is compiled from its stored source on first use. Every
//! reader of methods asks through the operations here first; they cost one
//! test for an image with no repository.
//!
//! The repository layer attaches its state and its operations
//! ([`RepositoryOps`]) at login. The state is opaque here: only the layer
//! that attached it reads it back ([`Vm::attached`]).

use std::any::Any;

use super::primitive::P;
use super::Vm;
use crate::object::value::Oop;

/// What the engine asks of the repository it is attached to.
pub(crate) struct RepositoryOps {
    /// Makes the stored method dictionary and categories of a class resident.
    pub materialise_methods: fn(&mut Vm, Oop),
    /// Compiles a method object still waiting for its stored code.
    pub compile_if_pending: fn(&mut Vm, Oop),
    /// Reads the record of a method object still waiting for its code,
    /// without compiling it.
    pub read_pending_code: fn(&mut Vm, Oop),
    /// The same for many method objects, in one read of the store.
    pub read_pending_codes: fn(&mut Vm, &[Oop]),
    /// The source of a method object whose code is not compiled yet.
    pub pending_source: for<'a> fn(&'a Vm, Oop) -> Option<&'a str>,
    /// Whether a method compiled under a selector into a kernel class is an
    /// extension (see `persist::security`).
    pub extends_kernel: fn(&mut Vm, Oop, Oop) -> bool,
    /// The repository's primitives (313..=316, 380..=399).
    pub primitive: fn(&mut Vm, u16, usize, usize) -> P,
    /// The class to signal for a refused write, and the user to name.
    pub refusal: fn(&Vm) -> Option<(Oop, String)>,
}

/// A repository attached to a session: its operations and its state.
pub(crate) struct Attached {
    ops: &'static RepositoryOps,
    state: Box<dyn Any + Send>,
}

impl Vm {
    /// Attaches a repository: its operations and its state.
    pub(crate) fn attach<T: Any + Send>(&mut self, ops: &'static RepositoryOps, state: Box<T>) {
        self.repo = Some(Attached { ops, state });
    }

    /// Detaches the repository state of type `T` (None when there is none,
    /// or it is of another type); [`Vm::attach`] puts it back.
    pub(crate) fn detach<T: Any + Send>(&mut self) -> Option<Box<T>> {
        let attached = self.repo.take()?;
        match attached.state.downcast::<T>() {
            Ok(state) => Some(state),
            Err(state) => {
                self.repo = Some(Attached {
                    ops: attached.ops,
                    state,
                });
                None
            }
        }
    }

    /// The attached repository state, when it is a `T`.
    #[inline]
    pub(crate) fn attached<T: Any>(&self) -> Option<&T> {
        self.repo.as_ref()?.state.downcast_ref()
    }

    /// The attached repository state, mutably, when it is a `T`.
    #[inline]
    pub(crate) fn attached_mut<T: Any>(&mut self) -> Option<&mut T> {
        self.repo.as_mut()?.state.downcast_mut()
    }

    /// Whether a repository is attached.
    #[inline]
    pub(crate) fn has_repository(&self) -> bool {
        self.repo.is_some()
    }

    /// The attached repository's operations.
    #[inline]
    pub(crate) fn repository_ops(&self) -> Option<&'static RepositoryOps> {
        self.repo.as_ref().map(|a| a.ops)
    }

    /// Makes the method dictionary and categories of `class` resident when it
    /// was loaded from the repository and never used since: every reader of
    /// `ClassData::methods` or `categories` calls this first. Costs one test
    /// for a class whose dictionary is in use.
    #[inline]
    pub(crate) fn ensure_methods(&mut self, class: Oop) {
        if self
            .heap
            .class_data(class)
            .is_some_and(|d| d.stored_methods.is_some())
        {
            if let Some(ops) = self.repository_ops() {
                (ops.materialise_methods)(self, class);
            }
        }
    }

    /// Compiles a stored method loaded without its code, on its first use.
    /// Every reader of a method object's body calls this first; it costs one
    /// branch in a session without a repository.
    #[inline]
    pub(crate) fn ensure_method(&mut self, mo: Oop) {
        if let Some(ops) = self.repository_ops() {
            (ops.compile_if_pending)(self, mo);
        }
    }

    /// Reads the record of stored method object `mo` without compiling it.
    pub(crate) fn read_stored_code(&mut self, mo: Oop) {
        if let Some(ops) = self.repository_ops() {
            (ops.read_pending_code)(self, mo);
        }
    }

    /// Reads the records of the stored method objects among `mos` at once.
    pub(crate) fn read_stored_codes(&mut self, mos: &[Oop]) {
        if let Some(ops) = self.repository_ops() {
            (ops.read_pending_codes)(self, mos);
        }
    }

    /// The source of method object `mo` while it is stored and not compiled
    /// yet; None for a compiled method or anything else.
    pub(crate) fn stored_source(&self, mo: Oop) -> Option<&str> {
        (self.repository_ops()?.pending_source)(self, mo)
    }

    /// Whether compiling `selector` into kernel class `class` adds an
    /// extension; false without a repository (nothing guards the kernel).
    pub(crate) fn is_extension_of_kernel(&mut self, class: Oop, selector: Oop) -> bool {
        match self.repository_ops() {
            Some(ops) => (ops.extends_kernel)(self, class, selector),
            None => false,
        }
    }

    /// Runs repository primitive `n`; fails (the Smalltalk fallback answers)
    /// in an image with no repository.
    pub(crate) fn repository_primitive(&mut self, n: u16, rp: usize, argc: usize) -> P {
        match self.repository_ops() {
            Some(ops) => (ops.primitive)(self, n, rp, argc),
            None => Ok(None),
        }
    }
}
