//! The exception machinery (ANSI semantics, GemStone error numbers): creating
//! exception instances, the handler stack searched by `signal`, running a
//! handler on top of the signal point, and the unwinding actions `return:`,
//! `retry`, `retryUsing:`, `pass`, `outer`, `resume:`, `resignalAs:`, plus
//! `on:do:`, `ensure:` and `ifCurtailed:`. It must not catch an `Abort`.

use crate::interp::ErrorKind;
use crate::interp::{
    Failure, Handler, HandlerAction, Resumption, SignalRec, Unwind, Unwinding, Vm, R,
};
use crate::object::code::{CascadePart, Method, Node};
use crate::object::heap::Body;
use crate::object::known::exc;
use crate::object::primitives::*;
use crate::object::value::{Oop, Value};

/// How many exceptions may be signalled one inside the other at the same
/// activation depth (see [`Vm::signal`]).
const MAX_SIGNAL_NESTING: u32 = 64;

impl Vm {
    /// The GemStone error number instances of `class` start with.
    pub fn default_error_number(&self, class: Oop) -> u32 {
        let mut c = Some(class);
        while let Some(cc) = c {
            if let Some(&n) = self.error_numbers.get(&cc) {
                return n;
            }
            c = self.heap.class_data(cc).and_then(|d| d.superclass);
        }
        2318
    }

    /// A new exception instance with its number set, optional messageText and details.
    pub fn new_exception(
        &mut self,
        class: Oop,
        text: Option<&str>,
        details: Option<&str>,
    ) -> Value {
        let size = self
            .heap
            .class_data(class)
            .map(|d| d.inst_size)
            .unwrap_or(10);
        let mut slots = vec![Value::Nil; size.max(10)];
        slots[exc::NUMBER] = Value::Int(self.default_error_number(class) as i64);
        if let Some(t) = text {
            slots[exc::MESSAGE_TEXT] = self.new_string(t);
        }
        if let Some(d) = details {
            slots[exc::DETAILS] = self.new_string(d);
        }
        self.new_object(class, slots)
    }

    /// Signals a new instance of `class` with `text` as its messageText.
    pub fn signal_error(&mut self, class: Oop, text: &str) -> R {
        let ex = self.new_exception(class, Some(text), None);
        self.signal(ex)
    }

    fn handles(&mut self, selector: Value, ex: Value) -> Result<bool, Unwind> {
        let ex_class = self.class_of(ex);
        if let Value::Obj(s) = selector {
            if self.heap.class_data(s).is_some() {
                return Ok(self.inherits(ex_class, s));
            }
            if self.heap.get(s).class == self.k.exception_set {
                let items = self.heap.slot(s, 0);
                if let Value::Obj(a) = items {
                    // the items wait on the value stack, where the collector sees them
                    let sp = self.stack.len();
                    if let Body::Ptr(v) = &self.heap.get(a).body {
                        self.stack.extend_from_slice(v);
                    }
                    for i in sp..self.stack.len() {
                        let item = self.stack[i];
                        match self.handles(item, ex) {
                            Ok(false) => {}
                            other => {
                                self.stack.truncate(sp);
                                return other;
                            }
                        }
                    }
                    self.stack.truncate(sp);
                }
                return Ok(false);
            }
        }
        let sel = self.sels.handles;
        Ok(matches!(self.send_msg(selector, sel, &[ex])?, Value::True))
    }

    /// `signal`: search handlers below index `limit` (innermost first, skipping
    /// running ones); run the first that handles `ex`, else its `defaultAction`.
    pub fn signal_from(&mut self, ex: Value, limit: usize) -> R {
        let mut i = limit.min(self.handling.handlers.len());
        while i > 0 {
            i -= 1;
            if self.handling.handlers[i].disabled {
                continue;
            }
            let sel = self.handling.handlers[i].selector;
            if self.handles(sel, ex)? {
                return self.run_handler(i, ex);
            }
        }
        let sel = self.sels.default_action;
        self.send_msg(ex, sel, &[])
    }

