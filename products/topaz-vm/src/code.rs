//! Code objects of the bytecode derivation and the opcode numbers of the protocol
//! (docs/lispex/EXTERNAL-PRODUCTS.md, "Bytecode").

use crate::value::{Pos, V};

pub struct Code {
    pub name: Option<String>,
    pub required: usize,
    pub rest: bool,
    /// Environment size: slot 0 is reserved (the parent link lives in `Env::parent`).
    pub frame: usize,
    /// The instruction stream (lowered and fused at load) followed by `PADDING` zero words (so an instruction and its
    /// operands are read with one bounds check).
    pub ins: Vec<i32>,
    /// Constant pool. Global cells appear as `V::Int(global index)`, code objects as
    /// `V::Int(code index)` and letrec names as `V::Sym` (or `V::Unspec` for a hidden temporary);
    /// the opcode says which reading applies.
    pub consts: Vec<V>,
    pub spans: Vec<Option<Pos>>,
    /// The ahead-of-time compiled body, when this code object was compiled (topaz-aot): runs
    /// from the given pc until control switches to other code.
    pub native: Option<NativeFn>,
    /// The frame lives on the value stack (slot i at `stack[bp + i]`, slot 0 the procedure
    /// itself) instead of a heap environment: no closure can capture it (see `lower`).
    pub stack_frame: bool,
    /// The compiled fast path of this procedure (topaz-aot), tried on a non-tail call: see
    /// `FastFn`.
    pub fast: Option<FastFn>,
    /// The quick tier's register form of this procedure (`quick`), tried on a non-tail call.
    pub quick: Option<crate::quick::QCode>,
}

/// A procedure compiled to plain Rust over fixnums (topaz-aot's fast path): takes the call's
/// arguments and answers its value, or None when it cannot (an argument or result that is not
/// a fixnum, an overflow, the procedure in a global replaced, the meter or the call depth at its
/// limit). It only reads the machine and has no effect — no output, no allocation, no store —
/// so a None is rolled back by running the same call on the machine as if it had never been
/// tried, and a value is exactly what the machine would have computed, with `Fx` holding the
/// transitions, call depth and site the machine would have recorded on the way.
pub type FastFn = fn(&crate::vm::Vm, &mut crate::vm::Fx, &[V]) -> Option<V>;

pub type NativeFn = fn(&mut crate::vm::Vm, &std::rc::Rc<Code>, usize) -> crate::value::R<()>;

pub mod op {
    pub const CONST: i32 = 0;
    pub const LOCAL: i32 = 1;
    pub const LOCAL1: i32 = 2;
    pub const LEXICAL: i32 = 3;
    pub const LOCAL_CHECKED: i32 = 4;
    pub const LEXICAL_CHECKED: i32 = 5;
    pub const GLOBAL: i32 = 6;
    pub const PRIMITIVE: i32 = 7;
    pub const SET_LEXICAL: i32 = 8;
    pub const SET_GLOBAL: i32 = 9;
    pub const DEFINE_GLOBAL: i32 = 10;
    pub const INIT_LOCAL: i32 = 11;
    pub const UNASSIGN: i32 = 12;
    pub const CLOSURE: i32 = 13;
    pub const POP: i32 = 14;
    pub const REQUIRE_ONE: i32 = 15;
    pub const VALUES: i32 = 16;
    pub const JUMP: i32 = 17;
    pub const JUMP_IF_FALSE: i32 = 18;
    pub const CALL: i32 = 19;
    pub const TAIL_CALL: i32 = 20;
    pub const RETURN: i32 = 21;
    pub const GUARD_PUSH: i32 = 22;
    pub const GUARD_POP: i32 = 23;
    pub const ADD: i32 = 24;
    pub const SUB: i32 = 25;
    pub const MUL: i32 = 26;
    pub const LT: i32 = 27;
    pub const GT: i32 = 28;
    pub const LE: i32 = 29;
    pub const GE: i32 = 30;
    pub const NUM_EQ: i32 = 31;
    pub const CONS: i32 = 32;
    pub const EQ: i32 = 33;
    pub const CAR: i32 = 34;
    pub const CDR: i32 = 35;
    pub const NULLP: i32 = 36;
    pub const PAIRP: i32 = 37;
    pub const NOT: i32 = 38;
    pub const ZEROP: i32 = 39;
    pub const JLT: i32 = 40;
    pub const JGT: i32 = 41;
    pub const JLE: i32 = 42;
    pub const JGE: i32 = 43;
    pub const JNUM_EQ: i32 = 44;
    pub const JNULLP: i32 = 45;
    pub const JPAIRP: i32 = 46;

