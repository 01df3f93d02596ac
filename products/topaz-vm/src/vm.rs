//! The Topaz machine: one value stack and one control stack. A non-tail call pushes a return
//! entry (depth + 1), a tail call pushes nothing. Control primitives push marker entries that
//! double as return points (call/cc, call-with-values, dynamic-wind, handlers, raise, guard),
//! so escapes, handler returns and winders unwind exactly the entries they should. Primitives
//! that call guest procedures re-enter the machine through `apply` (a nested run with its own
//! boundary entry); escapes to an outer run travel as `Fault::Escape`.

use crate::code::{op, Code};
use crate::value::*;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

pub const CALL_DEPTH_LIMIT: usize = 100_000;
pub const REENTRY_LIMIT: usize = 200;
const START: Pos = Pos { line: 1, column: 1 };

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Control {
    Plain,
    Apply,
    CallCc,
    CallWithValues,
    DynamicWind,
    WithHandler,
    Error,
    Raise,
    RaiseContinuable,
}

pub type PrimFn = fn(&mut Vm, &[V]) -> R<V>;

pub struct PrimDef {
    pub name: String,
    pub min: usize,
    pub max: usize,
    pub control: Control,
    pub f: PrimFn,
    /// May run inside the quick tier: neither prints, warns, mutates nor calls back
    /// (`prims::has_effect`).
    pub pure: bool,
}

enum Handler {
    Proc(V),
    Guard(usize),
}
struct HNode {
    handler: Handler,
    next: H,
}
type H = Option<Rc<HNode>>;
struct WNode {
    after: V,
    next: W,
    handlers: H,
}
type W = Option<Rc<WNode>>;

fn same_w(a: &W, b: &W) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum K {
    Return,
    Boundary,
    CallCc,
    Cwv,
    Wind,
    Handler,
    Raise,
    Guard,
}

enum Aux {
    Nothing,
    Cont(Rc<Cont>),
    Consumer(V),
    Wind(Rc<WNode>),
    Raise { continuable: bool, obj: V, site: Pos },
    Guard(usize),
}

struct Ctl {
    kind: K,
    code: Option<Rc<Code>>,
    pc: usize,
    env: Option<Rc<Env>>,
    bp: usize,
    sp: usize,
    handlers: H,
    winders: W,
    aux: Aux,
}

pub struct Vm {
    pub prims: Vec<PrimDef>,
    pub globals: Vec<V>,
    pub global_names: Vec<Rc<str>>,
    pub codes: Vec<Rc<Code>>,
    pub prim_names: Vec<String>,
    stack: Vec<V>,
    ctl: Vec<Ctl>,
    code: Rc<Code>,
    pc: usize,
    env: Rc<Env>,
    bp: usize,
    handlers: H,
    winders: W,
    depth: usize,
    pub max_depth: usize,
    reentries: usize,
    pub site: Pos,
    pub steps: u64,
    pub step_limit: u64,
    pub out_bytes: u64,
    pub out_limit: u64,
    /// Bytes of stdout escaped as a JSON string body so far, and the request's bound on it
    /// (`resource_request.stdout_json_limit`; u64::MAX when the request has none).
    pub out_json: u64,
    pub out_json_limit: u64,
    pub stdout: String,
    pub warnings: Vec<(&'static str, Pos)>,
    finished: Option<V>,
    run_base: usize,
    /// Environments no closure captured, kept for reuse by the next call (no malloc per call).
    env_pool: Vec<Rc<Env>>,
    /// Argument buffer for plain primitive calls (taken while in use, so re-entry gets its own).
    argbuf: Vec<V>,
    /// Set once a fast path (`Code::fast`) gave up after real work: from then on every call runs
    /// on the machine, so a program whose fast attempts keep failing late costs at most about
    /// twice its machine time instead of re-running the attempt at every level.
    fast_off: bool,
    /// The quick tier's buffers, reused across attempts.
    tier: crate::quick::run::Tier,
    /// Calls completed on a fast path, and attempts given up (reported in the observation's
    /// metrics: what ran where, for the curious and for the tests).
    pub fast_counts: FastCounts,
}

#[derive(Default, Clone, Copy)]
pub struct FastCounts {
    /// Completed on the quick tier (`quick`).
    pub quick: u64,
    /// Completed on the fresh AOT's compiled fast path (`Code::fast`).
    pub compiled: u64,
    pub given_up: u64,
}

/// The account of one fast-path attempt (see `code::FastFn`): what the machine would have
/// charged and recorded had it run the same call.
pub struct Fx {
    /// Machine transitions of the instructions executed, and the most that may be used
    /// (the meter's remaining budget at entry): more is given up and rolled back.
    pub steps: u64,
    pub budget: u64,
    /// The machine's non-tail call depth at the current point, and its high-water mark.
    pub depth: usize,
    pub max_depth: usize,
    /// Non-self tail calls made (each a Rust call): bounded to keep the Rust stack bounded.
    pub tails: u32,
    /// The last site-setting instruction executed: `code index << 20 | pc`, or `u32::MAX`.
    pub site: u32,
}

pub const FAST_TAIL_CAP: u32 = 100_000;
/// A fast attempt that gave up after more transitions than this turns the fast path off.
const FAST_WASTE_CAP: u64 = 1_000;

/// UTF-8 bytes of `s` inside a JSON string as JSON.stringify writes it: `"` and `\\` and the
/// short-escaped controls (\b \t \n \f \r) take 2, the other controls below U+0020 take 6
/// (\uXXXX), everything else its UTF-8 length (a Rust string holds no lone surrogate, the one
/// other case JSON.stringify writes as \uXXXX).
pub fn json_escaped_len(s: &str) -> u64 {
    let mut n = s.len() as u64;
    for &b in s.as_bytes() {
        if b < 0x20 {
            n += if b == 8 || b == 9 || b == 10 || b == 12 || b == 13 { 1 } else { 5 };
        } else if b == b'"' || b == b'\\' {
            n += 1;
        }
    }
    n
}

fn new_env(parent: Option<Rc<Env>>, size: usize) -> Rc<Env> {
    Rc::new(Env { parent, slots: RefCell::new(Slots::new(size.max(1))) })
}

fn env_at(env: &Rc<Env>, depth: i32) -> Rc<Env> {
    let mut e = env.clone();
    for _ in 0..depth {
        let p = e.parent.clone().expect("lexical depth beyond the outermost frame");
        e = p;
    }
    e
}

impl Vm {
    pub fn new(prims: Vec<PrimDef>, globals: Vec<V>, global_names: Vec<Rc<str>>, codes: Vec<Rc<Code>>) -> Vm {
        let prim_names = prims.iter().map(|p| p.name.clone()).collect();
        let dummy = Rc::new(Code { name: None, required: 0, rest: false, frame: 1, ins: vec![op::RETURN, 0, 0, 0], consts: vec![], spans: vec![None; 4], native: None, stack_frame: false, fast: None, quick: None });
        Vm {
            prims,
            globals,
            global_names,
            codes,
            prim_names,
            stack: Vec::with_capacity(1024),
            ctl: Vec::with_capacity(256),
            code: dummy,
            pc: 0,
            env: new_env(None, 1),
            bp: 0,
            handlers: None,
            winders: None,
            depth: 0,
            max_depth: 0,
            reentries: 0,
            site: START,
            steps: 0,
            step_limit: u64::MAX,
            out_bytes: 0,
            out_limit: u64::MAX,
            out_json: 0,
            out_json_limit: u64::MAX,
            stdout: String::new(),
            warnings: Vec::new(),
            finished: None,
            run_base: 0,
            env_pool: Vec::new(),
            argbuf: Vec::with_capacity(16),
            fast_off: false,
            tier: Default::default(),
            fast_counts: FastCounts::default(),
        }
    }

