(* The poll points topup-opt could put at the entry of a let rec function, on naive fib 32 (the
   tiniest body, so the poll's cost shows most), CPU time, best of 7 runs each:
     cd "$(mktemp -d)" && cp <repo>/bench/topup/poll_points.ml . \
       && ocamlfind ocamlopt -g -fPIC poll_points.ml -o poll_points && ./poll_points
   -g -fPIC: topup-opt compiles phrases with debug info, as position-independent code (globals
   reached through the GOT).
   See docs/performance/topup.md for figures and engines/ocaml/agent/native_toplevel.ml for the
   choice. *)

module Countdown = struct
  let cell = ref 1024
end

(* No poll point: fast, and deaf to interrupts for as long as it runs. *)
let rec plain n = if n < 2 then n else plain (n - 1) + plain (n - 2)

(* The chosen one: a one-field block the optimiser may not remove. *)
let rec alloc n =
  ignore (Sys.opaque_identity (ref 0));
  if n < 2 then n else alloc (n - 1) + alloc (n - 2)

(* The earlier one: a global countdown, allocating every 1024th pass. *)
let rec countdown n =
  decr Countdown.cell;
  if !Countdown.cell < 0 then begin
    Countdown.cell := 1024;
    ignore (Sys.opaque_identity (ref 0))
  end;
  if n < 2 then n else countdown (n - 1) + countdown (n - 2)

(* A dead indirect tail call: the backend's polling pass then adds its own prologue poll. *)
let rec prologue n =
  if Sys.opaque_identity false then Obj.magic ((Sys.opaque_identity ignore) ())
  else if n < 2 then n
  else prologue (n - 1) + prologue (n - 2)

let time name f =
  let best = ref infinity in
  for _ = 1 to 7 do
    let t0 = Sys.time () in
    ignore (Sys.opaque_identity (f 32));
    best := Float.min !best (Sys.time () -. t0)
  done;
  Printf.printf "%-10s %6.1f ms\n%!" name (!best *. 1000.)

let () =
  time "plain" plain;
  time "alloc" alloc;
  time "countdown" countdown;
  time "prologue" prologue