    // Internal opcodes (never accepted on the wire, `operands` rejects them): the frame-local
    // forms that `lower` substitutes in a stack-frame code object. Each has the length of the
    // wire instruction it replaces, so jump targets and spans stay valid.
    /// LOCAL on a stack frame: push `stack[bp + a1]`.
    pub const SLOCAL: i32 = 100;
    /// LEXICAL 0 s (three words): push `stack[bp + s]`.
    pub const SLOCAL3: i32 = 101;
    /// LOCAL_CHECKED s k on a stack frame.
    pub const SLOCAL_CHECKED: i32 = 102;
    /// LEXICAL_CHECKED 0 s k on a stack frame (four words).
    pub const SLOCAL_CHECKED4: i32 = 103;
    /// SET_LEXICAL 0 s on a stack frame.
    pub const SSET: i32 = 104;
    /// INIT_LOCAL on a stack frame.
    pub const SINIT: i32 = 105;
    /// UNASSIGN on a stack frame.
    pub const SUNASSIGN: i32 = 106;
    /// Superinstructions (`fuse`): the first word of `X a; Y b; OP p` where X is SLOCAL (+0) or
    /// CONST (+1), Y is SLOCAL or CONST, and OP is ADD/SUB (FUSED_ARITH) or a compare-branch
    /// JLT..JNUM_EQ (FUSED_JCC). The other words stay as they were.
    pub const FUSED_ARITH: i32 = 110;
    pub const FUSED_ARITH1: i32 = 111;
    pub const FUSED_JCC: i32 = 112;
    pub const FUSED_JCC1: i32 = 113;
    /// `SLOCAL a; RETURN`.
    pub const FUSED_SRET: i32 = 114;
    /// `SLOCAL a; CAR|CDR p`.
    pub const FUSED_SCXR: i32 = 115;
    /// `SLOCAL a; JNULLP|JPAIRP p t`.
    pub const FUSED_SJTEST: i32 = 116;
    /// `CMP p; JUMP_IF_FALSE t` for CMP = LT + k (k = 0..4: LT GT LE GE NUM_EQ): 117 + k.
    pub const FUSED_CMPJ: i32 = 117;
    /// `CMP p; NOT q; JUMP_IF_FALSE t`: 122 + k.
    pub const FUSED_CMPNJ: i32 = 122;
    pub const FUSED_CMPJ_LAST: i32 = FUSED_CMPJ + 4;
    pub const FUSED_CMPNJ_LAST: i32 = FUSED_CMPNJ + 4;

    /// Operand count per opcode.
    pub fn operands(o: i32) -> Option<usize> {
        Some(match o {
            POP | REQUIRE_ONE | RETURN | GUARD_POP => 0,
            LEXICAL | LOCAL_CHECKED | SET_LEXICAL => 2,
            LEXICAL_CHECKED => 3,
            JLT..=JPAIRP => 2,
            0..=39 => 1,
            _ => return None,
        })
    }
}

