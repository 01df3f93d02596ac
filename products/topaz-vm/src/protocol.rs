//! The product side of lispex.external-backend-protocol/v1, shared by the Topaz VM executable and
//! by every program the Topaz AOT compiler produces (which passes its compiled code objects):
//!   <product> --handshake   print the handshake JSON line and exit 0
//!   <product> --run         read one request JSON on stdin, write one observation JSON on stdout
//! See docs/lispex/EXTERNAL-PRODUCTS.md.

use crate::code::{self, Code, NativeFn};
use crate::json::{self, quote, J};
use crate::{bigint, num, prims, printer, quick, vm};
use std::io::{Read, Write};
use std::rc::Rc;
use crate::value::*;

pub const PROTOCOL: &str = "lispex.external-backend-protocol/v1";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A code object compiled ahead of time: its index in the derivation, the instruction stream it
/// was compiled from (checked against the request), and its function.
pub struct NativeEntry {
    pub index: usize,
    pub ins: &'static [i32],
    pub f: NativeFn,
    /// The procedure's fast path, when the compiler could make one (`code::FastFn`).
    pub fast: Option<crate::code::FastFn>,
}

static NO_NATIVES: &[NativeEntry] = &[];
thread_local! {
    static NATIVES: std::cell::Cell<&'static [NativeEntry]> = std::cell::Cell::new(NO_NATIVES);
    static PRODUCT: std::cell::Cell<&'static str> = std::cell::Cell::new("topaz-vm");
}

fn product_name() -> String {
    PRODUCT.with(|p| p.get()).to_string()
}
const MAX_REQUEST_BYTES: u64 = 64 * 1024 * 1024;

/// The whole command line of a product named `product`, with `natives` compiled code objects.
pub fn product_main(product: &'static str, natives: &'static [NativeEntry]) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(|s| s.as_str()) {
        Some("--handshake") => {
            println!("{{\"protocol\":{},\"product\":{},\"version\":{}}}", quote(PROTOCOL), quote(product), quote(VERSION));
        }
        Some("--run") => run_and_exit(product, natives),
        _ => {
            eprintln!("usage: {} --handshake | --run (protocol {})", product, PROTOCOL);
            std::process::exit(64);
        }
    }
}

/// Serve one request on stdin with `natives` and exit with its status.
fn run_and_exit(product: &'static str, natives: &'static [NativeEntry]) -> ! {
    // The machine recurses in printing and nested re-entries: give it a large stack.
    let child = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            NATIVES.with(|n| n.set(natives));
            PRODUCT.with(|p| p.set(product));
            serve_one()
        })
        .expect("spawn machine thread");
    let code = child.join().unwrap_or(70);
    std::process::exit(code);
}

/// The command line of a corpus-harness program (`topaz-compiler --compile-batch`): many
/// derivations compiled into one executable, member K answering exactly as the one-request
/// program for that derivation would:
///   <program> --member K --run   (request JSON on stdin)
pub fn batch_main(product: &'static str, members: &'static [&'static [NativeEntry]]) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 3 && args[0] == "--member" && args[2] == "--run" {
        if let Some(natives) = args[1].parse::<usize>().ok().and_then(|k| members.get(k)) {
            run_and_exit(product, natives);
        }
    }
    eprintln!("usage: {} --member K --run   (K < {}; protocol {})", product, members.len(), PROTOCOL);
    std::process::exit(64);
}

fn serve_one() -> i32 {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().take(MAX_REQUEST_BYTES).read_to_string(&mut text) {
        eprintln!("topaz-vm: cannot read the request: {}", e);
        return 65;
    }
    let req = match json::parse(&text) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("topaz-vm: malformed request: {}", e);
            return 65;
        }
    };
    match req.get("protocol").and_then(|p| p.str()) {
        Some(PROTOCOL) => {}
        other => {
            eprintln!("topaz-vm: unsupported protocol {:?}; this product speaks {}", other, PROTOCOL);
            return 65;
        }
    }
    let out = match run_request(&req) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("topaz-vm: malformed derivation: {}", e);
            return 65;
        }
    };
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if lock.write_all(out.as_bytes()).and_then(|_| lock.write_all(b"\n")).and_then(|_| lock.flush()).is_err() {
        return 74;
    }
    0
}

