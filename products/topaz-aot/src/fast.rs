//! The fast path of the fresh AOT compiler: procedures over fixnums compiled to plain Rust
//! (`topaz_vm::code::FastFn`). A code object qualifies when it keeps its frame on the stack
//! (no closure made, see `code::lower`), takes a fixed number of arguments, and uses only
//! parameter reads, fixnum and boolean constants, `+ - *`, the numeric comparisons (plain and
//! compare-and-branch), `not`, `zero?`, jumps, calls and tail calls of a global that the program
//! defines once as another qualifying procedure, `REQUIRE_ONE`, `POP` and `RETURN` of a fixnum.
//! Everything else (and every procedure calling something else) stays on the machine.
//!
//! In the generated function parameters and operand-stack entries are Rust locals (`i64` or
//! `bool`, typed statically by abstract interpretation of the stack), arithmetic is inline with
//! overflow giving up, and a call is a direct Rust call guarded by a pointer comparison showing
//! the global still holds that procedure. Every executed instruction adds one machine transition
//! (charged per basic block) and the site-setting ones record their site, so a completed call
//! leaves exactly the machine's account. Giving up (None) has no effect to undo: the function
//! only reads the machine, and the call then runs on the machine from the start.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use topaz_vm::code::op;
use topaz_vm::json::J;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum T {
    Int,
    Bool,
    /// The procedure of code object k (read from a guarded global).
    Proc(usize),
}

pub struct CodeInfo<'a> {
    pub wire: &'a [i32],
    pub lowered: &'a [i32],
    pub stack_frame: bool,
    pub required: usize,
    pub rest: bool,
    pub consts: &'a [J],
}

enum K {
    Int(i64),
    Bool(bool),
    Global(usize),
    Other,
}

fn constant(j: &J) -> K {
    let a = match j.arr() {
        Some(a) => a,
        None => return K::Other,
    };
    match a.first().and_then(|t| t.str()) {
        Some("i") => a.get(1).and_then(|x| x.str()).and_then(|t| t.parse::<i64>().ok()).map(K::Int).unwrap_or(K::Other),
        Some("t") => K::Bool(true),
        Some("F") => K::Bool(false),
        Some("g") => a.get(1).and_then(|x| x.num()).map(|g| K::Global(g as usize)).unwrap_or(K::Other),
        _ => K::Other,
    }
}

fn code_const(j: &J) -> Option<usize> {
    let a = j.arr()?;
    if a.first().and_then(|t| t.str()) == Some("code") {
        a.get(1).and_then(|x| x.num()).map(|k| k as usize)
    } else {
        None
    }
}

/// Globals the program defines exactly once, each with the code object of its procedure
/// (`CLOSURE k; DEFINE_GLOBAL g` in a top-level form).
pub fn defined_procedures(codes: &[CodeInfo], forms: &[usize]) -> HashMap<usize, usize> {
    let mut seen: HashMap<usize, Option<usize>> = HashMap::new();
    for (i, c) in codes.iter().enumerate() {
        let mut pc = 0;
        let mut prev: Option<usize> = None;
        while pc < c.wire.len() {
            let o = c.wire[pc];
            let n = match op::operands(o) {
                Some(n) => n,
                None => break,
            };
            let a1 = c.wire.get(pc + 1).copied().unwrap_or(0) as usize;
            if o == op::DEFINE_GLOBAL || o == op::SET_GLOBAL {
                if let Some(K::Global(g)) = c.consts.get(a1).map(constant) {
                    let k = if o == op::DEFINE_GLOBAL && forms.contains(&i) { prev } else { None };
                    let entry = seen.entry(g).or_insert(k);
                    if *entry != k {
                        *entry = None;
                    }
                }
            }
            prev = if o == op::CLOSURE { c.consts.get(a1).and_then(code_const) } else { None };
            pc += 1 + n;
        }
    }
    seen.into_iter().filter_map(|(g, k)| k.map(|k| (g, k))).collect()
}

struct Analysis {
    /// Stack types before each instruction reached.
    at: BTreeMap<usize, Vec<T>>,
    max_depth: usize,
}

