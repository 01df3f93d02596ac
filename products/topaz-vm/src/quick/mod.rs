//! The quick tier: a register-form interpreter for the machine's commonest calls.
//!
//! At load time every procedure whose frame lives on the stack (`Code::stack_frame`) and whose
//! body uses only effect-free instructions is translated from its stack bytecode into a register
//! form (`compile`): the operand stack's entries become fixed registers of the frame, and a
//! stack entry that merely copies a parameter, a constant, a global, an environment slot or the
//! car/cdr of a parameter is not copied at all — the instruction that consumes it reads the
//! source directly. `fib` runs 7 register instructions per call instead of 17 stack
//! instructions.
//!
//! The machine tries the quick form on a non-tail call (`run::attempt`), like the fresh AOT's
//! compiled fast path (`code::FastFn`), and with the same contract: the attempt has no effect
//! that outlives giving up — no output, only primitives that neither print, warn, mutate nor call
//! back into the machine (`prims::has_effect`), and its stores to globals and captured variables
//! logged and undone — so giving up (`None`) leaves the machine as it was and the call then runs
//! on the machine from its start, while a
//! value comes with exactly the account the machine would have kept (`vm::Fx`: transitions of
//! every instruction the stack bytecode would have executed, the call depth high-water mark, the
//! last site). Anything unusual gives up: a fault of any kind (the machine then raises it where
//! it belongs), a callee without a quick form, a multiple value where one is required, the
//! meter's budget or the call depth limit reached.
//!
//! Calls inside the tier keep their frames on the tier's own register stack (no Rust recursion),
//! a callee's frame starting at the caller's register that holds the procedure, so the arguments
//! are already in place — the machine's stack-frame layout, in registers.

pub mod compile;
pub mod run;

/// Where an instruction reads a value: a register of the current frame (a parameter, a local or
/// an operand-stack entry), a constant of the code object, a global, or a slot of the closure's
/// environment chain (`depth` parents up). An unbound global or an unassigned environment slot
/// gives up (the machine faults on the first, and the second only appears in a letrec being
/// initialized, which the machine handles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opnd {
    Reg(u32),
    Const(u32),
    Global(u32),
    Env { depth: u16, slot: u16 },
}

/// An operand as instructions carry it, packed in one word so that the common cases decode
/// without an indirect jump. The low two bits say what it is, bit 2 is a flag, the bits from 4
/// up give its index — so the word with its low four bits cleared is the index's byte offset in
/// an array of values: 0 — a register of the frame; 1 — a constant (both read through one
/// pointer picked by bit 0); 2 — the car (bit 2 clear) or cdr (bit 2 set) of the pair in a frame
/// register (a CAR/CDR whose site the consuming instruction's own supersedes; not a pair gives
/// up); 3 — entry `index` of `QCode::others` (a global or an environment slot).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct O(pub u32);

const _: () = assert!(std::mem::size_of::<crate::value::V>() == 16);

impl O {
    pub const fn reg(r: u32) -> O {
        O(r << 4)
    }
    pub const fn konst(k: u32) -> O {
        O(k << 4 | 1)
    }
    pub const fn field(r: u32, cdr: bool) -> O {
        O(r << 4 | (cdr as u32) << 2 | 2)
    }
    pub const fn other(i: u32) -> O {
        O(i << 4 | 3)
    }
    #[inline(always)]
    pub fn index(self) -> usize {
        (self.0 >> 4) as usize
    }
    /// The index as a byte offset into an array of values (16 bytes each).
    #[inline(always)]
    pub fn byte_offset(self) -> usize {
        (self.0 & !15) as usize
    }
    #[inline(always)]
    pub fn kind(self) -> u32 {
        self.0 & 3
    }
    #[inline(always)]
    pub fn is_cdr(self) -> bool {
        self.0 & 4 != 0
    }
}

impl std::fmt::Debug for O {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind() {
            0 => write!(f, "r{}", self.index()),
            1 => write!(f, "k{}", self.index()),
            2 => write!(f, "{}(r{})", if self.is_cdr() { "cdr" } else { "car" }, self.index()),
            _ => write!(f, "other{}", self.index()),
        }
    }
}

/// Comparison of a fixnum compare-and-branch (the primitive decides for other numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
}

/// One-argument operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Un {
    Car,
    Cdr,
    NullP,
    PairP,
    Not,
    ZeroP,
}

