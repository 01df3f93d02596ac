// The search family: member/memv/memq over a list, assoc/assv/assq over an association list.
// The walk stops at the first match; reaching a non-list tail first is E312, an alist element
// that is not a pair is E312. assq/memq use eq?, which Lispex defines as eqv?.

import { Pair, type PrimitiveFn, type Value, NIL } from '../values.js';
import { typeError } from './args.js';
import { isEqual, isEqv } from './equality.js';

function memberBy(who: string, same: (a: Value, b: Value) => boolean): PrimitiveFn {
  return (args) => {
    const x = args[0]!;
    let p = args[1]!;
    while (p instanceof Pair) {
      if (same(x, p.car)) return p;
      p = p.cdr;
    }
    if (p !== NIL) throw typeError(who, 'proper list', args[1]!);
    return false;
  };
}

function assocBy(who: string, same: (a: Value, b: Value) => boolean): PrimitiveFn {
  return (args) => {
    const x = args[0]!;
    let p = args[1]!;
    while (p instanceof Pair) {
      const entry = p.car;
      if (!(entry instanceof Pair)) throw typeError(who, 'association list (list of pairs)', args[1]!);
      if (same(x, entry.car)) return entry;
      p = p.cdr;
    }
    if (p !== NIL) throw typeError(who, 'association list (list of pairs)', args[1]!);
    return false;
  };
}

export const SEARCH_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  member: memberBy('member', isEqual),
  memv: memberBy('memv', isEqv),
  memq: memberBy('memq', isEqv),
  assoc: assocBy('assoc', isEqual),
  assv: assocBy('assv', isEqv),
  assq: assocBy('assq', isEqv),
};
