// The native agent prints values with its own printer (value_printer.ml); the bytecode agent with
// OCaml's. The same phrases must give the same value_repr and type under both drivers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { OcamlToplevel } from '../../../engines/ocaml/index.js';
import { testEngine } from './helpers.js';

const PHRASES = [
  `1, "a", 'c', 2.5, [1; 2], [|3; 4|], [|1.5|], Some (Ok 3), None`,
  'type shape = Circle of float | Rect of { w : int; h : int } | Empty;; [Circle 1.; Rect { w = 2; h = 3 }; Empty]',
  `type 'a tree = Leaf | Node of 'a tree * 'a * 'a tree;; Node (Leaf, "x", Node (Leaf, "y", Leaf))`,
  'type p = { name : string; mutable age : int; tags : string list };; { name = "n"; age = 3; tags = ["t"] }',
  'type r2 = { x : float; y : float };; { x = 1.; y = 2. }',
  '`A, `B 3, `C ("x", 1.)',
  'lazy (1 + 1)',
  'let l = lazy 3 in ignore (Lazy.force l); l',
  'exception Boom of string * int;; Boom ("b", 2)',
  'Not_found, Failure "f", Invalid_argument "i"',
  'type ext = ..;; type ext += E1 of int;; E1 3',
  'Int32.of_int 3, Int64.of_int 4, Nativeint.of_int 5, Bytes.of_string "by"',
  'fun x -> x',
  'List.map',
  'Hashtbl.create 1',
  'Format.std_formatter',
  'module M = struct type t = A | B let v = B end;; (M.v, [M.A])',
  'let rec cyc = 1 :: cyc in cyc',
  'List.init 50 (fun i -> i * i)',
  '[| [1]; [] |]',
  'object method m = 1 end',
  'let rec f n = if n = 0 then [] else n :: f (n - 1);; f 3',
  'raise (Boom ("again", 3))',
  'let x = 1 + "no"',
];

let bytecode: OcamlToplevel;
let native: OcamlToplevel;
let closeAll: () => Promise<void>;
before(() => {
  const b = testEngine({ driver: 'bytecode' });
  const n = testEngine({ driver: 'native' });
  bytecode = b.engine;
  native = n.engine;
  closeAll = async () => {
    await b.close();
    await n.close();
  };
});
after(() => closeAll());

test('value_repr, type and error are the same under the bytecode and the native driver', { timeout: 240_000 }, async () => {
  for (const source of PHRASES) {
    const [b, n] = [await bytecode.eval(source), await native.eval(source)];
    assert.deepEqual(
      { value_repr: n.value_repr, type: n.type, error: n.error, error_kind: n.error_kind },
      { value_repr: b.value_repr, type: b.type, error: b.error, error_kind: b.error_kind },
      source,
    );
  }
});