    pub fn signal(&mut self, ex: Value) -> R {
        // A signal raised while signalling at the same activation depth — the
        // exception protocol itself failing (a `defaultAction` or `handles:`
        // not understood signals again, and so on) — recurses in Rust without
        // an activation, so neither the frame limit nor the native-stack guard
        // of activations sees it: bound it here.
        let saved = self.interrupts.signal_nesting;
        let depth = self.frames.depth;
        self.interrupts.signal_nesting = match saved {
            (d, n) if d == depth => (d, n + 1),
            _ => (depth, 1),
        };
        if self.interrupts.signal_nesting.1 > MAX_SIGNAL_NESTING {
            self.interrupts.signal_nesting = saved;
            return Err(Unwind::out_of_stack(&format!(
                "{MAX_SIGNAL_NESTING} exceptions were signalled, each while signalling the one \
                 before, with no method running between: the exception protocol itself fails \
                 (the last one: {})",
                self.class_name(self.class_of(ex))
            )));
        }
        // where it was signalled, for `stackReport`
        if let Some(o) = ex.oop() {
            let stack = self.capture_stack();
            self.heap.store(o, exc::STACK, stack);
        }
        let n = self.handling.handlers.len();
        let r = self.signal_from(ex, n);
        self.interrupts.signal_nesting = saved;
        r
    }

    fn run_handler(&mut self, i: usize, ex: Value) -> R {
        let sig = self.fresh_id();
        let handler_id = self.handling.handlers[i].id;
        let block = self.handling.handlers[i].block;
        let mut disabled = Vec::new();
        for (j, h) in self.handling.handlers.iter_mut().enumerate().skip(i) {
            if !h.disabled {
                h.disabled = true;
                disabled.push(j);
            }
        }
        let exo = ex.oop();
        let saved_handler = exo
            .map(|o| self.heap.slot(o, exc::HANDLER))
            .unwrap_or(Value::Nil);
        if let Some(o) = exo {
            self.heap.store(o, exc::HANDLER, Value::Int(sig as i64));
        }
        self.handling.signals.push(SignalRec {
            id: sig,
            handler_index: i,
            handler_id,
            exception: ex,
        });
        let nargs = match block {
            Value::Obj(b) => match &self.heap.get(b).body {
                Body::Block(c) => c.code.num_args,
                _ => 1,
            },
            _ => 1,
        };
        let r = if nargs == 0 {
            self.call_value(block, &[])
        } else {
            self.call_value(block, &[ex])
        };
        if let Some(pos) = self.handling.signals.iter().rposition(|s| s.id == sig) {
            self.handling.signals.truncate(pos);
        }
        for j in disabled {
            if let Some(h) = self.handling.handlers.get_mut(j) {
                h.disabled = false;
            }
        }
        if let Some(o) = exo {
            self.heap.store(o, exc::HANDLER, saved_handler);
        }
        match r {
            Ok(v) => Err(Unwind::to_handler(Box::new((
                handler_id,
                HandlerAction::Return(v),
            )))),
            Err(u) => match *u.0 {
                Unwinding::Resume(b) if b.0 == sig => match b.1 {
                    Resumption::Value(v) => Ok(v),
                    Resumption::Resignal(other) => self.signal(other),
                },
                other => Err(Unwind(Box::new(other))),
            },
        }
    }

    /// The active signal record of exception `ex` (it must be in a handler).
    fn active_signal(&mut self, ex: Value) -> Result<(u64, usize, u64), Unwind> {
        let id = match ex {
            Value::Obj(o) => self.heap.slot(o, exc::HANDLER),
            _ => Value::Nil,
        };
        if let Value::Int(id) = id {
            if let Some(s) = self
                .handling
                .signals
                .iter()
                .rev()
                .find(|s| s.id == id as u64)
            {
                return Ok((s.id, s.handler_index, s.handler_id));
            }
        }
        match self.signal_error(
            self.k.improper_operation,
            "the exception is not being handled",
        ) {
            Ok(_) => Err(Unwind::abort(Box::new(Failure {
                kind: ErrorKind::Runtime,
                number: 2717,
                class_name: "ImproperOperation".into(),
                message_text: Some("the exception is not being handled".into()),
                description: "the exception is not being handled".into(),
            }))),
            Err(e) => Err(e),
        }
    }

