(* An assembler for the x86-64 subset the OCaml 4.13 amd64 backend emits, working on the backend's
   own structured instructions (X86_ast, handed over through X86_proc.register_internal_assembler)
   rather than on assembly text. It produces sections of bytes, their labels and the relocations
   still to apply once the load address is known (Phrase_loader does that); no object file, no
   `as`, no `ld`.

   Choices that keep it small: every jump and call to a label is a rel32 form (no relaxation
   pass, so every label's offset is final as soon as it is emitted); every constant that is not a
   plain number is evaluated after layout. Anything outside the subset raises [Unsupported], and
   the phrase goes the external way (`as` and `ld`), with a log line saying which instruction. *)

open X86_ast

exception Unsupported of string

let unsupported fmt = Printf.ksprintf (fun s -> raise (Unsupported s)) fmt

(* For the fallback test: instructions named in TOPUP_ASSEMBLER_REFUSE (comma separated, e.g.
   "SQRTSD") are treated as unknown. *)
let refused =
  match Sys.getenv_opt "TOPUP_ASSEMBLER_REFUSE" with
  | None | Some "" -> []
  | Some s -> String.split_on_char ',' s |> List.map String.trim

type section = { sname : string; buf : Buffer.t; mutable align : int }

(* Where a 32-bit pc-relative field points. *)
type rel_target =
  | Address of string * int  (** a label or symbol, plus a displacement *)
  | Got of string  (** a slot holding the symbol's address (sym@GOTPCREL) *)
  | Call of string  (** a function: itself if in this unit, else a jump stub (sym@PLT) *)

type fixup =
  | Rel32 of { sec : section; pos : int; next : int; target : rel_target }
      (** the field at [pos] holds target - (address of [next]), [next] being the end of the
          instruction *)
  | Data of { sec : section; pos : int; size : int; expr : constant }  (** [expr] at [pos] *)

type program = {
  sections : section list;  (** in order of first appearance *)
  labels : (string, section * int) Hashtbl.t;
  globals : string list;
  fixups : fixup list;
}

let reg_num = function
  | RAX -> 0 | RCX -> 1 | RDX -> 2 | RBX -> 3 | RSP -> 4 | RBP -> 5 | RSI -> 6 | RDI -> 7
  | R8 -> 8 | R9 -> 9 | R10 -> 10 | R11 -> 11 | R12 -> 12 | R13 -> 13 | R14 -> 14 | R15 -> 15

let cond_code = function
  | O -> 0x0 | NO -> 0x1 | B -> 0x2 | AE -> 0x3 | E -> 0x4 | NE -> 0x5 | BE -> 0x6 | A -> 0x7
  | S -> 0x8 | NS -> 0x9 | P -> 0xA | NP -> 0xB | L -> 0xC | GE -> 0xD | LE -> 0xE | G -> 0xF

let fits_int8 n = n >= -128L && n <= 127L
let fits_int32 n = n >= -2147483648L && n <= 2147483647L
let fits_uint32 n = n >= 0L && n <= 4294967295L

(* An r/m operand. [Rreg n]: register number n (0-15; AH..BH are 4..7 with [high]). *)
type rm = Rreg of { n : int; rex8 : bool; high : bool } | Rmem of addr | Rrip of string * int

let strip_suffix s suffix =
  let n = String.length s and m = String.length suffix in
  if n > m && String.sub s (n - m) m = suffix then Some (String.sub s 0 (n - m)) else None

type state = {
  mutable cur : section;
  mutable secs : section list;
  labels : (string, section * int) Hashtbl.t;
  mutable globals : string list;
  mutable fixups : fixup list;
}

let byte st b = Buffer.add_char st.cur.buf (Char.chr (b land 0xFF))
let pos st = Buffer.length st.cur.buf
let int_le st size (v : int64) =
  for i = 0 to size - 1 do byte st (Int64.to_int (Int64.shift_right_logical v (8 * i)) land 0xFF) done

let rm_of_arg = function
  | Reg64 r | Reg32 r | Reg16 r -> Rreg { n = reg_num r; rex8 = false; high = false }
  | Reg8L r -> let n = reg_num r in Rreg { n; rex8 = n >= 4 && n <= 7; high = false }
  | Reg8H h -> Rreg { n = (match h with AH -> 4 | CH -> 5 | DH -> 6 | BH -> 7); rex8 = false; high = true }
  | Regf (XMM n) -> Rreg { n; rex8 = false; high = false }
  | Mem a ->
    if a.arch <> X64 then unsupported "32-bit addressing";
    if a.sym <> None then unsupported "symbolic absolute addressing";
    Rmem a
  | Mem64_RIP (_, s, d) -> Rrip (s, d)
  | Imm _ -> unsupported "immediate where a register or memory operand was expected"
  | Sym s -> unsupported "symbol %s where a register or memory operand was expected" s
  | Regf _ -> unsupported "x87 register"

(* The size in bits an operand imposes on an integer instruction, if any. *)
let size_of = function
  | Reg64 _ -> Some 64 | Reg32 _ -> Some 32 | Reg16 _ -> Some 16 | Reg8L _ | Reg8H _ -> Some 8
  | Mem { typ; _ } | Mem64_RIP (typ, _, _) -> (
      match typ with QWORD -> Some 64 | DWORD -> Some 32 | WORD -> Some 16 | BYTE -> Some 8 | _ -> None)
  | _ -> None

let op_size what args =
  match List.find_map size_of (List.filter (function Reg64 _ | Reg32 _ | Reg16 _ | Reg8L _ | Reg8H _ -> true | _ -> false) args) with
  | Some s -> s
  | None -> ( match List.find_map size_of args with Some s -> s | None -> unsupported "%s without an operand size" what)

(* One instruction with a ModRM byte: legacy prefixes, REX, opcode, ModRM (+SIB, displacement),
   then [imm] bytes of immediate. *)
let modrm st ?(prefixes = []) ?(w = false) ?(force_rex = false) ?(reg_high = false) opcode reg_field (rm : rm) ?(imm = (0, 0L)) () =
  let reg_ext = reg_field lsr 3 land 1 in
  let reg_low = reg_field land 7 in
  let rex_x, rex_b, force, high =
    match rm with
    | Rreg { n; rex8; high } -> (0, n lsr 3, rex8, high)
    | Rmem a ->
      let b = match a.base with Some b -> reg_num b lsr 3 | None -> if a.scale = 1 then reg_num a.idx lsr 3 else 0 in
      let x = match a.base with Some _ when a.scale > 0 -> reg_num a.idx lsr 3 | None when a.scale > 1 -> reg_num a.idx lsr 3 | _ -> 0 in
      (x, b, false, false)
    | Rrip _ -> (0, 0, false, false)
  in
  List.iter (byte st) prefixes;
  let rex = (if w then 8 else 0) lor (reg_ext lsl 2) lor (rex_x lsl 1) lor rex_b in
  if rex <> 0 || force || force_rex then begin
    if high || reg_high then unsupported "AH..BH with a REX prefix";
    byte st (0x40 lor rex)
  end;
  List.iter (byte st) opcode;
  let imm_size, imm_val = imm in
  let disp_mod d base_low =
    if d = 0 && base_low <> 5 then (0, 0) else if d >= -128 && d <= 127 then (1, 1) else (2, 4)
  in
  (match rm with
   | Rreg { n; _ } -> byte st (0xC0 lor (reg_low lsl 3) lor (n land 7))
   | Rrip (name, displ) ->
     byte st ((reg_low lsl 3) lor 5);
     let p = pos st in
     int_le st 4 0L;
     let target =
       match strip_suffix name "@GOTPCREL" with
       | Some s -> if displ <> 0 then unsupported "displacement on a GOT reference"; Got s
       | None -> Address (name, displ)
     in
     st.fixups <- Rel32 { sec = st.cur; pos = p; next = p + 4 + imm_size; target } :: st.fixups
   | Rmem a ->
     let d = a.displ in
     if d < -2147483648 || d > 2147483647 then unsupported "displacement out of range";
     let scale_bits s = match s with 1 -> 0 | 2 -> 1 | 4 -> 2 | 8 -> 3 | _ -> unsupported "scale %d" s in
     let emit_disp size = int_le st size (Int64.of_int d) in
     (match (a.base, a.scale) with
      | None, 0 -> unsupported "absolute address"
      | None, 1 ->
        let b = reg_num a.idx land 7 in
        let md, size = disp_mod d b in
        if b = 4 then (byte st ((md lsl 6) lor (reg_low lsl 3) lor 4); byte st 0x24)
        else byte st ((md lsl 6) lor (reg_low lsl 3) lor b);
        emit_disp size
      | None, s ->
        if a.idx = RSP then unsupported "rsp as an index";
        byte st ((reg_low lsl 3) lor 4);
        byte st ((scale_bits s lsl 6) lor ((reg_num a.idx land 7) lsl 3) lor 5);
        emit_disp 4
      | Some base, 0 ->
        let b = reg_num base land 7 in
        let md, size = disp_mod d b in
        if b = 4 then (byte st ((md lsl 6) lor (reg_low lsl 3) lor 4); byte st 0x24)
        else byte st ((md lsl 6) lor (reg_low lsl 3) lor b);
        emit_disp size
      | Some base, s ->
        if a.idx = RSP then unsupported "rsp as an index";
        let b = reg_num base land 7 in
        let md, size = disp_mod d b in
        byte st ((md lsl 6) lor (reg_low lsl 3) lor 4);
        byte st ((scale_bits s lsl 6) lor ((reg_num a.idx land 7) lsl 3) lor b);
        emit_disp size));
  if imm_size > 0 then int_le st imm_size imm_val

let reg_field_of arg = match rm_of_arg arg with Rreg { n; _ } -> n | _ -> unsupported "expected a register"

(* Register number and whether it needs a REX prefix for byte access (spl..dil). *)
let is_reg = function Reg64 _ | Reg32 _ | Reg16 _ | Reg8L _ | Reg8H _ -> true | _ -> false
let is_xmm = function Regf (XMM _) -> true | _ -> false

let is_accumulator = function Reg64 RAX | Reg32 RAX | Reg16 RAX | Reg8L RAX -> true | _ -> false

let size_prefix size = if size = 16 then [ 0x66 ] else []

(* ALU group: ADD OR AND SUB XOR CMP, by their /digit. *)
let rec alu st digit src dst =
  let size = op_size "ALU instruction" [ src; dst ] in
  let prefixes = size_prefix size and w = size = 64 in
  match src with
  | Imm n when is_accumulator dst && (size = 8 || not (fits_int8 n)) ->
    (* the short accumulator forms, as GNU as picks them *)
    List.iter (byte st) prefixes;
    if w then byte st 0x48;
    byte st ((digit lsl 3) lor if size = 8 then 4 else 5);
    int_le st (match size with 8 -> 1 | 16 -> 2 | _ -> 4) n
  | Imm n ->
    if size = 8 then modrm st ~prefixes [ 0x80 ] digit (rm_of_arg dst) ~imm:(1, n) ()
    else if fits_int8 n then modrm st ~prefixes ~w [ 0x83 ] digit (rm_of_arg dst) ~imm:(1, n) ()
    else if size = 16 then modrm st ~prefixes [ 0x81 ] digit (rm_of_arg dst) ~imm:(2, n) ()
    else if fits_int32 n || (size = 32 && fits_uint32 n) then modrm st ~prefixes ~w [ 0x81 ] digit (rm_of_arg dst) ~imm:(4, n) ()
    else unsupported "immediate %Ld out of range" n
  | _ when is_reg src ->
    let op = (digit lsl 3) lor if size = 8 then 0 else 1 in
    reg_op st ~prefixes ~w [ op ] src dst
  | _ when is_reg dst ->
    let op = (digit lsl 3) lor if size = 8 then 2 else 3 in
    reg_op st ~prefixes ~w [ op ] dst src
  | _ -> unsupported "ALU instruction with two memory operands"

(* Opcode with the register [reg] in the ModRM reg field and [other] as r/m. *)
and reg_op st ?(prefixes = []) ?(w = false) opcode reg other =
  let force_rex = match reg with Reg8L r -> (let n = reg_num r in n >= 4 && n <= 7) | _ -> false in
  let reg_high = match reg with Reg8H _ -> true | _ -> false in
  modrm st ~prefixes ~w ~force_rex ~reg_high opcode (reg_field_of reg) (rm_of_arg other) ()

let shift st digit src dst =
  let size = op_size "shift" [ dst ] in
  let prefixes = size_prefix size and w = size = 64 in
  match src with
  | Imm 1L -> modrm st ~prefixes ~w [ (if size = 8 then 0xD0 else 0xD1) ] digit (rm_of_arg dst) ()
  | Imm n -> modrm st ~prefixes ~w [ (if size = 8 then 0xC0 else 0xC1) ] digit (rm_of_arg dst) ~imm:(1, n) ()
  | Reg8L RCX -> modrm st ~prefixes ~w [ (if size = 8 then 0xD2 else 0xD3) ] digit (rm_of_arg dst) ()
  | _ -> unsupported "shift count"

let unary st what digit_op8 digit_op digit arg =
  let size = op_size what [ arg ] in
  let prefixes = size_prefix size and w = size = 64 in
  modrm st ~prefixes ~w [ (if size = 8 then digit_op8 else digit_op) ] digit (rm_of_arg arg) ()

(* SSE2 scalar/packed instruction: xmm destination, xmm or memory source. *)
let sse st prefix opcode src dst =
  if not (is_xmm dst) then unsupported "SSE destination is not an xmm register";
  modrm st ~prefixes:prefix ([ 0x0F ] @ opcode) (reg_field_of dst) (rm_of_arg src) ()

let rel_jump st opcode target =
  List.iter (byte st) opcode;
  let p = pos st in
  int_le st 4 0L;
  let t = match strip_suffix target "@PLT" with Some s -> Call s | None -> Call target in
  st.fixups <- Rel32 { sec = st.cur; pos = p; next = p + 4; target = t } :: st.fixups

let instr_name (i : instruction) =
  match i with
  | ADD _ -> "ADD" | ADDSD _ -> "ADDSD" | AND _ -> "AND" | ANDPD _ -> "ANDPD" | BSWAP _ -> "BSWAP"
  | CALL _ -> "CALL" | CDQ -> "CDQ" | CMOV _ -> "CMOV" | CMP _ -> "CMP" | COMISD _ -> "COMISD" | CQO -> "CQO"
  | CVTSD2SI _ -> "CVTSD2SI" | CVTSD2SS _ -> "CVTSD2SS" | CVTSI2SD _ -> "CVTSI2SD" | CVTSS2SD _ -> "CVTSS2SD"
  | CVTTSD2SI _ -> "CVTTSD2SI" | DEC _ -> "DEC" | DIVSD _ -> "DIVSD" | HLT -> "HLT" | IDIV _ -> "IDIV"
  | IMUL _ -> "IMUL" | INC _ -> "INC" | J _ -> "J" | JMP _ -> "JMP" | LEA _ -> "LEA" | LEAVE -> "LEAVE"
  | MOV _ -> "MOV" | MOVAPD _ -> "MOVAPD" | MOVLPD _ -> "MOVLPD" | MOVSD _ -> "MOVSD" | MOVSS _ -> "MOVSS"
  | MOVSX _ -> "MOVSX" | MOVSXD _ -> "MOVSXD" | MOVZX _ -> "MOVZX" | MULSD _ -> "MULSD" | NEG _ -> "NEG"
  | NOP -> "NOP" | OR _ -> "OR" | POP _ -> "POP" | PUSH _ -> "PUSH" | RET -> "RET" | ROUNDSD _ -> "ROUNDSD"
  | SAL _ -> "SAL" | SAR _ -> "SAR" | SET _ -> "SET" | SHR _ -> "SHR" | SQRTSD _ -> "SQRTSD" | SUB _ -> "SUB"
  | SUBSD _ -> "SUBSD" | TEST _ -> "TEST" | UCOMISD _ -> "UCOMISD" | XCHG _ -> "XCHG" | XOR _ -> "XOR"
  | XORPD _ -> "XORPD"
  | _ -> "x87 instruction"

let instruction st (i : instruction) =
  if refused <> [] && List.mem (instr_name i) refused then unsupported "%s (refused by TOPUP_ASSEMBLER_REFUSE)" (instr_name i);
  match i with
  | ADD (s, d) -> alu st 0 s d
  | OR (s, d) -> alu st 1 s d
  | AND (s, d) -> alu st 4 s d
  | SUB (s, d) -> alu st 5 s d
  | XOR (s, d) -> alu st 6 s d
  | CMP (s, d) -> alu st 7 s d
  | TEST (s, d) -> (
      let size = op_size "TEST" [ s; d ] in
      let prefixes = size_prefix size and w = size = 64 in
      match (s, d) with
      | Imm n, _ when is_accumulator d ->
        List.iter (byte st) prefixes;
        if w then byte st 0x48;
        byte st (if size = 8 then 0xA8 else 0xA9);
        int_le st (match size with 8 -> 1 | 16 -> 2 | _ -> 4) n
      | Imm n, _ ->
        if size = 8 then modrm st ~prefixes [ 0xF6 ] 0 (rm_of_arg d) ~imm:(1, n) ()
        else if size = 16 then modrm st ~prefixes [ 0xF7 ] 0 (rm_of_arg d) ~imm:(2, n) ()
        else if fits_int32 n then modrm st ~prefixes ~w [ 0xF7 ] 0 (rm_of_arg d) ~imm:(4, n) ()
        else unsupported "TEST immediate out of range"
      | _ when is_reg s -> reg_op st ~prefixes ~w [ (if size = 8 then 0x84 else 0x85) ] s d
      | _ when is_reg d -> reg_op st ~prefixes ~w [ (if size = 8 then 0x84 else 0x85) ] d s
      | _ -> unsupported "TEST of two memory operands")
  | MOV (s, d) -> (
      let size = op_size "MOV" [ s; d ] in
      let prefixes = size_prefix size and w = size = 64 in
      match (s, d) with
      | Imm n, Reg64 r when not (fits_int32 n) ->
        (* movabs $imm64, %r64 *)
        let n_reg = reg_num r in
        byte st (0x48 lor (n_reg lsr 3));
        byte st (0xB8 lor (n_reg land 7));
        int_le st 8 n
      | Imm n, Reg32 r when fits_int32 n || fits_uint32 n ->
        let n_reg = reg_num r in
        if n_reg >= 8 then byte st 0x41;
        byte st (0xB8 lor (n_reg land 7));
        int_le st 4 n
      | Imm n, _ ->
        if size = 8 then modrm st ~prefixes [ 0xC6 ] 0 (rm_of_arg d) ~imm:(1, n) ()
        else if size = 16 then modrm st ~prefixes [ 0xC7 ] 0 (rm_of_arg d) ~imm:(2, n) ()
        else if fits_int32 n then modrm st ~prefixes ~w [ 0xC7 ] 0 (rm_of_arg d) ~imm:(4, n) ()
        else unsupported "MOV immediate to memory out of range"
      | Sym name, Reg64 r ->
        (* movabs $sym, %r64 *)
        let n_reg = reg_num r in
        byte st (0x48 lor (n_reg lsr 3));
        byte st (0xB8 lor (n_reg land 7));
        let p = pos st in
        int_le st 8 0L;
        st.fixups <- Data { sec = st.cur; pos = p; size = 8; expr = ConstLabel name } :: st.fixups
      | _ when is_reg s -> reg_op st ~prefixes ~w [ (if size = 8 then 0x88 else 0x89) ] s d
      | _ when is_reg d -> reg_op st ~prefixes ~w [ (if size = 8 then 0x8A else 0x8B) ] d s
      | _ -> unsupported "MOV of two memory operands")
  | MOVZX (s, d) | MOVSX (s, d) -> (
      let dsize = op_size "MOVZX/MOVSX" [ d ] in
      let ssize = match size_of s with Some n -> n | None -> unsupported "MOVZX/MOVSX source size" in
      let base = match i with MOVZX _ -> 0xB6 | _ -> 0xBE in
      let op = if ssize = 8 then base else if ssize = 16 then base + 1 else unsupported "MOVZX/MOVSX source size %d" ssize in
      let prefixes = size_prefix dsize and w = dsize = 64 in
      match s with
      | Reg8L r when (let n = reg_num r in n >= 4 && n <= 7) ->
        let n = reg_num r in
        modrm st ~prefixes ~w [ 0x0F; op ] (reg_field_of d) (Rreg { n; rex8 = true; high = false }) ()
      | _ -> modrm st ~prefixes ~w [ 0x0F; op ] (reg_field_of d) (rm_of_arg s) ())
  | MOVSXD (s, d) -> modrm st ~w:true [ 0x63 ] (reg_field_of d) (rm_of_arg s) ()
  | LEA (s, d) ->
    let size = op_size "LEA" [ d ] in
    modrm st ~prefixes:(size_prefix size) ~w:(size = 64) [ 0x8D ] (reg_field_of d) (rm_of_arg s) ()
  | IMUL (s, None) -> unary st "IMUL" 0xF6 0xF7 5 s
  | IMUL (Imm n, Some d) ->
    let size = op_size "IMUL" [ d ] in
    let prefixes = size_prefix size and w = size = 64 in
    let r = reg_field_of d in
    if fits_int8 n then modrm st ~prefixes ~w [ 0x6B ] r (rm_of_arg d) ~imm:(1, n) ()
    else if fits_int32 n then modrm st ~prefixes ~w [ 0x69 ] r (rm_of_arg d) ~imm:((if size = 16 then 2 else 4), n) ()
    else unsupported "IMUL immediate out of range"
  | IMUL (s, Some d) ->
    let size = op_size "IMUL" [ d ] in
    modrm st ~prefixes:(size_prefix size) ~w:(size = 64) [ 0x0F; 0xAF ] (reg_field_of d) (rm_of_arg s) ()
  | IDIV a -> unary st "IDIV" 0xF6 0xF7 7 a
  | NEG a -> unary st "NEG" 0xF6 0xF7 3 a
  | INC a -> unary st "INC" 0xFE 0xFF 0 a
  | DEC a -> unary st "DEC" 0xFE 0xFF 1 a
  | CQO -> byte st 0x48; byte st 0x99
  | CDQ -> byte st 0x99
  | SAL (s, d) -> shift st 4 s d
  | SHR (s, d) -> shift st 5 s d
  | SAR (s, d) -> shift st 7 s d
  | J (c, Sym l) -> rel_jump st [ 0x0F; 0x80 lor cond_code c ] l
  | JMP (Sym l) -> rel_jump st [ 0xE9 ] l
  | CALL (Sym l) -> rel_jump st [ 0xE8 ] l
  | JMP a -> modrm st [ 0xFF ] 4 (rm_of_arg a) ()
  | CALL a -> modrm st [ 0xFF ] 2 (rm_of_arg a) ()
  | J _ -> unsupported "conditional jump to a computed address"
  | SET (c, a) -> (
      match a with
      | Reg8L r ->
        let n = reg_num r in
        modrm st [ 0x0F; 0x90 lor cond_code c ] 0 (Rreg { n; rex8 = n >= 4 && n <= 7; high = false }) ()
      | _ -> modrm st [ 0x0F; 0x90 lor cond_code c ] 0 (rm_of_arg a) ())
  | CMOV (c, s, d) ->
    let size = op_size "CMOV" [ d ] in
    modrm st ~prefixes:(size_prefix size) ~w:(size = 64) [ 0x0F; 0x40 lor cond_code c ] (reg_field_of d) (rm_of_arg s) ()
  | PUSH (Reg64 r) -> let n = reg_num r in if n >= 8 then byte st 0x41; byte st (0x50 lor (n land 7))
  | POP (Reg64 r) -> let n = reg_num r in if n >= 8 then byte st 0x41; byte st (0x58 lor (n land 7))
  | PUSH (Imm n) when fits_int32 n -> byte st 0x68; int_le st 4 n
  | PUSH ((Mem _ | Mem64_RIP _) as a) -> modrm st [ 0xFF ] 6 (rm_of_arg a) ()
  | POP ((Mem _ | Mem64_RIP _) as a) -> modrm st [ 0x8F ] 0 (rm_of_arg a) ()
  | PUSH _ | POP _ -> unsupported "PUSH/POP operand"
  | RET -> byte st 0xC3
  | NOP -> byte st 0x90
  | HLT -> byte st 0xF4
  | LEAVE -> byte st 0xC9
  | XCHG (s, d) -> (
      let size = op_size "XCHG" [ s; d ] in
      let prefixes = size_prefix size and w = size = 64 in
      match (s, d) with
      | Reg8H _, Reg8L r | Reg8L r, Reg8H _ when reg_num r >= 4 -> unsupported "XCHG of AH..BH with spl..r15b"
      | _ when is_reg s -> reg_op st ~prefixes ~w [ (if size = 8 then 0x86 else 0x87) ] s d
      | _ when is_reg d -> reg_op st ~prefixes ~w [ (if size = 8 then 0x86 else 0x87) ] d s
      | _ -> unsupported "XCHG of two memory operands")
  | BSWAP a -> (
      match a with
      | Reg64 r | Reg32 r ->
        let n = reg_num r in
        let w = match a with Reg64 _ -> 8 | _ -> 0 in
        if w lor (n lsr 3) <> 0 then byte st (0x40 lor w lor (n lsr 3));
        byte st 0x0F;
        byte st (0xC8 lor (n land 7))
      | _ -> unsupported "BSWAP operand")
  | ADDSD (s, d) -> sse st [ 0xF2 ] [ 0x58 ] s d
  | MULSD (s, d) -> sse st [ 0xF2 ] [ 0x59 ] s d
  | SUBSD (s, d) -> sse st [ 0xF2 ] [ 0x5C ] s d
  | DIVSD (s, d) -> sse st [ 0xF2 ] [ 0x5E ] s d
  | SQRTSD (s, d) -> sse st [ 0xF2 ] [ 0x51 ] s d
  | ANDPD (s, d) -> sse st [ 0x66 ] [ 0x54 ] s d
  | XORPD (s, d) -> sse st [ 0x66 ] [ 0x57 ] s d
  | COMISD (s, d) -> sse st [ 0x66 ] [ 0x2F ] s d
  | UCOMISD (s, d) -> sse st [ 0x66 ] [ 0x2E ] s d
  | CVTSD2SS (s, d) -> sse st [ 0xF2 ] [ 0x5A ] s d
  | CVTSS2SD (s, d) -> sse st [ 0xF3 ] [ 0x5A ] s d
  | ROUNDSD (r, s, d) ->
    if not (is_xmm d) then unsupported "ROUNDSD destination";
    let mode = match r with RoundNearest -> 0L | RoundDown -> 1L | RoundUp -> 2L | RoundTruncate -> 3L in
    modrm st ~prefixes:[ 0x66 ] [ 0x0F; 0x3A; 0x0B ] (reg_field_of d) (rm_of_arg s) ~imm:(1, mode) ()
  | CVTSI2SD (s, d) ->
    let w = match size_of s with Some 64 -> true | Some 32 -> false | _ -> unsupported "CVTSI2SD source size" in
    modrm st ~prefixes:[ 0xF2 ] ~w [ 0x0F; 0x2A ] (reg_field_of d) (rm_of_arg s) ()
  | CVTTSD2SI (s, d) | CVTSD2SI (s, d) ->
    let w = match d with Reg64 _ -> true | Reg32 _ -> false | _ -> unsupported "CVT(T)SD2SI destination" in
    let op = match i with CVTTSD2SI _ -> 0x2C | _ -> 0x2D in
    modrm st ~prefixes:[ 0xF2 ] ~w [ 0x0F; op ] (reg_field_of d) (rm_of_arg s) ()
  | MOVSD (s, d) | MOVSS (s, d) -> (
      let prefix = match i with MOVSD _ -> 0xF2 | _ -> 0xF3 in
      match (s, d) with
      | _, Regf (XMM _) -> modrm st ~prefixes:[ prefix ] [ 0x0F; 0x10 ] (reg_field_of d) (rm_of_arg s) ()
      | Regf (XMM _), _ -> modrm st ~prefixes:[ prefix ] [ 0x0F; 0x11 ] (reg_field_of s) (rm_of_arg d) ()
      | _ -> unsupported "MOVSD/MOVSS without an xmm register")
  | MOVAPD (s, d) -> (
      match (s, d) with
      | _, Regf (XMM _) -> modrm st ~prefixes:[ 0x66 ] [ 0x0F; 0x28 ] (reg_field_of d) (rm_of_arg s) ()
      | Regf (XMM _), _ -> modrm st ~prefixes:[ 0x66 ] [ 0x0F; 0x29 ] (reg_field_of s) (rm_of_arg d) ()
      | _ -> unsupported "MOVAPD without an xmm register")
  | MOVLPD (s, d) -> (
      match (s, d) with
      | _, Regf (XMM _) -> modrm st ~prefixes:[ 0x66 ] [ 0x0F; 0x12 ] (reg_field_of d) (rm_of_arg s) ()
      | Regf (XMM _), _ -> modrm st ~prefixes:[ 0x66 ] [ 0x0F; 0x13 ] (reg_field_of s) (rm_of_arg d) ()
      | _ -> unsupported "MOVLPD without an xmm register")
  | _ -> unsupported "%s" (instr_name i)

let section_named st name =
  match List.find_opt (fun s -> s.sname = name) st.secs with
  | Some s -> s
  | None ->
    let s = { sname = name; buf = Buffer.create 1024; align = 16 } in
    st.secs <- st.secs @ [ s ];
    s

let is_text sec = sec.sname = ".text" || String.length sec.sname > 6 && String.sub sec.sname 0 6 = ".text."

let data_item st size c =
  match c with
  | Const n -> int_le st size n
  | _ ->
    st.fixups <- Data { sec = st.cur; pos = pos st; size; expr = c } :: st.fixups;
    int_le st size 0L

let line st = function
  | Ins i -> instruction st i
  | Align (_, n) ->
    if n > st.cur.align then st.cur.align <- n;
    let fill = if is_text st.cur then 0x90 else 0 in
    while pos st mod n <> 0 do byte st fill done
  | Byte c -> data_item st 1 c
  | Word c -> data_item st 2 c
  | Long c -> data_item st 4 c
  | Quad c -> data_item st 8 c
  | Bytes s -> Buffer.add_string st.cur.buf s
  | Space n -> for _ = 1 to n do byte st 0 done
  | NewLabel (name, _) -> Hashtbl.replace st.labels name (st.cur, pos st)
  | Global name -> st.globals <- name :: st.globals
  | Section (name :: _, _, _) -> st.cur <- section_named st name
  | Section ([], _, _) -> unsupported "unnamed section"
  | Comment _ | Cfi_adjust_cfa_offset _ | Cfi_endproc | Cfi_startproc | File _ | Loc _ | Size _ | Type _
  | Private_extern _ ->
    ()
  | Set _ -> unsupported "directive .set"
  | External _ | Mode386 | Model _ | Indirect_symbol _ -> unsupported "MASM/Mach-O directive"

(* Sections start at 1 KiB, which a small phrase's code fits: a string of up to 2 KiB is allocated
   in the minor heap, a larger one in the major heap (perf on eval_batch: a 4 KiB start buffer per
   phrase, allocated there and faulted in, was a tenth of what a small phrase cost the agent). *)
let assemble (lines : asm_line list) : program =
  let text = { sname = ".text"; buf = Buffer.create 1024; align = 16 } in
  let st = { cur = text; secs = [ text ]; labels = Hashtbl.create 64; globals = []; fixups = [] } in
  List.iter (line st) lines;
  { sections = st.secs; labels = st.labels; globals = List.rev st.globals; fixups = List.rev st.fixups }