    /// A fresh environment, reusing a pooled allocation when one is free.
    #[inline]
    fn make_env(&mut self, parent: Rc<Env>, slots: Slots) -> Rc<Env> {
        if let Some(mut rc) = self.env_pool.pop() {
            if let Some(e) = Rc::get_mut(&mut rc) {
                e.parent = Some(parent);
                *e.slots.get_mut() = slots;
                return rc;
            }
        }
        Rc::new(Env { parent: Some(parent), slots: RefCell::new(slots) })
    }

    /// Give back an environment being left: reusable when nothing else holds it.
    #[inline]
    fn recycle(&mut self, env: Rc<Env>) {
        if Rc::strong_count(&env) == 1 && Rc::weak_count(&env) == 0 && self.env_pool.len() < 4096 {
            self.env_pool.push(env);
        }
    }

    // Services for primitives ------------------------------------------------------------------

    /// Charge the UTF-8 length, then append (a denied charge appends nothing). When the request
    /// bounds stdout as a JSON string body too, an append that would take it past that bound is
    /// denied first, before anything is charged: the run ends with the output-byte axis exhausted
    /// (the built-in routes' RunContext.writeOut does exactly this).
    pub fn write_out(&mut self, text: &str) -> R<()> {
        let n = text.len() as u64;
        if self.out_json_limit != u64::MAX {
            let escaped = json_escaped_len(text);
            if self.out_json + escaped > self.out_json_limit {
                return Err(Fault::Resource("output-byte"));
            }
            if self.out_bytes + n > self.out_limit {
                return Err(Fault::Resource("output-byte"));
            }
            self.out_json += escaped;
        } else if self.out_bytes + n > self.out_limit {
            return Err(Fault::Resource("output-byte"));
        }
        self.out_bytes += n;
        self.stdout.push_str(text);
        Ok(())
    }

    pub fn warn(&mut self, code: &'static str) {
        self.warnings.push((code, self.site));
    }

    fn charge(&mut self) -> R<()> {
        if self.steps + 1 > self.step_limit {
            return Err(Fault::Resource("machine-transition"));
        }
        self.steps += 1;
        Ok(())
    }

    /// Call a guest procedure from a primitive (a nested run) and return its value.
    pub fn apply(&mut self, f: &V, args: Vec<V>) -> R<V> {
        if self.reentries >= REENTRY_LIMIT {
            return err_at("recursion-limit", "primitive re-entry depth limit exceeded".to_string(), vec![], Some(self.site));
        }
        self.reentries += 1;
        let saved = (self.code.clone(), self.pc, self.env.clone(), self.stack.len(), self.bp, self.site);
        let base = self.ctl.len();
        let r = self.apply_inner(f, args, base);
        self.reentries -= 1;
        self.code = saved.0;
        self.pc = saved.1;
        self.env = saved.2;
        self.stack.truncate(saved.3);
        self.bp = saved.4;
        self.site = saved.5;
        r
    }

    fn apply_inner(&mut self, f: &V, args: Vec<V>, base: usize) -> R<V> {
        let sp = self.stack.len();
        self.push_ctl(K::Boundary, false, Aux::Nothing, sp);
        self.bp = sp;
        let started = if let V::Closure(c) = f {
            let c = c.clone();
            self.push_return(None, sp).and_then(|_| self.enter_closure(&c, args))
        } else {
            self.invoke(f.clone(), args, true).map(|_| ())
        };
        if let Err(e) = started {
            // A fault before the nested run started is handled like one inside it.
            if let Err(e) = self.recover(e, base) {
                return Err(e);
            }
        }
        self.run(base)
    }

    // Control stack ------------------------------------------------------------------------------

    fn push_ctl(&mut self, kind: K, resume: bool, aux: Aux, sp: usize) {
        let (code, env) = if resume { (Some(self.code.clone()), Some(self.env.clone())) } else { (None, None) };
        let (pc, bp, handlers, winders) = (self.pc, self.bp, self.handlers.clone(), self.winders.clone());
        self.ctl_push(kind, code, pc, env, bp, sp, handlers, winders, aux);
    }

    #[inline]
    fn push_return(&mut self, code: Option<Rc<Code>>, sp: usize) -> R<()> {
        if self.depth + 1 > CALL_DEPTH_LIMIT {
            return err_at("recursion-limit", "non-tail call depth limit exceeded".to_string(), vec![], Some(self.site));
        }
        self.depth += 1;
        if self.depth > self.max_depth {
            self.max_depth = self.depth;
        }
        let env = if code.is_some() { Some(self.env.clone()) } else { None };
        let (pc, bp) = (self.pc, self.bp);
        self.ctl.reserve(1);
        let len = self.ctl.len();
        // SAFETY: as in `ctl_push`; the entry is written field by field (a temporary entry
        // copied into place stalled store forwarding on every call).
        unsafe {
            let p = self.ctl.as_mut_ptr().add(len);
            std::ptr::addr_of_mut!((*p).kind).write(K::Return);
            std::ptr::addr_of_mut!((*p).code).write(code);
            std::ptr::addr_of_mut!((*p).pc).write(pc);
            std::ptr::addr_of_mut!((*p).env).write(env);
            std::ptr::addr_of_mut!((*p).bp).write(bp);
            std::ptr::addr_of_mut!((*p).sp).write(sp);
            std::ptr::addr_of_mut!((*p).handlers).write(None);
            std::ptr::addr_of_mut!((*p).winders).write(None);
            std::ptr::addr_of_mut!((*p).aux).write(Aux::Nothing);
            self.ctl.set_len(len + 1);
        }
        Ok(())
    }

