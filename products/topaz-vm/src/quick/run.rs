//! The quick tier's interpreter: one loop over register instructions, frames on the tier's own
//! stack. See `quick` for the contract (read-only attempt, the machine's exact account, give up
//! on anything unusual).

use super::{Cmp, Opnd, Q};
use crate::code::Code;
use crate::value::{eqv, Closure, Env, Slots, V};
use crate::vm::{Fx, Vm, CALL_DEPTH_LIMIT};
use std::rc::Rc;

/// A suspended caller.
struct Frame {
    code: *const Code,
    clo: *const Closure,
    pc: u32,
    base: u32,
    require_one: bool,
}

/// The value a global or a captured variable had before the attempt's first store to it.
enum Undo {
    Global(u32, V),
    Env(Rc<Env>, u32, V),
}

/// Stores outside the frames, undoable: the first store to each cell logs the value the attempt
/// found there (all a give-up needs), later ones drop what they replace — except procedures,
/// kept to the end of the attempt (one of them may be running, held only by the cell).
#[derive(Default)]
struct StoreLog {
    undo: Vec<Undo>,
    /// Attempt number of the last first-store to each global (no hashing on the hot path).
    global_epoch: Vec<u32>,
    epoch: u32,
    env_logged: std::collections::HashSet<(usize, u32)>,
    kept: Vec<V>,
}

/// Procedures replaced by stores kept alive past this many: the attempt gives up instead.
const KEPT_CAP: usize = 1 << 16;

impl StoreLog {
    fn begin(&mut self, globals: usize) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.global_epoch.iter_mut().for_each(|e| *e = 0);
            self.epoch = 1;
        }
        if self.global_epoch.len() < globals {
            self.global_epoch.resize(globals, 0);
        }
    }
    /// Account for `old`, just replaced in global `g`; false when too much must be kept.
    fn global(&mut self, g: u32, old: V) -> bool {
        let e = &mut self.global_epoch[g as usize];
        if *e != self.epoch {
            *e = self.epoch;
            self.undo.push(Undo::Global(g, old));
            true
        } else {
            self.keep(old)
        }
    }
    fn env(&mut self, env: &Rc<Env>, slot: u32, old: V) -> bool {
        if self.env_logged.insert((Rc::as_ptr(env) as usize, slot)) {
            self.undo.push(Undo::Env(env.clone(), slot, old));
            true
        } else {
            self.keep(old)
        }
    }
    fn keep(&mut self, old: V) -> bool {
        if let V::Closure(_) = old {
            self.kept.push(old);
            return self.kept.len() <= KEPT_CAP;
        }
        true
    }
    /// End of an attempt: on giving up every logged cell gets its value back, newest first.
    fn end(&mut self, gave_up: bool, globals: &mut [V]) {
        while let Some(u) = self.undo.pop() {
            if gave_up {
                match u {
                    Undo::Global(g, old) => globals[g as usize] = old,
                    Undo::Env(env, slot, old) => env.slots.borrow_mut()[slot as usize] = old,
                }
            }
        }
        if !self.env_logged.is_empty() {
            self.env_logged.clear();
        }
        self.kept.clear();
    }
}

/// The tier's reusable buffers (kept by the machine between attempts).
#[derive(Default)]
pub struct Tier {
    regs: Vec<V>,
    frames: Vec<Frame>,
    log: StoreLog,
}

impl Tier {
    /// Start an attempt: the callee's frame (slot 0 the procedure, then the arguments).
    pub fn begin(&mut self, f: &Rc<Closure>, args: &[V]) {
        self.regs.clear();
        self.frames.clear();
        self.regs.push(V::Closure(f.clone()));
        self.regs.extend(args.iter().map(V::dup));
    }
}

/// Run the call begun on `tier` to its value, or None (nothing happened that needs undoing).
/// `cx` receives the account as the machine would have kept it; the caller checks the budget.
pub fn attempt(vm: &mut Vm, tier: &mut Tier, cx: &mut Fx) -> Option<V> {
    // Globals are held aside for the attempt (the tier reads and stores them; its primitives
    // never touch them) and the primitives get the machine.
    let mut globals = std::mem::take(&mut vm.globals);
    tier.log.begin(globals.len());
    let r = exec(vm, tier, cx, &mut globals);
    tier.log.end(r.is_none(), &mut globals);
    vm.globals = globals;
    // Dropping what the attempt made (lists it built and never returned included).
    tier.regs.clear();
    tier.frames.clear();
    r
}