fn num_field(j: &J, key: &str) -> Result<f64, String> {
    j.get(key).and_then(|v| v.num()).ok_or_else(|| format!("missing number {}", key))
}

struct Decoder {
    prim_ids: std::collections::HashMap<String, u16>,
}

impl Decoder {
    /// A constant of the derivation (tagged arrays, see the protocol document).
    fn constant(&self, j: &J) -> Result<V, String> {
        let a = j.arr().ok_or("constant is not an array")?;
        let tag = a.first().and_then(|t| t.str()).ok_or("constant without tag")?;
        let s = |i: usize| a.get(i).and_then(|x| x.str()).ok_or_else(|| format!("constant {} lacks text", tag));
        let n = |i: usize| a.get(i).and_then(|x| x.num()).ok_or_else(|| format!("constant {} lacks a number", tag));
        Ok(match tag {
            "i" => V::from_big(parse_int(s(1)?)?),
            "r" => num::make_rat(parse_int(s(1)?)?, parse_int(s(2)?)?),
            "f" => V::Flo(s(1)?.parse::<f64>().map_err(|_| "bad flonum")?),
            "s" => V::str(s(1)?),
            "y" => V::Sym(text(s(1)?)),
            "c" => V::Char(n(1)? as u32),
            "t" => V::Bool(true),
            "F" => V::Bool(false),
            "n" => V::Nil,
            "none" => V::none(),
            "unspec" => V::Unspec,
            "temp" => V::Unspec,
            "l" => {
                let items = a.get(1).and_then(|x| x.arr()).ok_or("list without items")?;
                let tail = self.constant(a.get(2).ok_or("list without tail")?)?;
                let mut vs = Vec::with_capacity(items.len());
                for x in items {
                    vs.push(self.constant(x)?);
                }
                list_from(vs, tail)
            }
            "v" => {
                let items = a.get(1).and_then(|x| x.arr()).ok_or("vector without items")?;
                let mut vs = Vec::with_capacity(items.len());
                for x in items {
                    vs.push(self.constant(x)?);
                }
                V::Vector(Rc::new(std::cell::RefCell::new(vs)))
            }
            "u8" => {
                let items = a.get(1).and_then(|x| x.arr()).ok_or("bytevector without bytes")?;
                V::Bytes(Rc::new(items.iter().map(|x| x.num().unwrap_or(0.0) as u8).collect()))
            }
            "p" => {
                let name = s(1)?;
                V::Prim(*self.prim_ids.get(name).ok_or_else(|| format!("unknown primitive {}", name))?)
            }
            "g" | "code" => V::Int(n(1)? as i64),
            other => return Err(format!("unknown constant tag {}", other)),
        })
    }
}

fn parse_int(t: &str) -> Result<bigint::Big, String> {
    let (neg, digits) = if let Some(d) = t.strip_prefix('-') { (true, d) } else { (false, t) };
    let b = bigint::Big::parse_digits(digits, 10).ok_or("bad integer")?;
    Ok(if neg { b.neg() } else { b })
}