    /// Push a control entry writing each field straight into the stack's storage: building the
    /// entry as a temporary and copying it stalled store forwarding on every call.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn ctl_push(&mut self, kind: K, code: Option<Rc<Code>>, pc: usize, env: Option<Rc<Env>>, bp: usize, sp: usize, handlers: H, winders: W, aux: Aux) {
        self.ctl.reserve(1);
        let len = self.ctl.len();
        // SAFETY: capacity for one more entry was reserved; every field is written before the
        // length covers the slot.
        unsafe {
            let p = self.ctl.as_mut_ptr().add(len);
            std::ptr::addr_of_mut!((*p).kind).write(kind);
            std::ptr::addr_of_mut!((*p).code).write(code);
            std::ptr::addr_of_mut!((*p).pc).write(pc);
            std::ptr::addr_of_mut!((*p).env).write(env);
            std::ptr::addr_of_mut!((*p).bp).write(bp);
            std::ptr::addr_of_mut!((*p).sp).write(sp);
            std::ptr::addr_of_mut!((*p).handlers).write(handlers);
            std::ptr::addr_of_mut!((*p).winders).write(winders);
            std::ptr::addr_of_mut!((*p).aux).write(aux);
            self.ctl.set_len(len + 1);
        }
    }

    fn truncate(&mut self, to: usize) {
        while self.ctl.len() > to {
            let e = self.ctl.pop().unwrap();
            match (e.kind, &e.aux) {
                (K::Return, _) => self.depth -= 1,
                (K::CallCc, Aux::Cont(c)) => c.active.set(false),
                _ => {}
            }
        }
    }

    /// A marker entry: resuming at the current registers (non-tail) or not (tail).
    fn push_marker(&mut self, kind: K, tail: bool, aux: Aux) {
        let sp = self.stack.len();
        self.push_ctl(kind, !tail, aux, sp);
    }

    // Calls ----------------------------------------------------------------------------------------

    fn enter_closure(&mut self, f: &Rc<Closure>, mut args: Vec<V>) -> R<()> {
        let code = &f.code;
        let n = args.len();
        if n < code.required || (!code.rest && n > code.required) {
            return err_at("E302", format!("wrong number of arguments ({})", n), vec![V::Closure(f.clone())], Some(self.site));
        }
        if code.stack_frame {
            // Slot 0 is the procedure itself; the arguments follow, then the other slots.
            let rest = if code.rest { Some(list_from(args.drain(code.required..).collect(), V::Nil)) } else { None };
            self.bp = self.stack.len();
            self.stack.push(V::Closure(f.clone()));
            self.stack.extend(args);
            if let Some(r) = rest {
                self.stack.push(r);
            }
            let top = self.bp + code.frame.max(1);
            while self.stack.len() < top {
                self.stack.push(V::Nil);
            }
            self.code = code.clone();
            self.pc = 0;
            self.env = f.env.clone();
            return Ok(());
        }
        let mut slots = Slots::new(code.frame.max(1));
        if code.rest {
            let rest: Vec<V> = args.drain(code.required..).collect();
            slots[code.required + 1] = list_from(rest, V::Nil);
        }
        for (i, a) in args.into_iter().enumerate() {
            slots[i + 1] = a;
        }
        self.code = code.clone();
        self.pc = 0;
        self.env = Rc::new(Env { parent: Some(f.env.clone()), slots: RefCell::new(slots) });
        self.bp = self.stack.len();
        Ok(())
    }

    fn check_proc(&self, who: &str, v: &V) -> R<()> {
        if v.is_proc() {
            Ok(())
        } else {
            err("E312", format!("{}: expected a procedure", who), vec![v.clone()])
        }
    }

    /// Apply any procedure. Tail: the control-stack top is the continuation. Returns a value
    /// only for an immediately available non-tail result.
    fn invoke(&mut self, mut f: V, mut args: Vec<V>, mut tail: bool) -> R<Option<V>> {
        loop {
            match &f {
                V::Closure(c) => {
                    let c = c.clone();
                    if !tail {
                        let sp = self.stack.len();
                        let code = self.code.clone();
                        self.push_return(Some(code), sp)?;
                    }
                    self.enter_closure(&c, args)?;
                    return Ok(None);
                }
                V::Prim(i) => {
                    let i = *i as usize;
                    let n = args.len();
                    let (min, max, control, func) = {
                        let p = &self.prims[i];
                        (p.min, p.max, p.control, p.f)
                    };
                    if n < min || n > max {
                        return err_at("E302", format!("wrong number of arguments ({})", n), vec![f.clone()], Some(self.site));
                    }
                    match control {
                        Control::Plain => {
                            let v = func(self, &args)?;
                            if tail {
                                self.deliver(v)?;
                                return Ok(None);
                            }
                            return Ok(Some(v));
                        }
                        Control::Apply => {
                            let last = args[n - 1].clone();
                            let spread = match list_items(&last) {
                                Some(s) => s,
                                None => return err_at("E312", "apply: last argument must be a proper list".to_string(), vec![last], Some(self.site)),
                            };
                            f = args[0].clone();
                            let mut a: Vec<V> = args[1..n - 1].to_vec();
                            a.extend(spread);
                            args = a;
                            continue;
                        }
                        Control::CallCc => {
                            self.check_proc("call/cc", &args[0])?;
                            let k = Rc::new(Cont { frame: self.ctl.len(), active: Cell::new(true) });
                            self.push_marker(K::CallCc, tail, Aux::Cont(k.clone()));
                            f = args[0].clone();
                            args = vec![V::Cont(k)];
                            tail = true;
                            continue;
                        }
                        Control::CallWithValues => {
                            self.check_proc("call-with-values", &args[0])?;
                            self.check_proc("call-with-values", &args[1])?;
                            self.push_marker(K::Cwv, tail, Aux::Consumer(args[1].clone()));
                            f = args[0].clone();
                            args = vec![];
                            tail = true;
                            continue;
                        }
                        Control::DynamicWind => {
                            for p in &args {
                                self.check_proc("dynamic-wind", p)?;
                            }
                            self.apply(&args[0], vec![])?;
                            let w = Rc::new(WNode { after: args[2].clone(), next: self.winders.clone(), handlers: self.handlers.clone() });
                            self.push_marker(K::Wind, tail, Aux::Wind(w.clone()));
                            self.winders = Some(w);
                            f = args[1].clone();
                            args = vec![];
                            tail = true;
                            continue;
                        }
                        Control::WithHandler => {
                            self.check_proc("with-exception-handler", &args[0])?;
                            self.check_proc("with-exception-handler", &args[1])?;
                            self.push_marker(K::Handler, tail, Aux::Nothing);
                            self.handlers = Some(Rc::new(HNode { handler: Handler::Proc(args[0].clone()), next: self.handlers.clone() }));
                            f = args[1].clone();
                            args = vec![];
                            tail = true;
                            continue;
                        }
                        Control::Error => {
                            let msg = match &args[0] {
                                V::Str(s) => s.clone(),
                                other => return err("E312", "error: message must be a string".to_string(), vec![other.clone()]),
                            };
                            let obj = V::Err(Rc::new(ErrObj { message: msg, irritants: args[1..].to_vec(), code: "E330", origin: None }));
                            return self.raise(obj, false, tail);
                        }
                        Control::Raise | Control::RaiseContinuable => {
                            return self.raise(args[0].clone(), control == Control::RaiseContinuable, tail);
                        }
                    }
                }
                V::Cont(k) => {
                    self.charge()?;
                    if !k.active.get() {
                        return err_at("E340", "escape continuation no longer active".to_string(), vec![], Some(self.site));
                    }
                    let target = k.frame;
                    let payload = values_of(args);
                    self.escape_to(target, payload, false)?;
                    return Ok(None);
                }
                _ => return err_at("E301", "attempt to apply a non-procedure".to_string(), vec![f.clone()], Some(self.site)),
            }
        }
    }

