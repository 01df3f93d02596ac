(* The native backend for a phrase: Clambda to instructions for the in-memory assembler.

   This is the pass pipeline of the compiler's Asmgen.compile_implementation (4.13), run without
   its per-pass profiling. Asmgen wraps every pass of every function in Profile.record, which
   measures CPU time (two getrusage calls) and reads the GC counters before and after, and keeps
   every measure in a table that is never emptied: for a toplevel that compiles phrase after
   phrase, about 70 measures a phrase, and a quarter to a third of what a small phrase costs the
   agent (seen with perf on eval_batch). Nothing reads those measures here. The passes, their
   order and their arguments are the compiler's; only the wrapping is gone.

   The result goes where Asmgen's would: the emitter's instructions are handed to the registered
   internal assembler by X86_proc (Emit.end_assembly), and [Proc.assemble_file] runs what the
   assembler returned with the object's path. *)

let liveness fd = Liveness.fundecl fd; fd

(* Register allocation, repeated while reloading needs new registers (Asmgen.regalloc, with the
   graph-colouring allocator that is the compiler's default). *)
let rec regalloc round fd =
  if round > 50 then Misc.fatal_error (fd.Mach.fun_name ^ ": function too complex, cannot complete register allocation");
  let num_stack_slots =
    if !Clflags.use_linscan then (Interval.build_intervals fd; Linscan.allocate_registers ())
    else (Interf.build_graph fd; Coloring.allocate_registers ())
  in
  let newfd, redo = Reload.fundecl fd num_stack_slots in
  if redo then (Reg.reinit (); Liveness.fundecl newfd; regalloc (round + 1) newfd) else newfd

let compile_fundecl ~funcnames (fd_cmm : Cmm.fundecl) =
  Proc.init ();
  Reg.reset ();
  let fd = Selection.fundecl ~future_funcnames:funcnames fd_cmm in
  let fd = Polling.instrument_fundecl ~future_funcnames:funcnames fd in
  let fd = Comballoc.fundecl fd in
  let fd = CSE.fundecl fd in
  let fd = Deadcode.fundecl (liveness fd) in
  let fd = liveness (Spill.fundecl (liveness fd)) in
  let fd = liveness (Split.fundecl fd) in
  let fd = regalloc 1 fd in
  let lin = Scheduling.fundecl (Linearize.fundecl fd) in
  try Emit.fundecl lin with Emitaux.Error e -> raise (Asmgen.Error (Asmgen.Asm_generation (lin.Linear.fun_name, e)))

let compile_phrases (phrases : Cmm.phrase list) =
  let module S = Misc.Stdlib.String.Set in
  let funcnames =
    List.fold_left (fun s -> function Cmm.Cfunction fd -> S.add fd.Cmm.fun_name s | Cmm.Cdata _ -> s) S.empty phrases
  in
  ignore
    (List.fold_left
       (fun funcnames -> function
          | Cmm.Cfunction fd -> compile_fundecl ~funcnames fd; S.remove fd.Cmm.fun_name funcnames
          | Cmm.Cdata dl -> Emit.data dl; funcnames)
       funcnames phrases)

(* Compile [program] as unit [prefixname]: [toplevel] says which generic functions (caml_applyN,
   caml_curryN…) the unit must emit because no loaded code has them. *)
let compile_implementation ~toplevel ~backend ~prefixname (program : Lambda.program) =
  Emitaux.create_asm_file := false;
  Ident.Set.iter Compilenv.require_global program.Lambda.required_globals;
  let clambda = Closure_middle_end.lambda_to_clambda ~backend ~prefixname ~ppf_dump:Format.err_formatter program in
  Emit.begin_assembly ();
  compile_phrases (Cmmgen.compunit clambda);
  List.iter
    (function Cmm.Cfunction { fun_name; _ } as ph when toplevel fun_name -> compile_phrases [ ph ] | _ -> ())
    (Cmm_helpers.generic_functions true [ Compilenv.current_unit_infos () ]);
  (* Asmgen references the external primitives the unit declares, so that a C library defining
     them is linked in; the loader resolves them against the running program the same way. *)
  compile_phrases
    [ Cmm_helpers.reference_symbols
        (List.filter_map
           (fun prim -> if Primitive.native_name_is_external prim then Some (Primitive.native_name prim) else None)
           !Translmod.primitive_declarations) ];
  Emit.end_assembly ();
  let obj = prefixname ^ Config.ext_obj in
  if Proc.assemble_file (prefixname ^ Config.ext_asm) obj <> 0 then raise (Asmgen.Error (Asmgen.Assembler_error obj))
