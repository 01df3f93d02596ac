// The aggregate family: pairs and lists, vectors, bytevectors, and conversions between them.
// Lists are immutable (no set-car!); vectors change only through vector-set!; bytevectors
// are read-only.

import { Bytevector, Char, LVector, NIL, Pair, UNSPECIFIED, listFromArray, type PrimitiveFn, type Value } from '../values.js';
import { charAt, scalarsOf, stringFromScalars } from '../strings.js';
import {
  checkByte,
  checkBytevector,
  checkChar,
  checkIndex,
  checkList,
  checkRange,
  checkSize,
  checkString,
  checkVector,
  indexError,
  pairError,
  typeError,
} from './args.js';

const car: PrimitiveFn = (args) => {
  const p = args[0]!;
  if (p instanceof Pair) return p.car;
  throw pairError('car', p);
};

const cdr: PrimitiveFn = (args) => {
  const p = args[0]!;
  if (p instanceof Pair) return p.cdr;
  throw pairError('cdr', p);
};

/** c[ad]{2,4}r: the letters apply right to left; a non-pair on the path is E310. */
function cxr(name: string): PrimitiveFn {
  const path = name.slice(1, -1).split('').reverse();
  return (args) => {
    let v = args[0]!;
    for (const step of path) {
      if (!(v instanceof Pair)) throw pairError(name, args[0]!);
      v = step === 'a' ? v.car : v.cdr;
    }
    return v;
  };
}

/** Every c[ad]r combination of 2 to 4 letters (28 names, cadr included). */
function allCxrs(): Record<string, PrimitiveFn> {
  const out: Record<string, PrimitiveFn> = {};
  const grow = (prefix: string) => {
    if (prefix.length >= 2) out[`c${prefix}r`] = cxr(`c${prefix}r`);
    if (prefix.length < 4) {
      grow(`${prefix}a`);
      grow(`${prefix}d`);
    }
  };
  grow('');
  return out;
}

/** Number of pairs on the spine (for error messages; pairs are immutable, so this ends). */
function listLength(v: Value): number {
  let n = 0;
  while (v instanceof Pair) {
    n++;
    v = v.cdr;
  }
  return n;
}

/** list-ref/nth: walk k pairs; running off the end is E311, an improper list E312. */
const listRef: PrimitiveFn = (args) => {
  const list = args[0]!;
  const kv = args[1]!;
  if (typeof kv !== 'number' || kv < 0) {
    if (typeof kv === 'bigint' && kv > 0n) throw indexError('list-ref', kv, listLength(list));
    throw typeError('list-ref', 'exact non-negative integer index', kv);
  }
  let p = list;
  for (let i = 0; i < kv; i++) {
    if (!(p instanceof Pair)) break;
    p = p.cdr;
  }
  if (p instanceof Pair) return p.car;
  if (p === NIL) throw indexError('list-ref', kv, listLength(list));
  throw typeError('list-ref', 'proper list', list);
};

const append: PrimitiveFn = (args) => {
  const n = args.length;
  if (n === 0) return NIL;
  let result = args[n - 1]!;
  for (let i = n - 2; i >= 0; i--) result = listFromArray(checkList('append', args[i]!), result);
  return result;
};

function vectorToList(v: LVector): Value {
  return listFromArray(v.items);
}