    pub fn ex_return(&mut self, ex: Value, v: Value) -> R {
        let (_, _, hid) = self.active_signal(ex)?;
        Err(Unwind::to_handler(Box::new((
            hid,
            HandlerAction::Return(v),
        ))))
    }

    pub fn ex_retry(&mut self, ex: Value, using: Option<Value>) -> R {
        let (_, _, hid) = self.active_signal(ex)?;
        Err(Unwind::to_handler(Box::new((
            hid,
            using.map_or(HandlerAction::Retry, HandlerAction::RetryUsing),
        ))))
    }

    fn is_resumable(&mut self, ex: Value) -> Result<bool, Unwind> {
        let sel = self.sels.is_resumable;
        Ok(matches!(self.send_msg(ex, sel, &[])?, Value::True))
    }

    pub fn ex_resume(&mut self, ex: Value, v: Value) -> R {
        let (sig, _, _) = self.active_signal(ex)?;
        if !self.is_resumable(ex)? {
            let cname = self.class_name(self.class_of(ex));
            return self.signal_error(
                self.k.illegal_resume_attempt,
                &format!("attempt to resume a non-resumable {cname}"),
            );
        }
        Err(Unwind::resume(Box::new((sig, Resumption::Value(v)))))
    }

    pub fn ex_outer(&mut self, ex: Value) -> R {
        let (sig, idx, _) = self.active_signal(ex)?;
        let r = self.signal_from(ex, idx);
        // the nested signal restored currGsHandler to our signal id already
        if let Value::Obj(o) = ex {
            self.heap.store(o, exc::HANDLER, Value::Int(sig as i64));
        }
        r
    }

    pub fn ex_pass(&mut self, ex: Value) -> R {
        let v = self.ex_outer(ex)?;
        // resumed by an outer handler (or default action): resume the original signal
        let (sig, _, _) = self.active_signal(ex)?;
        Err(Unwind::resume(Box::new((sig, Resumption::Value(v)))))
    }

    pub fn ex_resignal_as(&mut self, ex: Value, replacement: Value) -> R {
        let (sig, _, _) = self.active_signal(ex)?;
        Err(Unwind::resume(Box::new((
            sig,
            Resumption::Resignal(replacement),
        ))))
    }

    pub fn ex_is_nested(&mut self, ex: Value) -> R {
        let (_, idx, _) = self.active_signal(ex)?;
        let mut i = idx;
        while i > 0 {
            i -= 1;
            if self.handling.handlers[i].disabled {
                continue;
            }
            let sel = self.handling.handlers[i].selector;
            if self.handles(sel, ex)? {
                return Ok(Value::True);
            }
        }
        Ok(Value::False)
    }

    /// `aBlock on: selector do: handlerBlock`.
    pub fn on_do(&mut self, block: Value, selector: Value, handler: Value) -> R {
        let mut protected = block;
        loop {
            let id = self.fresh_id();
            let mark = self.handling.handlers.len();
            let sp = self.stack.len();
            self.handling.handlers.push(Handler {
                id,
                selector,
                block: handler,
                disabled: false,
            });
            let r = self.call_value(protected, &[]);
            self.handling.handlers.truncate(mark);
            self.stack.truncate(sp);
            match r {
                Err(u) if matches!(&*u.0, Unwinding::ToHandler(b) if b.0 == id) => {
                    let Unwinding::ToHandler(b) = *u.0 else {
                        return Err(u);
                    };
                    match b.1 {
                        HandlerAction::Return(v) => return Ok(v),
                        HandlerAction::Retry => continue,
                        HandlerAction::RetryUsing(b) => {
                            protected = b;
                            continue;
                        }
                    }
                }
                other => return other,
            }
        }
    }

    /// Keeps the value `r` answers or carries on the value stack (until the
    /// caller truncates it) while more Smalltalk runs.
    fn pin_result(&mut self, r: &R) {
        let v = match r {
            Ok(v) => Some(*v),
            Err(u) => u.carried(),
        };
        if let Some(v) = v {
            self.stack.push(v);
        }
    }

