// The machine services a primitive may use. Both routes (tree evaluator and VM) implement it;
// primitives receive it as their second argument: `(args: Value[], rt: Runtime) => Value`.

import type { WarningCode } from './diagnostics.js';
import type { Value } from './values.js';

export interface Runtime {
  /**
   * Call a guest procedure (closure, primitive or continuation) with `args` and return its
   * single result. Re-entrant: used by the higher-order family (map, for-each, fold-left, …).
   * Arity errors, machine-transition charges and recursion-limit apply as for any call; a
   * continuation invoked inside unwinds through this call (the JS exception passes through —
   * primitives must not catch exceptions they did not throw).
   */
  apply(proc: Value, args: Value[]): Value;
  /** Append `text` to stdout; charges the output-byte meter (UTF-8 length) before appending. */
  writeOut(text: string): void;
  /** Record a deprecation warning at the current call site (W330 for `%`, W331 for list aliases). */
  warn(code: WarningCode): void;
}
