//! The Topaz runtime: value model, numeric tower, primitives, printer and machine, plus the
//! product side of lispex.external-backend-protocol/v1. The `topaz-vm` executable is this
//! library with no compiled code; programs from the Topaz AOT compiler link it as their runtime.

pub mod bigint;
pub mod code;
pub mod json;
pub mod num;
pub mod prims;
pub mod printer;
pub mod protocol;
pub mod quick;
pub mod unicode;
pub mod unicode_tables;
pub mod value;
pub mod vm;