/// Abstract interpretation of one code object's stack; None when it does not qualify.
fn analyse(i: usize, c: &CodeInfo, procs: &HashMap<usize, usize>, ok: &BTreeSet<usize>, codes: &[CodeInfo]) -> Option<Analysis> {
    if !c.stack_frame || c.rest {
        return None;
    }
    let mut at: BTreeMap<usize, Vec<T>> = BTreeMap::new();
    let mut work = vec![(0usize, Vec::<T>::new())];
    let mut max_depth = 0;
    let ins = c.lowered;
    while let Some((pc, st)) = work.pop() {
        if let Some(prev) = at.get(&pc) {
            if *prev != st {
                return None;
            }
            continue;
        }
        if pc >= ins.len() {
            return None;
        }
        at.insert(pc, st.clone());
        max_depth = max_depth.max(st.len());
        let wo = c.wire[pc];
        let n = op::operands(wo)?;
        let o = ins[pc];
        let a1 = *ins.get(pc + 1).unwrap_or(&0);
        let a2 = *ins.get(pc + 2).unwrap_or(&0);
        let mut s = st;
        let next = pc + 1 + n;
        match o {
            op::SLOCAL | op::SLOCAL3 => {
                let slot = if o == op::SLOCAL { a1 } else { a2 } as usize;
                if slot == 0 || slot > c.required {
                    return None;
                }
                s.push(T::Int);
                work.push((next, s));
            }
            op::CONST => match c.consts.get(a1 as usize).map(constant)? {
                K::Int(_) => {
                    s.push(T::Int);
                    work.push((next, s));
                }
                K::Bool(_) => {
                    s.push(T::Bool);
                    work.push((next, s));
                }
                _ => return None,
            },
            op::GLOBAL => {
                let g = match c.consts.get(a1 as usize).map(constant)? {
                    K::Global(g) => g,
                    _ => return None,
                };
                let k = *procs.get(&g)?;
                if !ok.contains(&k) {
                    return None;
                }
                s.push(T::Proc(k));
                work.push((next, s));
            }
            op::ADD | op::SUB | op::MUL | op::LT | op::GT | op::LE | op::GE | op::NUM_EQ => {
                let b = s.pop()?;
                let a = s.pop()?;
                if a != T::Int || b != T::Int {
                    return None;
                }
                s.push(if o <= op::MUL { T::Int } else { T::Bool });
                work.push((next, s));
            }
            op::NOT | op::ZEROP => {
                let a = s.pop()?;
                if matches!(a, T::Proc(_)) || (o == op::ZEROP && a != T::Int) {
                    return None;
                }
                s.push(T::Bool);
                work.push((next, s));
            }
            op::JLT | op::JGT | op::JLE | op::JGE | op::JNUM_EQ => {
                let b = s.pop()?;
                let a = s.pop()?;
                if a != T::Int || b != T::Int {
                    return None;
                }
                work.push((a2 as usize, s.clone()));
                work.push((next, s));
            }
            op::JUMP => work.push((a1 as usize, s)),
            op::JUMP_IF_FALSE => {
                let a = s.pop()?;
                if matches!(a, T::Proc(_)) {
                    return None;
                }
                work.push((a1 as usize, s.clone()));
                work.push((next, s));
            }
            op::POP => {
                s.pop()?;
                work.push((next, s));
            }
            op::REQUIRE_ONE => {
                if s.is_empty() {
                    return None;
                }
                work.push((next, s));
            }
            op::CALL | op::TAIL_CALL => {
                let argc = a1 as usize;
                if s.len() < argc + 1 {
                    return None;
                }
                let args = s.split_off(s.len() - argc);
                if args.iter().any(|t| *t != T::Int) {
                    return None;
                }
                let k = match s.pop()? {
                    T::Proc(k) => k,
                    _ => return None,
                };
                if codes[k].required != argc {
                    return None;
                }
                if o == op::CALL {
                    s.push(T::Int);
                    work.push((next, s));
                }
            }
            op::RETURN => {
                if s.len() != 1 || s[0] != T::Int {
                    return None;
                }
            }
            _ => return None,
        }
    }
    let _ = i;
    Some(Analysis { at, max_depth })
}

/// The fast functions of a request's code objects and, per code object, the name of its entry
/// (`None` for those that do not qualify).
pub fn generate(codes: &[CodeInfo], forms: &[usize]) -> (String, Vec<Option<String>>) {
    let procs = defined_procedures(codes, forms);
    // Largest fixpoint: start from every candidate, drop those whose analysis fails (a call to a
    // dropped procedure fails it in turn).
    let mut ok: BTreeSet<usize> = (0..codes.len()).filter(|i| !forms.contains(i) && codes[*i].stack_frame && !codes[*i].rest).collect();
    let mut results: BTreeMap<usize, Analysis> = BTreeMap::new();
    loop {
        results.clear();
        let mut dropped = false;
        for i in ok.clone() {
            match analyse(i, &codes[i], &procs, &ok, codes) {
                Some(a) => {
                    results.insert(i, a);
                }
                None => {
                    ok.remove(&i);
                    dropped = true;
                }
            }
        }
        if !dropped {
            break;
        }
    }
    let mut out = String::new();
    let mut entries = vec![None; codes.len()];
    for (&i, a) in &results {
        emit(&mut out, i, &codes[i], a, &procs);
        entries[i] = Some(format!("e{}", i));
    }
    (out, entries)
}

