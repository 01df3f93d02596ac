(* Value printer of the native agent: a runtime value and its type become an Outcometree.out_value,
   which Oprint renders exactly as the toplevel does. The bytecode toplevel has such a printer
   (Genprintval, inside ocamltoplevel.cma), but Debian ships no native build of it, so the native
   agent has its own. It walks the value guided by the type; [steps] bounds the number of nodes
   (and the printed length of a string), [depth] the nesting, so a huge or cyclic value is cut
   with "..." instead of running away. Exceptions and other extensible constructors are named by
   looking their constructor up in the environment and checking it is the very same one
   ([eval_address] gives the runtime slot of a constructor). *)

open Types
open Outcometree

let out_name = Printtyp.Out_name.create
let ident s = Oide_ident (out_name s)

(* A constructor or label printed with its module prefix unless that prefix is not needed: the
   unqualified name already resolves to the same type in [env]. *)
let qualified (resolves : Longident.t -> Env.t -> type_expr) env type_path name =
  match type_path with
  | Path.Pident _ -> ident name
  | Path.Pdot (prefix, _) -> (
      match (Ctype.repr (resolves (Longident.Lident name) env)).desc with
      | Tconstr (p, _, _) when Path.same p type_path -> ident name
      | _ | (exception Not_found) -> Oide_dot (Printtyp.tree_of_path prefix, name))
  | Path.Papply _ -> Printtyp.tree_of_path type_path

let constructor_name = qualified (fun lid env -> (Env.find_constructor_by_name lid env).cstr_res)
let label_name = qualified (fun lid env -> (Env.find_label_by_name lid env).lbl_res)

let opaque = Btype.newgenty (Tconstr (Path.Pident (Ident.create_local "abstract"), [], ref Mnil))

let instantiate env params args ty = try Ctype.apply env params ty args with Ctype.Cannot_apply -> opaque

(* Arguments of an exception whose type is unknown: ints, strings and floats shown, others "_". *)
let untyped_args obj first =
  List.init
    (max 0 (Obj.size obj - first))
    (fun i ->
       let a = Obj.field obj (first + i) in
       if Obj.is_int a then Oval_int (Obj.obj a : int)
       else if Obj.tag a = Obj.string_tag then Oval_string ((Obj.obj a : string), max_int, Ostr_string)
       else if Obj.tag a = Obj.double_tag then Oval_float (Obj.obj a : float)
       else Oval_constr (ident "_", []))

(* Exceptions defined by a phrase are named after the phrase's unit ("TOP3.E"); the user knows
   them as plain "E", and that is also the name to look up in the toplevel environment. *)
let toplevel_relative name =
  let n = String.length name in
  let rec digits i = if i < n && name.[i] >= '0' && name.[i] <= '9' then digits (i + 1) else i in
  if n > 3 && String.sub name 0 3 = "TOP" then
    let d = digits 3 in
    if d > 3 && d < n - 1 && name.[d] = '.' then String.sub name (d + 1) (n - d - 1) else name
  else name

let untyped_exception bucket =
  if Obj.tag bucket <> 0 then Oval_constr (ident (toplevel_relative (Obj.obj (Obj.field bucket 0) : string)), [])
  else
    let name = toplevel_relative (Obj.obj (Obj.field (Obj.field bucket 0) 0) : string) in
    let args =
      match name with
      | ("Match_failure" | "Assert_failure" | "Undefined_recursive_module")
        when Obj.size bucket = 2 && Obj.tag (Obj.field bucket 1) = 0 ->
        untyped_args (Obj.field bucket 1) 0
      | _ -> untyped_args bucket 1
    in
    Oval_constr (ident name, args)

(* Blocks on the path from the root to the value being printed, by physical identity: meeting
   one again means the value is cyclic, printed "<cycle>" as the toplevel does. *)
module Visiting = Hashtbl.Make (struct
    type t = Obj.t

    let equal = ( == )
    let hash x = try Hashtbl.hash x with _ -> 0
  end)

