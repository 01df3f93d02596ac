// The machine services a primitive may use. Both routes (tree evaluator and VM) implement it;
// primitives receive it as their second argument: `(args: Value[], rt: Runtime) => Value`.

import type { WarningCode } from './diagnostics.js';
import type { Value } from './values.js';

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