    /// `aBlock ensure: terminationBlock`: runs the block however `aBlock` ends.
    pub fn ensure(&mut self, block: Value, finally: Value) -> R {
        let sp = self.stack.len();
        let r = self.call_value(block, &[]);
        self.stack.truncate(sp);
        self.pin_result(&r);
        let depth = self.frames.depth;
        let homes = self.frames.homes.len();
        let return_home = self.frames.return_home;
        let f = self.call_value(finally, &[]);
        self.frames.depth = depth;
        self.frames.homes.truncate(homes);
        self.stack.truncate(sp);
        if f.is_ok() {
            // a `^` unwinding through here goes on to its own home
            self.frames.return_home = return_home;
        }
        match (r, f) {
            (Err(a), _) if a.is_abort() => Err(a),
            (_, Err(e)) => Err(e),
            (r, Ok(_)) => r,
        }
    }

    /// `aBlock ifCurtailed: terminationBlock`: runs it only on an abnormal exit.
    pub fn if_curtailed(&mut self, block: Value, finally: Value) -> R {
        let sp = self.stack.len();
        let r = self.call_value(block, &[]);
        self.stack.truncate(sp);
        if r.is_err() {
            self.pin_result(&r);
            let return_home = self.frames.return_home;
            let f = self.call_value(finally, &[]);
            self.stack.truncate(sp);
            if f.is_ok() {
                self.frames.return_home = return_home;
            }
            if let (Err(e), false) = (f, matches!(&r, Err(a) if a.is_abort())) {
                return Err(e);
            }
        }
        r
    }

    /// Turns an unhandled exception into the evaluation-ending failure.
    pub fn unhandled(&mut self, ex: Value) -> Unwind {
        self.last_exception = ex;
        let class = self.class_of(ex);
        let class_name = self.class_name(class);
        let number = match ex {
            Value::Obj(o) => match self.heap.slot(o, exc::NUMBER) {
                Value::Int(n) => n as u32,
                _ => self.default_error_number(class),
            },
            _ => 0,
        };
        let message_text = match ex {
            Value::Obj(o) => {
                let mt = self.heap.slot(o, exc::MESSAGE_TEXT);
                self.string_of(mt)
            }
            _ => None,
        };
        let sel = self.sels.description;
        let description = match self.send_msg(ex, sel, &[]) {
            Ok(d) => self.string_of(d),
            Err(_) => None,
        }
        .unwrap_or_else(|| self.basic_description(ex));
        let kind = if number == 6003 || number == 6004 {
            ErrorKind::Break
        } else if number == 1001 {
            ErrorKind::Compile
        } else if number == 3139 || number == 3140 {
            ErrorKind::Limit
        } else {
            ErrorKind::Runtime
        };
        Unwind::abort(Box::new(Failure {
            kind,
            number,
            class_name,
            message_text,
            description,
        }))
    }

    /// `a ZeroDivide occurred (error 2026), <details>` — the VM's own
    /// description. GemStone writes `a` before every class name here (`a Error
    /// occurred`, `a ImproperOperation occurred`), unlike printString's
    /// `anArray`.
    pub fn basic_description(&self, ex: Value) -> String {
        let class = self.class_of(ex);
        let cname = self.class_name(class);
        let (number, mt, details) = match ex {
            Value::Obj(o) => (
                match self.heap.slot(o, exc::NUMBER) {
                    Value::Int(n) => n as u32,
                    _ => self.default_error_number(class),
                },
                self.string_of(self.heap.slot(o, exc::MESSAGE_TEXT)),
                self.string_of(self.heap.slot(o, exc::DETAILS)),
            ),
            _ => (0, None, None),
        };
        let mut s = format!("a {cname} occurred (error {number})");
        if let Some(d) = mt.or(details) {
            s.push_str(", ");
            s.push_str(&d);
        }
        s
    }
}