export const AGGREGATE_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  car,
  cdr,
  ...allCxrs(),
  cons: (args) => new Pair(args[0]!, args[1]!),
  list: (args) => listFromArray(args),
  length: (args) => {
    let n = 0;
    let p = args[0]!;
    while (p instanceof Pair) {
      n++;
      p = p.cdr;
    }
    if (p !== NIL) throw typeError('length', 'proper list', args[0]!);
    return n;
  },
  append,
  reverse: (args) => {
    let out: Value = NIL;
    let p = args[0]!;
    while (p instanceof Pair) {
      out = new Pair(p.car, out);
      p = p.cdr;
    }
    if (p !== NIL) throw typeError('reverse', 'proper list', args[0]!);
    return out;
  },
  'list-copy': (args) => {
    // Copies the spine of a proper or improper list; a non-pair is returned as is (R7RS).
    const items: Value[] = [];
    let p = args[0]!;
    while (p instanceof Pair) {
      items.push(p.car);
      p = p.cdr;
    }
    return listFromArray(items, p);
  },
  'list-ref': listRef,
  'list-tail': (args) => {
    const kv = args[1]!;
    if (typeof kv !== 'number' || kv < 0) {
      if (typeof kv === 'bigint' && kv > 0n) throw indexError('list-tail', kv, listLength(args[0]!));
      throw typeError('list-tail', 'exact non-negative integer index', kv);
    }
    let p = args[0]!;
    for (let i = 0; i < kv; i++) {
      if (!(p instanceof Pair)) throw indexError('list-tail', kv, listLength(args[0]!));
      p = p.cdr;
    }
    return p;
  },
  'make-list': (args) => {
    const k = checkSize('make-list', args[0]!);
    const fill = args.length > 1 ? args[1]! : false;
    let out: Value = NIL;
    for (let i = 0; i < k; i++) out = new Pair(fill, out);
    return out;
  },
  'list->vector': (args) => new LVector(checkList('list->vector', args[0]!)),
  'list->string': (args) => {
    const items = checkList('list->string', args[0]!);
    const cps = items.map((c) => checkChar('list->string', c).codePoint);
    return stringFromScalars(cps);
  },
  'string->list': (args) => {
    const s = checkString('string->list', args[0]!);
    return listFromArray(scalarsOf(s).map((cp) => Char.of(cp)));
  },
  'string->vector': (args) => {
    const s = checkString('string->vector', args[0]!);
    const [start, end] = checkRange('string->vector', args, 1, s.length);
    const items: Value[] = [];
    for (let i = start; i < end; i++) items.push(charAt(s, i));
    return new LVector(items);
  },
  vector: (args) => new LVector(args.slice()),
  'make-vector': (args, rt) => {
    const k = checkSize('make-vector', args[0]!);
    const fill = args.length > 1 ? args[1]! : false;
    rt.allocate(8 * k, 'make-vector');
    return new LVector(new Array<Value>(k).fill(fill));
  },
  'vector-length': (args) => checkVector('vector-length', args[0]!).items.length,
  'vector-ref': (args) => {
    const v = args[0]!;
    const k = args[1]!;
    if (v instanceof LVector && typeof k === 'number' && k >= 0 && k < v.items.length) return v.items[k]!;
    const vec = checkVector('vector-ref', v);
    return vec.items[checkIndex('vector-ref', k, vec.items.length)]!;
  },
  'vector-set!': (args) => {
    const vec = checkVector('vector-set!', args[0]!);
    vec.items[checkIndex('vector-set!', args[1]!, vec.items.length)] = args[2]!;
    return UNSPECIFIED;
  },
  'vector->list': (args) => vectorToList(checkVector('vector->list', args[0]!)),
  'vector->string': (args) => {
    const vec = checkVector('vector->string', args[0]!);
    const [start, end] = checkRange('vector->string', args, 1, vec.items.length);
    const cps: number[] = [];
    for (let i = start; i < end; i++) cps.push(checkChar('vector->string', vec.items[i]!).codePoint);
    return stringFromScalars(cps);
  },
  'vector-copy': (args) => {
    const vec = checkVector('vector-copy', args[0]!);
    const [start, end] = checkRange('vector-copy', args, 1, vec.items.length);
    return new LVector(vec.items.slice(start, end));
  },
  bytevector: (args, rt) => {
    rt.allocate(args.length, 'bytevector');
    const bytes = new Uint8Array(args.length);
    for (let i = 0; i < args.length; i++) bytes[i] = checkByte('bytevector', args[i]!);
    return new Bytevector(bytes);
  },
  'make-bytevector': (args, rt) => {
    const k = checkSize('make-bytevector', args[0]!);
    const fill = args.length > 1 ? checkByte('make-bytevector', args[1]!) : 0;
    rt.allocate(k, 'make-bytevector');
    return new Bytevector(new Uint8Array(k).fill(fill));
  },
  'bytevector-length': (args) => checkBytevector('bytevector-length', args[0]!).bytes.length,
  'bytevector-u8-ref': (args) => {
    const bv = checkBytevector('bytevector-u8-ref', args[0]!);
    return bv.bytes[checkIndex('bytevector-u8-ref', args[1]!, bv.bytes.length)]!;
  },
};