/// Register instructions. `dst`/`slot`/`at` are registers of the current frame; `prim` is the
/// constant index of the primitive the machine would call when the inline case does not apply.
#[derive(Clone, Copy, Debug)]
pub enum Q {
    /// Charges the transitions of instructions that left nothing else to do (a POP, a copy
    /// dropped unread) where a jump target follows.
    Nop,
    Move { dst: u32, src: O },
    /// LOCAL_CHECKED on the frame: a letrec slot read before initialization gives up.
    Checked { dst: u32, src: u32 },
    /// SINIT / SSET: store into a frame slot; SSET also leaves the unspecified value at `none_to`.
    SetSlot { slot: u32, src: O, none_to: Option<u32> },
    Unassign { slot: u32 },
    /// SET_GLOBAL / SET_LEXICAL: a store outside the frame, logged so that giving up restores
    /// the old value; the unspecified value lands at `none_to`.
    SetGlobal { g: u32, src: O, none_to: u32 },
    SetEnv { depth: u32, slot: u32, src: O, none_to: u32 },
    RequireOne { reg: u32 },
    Values { dst: u32, n: u32 },
    Jump { to: u32 },
    JumpIfFalse { test: O, to: u32 },
    /// Call the procedure `f` with `argc` arguments in registers `at + 1 ..`; its frame starts
    /// at register `at`, where its value lands. The arguments not already in their registers
    /// are put there first: `nmoves` entries of `QCode::moves` from `moves`. `require_one`: the
    /// caller's REQUIRE_ONE that follows is folded in.
    /// `stay` (tail calls): bit i set when argument i is the parameter already in slot i + 1.
    Call { f: O, at: u32, moves: u32, nmoves: u32, stay: u32, argc: u32, tail: bool, require_one: bool },
    Ret { v: O },
    Add { dst: u32, a: O, b: O, prim: u32 },
    Sub { dst: u32, a: O, b: O, prim: u32 },
    Mul { dst: u32, a: O, b: O, prim: u32 },
    Compare { cmp: Cmp, dst: u32, a: O, b: O, prim: u32 },
    /// Compare and branch, one variant per comparison (so dispatch is one jump): falls through
    /// when the comparison holds (`!negate`) and jumps to `to` otherwise.
    BrLt { negate: bool, a: O, b: O, prim: u32, to: u32 },
    BrGt { negate: bool, a: O, b: O, prim: u32, to: u32 },
    BrLe { negate: bool, a: O, b: O, prim: u32, to: u32 },
    BrGe { negate: bool, a: O, b: O, prim: u32, to: u32 },
    BrEq { negate: bool, a: O, b: O, prim: u32, to: u32 },
    /// JNULLP / JPAIRP: falls through when the test holds.
    TestBranch { pair: bool, a: O, to: u32 },
    Cons { dst: u32, a: O, b: O },
    Eqv { dst: u32, a: O, b: O },
    /// One-argument operations, one variant each.
    Car { dst: u32, a: O, prim: u32 },
    Cdr { dst: u32, a: O, prim: u32 },
    NullP { dst: u32, a: O },
    PairP { dst: u32, a: O },
    /// NULLP / PAIRP whose value is kept and then tested by JUMP_IF_FALSE (an `or`): jumps to
    /// `to` when false.
    NullPJ { dst: u32, a: O, to: u32 },
    PairPJ { dst: u32, a: O, to: u32 },
    Not { dst: u32, a: O },
    ZeroP { dst: u32, a: O, prim: u32 },
}

impl Q {
    pub fn branch(cmp: Cmp, negate: bool, a: O, b: O, prim: u32, to: u32) -> Q {
        match cmp {
            Cmp::Lt => Q::BrLt { negate, a, b, prim, to },
            Cmp::Gt => Q::BrGt { negate, a, b, prim, to },
            Cmp::Le => Q::BrLe { negate, a, b, prim, to },
            Cmp::Ge => Q::BrGe { negate, a, b, prim, to },
            Cmp::Eq => Q::BrEq { negate, a, b, prim, to },
        }
    }
    pub fn unary(un: Un, dst: u32, a: O, prim: u32) -> Q {
        match un {
            Un::Car => Q::Car { dst, a, prim },
            Un::Cdr => Q::Cdr { dst, a, prim },
            Un::NullP => Q::NullP { dst, a },
            Un::PairP => Q::PairP { dst, a },
            Un::Not => Q::Not { dst, a },
            Un::ZeroP => Q::ZeroP { dst, a, prim },
        }
    }
}

/// One register instruction with the machine transitions it stands for (its own stack
/// instructions plus operand copies folded into it) and, for the site-setting ones, the site the
/// machine would record (`code index << 20 | pc`, as `vm::Fx::site`).
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
pub struct Ins {
    pub op: Q,
    pub steps: u32,
    pub site: u32,
}

/// One argument of a call not computed in place: `src` goes to register `to`.
#[derive(Clone, Copy, Debug)]
pub struct ArgMove {
    pub to: u32,
    pub src: O,
}

/// The quick form of one code object.
#[derive(Debug)]
pub struct QCode {
    /// Arguments it takes (a procedure with a rest list has no quick form).
    pub arity: u32,
    /// Frame slots (the machine's `frame`, at least 1: slot 0 holds the procedure).
    pub frame: u32,
    /// Registers a frame needs: the slots plus the deepest operand stack.
    pub nregs: u32,
    /// Slots past the parameters a path may read before writing: cleared on entry (the
    /// machine's frame starts them as the empty list; the others are always written first).
    pub clear: Vec<u32>,
    pub ops: Vec<Ins>,
    /// Argument moves of the calls (`Q::Call::moves`).
    pub moves: Vec<ArgMove>,
    /// The globals and environment slots operands name (`O::other`).
    pub others: Vec<Opnd>,
}
