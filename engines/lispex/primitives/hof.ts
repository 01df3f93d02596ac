// The higher-order family. Each takes exactly one collection (not R7RS-variadic) and calls the
// guest procedure through `rt.apply`, left to right. The collection is checked before the first
// call, so a bad list fails the same way whatever the callback does. Exceptions (including
// continuation escapes) pass through untouched.

import { LispexError } from '../diagnostics.js';
import { Char, LVector, MultipleValues, NO_VALUES, Pair, listFromArray, type Procedure, type PrimitiveFn, type Value } from '../values.js';
import type { Runtime } from '../runtime.js';
import { scalarsOf, stringFromScalars } from '../strings.js';
import { checkList, checkProcedure, checkProperList, checkString, checkVector, typeError } from './args.js';

/**
 * Call `f` where exactly one result is needed (its value is kept or tested). Zero or several
 * values there are E320, so a transient MultipleValues never ends up inside a list or vector.
 */
function callForOne(who: string, rt: Runtime, f: Procedure, args: Value[]): Value {
  const v = rt.apply(f, args);
  if (v instanceof MultipleValues) {
    throw new LispexError('E320', `${who}: the procedure returned ${v.values.length} values where one is needed`, []);
  }
  return v;
}

const map: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('map', args[0]!);
  const items = checkList('map', args[1]!);
  const out = new Array<Value>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = callForOne('map', rt, f, [items[i]!]);
  return listFromArray(out);
};

const forEach: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('for-each', args[0]!);
  for (let p = checkProperList('for-each', args[1]!); p instanceof Pair; p = p.cdr) rt.apply(f, [p.car]);
  return NO_VALUES;
};

const filter: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('filter', args[0]!);
  const out: Value[] = [];
  for (let p = checkProperList('filter', args[1]!); p instanceof Pair; p = p.cdr) {
    if (callForOne('filter', rt, f, [p.car]) !== false) out.push(p.car);
  }
  return listFromArray(out);
};

/** (fold-left f init list): (f (f (f init x1) x2) x3). `reduce` is the same procedure. */
const foldLeft: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('fold-left', args[0]!);
  let acc = args[1]!;
  for (let p = checkProperList('fold-left', args[2]!); p instanceof Pair; p = p.cdr) acc = callForOne('fold-left', rt, f, [acc, p.car]);
  return acc;
};

/** (fold-right f init list): (f x1 (f x2 (f x3 init))). */
const foldRight: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('fold-right', args[0]!);
  const items = checkList('fold-right', args[2]!);
  let acc = args[1]!;
  for (let i = items.length - 1; i >= 0; i--) acc = callForOne('fold-right', rt, f, [items[i]!, acc]);
  return acc;
};

/** (all? pred list): #t when pred holds for every element (stops at the first failure). */
const all: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('all?', args[0]!);
  for (let p = checkProperList('all?', args[1]!); p instanceof Pair; p = p.cdr) {
    if (callForOne('all?', rt, f, [p.car]) === false) return false;
  }
  return true;
};

/** (any? pred list): #t when pred holds for some element (stops at the first success). */
const any: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('any?', args[0]!);
  for (let p = checkProperList('any?', args[1]!); p instanceof Pair; p = p.cdr) {
    if (callForOne('any?', rt, f, [p.car]) !== false) return true;
  }
  return false;
};

const stringMap: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('string-map', args[0]!);
  const s = checkString('string-map', args[1]!);
  const out: number[] = [];
  for (const cp of scalarsOf(s)) {
    const r = callForOne('string-map', rt, f, [Char.of(cp)]);
    if (!(r instanceof Char)) throw typeError('string-map', 'character result', r);
    out.push(r.codePoint);
  }
  return stringFromScalars(out);
};

const stringForEach: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('string-for-each', args[0]!);
  const s = checkString('string-for-each', args[1]!);
  for (const cp of scalarsOf(s)) rt.apply(f, [Char.of(cp)]);
  return NO_VALUES;
};

const vectorMap: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('vector-map', args[0]!);
  const v = checkVector('vector-map', args[1]!);
  const n = v.items.length;
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) out[i] = callForOne('vector-map', rt, f, [v.items[i]!]);
  return new LVector(out);
};

const vectorForEach: PrimitiveFn = (args, rt) => {
  const f = checkProcedure('vector-for-each', args[0]!);
  const v = checkVector('vector-for-each', args[1]!);
  const n = v.items.length;
  for (let i = 0; i < n; i++) rt.apply(f, [v.items[i]!]);
  return NO_VALUES;
};

export const HOF_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  map,
  'for-each': forEach,
  filter,
  'fold-left': foldLeft,
  'fold-right': foldRight,
  'all?': all,
  'any?': any,
  'string-map': stringMap,
  'string-for-each': stringForEach,
  'vector-map': vectorMap,
  'vector-for-each': vectorForEach,
};
