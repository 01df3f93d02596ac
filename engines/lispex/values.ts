// The Lispex value model, shared by the reader, both evaluation routes (tree and VM), the
// primitives and the printer. One representation per variant, chosen so that the hot paths of
// the evaluators stay cheap:
//   - exact integer: JS `number` when it is a safe integer, else `bigint`. A bigint that fits the
//     safe range is ALWAYS converted back (see `normalizeInteger`), so `typeof v === 'number'`
//     means "exact integer" everywhere and the fixnum fast paths never see a small bigint.
//   - inexact finite real: `Flonum` (never NaN or ±Infinity; producing one is E314).
//   - exact rational: `Ratnum` with den > 1 and gcd(num, den) = 1.
//   - booleans are JS booleans; every other variant is a class, so a JS `string` is never a value.

import type { WarningCode } from './warning-codes.js';

/** Inexact finite real. The constructor does not check finiteness; `makeFlonum` in numbers.ts does. */
export class Flonum {
  constructor(readonly value: number) {}
}

/** Exact non-integral rational: den > 1, reduced. Integral results are normalized to integers. */
export class Ratnum {
  constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {}
}

/** Immutable string. `value` is the JS (UTF-16) text; `length` counts Unicode scalars. */
export class LString {
  private scalarCount = -1;
  constructor(readonly value: string) {}
  /** Number of Unicode scalar values (not UTF-16 code units). */
  get length(): number {
    if (this.scalarCount < 0) {
      let n = 0;
      const s = this.value;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
        n++;
      }
      this.scalarCount = n;
    }
    return this.scalarCount;
  }
}

/** Interned symbol: `Sym.of(name)` always returns the same object, so `eq?` is `===`. */
export class Sym {
  private static readonly table = new Map<string, Sym>();
  /** Names in interning order, so the symbols interned after a point can be forgotten. */
  private static readonly order: string[] = [];
  private constructor(readonly name: string) {}
  static of(name: string): Sym {
    let s = Sym.table.get(name);
    if (s === undefined) {
      s = new Sym(name);
      Sym.table.set(name, s);
      Sym.order.push(name);
    }
    return s;
  }
  /** How many symbols are interned (a point to return to with `forgetSince`). */
  static internedCount(): number {
    return Sym.order.length;
  }
  /**
   * Forget every symbol interned after the first `count`. Only safe when nothing made since then
   * is still reachable (the engine between two runs): a stale Sym object would otherwise no
   * longer be `eq?` to a freshly interned one of the same name.
   */
  static forgetSince(count: number): void {
    for (let i = Sym.order.length - 1; i >= count; i--) Sym.table.delete(Sym.order[i]!);
    if (Sym.order.length > count) Sym.order.length = count;
  }
}

/** A character (one Unicode scalar). `Char.of` caches the ASCII range. */
export class Char {
  private static readonly cache: Char[] = [];
  private constructor(readonly codePoint: number) {}
  static of(codePoint: number): Char {
    if (codePoint < 128) {
      let c = Char.cache[codePoint];
      if (c === undefined) {
        c = new Char(codePoint);
        Char.cache[codePoint] = c;
      }
      return c;
    }
    return new Char(codePoint);
  }
}

/** The empty list. A class with one instance so `instanceof`-free identity checks work. */
export class Nil {
  static readonly instance = new Nil();
  private constructor() {}
}
export const NIL = Nil.instance;

/** Immutable pair (Lispex has no set-car!/set-cdr!). */
export class Pair {
  constructor(
    readonly car: Value,
    readonly cdr: Value,
  ) {}
}

/** Vector; mutable only through `vector-set!`. */
export class LVector {
  constructor(readonly items: Value[]) {}
}

/** Read-only bytevector. */
export class Bytevector {
  constructor(readonly bytes: Uint8Array) {}
}

/** The value of forms with no useful result (for example `vector-set!` per L2's decision). */
export class Unspecified {
  static readonly instance = new Unspecified();
  private constructor() {}
}
export const UNSPECIFIED = Unspecified.instance;

// ---------------------------------------------------------------------------------------------
// Procedures

/** A primitive's implementation. Arity is checked by the caller (E302) before `fn` runs. */
export type PrimitiveFn = (args: Value[], rt: Runtime) => Value;

/**
 * Control-family operations that need the machine (continuations, handlers, winders, tail
 * calls). A primitive with a non-null `control` is dispatched by the evaluator itself; its `fn`
 * is never called by the routes. See control-primitives.ts.
 */
export type ControlOp =
  | 'apply'
  | 'call/cc'
  | 'call-with-values'
  | 'dynamic-wind'
  | 'with-exception-handler'
  | 'error'
  | 'raise'
  | 'raise-continuable';

export class Primitive {
  constructor(
    readonly name: string,
    readonly minArgs: number,
    /** `Infinity` for `n+` arities. */
    readonly maxArgs: number,
    readonly fn: PrimitiveFn,
    readonly control: ControlOp | null = null,
  ) {}
}