    fn raise(&mut self, obj: V, continuable: bool, tail: bool) -> R<Option<V>> {
        self.charge()?;
        let h = match self.handlers.clone() {
            None => return Err(uncaught(obj, self.site)),
            Some(h) => h,
        };
        match &h.handler {
            Handler::Guard(frame) => {
                self.escape_to(*frame, obj, true)?;
                Ok(None)
            }
            Handler::Proc(p) => {
                let site = self.site;
                self.push_marker(K::Raise, tail, Aux::Raise { continuable, obj: obj.clone(), site });
                self.handlers = h.next.clone();
                self.invoke(p.clone(), vec![obj], true)
            }
        }
    }

    fn escape_to(&mut self, target: usize, payload: V, to_guard: bool) -> R<()> {
        let target_winders = self.ctl[target].winders.clone();
        while !same_w(&self.winders, &target_winders) {
            let w = match self.winders.clone() {
                Some(w) => w,
                None => break,
            };
            self.winders = w.next.clone();
            self.handlers = w.handlers.clone();
            self.apply(&w.after, vec![])?;
        }
        if target < self.run_base {
            return Err(Fault::Escape { target, payload, to_guard });
        }
        self.land(target, payload, to_guard)
    }

    fn land(&mut self, target: usize, payload: V, to_guard: bool) -> R<()> {
        let (handlers, winders) = (self.ctl[target].handlers.clone(), self.ctl[target].winders.clone());
        if to_guard {
            let (code, pc, env, bp, sp) = {
                let e = &self.ctl[target];
                let hpc = match e.aux {
                    Aux::Guard(p) => p,
                    _ => e.pc,
                };
                (e.code.clone(), hpc, e.env.clone(), e.bp, e.sp)
            };
            self.truncate(target);
            self.handlers = handlers;
            self.winders = winders;
            self.code = code.expect("guard entry resumes");
            self.env = env.expect("guard entry resumes");
            self.bp = bp;
            self.stack.truncate(sp);
            self.stack.push(payload);
            self.pc = pc;
            return Ok(());
        }
        self.truncate(target + 1);
        self.handlers = handlers;
        self.winders = winders;
        self.deliver(payload)
    }

    /// Deliver a value to the control-stack top, running marker exits, until some code resumes
    /// or the run's boundary is reached.
    fn deliver(&mut self, v: V) -> R<()> {
        loop {
            self.charge()?;
            let e = self.ctl.pop().expect("control stack never empties below a boundary");
            if e.kind == K::Boundary {
                self.stack.truncate(e.sp);
                self.finished = Some(v);
                return Ok(());
            }
            match e.aux {
                Aux::Cont(ref c) => c.active.set(false),
                Aux::Raise { continuable, ref obj, site } => {
                    if !continuable {
                        return err_at("E332", "handler returned from a non-continuable raise".to_string(), vec![obj.clone()], Some(site));
                    }
                    self.handlers = e.handlers.clone();
                }
                Aux::Wind(ref w) => {
                    self.winders = w.next.clone();
                    self.handlers = w.handlers.clone();
                    let after = w.after.clone();
                    self.apply(&after, vec![])?;
                }
                Aux::Consumer(ref consumer) => {
                    let resume = e.code.is_some();
                    if resume {
                        self.code = e.code.clone().unwrap();
                        self.pc = e.pc;
                        self.env = e.env.clone().unwrap();
                        self.bp = e.bp;
                        self.stack.truncate(e.sp);
                    }
                    let args = match &v {
                        V::Multi(vs) => (**vs).clone(),
                        _ => vec![v.clone()],
                    };
                    if let Some(r) = self.invoke(consumer.clone(), args, !resume)? {
                        self.stack.push(r);
                    }
                    return Ok(());
                }
                _ => {}
            }
            match e.kind {
                K::Return => self.depth -= 1,
                K::Handler | K::Guard => self.handlers = e.handlers.clone(),
                _ => {}
            }
            if let (Some(code), Some(env)) = (e.code, e.env) {
                self.code = code;
                self.pc = e.pc;
                self.env = env;
                self.bp = e.bp;
                self.stack.truncate(e.sp);
                self.stack.push(v);
                return Ok(());
            }
        }
    }

    // Runs -----------------------------------------------------------------------------------------

    /// Run one top-level code object to its value.
    pub fn run_top(&mut self, code: Rc<Code>) -> R<V> {
        let base = self.ctl.len();
        let sp = self.stack.len();
        self.push_ctl(K::Boundary, false, Aux::Nothing, sp);
        self.env = new_env(None, code.frame);
        self.code = code;
        self.pc = 0;
        self.bp = sp;
        self.run(base)
    }

    fn run(&mut self, base: usize) -> R<V> {
        let saved = self.run_base;
        self.run_base = base;
        let r = loop {
            if let Some(v) = self.finished.take() {
                break Ok(v);
            }
            match self.dispatch() {
                Ok(Some(v)) => break Ok(v),
                Ok(None) => continue,
                Err(e) => {
                    if let Err(e) = self.recover(e, base) {
                        break Err(e);
                    }
                }
            }
        };
        self.run_base = saved;
        r
    }

    /// Turn a fault inside run `base` into a landing, a raise to a handler, or a failure.
    fn recover(&mut self, e: Fault, base: usize) -> R<()> {
        match e {
            Fault::Escape { target, payload, to_guard } if target > base && target < self.ctl.len() => self.land(target, payload, to_guard),
            Fault::Err(mut le) => {
                if le.at.is_none() {
                    le.at = Some(self.site);
                }
                if le.code.starts_with("E3") && self.handlers.is_some() && le.payload.is_none() {
                    let cond = V::Err(Rc::new(ErrObj { message: text(&le.message), irritants: le.irritants, code: le.code, origin: le.at }));
                    let r = self.raise(cond, false, true).and_then(|r| match r {
                        Some(v) => self.deliver(v),
                        None => Ok(()),
                    });
                    match r {
                        Ok(()) => Ok(()),
                        Err(Fault::Escape { target, payload, to_guard }) if target > base && target < self.ctl.len() => self.land(target, payload, to_guard),
                        Err(e2) => {
                            self.truncate(base);
                            Err(e2)
                        }
                    }
                } else {
                    self.truncate(base);
                    Err(Fault::Err(le))
                }
            }
            other => {
                self.truncate(base);
                Err(other)
            }
        }
    }

