(* topup agent core, shared by the bytecode agent (topup_agent.ml, on Toploop) and the native
   agent (topup_agent_native.ml, on Native_toplevel): the protocol, the capture of user output,
   interrupts and deadlines, and every request, written once against the TOPLEVEL signature.

   Protocol: one JSON object per line on file descriptor 3, both directions (the parent gives
   the agent a socketpair there). fds 1 and 2 belong to user code: around each phrase they are
   redirected to the capture files <workdir>/stdout and <workdir>/stderr, which the parent reads
   after every answer (and after a crash, so output written before an [exit] is not lost).
   File descriptor 4, when open, is the watchdog's (see [start_watchdog]); fd 3 is close-on-exec
   and only the agent's own process ever reads or writes it (see [leave_if_forked]).

   Requests (parent -> agent):
     {"op":"eval","source":S}      {"op":"env","all":B}     {"op":"lookup","name":S}
     {"op":"load","path":S}        {"op":"check_entry","name":S}
     {"op":"eval_batch","sources":[S],"timeout":N,"journal":PATH,"capture_cap":N}  (results go to PATH, see eval_batch)
   Answers (agent -> parent): {"ok":true,...} or {"ok":false,"error":S}; eval always answers
   ok:true and puts failures in its "error" field.

   Interrupts: SIGINT and an eval_batch deadline become Sys.Break only while a phrase's own code
   runs; one that arrives while the phrase is parsed, typed or compiled is not acted on there
   (see [on_interrupt]), and SIGINT is ignored between phrases, so an interrupt that arrives late
   is simply dropped. Version-specific compiler-libs usage is
   kept to the agents' files (checked against 4.13.1). *)

(* ---------- minimal JSON ---------- *)

type json =
  | Null
  | Bool of bool
  | Num of float
  | Str of string
  | Arr of json list
  | Obj of (string * json) list

exception Bad_json of string

let parse_json (s : string) : json =
  let n = String.length s in
  let i = ref 0 in
  let peek () = if !i < n then s.[!i] else '\000' in
  let rec ws () = if !i < n && (match s.[!i] with ' ' | '\t' | '\n' | '\r' -> true | _ -> false) then (incr i; ws ()) in
  let expect c = if peek () = c then incr i else raise (Bad_json (Printf.sprintf "expected %c at %d" c !i)) in
  let add_utf8 b code =
    if code < 0x80 then Buffer.add_char b (Char.chr code)
    else if code < 0x800 then begin
      Buffer.add_char b (Char.chr (0xC0 lor (code lsr 6)));
      Buffer.add_char b (Char.chr (0x80 lor (code land 0x3F)))
    end else if code < 0x10000 then begin
      Buffer.add_char b (Char.chr (0xE0 lor (code lsr 12)));
      Buffer.add_char b (Char.chr (0x80 lor ((code lsr 6) land 0x3F)));
      Buffer.add_char b (Char.chr (0x80 lor (code land 0x3F)))
    end else begin
      Buffer.add_char b (Char.chr (0xF0 lor (code lsr 18)));
      Buffer.add_char b (Char.chr (0x80 lor ((code lsr 12) land 0x3F)));
      Buffer.add_char b (Char.chr (0x80 lor ((code lsr 6) land 0x3F)));
      Buffer.add_char b (Char.chr (0x80 lor (code land 0x3F)))
    end
  in
  let hex4 () =
    if !i + 4 > n then raise (Bad_json "short \\u escape");
    let v = int_of_string ("0x" ^ String.sub s !i 4) in
    i := !i + 4;
    v
  in
  let parse_string () =
    expect '"';
    let b = Buffer.create 16 in
    let rec loop () =
      if !i >= n then raise (Bad_json "unterminated string");
      let c = s.[!i] in
      incr i;
      match c with
      | '"' -> ()
      | '\\' ->
        let e = peek () in
        incr i;
        (match e with
         | '"' -> Buffer.add_char b '"'
         | '\\' -> Buffer.add_char b '\\'
         | '/' -> Buffer.add_char b '/'
         | 'b' -> Buffer.add_char b '\b'
         | 'f' -> Buffer.add_char b '\012'
         | 'n' -> Buffer.add_char b '\n'
         | 'r' -> Buffer.add_char b '\r'
         | 't' -> Buffer.add_char b '\t'
         | 'u' ->
           let hi = hex4 () in
           if hi >= 0xD800 && hi < 0xDC00 && !i + 6 <= n && s.[!i] = '\\' && s.[!i + 1] = 'u' then begin
             i := !i + 2;
             let lo = hex4 () in
             add_utf8 b (0x10000 + ((hi - 0xD800) lsl 10) + (lo - 0xDC00))
           end else add_utf8 b hi
         | _ -> raise (Bad_json "bad escape"));
        loop ()
      | c -> Buffer.add_char b c; loop ()
    in
    loop ();
    Buffer.contents b
  in
  let rec value () =
    ws ();
    match peek () with
    | '{' ->
      incr i; ws ();
      if peek () = '}' then (incr i; Obj [])
      else
        let rec fields acc =
          ws ();
          let k = parse_string () in
          ws (); expect ':';
          let v = value () in
          ws ();
          match peek () with
          | ',' -> incr i; fields ((k, v) :: acc)
          | '}' -> incr i; Obj (List.rev ((k, v) :: acc))
          | _ -> raise (Bad_json "expected , or }")
        in
        fields []
    | '[' ->
      incr i; ws ();
      if peek () = ']' then (incr i; Arr [])
      else
        let rec items acc =
          let v = value () in
          ws ();
          match peek () with
          | ',' -> incr i; items (v :: acc)
          | ']' -> incr i; Arr (List.rev (v :: acc))
          | _ -> raise (Bad_json "expected , or ]")
        in
        items []
    | '"' -> Str (parse_string ())
    | 't' -> i := !i + 4; Bool true
    | 'f' -> i := !i + 5; Bool false
    | 'n' -> i := !i + 4; Null
    | _ ->
      let start = !i in
      while !i < n && (match s.[!i] with '0' .. '9' | '-' | '+' | '.' | 'e' | 'E' -> true | _ -> false) do incr i done;
      if !i = start then raise (Bad_json "unexpected character");
      Num (float_of_string (String.sub s start (!i - start)))
  in
  value ()

let field name = function Obj l -> (try List.assoc name l with Not_found -> Null) | _ -> Null
let str_field name j = match field name j with Str s -> s | _ -> raise (Bad_json ("missing string field " ^ name))
let bool_field name j = match field name j with Bool b -> b | _ -> false

let escape_json (s : string) : string =
  let b = Buffer.create (String.length s + 16) in
  Buffer.add_char b '"';
  String.iter
    (fun c ->
       match c with
       | '"' -> Buffer.add_string b "\\\""
       | '\\' -> Buffer.add_string b "\\\\"
       | '\n' -> Buffer.add_string b "\\n"
       | '\r' -> Buffer.add_string b "\\r"
       | '\t' -> Buffer.add_string b "\\t"
       | c when Char.code c < 0x20 || Char.code c = 0x7F -> Buffer.add_string b (Printf.sprintf "\\u%04x" (Char.code c))
       | c -> Buffer.add_char b c)
    s;
  Buffer.add_char b '"';
  Buffer.contents b

let rec to_json = function
  | Null -> "null"
  | Bool b -> if b then "true" else "false"
  | Num f -> if Float.is_integer f then Printf.sprintf "%.0f" f else Printf.sprintf "%.17g" f
  | Str s -> escape_json s
  | Arr l -> "[" ^ String.concat "," (List.map to_json l) ^ "]"
  | Obj l -> "{" ^ String.concat "," (List.map (fun (k, v) -> escape_json k ^ ":" ^ to_json v) l) ^ "}"

let opt_str = function None -> Null | Some s -> Str s

(* ---------- protocol channel and capture files ---------- *)

(* The channel is close-on-exec: a program user code starts (Sys.command, Unix.create_process)
   never holds it, so `echo x >&3` fails in that program instead of writing into the protocol. *)
let proto_fd : Unix.file_descr = Obj.magic 3
let () = Unix.set_close_on_exec proto_fd
let proto_in = Unix.in_channel_of_descr proto_fd
let proto_out = Unix.out_channel_of_descr proto_fd

(* ---------- processes forked by user code ---------- *)

(* A process that user code forks (Unix.fork, or a C library's fork) is a copy of the agent,
   channel included, and returns into the agent's code when the phrase ends there: left alone it
   would answer the request too and then read later requests, so calls would be answered by two
   toplevels in turn. It must never speak. OCaml 4.13 has no fork hook to close the channel in the
   child (and a closed fd number could be reused by the child's own files), so the agent checks
   its pid where control comes back from user code — right after each phrase — and before every
   read or write of the channel: a process that is not the agent says so on its stderr (the
   capture, so the answer usually shows it) and exits at once, with the status a program would
   have had there: 0, or 2 after an uncaught exception. *)
let agent_pid = Unix.getpid ()

let flush_all () =
  (try Format.pp_print_flush Format.std_formatter () with _ -> ());
  (try Format.pp_print_flush Format.err_formatter () with _ -> ());
  (try flush stdout with _ -> ());
  (try flush stderr with _ -> ())

let leave_if_forked ~failed =
  let pid = Unix.getpid () in
  if pid <> agent_pid then begin
    flush_all ();
    let status = if failed then 2 else 0 in
    (try
       prerr_string
         (Printf.sprintf
            "topup: process %d, forked by user code, reached the end of the phrase; only the toplevel (pid %d) answers, so it exits here (status %d)\n"
            pid agent_pid status);
       flush stderr
     with _ -> ());
    Unix._exit status
  end

let send (j : json) =
  leave_if_forked ~failed:false;
  output_string proto_out (to_json j);
  output_char proto_out '\n';
  flush proto_out

(* ---------- the watchdog: the agent's process group dies with the server ---------- *)

(* The server starts the agent as the leader of its own process group (a new session), so what
   user code forks stays in that group. When the server stops normally it kills the group. When
   it dies without running any code (SIGKILL), the kernel closes its end of fd 4, a socketpair
   the agent never reads or writes: a small process forked at start-up (before any user code)
   blocks reading its copy and, at end of file, kills the whole group — the agent wherever it is
   (looping in native code, blocked in a system call) and everything user code forked. It is
   forked twice over so that it is no child of the agent (user code's [Unix.wait] never sees
   it). Without fd 4 (the agent started by hand) there is no watchdog. *)
let watchdog_fd : Unix.file_descr = Obj.magic 4

let start_watchdog () =
  match Unix.fstat watchdog_fd with
  | exception Unix.Unix_error _ -> ()
  | _ -> (
      match Unix.fork () with
      | 0 ->
        (match Unix.fork () with
         | 0 ->
           (try Sys.set_signal Sys.sigint Sys.Signal_ignore with _ -> ());
           (try
              let null = Unix.openfile "/dev/null" [ Unix.O_RDWR ] 0 in
              List.iter (fun fd -> Unix.dup2 null fd) [ Unix.stdin; Unix.stdout; Unix.stderr ];
              Unix.close null;
              Unix.close proto_fd
            with _ -> ());
           let buf = Bytes.create 64 in
           let rec wait () =
             match Unix.read watchdog_fd buf 0 64 with
             | 0 -> ()
             | _ -> wait ()
             | exception Unix.Unix_error (Unix.EINTR, _, _) -> wait ()
             | exception Unix.Unix_error _ -> ()
           in
           wait ();
           (* The group is the agent's when the server made it a group leader; otherwise only the
              agent itself is ours to kill. *)
           (try Unix.kill (- agent_pid) Sys.sigkill with Unix.Unix_error _ -> ());
           (try Unix.kill agent_pid Sys.sigkill with Unix.Unix_error _ -> ());
           Unix._exit 0
         | _ -> Unix._exit 0)
      | pid ->
        let rec reap () = try ignore (Unix.waitpid [] pid) with Unix.Unix_error (Unix.EINTR, _, _) -> reap () in
        reap ();
        Unix.close watchdog_fd)

let workdir =
  match Sys.getenv_opt "TOPUP_AGENT_WORKDIR" with
  | Some d -> d
  | None -> prerr_endline "topup agent: TOPUP_AGENT_WORKDIR is not set"; exit 2

let open_capture name = Unix.openfile (Filename.concat workdir name) [ Unix.O_RDWR; Unix.O_CREAT; Unix.O_TRUNC; Unix.O_CLOEXEC ] 0o600
let out_capture = open_capture "stdout"
let err_capture = open_capture "stderr"

(* fds 1 and 2 point at the capture files for the agent's whole life (set up in main), sharing
   their file offsets: starting an eval's capture is rewinding them, which costs no syscall at
   all when the previous eval printed nothing. Output written between evals (background threads)
   is dropped by that rewind; output written during an eval, by anyone, lands in its capture. *)
let truncate_capture fd size = if size > 0 then (Unix.ftruncate fd 0; ignore (Unix.lseek fd 0 Unix.SEEK_SET))

(* [known]: the capture sizes measured an instant ago, at the end of the previous element of the
   same batch, which spares two system calls per element. (Output a background thread writes in
   that instant is not dropped but lands in the next element's capture, as the Limits in
   docs/topup.md allow.) *)
let truncate_captures ?known () =
  match known with
  | Some (out, err) -> truncate_capture out_capture out; truncate_capture err_capture err
  | None -> List.iter (fun fd -> truncate_capture fd (Unix.lseek fd 0 Unix.SEEK_CUR)) [ out_capture; err_capture ]

let captured_bytes fd = Unix.lseek fd 0 Unix.SEEK_CUR

(* Run [f], then push what user code left in the OCaml-side buffers into the capture files. *)
let with_capture f =
  match f () with
  | r -> flush_all (); r
  | exception e -> flush_all (); raise e

(* ---------- interrupts ---------- *)

(* After this, no SIGINT can reach the next request: one recorded before it but not acted on yet
   (native code acts on signals only at its next allocation) is acted on here, by the allocation,
   and dropped. *)
let rec ignore_sigint () =
  try
    Sys.set_signal Sys.sigint Sys.Signal_ignore;
    ignore (Sys.opaque_identity (ref 0))
  with Sys.Break -> ignore_sigint ()

(* An interrupt that arrived while cleanup code ran reaches us wrapped. *)
let is_break = function Sys.Break | Fun.Finally_raised Sys.Break -> true | _ -> false

(* Per-element deadlines of eval_batch: an interval timer whose SIGALRM raises Sys.Break inside a
   running phrase (the same path as an interrupt, see [Make.on_alarm]). An alarm between phrases
   is remembered and stops the element before its next phrase starts. *)
let in_phrase = ref false
let alarm_pending = ref false

let set_deadline seconds =
  alarm_pending := false;
  ignore (Unix.setitimer Unix.ITIMER_REAL { Unix.it_interval = 0.; it_value = seconds })

let clear_deadline () =
  ignore (Unix.setitimer Unix.ITIMER_REAL { Unix.it_interval = 0.; it_value = 0. });
  alarm_pending := false

(* ---------- recording what the toplevel would print ---------- *)

let original_out_phrase = !Oprint.out_phrase
let recorded : Outcometree.out_phrase option ref = ref None
let () = Oprint.out_phrase := fun _ppf phr -> recorded := Some phr

let warnings : string list ref = ref []

let render_report report = Format.asprintf "%a" Location.print_report report

let () =
  Location.warning_reporter :=
    (fun loc w ->
       (match Location.default_warning_reporter loc w with
        | Some r -> warnings := String.trim (render_report r) :: !warnings
        | None -> ());
       None);
  Location.alert_reporter :=
    (fun loc a ->
       (match Location.default_alert_reporter loc a with
        | Some r -> warnings := String.trim (render_report r) :: !warnings
        | None -> ());
       None)

(* Messages the toplevel prints itself (directive output, load errors). *)
let msg_buf = Buffer.create 256
let msg_ppf = Format.formatter_of_buffer msg_buf
let take_messages () =
  Format.pp_print_flush msg_ppf ();
  let s = Buffer.contents msg_buf in
  Buffer.clear msg_buf;
  String.trim s

exception Directive_failed of string

(* ---------- errors ---------- *)

type failure = { kind : string; message : string; loc : Location.t option }

let location_json (loc : Location.t) =
  let open Lexing in
  let s = loc.Location.loc_start and e = loc.Location.loc_end in
  Obj
    [ ("file", Str s.pos_fname);
      ("line", Num (float_of_int s.pos_lnum));
      ("column", Num (float_of_int (s.pos_cnum - s.pos_bol)));
      ("end_line", Num (float_of_int e.pos_lnum));
      ("end_column", Num (float_of_int (e.pos_cnum - e.pos_bol))) ]

let failure_of_exn kind exn =
  match exn with
  | e when is_break e -> { kind = "timeout"; message = "evaluation timed out"; loc = None }
  | Directive_failed m -> { kind = "directive"; message = m; loc = None }
  | _ -> (
      match Location.error_of_exn exn with
      | Some (`Ok report) ->
        { kind; message = String.trim (render_report report); loc = Some report.Location.main.Location.loc }
      | Some `Already_displayed | None ->
        { kind; message = "Exception: " ^ Printexc.to_string exn; loc = None })

let failure_json f =
  Obj
    [ ("kind", Str f.kind);
      ("message", Str f.message);
      ("location", match f.loc with Some l when not l.Location.loc_ghost -> location_json l | _ -> Null) ]


(* ---------- what a toplevel driver provides ---------- *)

module type TOPLEVEL = sig
  (** "bytecode" or "native", reported in the ready line. *)
  val driver : string
  val toplevel_env : Env.t ref
  (** Set the load path and the initial environment. *)
  val init : unit -> unit
  val parse_use_file : Lexing.lexbuf -> Parsetree.toplevel_phrase list
  val preprocess_phrase : Format.formatter -> Parsetree.toplevel_phrase -> Parsetree.toplevel_phrase
  (** Run one phrase; the outcome goes through [!Oprint.out_phrase]; false when it failed. *)
  val execute_phrase : bool -> Format.formatter -> Parsetree.toplevel_phrase -> bool
  (** True while the code of a phrase (or of a file it loads) runs, as opposed to the toplevel
      parsing, typing, compiling or printing it. *)
  val running_user_code : unit -> bool
  val add_string_directive : string -> doc:string -> (string -> unit) -> unit
  val add_directory : string -> unit
  (** Load a compiled archive (.cma/.cmo, or .cmxs/.cmx/.cmxa); messages to the formatter. *)
  val load_file : Format.formatter -> string -> bool
  val use_file : Format.formatter -> string -> bool
  val eval_value_path : Env.t -> Path.t -> Obj.t
  val print_value : Env.t -> Obj.t -> Format.formatter -> Types.type_expr -> unit
  val max_printer_depth : int ref
  val max_printer_steps : int ref
  (** Findlib: the predicates and the META variable naming what to load at run time. *)
  val findlib_predicates : string list
  val findlib_variable : string
  (** Packages linked into the agent itself: loading them again would clash. *)
  val linked_packages : string list
  (** What the #load directive takes, for its documentation. *)
  val archive_kinds : string
end

module Make (T : TOPLEVEL) = struct

(* ---------- where an interrupt may land ---------- *)

(* Sys.Break is raised only inside the phrase's own code. Raised inside the compiler it would do
   lasting harm: the typing environment computes module components lazily and memoizes an
   exception raised while doing so (Env's lazy values keep [Raise e]), so one interrupt that
   lands while, say, Stdlib.Sys is first looked up makes every later phrase that mentions it fail
   with "evaluation timed out" — the native driver's poll points mention it in every [let rec].
   An interrupt that arrives while the toplevel works is therefore dropped; the parent repeats
   SIGINT every 100 ms until the answer comes, so the next one lands in the phrase's code (a
   phrase that never gets there, stuck in the compiler, is killed after the grace period). *)
let on_interrupt _ = if T.running_user_code () then raise Sys.Break

(* A deadline that passes while the toplevel works on a phrase is tried again a moment later,
   once the phrase's code may be running; between phrases it is remembered. *)
let on_alarm _ =
  if T.running_user_code () then (in_phrase := false; raise Sys.Break)
  else if !in_phrase then ignore (Unix.setitimer Unix.ITIMER_REAL { Unix.it_interval = 0.; it_value = 0.005 })
  else alarm_pending := true

let () = Sys.set_signal Sys.sigalrm (Sys.Signal_handle on_alarm)

(* ---------- findlib-backed directives that fail loudly ---------- *)

let predicates = T.findlib_predicates

(* Packages linked into the agent itself: loading their archives again would clash. *)
let loaded_packages : (string, unit) Hashtbl.t = Hashtbl.create 16
let () = List.iter (fun p -> Hashtbl.replace loaded_packages p ()) T.linked_packages

let split_words s =
  String.split_on_char ' ' (String.map (fun c -> if c = ',' || c = '\t' || c = '\n' then ' ' else c) s)
  |> List.filter (fun w -> w <> "")

let findlib_ready = ref false
let ensure_findlib () =
  if not !findlib_ready then begin
    (try Findlib.init () with e -> raise (Directive_failed ("findlib could not be initialised: " ^ Printexc.to_string e)));
    findlib_ready := true
  end

let load_archive path =
  if not (T.load_file msg_ppf path) then
    let detail = take_messages () in
    raise (Directive_failed (Printf.sprintf "Cannot load %s%s" path (if detail = "" then "" else ": " ^ detail)))

let require names =
  ensure_findlib ();
  let pkgs = split_words names in
  if pkgs = [] then raise (Directive_failed "#require needs a package name, e.g. #require \"str\"");
  let deps =
    try Findlib.package_deep_ancestors predicates pkgs with
    | Findlib.No_such_package (p, why) ->
      raise (Directive_failed (Printf.sprintf "No such package: %s%s" p (if why = "" then "" else " - " ^ why)))
    | Findlib.Package_loop p -> raise (Directive_failed ("Package requires itself: " ^ p))
  in
  List.iter
    (fun p ->
       if not (Hashtbl.mem loaded_packages p) then begin
         let dir = Findlib.package_directory p in
         T.add_directory dir;
         let archives = try split_words (Findlib.package_property predicates p T.findlib_variable) with Not_found -> [] in
         List.iter (fun a -> load_archive (Findlib.resolve_path ~base:dir a)) archives;
         Hashtbl.replace loaded_packages p ()
       end)
    deps

let () =
  T.add_string_directive "require" ~doc:"Load a findlib package and its dependencies; fails if it cannot." require;
  T.add_string_directive "load" ~doc:(Printf.sprintf "Load a compiled file (%s); fails if it cannot." T.archive_kinds) load_archive;
  T.add_string_directive "use" ~doc:"Read, compile and execute source phrases from a file; fails if any fails." (fun path ->
      if not (T.use_file msg_ppf path) then
        let detail = take_messages () in
        raise (Directive_failed (if detail = "" then "Cannot use " ^ path else detail)));
  T.add_string_directive "directory" ~doc:"Add a directory to the load path." T.add_directory

(* ---------- eval ---------- *)

let phrase_span (phr : Parsetree.toplevel_phrase) : (int * int) option =
  match phr with
  | Parsetree.Ptop_def [] -> None
  | Parsetree.Ptop_def items ->
    let first = List.hd items and last = List.nth items (List.length items - 1) in
    Some (first.Parsetree.pstr_loc.Location.loc_start.Lexing.pos_cnum, last.Parsetree.pstr_loc.Location.loc_end.Lexing.pos_cnum)
  | Parsetree.Ptop_dir d -> Some (d.Parsetree.pdir_loc.Location.loc_start.Lexing.pos_cnum, d.Parsetree.pdir_loc.Location.loc_end.Lexing.pos_cnum)

(* #load-ed code is not replayed (the load tool's contract), so it is not logged either. *)
let loggable (phr : Parsetree.toplevel_phrase) =
  match phr with
  | Parsetree.Ptop_dir { Parsetree.pdir_name = { Location.txt = "load" | "load_rec"; _ }; _ } -> false
  | _ -> true

let fmt pp v = Format.asprintf "%a" !pp v

(* What one successful phrase shows: (value_repr, type). *)
let outcome_of (phr : Outcometree.out_phrase option) (messages : string) : string option * string option =
  match phr with
  | Some (Outcometree.Ophr_eval (v, ty)) -> (Some (fmt Oprint.out_value v), Some (fmt Oprint.out_type ty))
  | Some (Outcometree.Ophr_signature items) ->
    let text =
      Format.asprintf "%a" original_out_phrase (Outcometree.Ophr_signature items) |> String.trim
    in
    let last_type =
      List.fold_left
        (fun acc (item, _) ->
           match item with Outcometree.Osig_value { Outcometree.oval_type; _ } -> Some (fmt Oprint.out_type oval_type) | _ -> acc)
        None items
    in
    (Some text, last_type)
  | Some (Outcometree.Ophr_exception _) | None -> ((if messages = "" then None else Some messages), None)

type phrase_result = Phrase_ok of string option * string option | Phrase_failed of failure

let run_phrase (phr : Parsetree.toplevel_phrase) : phrase_result =
  recorded := None;
  ignore (take_messages ());
  let snap = Btype.snapshot () in
  let result =
    if !alarm_pending then `Raised Sys.Break
    else
    with_capture (fun () ->
        try
          in_phrase := true;
          Sys.set_signal Sys.sigint (Sys.Signal_handle on_interrupt);
          let phr = T.preprocess_phrase msg_ppf phr in
          let ok = T.execute_phrase true msg_ppf phr in
          leave_if_forked ~failed:(not ok);
          in_phrase := false;
          ignore_sigint ();
          `Done ok
        with e ->
          leave_if_forked ~failed:true;
          in_phrase := false;
          ignore_sigint ();
          `Raised e)
  in
  let messages = take_messages () in
  match result with
  | `Done true -> let v, t = outcome_of !recorded messages in Phrase_ok (v, t)
  | `Done false -> (
      Btype.backtrack snap;
      match !recorded with
      | Some (Outcometree.Ophr_exception (e, _)) when is_break e -> Phrase_failed (failure_of_exn "timeout" Sys.Break)
      | Some (Outcometree.Ophr_exception _ as p) ->
        Phrase_failed { kind = "exception"; message = String.trim (Format.asprintf "%a" original_out_phrase p); loc = None }
      | _ -> Phrase_failed { kind = "directive"; message = (if messages = "" then "phrase failed" else messages); loc = None })
  | `Raised e ->
    Btype.backtrack snap;
    Phrase_failed (failure_of_exn "compile" e)

let eval_source ?known_captures (source : string) : json =
  truncate_captures ?known:known_captures ();
  warnings := [];
  let lexbuf = Lexing.from_string source in
  Location.input_name := "//toplevel//";
  Location.input_lexbuf := Some lexbuf;
  Location.init lexbuf "//toplevel//";
  let logged = ref [] in
  let last = ref (None, None) in
  let error =
    match T.parse_use_file lexbuf with
    | exception e -> Some (failure_of_exn "syntax" e)
    | phrases ->
      let rec go = function
        | [] -> None
        | phr :: rest -> (
            match run_phrase phr with
            | Phrase_ok (v, t) ->
              (match v, t with None, None -> () | _ -> last := (v, t));
              (if loggable phr then
                 match phrase_span phr with
                 | Some (a, b) when b > a && b <= String.length source -> logged := String.sub source a (b - a) :: !logged
                 | _ -> ());
              go rest
            | Phrase_failed f -> Some f)
      in
      go phrases
  in
  Location.input_lexbuf := None;
  let value_repr, ty = match error with None -> !last | Some _ -> (None, None) in
  let size fd = float_of_int (captured_bytes fd) in
  Obj
    [ ("ok", Bool true);
      ("stdout_bytes", Num (size out_capture));
      ("stderr_bytes", Num (size err_capture));
      ("value_repr", opt_str value_repr);
      ("type", opt_str ty);
      ("warnings", Arr (List.rev_map (fun w -> Str w) !warnings));
      ("error", match error with None -> Null | Some f -> failure_json f);
      ("logged", Arr (List.rev_map (fun s -> Str s) !logged)) ]

(* The capture file, for answers that carry output inline (eval_batch): its first [min size cap]
   bytes, where [size] is the file offset as eval_source reported it and [cap] the engine's
   capture cap (beyond it the engine has been discarding the output, see capture-limit.ts; the
   file is sparse there). Reading leaves the offset at [size]. *)
let read_capture ~cap fd size =
  let want = if cap > 0 then min size cap else size in
  if want = 0 then ""
  else begin
    let buf = Bytes.create want in
    let rec fill off = if off < want then match Unix.read fd buf off (want - off) with 0 -> off | n -> fill (off + n) else off in
    ignore (Unix.lseek fd 0 Unix.SEEK_SET);
    let got = fill 0 in
    ignore (Unix.lseek fd size Unix.SEEK_SET);
    Bytes.sub_string buf 0 got
  end

(* All of [s], written with as many write calls as it takes (one for a small record). *)
let write_all fd s =
  let n = String.length s in
  let rec go off =
    if off < n then
      match Unix.write_substring fd s off (n - off) with
      | k -> go (off + k)
      | exception Unix.Unix_error (Unix.EINTR, _, _) -> go off
  in
  go 0

(* Several sources, each an eval with its own deadline; stops after the first with an error.
   Each element's result (with its output inline) is appended, as one JSON line, to the batch
   journal [journal] — a file the parent created empty and reads as the batch runs — as soon as
   it is known: a crash later in the batch loses nothing already done (the parent reads the
   journal before it replaces the agent), and the parent learns of results without a message or
   a wake-up per element (a write to the channel per element, and the parent's handling of it,
   were most of what a small batch element cost beyond its compile). The answer itself only
   says how the batch ended. *)
let eval_batch sources timeout journal capture_cap =
  let journal = Unix.openfile journal [ Unix.O_WRONLY; Unix.O_APPEND; Unix.O_CLOEXEC ] 0 in
  Fun.protect ~finally:(fun () -> Unix.close journal) @@ fun () ->
  let bytes r name = match field name r with Num n -> int_of_float n | _ -> 0 in
  (* The deadline timer is only cleared once the batch is done: the next element re-arms it, and
     one that fires in between is forgotten by that re-arming (set_deadline), as it concerned an
     element that had already finished. *)
  let rec go known_captures count = function
    | [] -> (count, false)
    | src :: rest ->
      if timeout > 0. then set_deadline timeout;
      let r = eval_source ?known_captures src in
      let out_bytes = bytes r "stdout_bytes" and err_bytes = bytes r "stderr_bytes" in
      let out = read_capture ~cap:capture_cap out_capture out_bytes and err = read_capture ~cap:capture_cap err_capture err_bytes in
      let r = match r with Obj fields -> Obj (fields @ [ ("stdout", Str out); ("stderr", Str err) ]) | j -> j in
      write_all journal (to_json r ^ "\n");
      (match field "error" r with Null -> go (Some (out_bytes, err_bytes)) (count + 1) rest | _ -> (count + 1, true))
  in
  let count, stopped = Fun.protect ~finally:(fun () -> if timeout > 0. then clear_deadline ()) (fun () -> go None 0 sources) in
  Obj [ ("ok", Bool true); ("count", Num (float_of_int count)); ("stopped_on_error", Bool stopped) ]

(* ---------- environment ---------- *)

let print_type env ty = Printtyp.wrap_printing_env ~error:false env (fun () -> Format.asprintf "%a" Printtyp.type_scheme ty)

(* User value bindings, oldest first, newest definition of a name wins. *)
let user_values env =
  let seen = Hashtbl.create 64 in
  let rec walk acc = function
    | Env.Env_empty -> acc
    | Env.Env_value (s, id, vd) ->
      let name = Ident.name id in
      (* "_$" holds the value of a bare expression in the native toplevel: not a user binding. *)
      if Hashtbl.mem seen name || name = "_$" then walk acc s
      else (Hashtbl.replace seen name (); walk ((name, vd.Types.val_type) :: acc) s)
    | Env.Env_type (s, _, _) | Env.Env_extension (s, _, _) | Env.Env_module (s, _, _, _) | Env.Env_modtype (s, _, _)
    | Env.Env_class (s, _, _) | Env.Env_cltype (s, _, _) | Env.Env_open (s, _) | Env.Env_functor_arg (s, _)
    | Env.Env_constraints (s, _) | Env.Env_copy_types s | Env.Env_persistent (s, _) | Env.Env_value_unbound (s, _, _)
    | Env.Env_module_unbound (s, _, _) -> walk acc s
  in
  (walk [] (Env.summary env), seen)

let env_bindings all =
  let env = !T.toplevel_env in
  let users, seen = user_values env in
  let library =
    if not all then []
    else
      Env.fold_values (fun name _path vd acc -> if Hashtbl.mem seen name then acc else (name, vd.Types.val_type) :: acc) None env []
      |> List.sort_uniq (fun (a, _) (b, _) -> compare a b)
  in
  let entry user (name, ty) = Obj [ ("name", Str name); ("type", Str (print_type env ty)); ("user", Bool user) ] in
  Obj [ ("ok", Bool true); ("bindings", Arr (List.map (entry true) users @ List.map (entry false) library)) ]

let parse_longident name =
  try Parse.longident (Lexing.from_string name) with _ -> raise (Directive_failed (Printf.sprintf "%S is not a valid OCaml value name" name))

let preview_cap = 1000

let lookup name =
  let env = !T.toplevel_env in
  match parse_longident name with
  | exception Directive_failed m -> Obj [ ("ok", Bool false); ("error", Str m) ]
  | lid -> (
      match Env.find_value_by_name lid env with
      | exception Not_found -> Obj [ ("ok", Bool false); ("error", Str (Printf.sprintf "Unbound value %s" name)) ]
      | path, vd ->
        let preview =
          match T.eval_value_path env path with
          | exception _ -> None
          | obj ->
            let depth = !T.max_printer_depth and steps = !T.max_printer_steps in
            T.max_printer_depth := 8;
            T.max_printer_steps := 60;
            let text = try Some (Format.asprintf "%a" (fun ppf () -> T.print_value env obj ppf vd.Types.val_type) ()) with _ -> None in
            T.max_printer_depth := depth;
            T.max_printer_steps := steps;
            Option.map
              (fun t ->
                 if String.length t <= preview_cap then t
                 else String.sub t 0 preview_cap ^ Printf.sprintf "…[+%d bytes]" (String.length t - preview_cap))
              text
        in
        let loc = vd.Types.val_loc in
        Obj
          [ ("ok", Bool true);
            ("name", Str (Path.name path));
            ("type", Str (print_type env vd.Types.val_type));
            ("location", if loc.Location.loc_ghost then Null else location_json loc);
            ("preview", opt_str preview) ])

(* compile_to_binary's entry must have type unit -> _: check by typing (entry : unit -> _). *)
let check_entry name =
  let env = !T.toplevel_env in
  match lookup name with
  | Obj (("ok", Bool false) :: _) as e -> e
  | Obj fields as found -> (
      let ty = match List.assoc_opt "type" fields with Some (Str t) -> t | _ -> "?" in
      let snap = Btype.snapshot () in
      let expr = Parse.expression (Lexing.from_string (Printf.sprintf "(%s : unit -> _)" name)) in
      match Typecore.type_expression env expr with
      | _ -> Btype.backtrack snap; found
      | exception _ ->
        Btype.backtrack snap;
        Obj [ ("ok", Bool false); ("error", Str (Printf.sprintf "entry %s has type %s; expected a function of type unit -> _" name ty)) ])
  | other -> other

(* ---------- load (the load tool) ---------- *)

let load path =
  truncate_captures ();
  if not (Filename.is_relative path) then T.add_directory (Filename.dirname path);
  let outcome = with_capture (fun () -> try load_archive path; None with Directive_failed m -> Some m | e -> Some (Printexc.to_string e)) in
  leave_if_forked ~failed:(outcome <> None);
  match outcome with
  | None -> Obj [ ("ok", Bool true) ]
  | Some m -> Obj [ ("ok", Bool false); ("error", Str m) ]

(* ---------- main loop ---------- *)

let handle line =
  match parse_json line with
  | exception Bad_json m -> Obj [ ("ok", Bool false); ("error", Str ("bad request: " ^ m)) ]
  | req -> (
      try
        match str_field "op" req with
        | "eval" -> eval_source (str_field "source" req)
        | "eval_batch" ->
          let sources = match field "sources" req with Arr l -> List.map (function Str s -> s | _ -> raise (Bad_json "sources must be strings")) l | _ -> raise (Bad_json "missing sources") in
          let timeout = match field "timeout" req with Num f -> f | _ -> 0. in
          let capture_cap = match field "capture_cap" req with Num f -> int_of_float f | _ -> 0 in
          eval_batch sources timeout (str_field "journal" req) capture_cap
        | "env" -> env_bindings (bool_field "all" req)
        | "lookup" -> lookup (str_field "name" req)
        | "check_entry" -> check_entry (str_field "name" req)
        | "load" -> load (str_field "path" req)
        | op -> Obj [ ("ok", Bool false); ("error", Str ("unknown op " ^ op)) ]
      with
      | Bad_json m -> Obj [ ("ok", Bool false); ("error", Str ("bad request: " ^ m)) ]
      | Sys.Break -> Obj [ ("ok", Bool false); ("error", Str "interrupted") ]
      | e -> Obj [ ("ok", Bool false); ("error", Str ("agent error: " ^ Printexc.to_string e)) ])

let main () =
  start_watchdog ();
  ignore_sigint ();
  Unix.dup2 out_capture Unix.stdout;
  Unix.dup2 err_capture Unix.stderr;
  Clflags.color := Some Misc.Color.Never;
  T.init ();
  (* Values are printed whole (the engine cuts the inline part and spills the rest): strings up
     to 4 MiB and structures up to 4 Mi nodes and 1000 levels; beyond that the printer's own
     "..." / "truncated" marks appear in the spilled text. *)
  T.max_printer_steps := 1 lsl 22;
  T.max_printer_depth := 1000;
  Location.formatter_for_warnings := msg_ppf;
  send
    (Obj
       [ ("ready", Bool true); ("ocaml", Str Sys.ocaml_version); ("driver", Str T.driver);
         ("pid", Num (float_of_int (Unix.getpid ()))) ]);
  let rec loop () =
    leave_if_forked ~failed:false;
    match input_line proto_in with
    | exception End_of_file -> exit 0
    | line ->
      send (handle line);
      loop ()
  in
  loop ()

end
