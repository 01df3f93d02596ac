(* The native toplevel of topup-opt, on compiler-libs' native compiler (ocamloptcomp).

   Each phrase is typed in the accumulated environment, translated to Lambda in "store" mode (the
   phrase becomes a compilation unit TOP<n> whose definitions live in its global block, where later
   phrases find them) and compiled by the native backend. The backend hands its instructions to
   our internal assembler (Phrase_assembler), and Phrase_loader places the code in memory,
   registers it with the runtime and runs its initialisation — no process per phrase. A phrase
   needing an instruction that assembler does not know is assembled by `as`, linked into a shared
   object by `ld` and run by the runtime's toplevel entry point (caml_natdynlink_run_toplevel),
   with a line in the log. Values are then read back from the unit's global block by symbol name
   and printed by Value_printer. This follows the design of OCaml's own native toplevel
   (ocamlnat), which Debian does not ship.

   Only the closure (non-flambda) middle end is supported; the agent refuses to start otherwise. *)

open Types

module Str_helpers = struct
  (* Index of the first occurrence of [sub] in [s]. *)
  let find s sub =
    let n = String.length s and m = String.length sub in
    let rec go i = if i + m > n then None else if String.sub s i m = sub then Some i else go (i + 1) in
    go 0
end

type run_result = Run_ok of Obj.t | Run_failed of string

external run_toplevel_unit : string -> string -> run_result = "caml_natdynlink_run_toplevel"

let toplevel_env = ref Env.empty

(* True while a phrase's compiled code, or a loaded plugin's initialisation, runs. *)
let user_code = ref false
let running_user_code () = !user_code

let as_user_code f =
  user_code := true;
  match Phrase_loader.interruptible f with
  | r -> user_code := false; r
  | exception e -> user_code := false; raise e

let max_printer_depth = ref 100
let max_printer_steps = ref 300

(* Where phrases are compiled: set by [init] to a directory private to this agent. *)
let phrase_dir = ref (Filename.get_temp_dir_name ())
let phrase_seq = ref 0

let global_value symbol =
  match Phrase_loader.global_value symbol with
  | Some v -> v
  | None -> (
      match Dynlink.unsafe_get_global_value ~bytecode_or_asm_symbol:symbol with
      | Some v -> v
      | None -> raise Not_found)

(* The runtime value of an identifier: a persistent module by its symbol, a toplevel definition
   by its slot in the global block of the phrase that defined it. *)
let eval_ident id =
  if Ident.persistent id || Ident.global id then global_value (Compilenv.symbol_for_global id)
  else
    let unit, pos = Translmod.nat_toplevel_name id in
    Obj.field (global_value (Compilenv.symbol_for_global unit)) pos

let rec eval_address = function
  | Env.Aident id -> eval_ident id
  | Env.Adot (a, pos) -> Obj.field (eval_address a) pos

let eval_value_path env path = eval_address (Env.find_value_address path env)

let outval_of_value env obj ty =
  Value_printer.outval ~steps:!max_printer_steps ~depth:!max_printer_depth ~eval_address env obj ty

let print_value env obj ppf ty = !Oprint.out_value ppf (outval_of_value env obj ty)

(* What the backend needs to know about the target and the approximations of other units. *)
module Backend = struct
  let symbol_for_global' = Compilenv.symbol_for_global'
  let closure_symbol = Compilenv.closure_symbol
  let really_import_approx = Import_approx.really_import_approx
  let import_symbol = Import_approx.import_symbol
  let size_int = Arch.size_int
  let big_endian = Arch.big_endian
  let max_sensible_number_of_arguments = Proc.max_arguments_for_tailcalls - 1
end

(* A symbol the phrase refers to must be emitted by it unless some loaded code already has it. *)
let symbol_missing sym = Option.is_none (Phrase_loader.find_symbol sym)

let remove_quietly path = try Sys.remove path with Sys_error _ -> ()

