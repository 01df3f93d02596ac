//! Stack bytecode → quick register form, at load time.
//!
//! Pass 1 follows every path through a code object to find the operand-stack depth before each
//! reachable instruction (paths that meet must agree) and the jump targets, and rejects the code
//! object if any instruction is outside the tier (see `quick`). Pass 2 walks the reachable
//! instructions in order with a symbolic stack: an entry is either materialized in its register
//! (`frame + depth`) or pending — a copy of a frame slot, a constant or a global not yet made,
//! which the consuming instruction reads from its source. Pending entries are materialized at a
//! jump target (paths arriving by a jump expect registers), before a branch, before a store to a
//! frame slot (a pending copy of that slot must see the old value) and when a rare instruction
//! needs plain registers. A pending copy's transition is carried into the next emitted
//! instruction, which every path through the copy executes (nothing leaves a straight-line run
//! of instructions without emitting one).

use super::{ArgMove, Cmp, Ins, Opnd, QCode, Un, O, Q};
use crate::code::op;
use crate::value::V;
use std::collections::{HashMap, HashSet};

/// What the compiler needs of one code object.
pub struct Input<'a> {
    /// The lowered instruction stream (`code::lower`), before fusion and padding.
    pub ins: &'a [i32],
    pub stack_frame: bool,
    pub required: usize,
    pub rest: bool,
    pub frame: usize,
    pub consts: &'a [V],
}