/// Escape analysis at load time. A code object's frame can live on the value stack when no
/// closure can capture it: it contains no CLOSURE instruction (so no inner code refers to its
/// slots through a parent link) and it is not a top-level form (those run on a fresh heap
/// environment). Continuations are escape-only and control entries keep the stack below them,
/// so nothing else outlives the frame. For such code the instructions that address the frame
/// are replaced by their stack-frame forms and every lexical depth drops by one: the machine's
/// environment register holds the closure's environment, the frame's parent.
/// Returns whether `ins` (a verified wire instruction stream) was lowered.
pub fn lower(ins: &mut [i32], is_form: bool) -> bool {
    use op::*;
    if is_form {
        return false;
    }
    let mut pc = 0;
    while pc < ins.len() {
        let o = ins[pc];
        // Unknown or truncated instructions: left as they are for the verifier to reject.
        let n = match operands(o) {
            Some(n) if o != CLOSURE && pc + n < ins.len() => n,
            _ => return false,
        };
        pc += 1 + n;
    }
    let mut pc = 0;
    while pc < ins.len() {
        let o = ins[pc];
        let n = operands(o).unwrap_or(0);
        match o {
            LOCAL => ins[pc] = SLOCAL,
            LOCAL1 => ins[pc] = LOCAL,
            LEXICAL => {
                if ins[pc + 1] == 0 {
                    ins[pc] = SLOCAL3;
                } else {
                    ins[pc + 1] -= 1;
                }
            }
            LOCAL_CHECKED => ins[pc] = SLOCAL_CHECKED,
            LEXICAL_CHECKED => {
                if ins[pc + 1] == 0 {
                    ins[pc] = SLOCAL_CHECKED4;
                } else {
                    ins[pc + 1] -= 1;
                }
            }
            SET_LEXICAL => {
                if ins[pc + 1] == 0 {
                    ins[pc] = SSET;
                } else {
                    ins[pc + 1] -= 1;
                }
            }
            INIT_LOCAL => ins[pc] = SINIT,
            UNASSIGN => ins[pc] = SUNASSIGN,
            _ => {}
        }
        pc += 1 + n;
    }
    true
}

/// Words of zero padding after the last instruction: a superinstruction reads up to 7 words.
pub const PADDING: usize = 8;

/// Superinstructions for the commonest shapes (operand, operand, fixnum operation or
/// compare-branch): the first word of the three is replaced, the rest kept, so a jump into the
/// middle still finds its instruction. The machine charges the three transitions at once and
/// falls back to the first instruction alone whenever the fused form does not apply (meter too
/// close to its limit, operands not fixnums, overflow), so counts and faults are unchanged.
pub fn fuse(ins: &mut [i32]) {
    use op::*;
    let len = |o: i32| match o {
        SLOCAL | SINIT | SUNASSIGN => Some(1),
        SLOCAL3 | SLOCAL_CHECKED | SSET => Some(2),
        SLOCAL_CHECKED4 => Some(3),
        _ => operands(o),
    };
    let simple = |o: i32| match o {
        SLOCAL => Some(0),
        CONST => Some(1),
        _ => None,
    };
    let mut pc = 0;
    while pc < ins.len() {
        let o = ins[pc];
        let n = len(o).unwrap_or(0);
        let next = |k: usize| if pc + k < ins.len() { ins[pc + k] } else { -1 };
        if o == SLOCAL && next(2) == RETURN {
            ins[pc] = FUSED_SRET;
        } else if o == SLOCAL && (next(2) == CAR || next(2) == CDR) {
            ins[pc] = FUSED_SCXR;
        } else if o == SLOCAL && (next(2) == JNULLP || next(2) == JPAIRP) {
            ins[pc] = FUSED_SJTEST;
        } else if (LT..=NUM_EQ).contains(&o) && next(2) == JUMP_IF_FALSE {
            ins[pc] = FUSED_CMPJ + (o - LT);
        } else if (LT..=NUM_EQ).contains(&o) && next(2) == NOT && next(4) == JUMP_IF_FALSE {
            ins[pc] = FUSED_CMPNJ + (o - LT);
        } else if let Some(x) = simple(o) {
            if pc + 4 < ins.len() && simple(ins[pc + 2]).is_some() {
                match ins[pc + 4] {
                    ADD | SUB => ins[pc] = FUSED_ARITH + x,
                    JLT..=JNUM_EQ => ins[pc] = FUSED_JCC + x,
                    _ => {}
                }
            }
        }
        pc += 1 + n;
    }
}
