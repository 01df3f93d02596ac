(* topup agent, bytecode driver: the shared agent core (agent_core.ml) on OCaml's own bytecode
   toplevel library (Toploop, compiler-libs.toplevel). *)

module Bytecode = struct
  let driver = "bytecode"
  let toplevel_env = Toploop.toplevel_env

  let init () =
    Toploop.set_paths ();
    Toploop.initialize_toplevel_env ()

  let parse_use_file lexbuf = !Toploop.parse_use_file lexbuf
  let preprocess_phrase = Toploop.preprocess_phrase
  let execute_phrase = Toploop.execute_phrase

  (* Toploop sets may_trace exactly around the code of a phrase or of a loaded unit. *)
  let running_user_code () = !Toploop.may_trace

  let add_string_directive name ~doc f =
    Toploop.add_directive name (Toploop.Directive_string f) { Toploop.section = "Loading code"; doc }

  let add_directory = Topdirs.dir_directory
  let load_file = Toploop.load_file
  let use_file = Toploop.use_file
  let eval_value_path = Toploop.eval_value_path
  let print_value = Toploop.print_value
  let max_printer_depth = Toploop.max_printer_depth
  let max_printer_steps = Toploop.max_printer_steps
  let findlib_predicates = [ "byte"; "toploop" ]
  let findlib_variable = "archive"

  let linked_packages =
    [ "compiler-libs"; "compiler-libs.common"; "compiler-libs.bytecomp"; "compiler-libs.toplevel"; "findlib";
      "findlib.internal"; "unix"; "stdlib" ]

  let archive_kinds = ".cma/.cmo"
end

module Agent = Agent_core.Make (Bytecode)

let () = Agent.main ()