/// Quick forms for a whole program: `pure[i]` says whether primitive `i` may run inside the tier,
/// `forms` are the top-level form code indexes. A code object also stays on the machine when it
/// reads a global that the program defines once as a procedure without a quick form (its calls
/// would give up every time).
pub fn compile_program(inputs: &[Input], pure: &[bool], forms: &[usize]) -> Vec<Option<QCode>> {
    let mut out: Vec<Option<QCode>> = Vec::with_capacity(inputs.len());
    let mut reads: Vec<Vec<usize>> = Vec::with_capacity(inputs.len());
    let program = Program::scan(inputs, forms);
    for (k, c) in inputs.iter().enumerate() {
        let mut r = Vec::new();
        out.push(compile(k, c, pure, &program, &mut r));
        reads.push(r);
    }
    let procs = &program.procs;
    loop {
        let mut changed = false;
        for k in 0..out.len() {
            if out[k].is_some() && reads[k].iter().any(|g| matches!(procs.get(g), Some(&p) if out[p].is_none())) {
                out[k] = None;
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
}

/// Words of a lowered instruction (opcode included).
fn width(o: i32) -> Option<usize> {
    Some(match o {
        op::SLOCAL | op::SINIT | op::SUNASSIGN => 2,
        op::SLOCAL3 | op::SLOCAL_CHECKED | op::SSET => 3,
        op::SLOCAL_CHECKED4 => 4,
        _ => 1 + op::operands(o)?,
    })
}

fn int(v: Option<&V>) -> Option<usize> {
    match v {
        Some(V::Int(i)) if *i >= 0 => Some(*i as usize),
        _ => None,
    }
}

/// What the whole program says about its globals and captured variables, from one scan of every
/// code object: `procs`, the globals defined exactly once, by `CLOSURE k; DEFINE_GLOBAL g` in a
/// top-level form and never assigned (global → code object of its procedure); `stored_globals`,
/// those some `SET_GLOBAL` assigns; `env_stores`, whether any code assigns a captured variable
/// (`SET_LEXICAL`). A pending read of a global or environment slot nothing stores to can wait
/// across a call — no callee can change it.
struct Program {
    procs: HashMap<usize, usize>,
    stored_globals: HashSet<usize>,
    env_stores: bool,
}

impl Program {
    fn scan(inputs: &[Input], forms: &[usize]) -> Program {
        let mut seen: HashMap<usize, Option<usize>> = HashMap::new();
        let mut stored_globals = HashSet::new();
        let mut env_stores = false;
        for (i, c) in inputs.iter().enumerate() {
            let mut pc = 0;
            let mut prev: Option<usize> = None;
            while pc < c.ins.len() {
                let o = c.ins[pc];
                let w = match width(o) {
                    Some(w) => w,
                    None => break,
                };
                let a1 = c.ins.get(pc + 1).copied().unwrap_or(-1);
                let operand = || usize::try_from(a1).ok().and_then(|a| int(c.consts.get(a)));
                if o == op::DEFINE_GLOBAL || o == op::SET_GLOBAL {
                    if let Some(g) = operand() {
                        if o == op::SET_GLOBAL {
                            stored_globals.insert(g);
                        }
                        let k = if o == op::DEFINE_GLOBAL && forms.contains(&i) { prev } else { None };
                        let entry = seen.entry(g).or_insert(k);
                        if *entry != k {
                            *entry = None;
                        }
                    }
                }
                env_stores |= o == op::SET_LEXICAL;
                prev = if o == op::CLOSURE { operand() } else { None };
                pc += w;
            }
        }
        let procs = seen.into_iter().filter_map(|(g, k)| k.map(|k| (g, k))).collect();
        Program { procs, stored_globals, env_stores }
    }
}

/// Where control can go after instruction `o`: the position it may jump to (unchecked) and
/// whether it may fall through to the next instruction.
fn successors(o: i32, a1: i32, a2: i32) -> (Option<i32>, bool) {
    match o {
        op::JUMP => (Some(a1), false),
        op::JUMP_IF_FALSE => (Some(a1), true),
        op::JLT | op::JGT | op::JLE | op::JGE | op::JNUM_EQ | op::JNULLP | op::JPAIRP => (Some(a2), true),
        op::RETURN | op::TAIL_CALL => (None, false),
        _ => (None, true),
    }
}

/// Stack effect (pops, pushes) of an instruction inside the tier, or None when it is outside.
fn effect(o: i32, a1: i32) -> Option<(usize, usize)> {
    Some(match o {
        op::CONST | op::PRIMITIVE | op::SLOCAL | op::SLOCAL3 | op::SLOCAL_CHECKED | op::SLOCAL_CHECKED4 | op::LOCAL | op::LEXICAL | op::LEXICAL_CHECKED | op::GLOBAL => (0, 1),
        op::SSET | op::SET_GLOBAL | op::SET_LEXICAL => (1, 1),
        op::SINIT | op::POP | op::JUMP_IF_FALSE | op::JNULLP | op::JPAIRP | op::RETURN => (1, 0),
        op::SUNASSIGN | op::REQUIRE_ONE | op::JUMP => (0, 0),
        op::VALUES => (usize::try_from(a1).ok()?, 1),
        op::CALL => (usize::try_from(a1).ok()? + 1, 1),
        op::TAIL_CALL => (usize::try_from(a1).ok()? + 1, 0),
        op::ADD | op::SUB | op::MUL | op::LT | op::GT | op::LE | op::GE | op::NUM_EQ | op::CONS | op::EQ => (2, 1),
        op::CAR | op::CDR | op::NULLP | op::PAIRP | op::NOT | op::ZEROP => (1, 1),
        op::JLT | op::JGT | op::JLE | op::JGE | op::JNUM_EQ => (2, 0),
        _ => return None,
    })
}

fn cmp_of(o: i32) -> Option<Cmp> {
    Some(match o {
        op::LT | op::JLT => Cmp::Lt,
        op::GT | op::JGT => Cmp::Gt,
        op::LE | op::JLE => Cmp::Le,
        op::GE | op::JGE => Cmp::Ge,
        op::NUM_EQ | op::JNUM_EQ => Cmp::Eq,
        _ => return None,
    })
}

#[derive(Clone, Copy)]
enum Ent {
    Mat,
    Pend(Opnd),
    /// CAR/CDR (at `pc`, primitive constant `prim`) of the pair in frame slot `slot`, not yet
    /// made: a site-setting consumer reads it in place (`O::field`; its own site supersedes the
    /// CAR's), anything else first makes it (`Emitter::make_field`). `since`: site-setting
    /// instructions emitted before it.
    Field { slot: u32, cdr: bool, pc: usize, prim: u32, since: u32 },
}

/// Site ids share `vm::Fx::site`'s encoding; code objects or positions beyond it stay off the tier.
const MAX_CODES: usize = 1 << 12;
const MAX_PC: usize = 1 << 20;

struct Emitter {
    frame: u32,
    st: Vec<Ent>,
    ops: Vec<Ins>,
    moves: Vec<ArgMove>,
    others: Vec<Opnd>,
    /// Index of each entry of `others` (a code object may name many globals).
    other_index: HashMap<Opnd, u32>,
    /// Transitions of pending copies and dropped entries not yet charged by an emitted instruction.
    carry: u32,
    /// Site-setting instructions emitted so far.
    site_ops: u32,
    site_base: u32,
}

impl Emitter {
    fn reg(&self, depth: usize) -> u32 {
        self.frame + depth as u32
    }
    fn emit(&mut self, op: Q, own: u32, site_pc: Option<usize>) {
        let steps = own + std::mem::take(&mut self.carry);
        let site = match site_pc {
            Some(pc) => {
                self.site_ops += 1;
                self.site_base | pc as u32
            }
            None => u32::MAX,
        };
        self.ops.push(Ins { op, steps, site });
    }
    fn push_pending(&mut self, o: Opnd) {
        self.carry += 1;
        self.st.push(Ent::Pend(o));
    }
    fn pack(&mut self, o: Opnd) -> O {
        match o {
            Opnd::Reg(r) => O::reg(r),
            Opnd::Const(k) => O::konst(k),
            other => {
                let next = self.others.len() as u32;
                let i = *self.other_index.entry(other).or_insert(next);
                if i == next {
                    self.others.push(other);
                }
                O::other(i)
            }
        }
    }
    /// Pop the top entry as an operand for an instruction that records no site.
    fn take(&mut self) -> O {
        let d = self.st.len() - 1;
        self.make_field(d);
        self.take_s()
    }
    /// Pop the top entry as an operand for a site-setting instruction (whose site supersedes a
    /// folded CAR/CDR's).
    fn take_s(&mut self) -> O {
        let d = self.st.len() - 1;
        match self.st.pop().expect("stack depth checked in pass 1") {
            Ent::Mat => O::reg(self.reg(d)),
            Ent::Pend(o) => self.pack(o),
            Ent::Field { slot, cdr, .. } => O::field(slot, cdr),
        }
    }
    /// Make a pending CAR/CDR at depth `d` in its register. Only the last site recorded before
    /// an attempt ends matters: if no site-setting instruction came after the CAR it is made by a
    /// Car/Cdr instruction with its site; otherwise by a copy of the field that records none.
    fn make_field(&mut self, d: usize) {
        if let Ent::Field { slot, cdr, pc, prim, since } = self.st[d] {
            let dst = self.reg(d);
            if since == self.site_ops {
                let un = if cdr { Un::Cdr } else { Un::Car };
                self.emit(Q::unary(un, dst, O::reg(slot), prim), 0, Some(pc));
            } else {
                self.emit(Q::Move { dst, src: O::field(slot, cdr) }, 0, None);
            }
            self.st[d] = Ent::Mat;
        }
    }
    /// Before a call: make the pending reads of globals and environment slots the program may
    /// store to (the callee could change what they would read).
    fn make_stored_reads(&mut self, program: &Program) {
        for d in 0..self.st.len() {
            let stored = match self.st[d] {
                Ent::Pend(Opnd::Global(g)) => program.stored_globals.contains(&(g as usize)),
                Ent::Pend(Opnd::Env { .. }) => program.env_stores,
                _ => false,
            };
            if stored {
                self.make(d);
            }
        }
    }
    /// Whether a pending entry can fault when made (the machine would have faulted where it
    /// pushed it): a global (unbound), an environment slot (unassigned), a CAR/CDR (not a pair).
    fn may_fault(e: &Ent) -> bool {
        matches!(e, Ent::Field { .. } | Ent::Pend(Opnd::Global(_)) | Ent::Pend(Opnd::Env { .. }))
    }
    /// Drop the top entry unread (POP): one that could fault is made first, so the fault is
    /// not skipped.
    fn drop_top(&mut self) {
        let d = self.st.len() - 1;
        if Self::may_fault(&self.st[d]) {
            self.make(d);
        }
        self.st.pop();
    }
    /// Drop every entry left under a return or a tail call, as `drop_top`.
    fn drop_all(&mut self) {
        while !self.st.is_empty() {
            self.drop_top();
        }
    }
    /// Make the last emitted instruction write `slot` instead of register `from`, when it is an
    /// instruction whose only effect is that write (SINIT of a value just computed).
    fn retarget(&mut self, from: u32, slot: u32) -> bool {
        let last = match self.ops.last_mut() {
            Some(i) => &mut i.op,
            None => return false,
        };
        let dst = match last {
            Q::Move { dst, .. } | Q::Checked { dst, .. } | Q::Add { dst, .. } | Q::Sub { dst, .. } | Q::Mul { dst, .. } | Q::Compare { dst, .. } | Q::Cons { dst, .. } | Q::Eqv { dst, .. } => dst,
            Q::Car { dst, .. } | Q::Cdr { dst, .. } | Q::NullP { dst, .. } | Q::PairP { dst, .. } | Q::Not { dst, .. } | Q::ZeroP { dst, .. } => dst,
            _ => return false,
        };
        if *dst != from {
            return false;
        }
        *dst = slot;
        true
    }
    /// Make the entry at depth `d` in its register, whatever is pending there.
    fn make(&mut self, d: usize) {
        match self.st[d] {
            Ent::Mat => {}
            Ent::Field { .. } => self.make_field(d),
            Ent::Pend(src) => {
                let dst = self.reg(d);
                let src = self.pack(src);
                self.emit(Q::Move { dst, src }, 0, None);
                self.st[d] = Ent::Mat;
            }
        }
    }
    fn flush(&mut self) {
        for d in 0..self.st.len() {
            self.make(d);
        }
    }
}

/// The frame slots past the parameters that some path may read before writing: the only ones a
/// call must clear (the machine gives every slot of a new frame the empty list). A must-analysis
/// over the reachable instructions (`depth[pc] >= 0`): the set of slots definitely written,
/// intersected where paths meet. Frames of more than 64 slots clear them all.
fn slots_to_clear(ins: &[i32], depth: &[i32], frame: usize, required: usize) -> Vec<u32> {
    let all: Vec<u32> = (required as u32 + 1..frame as u32).collect();
    if frame > 64 {
        return all;
    }
    let word = |pc: usize| -> i32 { ins.get(pc).copied().unwrap_or(-1) };
    let mut state: Vec<Option<u64>> = vec![None; ins.len()];
    let entry: u64 = (0..=required).fold(0, |m, s| m | 1 << s);
    let mut flagged: u64 = 0;
    let mut work = vec![(0usize, entry)];
    while let Some((pc, incoming)) = work.pop() {
        let s = match state[pc] {
            Some(old) if old & incoming == old => continue,
            Some(old) => old & incoming,
            None => incoming,
        };
        state[pc] = Some(s);
        let o = ins[pc];
        let (a1, a2) = (word(pc + 1), word(pc + 2));
        let mut out = s;
        match o {
            op::SLOCAL | op::SLOCAL_CHECKED => flagged |= !s & 1 << (a1 as u32 & 63),
            op::SLOCAL3 | op::SLOCAL_CHECKED4 => flagged |= !s & 1 << (a2 as u32 & 63),
            op::SINIT | op::SUNASSIGN => out |= 1 << (a1 as u32 & 63),
            op::SSET => out |= 1 << (a2 as u32 & 63),
            _ => {}
        }
        let mut go = |t: usize| {
            if t < ins.len() && depth[t] >= 0 {
                work.push((t, out));
            }
        };
        let (jump, falls) = successors(o, a1, a2);
        if let Some(t) = jump {
            go(t as usize);
        }
        if falls {
            go(pc + width(o).unwrap_or(1));
        }
    }
    all.into_iter().filter(|s| flagged & 1 << s != 0).collect()
}

/// The quick form of code object `k`, or None. `reads` receives the globals it reads.
fn compile(k: usize, c: &Input, pure: &[bool], program: &Program, reads: &mut Vec<usize>) -> Option<QCode> {
    if !c.stack_frame || c.rest || k >= MAX_CODES || c.ins.len() >= MAX_PC {
        return None;
    }
    let ins = c.ins;
    let n = ins.len();
    let frame = c.frame.max(1);
    let word = |pc: usize| -> i32 { ins.get(pc).copied().unwrap_or(-1) };
    let konst = |i: i32| -> Option<&V> { usize::try_from(i).ok().and_then(|i| c.consts.get(i)) };
    let target_ok = |t: i32| usize::try_from(t).ok().filter(|t| *t < n);

    // Pass 1: depths, jump targets, eligibility.
    let mut depth: Vec<i32> = vec![-1; n];
    let mut target = vec![false; n];
    let mut work: Vec<(usize, usize)> = vec![(0, 0)];
    let mut max_depth = 0usize;
    while let Some((pc, d)) = work.pop() {
        if pc >= n {
            return None;
        }
        if depth[pc] >= 0 {
            if depth[pc] as usize != d {
                return None;
            }
            continue;
        }
        depth[pc] = d as i32;
        let o = ins[pc];
        let w = width(o)?;
        if pc + w > n {
            return None;
        }
        let (a1, a2) = (word(pc + 1), word(pc + 2));
        let (pops, pushes) = effect(o, a1)?;
        if d < pops {
            return None;
        }
        let after = d - pops + pushes;
        max_depth = max_depth.max(after).max(d);
        // Operands inside the tier's reach.
        match o {
            op::SLOCAL | op::SINIT | op::SUNASSIGN | op::SLOCAL_CHECKED if !(1..frame as i32).contains(&a1) => return None,
            op::SLOCAL3 | op::SSET | op::SLOCAL_CHECKED4 if !(1..frame as i32).contains(&a2) => return None,
            op::CONST => {
                konst(a1)?;
            }
            op::PRIMITIVE => match konst(a1) {
                Some(V::Prim(i)) if pure.get(*i as usize) == Some(&true) => {}
                _ => return None,
            },
            op::GLOBAL => reads.push(int(konst(a1))?),
            op::SET_GLOBAL => {
                int(konst(a1))?;
            }
            op::SET_LEXICAL if !(0..=0xffff).contains(&a1) || !(0..=0xffff).contains(&a2) => return None,
            op::LOCAL if !(0..=0xffff).contains(&a1) => return None,
            op::LEXICAL | op::LEXICAL_CHECKED if !(0..=0xffff).contains(&a1) || !(0..=0xffff).contains(&a2) => return None,
            op::ADD | op::SUB | op::MUL | op::LT | op::GT | op::LE | op::GE | op::NUM_EQ | op::CAR | op::CDR | op::ZEROP | op::JLT | op::JGT | op::JLE | op::JGE | op::JNUM_EQ => match konst(a1) {
                Some(V::Prim(_)) => {}
                _ => return None,
            },
            _ => {}
        }
        let (jump, falls) = successors(o, a1, a2);
        if let Some(t) = jump {
            let t = target_ok(t)?;
            target[t] = true;
            work.push((t, after));
        }
        if falls {
            work.push((pc + w, after));
        }
    }

    // Pass 2: translation.
    let mut e = Emitter { frame: frame as u32, st: Vec::new(), ops: Vec::new(), moves: Vec::new(), others: Vec::new(), other_index: HashMap::new(), carry: 0, site_ops: 0, site_base: (k as u32) << 20 };
    let mut map: Vec<u32> = vec![u32::MAX; n];
    let mut jumps: Vec<usize> = Vec::new();
    let mut live = false;
    let mut pc = 0;
    while pc < n {
        if depth[pc] < 0 {
            pc += width(ins[pc]).unwrap_or(1);
            continue;
        }
        let d = depth[pc] as usize;
        if !live {
            // Reached only by jumps: registers hold the stack.
            e.st = vec![Ent::Mat; d];
            live = true;
        } else if target[pc] {
            e.flush();
            if e.carry > 0 {
                e.emit(Q::Nop, 0, None);
            }
        }
        debug_assert_eq!(e.st.len(), d);
        map[pc] = e.ops.len() as u32;
        let o = ins[pc];
        let w = width(o).expect("checked in pass 1");
        let (a1, a2) = (word(pc + 1), word(pc + 2));
        let u = |x: i32| x as u32;
        let mut next = pc + w;
        // Fusion with the following instruction is allowed only when no jump lands on it.
        let plain_next = |p: usize| p < n && !target[p] && depth[p] >= 0;
        match o {
            op::CONST | op::PRIMITIVE => e.push_pending(Opnd::Const(u(a1))),
            op::SLOCAL => e.push_pending(Opnd::Reg(u(a1))),
            op::SLOCAL3 => e.push_pending(Opnd::Reg(u(a2))),
            op::GLOBAL => e.push_pending(Opnd::Global(int(konst(a1)).expect("checked") as u32)),
            op::SLOCAL_CHECKED | op::SLOCAL_CHECKED4 => {
                let src = if o == op::SLOCAL_CHECKED { u(a1) } else { u(a2) };
                let dst = e.reg(d);
                e.emit(Q::Checked { dst, src }, 1, None);
                e.st.push(Ent::Mat);
            }
            op::LOCAL | op::LEXICAL | op::LEXICAL_CHECKED => {
                // Environments are only read inside the tier: a pending copy stays valid.
                let (depth_up, slot) = if o == op::LOCAL { (0, a1) } else { (a1, a2) };
                e.push_pending(Opnd::Env { depth: depth_up as u16, slot: slot as u16 });
            }
            op::SINIT if !target[pc] && matches!(e.st.last(), Some(Ent::Mat)) && e.st.iter().all(|x| matches!(x, Ent::Mat)) && e.retarget(e.reg(d - 1), u(a1)) => {
                // The value's producer was the instruction just emitted: it now writes the slot.
                e.st.pop();
                e.carry += 1;
            }
            op::SSET | op::SINIT => {
                let src = e.take();
                e.flush();
                let slot = if o == op::SSET { u(a2) } else { u(a1) };
                let none_to = if o == op::SSET { Some(e.reg(d - 1)) } else { None };
                e.emit(Q::SetSlot { slot, src, none_to }, 1, None);
                if o == op::SSET {
                    e.st.push(Ent::Mat);
                }
            }
            op::SET_GLOBAL | op::SET_LEXICAL => {
                // A store outside the frame (undone if the attempt gives up): pending reads are
                // made first, so they see the value before it.
                let src = e.take();
                e.flush();
                let none_to = e.reg(d - 1);
                let q = if o == op::SET_GLOBAL {
                    Q::SetGlobal { g: int(konst(a1)).expect("checked") as u32, src, none_to }
                } else {
                    Q::SetEnv { depth: u(a1), slot: u(a2), src, none_to }
                };
                e.emit(q, 1, None);
                e.st.push(Ent::Mat);
            }
            op::SUNASSIGN => {
                e.flush();
                e.emit(Q::Unassign { slot: u(a1) }, 1, None);
            }
            op::POP => {
                e.drop_top();
                e.carry += 1;
            }
            op::REQUIRE_ONE => {
                let folded = match e.ops.last_mut() {
                    Some(Ins { op: Q::Call { tail: false, require_one, at, .. }, .. }) if !target[pc] && *at == e.frame + d as u32 - 1 && matches!(e.st.last(), Some(Ent::Mat)) => {
                        *require_one = true;
                        true
                    }
                    _ => false,
                };
                if folded {
                    e.carry += 1;
                } else {
                    let src = e.take();
                    let reg = e.reg(d - 1);
                    if src != O::reg(reg) {
                        e.emit(Q::Move { dst: reg, src }, 0, None);
                    }
                    e.st.push(Ent::Mat);
                    e.emit(Q::RequireOne { reg }, 1, None);
                }
            }
            op::VALUES => {
                e.flush();
                let n = a1 as usize;
                let dst = e.reg(d - n);
                e.st.truncate(d - n);
                e.emit(Q::Values { dst, n: n as u32 }, 1, None);
                e.st.push(Ent::Mat);
            }
            op::JUMP => {
                e.flush();
                jumps.push(e.ops.len());
                e.emit(Q::Jump { to: u(a1) }, 1, None);
                live = false;
            }
            op::JUMP_IF_FALSE => {
                let test = e.take();
                let before = e.ops.len();
                e.flush();
                let to = u(a1);
                // `null?`/`pair?` whose value is kept (an `or`) and then tested: one instruction.
                let unmoved = e.ops.len() == before && !target[pc];
                let carry = e.carry;
                let fused = match e.ops.last_mut() {
                    Some(Ins { op, steps, .. }) if unmoved => match *op {
                        Q::NullP { dst, a } if test == O::reg(dst) => {
                            *op = Q::NullPJ { dst, a, to };
                            *steps += 1 + carry;
                            true
                        }
                        Q::PairP { dst, a } if test == O::reg(dst) => {
                            *op = Q::PairPJ { dst, a, to };
                            *steps += 1 + carry;
                            true
                        }
                        _ => false,
                    },
                    _ => false,
                };
                if fused {
                    e.carry = 0;
                    jumps.push(e.ops.len() - 1);
                } else {
                    jumps.push(e.ops.len());
                    e.emit(Q::JumpIfFalse { test, to }, 1, None);
                }
            }
            op::CALL | op::TAIL_CALL => {
                let argc = a1 as usize;
                let mut argv: Vec<O> = (0..argc).map(|_| e.take_s()).collect();
                argv.reverse();
                let f = e.take_s();
                // The callee may store to a global or an environment: reads of them still
                // pending below the call are made first.
                e.make_stored_reads(program);
                let at = e.reg(d - argc - 1);
                if o == op::TAIL_CALL {
                    e.drop_all();
                }
                // Arguments computed into their own registers need no move; neither does a
                // parameter a tail call passes on in the same position (the new frame reuses the
                // slot: `stay` marks it, so it is not swapped either).
                let tail = o == op::TAIL_CALL;
                let moves = e.moves.len() as u32;
                let mut stay: u32 = 0;
                for (i, src) in argv.into_iter().enumerate() {
                    let to = at + 1 + i as u32;
                    if tail && i < 32 && src == O::reg(i as u32 + 1) {
                        stay |= 1 << i;
                    } else if src != O::reg(to) {
                        e.moves.push(ArgMove { to, src });
                    }
                }
                let nmoves = e.moves.len() as u32 - moves;
                e.emit(Q::Call { f, at, moves, nmoves, stay, argc: argc as u32, tail, require_one: false }, 1, Some(pc));
                if tail {
                    live = false;
                } else {
                    e.st.push(Ent::Mat);
                }
            }
            op::RETURN => {
                let v = e.take();
                e.drop_all();
                e.emit(Q::Ret { v }, 1, None);
                live = false;
            }
            op::ADD | op::SUB | op::MUL | op::LT | op::GT | op::LE | op::GE | op::NUM_EQ | op::CONS | op::EQ => {
                let b = e.take_s();
                let a = e.take_s();
                let prim = u(a1);
                let dst = e.reg(d - 2);
                let cmp = cmp_of(o);
                let jif = |p: usize| plain_next(p) && ins[p] == op::JUMP_IF_FALSE;
                if let (Some(cmp), true) = (cmp, jif(pc + 2)) {
                    // CMP; JUMP_IF_FALSE t
                    e.flush();
                    jumps.push(e.ops.len());
                    e.emit(Q::branch(cmp, false, a, b, prim, u(word(pc + 3))), 2, Some(pc));
                    next = pc + 4;
                } else if let (Some(cmp), true, true) = (cmp, plain_next(pc + 2) && ins[pc + 2] == op::NOT, jif(pc + 4)) {
                    // CMP; NOT; JUMP_IF_FALSE t — the NOT's site is the last one recorded.
                    e.flush();
                    jumps.push(e.ops.len());
                    e.emit(Q::branch(cmp, true, a, b, prim, u(word(pc + 5))), 3, Some(pc + 2));
                    next = pc + 6;
                } else {
                    let q = match o {
                        op::ADD => Q::Add { dst, a, b, prim },
                        op::SUB => Q::Sub { dst, a, b, prim },
                        op::MUL => Q::Mul { dst, a, b, prim },
                        op::CONS => Q::Cons { dst, a, b },
                        op::EQ => Q::Eqv { dst, a, b },
                        _ => Q::Compare { cmp: cmp.expect("a comparison"), dst, a, b, prim },
                    };
                    e.emit(q, 1, Some(pc));
                    e.st.push(Ent::Mat);
                }
            }
            op::CAR | op::CDR if matches!(e.st.last(), Some(Ent::Pend(Opnd::Reg(_)))) => {
                // Of a frame slot: left for its consumer to read in place.
                let slot = match e.st.pop() {
                    Some(Ent::Pend(Opnd::Reg(r))) => r,
                    _ => unreachable!("matched above"),
                };
                e.carry += 1;
                let since = e.site_ops;
                e.st.push(Ent::Field { slot, cdr: o == op::CDR, pc, prim: u(a1), since });
            }
            op::CAR | op::CDR | op::NULLP | op::PAIRP | op::NOT | op::ZEROP => {
                let a = e.take_s();
                let un = match o {
                    op::CAR => Un::Car,
                    op::CDR => Un::Cdr,
                    op::NULLP => Un::NullP,
                    op::PAIRP => Un::PairP,
                    op::NOT => Un::Not,
                    _ => Un::ZeroP,
                };
                let dst = e.reg(d - 1);
                e.emit(Q::unary(un, dst, a, u(a1)), 1, Some(pc));
                e.st.push(Ent::Mat);
            }
            op::JLT | op::JGT | op::JLE | op::JGE | op::JNUM_EQ => {
                let b = e.take_s();
                let a = e.take_s();
                e.flush();
                jumps.push(e.ops.len());
                e.emit(Q::branch(cmp_of(o).expect("a comparison"), false, a, b, u(a1), u(a2)), 1, Some(pc));
            }
            op::JNULLP | op::JPAIRP => {
                let a = e.take_s();
                e.flush();
                jumps.push(e.ops.len());
                e.emit(Q::TestBranch { pair: o == op::JPAIRP, a, to: u(a2) }, 1, Some(pc));
            }
            _ => return None,
        }
        pc = next;
    }
    // Jump operands: instruction positions → register-instruction positions.
    for j in jumps {
        let to = match &mut e.ops[j].op {
            Q::Jump { to } | Q::JumpIfFalse { to, .. } | Q::NullPJ { to, .. } | Q::PairPJ { to, .. } | Q::BrLt { to, .. } | Q::BrGt { to, .. } | Q::BrLe { to, .. } | Q::BrGe { to, .. } | Q::BrEq { to, .. } | Q::TestBranch { to, .. } => to,
            _ => unreachable!("only jumps are listed"),
        };
        let mapped = map[*to as usize];
        if mapped == u32::MAX {
            return None;
        }
        *to = mapped;
    }
    let clear = slots_to_clear(ins, &depth, frame, c.required);
    Some(QCode { arity: c.required as u32, frame: frame as u32, clear, nregs: (frame + max_depth + 1) as u32, ops: e.ops, moves: e.moves, others: e.others })
}
