//! Code objects of the bytecode derivation and the opcode numbers of the protocol
//! (docs/lispex/EXTERNAL-PRODUCTS.md, "Bytecode").

use crate::value::{Pos, V};

pub struct Code {
    pub name: Option<String>,
    pub required: usize,
    pub rest: bool,
    /// Environment size: slot 0 is reserved (the parent link lives in `Env::parent`).
    pub frame: usize,
    /// The instruction stream followed by three zero words (padding, so an instruction and its
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
}

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
