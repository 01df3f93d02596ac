// The predicate family: type tests (any value, never an error) and the numeric predicates
// (number or integer arguments: E312 otherwise).

import { checkInteger, isIntegerValue, isNumber } from '../numbers.js';
import {
  Bytevector,
  Char,
  ErrorObject,
  Flonum,
  LString,
  LVector,
  NIL,
  Pair,
  Sym,
  isProcedure,
  type PrimitiveFn,
  type Value,
} from '../values.js';
import { numberSign } from './numeric.js';

function isProperList(v: Value): boolean {
  // Pairs are immutable, so a spine cannot loop: a plain walk terminates.
  while (v instanceof Pair) v = v.cdr;
  return v === NIL;
}

function isEven(who: string, v: Value): boolean {
  if (typeof v === 'number') return v % 2 === 0;
  const x = checkInteger(who, v);
  if (x instanceof Flonum) return x.value % 2 === 0;
  return (x as bigint) % 2n === 0n;
}

export const PREDICATE_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  'boolean?': (args) => typeof args[0] === 'boolean',
  'bytevector?': (args) => args[0] instanceof Bytevector,
  'char?': (args) => args[0] instanceof Char,
  'number?': (args) => isNumber(args[0]!),
  // Every Lispex number is a finite real, hence rational, real and complex.
  'complex?': (args) => isNumber(args[0]!),
  'real?': (args) => isNumber(args[0]!),
  'rational?': (args) => isNumber(args[0]!),
  'integer?': (args) => isIntegerValue(args[0]!),
  'exact-integer?': (args) => typeof args[0] === 'number' || typeof args[0] === 'bigint',
  'empty?': (args) => args[0] === NIL,
  'error-object?': (args) => args[0] instanceof ErrorObject,
  'list?': (args) => isProperList(args[0]!),
  'pair?': (args) => args[0] instanceof Pair,
  'procedure?': (args) => isProcedure(args[0]!),
  'string?': (args) => args[0] instanceof LString,
  'symbol?': (args) => args[0] instanceof Sym,
  'vector?': (args) => args[0] instanceof LVector,
  not: (args) => args[0] === false,
  'even?': (args) => isEven('even?', args[0]!),
  'odd?': (args) => !isEven('odd?', args[0]!),
  'zero?': (args) => numberSign('zero?', args[0]!) === 0,
  'positive?': (args) => numberSign('positive?', args[0]!) > 0,
  'negative?': (args) => numberSign('negative?', args[0]!) < 0,
};