    /// Try a non-tail call to `c` (at `fn_at` on the stack, arguments above it) on a fast path:
    /// the fresh AOT's compiled one when the code object has it, else the quick tier. On a value
    /// the machine is left exactly as the call and the callee's RETURN would have left it (the
    /// caller's REQUIRE_ONE follows as a normal instruction) and true is returned; on giving up
    /// nothing has changed and the call runs on the machine.
    #[inline(never)]
    fn try_fast(&mut self, c: &Rc<Closure>, fn_at: usize) -> Option<()> {
        let mut cx = Fx { steps: 0, budget: self.step_limit - self.steps, depth: self.depth + 1, max_depth: self.depth + 1, tails: 0, site: u32::MAX };
        let compiled = c.code.fast.is_some();
        let r = match c.code.fast {
            Some(fx) => fx(self, &mut cx, &self.stack[fn_at + 1..]),
            None => {
                let mut tier = std::mem::take(&mut self.tier);
                tier.begin(c, &self.stack[fn_at + 1..]);
                let r = crate::quick::run::attempt(self, &mut tier, &mut cx);
                self.tier = tier;
                r
            }
        };
        match r {
            Some(v) if cx.steps <= cx.budget => {
                self.steps += cx.steps;
                if cx.max_depth > self.max_depth {
                    self.max_depth = cx.max_depth;
                }
                if cx.site != u32::MAX {
                    let (k, p) = ((cx.site >> 20) as usize, (cx.site & 0xf_ffff) as usize);
                    self.site = self.codes[k].spans[p].unwrap_or(START);
                }
                self.stack.truncate(fn_at);
                self.stack.push(v);
                if compiled {
                    self.fast_counts.compiled += 1;
                } else {
                    self.fast_counts.quick += 1;
                }
                Some(())
            }
            _ => {
                self.fast_counts.given_up += 1;
                if cx.steps > FAST_WASTE_CAP {
                    self.fast_off = true;
                }
                None
            }
        }
    }

    fn prim_call(&mut self, k: &V, args: &[V]) -> R<V> {
        let i = match k {
            V::Prim(i) => *i as usize,
            _ => panic!("fast-path operand is not a primitive"),
        };
        let f = self.prims[i].f;
        f(self, args)
    }

