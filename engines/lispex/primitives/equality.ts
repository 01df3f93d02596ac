// Equality: eqv? (and eq?, which Lispex defines as eqv? so the answer never depends on how a
// route allocates numbers or characters), equal? (structural, cycle-safe, iterative), and the
// typed n-ary comparisons boolean=? and symbol=?.

import { Bytevector, Char, Flonum, LString, LVector, Pair, Ratnum, type PrimitiveFn, type Value } from '../values.js';
import { checkSymbol, typeError } from './args.js';

export function isEqv(a: Value, b: Value): boolean {
  if (a === b) return true; // fixnums, bigints (compared by value), booleans, symbols, same object
  if (a instanceof Flonum) return b instanceof Flonum && Object.is(a.value, b.value);
  if (a instanceof Char) return b instanceof Char && a.codePoint === b.codePoint;
  if (a instanceof Ratnum) return b instanceof Ratnum && a.num === b.num && a.den === b.den;
  return false;
}

/**
 * Structural equality. Vectors can make cycles (through vector-set!); a vector pair already
 * under comparison is assumed equal, which makes the answer bisimilarity and guarantees
 * termination. Iterative, so deep structures cannot overflow the stack.
 */
export function isEqual(a0: Value, b0: Value): boolean {
  // Atoms (the common case in member/assoc) need no work stack.
  if (!(a0 instanceof Pair || a0 instanceof LVector || a0 instanceof LString || a0 instanceof Bytevector)) {
    return isEqv(a0, b0);
  }
  const stack: Value[] = [a0, b0];
  let assumed: Map<LVector, Set<LVector>> | null = null;
  while (stack.length > 0) {
    const b = stack.pop()!;
    let a = stack.pop()!;
    let bb = b;
    // Walk list spines in place; push the cars.
    while (a instanceof Pair) {
      if (!(bb instanceof Pair)) return false;
      if (a === bb) break;
      stack.push(a.car, bb.car);
      a = a.cdr;
      bb = bb.cdr;
    }
    if (a instanceof Pair) continue; // identical tails
    if (isEqv(a, bb)) continue;
    if (a instanceof LString) {
      if (!(bb instanceof LString) || a.value !== bb.value) return false;
      continue;
    }
    if (a instanceof LVector) {
      if (!(bb instanceof LVector) || a.items.length !== bb.items.length) return false;
      assumed ??= new Map();
      let set = assumed.get(a);
      if (set?.has(bb)) continue;
      if (set === undefined) {
        set = new Set();
        assumed.set(a, set);
      }
      set.add(bb);
      for (let i = 0; i < a.items.length; i++) stack.push(a.items[i]!, bb.items[i]!);
      continue;
    }
    if (a instanceof Bytevector) {
      if (!(bb instanceof Bytevector) || a.bytes.length !== bb.bytes.length) return false;
      for (let i = 0; i < a.bytes.length; i++) if (a.bytes[i] !== bb.bytes[i]) return false;
      continue;
    }
    return false;
  }
  return true;
}

/** n-ary identity comparison after checking every argument's type. */
function typedChain(check: (v: Value) => void): PrimitiveFn {
  return (args) => {
    for (const a of args) check(a);
    for (let i = 1; i < args.length; i++) if (args[i] !== args[0]) return false;
    return true;
  };
}

export const EQUALITY_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  'eq?': (args) => isEqv(args[0]!, args[1]!),
  'eqv?': (args) => isEqv(args[0]!, args[1]!),
  '==': (args) => isEqual(args[0]!, args[1]!),
  '!=': (args) => !isEqual(args[0]!, args[1]!),
  'boolean=?': typedChain((v) => {
    if (typeof v !== 'boolean') throw typeError('boolean=?', 'boolean', v);
  }),
  'symbol=?': typedChain((v) => void checkSymbol('symbol=?', v)),
};