/// Stack reports: where an exception was signalled (`AbstractException>>stackReport`,
/// primitive 286) and where the process is now (`GsProcess
/// class>>stackReportToLevel:`, primitive 287). See kernel/VM.md §6 for the format.
impl Vm {
    /// The running activations as `gsStack` holds them: an Array of
    /// (GsNMethod, receiver, source offset × 2 + 1 if a block) triples,
    /// innermost first. Taken when an exception is signalled.
    pub(crate) fn capture_stack(&mut self) -> Value {
        let n = self.frames.acts.len();
        let mut items = Vec::with_capacity(n * 3);
        for i in (0..n).rev() {
            let Some((m, block, recv, pos)) = self.act_at(i) else {
                continue;
            };
            let mo = self.method_object(&m);
            items.push(Value::Obj(mo));
            items.push(recv);
            items.push(Value::Int(pos as i64 * 2 + i64::from(block)));
        }
        self.new_array(items)
    }

    /// The method, block flag, receiver and send offset in progress of
    /// activation record `i`.
    fn act_at(&self, i: usize) -> Option<(std::sync::Arc<Method>, bool, Value, u32)> {
        let a = self.frames.acts[i];
        let pos = match self.frames.acts.get(i + 1) {
            Some(inner) => inner.caller_pos,
            None => self.frames.pos,
        };
        let at_rp = self.stack.get(a.rp as usize).copied().unwrap_or(Value::Nil);
        if a.method.is_null() {
            // a block activation: its closure is at `rp` for the whole call
            return match at_rp.oop().map(|o| &self.heap.get(o).body) {
                Some(Body::Block(cl)) => Some((cl.method.clone(), true, cl.receiver, pos)),
                _ => None,
            };
        }
        // SAFETY: a non-null `a.method` is `Arc::as_ptr` of the `Arc<Method>`
        // that the running activation `a` borrows (see `Act`); that activation
        // is still running (its record is on `self.frames.acts`), so the allocation is
        // alive and the pointer came from `Arc`. `ManuallyDrop` keeps the
        // temporary handle from releasing a count it never took; the clone
        // takes a count of its own.
        let m = std::mem::ManuallyDrop::new(unsafe { std::sync::Arc::from_raw(a.method) });
        Some((std::sync::Arc::clone(&m), false, at_rp, pos))
    }

    /// One line of a stack report: `Receiver (Implementor) >> selector @step line n`,
    /// `[] in ` before it for a block, `Executed Code` for a doit.
    fn stack_line(&self, m: &Method, block: bool, recv: Value, pos: usize) -> String {
        let step = step_point(m, pos);
        let line = 1 + m.source.chars().take(pos).filter(|&c| c == '\n').count();
        let prefix = if block { "[] in " } else { "" };
        if m.doit {
            return format!("{prefix}Executed Code @{step} line {line}");
        }
        let own = self.class_of(recv);
        let who = if own == m.class {
            self.class_name(own)
        } else {
            format!("{} ({})", self.class_name(own), self.class_name(m.class))
        };
        let sel = self.string_of(Value::Obj(m.selector)).unwrap_or_default();
        format!("{prefix}{who} >> {sel} @{step} line {line}")
    }

    /// The report held in an exception's `gsStack` (nil if it was never signalled).
    fn captured_report(&mut self, ex: Value) -> Value {
        let Some(stack) = ex.oop().map(|o| self.heap.slot(o, exc::STACK)) else {
            return Value::Nil;
        };
        let Some(Body::Ptr(items)) = stack.oop().map(|o| &self.heap.get(o).body) else {
            return Value::Nil;
        };
        let mut text = String::new();
        for t in items.chunks_exact(3) {
            let (Value::Obj(mo), recv, Value::Int(code)) = (t[0], t[1], t[2]) else {
                continue;
            };
            if let Body::Method(m) = &self.heap.get(mo).body {
                text.push_str(&self.stack_line(m, code & 1 == 1, recv, (code >> 1) as usize));
                text.push('\n');
            }
        }
        self.new_string(&text)
    }

    /// The stack report `ex` captured where it was signalled, as text;
    /// `None` for no exception or an empty report.
    /// At most [`STACK_TEXT_LINES`] lines (a runaway recursion's report has
    /// one per activation).
    pub(crate) fn exception_stack_text(&mut self, ex: Value) -> Option<String> {
        let report = self.captured_report(ex);
        let text = self.string_of(report).filter(|t| !t.is_empty())?;
        Some(text.split_inclusive('\n').take(STACK_TEXT_LINES).collect())
    }