let outval ~steps ~depth ~(eval_address : Env.address -> Obj.t) env obj ty =
  let budget = ref steps in
  let visiting = Visiting.create 16 in
  (* Descending into a component of a block: the place where a cycle can close. *)
  let rec nested depth obj ty =
    if Obj.is_int obj then value depth obj ty
    else if Visiting.mem visiting obj then Oval_stuff "<cycle>"
    else begin
      Visiting.add visiting obj ();
      match value depth obj ty with
      | v -> Visiting.remove visiting obj; v
      | exception e -> Visiting.remove visiting obj; raise e
    end
  and value depth obj ty =
    decr budget;
    if !budget < 0 || depth < 0 then Oval_ellipsis
    else
      match (Ctype.repr ty).desc with
      | Tvar _ | Tunivar _ -> Oval_stuff "<poly>"
      | Tarrow _ -> Oval_stuff "<fun>"
      | Ttuple tys -> Oval_tuple (fields depth obj 0 tys)
      | Tconstr (p, [], _) when Path.same p Predef.path_int -> Oval_int (Obj.obj obj : int)
      | Tconstr (p, [], _) when Path.same p Predef.path_char -> Oval_char (Obj.obj obj : char)
      | Tconstr (p, [], _) when Path.same p Predef.path_float -> Oval_float (Obj.obj obj : float)
      | Tconstr (p, [], _) when Path.same p Predef.path_int32 -> Oval_int32 (Obj.obj obj : int32)
      | Tconstr (p, [], _) when Path.same p Predef.path_int64 -> Oval_int64 (Obj.obj obj : int64)
      | Tconstr (p, [], _) when Path.same p Predef.path_nativeint -> Oval_nativeint (Obj.obj obj : nativeint)
      | Tconstr (p, [], _) when Path.same p Predef.path_string -> Oval_string ((Obj.obj obj : string), !budget, Ostr_string)
      | Tconstr (p, [], _) when Path.same p Predef.path_bytes ->
        Oval_string (Bytes.to_string (Obj.obj obj : bytes), !budget, Ostr_bytes)
      | Tconstr (p, [ elt ], _) when Path.same p Predef.path_list ->
        (* The cells are marked as they are walked, so a list that loops back ends in "<cycle>". *)
        let marked = ref [] in
        (* The first cell may already be marked, by [nested] on the way in. *)
        let rec conses ~first acc cell =
          if Obj.is_int cell then List.rev acc
          else if !budget < 0 then List.rev (Oval_ellipsis :: acc)
          else if (not first) && Visiting.mem visiting cell then List.rev (Oval_stuff "<cycle>" :: acc)
          else begin
            if not (Visiting.mem visiting cell) then (Visiting.add visiting cell (); marked := cell :: !marked);
            conses ~first:false (nested (depth - 1) (Obj.field cell 0) elt :: acc) (Obj.field cell 1)
          end
        in
        let items =
          Fun.protect ~finally:(fun () -> List.iter (Visiting.remove visiting) !marked) (fun () -> conses ~first:true [] obj)
        in
        Oval_list items
      | Tconstr (p, [ elt ], _) when Path.same p Predef.path_array ->
        let n = Obj.size obj in
        let float_array = n > 0 && Obj.tag obj = Obj.double_array_tag in
        let rec items acc i =
          if i >= n then List.rev acc
          else if !budget < 0 then List.rev (Oval_ellipsis :: acc)
          else
            let item =
              if float_array then (decr budget; Oval_float (Obj.double_field obj i)) else nested (depth - 1) (Obj.field obj i) elt
            in
            items (item :: acc) (i + 1)
        in
        Oval_array (items [] 0)
      | Tconstr (p, [ arg ], _) when Path.same p Predef.path_lazy_t ->
        let tag = if Obj.is_int obj then 0 else Obj.tag obj in
        if tag = Obj.lazy_tag then Oval_stuff "<lazy>"
        else
          let shown = if tag = Obj.forward_tag then nested (depth - 1) (Obj.field obj 0) arg else value (depth - 1) obj arg in
          Oval_constr (ident "lazy", [ shown ])
      | Tconstr (path, args, _) -> declared depth obj path args
      | Tvariant row ->
        let row = Btype.row_repr row in
        let hash_of obj = if Obj.is_int obj then (Obj.obj obj : int) else (Obj.obj (Obj.field obj 0) : int) in
        let tag = hash_of obj in
        let rec find = function
          | [] -> Oval_stuff "<variant>"
          | (label, field) :: rest when Btype.hash_variant label = tag -> (
              if Obj.is_int obj then Oval_variant (label, None)
              else
                match Btype.row_field_repr field with
                | Rpresent (Some t) | Reither (_, [ t ], _, _) -> Oval_variant (label, Some (nested (depth - 1) (Obj.field obj 1) t))
                | _ -> find rest)
          | _ :: rest -> find rest
        in
        find row.row_fields
      | Tobject _ -> Oval_stuff "<obj>"
      | Tpoly (t, _) -> value depth obj t
      | Tpackage _ -> Oval_stuff "<module>"
      | Tfield _ | Tnil | Tlink _ | Tsubst _ -> Oval_stuff "<internal>"
  and fields depth obj first tys = List.mapi (fun i t -> nested (depth - 1) (Obj.field obj (first + i)) t) tys
  and declared depth obj path args =
    match Env.find_type path env with
    | exception Not_found -> Oval_stuff "<abstr>"
    | { type_kind = Type_abstract; type_manifest = None; _ } -> Oval_stuff "<abstr>"
    | { type_kind = Type_abstract; type_manifest = Some body; type_params; _ } ->
      value depth obj (instantiate env type_params args body)
    | { type_kind = Type_variant (constrs, rep); type_params; _ } -> (
        let unboxed = rep = Variant_unboxed in
        let tag =
          if unboxed then Cstr_unboxed
          else if Obj.is_block obj then Cstr_block (Obj.tag obj)
          else Cstr_constant (Obj.obj obj : int)
        in
        match Datarepr.find_constr_by_tag tag constrs with
        | exception Datarepr.Constr_not_found -> Oval_stuff "<unknown constructor>"
        | { cd_id; cd_args; cd_res; _ } -> (
            let params =
              match cd_res with
              | Some t -> ( match (Ctype.repr t).desc with Tconstr (_, ps, _) -> ps | _ -> type_params)
              | None -> type_params
            in
            let name = constructor_name env path (Ident.name cd_id) in
            match cd_args with
            | Cstr_tuple tys ->
              let tys = List.map (instantiate env params args) tys in
              if unboxed then Oval_constr (name, List.map (value (depth - 1) obj) tys)
              else Oval_constr (name, fields depth obj 0 tys)
            | Cstr_record labels -> Oval_constr (name, [ record depth obj path params args labels 0 unboxed ])))
    | { type_kind = Type_record (labels, rep); type_params; _ } ->
      let first = match rep with Record_extension _ -> 1 | _ -> 0 in
      let unboxed = match rep with Record_unboxed _ -> true | _ -> false in
      record depth obj path type_params args labels first unboxed
    | { type_kind = Type_open; _ } -> extension depth obj path args
  and record depth obj path params args labels first unboxed =
    Oval_record
      (List.mapi
         (fun i { ld_id; ld_type; _ } ->
            let name = Ident.name ld_id in
            let label = if i = 0 then label_name env path name else ident name in
            let ty = instantiate env params args ld_type in
            let v =
              if unboxed then value (depth - 1) obj ty
              else if Obj.tag obj = Obj.double_array_tag then (decr budget; Oval_float (Obj.double_field obj (first + i)))
              else nested (depth - 1) (Obj.field obj (first + i)) ty
            in
            (label, v))
         labels)
  and extension depth bucket type_path args =
    let slot = if Obj.tag bucket <> 0 then bucket else Obj.field bucket 0 in
    let name = toplevel_relative (Obj.obj (Obj.field slot 0) : string) in
    let typed =
      match Parse.longident (Lexing.from_string name) with
      | exception _ -> None
      | lid -> (
          match Env.find_constructor_by_name lid env with
          | exception Not_found -> None
          | cstr -> (
              match cstr.cstr_tag with
              | Cstr_extension (p, _) -> (
                  match eval_address (Env.find_constructor_address p env) with
                  | same when same == slot -> Some cstr
                  | _ | (exception _) -> None)
              | _ -> None))
    in
    match typed with
    | Some cstr ->
      let params = match (Ctype.repr cstr.cstr_res).desc with Tconstr (_, ps, _) -> ps | _ -> [] in
      let tys = List.map (instantiate env params args) cstr.cstr_args in
      if cstr.cstr_inlined <> None then
        match tys with [ t ] -> Oval_constr (ident name, [ value (depth - 1) bucket t ]) | _ -> Oval_constr (ident name, [])
      else Oval_constr (ident name, fields depth bucket 1 tys)
    | None -> if Path.same type_path Predef.path_exn then untyped_exception bucket else Oval_stuff "<extension>"
  in
  nested depth obj (Ctype.correct_levels ty)