fn emit(out: &mut String, i: usize, c: &CodeInfo, a: &Analysis, procs: &HashMap<usize, usize>) {
    let ins = c.lowered;
    let params: Vec<String> = (1..=c.required).map(|k| format!("p{}: i64", k)).collect();
    let _ = writeln!(out, "#[allow(unused_assignments, unused_mut, unused_variables, non_snake_case)]\nfn f{}(vm: &Vm, cx: &mut Fx, {}) -> Option<i64> {{", i, params.join(", "));
    for k in 1..=c.required {
        let _ = writeln!(out, "    let mut p{} = p{};", k, k);
    }
    for d in 0..=a.max_depth {
        let _ = writeln!(out, "    let mut s{}: i64 = 0; let mut b{}: bool = false;", d, d);
    }
    // Basic-block leaders: the entry and every jump target / fall-through after a branch.
    let mut leaders: BTreeSet<usize> = BTreeSet::new();
    leaders.insert(0);
    for (&pc, _) in &a.at {
        let o = ins[pc];
        let n = op::operands(c.wire[pc]).unwrap_or(0);
        match o {
            op::JUMP | op::JUMP_IF_FALSE => {
                leaders.insert(ins[pc + 1] as usize);
                leaders.insert(pc + 1 + n);
            }
            op::JLT | op::JGT | op::JLE | op::JGE | op::JNUM_EQ => {
                leaders.insert(ins[pc + 2] as usize);
                leaders.insert(pc + 1 + n);
            }
            _ => {}
        }
    }
    let _ = writeln!(out, "    if cx.steps > cx.budget {{ return None; }}\n    let mut pc: u32 = 0;\n    loop {{\n        match pc {{");
    for &leader in &leaders {
        if !a.at.contains_key(&leader) {
            continue;
        }
        // The block: instructions from the leader up to the next leader or a terminator.
        let mut body = String::new();
        let mut count = 0u64;
        let mut pc = leader;
        loop {
            let st = &a.at[&pc];
            let d = st.len();
            let o = ins[pc];
            let n = op::operands(c.wire[pc]).unwrap_or(0);
            let a1 = ins.get(pc + 1).copied().unwrap_or(0);
            let a2 = ins.get(pc + 2).copied().unwrap_or(0);
            let next = pc + 1 + n;
            let site = format!("cx.site = {};", ((i as u32) << 20) | pc as u32);
            count += 1;
            let mut end = false;
            match o {
                op::SLOCAL | op::SLOCAL3 => {
                    let s = if o == op::SLOCAL { a1 } else { a2 };
                    let _ = writeln!(body, "            s{} = p{};", d, s);
                }
                op::CONST => match constant(&c.consts[a1 as usize]) {
                    K::Int(v) => {
                        // i64::MIN has no positive literal to negate.
                        let lit = if v == i64::MIN { "i64::MIN".to_string() } else { format!("{}i64", v) };
                        let _ = writeln!(body, "            s{} = {};", d, lit);
                    }
                    K::Bool(b) => {
                        let _ = writeln!(body, "            b{} = {};", d, b);
                    }
                    _ => unreachable!(),
                },
                op::GLOBAL => {
                    let g = match constant(&c.consts[a1 as usize]) {
                        K::Global(g) => g,
                        _ => unreachable!(),
                    };
                    let k = procs[&g];
                    let _ = writeln!(
                        body,
                        "            match &vm.globals[{}] {{ V::Closure(c) if Rc::ptr_eq(&c.code, &vm.codes[{}]) => {{}} _ => return None }}",
                        g, k
                    );
                }
                op::ADD | op::SUB | op::MUL => {
                    let f = match o {
                        op::ADD => "checked_add",
                        op::SUB => "checked_sub",
                        _ => "checked_mul",
                    };
                    let _ = writeln!(body, "            {} s{} = s{}.{}(s{})?;", site, d - 2, d - 2, f, d - 1);
                }
                op::LT | op::GT | op::LE | op::GE | op::NUM_EQ => {
                    let r = ["<", ">", "<=", ">=", "=="][(o - op::LT) as usize];
                    let _ = writeln!(body, "            {} b{} = s{} {} s{};", site, d - 2, d - 2, r, d - 1);
                }
                op::NOT => {
                    let t = st[d - 1];
                    let e = if t == T::Bool { format!("!b{}", d - 1) } else { "false".to_string() };
                    let _ = writeln!(body, "            {} b{} = {};", site, d - 1, e);
                }
                op::ZEROP => {
                    let _ = writeln!(body, "            {} b{} = s{} == 0;", site, d - 1, d - 1);
                }
                op::JLT | op::JGT | op::JLE | op::JGE | op::JNUM_EQ => {
                    let r = ["<", ">", "<=", ">=", "=="][(o - op::JLT) as usize];
                    let back = if (a2 as usize) <= pc { "if cx.steps > cx.budget { return None; } " } else { "" };
                    let _ = writeln!(body, "            cx.steps += {}; {}{} if s{} {} s{} {{ pc = {}; }} else {{ pc = {}; }}", count, back, site, d - 2, r, d - 1, next, a2);
                    count = 0;
                    end = true;
                }
                op::JUMP => {
                    let back = if (a1 as usize) <= pc { "if cx.steps > cx.budget { return None; } " } else { "" };
                    let _ = writeln!(body, "            cx.steps += {}; {}pc = {};", count, back, a1);
                    count = 0;
                    end = true;
                }
                op::JUMP_IF_FALSE => {
                    let t = st[d - 1];
                    let cond = if t == T::Bool { format!("b{}", d - 1) } else { "true".to_string() };
                    let back = if (a1 as usize) <= pc { "if cx.steps > cx.budget { return None; } " } else { "" };
                    let _ = writeln!(body, "            cx.steps += {}; {}if {} {{ pc = {}; }} else {{ pc = {}; }}", count, back, cond, next, a1);
                    count = 0;
                    end = true;
                }
                op::POP | op::REQUIRE_ONE => {}
                op::CALL | op::TAIL_CALL => {
                    let argc = a1 as usize;
                    let k = match st[d - argc - 1] {
                        T::Proc(k) => k,
                        _ => unreachable!(),
                    };
                    let args: Vec<String> = (d - argc..d).map(|x| format!("s{}", x)).collect();
                    if o == op::CALL {
                        let _ = writeln!(
                            body,
                            "            {} if cx.depth >= CALL_DEPTH_LIMIT {{ return None; }} cx.depth += 1; if cx.depth > cx.max_depth {{ cx.max_depth = cx.depth; }}\n            cx.steps += {}; s{} = f{}(vm, cx, {})?; cx.depth -= 1;",
                            site,
                            count,
                            d - argc - 1,
                            k,
                            args.join(", ")
                        );
                        count = 0;
                    } else if k == i {
                        // A self tail call: the parameters take the arguments, back to the entry.
                        let tmp: Vec<String> = (0..argc).map(|x| format!("let t{} = s{};", x, d - argc + x)).collect();
                        let set: Vec<String> = (0..argc).map(|x| format!("p{} = t{};", x + 1, x)).collect();
                        let _ = writeln!(body, "            {} {} {} cx.steps += {}; if cx.steps > cx.budget {{ return None; }} pc = 0;", site, tmp.join(" "), set.join(" "), count);
                        count = 0;
                        end = true;
                    } else {
                        let _ = writeln!(
                            body,
                            "            {} cx.tails += 1; if cx.tails > FAST_TAIL_CAP {{ return None; }} cx.steps += {}; return f{}(vm, cx, {});",
                            site,
                            count,
                            k,
                            args.join(", ")
                        );
                        count = 0;
                        end = true;
                    }
                }
                op::RETURN => {
                    let _ = writeln!(body, "            cx.steps += {}; return Some(s0);", count);
                    count = 0;
                    end = true;
                }
                _ => unreachable!("opcode {} passed the analysis", o),
            }
            if end {
                break;
            }
            pc = next;
            if leaders.contains(&pc) {
                let _ = writeln!(body, "            cx.steps += {}; pc = {};", count, pc);
                break;
            }
        }
        let _ = count;
        let _ = writeln!(out, "            {} => {{\n{}            }}", leader, body);
    }
    let _ = writeln!(out, "            _ => unreachable!(),\n        }}\n    }}\n}}");
    let args: Vec<String> = (0..c.required).map(|k| format!("match args[{}] {{ V::Int(x) => x, _ => return None }}", k)).collect();
    let _ = writeln!(out, "fn e{}(vm: &Vm, cx: &mut Fx, args: &[V]) -> Option<V> {{\n    f{}(vm, cx, {}).map(V::Int)\n}}\n", i, i, args.join(", "));
}
