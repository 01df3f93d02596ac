// The numeric family (38 rows minus the aliases bound through their identity group). The hot
// operators inline the fixnum fast path: two safe integers with a safe result allocate nothing.

import { LispexError } from '../diagnostics.js';
import {
  abs,
  add,
  checkInteger,
  checkNumber,
  checkRadix,
  compare,
  div,
  divisionByZero,
  exactIntOf,
  exactIntegerSqrt,
  expt,
  formatNumber,
  gcdInt,
  integerDivision,
  isZero,
  lcmInt,
  makeFlonum,
  mul,
  negate,
  parseNumber,
  roundTo,
  sign,
  sub,
  toExact,
  toInexact,
  twoValues,
  typeError,
  type Int,
  type Num,
} from '../numbers.js';
import { Flonum, LString, type PrimitiveFn, type Value } from '../values.js';
import { checkString } from './args.js';

const plus: PrimitiveFn = (args) => {
  const n = args.length;
  if (n === 2) {
    const a = args[0]!,
      b = args[1]!;
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a + b;
      if (Number.isSafeInteger(r)) return r;
    }
    return add(checkNumber('+', a), checkNumber('+', b));
  }
  let acc: Num = 0;
  for (let i = 0; i < n; i++) acc = add(acc, checkNumber('+', args[i]!));
  return acc;
};

const minus: PrimitiveFn = (args) => {
  const n = args.length;
  const a = args[0]!;
  if (n === 2) {
    const b = args[1]!;
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a - b;
      if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
    }
    return sub(checkNumber('-', a), checkNumber('-', b));
  }
  if (n === 1) return negate(checkNumber('-', a));
  let acc: Num = checkNumber('-', a);
  for (let i = 1; i < n; i++) acc = sub(acc, checkNumber('-', args[i]!));
  return acc;
};

const times: PrimitiveFn = (args) => {
  const n = args.length;
  if (n === 2) {
    const a = args[0]!,
      b = args[1]!;
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a * b;
      if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
    }
    return mul(checkNumber('*', a), checkNumber('*', b));
  }
  let acc: Num = 1;
  for (let i = 0; i < n; i++) acc = mul(acc, checkNumber('*', args[i]!));
  return acc;
};

const divide: PrimitiveFn = (args) => {
  const nums = args.map((a) => checkNumber('/', a));
  if (nums.length === 1) {
    if (isZero(nums[0]!)) throw divisionByZero('/', args);
    return div(1, nums[0]!);
  }
  let acc = nums[0]!;
  for (let i = 1; i < nums.length; i++) {
    if (isZero(nums[i]!)) throw divisionByZero('/', args);
    acc = div(acc, nums[i]!);
  }
  return acc;
};

/** A chained comparison; every argument is type-checked even after the answer is known. */
function compareChain(who: string, args: Value[], holds: (c: number) => boolean): boolean {
  let result = true;
  let prev = checkNumber(who, args[0]!);
  for (let i = 1; i < args.length; i++) {
    const cur = checkNumber(who, args[i]!);
    if (result && !holds(compare(prev, cur))) result = false;
    prev = cur;
  }
  return result;
}

// Each comparison answers two fixnums inline (the common case in loops) before the general chain.
const less: PrimitiveFn = (args) => {
  const a = args[0],
    b = args[1];
  if (args.length === 2 && typeof a === 'number' && typeof b === 'number') return a < b;
  return compareChain('<', args, (c) => c < 0);
};
const lessOrEqual: PrimitiveFn = (args) => {
  const a = args[0],
    b = args[1];
  if (args.length === 2 && typeof a === 'number' && typeof b === 'number') return a <= b;
  return compareChain('<=', args, (c) => c <= 0);
};
const numEqual: PrimitiveFn = (args) => {
  const a = args[0],
    b = args[1];
  if (args.length === 2 && typeof a === 'number' && typeof b === 'number') return a === b;
  return compareChain('=', args, (c) => c === 0);
};
const greater: PrimitiveFn = (args) => {
  const a = args[0],
    b = args[1];
  if (args.length === 2 && typeof a === 'number' && typeof b === 'number') return a > b;
  return compareChain('>', args, (c) => c > 0);
};
const greaterOrEqual: PrimitiveFn = (args) => {
  const a = args[0],
    b = args[1];
  if (args.length === 2 && typeof a === 'number' && typeof b === 'number') return a >= b;
  return compareChain('>=', args, (c) => c >= 0);
};

function extremum(who: string, pickSecond: (c: number) => boolean): PrimitiveFn {
  return (args) => {
    let best = checkNumber(who, args[0]!);
    let inexact = best instanceof Flonum;
    for (let i = 1; i < args.length; i++) {
      const cur = checkNumber(who, args[i]!);
      if (cur instanceof Flonum) inexact = true;
      if (pickSecond(compare(best, cur))) best = cur;
    }
    return inexact ? toInexact(best) : best;
  };
}

function rounding(who: string, mode: 'floor' | 'ceiling' | 'round' | 'truncate'): PrimitiveFn {
  return (args) => {
    const x = args[0]!;
    if (typeof x === 'number') return x;
    return roundTo(mode, checkNumber(who, x));
  };
}