    /// The report of the running activations, innermost first, at most `level` lines.
    fn live_report(&mut self, level: usize) -> Value {
        let n = self.frames.acts.len();
        let mut text = String::new();
        for i in (0..n).rev().take(level) {
            let Some((m, block, recv, pos)) = self.act_at(i) else {
                continue;
            };
            text.push_str(&self.stack_line(&m, block, recv, pos as usize));
            text.push('\n');
        }
        self.new_string(&text)
    }

    /// Primitives 286 (`AbstractException>>stackReport`) and 287
    /// (`GsProcess class>>stackReportToLevel:`).
    pub(crate) fn prim_stack_report(
        &mut self,
        n: u16,
        r: Value,
        rp: usize,
        argc: usize,
    ) -> Result<Option<Value>, Unwind> {
        Ok(match (n, argc) {
            (EXCEPTION_STACK_REPORT, 0) => Some(self.captured_report(r)),
            (PROCESS_STACK_REPORT_TO_LEVEL, 1) => match self.stack[rp + 1] {
                Value::Int(level) if level >= 0 => Some(self.live_report(level as usize)),
                _ => None,
            },
            _ => None,
        })
    }
}

/// The most lines of an exception's report `exception_stack_text` answers.
pub(crate) const STACK_TEXT_LINES: usize = 1000;

/// GemStone numbers the step points of a method (its sends) in source order;
/// a frame's `@n` is the step of the send in progress.
fn step_point(m: &Method, pos: usize) -> usize {
    let mut offsets = Vec::new();
    for n in &m.body {
        send_offsets(n, &mut offsets);
    }
    offsets.sort_unstable();
    offsets.dedup();
    offsets.iter().take_while(|&&o| o < pos).count() + 1
}

fn send_offsets(n: &Node, out: &mut Vec<usize>) {
    fn cascade(p: &CascadePart, out: &mut Vec<usize>) {
        out.push(p.offset);
        p.args.iter().for_each(|a| send_offsets(a, out));
        p.chain.iter().for_each(|c| cascade(c, out));
    }
    match n {
        Node::Const(_)
        | Node::SelfRef
        | Node::Temp(_)
        | Node::EnvVar(..)
        | Node::IVar(_)
        | Node::Global(_) => {}
        Node::SetSlot(_, e)
        | Node::SetIVar(_, e)
        | Node::SetGlobal(_, e)
        | Node::Return(e)
        | Node::NonLocalReturn(e)
        | Node::Repeat(e, _) => send_offsets(e, out),
        Node::Send(s) => {
            out.push(s.offset);
            send_offsets(&s.recv, out);
            s.args.iter().for_each(|a| send_offsets(a, out));
        }
        Node::Cascade(r, parts) => {
            send_offsets(r, out);
            parts.iter().for_each(|p| cascade(p, out));
        }
        Node::Block(b) => b.body.iter().for_each(|s| send_offsets(s, out)),
        Node::Brace(items) | Node::Seq(items, _) => items.iter().for_each(|s| send_offsets(s, out)),
        Node::If(p, ..) => {
            send_offsets(&p.0, out);
            send_offsets(&p.1, out);
            send_offsets(&p.2, out);
        }
        Node::And(p, ..) | Node::Or(p, ..) | Node::While(p, ..) | Node::TimesRepeat(p, _) => {
            send_offsets(&p.0, out);
            send_offsets(&p.1, out);
        }
        Node::ToDo(t) => {
            send_offsets(&t.from, out);
            send_offsets(&t.to, out);
            if let Some(b) = &t.by {
                send_offsets(b, out);
            }
            send_offsets(&t.body, out);
        }
        Node::IfNil(p) => {
            send_offsets(&p.0, out);
            if let Some(b) = &p.1 {
                send_offsets(b, out);
            }
            if let Some((_, b)) = &p.2 {
                send_offsets(b, out);
            }
        }
    }
}
