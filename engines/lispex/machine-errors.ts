// The runtime faults both routes raise themselves (not through a primitive), built in one place
// so the tree evaluator and the VM produce byte-identical diagnostics (code, message, irritants)
// at the same positions.

import type { Name } from './core-ir.js';
import { DEFAULT_MESSAGES, LispexError, type SourcePosition } from './diagnostics.js';
import { Sym, type Value } from './values.js';

export function arityError(fn: Value, n: number, at: SourcePosition | undefined): LispexError {
  return new LispexError('E302', `wrong number of arguments (${n})`, [fn], at);
}

export function notAProcedure(fn: Value, at: SourcePosition | undefined): LispexError {
  return new LispexError('E301', 'attempt to apply a non-procedure', [fn], at);
}

export function mvMisuse(at: SourcePosition | undefined): LispexError {
  return new LispexError('E320', 'multiple values where one value is required', [], at);
}

export function nonContinuable(obj: Value, at: SourcePosition | undefined): LispexError {
  return new LispexError('E332', 'handler returned from a non-continuable raise', [obj], at);
}

export function uninitialized(name: Name, at: SourcePosition | undefined): LispexError {
  return new LispexError('E321', 'letrec variable read before initialization', name instanceof Sym ? [name] : [], at);
}

export function unbound(name: Sym, at: SourcePosition | undefined): LispexError {
  return new LispexError('E300', DEFAULT_MESSAGES.E300, [name], at);
}

export function setUnbound(name: Sym, at: SourcePosition | undefined): LispexError {
  return new LispexError('E303', DEFAULT_MESSAGES.E303, [name], at);
}

export function inactiveContinuation(at: SourcePosition | undefined): LispexError {
  return new LispexError('E340', 'escape continuation no longer active', [], at);
}

export function recursionLimit(at: SourcePosition | undefined): LispexError {
  return new LispexError('recursion-limit', 'non-tail call depth limit exceeded', [], at);
}

export function reentryLimit(at: SourcePosition | undefined): LispexError {
  return new LispexError('recursion-limit', 'primitive re-entry depth limit exceeded', [], at);
}

export function notProperList(who: string, v: Value, at: SourcePosition | undefined): LispexError {
  return new LispexError('E312', `${who}: last argument must be a proper list`, [v], at);
}

export function expectedProcedure(who: string, v: Value, at: SourcePosition | undefined): LispexError {
  return new LispexError('E312', `${who}: expected a procedure`, [v], at);
}

/**
 * True for the JS engine's stack overflow only. Other RangeErrors (a BigInt past V8's size
 * limit, an over-long string or array) are host limits on data, not call depth: they must not be
 * reported as `recursion-limit`.
 */
export function isHostStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/**
 * A host limit on data (V8 refusing a BigInt, string, array or buffer that large) as the catalog
 * error E311 — the same code as a size past the sized constructors' bound, since both say "this
 * value is too large to build here". The message names the kind of value, never V8's own text.
 * Null for anything else (a stack overflow included).
 */
export function hostDataLimit(e: unknown, at: SourcePosition): LispexError | null {
  if (!(e instanceof RangeError) || isHostStackOverflow(e)) return null;
  const text = e.message;
  const what = /bigint/i.test(text)
    ? 'exact integer beyond the host limit of 2^30 bits'
    : /string/i.test(text)
      ? 'string longer than the host limit of 2^29 - 24 characters'
      : /buffer|typed array/i.test(text)
        ? 'bytevector larger than the host can allocate'
        : /array/i.test(text)
          ? 'sequence longer than the host limit'
          : 'value too large for the host';
  return new LispexError('E311', `result too large: ${what}`, [], at);
}