    /// The dispatch loop. Returns Some(value) when the run's boundary received its value. A code
    /// object compiled ahead of time (`Code::native`) runs its own function instead of the loop.
    fn dispatch(&mut self) -> R<Option<V>> {
        'outer: loop {
            if let Some(v) = self.finished.take() {
                return Ok(Some(v));
            }
            let code = self.code.clone();
            if let Some(native) = code.native {
                let pc = self.pc;
                native(self, &code, pc)?;
                continue 'outer;
            }
            let mut pc = self.pc;
            loop {
                self.tick(pc)?;
                match self.step(&code, pc)? {
                    Step::Next(p) => pc = p,
                    Step::Switch => continue 'outer,
                }
            }
        }
    }

    /// RETURN (at `pc`) of `v`. A plain return into bytecode resumes the caller directly and, when
    /// the caller's next instruction is REQUIRE_ONE on a single value, executes it too (charging
    /// its transition) so the common call shape costs one dispatch less.
    #[inline(always)]
    fn ret(&mut self, v: V, pc: usize) -> R<Step> {
        let fast = matches!(self.ctl.last(), Some(e) if e.kind == K::Return && e.code.is_some());
        if fast {
            let e = self.ctl.pop().unwrap();
            self.depth -= 1;
            let code = e.code.unwrap();
            let mut resume = e.pc;
            if code.ins[resume] == op::REQUIRE_ONE && !matches!(v, V::Multi(_)) && self.steps < self.step_limit {
                self.steps += 1;
                resume += 1;
            }
            self.code = code;
            let left = std::mem::replace(&mut self.env, e.env.unwrap());
            self.recycle(left);
            self.pc = resume;
            self.bp = e.bp;
            self.stack.truncate(e.sp);
            self.stack.push(v);
            return Ok(Step::Switch);
        }
        self.pc = pc;
        self.deliver(v)?;
        Ok(Step::Switch)
    }

    /// Charge one machine transition for the instruction at `pc`.
    #[inline(always)]
    pub fn tick(&mut self, pc: usize) -> R<()> {
        if self.steps >= self.step_limit {
            self.pc = pc;
            return Err(Fault::Resource("machine-transition"));
        }
        self.steps += 1;
        Ok(())
    }

    /// Execute the one instruction at `pc` of `code` (the current code object): the next pc, or
    /// Switch when the registers now name other code (a call, a return, an escape).
    #[inline(always)]
    pub fn step(&mut self, code: &Rc<Code>, pc: usize) -> R<Step> {
        // Code objects carry zero words after their last instruction (see `Code::ins`),
        // so one bounds check covers the opcode and all operands.
        let w: &[i32; 4] = match code.ins[pc..pc + 4].try_into() {
            Ok(w) => w,
            Err(_) => panic!("instruction stream not padded"),
        };
        self.step_op(code, pc, w[0], w[1], w[2], w[3])
    }

    /// `step_op` for one opcode known at compile time: compiled code calls this, so each opcode
    /// is instantiated (and its dispatch folded) once per program rather than once per
    /// instruction — the difference between ~1 s and a few ms of rustc time per code object.
    #[inline(never)]
    pub fn step_k<const O: i32>(&mut self, code: &Rc<Code>, pc: usize, a1: i32, a2: i32, a3: i32) -> R<Step> {
        self.step_op(code, pc, O, a1, a2, a3)
    }

    /// `step` with the opcode and operands given: compiled code passes them as literals, so the
    /// dispatch on the opcode folds away.
    #[inline(always)]
    pub fn step_op(&mut self, code: &Rc<Code>, pc: usize, o: i32, a1: i32, a2: i32, a3: i32) -> R<Step> {
        let consts: &[V] = &code.consts;
        let at = pc;
        let _ = a3;
        match o {
            op::CONST | op::PRIMITIVE => {
                self.stack.push(consts[a1 as usize].dup());
                Ok(Step::Next(pc + 2))
            }
            op::LOCAL => {
                let v = self.env.slots.borrow()[a1 as usize].dup();
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::FUSED_ARITH | op::FUSED_ARITH1 | op::FUSED_JCC | op::FUSED_JCC1 => {
                let ins = &code.ins;
                let x = if o == op::FUSED_ARITH || o == op::FUSED_JCC { self.stack[self.bp + a1 as usize].dup() } else { consts[a1 as usize].dup() };
                let (yo, b, bo, p, t) = (ins[pc + 2], ins[pc + 3], ins[pc + 4], ins[pc + 5], ins[pc + 6]);
                if self.steps + 2 <= self.step_limit {
                    if let V::Int(xi) = x {
                        let yi = if yo == op::SLOCAL {
                            match self.stack[self.bp + b as usize] {
                                V::Int(i) => Some(i),
                                _ => None,
                            }
                        } else {
                            match consts[b as usize] {
                                V::Int(i) => Some(i),
                                _ => None,
                            }
                        };
                        if let Some(yi) = yi {
                            let _ = p;
                            let r = match bo {
                                op::ADD => xi.checked_add(yi),
                                op::SUB => xi.checked_sub(yi),
                                _ => None,
                            };
                            if let Some(r) = r {
                                self.steps += 2;
                                self.site = code.spans[pc + 4].unwrap_or(START);
                                self.stack.push(V::Int(r));
                                return Ok(Step::Next(pc + 6));
                            }
                            let c = match bo {
                                op::JLT => Some(xi < yi),
                                op::JGT => Some(xi > yi),
                                op::JLE => Some(xi <= yi),
                                op::JGE => Some(xi >= yi),
                                op::JNUM_EQ => Some(xi == yi),
                                _ => None,
                            };
                            if let Some(c) = c {
                                self.steps += 2;
                                self.site = code.spans[pc + 4].unwrap_or(START);
                                return Ok(Step::Next(if c { pc + 7 } else { t as usize }));
                            }
                        }
                    }
                }
                // Not applicable: the first instruction alone.
                self.stack.push(x);
                Ok(Step::Next(pc + 2))
            }
            op::FUSED_SCXR => {
                // SLOCAL a; CAR|CDR p
                if self.steps < self.step_limit {
                    if let V::Pair(p) = &self.stack[self.bp + a1 as usize] {
                        let v = if code.ins[pc + 2] == op::CAR { p.car.dup() } else { p.cdr.dup() };
                        self.steps += 1;
                        self.site = code.spans[pc + 2].unwrap_or(START);
                        self.stack.push(v);
                        return Ok(Step::Next(pc + 4));
                    }
                }
                let v = self.stack[self.bp + a1 as usize].dup();
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::FUSED_SJTEST => {
                // SLOCAL a; JNULLP|JPAIRP p t
                if self.steps < self.step_limit {
                    self.steps += 1;
                    self.site = code.spans[pc + 2].unwrap_or(START);
                    let v = &self.stack[self.bp + a1 as usize];
                    let r = if code.ins[pc + 2] == op::JNULLP { v.is_nil() } else { matches!(v, V::Pair(_)) };
                    return Ok(Step::Next(if r { pc + 5 } else { code.ins[pc + 4] as usize }));
                }
                let v = self.stack[self.bp + a1 as usize].dup();
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::FUSED_CMPJ..=op::FUSED_CMPJ_LAST | op::FUSED_CMPNJ..=op::FUSED_CMPNJ_LAST => {
                // CMP p; [NOT q;] JUMP_IF_FALSE t
                let negated = o >= op::FUSED_CMPNJ;
                let cmp = op::LT + (o - if negated { op::FUSED_CMPNJ } else { op::FUSED_CMPJ });
                let _ = (a2, a3);
                let extra: u64 = if negated { 2 } else { 1 };
                let n = self.stack.len();
                if self.steps + extra <= self.step_limit {
                    if let (V::Int(x), V::Int(y)) = (&self.stack[n - 2], &self.stack[n - 1]) {
                        let (x, y) = (*x, *y);
                        let r = match cmp {
                            op::LT => x < y,
                            op::GT => x > y,
                            op::LE => x <= y,
                            op::GE => x >= y,
                            _ => x == y,
                        };
                        self.steps += extra;
                        // The last instruction that names a site: the NOT, or the comparison.
                        self.site = code.spans[if negated { pc + 2 } else { pc }].unwrap_or(START);
                        // SAFETY: both are fixnums, nothing to drop.
                        unsafe { self.stack.set_len(n - 2) };
                        let jif = if negated { pc + 4 } else { pc + 2 };
                        let take = r != negated;
                        return Ok(Step::Next(if take { jif + 2 } else { code.ins[jif + 1] as usize }));
                    }
                }
                // Not applicable: the comparison alone (through its primitive, as its own slow
                // path does; the result is the same for fixnums).
                self.site = code.spans[at].unwrap_or(START);
                let args: Vec<V> = self.stack.drain(n - 2..).collect();
                self.pc = pc + 2;
                let v = self.prim_call(&consts[a1 as usize], &args)?;
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::SLOCAL => {
                let v = self.stack[self.bp + a1 as usize].dup();
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::SLOCAL3 => {
                let v = self.stack[self.bp + a2 as usize].dup();
                self.stack.push(v);
                Ok(Step::Next(pc + 3))
            }
            op::SLOCAL_CHECKED | op::SLOCAL_CHECKED4 => {
                let (s, k, w) = if o == op::SLOCAL_CHECKED { (a1, a2, 3) } else { (a2, a3, 4) };
                let v = self.stack[self.bp + s as usize].dup();
                if let V::Unassigned = v {
                    self.pc = pc;
                    return letrec_unassigned(&consts[k as usize], code.spans[at]);
                }
                self.stack.push(v);
                Ok(Step::Next(pc + w))
            }
            op::SSET => {
                let v = self.stack.pop().unwrap();
                let i = self.bp + a2 as usize;
                self.stack[i] = v;
                self.stack.push(V::none());
                Ok(Step::Next(pc + 3))
            }
            op::SINIT => {
                let v = self.stack.pop().unwrap();
                let i = self.bp + a1 as usize;
                self.stack[i] = v;
                Ok(Step::Next(pc + 2))
            }
            op::SUNASSIGN => {
                let i = self.bp + a1 as usize;
                self.stack[i] = V::Unassigned;
                Ok(Step::Next(pc + 2))
            }
            op::LOCAL1 => {
                let v = self.env.parent.as_ref().unwrap().slots.borrow()[a1 as usize].dup();
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::LEXICAL => {
                let e = env_at(&self.env, a1);
                let v = e.slots.borrow()[a2 as usize].clone();
                self.stack.push(v);
                Ok(Step::Next(pc + 3))
            }
            op::LOCAL_CHECKED | op::LEXICAL_CHECKED => {
                let (d, s, k, w) = if o == op::LOCAL_CHECKED { (0, a1, a2, 3) } else { (a1, a2, a3, 4) };
                let e = env_at(&self.env, d);
                let v = e.slots.borrow()[s as usize].clone();
                if let V::Unassigned = v {
                    self.pc = pc;
                    return letrec_unassigned(&consts[k as usize], code.spans[at]);
                }
                self.stack.push(v);
                Ok(Step::Next(pc + w))
            }
            op::GLOBAL => {
                let g = int_operand(&consts[a1 as usize]);
                let v = self.globals[g].dup();
                if let V::Unassigned = v {
                    self.pc = pc;
                    let name = self.global_names[g].clone();
                    return err_at("E300", "unbound variable".to_string(), vec![V::Sym(text(&name))], code.spans[at]);
                }
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::SET_LEXICAL => {
                let v = self.stack.pop().unwrap();
                let e = env_at(&self.env, a1);
                e.slots.borrow_mut()[a2 as usize] = v;
                self.stack.push(V::none());
                Ok(Step::Next(pc + 3))
            }
            op::SET_GLOBAL | op::DEFINE_GLOBAL => {
                let g = int_operand(&consts[a1 as usize]);
                if o == op::SET_GLOBAL {
                    if let V::Unassigned = self.globals[g] {
                        self.pc = pc;
                        let name = self.global_names[g].clone();
                        return err_at("E303", "set! of an unbound variable".to_string(), vec![V::Sym(text(&name))], code.spans[at]);
                    }
                }
                self.globals[g] = self.stack.pop().unwrap();
                self.stack.push(V::none());
                Ok(Step::Next(pc + 2))
            }
            op::INIT_LOCAL => {
                let v = self.stack.pop().unwrap();
                self.env.slots.borrow_mut()[a1 as usize] = v;
                Ok(Step::Next(pc + 2))
            }
            op::UNASSIGN => {
                self.env.slots.borrow_mut()[a1 as usize] = V::Unassigned;
                Ok(Step::Next(pc + 2))
            }
            op::CLOSURE => {
                let c = self.codes[int_operand(&consts[a1 as usize])].clone();
                self.stack.push(V::Closure(Rc::new(Closure { code: c, env: self.env.clone() })));
                Ok(Step::Next(pc + 2))
            }
            op::POP => {
                self.stack.pop();
                Ok(Step::Next(pc + 1))
            }
            op::REQUIRE_ONE => {
                if let Some(V::Multi(_)) = self.stack.last() {
                    self.pc = pc;
                    return err_at("E320", "multiple values where one value is required".to_string(), vec![], code.spans[at]);
                }
                Ok(Step::Next(pc + 1))
            }
            op::VALUES => {
                let n = a1 as usize;
                let at_n = self.stack.len() - n;
                let vals: Vec<V> = self.stack.drain(at_n..).collect();
                self.stack.push(V::Multi(Rc::new(vals)));
                Ok(Step::Next(pc + 2))
            }
            op::JUMP => Ok(Step::Next(a1 as usize)),
            op::JUMP_IF_FALSE => {
                let v = self.stack.pop().unwrap();
                Ok(Step::Next(if let V::Bool(false) = v { a1 as usize } else { pc + 2 }))
            }
            op::CALL | op::TAIL_CALL => {
                let argc = a1 as usize;
                let tail = o == op::TAIL_CALL;
                self.site = code.spans[at].unwrap_or(START);
                let fn_at = self.stack.len() - argc - 1;
                let pc = pc + 2;
                let fast = match &self.stack[fn_at] {
                    V::Closure(c) if c.code.required == argc && !c.code.rest => Some(c.clone()),
                    _ => None,
                };
                if let Some(c) = fast {
                    if !tail && !self.fast_off && self.depth < CALL_DEPTH_LIMIT && self.steps <= self.step_limit && (c.code.fast.is_some() || c.code.quick.is_some()) {
                        if self.try_fast(&c, fn_at).is_some() {
                            return Ok(Step::Next(pc));
                        }
                    }
                    if c.code.stack_frame {
                        // The callee's frame is the procedure and its arguments where they
                        // already are (moved down over the caller's frame for a tail call).
                        let base = if tail {
                            let bp = self.bp;
                            self.stack.drain(bp..fn_at);
                            bp
                        } else {
                            self.pc = pc;
                            self.push_return(Some(code.clone()), fn_at)?;
                            fn_at
                        };
                        self.bp = base;
                        let top = base + c.code.frame;
                        while self.stack.len() < top {
                            self.stack.push(V::Nil);
                        }
                        self.code = c.code.clone();
                        let left = std::mem::replace(&mut self.env, c.env.clone());
                        if tail {
                            self.recycle(left);
                        }
                        self.pc = 0;
                        return Ok(Step::Switch);
                    }
                    let mut slots = Slots::new(c.code.frame.max(1));
                    for i in (0..argc).rev() {
                        slots[i + 1] = self.stack.pop().unwrap();
                    }
                    self.stack.pop();
                    let env = self.make_env(c.env.clone(), slots);
                    if tail {
                        self.stack.truncate(self.bp);
                    } else {
                        self.pc = pc;
                        let sp = self.stack.len();
                        self.push_return(Some(code.clone()), sp)?;
                        self.bp = sp;
                    }
                    self.code = c.code.clone();
                    let left = std::mem::replace(&mut self.env, env);
                    if tail {
                        self.recycle(left);
                    }
                    self.pc = 0;
                    return Ok(Step::Switch);
                }
                if let V::Prim(i) = self.stack[fn_at] {
                    let p = &self.prims[i as usize];
                    if p.control == Control::Plain && argc >= p.min && argc <= p.max {
                        // A plain primitive: its arguments go through a reused buffer (no
                        // vector per call) and a non-tail call stays in this code.
                        let func = p.f;
                        let mut buf = std::mem::take(&mut self.argbuf);
                        buf.extend(self.stack.drain(fn_at + 1..));
                        self.stack.pop();
                        if tail {
                            self.stack.truncate(self.bp);
                        }
                        self.pc = pc;
                        let r = func(self, &buf);
                        buf.clear();
                        self.argbuf = buf;
                        let v = r?;
                        if tail {
                            self.deliver(v)?;
                            return Ok(Step::Switch);
                        }
                        self.stack.push(v);
                        return Ok(Step::Next(pc));
                    }
                }
                let args: Vec<V> = self.stack.drain(fn_at + 1..).collect();
                let f = self.stack.pop().unwrap();
                if tail {
                    self.stack.truncate(self.bp);
                }
                self.pc = pc;
                if let Some(v) = self.invoke(f, args, tail)? {
                    self.stack.push(v);
                }
                return Ok(Step::Switch);
            }
            op::RETURN => {
                let v = self.stack.pop().unwrap();
                self.ret(v, pc)
            }
            op::FUSED_SRET => {
                // SLOCAL a; RETURN
                if self.steps < self.step_limit {
                    self.steps += 1;
                    let v = self.stack[self.bp + a1 as usize].dup();
                    return self.ret(v, pc + 2);
                }
                let v = self.stack[self.bp + a1 as usize].dup();
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::GUARD_PUSH => {
                let handler_pc = a1 as usize;
                let pc = pc + 2;
                self.pc = pc;
                let target = self.ctl.len();
                let sp = self.stack.len();
                self.push_ctl(K::Guard, true, Aux::Guard(handler_pc), sp);
                self.handlers = Some(Rc::new(HNode { handler: Handler::Guard(target), next: self.handlers.clone() }));
                Ok(Step::Next(pc))
            }
            op::GUARD_POP => {
                let e = self.ctl.pop().unwrap();
                self.handlers = e.handlers;
                Ok(Step::Next(pc + 1))
            }
            op::ADD | op::SUB | op::MUL | op::LT | op::GT | op::LE | op::GE | op::NUM_EQ => {
                self.site = code.spans[at].unwrap_or(START);
                let n = self.stack.len();
                if let (V::Int(a), V::Int(b)) = (&self.stack[n - 2], &self.stack[n - 1]) {
                    let (a, b) = (*a, *b);
                    let r = match o {
                        op::ADD => a.checked_add(b).map(V::Int),
                        op::SUB => a.checked_sub(b).map(V::Int),
                        op::MUL => a.checked_mul(b).map(V::Int),
                        op::LT => Some(V::Bool(a < b)),
                        op::GT => Some(V::Bool(a > b)),
                        op::LE => Some(V::Bool(a <= b)),
                        op::GE => Some(V::Bool(a >= b)),
                        _ => Some(V::Bool(a == b)),
                    };
                    if let Some(v) = r {
                        // Both operands are fixnums (nothing to drop): overwrite in place.
                        unsafe { self.stack.set_len(n - 1) };
                        let slot = &mut self.stack[n - 2];
                        unsafe { std::ptr::write(slot, v) };
                        return Ok(Step::Next(pc + 2));
                    }
                }
                let args: Vec<V> = self.stack.drain(n - 2..).collect();
                self.pc = pc + 2;
                let v = self.prim_call(&consts[a1 as usize], &args)?;
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::CONS => {
                let d = self.stack.pop().unwrap();
                let a = self.stack.pop().unwrap();
                self.site = code.spans[at].unwrap_or(START);
                self.stack.push(V::cons(a, d));
                Ok(Step::Next(pc + 2))
            }
            op::EQ => {
                let b = self.stack.pop().unwrap();
                let a = self.stack.pop().unwrap();
                self.site = code.spans[at].unwrap_or(START);
                self.stack.push(V::Bool(eqv(&a, &b)));
                Ok(Step::Next(pc + 2))
            }
            op::CAR | op::CDR | op::ZEROP => {
                self.site = code.spans[at].unwrap_or(START);
                let fast = match (o, self.stack.last().unwrap()) {
                    (op::CAR, V::Pair(p)) => Some(p.car.dup()),
                    (op::CDR, V::Pair(p)) => Some(p.cdr.dup()),
                    (op::ZEROP, V::Int(i)) => Some(V::Bool(*i == 0)),
                    _ => None,
                };
                let v = match fast {
                    Some(v) => {
                        self.stack.pop();
                        v
                    }
                    None => {
                        let a = self.stack.pop().unwrap();
                        self.pc = pc + 2;
                        self.prim_call(&consts[a1 as usize], &[a])?
                    }
                };
                self.stack.push(v);
                Ok(Step::Next(pc + 2))
            }
            op::NULLP | op::PAIRP | op::NOT => {
                self.site = code.spans[at].unwrap_or(START);
                let a = self.stack.pop().unwrap();
                let r = match o {
                    op::NULLP => a.is_nil(),
                    op::PAIRP => matches!(a, V::Pair(_)),
                    _ => matches!(a, V::Bool(false)),
                };
                self.stack.push(V::Bool(r));
                Ok(Step::Next(pc + 2))
            }
            op::JLT | op::JGT | op::JLE | op::JGE | op::JNUM_EQ => {
                self.site = code.spans[at].unwrap_or(START);
                let b = self.stack.pop().unwrap();
                let a = self.stack.pop().unwrap();
                let r = match (&a, &b) {
                    (V::Int(x), V::Int(y)) => match o {
                        op::JLT => x < y,
                        op::JGT => x > y,
                        op::JLE => x <= y,
                        op::JGE => x >= y,
                        _ => x == y,
                    },
                    _ => {
                        self.pc = pc;
                        self.prim_call(&consts[a1 as usize], &[a, b])?.truthy()
                    }
                };
                Ok(Step::Next(if r { pc + 3 } else { a2 as usize }))
            }
            op::JNULLP | op::JPAIRP => {
                self.site = code.spans[at].unwrap_or(START);
                let a = self.stack.pop().unwrap();
                let r = if o == op::JNULLP { a.is_nil() } else { matches!(a, V::Pair(_)) };
                Ok(Step::Next(if r { pc + 3 } else { a2 as usize }))
            }
            _ => panic!("bad opcode {} at {}", o, pc),
        }
    }
}

/// What one instruction did to control.
pub enum Step {
    Next(usize),
    Switch,
}

fn int_operand(v: &V) -> usize {
    match v {
        V::Int(i) => *i as usize,
        _ => panic!("operand is not an index"),
    }
}

/// What `values` / a continuation delivers for an argument list.
pub fn values_of(mut args: Vec<V>) -> V {
    if args.len() == 1 {
        args.pop().unwrap()
    } else {
        V::Multi(Rc::new(args))
    }
}

/// E321: a letrec variable (named by the constant `name`, a symbol or a hidden temporary) read
/// before its initialization.
#[cold]
fn letrec_unassigned(name: &V, at: Option<Pos>) -> R<Step> {
    let irritants = if let V::Sym(_) = name { vec![name.clone()] } else { vec![] };
    err_at("E321", "letrec variable read before initialization".to_string(), irritants, at)
}

/// The fault an unhandled raise becomes.
fn uncaught(obj: V, at: Pos) -> Fault {
    if let V::Err(e) = &obj {
        return Fault::Err(Box::new(LErr {
            code: e.code,
            message: e.message.to_string(),
            irritants: e.irritants.clone(),
            at: Some(e.origin.unwrap_or(at)),
            payload: Some(obj.clone()),
        }));
    }
    Fault::Err(Box::new(LErr { code: "E331", message: "uncaught raised object".to_string(), irritants: vec![obj.clone()], at: Some(at), payload: Some(obj) }))
}