fn exec(vm: &mut Vm, tier: &mut Tier, cx: &mut Fx, globals: &mut [V]) -> Option<V> {
    let regs = &mut tier.regs;
    let frames = &mut tier.frames;
    let log = &mut tier.log;
    let budget = cx.budget;
    let mut steps = cx.steps;
    let mut site = cx.site;
    let mut depth = cx.depth;
    let mut max_depth = cx.max_depth;
    let mut base = 0usize;
    let mut pc = 0usize;
    // SAFETY (for every `&*code` and `&*clo`): code objects are owned by the machine's code table
    // for the whole run; a running closure is held where the call found it — a register of a
    // suspended caller, a constant, a global, an environment (a store to those keeps the value it
    // replaced in the undo log until the attempt ends) — or, after a tail call replaced the frame
    // that held it, in the frame's slot 0.
    let mut clo: *const Closure = match &regs[0] {
        V::Closure(c) => Rc::as_ptr(c),
        _ => unreachable!("an attempt starts with its closure in slot 0"),
    };
    let mut code: *const Code = &*unsafe { &*clo }.code as *const Code;
    {
        let q = unsafe { &*code }.quick.as_ref().expect("attempted code has a quick form");
        let argc = regs.len() - 1;
        regs.resize(q.nregs.max(argc as u32 + 1) as usize, V::Nil);
    }

    // Giving up reports the transitions spent (the machine turns the tier off after a costly
    // attempt that came to nothing).
    macro_rules! bail {
        () => {{
            cx.steps = steps;
            return None;
        }};
    }

    loop {
        let c = unsafe { &*code };
        let q = c.quick.as_ref().expect("quick code");
        let consts: &[V] = &c.consts;
        let ops = &q.ops[..];
        // The frame's registers. SAFETY: a frame is entered only once `regs` holds `base +
        // q.nregs` values, the compiler never names a register at or past `q.nregs`, and `regs`
        // is not resized while `fp` is in use (a call that grows it leaves this loop).
        debug_assert!(regs.len() >= base + q.nregs as usize);
        let mut fp: *mut V = unsafe { regs.as_mut_ptr().add(base) };
        macro_rules! reg {
            ($r:expr) => {
                unsafe { &mut *fp.add($r as usize) }
            };
        }
        // Read an operand in place (a reference into the frame, the constants, the globals or
        // the environment chain).
        let kp: *const V = consts.as_ptr();
        macro_rules! get {
            ($o:expr) => {{
                let o = $o;
                if o.kind() < 2 {
                    // SAFETY: register indexes as for `reg!`; constant indexes were checked
                    // against the pool by the compiler.
                    let p = if o.kind() == 1 { kp } else { fp as *const V };
                    unsafe { &*((p as *const u8).add(o.byte_offset()) as *const V) }
                } else if o.kind() == 2 {
                    match unsafe { &*((fp as *const u8).add(o.byte_offset()) as *const V) } {
                        V::Pair(p) => {
                            if o.is_cdr() {
                                &p.cdr
                            } else {
                                &p.car
                            }
                        }
                        _ => bail!(),
                    }
                } else {
                    let v = match q.others[o.index()] {
                        Opnd::Global(g) => globals.get(g as usize).filter(|v| !matches!(v, V::Unassigned)),
                        // The closure's own environment inline (an internal procedure reading its
                        // siblings), outer ones out of line.
                        Opnd::Env { depth: 0, slot } => env_slot(&unsafe { &*clo }.env, slot as u32),
                        Opnd::Env { depth, slot } => outer_env_slot(clo, depth as u32, slot as u32),
                        Opnd::Reg(_) | Opnd::Const(_) => unreachable!("packed inline"),
                    };
                    match v {
                        Some(v) => v,
                        None => bail!(),
                    }
                }
            }};
        }
        // Call a (pure) primitive from the constant pool on the given arguments.
        macro_rules! prim {
            ($k:expr, $args:expr) => {{
                match call_prim(vm, &consts[$k as usize], $args) {
                    Some(v) => v,
                    None => bail!(),
                }
            }};
        }
        // Fixnum arithmetic inline, anything else through the primitive.
        macro_rules! arith {
            ($dst:expr, $a:expr, $b:expr, $prim:expr, $checked:ident) => {{
                let (x, y) = (get!($a), get!($b));
                if let (V::Int(i), V::Int(j)) = (x, y) {
                    if let Some(r) = i.$checked(*j) {
                        V::put_int(reg!($dst), r);
                        continue;
                    }
                }
                let args = [x.dup(), y.dup()];
                let v = prim!($prim, &args);
                V::put(reg!($dst), v);
            }};
        }
        macro_rules! compare {
            ($cmp:expr, $a:expr, $b:expr, $prim:expr) => {{
                match (get!($a), get!($b)) {
                    (V::Int(x), V::Int(y)) => compare($cmp, *x, *y),
                    (x, y) => {
                        let args = [x.dup(), y.dup()];
                        prim!($prim, &args).truthy()
                    }
                }
            }};
        }
        // Leave the current frame with `value`: to the caller, or out of the attempt.
        macro_rules! ret {
            ($value:expr) => {{
                let value = $value;
                match frames.pop() {
                    None => {
                        cx.steps = steps;
                        cx.site = site;
                        cx.depth = depth;
                        cx.max_depth = max_depth;
                        return Some(value);
                    }
                    Some(f) => {
                        if f.require_one && matches!(value, V::Multi(_)) {
                            bail!();
                        }
                        depth -= 1;
                        // The value lands where the callee's frame began: the caller's
                        // register that held the procedure.
                        V::put(reg!(0), value);
                        pc = f.pc as usize;
                        base = f.base as usize;
                        if f.code == code {
                            fp = unsafe { regs.as_mut_ptr().add(base) };
                            clo = f.clo;
                            continue;
                        }
                        code = f.code;
                        clo = f.clo;
                        break;
                    }
                }
            }};
        }
        // A backward jump charges the budget check a loop needs.
        macro_rules! jump {
            ($to:expr) => {{
                let to = $to as usize;
                if to < pc && steps > budget {
                    bail!();
                }
                pc = to;
            }};
        }

        // The inner loop runs within one code object; calls and returns switch `code`.
        loop {
            // Every path through a quick form ends in a return, a tail call or a jump, and every
            // jump lands on an instruction (`compile`), so `pc` stays inside `ops`.
            debug_assert!(pc < ops.len());
            let ins = unsafe { ops.get_unchecked(pc) };
            pc += 1;
            steps += ins.steps as u64;
            match ins.op {
                Q::Nop => {}
                Q::Move { dst, src } => {
                    let v = get!(src).dup();
                    V::put(reg!(dst), v);
                }
                Q::Checked { dst, src } => {
                    let v = reg!(src).dup();
                    if let V::Unassigned = v {
                        bail!();
                    }
                    V::put(reg!(dst), v);
                }
                Q::SetSlot { slot, src, none_to } => {
                    let v = get!(src).dup();
                    V::put(reg!(slot), v);
                    if let Some(r) = none_to {
                        V::put(reg!(r), V::none());
                    }
                }
                Q::Unassign { slot } => V::put(reg!(slot), V::Unassigned),
                Q::SetGlobal { g, src, none_to } => {
                    let v = get!(src).dup();
                    if !set_global(globals, log, g, v) {
                        bail!();
                    }
                    V::put(reg!(none_to), V::none());
                }
                Q::SetEnv { depth: up, slot, src, none_to } => {
                    let v = get!(src).dup();
                    if !set_env(clo, log, up, slot, v) {
                        bail!();
                    }
                    V::put(reg!(none_to), V::none());
                }
                Q::RequireOne { reg } => {
                    if let V::Multi(_) = reg!(reg) {
                        bail!();
                    }
                }
                Q::Values { dst, n } => {
                    let vals: Vec<V> = (0..n).map(|i| reg!(dst + i).dup()).collect();
                    V::put(reg!(dst), V::Multi(Rc::new(vals)));
                }
                Q::Jump { to } => jump!(to),
                Q::JumpIfFalse { test, to } => {
                    if let V::Bool(false) = get!(test) {
                        jump!(to);
                    }
                }
                Q::Add { dst, a, b, prim } => {
                    site = ins.site;
                    arith!(dst, a, b, prim, checked_add)
                }
                Q::Sub { dst, a, b, prim } => {
                    site = ins.site;
                    arith!(dst, a, b, prim, checked_sub)
                }
                Q::Mul { dst, a, b, prim } => {
                    site = ins.site;
                    arith!(dst, a, b, prim, checked_mul)
                }
                Q::Compare { cmp, dst, a, b, prim } => {
                    site = ins.site;
                    let r = compare!(cmp, a, b, prim);
                    V::put_bool(reg!(dst), r);
                }
                Q::BrLt { negate, a, b, prim, to } => {
                    site = ins.site;
                    if compare!(Cmp::Lt, a, b, prim) == negate {
                        jump!(to);
                    }
                }
                Q::BrGt { negate, a, b, prim, to } => {
                    site = ins.site;
                    if compare!(Cmp::Gt, a, b, prim) == negate {
                        jump!(to);
                    }
                }
                Q::BrLe { negate, a, b, prim, to } => {
                    site = ins.site;
                    if compare!(Cmp::Le, a, b, prim) == negate {
                        jump!(to);
                    }
                }
                Q::BrGe { negate, a, b, prim, to } => {
                    site = ins.site;
                    if compare!(Cmp::Ge, a, b, prim) == negate {
                        jump!(to);
                    }
                }
                Q::BrEq { negate, a, b, prim, to } => {
                    site = ins.site;
                    if compare!(Cmp::Eq, a, b, prim) == negate {
                        jump!(to);
                    }
                }
                Q::TestBranch { pair, a, to } => {
                    site = ins.site;
                    let v = get!(a);
                    let r = if pair { matches!(v, V::Pair(_)) } else { v.is_nil() };
                    if !r {
                        jump!(to);
                    }
                }
                Q::Cons { dst, a, b } => {
                    site = ins.site;
                    let v = V::cons(get!(a).dup(), get!(b).dup());
                    V::put(reg!(dst), v);
                }
                Q::Eqv { dst, a, b } => {
                    site = ins.site;
                    let r = eqv(get!(a), get!(b));
                    V::put_bool(reg!(dst), r);
                }
                Q::Car { dst, a, prim } => {
                    site = ins.site;
                    match get!(a) {
                        V::Pair(p) => {
                            let v = p.car.dup();
                            V::put(reg!(dst), v);
                        }
                        x => {
                            let args = [x.dup()];
                            let v = prim!(prim, &args);
                            V::put(reg!(dst), v);
                        }
                    }
                }
                Q::Cdr { dst, a, prim } => {
                    site = ins.site;
                    match get!(a) {
                        V::Pair(p) => {
                            let v = p.cdr.dup();
                            V::put(reg!(dst), v);
                        }
                        x => {
                            let args = [x.dup()];
                            let v = prim!(prim, &args);
                            V::put(reg!(dst), v);
                        }
                    }
                }
                Q::NullPJ { dst, a, to } => {
                    site = ins.site;
                    let r = get!(a).is_nil();
                    V::put_bool(reg!(dst), r);
                    if !r {
                        jump!(to);
                    }
                }
                Q::PairPJ { dst, a, to } => {
                    site = ins.site;
                    let r = matches!(get!(a), V::Pair(_));
                    V::put_bool(reg!(dst), r);
                    if !r {
                        jump!(to);
                    }
                }
                Q::NullP { dst, a } => {
                    site = ins.site;
                    let r = get!(a).is_nil();
                    V::put_bool(reg!(dst), r);
                }
                Q::PairP { dst, a } => {
                    site = ins.site;
                    let r = matches!(get!(a), V::Pair(_));
                    V::put_bool(reg!(dst), r);
                }
                Q::Not { dst, a } => {
                    site = ins.site;
                    let r = matches!(get!(a), V::Bool(false));
                    V::put_bool(reg!(dst), r);
                }
                Q::ZeroP { dst, a, prim } => {
                    site = ins.site;
                    match get!(a) {
                        V::Int(i) => {
                            let r = *i == 0;
                            V::put_bool(reg!(dst), r);
                        }
                        x => {
                            let args = [x.dup()];
                            let v = prim!(prim, &args);
                            V::put(reg!(dst), v);
                        }
                    }
                }
                Q::Ret { v } => ret!(get!(v).dup()),
                Q::Call { f, at, moves, nmoves, stay, argc, tail, require_one } => {
                    site = ins.site;
                    if steps > budget {
                        bail!();
                    }
                    let argc = argc as usize;
                    // What the call found, in plain locals (an enum carrying the kept closure
                    // went through a stack temporary and stalled store forwarding on every call).
                    // `prim` is the primitive's index, or usize::MAX for a closure.
                    let (kcode, kclo, prim): (*const Code, *const Closure, usize) = match get!(f) {
                        // A procedure calling itself (the commonest call): its quick form is
                        // the one running.
                        V::Closure(k) if Rc::as_ptr(k) == clo && q.arity as usize == argc => (code, clo, usize::MAX),
                        V::Closure(k) => match &k.code.quick {
                            Some(kq) if kq.arity as usize == argc => (&*k.code as *const Code, Rc::as_ptr(k), usize::MAX),
                            _ => bail!(),
                        },
                        V::Prim(i) => (code, clo, *i as usize),
                        _ => bail!(),
                    };
                    let mv = unsafe { q.moves.get_unchecked(moves as usize..moves as usize + nmoves as usize) };
                    match prim {
                        usize::MAX => {
                            // Tail call of another closure: it is kept in the frame's slot 0 (the
                            // old frame and whatever held the procedure there are about to be
                            // reused). SAFETY: `kclo` came from a live `Rc` just read.
                            let keep = if tail && kclo != clo {
                                Some(V::Closure(unsafe {
                                    Rc::increment_strong_count(kclo);
                                    Rc::from_raw(kclo)
                                }))
                            } else {
                                None
                            };
                            let kq = unsafe { &*kcode }.quick.as_ref().expect("checked");
                            // Room for the callee's frame, which starts at register `at`.
                            let top = base + at as usize + kq.nregs as usize;
                            let grown = regs.len() < top;
                            if grown {
                                // The operands were all read before anything moved: arguments
                                // are copied first into a scratch list.
                                let mut moved: Vec<(u32, V)> = Vec::with_capacity(mv.len());
                                for m in mv {
                                    moved.push((m.to, get!(m.src).dup()));
                                }
                                regs.resize(top, V::Nil);
                                fp = unsafe { regs.as_mut_ptr().add(base) };
                                for (to, v) in moved {
                                    V::put(reg!(to), v);
                                }
                            } else {
                                for m in mv {
                                    let v = get!(m.src).dup();
                                    V::put(reg!(m.to), v);
                                }
                            }
                            let new_base = if tail {
                                for i in 1..=argc {
                                    if i <= 32 && stay & 1 << (i - 1) != 0 {
                                        continue;
                                    }
                                    unsafe { std::ptr::swap(fp.add(i), fp.add(at as usize + i)) };
                                }
                                if let Some(k) = keep {
                                    V::put(reg!(0), k);
                                }
                                base
                            } else {
                                // Non-tail: whatever held the procedure (a caller register, a
                                // constant, a global, an environment) is left alone while the
                                // callee runs.
                                if depth >= CALL_DEPTH_LIMIT {
                                    bail!();
                                }
                                depth += 1;
                                if depth > max_depth {
                                    max_depth = depth;
                                }
                                frames.push(Frame { code, clo, pc: pc as u32, base: base as u32, require_one });
                                base + at as usize
                            };
                            base = new_base;
                            fp = unsafe { regs.as_mut_ptr().add(base) };
                            // The machine's frame starts its slots past the arguments empty: those a path could
                            // read before writing are cleared (`QCode::clear`).
                            for &r in &kq.clear {
                                V::put(reg!(r), V::Nil);
                            }
                            pc = 0;
                            if kcode == code {
                                // Same code object: the frame pointer was all that moved.
                                continue;
                            }
                            code = kcode;
                            clo = kclo;
                            break;
                        }
                        i => {
                            let p = &vm.prims[i];
                            if !p.pure || argc < p.min || argc > p.max {
                                bail!();
                            }
                            let func = p.f;
                            // The operand registers of the call always fit the frame.
                            for m in mv {
                                let v = get!(m.src).dup();
                                V::put(reg!(m.to), v);
                            }
                            // A tail call left the parameters it passes on in their slots (for a
                            // closure's new frame); a primitive reads its arguments in a row.
                            let mut left = stay;
                            while left != 0 {
                                let i = left.trailing_zeros() as usize;
                                left &= left - 1;
                                let v = reg!(i + 1).dup();
                                V::put(reg!(at as usize + 1 + i), v);
                            }
                            let from = at as usize + 1;
                            let value = match func(vm, unsafe { std::slice::from_raw_parts(fp.add(from), argc) }) {
                                Ok(v) => v,
                                Err(_) => bail!(),
                            };
                            if !tail {
                                if require_one && matches!(value, V::Multi(_)) {
                                    bail!();
                                }
                                V::put(reg!(at), value);
                                continue;
                            }
                            // A primitive in tail position: its value is delivered to the
                            // caller (one more transition on the machine), as a return.
                            steps += 1;
                            ret!(value)
                        }
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn compare(cmp: Cmp, x: i64, y: i64) -> bool {
    match cmp {
        Cmp::Lt => x < y,
        Cmp::Gt => x > y,
        Cmp::Le => x <= y,
        Cmp::Ge => x >= y,
        Cmp::Eq => x == y,
    }
}

/// The environment `up` parents above the running closure's own.
#[inline(always)]
fn ancestor<'a>(clo: *const Closure, up: u32) -> Option<&'a Rc<Env>> {
    // SAFETY: `clo` is the running closure (see `exec`), alive for the attempt.
    let mut env = &unsafe { &*clo }.env;
    for _ in 0..up {
        env = env.parent.as_ref()?;
    }
    Some(env)
}

/// A read of an environment slot; unassigned gives up (only a letrec being initialized has one,
/// and the machine handles that).
#[inline(always)]
fn env_slot<'a>(env: &Rc<Env>, slot: u32) -> Option<&'a V> {
    // SAFETY: the only store to an environment during an attempt is `Q::SetEnv`, which borrows
    // the slots mutably only after its operand was copied out, and no instruction keeps a slot
    // reference past itself; the environment outlives this read (the running closure holds it).
    let slots: &'a Slots = unsafe { &*env.slots.as_ptr() };
    slots.get(slot as usize).filter(|v| !matches!(v, V::Unassigned))
}

/// A read of a slot `up` parents above the running closure's environment.
#[cold]
#[inline(never)]
fn outer_env_slot<'a>(clo: *const Closure, up: u32, slot: u32) -> Option<&'a V> {
    ancestor(clo, up).and_then(|env| env_slot(env, slot))
}

/// SET_GLOBAL: false when the machine would fault (unbound) or the log is full. Out of line:
/// the hot loop keeps only the reads.
#[inline(never)]
fn set_global(globals: &mut [V], log: &mut StoreLog, g: u32, v: V) -> bool {
    match globals.get_mut(g as usize) {
        // set! of an unbound variable faults on the machine.
        None | Some(V::Unassigned) => false,
        Some(cell) => {
            let old = std::mem::replace(cell, v);
            log.global(g, old)
        }
    }
}

/// SET_LEXICAL `up` parents above the running closure's environment.
#[inline(never)]
fn set_env(clo: *const Closure, log: &mut StoreLog, up: u32, slot: u32, v: V) -> bool {
    let env = match ancestor(clo, up) {
        Some(env) => env,
        None => return false,
    };
    let old = match env.slots.borrow_mut().get_mut(slot as usize) {
        Some(cell) => std::mem::replace(cell, v),
        None => return false,
    };
    log.env(env, slot, old)
}

/// A pure primitive (the constant `k`) on `args`, None when it faults or may not run here.
#[cold]
#[inline(never)]
fn call_prim(vm: &mut Vm, k: &V, args: &[V]) -> Option<V> {
    let f = match k {
        V::Prim(i) if vm.prims[*i as usize].pure => vm.prims[*i as usize].f,
        _ => return None,
    };
    f(vm, args).ok()
}



