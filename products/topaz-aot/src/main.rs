//! topaz-compiler: the fresh AOT product of lispex.external-backend-protocol/v1.
//!   topaz-compiler --handshake
//!   topaz-compiler --compile WORKSPACE --rustc RUSTC   (request JSON on stdin)
//! writes WORKSPACE/main.rs — every code object of the derivation compiled to a Rust function
//! whose instructions are calls of the runtime's `step_k::<opcode>` with literal operands (the
//! opcode dispatch folds away; jumps become constant pcs) — and builds WORKSPACE/program with
//! RUSTC against the prebuilt runtime rlib next to this executable
//! (`<dir>/topaz-runtime/libtopaz_vm.rlib`). The program is itself a product: `program --run`
//! takes the same request and answers the observation, checking that every code object is the
//! one it was compiled from. Exit 0 and one JSON line on success; 65 bad request; 70 build failed.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use topaz_vm::code::op;
use topaz_vm::json::{self, quote, J};
use topaz_vm::protocol::PROTOCOL;

mod fast;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(|s| s.as_str()) {
        Some("--handshake") => {
            println!("{{\"protocol\":{},\"product\":\"topaz-compiler\",\"version\":{}}}", quote(PROTOCOL), quote(env!("CARGO_PKG_VERSION")));
        }
        Some("--compile") if args.len() == 4 && args[2] == "--rustc" => std::process::exit(compile(Path::new(&args[1]), Path::new(&args[3]), None)),
        // Corpus harness (bench/lispex-external/aot-corpus.ts), never used by the server: a JSON
        // array of requests on stdin, one executable answering `--member K --run` for each.
        // `--opt-level N` (harness only) trades the optimizer for build time; overflow checks
        // and debug assertions stay off, as in the request build.
        Some("--compile-batch") if (args.len() == 4 || (args.len() == 6 && args[4] == "--opt-level" && ["0", "1", "2"].contains(&args[5].as_str()))) && args[2] == "--rustc" => {
            let opt = args.get(5).map(|s| s.as_str()).unwrap_or("2");
            std::process::exit(compile(Path::new(&args[1]), Path::new(&args[3]), Some(opt)))
        }
        _ => {
            eprintln!("usage: topaz-compiler --handshake | --compile WORKSPACE --rustc RUSTC | --compile-batch WORKSPACE --rustc RUSTC [--opt-level 0|1|2] (protocol {})", PROTOCOL);
            std::process::exit(64);
        }
    }
}

fn runtime_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate this executable: {}", e))?;
    let dir = exe.parent().ok_or("executable without a directory")?.join("topaz-runtime");
    if !dir.join("libtopaz_vm.rlib").is_file() {
        return Err(format!("runtime rlib missing at {}", dir.join("libtopaz_vm.rlib").display()));
    }
    Ok(dir)
}

