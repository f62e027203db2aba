//! The public face of the embedded stone: [`Session`] (one login), [`StError`]
//! (a Smalltalk failure as a value) and [`Interrupter`] (soft/hard break from
//! another thread). Workers and `gsmcp-topaz` use nothing else.

use std::sync::{Mutex, OnceLock};

pub(crate) mod objects;
mod repository;

use crate::compiler::Compiler;
use crate::image::bootstrap;
use crate::interp::Vm;
use crate::object::value::Value;

pub use crate::interp::{ErrorKind, Interrupter, StError};

include!(concat!(env!("OUT_DIR"), "/kernel_files.rs"));

/// What a session's evaluations may do besides compute. A login starts
/// [`EvalPolicy::UNRESTRICTED`]; a server restricts the evaluations it makes
/// on a client's behalf (a browsing tool's expression) so that they run no
/// code any client wrote and cannot end the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvalPolicy {
    /// Sends may run methods of any class. When false, method lookup passes
    /// over every class that is not the shipped kernel's (classes defined in
    /// the repository, their metaclasses): `Foo name` runs `Behavior>>name`
    /// even where `Foo class` defines `name`.
    pub client_code: bool,
    /// `System commitTransaction` may commit; when false it signals a
    /// TransactionError and commits nothing.
    pub may_commit: bool,
}

impl EvalPolicy {
    /// Everything allowed: a login's starting policy.
    pub const UNRESTRICTED: EvalPolicy = EvalPolicy {
        client_code: true,
        may_commit: true,
    };
}

/// One login to the embedded stone.
pub struct Session {
    interrupter: Interrupter,
    vm: Box<Vm>,
    /// Evaluate on the caller's thread (it vouches for its stack).
    direct: bool,
    /// The stack report of the exception that ended the last evaluation
    /// (`last_error_stack`).
    last_stack: Option<String>,
}

/// The interpreter runs on a thread of its own with this much stack, so deep
/// (but limited) Smalltalk recursion never overflows the caller's stack.
const EVAL_STACK_BYTES: usize = 512 << 20;

/// Collect garbage after an evaluation once this many bytes were allocated.
pub(crate) const GC_THRESHOLD: usize = 64 << 20;

fn internal(description: String) -> StError {
    StError {
        kind: ErrorKind::Runtime,
        number: 2717,
        class_name: "ImproperOperation".into(),
        message_text: None,
        description,
        offset: None,
        line: None,
    }
}

/// The error an evaluation that panicked answers: the panic's message, if it
/// has one, as an internal error of the engine.
fn panic_error(p: Box<dyn std::any::Any + Send>) -> StError {
    let msg = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    internal(format!("internal error in the embedded stone: {msg}"))
}

impl Session {
    /// Logs in to a freshly bootstrapped in-memory image as `DataCurator`.
    ///
    /// The kernel is filed in once per process; every session starts from a copy
    /// of that image, so a login costs a heap copy rather than a compilation.
    pub fn bootstrap() -> Result<Session, StError> {
        // A Mutex because a Vm is Send but not Sync (a repository login holds a
        // database connection); the template itself never has one.
        static TEMPLATE: OnceLock<Result<Mutex<Vm>, StError>> = OnceLock::new();
        let template =
            TEMPLATE.get_or_init(|| Session::bootstrap_uncached().map(|s| Mutex::new(*s.vm)));
        match template {
            Ok(vm) => {
                let interrupter = Interrupter::default();
                let vm = Box::new(
                    vm.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .fork(interrupter.clone()),
                );
                Ok(Session {
                    interrupter,
                    vm,
                    direct: false,
                    last_stack: None,
                })
            }
            Err(e) => Err(e.clone()),
        }
    }