fn run_request(req: &J) -> Result<String, String> {
    let started = std::time::Instant::now();
    let d = req.get("derivation").ok_or("missing derivation")?;
    let resource = req.get("resource_request").ok_or("missing resource_request")?;
    let limits = resource.get("limits").ok_or("missing limits")?;
    let source_id = req.get("source_id").and_then(|s| s.str()).unwrap_or("source").to_string();

    // A front-end fault: nothing to run, the observation states it.
    if let Some(fault) = d.get("front_end_fault") {
        if !matches!(fault, J::Null) {
            return Ok(front_end_observation(fault, &started));
        }
    }

    // Primitives (identity groups with their registry arity).
    let mut prims = Vec::new();
    let mut prim_ids = std::collections::HashMap::new();
    for (i, p) in d.get("primitives").and_then(|x| x.arr()).ok_or("missing primitives")?.iter().enumerate() {
        let name = p.get("name").and_then(|x| x.str()).ok_or("primitive without name")?.to_string();
        let min = num_field(p, "min")? as usize;
        let max = match p.get("max") {
            Some(J::Num(m)) => *m as usize,
            _ => usize::MAX,
        };
        let (f, control, known) = prims::lookup(&name);
        prim_ids.insert(name.clone(), i as u16);
        let pure = known && control == vm::Control::Plain && !prims::has_effect(&name);
        prims.push(vm::PrimDef { name, min, max, control, f, pure });
    }
    let dec = Decoder { prim_ids };

    let mut globals = Vec::new();
    let mut global_names = Vec::new();
    for g in d.get("globals").and_then(|x| x.arr()).ok_or("missing globals")? {
        global_names.push(Rc::from(g.get("name").and_then(|x| x.str()).ok_or("global without name")?));
        globals.push(match g.get("initial") {
            Some(J::Null) | None => V::Unassigned,
            Some(c) => dec.constant(c)?,
        });
    }

    let natives = NATIVES.with(|n| n.get());
    let forms = d.get("forms").and_then(|x| x.arr()).ok_or("missing forms")?;
    let mut form_codes: Vec<usize> = Vec::new();
    for f in forms {
        form_codes.push(num_field(f, "code")? as usize);
    }
    let mut codes: Vec<Rc<Code>> = Vec::new();
    let mut parts: Vec<(Code, Vec<i32>)> = Vec::new();
    for c in d.get("codes").and_then(|x| x.arr()).ok_or("missing codes")? {
        let ins: Vec<i32> = c.get("code").and_then(|x| x.arr()).ok_or("code without instructions")?.iter().map(|x| x.num().unwrap_or(-1.0) as i32).collect();
        let mut consts = Vec::new();
        for k in c.get("consts").and_then(|x| x.arr()).ok_or("code without consts")? {
            consts.push(dec.constant(k)?);
        }
        let mut spans = vec![None; ins.len()];
        for s in c.get("spans").and_then(|x| x.arr()).ok_or("code without spans")? {
            let t = s.arr().ok_or("span is not an array")?;
            let pc = t.first().and_then(|x| x.num()).ok_or("span pc")? as usize;
            let line = t.get(1).and_then(|x| x.num()).ok_or("span line")? as u32;
            let column = t.get(2).and_then(|x| x.num()).ok_or("span column")? as u32;
            if pc < spans.len() {
                spans[pc] = Some(Pos { line, column });
            }
        }
        verify(&ins)?;
        let index = parts.len();
        let (native, fast) = match natives.iter().find(|n| n.index == index) {
            Some(n) if n.ins == &ins[..] => (Some(n.f), n.fast),
            Some(_) => return Err(format!("code object {} differs from the one this program was compiled from", index)),
            None => (None, None),
        };
        if !natives.is_empty() && native.is_none() {
            return Err(format!("code object {} was not compiled into this program", index));
        }
        let mut ins = ins;
        let stack_frame = code::lower(&mut ins, form_codes.contains(&index));
        let lowered = ins.clone();
        code::fuse(&mut ins);
        ins.extend_from_slice(&[0; code::PADDING]);
        parts.push((
            Code {
                name: c.get("name").and_then(|x| x.str()).map(|s| s.to_string()),
                required: num_field(c, "required")? as usize,
                rest: matches!(c.get("rest"), Some(J::Bool(true))),
                frame: num_field(c, "frame")? as usize,
                ins,
                consts,
                spans,
                native,
                stack_frame,
                fast,
                quick: None,
            },
            lowered,
        ));
    }
    // The quick tier's register forms, for the whole program at once (a code object's form
    // depends on the procedures it reads from globals).
    let pure: Vec<bool> = prims.iter().map(|p| p.pure).collect();
    let inputs: Vec<quick::compile::Input> = parts.iter().map(|(c, lowered)| quick::compile::Input { ins: lowered, stack_frame: c.stack_frame, required: c.required, rest: c.rest, frame: c.frame, consts: &c.consts }).collect();
    let quick_forms = quick::compile::compile_program(&inputs, &pure, &form_codes);
    drop(inputs);
    for ((mut c, _), q) in parts.into_iter().zip(quick_forms) {
        c.quick = q;
        codes.push(Rc::new(c));
    }

    let mut m = vm::Vm::new(prims, globals, global_names, codes.clone());
    let front = req.get("front_end_usage");
    m.step_limit = num_field(limits, "machine-transition-limit")? as u64;
    m.out_limit = num_field(limits, "output-byte-limit")? as u64;
    // Optional (absent or null = unbounded): the server's bound on stdout as a JSON string body.
    match resource.get("stdout_json_limit") {
        None | Some(J::Null) => {}
        Some(j) => m.out_json_limit = j.num().filter(|x| *x >= 0.0 && x.fract() == 0.0).ok_or("stdout_json_limit must be a non-negative integer or null")? as u64,
    }

    let mut last: Vec<V> = Vec::new();
    let mut failure: Option<(String, &'static str, Pos, String, Vec<V>, Option<&'static str>)> = None;
    for f in forms {
        let ci = num_field(f, "code")? as usize;
        let form_pos = Pos { line: num_field(f, "line")? as u32, column: num_field(f, "column")? as u32 };
        let code = codes.get(ci).ok_or("form names a missing code object")?.clone();
        match m.run_top(code) {
            Ok(v) => {
                last = match v {
                    V::Multi(vs) => (*vs).clone(),
                    other => vec![other],
                };
            }
            Err(Fault::Resource(axis)) => {
                let at = if axis == "machine-transition" { form_pos } else { m.site };
                let code = match axis {
                    "machine-transition" => "machine-transition-limit",
                    _ => "output-limit",
                };
                failure = Some((code.to_string(), "resource", at, format!("{} limit exceeded", axis), vec![], Some(axis)));
                break;
            }
            Err(Fault::Err(e)) => {
                let at = e.at.unwrap_or(m.site);
                if e.code == "recursion-limit" {
                    failure = Some((e.code.to_string(), "resource", at, e.message, vec![], Some("non-tail-call-depth")));
                } else {
                    failure = Some((e.code.to_string(), "runtime", at, e.message, e.irritants, None));
                }
                break;
            }
            Err(Fault::Escape { .. }) => {
                failure = Some(("infrastructure-error".to_string(), "runtime", m.site, "escape past the top level".to_string(), vec![], None));
                break;
            }
        }
    }

    // The observation.
    let names = m.prim_names.clone();
    let (status, exit) = match &failure {
        None => ("ok", 0),
        Some((code, phase, ..)) => {
            if *phase == "resource" {
                ("resource", 2)
            } else if code == "unsupported-primitive" || code == "infrastructure-error" {
                ("infrastructure-error", 3)
            } else {
                ("runtime-error", 1)
            }
        }
    };
    let stdout = if status == "resource" { String::new() } else { m.stdout.clone() };
    let mut o = String::new();
    o.push_str(&format!("{{\"protocol\":{},\"status\":\"{}\",\"exit_status\":{},\"stdout\":", quote(PROTOCOL), status, exit));
    json::write_str(&mut o, &stdout);
    o.push_str(",\"values\":[");
    if status == "ok" {
        for (i, v) in last.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            let mut proj = String::new();
            let portable = printer::project(v, &mut proj, &mut Vec::new(), 0);
            o.push_str(&format!("{{\"portable\":{},\"value\":{},\"printed\":", portable, proj));
            json::write_str(&mut o, &printer::write_value(&names, v));
            o.push('}');
        }
    }
    o.push_str("],\"diagnostics\":[");
    let mut limit_hit: Option<&'static str> = None;
    if let Some((code, phase, at, message, irritants, limit)) = &failure {
        limit_hit = *limit;
        let written: Vec<String> = irritants.iter().map(|v| printer::write_value(&names, v)).collect();
        o.push_str(&diagnostic(code, "error", phase, &source_id, *at, message, &written));
    }
    o.push_str("],\"warnings\":[");
    for (i, (code, at)) in m.warnings.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let message = if *code == "W330" { "deprecated procedure % (use modulo)" } else { "deprecated list alias (use car/cdr)" };
        o.push_str(&diagnostic(code, "warning", "runtime", &source_id, *at, message, &[]));
    }
    o.push_str("],\"resource_outcome\":{");
    o.push_str(&format!("\"status\":\"{}\",\"limit\":", if status == "resource" { "limit-exceeded" } else { "within-limits" }));
    match limit_hit {
        Some(l) => o.push_str(&quote(l)),
        None => o.push_str("null"),
    }
    let fe = |k: &str| front.and_then(|f| f.get(k)).and_then(|x| x.num()).unwrap_or(0.0) as u64;
    o.push_str(&format!(
        ",\"usage\":{{\"frontend_transitions\":{},\"tokens\":{},\"normalization_steps\":{},\"machine_transitions\":{},\"output_bytes\":{}}}}}",
        fe("frontend_transitions"),
        fe("tokens"),
        fe("normalization_steps"),
        m.steps,
        m.out_bytes
    ));
    o.push_str(&format!(
        ",\"metrics\":{{\"max_call_depth\":{},\"call_depth_limit\":{},\"fast_paths\":{{\"quick_calls\":{},\"compiled_calls\":{},\"given_up\":{}}},\"wall_ms\":{:.3}}}",
        m.max_depth,
        vm::CALL_DEPTH_LIMIT,
        m.fast_counts.quick,
        m.fast_counts.compiled,
        m.fast_counts.given_up,
        started.elapsed().as_secs_f64() * 1000.0
    ));
    o.push_str(&format!(",\"engine\":{{\"implementation\":{},\"version\":{}}}}}", quote(&product_name()), quote(VERSION)));
    Ok(o)
}

