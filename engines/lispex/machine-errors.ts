// The runtime faults both routes raise themselves (not through a primitive), built in one place
// so the tree evaluator and the VM produce byte-identical diagnostics (code, message, irritants)
// at the same positions.

import type { Name } from './core-ir.js';
import { LispexError, type SourcePosition } from './diagnostics.js';
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
  return new LispexError('E300', `unbound variable ${name.name}`, [name], at);
}

export function setUnbound(name: Sym, at: SourcePosition | undefined): LispexError {
  return new LispexError('E303', `set! of unbound variable ${name.name}`, [name], at);
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