    /// Bootstraps a new image by filing in the kernel (what [`Session::bootstrap`] does once).
    pub fn bootstrap_uncached() -> Result<Session, StError> {
        let interrupter = Interrupter::default();
        let vm = Box::new(bootstrap::new_vm(
            interrupter.clone(),
            bootstrap::DEFAULT_MEMORY_LIMIT,
        ));
        let mut s = Session {
            interrupter,
            vm,
            direct: false,
            last_stack: None,
        };
        for (name, text) in KERNEL_FILES {
            let text: &'static str = text;
            let r = s.on_eval_thread(move |vm| vm.file_in(text));
            match r {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    let mut err = match e.failure {
                        Some(f) => StError::from(f),
                        None => internal(String::new()),
                    };
                    if err.number == 2717 && err.class_name == "ImproperOperation" {
                        err.kind = ErrorKind::Compile;
                        err.number = 1001;
                        err.class_name = "CompileError".into();
                    }
                    err.description = format!("kernel file {name}, line {}: {}", e.line, e.message);
                    err.line = Some(e.line);
                    return Err(err);
                }
                Err(e) => return Err(e),
            }
        }
        s.vm.collect_garbage();
        s.vm.mark_kernel_classes();
        Ok(s)
    }

    /// Sets what this session's evaluations may do from now on (see
    /// [`EvalPolicy`]). Between evaluations.
    pub fn set_policy(&mut self, policy: EvalPolicy) {
        self.vm.set_kernel_only(!policy.client_code);
        self.vm.set_may_commit(policy.may_commit);
    }

    /// Evaluate on the calling thread instead of a thread of the engine's own.
    /// Only for callers whose thread has at least [`Session::REQUIRED_STACK_BYTES`]
    /// of stack: deep (limited) recursion in Smalltalk uses the Rust stack.
    pub fn run_on_caller_thread(&mut self, yes: bool) {
        self.direct = yes;
    }

    /// The stack a thread needs for [`Session::run_on_caller_thread`].
    pub const REQUIRED_STACK_BYTES: usize = 256 << 20;

    /// Runs `f` on the interpreter thread (big stack); a panic becomes an error.
    fn on_eval_thread<T: Send>(
        &mut self,
        f: impl FnOnce(&mut Vm) -> T + Send,
    ) -> Result<T, StError> {
        if self.direct {
            let vm: &mut Vm = &mut self.vm;
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                crate::object::native_stack::evaluate(move || f(vm))
            }))
            .map_err(panic_error);
            if r.is_err() {
                self.vm.reset_transient();
            }
            return r;
        }
        let vm: &mut Vm = &mut self.vm;
        let r = std::thread::scope(|scope| {
            let h = std::thread::Builder::new()
                .name("gsmcp-smalltalk".into())
                .stack_size(EVAL_STACK_BYTES)
                .spawn_scoped(scope, move || {
                    crate::object::native_stack::evaluate(move || f(vm))
                });
            match h {
                Ok(h) => h.join().map_err(panic_error),
                Err(e) => Err(internal(format!(
                    "cannot start the interpreter thread: {e}"
                ))),
            }
        });
        if r.is_err() {
            self.vm.reset_transient();
        }
        r
    }

    /// The handle another thread uses to break an evaluation of this session.
    pub fn interrupter(&self) -> Interrupter {
        self.interrupter.clone()
    }

    /// The stack report (GemStone's lines, innermost first) of the unhandled
    /// exception that ended the last `evaluate_print_string` or
    /// `evaluate_string`, taken where it was signalled; `None` after a
    /// success, a compile error or a failure with no exception.
    pub fn last_error_stack(&self) -> Option<&str> {
        self.last_stack.as_deref()
    }

    fn evaluate_with(&mut self, source: &str, print: bool) -> Result<String, StError> {
        self.last_stack = None;
        let src = source.to_string();
        let r = self.on_eval_thread(move |vm| {
            vm.reset_transient();
            vm.set_last_exception(Value::Nil);
            let sites_mark = vm.sends.site_mark();
            // a compile error is reported with its position, not as a signal
            let dicts = vm.symbol_list_dicts();
            let compiled = Compiler::new(vm, None, dicts).compile(&src, true, Value::Nil);
            let m = match compiled {
                Ok(c) => c.method,
                Err(e) => {
                    let (line, _) = crate::image::filein::line_col(&src, e.offset);
                    let error = StError {
                        kind: ErrorKind::Compile,
                        number: 1001,
                        class_name: "CompileError".into(),
                        message_text: Some(e.message.clone()),
                        description: format!("a CompileError occurred (error 1001), {} (error {} at offset {})", e.message, e.number, e.offset + 1),
                        offset: Some(e.offset + 1),
                        line: Some(line),
                    };
                    return (Err(error), None);
                }
            };
            let rp = vm.stack.len();
            vm.stack.push(Value::Nil);
            let r = vm.invoke_doit(&m, rp);
            let r = match r {
                Ok(v) if print => {
                    let sel = vm.sels.print_string;
                    vm.send_msg(v, sel, &[]).map(|p| if vm.string_of(p).is_some() { p } else { let s = vm.basic_print(v, 0); vm.new_string(&s) })
                }
                other => other,
            };
            let out = vm.finish_evaluation(r).map_err(StError::from);
            let stack = match &out {
                Err(_) => {
                    let ex = vm.last_exception();
                    vm.set_last_exception(Value::Nil);
                    vm.exception_stack_text(ex)
                }
                Ok(_) => None,
            };
            let out = match out {
                Ok(v) => match vm.string_of(v) {
                    Some(s) => Ok(s),
                    None if print => Ok(vm.basic_print(v, 0)),
                    None => Err(StError {
                        kind: ErrorKind::Runtime,
                        number: 2094,
                        class_name: "ArgumentTypeError".into(),
                        message_text: Some("the result is not a String".into()),
                        description: format!("a ArgumentTypeError occurred (error 2094), the result is not a String but {}", vm.basic_print(v, 0)),
                        offset: None,
                        line: None,
                    }),
                },
                Err(e) => Err(e),
            };
            // the doit's send sites can be reused (closures that outlive it stay correct:
            // a cache entry also checks its selector)
            vm.sends.release_doit_sites(sites_mark);
            vm.prune_keep();
            if vm.heap.allocated_since_gc > GC_THRESHOLD || vm.heap.over_limit() {
                vm.collect_garbage();
            }
            (out, stack)
        });
        // a break that arrived after the evaluation ended must not hit the next one
        let _ = self.interrupter.take();
        let (out, stack) = r?;
        self.last_stack = stack;
        out
    }

    /// Compiles `source` as a doit and runs it, answering the result's `printString`.
    pub fn evaluate_print_string(&mut self, source: &str) -> Result<String, StError> {
        self.evaluate_with(source, true)
    }

    /// Compiles `source` as a doit and runs it; the result must be a String (or
    /// Symbol), whose characters are answered. Tools answer JSON this way.
    pub fn evaluate_string(&mut self, source: &str) -> Result<String, StError> {
        self.evaluate_with(source, false)
    }

    /// Files in topaz-format source (see `kernel/VM.md`), stopping at the first failure.
    pub fn file_in(&mut self, text: &str) -> Result<(), StError> {
        let t = text.to_string();
        let r = self.on_eval_thread(move |vm| vm.file_in(&t))?;
        let _ = self.interrupter.take();
        r.map_err(|e| {
            let mut err = match e.failure {
                Some(f) => StError::from(f),
                None => StError {
                    kind: ErrorKind::Compile,
                    number: 1001,
                    class_name: "CompileError".into(),
                    message_text: Some(e.message.clone()),
                    description: String::new(),
                    offset: None,
                    line: None,
                },
            };
            err.description = format!("line {}: {}", e.line, e.message);
            err.line = Some(e.line);
            err
        })
    }

    /// Everything written to `Transcript` so far, and clears it.
    pub fn take_transcript(&mut self) -> String {
        self.vm.take_transcript()
    }

    /// Sets the maximum send depth (AlmostOutOfStack past it).
    pub fn set_depth_limit(&mut self, frames: usize) {
        self.vm.set_depth_limit(frames);
    }

    /// Sets the object memory budget in bytes (AlmostOutOfMemory past it).
    pub fn set_memory_limit(&mut self, bytes: usize) {
        self.vm.heap.set_limit(bytes);
    }

    /// The bytes the session's objects take now, as the memory budget counts them.
    pub fn memory_in_use(&self) -> usize {
        self.vm.heap.bytes
    }

    /// Runs the collector now; answers how many objects were freed.
    pub fn collect_garbage(&mut self) -> usize {
        self.vm.collect_garbage()
    }

    /// Number of live objects in the object table.
    pub fn live_objects(&self) -> usize {
        self.vm.heap.live_objects()
    }

    /// The login's user id (`System myUserProfile userId`).
    pub fn user_id(&self) -> String {
        let vm: &Vm = &self.vm;
        let id = vm.heap.slot(vm.roots.user_profile, 0);
        vm.string_of(id).unwrap_or_else(|| "DataCurator".into())
    }

    /// The stone's name (`System stoneName`).
    pub fn stone_name(&self) -> String {
        "gs64stone".into()
    }
}

/// Crate-internal access for the repository layer (`persist`), which defines
/// the repository-backed constructors and transaction methods of [`Session`].
impl Session {
    pub(crate) fn from_vm(interrupter: Interrupter, vm: Box<Vm>) -> Session {
        Session {
            interrupter,
            vm,
            direct: false,
            last_stack: None,
        }
    }

    pub(crate) fn vm_mut(&mut self) -> &mut Vm {
        &mut self.vm
    }

    pub(crate) fn vm_ref(&self) -> &Vm {
        &self.vm
    }

    /// Runs `f` on the interpreter thread (big stack); a panic becomes an error.
    pub(crate) fn run_on_eval_thread<T: Send>(
        &mut self,
        f: impl FnOnce(&mut Vm) -> T + Send,
    ) -> Result<T, StError> {
        self.on_eval_thread(f)
    }
}
