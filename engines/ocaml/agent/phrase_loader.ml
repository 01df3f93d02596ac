(* Loads a unit assembled by Phrase_assembler straight into the agent's memory, without an object
   file, a shared object or dlopen: lay its sections out in an executable arena, give
   every symbol it takes from elsewhere a GOT slot (sym@GOTPCREL) or a jump stub (sym@PLT) inside
   that mapping (so every pc-relative field stays within reach), apply the relocations, register
   the unit with the runtime as natdynlink does for a dlopen'd one, and run its entry point.

   Symbols are looked up first among the units this loader has loaded (they are not in any dynamic
   symbol table) and then in the agent and the libraries dlopen'd into it. *)

module A = Phrase_assembler

external map : int -> nativeint = "topup_loader_map"
external write : nativeint -> Bytes.t -> unit = "topup_loader_write"
external dlsym : string -> nativeint = "topup_loader_dlsym"
external value_at : nativeint -> Obj.t = "topup_loader_value_at"
external register : nativeint -> nativeint -> nativeint -> nativeint -> nativeint -> nativeint -> unit = "topup_loader_register_bytecode" "topup_loader_register"
external run_entry : nativeint -> Obj.t = "topup_loader_run"
external add_code_range : nativeint -> nativeint -> unit = "topup_loader_add_code_range"
external set_break : exn -> unit = "topup_loader_set_break"
external arm : unit -> unit = "topup_loader_arm"
external disarm : unit -> unit = "topup_loader_disarm"

(* Interrupts while user code runs: see phrase_loader_stubs.c. Sys.Break is what they raise. *)
let () = set_break Sys.Break

(* Run [f] (user code) with SIGINT and SIGALRM stopping the code of any phrase in place. *)
let interruptible f =
  arm ();
  match f () with
  | r -> disarm (); r
  | exception e -> disarm (); raise e

(* The code of a phrase loaded by dlopen (the external way) becomes interruptible in place too,
   for later calls; its own initialisation ran before its range was known. *)
let add_dlopened_unit unit_name =
  match (dlsym ("caml" ^ unit_name ^ "__code_begin"), dlsym ("caml" ^ unit_name ^ "__code_end")) with
  | 0n, _ | _, 0n -> ()
  | b, e -> add_code_range b e

(* Global symbols of the units loaded here. *)
let loaded : (string, nativeint) Hashtbl.t = Hashtbl.create 256

let find_symbol name =
  match Hashtbl.find_opt loaded name with
  | Some a -> Some a
  | None -> ( match dlsym name with 0n -> None | a -> Some a)

let is_loaded_here name = Hashtbl.mem loaded name

(* A symbol nobody defines: the caller turns it into the same message as dlopen's. *)
exception Undefined_symbol of string

let stub_size = 16 (* jmp *0(%rip); .quad target; padding *)

let align_up n a = (n + a - 1) / a * a

let page_size = 4096

(* Phrases are placed in arenas, not in a mapping each: one mmap and a first touch of fresh pages
   per phrase cost as much as the rest of loading a small phrase, and a batch loads one phrase
   after another. An arena is one executable mapping, its first half for code (with each unit's
   GOT and stubs), its second half for the units' data, each filled upwards. The halves keep code
   off the data pages, which are registered as static OCaml data: a code pointer on such a page
   would be taken for a value (by compare or hash, which then read a header before it). Both
   halves are within 32-bit reach of each other, as pc-relative fields need. Pages are only
   committed when first written. *)
let arena_half = 32 * 1024 * 1024

type arena = { base : nativeint; half : int; mutable code_next : int; mutable data_next : int }

let arena = ref None

(* Room for [code] and [data] bytes: the current arena, or a fresh one (big enough for a unit
   larger than the usual half). Returns the arena and where the unit's code and data start. *)
let reserve code data =
  let fits a = a.code_next + code <= a.half && a.data_next + data <= 2 * a.half in
  let a =
    match !arena with
    | Some a when fits a -> a
    | _ ->
      let half = max arena_half (align_up (max code data) page_size) in
      let a = { base = map (2 * half); half; code_next = 0; data_next = half } in
      arena := Some a;
      a
  in
  let code_at = a.code_next and data_at = a.data_next in
  a.code_next <- align_up (code_at + code) 64;
  a.data_next <- align_up (data_at + data) 64;
  (a, code_at, data_at)

(* Lay out, relocate and write [p] into an arena; returns where its labels are. Raises
   [A.Unsupported] (for a field that cannot reach its target) or [Undefined_symbol] before
   anything is written, registered or run; the room it took is given back. *)
let place (p : A.program) : string -> nativeint option =
  let is_data (s : A.section) = s.sname = ".data" in
  let offsets = Hashtbl.create 8 in
  let lay cursor (s : A.section) =
    let off = align_up cursor (max 16 s.align) in
    Hashtbl.replace offsets s.sname off;
    off + Buffer.length s.buf
  in
  let cursor = List.fold_left lay 0 (List.filter (fun s -> not (is_data s)) p.sections) in
  let got = Hashtbl.create 16 and stubs = Hashtbl.create 16 in
  let n_got = ref 0 and n_stubs = ref 0 in
  List.iter
    (function
      | A.Rel32 { target = A.Got s; _ } -> if not (Hashtbl.mem got s) then (Hashtbl.replace got s !n_got; incr n_got)
      | A.Rel32 { target = A.Call s; _ } when not (Hashtbl.mem p.labels s) ->
        if not (Hashtbl.mem stubs s) then (Hashtbl.replace stubs s !n_stubs; incr n_stubs)
      | _ -> ())
    p.fixups;
  let got_off = align_up cursor 16 in
  let stubs_off = got_off + (8 * !n_got) in
  let code_size = stubs_off + (stub_size * !n_stubs) in
  let data_size = List.fold_left lay 0 (List.filter is_data p.sections) in
  let a, code_at, data_at = reserve code_size data_size in
  let code_base = Nativeint.add a.base (Nativeint.of_int code_at)
  and data_base = Nativeint.add a.base (Nativeint.of_int data_at) in
  let code = Bytes.make code_size '\000' and data = Bytes.make data_size '\000' in
  (* A section's image, and the address of its byte 0. *)
  let image (s : A.section) = if is_data s then data else code in
  let start (s : A.section) = Nativeint.add (if is_data s then data_base else code_base) (Nativeint.of_int (Hashtbl.find offsets s.sname)) in
  let local name =
    match Hashtbl.find_opt p.labels name with
    | Some (sec, pos) -> Some (Nativeint.add (start sec) (Nativeint.of_int pos))
    | None -> None
  in
  let address name =
    match local name with
    | Some a -> a
    | None -> ( match find_symbol name with Some a -> a | None -> raise (Undefined_symbol name))
  in
  let set_n img off size (v : int64) =
    match size with
    | 1 -> Bytes.set_int8 img off (Int64.to_int v)
    | 2 -> Bytes.set_int16_le img off (Int64.to_int v)
    | 4 -> Bytes.set_int32_le img off (Int64.to_int32 v)
    | 8 -> Bytes.set_int64_le img off v
    | n -> raise (A.Unsupported (Printf.sprintf "data item of %d bytes" n))
  in
  try
    List.iter
      (fun (s : A.section) -> Buffer.blit s.buf 0 (image s) (Hashtbl.find offsets s.sname) (Buffer.length s.buf))
      p.sections;
    Hashtbl.iter (fun s i -> Bytes.set_int64_le code (got_off + (8 * i)) (Int64.of_nativeint (address s))) got;
    Hashtbl.iter
      (fun s i ->
         let off = stubs_off + (stub_size * i) in
         Bytes.set_uint8 code off 0xFF;
         Bytes.set_uint8 code (off + 1) 0x25;
         (* disp32 = 0: the target address follows the instruction *)
         Bytes.set_int64_le code (off + 6) (Int64.of_nativeint (address s)))
      stubs;
    let here sec pos = Int64.add (Int64.of_nativeint (start sec)) (Int64.of_int pos) in
    let in_code off = Int64.add (Int64.of_nativeint code_base) (Int64.of_int off) in
    let rec eval this (c : X86_ast.constant) =
      match c with
      | Const n -> n
      | ConstThis -> this
      | ConstLabel l -> Int64.of_nativeint (address l)
      | ConstAdd (a, b) -> Int64.add (eval this a) (eval this b)
      | ConstSub (a, b) -> Int64.sub (eval this a) (eval this b)
    in
    List.iter
      (function
        | A.Data { sec; pos; size; expr } -> set_n (image sec) (Hashtbl.find offsets sec.A.sname + pos) size (eval (here sec pos) expr)
        | A.Rel32 { sec; pos; next; target } ->
          let dest =
            match target with
            | A.Address (l, d) -> Int64.add (Int64.of_nativeint (address l)) (Int64.of_int d)
            | A.Got s -> in_code (got_off + (8 * Hashtbl.find got s))
            | A.Call s -> (
                match local s with
                | Some a -> Int64.of_nativeint a
                | None -> in_code (stubs_off + (stub_size * Hashtbl.find stubs s)))
          in
          let rel = Int64.sub dest (here sec next) in
          if not (A.fits_int32 rel) then raise (A.Unsupported "a pc-relative reference out of 32-bit reach");
          set_n (image sec) (Hashtbl.find offsets sec.A.sname + pos) 4 rel)
      p.fixups;
    write code_base code;
    write data_base data;
    local
  with e ->
    a.code_next <- code_at;
    a.data_next <- data_at;
    raise e

(* Place the unit [unit_name] (its symbols are caml<unit_name>__entry etc.), register it and run
   its initialisation code under [around] (which marks it as user code). *)
let load_and_run ~around (p : A.program) unit_name : Obj.t =
  let local = place p in
  List.iter (fun g -> match local g with Some a -> Hashtbl.replace loaded g a | None -> ()) p.globals;
  let sym suffix = match local ("caml" ^ unit_name ^ suffix) with Some a -> a | None -> 0n in
  register (sym "__frametable") (sym "__gc_roots") (sym "__data_begin") (sym "__data_end") (sym "__code_begin") (sym "__code_end");
  let entry = sym "__entry" in
  if entry = 0n then Obj.repr () else around (fun () -> run_entry entry)

(* The value at a global symbol of a unit loaded here (a module block), if any. *)
let global_value name = Option.map value_at (Hashtbl.find_opt loaded name)