/// `batch`: the corpus harness build at the given optimization level; None: one request.
fn compile(workspace: &Path, rustc: &Path, batch: Option<&str>) -> i32 {
    let mut text = String::new();
    if std::io::stdin().take(64 * 1024 * 1024).read_to_string(&mut text).is_err() {
        eprintln!("topaz-compiler: cannot read the request");
        return 65;
    }
    let generated = json::parse(&text).map_err(|e| format!("malformed request: {}", e)).and_then(|req| if batch.is_some() { generate_batch(&req) } else { generate(&req) });
    let source = match generated {
        Ok(s) => s,
        Err(e) => {
            eprintln!("topaz-compiler: {}", e);
            return 65;
        }
    };
    let runtime = match runtime_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("topaz-compiler: {}", e);
            return 70;
        }
    };
    let main_rs = workspace.join("main.rs");
    if let Err(e) = std::fs::write(&main_rs, source) {
        eprintln!("topaz-compiler: cannot write {}: {}", main_rs.display(), e);
        return 70;
    }
    let started = std::time::Instant::now();
    let mut cmd = Command::new(rustc);
    cmd.arg("--edition=2021")
        .arg("--crate-type=bin")
        .arg("--crate-name=program")
        .arg("-C")
        .arg(format!("opt-level={}", batch.unwrap_or("2")))
        .args(["-C", "codegen-units=1", "-C", "debuginfo=0", "-C", "overflow-checks=off", "-C", "debug-assertions=off"])
        .arg("--extern")
        .arg(format!("topaz_vm={}", runtime.join("libtopaz_vm.rlib").display()))
        .arg("-L")
        .arg(format!("dependency={}", runtime.display()))
        .arg("-o")
        .arg(workspace.join("program"))
        .arg(&main_rs)
        .current_dir(workspace)
        // The product runs with an empty environment; the system linker driver still needs to
        // find `ld`. A fixed system location, never the caller's PATH.
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    if Path::new("/usr/bin/cc").exists() {
        cmd.args(["-C", "linker=/usr/bin/cc"]);
    }
    match cmd.status() {
        Ok(s) if s.success() => {
            println!("{{\"protocol\":{},\"program\":\"program\",\"build_ms\":{:.1}}}", quote(PROTOCOL), started.elapsed().as_secs_f64() * 1000.0);
            0
        }
        Ok(s) => {
            eprintln!("topaz-compiler: rustc failed ({})", s);
            70
        }
        Err(e) => {
            eprintln!("topaz-compiler: cannot run {}: {}", rustc.display(), e);
            70
        }
    }
}

const PRELUDE: &str = "use std::rc::Rc;\nuse topaz_vm::code::Code;\nuse topaz_vm::protocol::NativeEntry;\nuse topaz_vm::value::{R, V};\nuse topaz_vm::vm::{Fx, Step, Vm, CALL_DEPTH_LIMIT, FAST_TAIL_CAP};\n\n";
const HEADER: &str = "// Generated by topaz-compiler from one Lispex derivation. Do not edit.\n#![allow(unused_variables, unreachable_code, unused_mut, clippy::all)]\n";

/// The Rust program for the request's derivation.
fn generate(req: &J) -> Result<String, String> {
    let mut out = String::new();
    out.push_str(HEADER);
    out.push_str(PRELUDE);
    out.push_str(&natives(req)?);
    out.push_str("fn main() {\n    topaz_vm::protocol::product_main(\"fresh-aot\", &NATIVES);\n}\n");
    Ok(out)
}

/// The corpus-harness program: every request of the array compiled exactly as `generate` does,
/// each in its own module, behind `--member K --run`.
fn generate_batch(reqs: &J) -> Result<String, String> {
    let list = reqs.arr().ok_or("a batch is a JSON array of requests")?;
    let mut out = String::new();
    out.push_str(HEADER);
    for (k, req) in list.iter().enumerate() {
        let _ = writeln!(out, "mod p{} {{\n{}{}}}", k, PRELUDE, natives(req).map_err(|e| format!("request {}: {}", k, e))?);
    }
    let members: Vec<String> = (0..list.len()).map(|k| format!("&p{}::NATIVES", k)).collect();
    let _ = writeln!(out, "static MEMBERS: [&[NativeEntry]; {}] = [{}];", list.len(), members.join(", "));
    out.push_str("use topaz_vm::protocol::NativeEntry;\nfn main() {\n    topaz_vm::protocol::batch_main(\"fresh-aot\", &MEMBERS);\n}\n");
    Ok(out)
}