/**
 * A user procedure made by `lambda`. Both routes use this one class: `code` is the route's
 * compiled form (a core-IR lambda for the tree, a code object for the VM) and `env` the route's
 * captured environment. Only the owning route reads `code`/`env`; everyone else treats a closure
 * as an opaque procedure with an optional name.
 */
export class Closure {
  constructor(
    readonly code: ClosureCode,
    readonly env: unknown,
  ) {}
  get name(): string | null {
    return this.code.name;
  }
}

/** What every route's closure code exposes to the rest of the engine. */
export interface ClosureCode {
  readonly name: string | null;
  /** Number of required parameters. */
  readonly required: number;
  /** True when a rest parameter collects the remaining arguments. */
  readonly rest: boolean;
}

/**
 * An escape continuation captured by `call/cc`. It is valid only while the `call/cc` frame that
 * made it is on the stack; invoking it afterwards is E340. The route owns `frame`.
 */
export class Continuation {
  active = true;
  constructor(
    /** Route-private marker identifying the capturing frame. */
    readonly frame: unknown,
    /** The dynamic-wind depth at capture time (winders to unwind when escaping). */
    readonly windDepth: number,
  ) {}
}

/** A condition made by `error` (or by `guard` reflecting a runtime fault). */
export class ErrorObject {
  constructor(
    readonly message: LString,
    readonly irritants: Value[],
    /** The diagnostic code this object stands for when it escapes uncaught (E330 for `error`). */
    readonly code: string = 'E330',
  ) {}
}

/** Transient result of `values` with other than exactly one value; never stored in a variable. */
export class MultipleValues {
  constructor(readonly values: Value[]) {}
}

export type Procedure = Primitive | Closure | Continuation;

export type Value =
  | number
  | bigint
  | boolean
  | Flonum
  | Ratnum
  | LString
  | Sym
  | Char
  | Nil
  | Pair
  | LVector
  | Bytevector
  | Unspecified
  | Primitive
  | Closure
  | Continuation
  | ErrorObject
  | MultipleValues;

export function isProcedure(v: Value): v is Procedure {
  return v instanceof Closure || v instanceof Primitive || v instanceof Continuation;
}

/** The name printed for a procedure (`#<procedure name>`), or null for an anonymous one. */
export function procedureName(v: Procedure): string | null {
  if (v instanceof Primitive) return v.name;
  if (v instanceof Closure) return v.name;
  return null;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Exact integer from a bigint: back to `number` when it fits the safe range. */
export function normalizeInteger(b: bigint): number | bigint {
  return b >= MIN_SAFE && b <= MAX_SAFE ? Number(b) : b;
}

/** True for exact integers in either representation. */
export function isExactInteger(v: Value): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

/** Build a proper list from an array (last element first, so no recursion). */
export function listFromArray(items: readonly Value[], tail: Value = NIL): Value {
  let out = tail;
  for (let i = items.length - 1; i >= 0; i--) out = new Pair(items[i]!, out);
  return out;
}

/** The elements of a proper list, or null when `v` is not a proper list. */
export function arrayFromList(v: Value): Value[] | null {
  const out: Value[] = [];
  while (v instanceof Pair) {
    out.push(v.car);
    v = v.cdr;
  }
  return v === NIL ? out : null;
}

/** Lispex truthiness: only `#f` is false. */
export function isTruthy(v: Value): boolean {
  return v !== false;
}

/**
 * Zero values: the result of definitions, `set!`, output procedures (display, write, newline,
 * println: registry cardinality `discard`), and forms with no applicable branch (one-armed `if`
 * with a false test, `cond`/`case` with no matching clause, `when`/`unless` skipped). Using it
 * where one value is required is E320. The interactive CLI prints nothing for it.
 */
export const NO_VALUES = new MultipleValues([]);

/**
 * The machine services a primitive may use. Both routes (tree evaluator and VM) implement it;
 * primitives receive it as their second argument: `(args: Value[], rt: Runtime) => Value`.
 */
export interface Runtime {
  /**
   * Call a guest procedure (closure, primitive or continuation) with `args` and return its
   * result AS IS: usually one value, but a `MultipleValues` when the procedure returned zero
   * values (e.g. a lambda ending in `display`, see NO_VALUES) or several. A primitive that
   * discards the result (for-each, vector-for-each, string-for-each) ignores it; one that keeps
   * or tests it (map, filter, fold, any?, …) must raise E320 for a MultipleValues.
   * Re-entrant: used by the higher-order family. Arity errors, machine-transition charges and
   * recursion-limit apply as for any call; an escape (continuation, guard) or error passes
   * through as a JS exception — primitives must not catch exceptions they did not throw.
   */
  apply(proc: Value, args: Value[]): Value;
  /**
   * Reserve `bytes` of the run's large-allocation budget before a sized constructor allocates
   * (make-bytevector, bytevector, make-vector, make-string). E311 when the run would exceed it.
   */
  allocate(bytes: number, who: string): void;
  /** Append `text` to stdout; charges the output-byte meter (UTF-8 length) before appending. */
  writeOut(text: string): void;
  /** Record a deprecation warning at the current call site (W330 for `%`, W331 for list aliases). */
  warn(code: WarningCode): void;
}