/// Reject bytecode with unknown opcodes or truncated operands before running anything.
fn verify(ins: &[i32]) -> Result<(), String> {
    let mut pc = 0;
    while pc < ins.len() {
        let n = code::op::operands(ins[pc]).ok_or_else(|| format!("unknown opcode {} at {}", ins[pc], pc))?;
        pc += 1 + n;
    }
    if pc != ins.len() {
        return Err("truncated instruction".to_string());
    }
    Ok(())
}

fn diagnostic(code: &str, severity: &str, phase: &str, source: &str, at: Pos, message: &str, irritants: &[String]) -> String {
    let mut rendered = format!("{} {}:{}:{} {}", code, source, at.line, at.column, message);
    for w in irritants {
        rendered.push(' ');
        rendered.push_str(w);
    }
    let list: Vec<String> = irritants.iter().map(|w| quote(w)).collect();
    format!(
        "{{\"code\":{},\"severity\":\"{}\",\"phase\":\"{}\",\"source\":{},\"line\":{},\"column\":{},\"message\":{},\"irritants\":[{}],\"rendered\":{}}}",
        quote(code),
        severity,
        phase,
        quote(source),
        at.line,
        at.column,
        quote(message),
        list.join(","),
        quote(&rendered)
    )
}

/// The observation of a derivation whose front end failed: the product restates the fault.
fn front_end_observation(fault: &J, started: &std::time::Instant) -> String {
    let s = |k: &str| fault.get(k).and_then(|x| x.str()).unwrap_or("").to_string();
    let n = |k: &str| fault.get(k).and_then(|x| x.num()).unwrap_or(0.0);
    let status = s("status");
    let irritants: Vec<String> = fault.get("irritants").and_then(|x| x.arr()).map(|a| a.iter().filter_map(|x| x.str().map(|t| t.to_string())).collect()).unwrap_or_default();
    let at = Pos { line: n("line") as u32, column: n("column") as u32 };
    let diag = diagnostic(&s("code"), "error", &s("phase"), &s("source"), at, &s("message"), &irritants);
    let limit = match fault.get("limit").and_then(|x| x.str()) {
        Some(l) => quote(l),
        None => "null".to_string(),
    };
    let usage = |k: &str| fault.get("usage").and_then(|u| u.get(k)).and_then(|x| x.num()).unwrap_or(0.0) as u64;
    format!(
        "{{\"protocol\":{},\"status\":{},\"exit_status\":{},\"stdout\":\"\",\"values\":[],\"diagnostics\":[{}],\"warnings\":[],\"resource_outcome\":{{\"status\":\"{}\",\"limit\":{},\"usage\":{{\"frontend_transitions\":{},\"tokens\":{},\"normalization_steps\":{},\"machine_transitions\":0,\"output_bytes\":0}}}},\"metrics\":{{\"max_call_depth\":0,\"call_depth_limit\":{},\"fast_paths\":{{\"quick_calls\":0,\"compiled_calls\":0,\"given_up\":0}},\"wall_ms\":{:.3}}},\"engine\":{{\"implementation\":{},\"version\":{}}}}}",
        quote(PROTOCOL),
        quote(&status),
        n("exit_status") as i64,
        diag,
        if status == "resource" { "limit-exceeded" } else { "within-limits" },
        limit,
        usage("frontend_transitions"),
        usage("tokens"),
        usage("normalization_steps"),
        vm::CALL_DEPTH_LIMIT,
        started.elapsed().as_secs_f64() * 1000.0,
        quote(&product_name()),
        quote(VERSION)
    )
}