function intDivision(who: string, kind: 'truncate' | 'floor', part: 'q' | 'r' | 'both'): PrimitiveFn {
  return (args) => {
    const a = args[0]!,
      b = args[1]!;
    if (part !== 'both' && typeof a === 'number' && typeof b === 'number' && b !== 0) {
      // Fixnum fast path (remainder via % is exact; quotient of the exact multiple is exact).
      let r = a % b;
      if (kind === 'floor' && r !== 0 && r < 0 !== b < 0) r += b;
      if (part === 'r') return r === 0 ? 0 : r;
      const q = (a - r) / b;
      if (Number.isSafeInteger(q)) return q === 0 ? 0 : q;
    }
    const { q, r } = integerDivision(who, args, kind);
    return part === 'q' ? q : part === 'r' ? r : twoValues(q, r);
  };
}

/** gcd/lcm over integers; an inexact (integral flonum) argument makes the result inexact. */
function gcdLike(who: string, identity: number, combine: (a: Int, b: Int) => Int): PrimitiveFn {
  return (args) => {
    let acc: Int = identity;
    let inexact = false;
    for (const a of args) {
      const x = checkInteger(who, a);
      if (x instanceof Flonum) inexact = true;
      acc = combine(acc, exactIntOf(x));
    }
    if (typeof acc === 'number' && acc < 0) acc = -acc;
    if (typeof acc === 'bigint' && acc < 0n) acc = -acc;
    return inexact ? makeFlonum(Number(acc)) : acc;
  };
}

export const NUMERIC_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  '+': plus,
  '-': minus,
  '*': times,
  '/': divide,
  '<': less,
  '<=': lessOrEqual,
  '=': numEqual,
  '>': greater,
  '>=': greaterOrEqual,
  abs: (args) => {
    const x = args[0]!;
    if (typeof x === 'number') return x < 0 ? -x : x;
    return abs(checkNumber('abs', x));
  },
  square: (args) => {
    const x = args[0]!;
    if (typeof x === 'number') {
      const r = x * x;
      if (Number.isSafeInteger(r)) return r;
    }
    const n = checkNumber('square', x);
    return mul(n, n);
  },
  max: extremum('max', (c) => c < 0),
  min: extremum('min', (c) => c > 0),
  floor: rounding('floor', 'floor'),
  ceiling: rounding('ceiling', 'ceiling'),
  round: rounding('round', 'round'),
  truncate: rounding('truncate', 'truncate'),
  exact: (args) => toExact(checkNumber('exact', args[0]!)),
  'exact->inexact': (args) => toInexact(checkNumber('exact->inexact', args[0]!)),
  'exact?': (args) => !(checkNumber('exact?', args[0]!) instanceof Flonum),
  'inexact?': (args) => checkNumber('inexact?', args[0]!) instanceof Flonum,
  'exact-integer-sqrt': (args) => {
    const n = args[0]!;
    if ((typeof n === 'number' && n >= 0) || (typeof n === 'bigint' && n > 0n)) {
      const [s, r] = exactIntegerSqrt(n);
      return twoValues(s, r);
    }
    throw typeError('exact-integer-sqrt', 'exact non-negative integer', n);
  },
  expt: (args) => {
    const base = checkNumber('expt', args[0]!);
    const e = args[1]!;
    if (typeof e !== 'number' && typeof e !== 'bigint') throw typeError('expt', 'exact integer exponent', e);
    return expt(base, e, args);
  },
  quotient: intDivision('quotient', 'truncate', 'q'),
  remainder: intDivision('remainder', 'truncate', 'r'),
  modulo: intDivision('modulo', 'floor', 'r'),
  'truncate-quotient': intDivision('truncate-quotient', 'truncate', 'q'),
  'truncate-remainder': intDivision('truncate-remainder', 'truncate', 'r'),
  'truncate/': intDivision('truncate/', 'truncate', 'both'),
  'floor-quotient': intDivision('floor-quotient', 'floor', 'q'),
  'floor-remainder': intDivision('floor-remainder', 'floor', 'r'),
  'floor/': intDivision('floor/', 'floor', 'both'),
  gcd: gcdLike('gcd', 0, gcdInt),
  lcm: gcdLike('lcm', 1, lcmInt),
  'number->string': (args) => {
    const x = checkNumber('number->string', args[0]!);
    const radix = checkRadix('number->string', args[1]);
    if (radix !== 10 && x instanceof Flonum) throw typeError('number->string', 'exact number for a radix other than 10', x);
    return new LString(formatNumber(x, radix));
  },
  'string->number': (args) => {
    const s = checkString('string->number', args[0]!);
    const radix = checkRadix('string->number', args[1]);
    const parsed = parseNumber(s.value, radix);
    if (parsed.kind === 'number') return parsed.value;
    if (parsed.kind === 'nonfinite') throw new LispexError('E314', 'string->number: non-finite inexact number', [s]);
    return false;
  },
};

/** The modulo used by the deprecated `%` alias (same semantics, plus W330 at the call site). */
export const modulo: PrimitiveFn = NUMERIC_PRIMITIVES.modulo!;

/** The sign (-1, 0, 1) of a number argument; E312 for a non-number. Used by the predicates. */
export function numberSign(who: string, v: Value): number {
  if (typeof v === 'number') return Math.sign(v);
  return sign(checkNumber(who, v));
}
