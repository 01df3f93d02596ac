// Argument checks shared by the primitive families. Each names the primitive and what was
// expected, and throws the catalog code the condition calls for:
//   E312 wrong argument type (including "proper list expected" and non-integer indices),
//   E311 an exact integer index/size outside the valid range, E310 a pair expected.

import { LispexError } from '../diagnostics.js';
import { typeError } from '../numbers.js';
import { Bytevector, Char, ErrorObject, LString, LVector, NIL, Pair, Sym, isProcedure, type Procedure, type Value } from '../values.js';

export { typeError };

/**
 * E311 for an index outside [0, length) (or [0, length]). The irritant is the index only: the
 * collection itself could be huge, so its length goes into the message instead.
 */
export function indexError(who: string, index: Value, length: number): LispexError {
  return new LispexError('E311', `${who}: index out of range for length ${length}`, [index]);
}

export function pairError(who: string, got: Value): LispexError {
  return new LispexError('E310', `${who}: pair expected`, [got]);
}

export function checkString(who: string, v: Value): LString {
  if (v instanceof LString) return v;
  throw typeError(who, 'string', v);
}

export function checkChar(who: string, v: Value): Char {
  if (v instanceof Char) return v;
  throw typeError(who, 'character', v);
}

export function checkSymbol(who: string, v: Value): Sym {
  if (v instanceof Sym) return v;
  throw typeError(who, 'symbol', v);
}

export function checkVector(who: string, v: Value): LVector {
  if (v instanceof LVector) return v;
  throw typeError(who, 'vector', v);
}

export function checkBytevector(who: string, v: Value): Bytevector {
  if (v instanceof Bytevector) return v;
  throw typeError(who, 'bytevector', v);
}

export function checkProcedure(who: string, v: Value): Procedure {
  if (isProcedure(v)) return v;
  throw typeError(who, 'procedure', v);
}

export function checkErrorObject(who: string, v: Value): ErrorObject {
  if (v instanceof ErrorObject) return v;
  throw typeError(who, 'error object', v);
}

/**
 * Check that `v` is a proper list (E312 otherwise) without copying it; callers then walk the
 * pairs directly (pairs are immutable, so the list cannot change in between).
 */
export function checkProperList(who: string, v: Value): Value {
  let p = v;
  while (p instanceof Pair) p = p.cdr;
  if (p !== NIL) throw typeError(who, 'proper list', v);
  return v;
}

/** The elements of a proper list; anything else (improper tail, non-list) is E312. */
export function checkList(who: string, v: Value): Value[] {
  const out: Value[] = [];
  let p = v;
  while (p instanceof Pair) {
    out.push(p.car);
    p = p.cdr;
  }
  if (p !== NIL) throw typeError(who, 'proper list', v);
  return out;
}

/**
 * An index into a sequence of `length` elements: a non-integer is E312, an exact integer
 * outside [0, length) (or [0, length] when `inclusive`) is E311.
 */
export function checkIndex(who: string, v: Value, length: number, inclusive = false): number {
  if (typeof v === 'number') {
    if (v >= 0 && (inclusive ? v <= length : v < length)) return v;
    throw indexError(who, v, length);
  }
  if (typeof v === 'bigint') throw indexError(who, v, length);
  throw typeError(who, 'exact integer index', v);
}

/**
 * Largest size accepted for make-vector/make-list/make-string/make-bytevector (2^24, the native
 * profile's output-byte limit). Larger requests are E311 rather than an allocation that would
 * exhaust the host (V8 rejects arrays of 2^27 elements outright and runs out of memory before).
 */
export const MAX_SIZE = 16_777_216;

function sizeError(who: string, size: Value): LispexError {
  return new LispexError('E311', `${who}: size out of range (at most ${MAX_SIZE})`, [size]);
}

/** A size: an exact non-negative integer (E312 otherwise), at most MAX_SIZE (E311 beyond). */
export function checkSize(who: string, v: Value): number {
  if (typeof v === 'number' && v >= 0) {
    if (v <= MAX_SIZE) return v;
    throw sizeError(who, v);
  }
  if (typeof v === 'bigint' && v > 0n) throw sizeError(who, v);
  throw typeError(who, 'exact non-negative integer', v);
}

/** Optional [start, end) range arguments over a sequence of `length` elements. */
export function checkRange(who: string, args: Value[], from: number, length: number): [number, number] {
  const start = args.length > from ? checkIndex(who, args[from]!, length, true) : 0;
  const end = args.length > from + 1 ? checkIndex(who, args[from + 1]!, length, true) : length;
  if (start > end) throw new LispexError('E311', `${who}: start index after end index`, [args[from]!, args[from + 1]!]);
  return [start, end];
}

/** A byte: an exact integer 0..255. */
export function checkByte(who: string, v: Value): number {
  if (typeof v === 'number' && v >= 0 && v <= 255) return v;
  throw typeError(who, 'byte (exact integer 0..255)', v);
}
