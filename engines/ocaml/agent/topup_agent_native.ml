(* topup agent, native driver (topup-opt): the shared agent core (agent_core.ml) on our native
   toplevel (native_toplevel.ml): phrases compiled to native code and loaded with Dynlink. *)

module Native = struct
  let driver = "native"
  let toplevel_env = Native_toplevel.toplevel_env

  (* Compiled phrases go to a directory private to this agent, inside its work dir. *)
  let init () =
    let dir = Filename.concat Agent_core.workdir "phrases" in
    (try Unix.mkdir dir 0o700 with Unix.Unix_error (Unix.EEXIST, _, _) -> ());
    Native_toplevel.init ~work_dir:dir

  let parse_use_file = Native_toplevel.parse_use_file
  let preprocess_phrase = Native_toplevel.preprocess_phrase
  let execute_phrase = Native_toplevel.execute_phrase
  let running_user_code = Native_toplevel.running_user_code
  let add_string_directive name ~doc:_ f = Native_toplevel.add_directive name f
  let add_directory = Native_toplevel.add_directory
  let load_file = Native_toplevel.load_file
  let use_file = Native_toplevel.use_file
  let eval_value_path = Native_toplevel.eval_value_path
  let print_value = Native_toplevel.print_value
  let max_printer_depth = Native_toplevel.max_printer_depth
  let max_printer_steps = Native_toplevel.max_printer_steps

  (* META files name the .cmxs to dynlink in their plugin(native) variable. *)
  let findlib_predicates = [ "native" ]
  let findlib_variable = "plugin"

  let linked_packages =
    [ "compiler-libs"; "compiler-libs.common"; "compiler-libs.optcomp"; "findlib"; "findlib.internal"; "unix"; "dynlink";
      "stdlib" ]

  let archive_kinds = ".cmxs/.cmx/.cmxa"
end

module Agent = Agent_core.Make (Native)

let () = Agent.main ()