/// The compiled code objects of one request's derivation and their `NATIVES` table.
fn natives(req: &J) -> Result<String, String> {
    if req.get("protocol").and_then(|p| p.str()) != Some(PROTOCOL) {
        return Err(format!("unsupported protocol; this product speaks {}", PROTOCOL));
    }
    let d = req.get("derivation").ok_or("missing derivation")?;
    let codes: Vec<Vec<i32>> = match d.get("codes").and_then(|c| c.arr()) {
        Some(cs) => cs
            .iter()
            .map(|c| c.get("code").and_then(|x| x.arr()).map(|a| a.iter().map(|n| n.num().unwrap_or(-1.0) as i32).collect()).ok_or("code without instructions"))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    // The machine lowers stack frames and fuses superinstructions at load time; the compiled
    // functions get the same instruction words (same lengths, so the pcs are the wire pcs).
    let mut form_codes: Vec<usize> = Vec::new();
    for f in d.get("forms").and_then(|x| x.arr()).ok_or("missing forms")? {
        form_codes.push(f.get("code").and_then(|x| x.num()).ok_or("form without code")? as usize);
    }
    let lowered: Vec<Vec<i32>> = codes
        .iter()
        .enumerate()
        .map(|(i, ins)| {
            let mut l = ins.clone();
            topaz_vm::code::lower(&mut l, form_codes.contains(&i));
            topaz_vm::code::fuse(&mut l);
            l
        })
        .collect();
    // The fast path (fast.rs) reads the lowered, unfused form: one instruction per transition.
    let code_list = d.get("codes").and_then(|c| c.arr()).map(|a| a.to_vec()).unwrap_or_default();
    let unfused: Vec<(Vec<i32>, bool)> = codes
        .iter()
        .enumerate()
        .map(|(i, ins)| {
            let mut l = ins.clone();
            let sf = topaz_vm::code::lower(&mut l, form_codes.contains(&i));
            (l, sf)
        })
        .collect();
    let empty: Vec<J> = Vec::new();
    let infos: Vec<fast::CodeInfo> = codes
        .iter()
        .enumerate()
        .map(|(i, ins)| {
            let c = &code_list[i];
            fast::CodeInfo {
                wire: ins,
                lowered: &unfused[i].0,
                stack_frame: unfused[i].1,
                required: c.get("required").and_then(|x| x.num()).unwrap_or(-1.0) as usize,
                rest: matches!(c.get("rest"), Some(J::Bool(true))),
                consts: c.get("consts").and_then(|x| x.arr()).map(|a| &a[..]).unwrap_or(&empty[..]),
            }
        })
        .collect();
    let (fast_src, fast_entries) = fast::generate(&infos, &form_codes);
    let mut out = String::new();
    out.push_str(&fast_src);
    for (i, ins) in codes.iter().enumerate() {
        let list: Vec<String> = ins.iter().map(|x| x.to_string()).collect();
        let _ = writeln!(out, "static INS_{}: [i32; {}] = [{}];", i, ins.len(), list.join(", "));
        let _ = writeln!(out, "fn c{}(vm: &mut Vm, code: &Rc<Code>, mut pc: usize) -> R<()> {{\n    loop {{\n        vm.tick(pc)?;\n        let step = match pc {{", i);
        let mut pc = 0;
        while pc < ins.len() {
            let o = ins[pc];
            let n = op::operands(o).ok_or_else(|| format!("unknown opcode {} in code object {}", o, i))?;
            let l = &lowered[i];
            let a = |k: usize| if k <= n { *l.get(pc + k).unwrap_or(&0) } else { 0 };
            let _ = writeln!(out, "            {} => vm.step_k::<{}>(code, {}, {}, {}, {})?,", pc, l[pc], pc, a(1), a(2), a(3));
            pc += 1 + n;
        }
        let _ = writeln!(out, "            _ => unreachable!(\"no instruction at {{}}\", pc),\n        }};\n        match step {{\n            Step::Next(p) => pc = p,\n            Step::Switch => return Ok(()),\n        }}\n    }}\n}}\n");
    }
    let entries: Vec<String> = (0..codes.len())
        .map(|i| {
            let f = match &fast_entries[i] {
                Some(e) => format!("Some({})", e),
                None => "None".to_string(),
            };
            format!("NativeEntry {{ index: {}, ins: &INS_{}, f: c{}, fast: {} }}", i, i, i, f)
        })
        .collect();
    let _ = writeln!(out, "pub static NATIVES: [NativeEntry; {}] = [{}];\n", codes.len(), entries.join(", "));
    Ok(out)
}