(* The compiled phrase could not be loaded: usually it uses a module whose interface is on the
   load path but whose code was never loaded (e.g. Str after a reset, before #require "str"). *)
exception Phrase_not_loadable of string

let explain_dlopen_failure msg =
  let marker = "undefined symbol: caml" in
  match Str_helpers.find msg marker with
  | Some i ->
    let rest = String.sub msg (i + String.length marker) (String.length msg - i - String.length marker) in
    let modname = match Str_helpers.find rest "__" with Some j -> String.sub rest 0 j | None -> rest in
    Printf.sprintf "the code of module %s is not loaded (#require its package or load its archive first); the linker said: %s" modname msg
  | None -> "the compiled phrase could not be loaded: " ^ msg

let () =
  Location.register_error_of_exn (function
    | Phrase_not_loadable msg -> Some (Location.errorf ~loc:Location.none "%s" msg)
    | _ -> None)

(* Run a program directly (no shell), its output discarded; true when it exits with 0. *)
let run_quietly prog args =
  match Unix.openfile "/dev/null" [ Unix.O_RDWR; Unix.O_CLOEXEC ] 0 with
  | exception Unix.Unix_error _ -> false
  | null ->
    Fun.protect
      ~finally:(fun () -> Unix.close null)
      (fun () ->
         match Unix.create_process prog (Array.of_list (prog :: args)) null null null with
         | exception Unix.Unix_error _ -> false
         | pid ->
           let rec wait () = match Unix.waitpid [] pid with _, st -> st | exception Unix.Unix_error (Unix.EINTR, _, _) -> wait () in
           wait () = Unix.WEXITED 0)

(* Diagnostics go to the agent's own stderr, which the parent logs; fd 2 itself is the capture
   file of user output once the agent runs (Agent_core.main), so it is duplicated first. *)
let diagnostic =
  let fd = Unix.dup ~cloexec:true Unix.stderr in
  fun msg ->
    let line = Bytes.of_string ("topup-opt: " ^ msg ^ "\n") in
    try ignore (Unix.write fd line 0 (Bytes.length line)) with Unix.Unix_error _ -> ()

(* The symbols a unit refers to (call targets, GOT and pc-relative references, data words). *)
let referenced_symbols (program : X86_ast.asm_program) =
  let names = Hashtbl.create 64 in
  let strip s = match String.index_opt s '@' with Some i -> String.sub s 0 i | None -> s in
  let add s = Hashtbl.replace names (strip s) () in
  let arg = function X86_ast.Sym s | Mem64_RIP (_, s, _) -> add s | _ -> () in
  let rec const = function
    | X86_ast.ConstLabel s -> add s
    | ConstAdd (a, b) | ConstSub (a, b) -> const a; const b
    | Const _ | ConstThis -> ()
  in
  let ins (i : X86_ast.instruction) =
    match i with
    | CALL a | JMP a | J (_, a) | PUSH a | POP a | NEG a | INC a | DEC a | IDIV a | BSWAP a | SET (_, a) -> arg a
    | ADD (a, b) | SUB (a, b) | AND (a, b) | OR (a, b) | XOR (a, b) | CMP (a, b) | TEST (a, b) | MOV (a, b) | LEA (a, b)
    | MOVZX (a, b) | MOVSX (a, b) | MOVSXD (a, b) | MOVSD (a, b) | MOVSS (a, b) | MOVAPD (a, b) | MOVLPD (a, b)
    | ADDSD (a, b) | SUBSD (a, b) | MULSD (a, b) | DIVSD (a, b) | SQRTSD (a, b) | ANDPD (a, b) | XORPD (a, b)
    | COMISD (a, b) | UCOMISD (a, b) | CVTSI2SD (a, b) | CVTTSD2SI (a, b) | CVTSD2SI (a, b) | CVTSD2SS (a, b)
    | CVTSS2SD (a, b) | XCHG (a, b) | SAL (a, b) | SAR (a, b) | SHR (a, b) | CMOV (_, a, b) | ROUNDSD (_, a, b) ->
      arg a; arg b
    | IMUL (a, b) -> arg a; Option.iter arg b
    | _ -> ()
  in
  List.iter
    (function
      | X86_ast.Ins i -> ins i
      | Byte c | Word c | Long c | Quad c -> const c
      | _ -> ())
    program;
  names

(* The external way, used when the assembler below does not know an instruction the phrase
   needs: GNU assembly text, `as`, `ld -shared`, dlopen. The compiler's own link (Config.mkdll,
   the C compiler driver through a shell) starts four processes; the object needs no C library, so
   the linker alone does the same job several times faster. Symbols of units loaded in memory are
   in no dynamic symbol table: they are given to the linker as absolute definitions. *)
let link_shared program obj dll =
  let defsyms =
    Hashtbl.fold
      (fun name () acc ->
         if Phrase_loader.is_loaded_here name then
           match Phrase_loader.find_symbol name with
           | Some a -> Printf.sprintf "--defsym=%s=0x%nx" name a :: acc
           | None -> acc
         else acc)
      (referenced_symbols program) []
  in
  if not (run_quietly "ld" ([ "-shared"; "-o"; dll; obj ] @ defsyms)) then Asmlink.call_linker_shared [ obj ] dll

let assembler = match String.split_on_char ' ' Config.asm |> List.filter (( <> ) "") with prog :: args -> (prog, args) | [] -> ("as", [])

let assemble_externally (program : X86_ast.asm_program) obj =
  let asm = Filename.remove_extension obj ^ ".s" in
  let oc = open_out asm in
  Fun.protect ~finally:(fun () -> close_out_noerr oc) (fun () -> X86_gas.generate_asm oc program);
  let prog, args = assembler in
  let ok = run_quietly prog (args @ [ "-o"; obj; asm ]) in
  remove_quietly asm;
  if not ok then raise (Phrase_not_loadable (Printf.sprintf "the assembler (%s) failed on the compiled phrase" prog))

(* What the backend handed to the internal assembler for the phrase being compiled. *)
type assembled = Nothing | In_memory of X86_ast.asm_program * Phrase_assembler.program | External of X86_ast.asm_program

let last_assembled = ref Nothing

(* Set while the compiler links a .cmx/.cmxa into a .cmxs for #load: that needs real objects. *)
let objects_only = ref false

(* The backend hands its instructions to an "internal assembler" when one is registered. Ours
   encodes them itself (Phrase_assembler) and writes no object file; on an instruction it does not
   know, it says so in the log and writes the object with `as`. *)
let internal_assembler (program : X86_ast.asm_program) : string -> unit =
  if !objects_only then assemble_externally program
  else
  match Phrase_assembler.assemble program with
  | p -> last_assembled := In_memory (program, p); fun _obj -> ()
  | exception Phrase_assembler.Unsupported what ->
    diagnostic (Printf.sprintf "the in-memory assembler does not know %s; this phrase goes through as and ld" what);
    last_assembled := External program;
    assemble_externally program

let run_dll ~unit_name ~prefix program =
  let obj = prefix ^ Config.ext_obj and dll = prefix ^ Config.ext_dll in
  (* An interrupt that lands while the files are removed must not replace the phrase's outcome
     (the parent repeats SIGINT until it gets an answer). *)
  let rec cleanup () = try remove_quietly obj; remove_quietly dll with Sys.Break -> cleanup () in
  (match link_shared program obj dll with () -> () | exception e -> cleanup (); raise e);
  match as_user_code (fun () -> run_toplevel_unit dll unit_name) with
  | Run_ok v -> cleanup (); Phrase_loader.add_dlopened_unit unit_name; Ok v
  | Run_failed msg -> cleanup (); raise (Phrase_not_loadable (explain_dlopen_failure msg))
  | exception e -> cleanup (); Error e

(* Compile [lam] (the code of unit [unit_name]) and run it: in memory, or as a shared object. *)
let compile_and_run ~unit_name lam size =
  let prefix = Filename.concat !phrase_dir unit_name in
  let program =
    { Lambda.code = Simplif.simplify_lambda lam;
      main_module_block_size = size;
      module_ident = Ident.create_persistent unit_name;
      required_globals = Ident.Set.empty }
  in
  last_assembled := Nothing;
  Phrase_codegen.compile_implementation ~toplevel:symbol_missing ~backend:(module Backend : Backend_intf.S)
    ~prefixname:prefix program;
  match !last_assembled with
  | Nothing -> failwith "the native backend produced no code for the phrase"
  | External program -> run_dll ~unit_name ~prefix program
  | In_memory (program, assembled) -> (
      match Phrase_loader.load_and_run ~around:as_user_code assembled unit_name with
      | v -> Ok v
      | exception Phrase_loader.Undefined_symbol sym ->
        raise (Phrase_not_loadable (explain_dlopen_failure ("undefined symbol: " ^ sym)))
      | exception Phrase_assembler.Unsupported what ->
        diagnostic (Printf.sprintf "the in-memory loader cannot place this phrase (%s); it goes through as and ld" what);
        assemble_externally program (prefix ^ Config.ext_obj);
        run_dll ~unit_name ~prefix program
      | exception e -> Error e)

(* [let _ = e] and a bare expression are compiled as [let _$ = e], so the value can be read back. *)
let as_binding (items : Parsetree.structure) =
  match items with
  | [ { pstr_desc = Pstr_eval (e, attrs); pstr_loc = loc } ]
  | [ { pstr_desc =
          Pstr_value
            (Asttypes.Nonrecursive, [ { pvb_expr = e; pvb_pat = { ppat_desc = Ppat_any; _ }; pvb_attributes = attrs; _ } ]);
        pstr_loc = loc } ] ->
    let pat = Ast_helper.Pat.var (Location.mknoloc "_$") in
    ([ Ast_helper.Str.value ~loc Asttypes.Nonrecursive [ Ast_helper.Vb.mk ~loc ~attrs pat e ] ], true)
  | _ -> (items, false)

let outcome_items env sg =
  Printtyp.print_items
    (fun env -> function
       | Sig_value (id, { val_kind = Val_reg; val_type; _ }, _) -> Some (outval_of_value env (eval_ident id) val_type)
       | _ -> None)
    env sg

let execute_definitions print_outcome ppf (items : Parsetree.structure) =
  let oldenv = !toplevel_env in
  incr phrase_seq;
  let unit_name = Printf.sprintf "TOP%d" !phrase_seq in
  Compilenv.reset unit_name;
  Typecore.reset_delayed_checks ();
  let items, rewritten = as_binding items in
  let str, sg, names, newenv = Typemod.type_toplevel_phrase oldenv items in
  let sg' = Typemod.Signature_names.simplify newenv names sg in
  ignore (Includemod.signatures oldenv ~mark:Mark_positive sg sg');
  Typecore.force_delayed_checks ();
  let size, lam = Translmod.transl_store_phrases unit_name str in
  Warnings.check_fatal ();
  match compile_and_run ~unit_name lam size with
  | exception e -> toplevel_env := oldenv; raise e
  | Ok _ ->
    toplevel_env := newenv;
    Compilenv.record_global_approx_toplevel ();
    let phrase =
      if not print_outcome then Outcometree.Ophr_signature []
      else
        Printtyp.wrap_printing_env ~error:false oldenv (fun () ->
            match (str.Typedtree.str_items, sg') with
            | [], _ -> Outcometree.Ophr_signature []
            | _, [ Sig_value (id, vd, _) ] when rewritten ->
              Outcometree.Ophr_eval (outval_of_value newenv (eval_ident id) vd.val_type, Printtyp.tree_of_type_scheme vd.val_type)
            | _ -> Outcometree.Ophr_signature (outcome_items oldenv sg'))
    in
    !Oprint.out_phrase ppf phrase;
    true
  | Error exn ->
    toplevel_env := oldenv;
    if exn = Out_of_memory then Gc.full_major ();
    let shown = outval_of_value oldenv (Obj.repr exn) Predef.type_exn in
    !Oprint.out_phrase ppf (Outcometree.Ophr_exception (exn, shown));
    false

(* Directives: only those the agent registers (all take one string argument). *)
let directives : (string, string -> unit) Hashtbl.t = Hashtbl.create 8
let add_directive name f = Hashtbl.replace directives name f

let execute_phrase print_outcome ppf (phr : Parsetree.toplevel_phrase) =
  match phr with
  | Ptop_def items -> execute_definitions print_outcome ppf items
  | Ptop_dir { pdir_name = { txt = name; _ }; pdir_arg; _ } -> (
      match (Hashtbl.find_opt directives name, pdir_arg) with
      | None, _ ->
        let known = Hashtbl.fold (fun k _ acc -> ("#" ^ k) :: acc) directives [] |> List.sort compare in
        Format.fprintf ppf "Unknown directive #%s (the native toplevel knows %s).@." name (String.concat ", " known);
        false
      | Some f, Some { pdira_desc = Pdir_string s; _ } -> f s; true
      | Some _, _ ->
        Format.fprintf ppf "Directive #%s expects a string argument.@." name;
        false)

(* No poll points are added to a phrase: while its code runs, an interrupt stops it at whatever
   instruction it is (Phrase_loader.interruptible, phrase_loader_stubs.c), so a recursion that
   neither allocates nor loops (naive fib) is as interruptible as a loop, and runs as fast as the
   same code compiled by ocamlopt. *)
let preprocess_phrase _ppf (phr : Parsetree.toplevel_phrase) =
  match phr with
  | Ptop_def str ->
    Parsetree.Ptop_def (Pparse.apply_rewriters_str ~restore:true ~tool_name:"ocaml" str)
  | phr -> phr

let parse_use_file lexbuf = Parse.use_file lexbuf

(* Load a .cmxs, or a .cmx/.cmxa linked into a temporary .cmxs first. *)
let load_file ppf path =
  match Load_path.find path with
  | exception Not_found -> Format.fprintf ppf "File not found: %s@." path; false
  | path ->
    let linked = Filename.check_suffix path ".cmx" || Filename.check_suffix path ".cmxa" in
    let cmxs =
      if linked then begin
        incr phrase_seq;
        let out = Filename.concat !phrase_dir (Printf.sprintf "load%d.cmxs" !phrase_seq) in
        objects_only := true;
        Fun.protect ~finally:(fun () -> objects_only := false) (fun () -> Asmlink.link_shared ~ppf_dump:ppf [ path ] out);
        out
      end
      else path
    in
    Fun.protect
      ~finally:(fun () -> if linked then remove_quietly cmxs)
      (fun () ->
         match as_user_code (fun () -> Dynlink.loadfile cmxs) with
         | () -> true
         | exception Dynlink.Error err ->
           Format.fprintf ppf "Error while loading %s: %s.@." path (Dynlink.error_message err);
           false
         | exception e ->
           let shown = outval_of_value !toplevel_env (Obj.repr e) Predef.type_exn in
           !Oprint.out_phrase ppf (Outcometree.Ophr_exception (e, shown));
           false)

let use_file ppf path =
  match Load_path.find path with
  | exception Not_found -> Format.fprintf ppf "Cannot find file %s.@." path; false
  | file ->
    let ic = open_in_bin file in
    Fun.protect
      ~finally:(fun () -> close_in ic)
      (fun () ->
         let lb = Lexing.from_channel ic in
         Location.init lb file;
         let saved_name = !Location.input_name and saved_lexbuf = !Location.input_lexbuf in
         Location.input_name := file;
         Location.input_lexbuf := Some lb;
         Fun.protect
           ~finally:(fun () -> Location.input_name := saved_name; Location.input_lexbuf := saved_lexbuf)
           (fun () ->
              try List.for_all (fun phr -> execute_phrase true ppf (preprocess_phrase ppf phr)) (parse_use_file lb)
              with e -> Location.report_exception ppf e; false))

let add_directory dir = Load_path.add_dir (Misc.expand_directory Config.standard_library dir)

let init ~work_dir =
  if Config.flambda then failwith "this OCaml is built with flambda; the topup-opt agent supports the closure middle end only";
  (* Phrases are compiled in [work_dir]; the temp dir stays the user's (user code may use it). *)
  phrase_dir := work_dir;
  Clflags.native_code := true;
  Clflags.dlcode := true;
  Clflags.debug := true;
  X86_proc.register_internal_assembler internal_assembler;
  Emitaux.binary_backend_available := true;
  Compmisc.init_path ();
  Load_path.add_dir "";
  toplevel_env := Compmisc.initial_env ();
