// The numeric tower against an independent reference: random exact operands (fixnums near the
// safe-integer boundary, bigints, rationals) computed with plain bigint fractions; flonum
// formatting round-trips; string->number agrees with the reader's number syntax.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  add,
  compare,
  div,
  divideIntegers,
  doubleToExact,
  exactIntegerSqrt,
  formatFlonum,
  mul,
  parseNumber,
  sub,
  toDouble,
  type ExactNum,
  type Num,
} from '../../../../engines/lispex/numbers.js';
import { parseNumber as readerParseNumber } from '../../../../engines/lispex/reader.js';
import { writeValue } from '../../../../engines/lispex/printer.js';
import { Flonum, Ratnum } from '../../../../engines/lispex/values.js';

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Frac = [bigint, bigint];
function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}
function norm([n, d]: Frac): Frac {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return [n / g, d / g];
}
function frac(x: ExactNum): Frac {
  if (x instanceof Ratnum) return [x.num, x.den];
  return [BigInt(x), 1n];
}
/** The invariants: safe integers are numbers, Ratnums are reduced with den > 1. */
function assertCanonical(x: Num, what: string): void {
  if (typeof x === 'bigint') assert.ok(x > BigInt(Number.MAX_SAFE_INTEGER) || x < BigInt(Number.MIN_SAFE_INTEGER), `${what}: small bigint`);
  if (typeof x === 'number') assert.ok(Number.isSafeInteger(x) && !Object.is(x, -0), `${what}: bad fixnum ${x}`);
  if (x instanceof Ratnum) assert.ok(x.den > 1n && gcd(x.num, x.den) === 1n, `${what}: unreduced ratnum`);
}

function randomExact(r: () => number): ExactNum {
  const kind = Math.floor(r() * 5);
  const sign = r() < 0.5 ? -1 : 1;
  switch (kind) {
    case 0:
      return sign * Math.floor(r() * 100) || 0;
    case 1:
      return sign * (Number.MAX_SAFE_INTEGER - Math.floor(r() * 3)) || 0;
    case 2: {
      const big = BigInt(Math.floor(r() * 1e15)) * 10n ** BigInt(Math.floor(r() * 30)) * BigInt(sign);
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    }
    default: {
      const [n, d] = norm([BigInt(sign * (1 + Math.floor(r() * 1000))), BigInt(2 + Math.floor(r() * 1000))]);
      return d === 1n ? Number(n) : new Ratnum(n, d);
    }
  }
}

describe('exact arithmetic against a bigint-fraction reference', () => {
  test('+ - * / and compare on 5,000 random pairs', () => {
    const r = rng(12345);
    for (let i = 0; i < 5000; i++) {
      const a = randomExact(r),
        b = randomExact(r);
      const [an, ad] = frac(a),
        [bn, bd] = frac(b);
      const label = `${writeValue(a)} ${writeValue(b)}`;
      const checks: [string, Num, Frac][] = [
        ['+', add(a, b), norm([an * bd + bn * ad, ad * bd])],
        ['-', sub(a, b), norm([an * bd - bn * ad, ad * bd])],
        ['*', mul(a, b), norm([an * bn, ad * bd])],
      ];
      if (bn !== 0n) checks.push(['/', div(a, b), norm([an * bd, ad * bn])]);
      for (const [op, got, want] of checks) {
        assertCanonical(got, `${op} ${label}`);
        assert.deepEqual(frac(got as ExactNum), want, `${op} ${label}`);
      }
      const lhs = an * bd,
        rhs = bn * ad;
      assert.equal(compare(a, b), lhs < rhs ? -1 : lhs > rhs ? 1 : 0, `compare ${label}`);
    }
  });

  test('truncating and flooring division on random integers', () => {
    const r = rng(777);
    for (let i = 0; i < 5000; i++) {
      const a = randomExact(r),
        b = randomExact(r);
      if (a instanceof Ratnum || b instanceof Ratnum || b === 0) continue;
      const x = BigInt(a),
        y = BigInt(b);
      const [tq, tr] = divideIntegers('truncate', a, b);
      assert.equal(BigInt(tq), x / y);
      assert.equal(BigInt(tr), x % y);
      const [fq, fr] = divideIntegers('floor', a, b);
      assert.equal(BigInt(fq) * y + BigInt(fr), x);
      assert.ok(BigInt(fr) === 0n || BigInt(fr) < 0n === y < 0n, 'floor remainder has the divisor sign');
      for (const v of [tq, tr, fq, fr]) assertCanonical(v, `${a} ${b}`);
    }
  });

  test('exact-integer-sqrt on random bigints', () => {
    const r = rng(99);
    for (let i = 0; i < 500; i++) {
      const n = BigInt(Math.floor(r() * 1e15)) ** BigInt(1 + Math.floor(r() * 6));
      const [s, rem] = exactIntegerSqrt(n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n);
      const sb = BigInt(s);
      assert.ok(sb * sb <= n && (sb + 1n) * (sb + 1n) > n, `sqrt ${n}`);
      assert.equal(BigInt(rem), n - sb * sb);
    }
  });
});

describe('exact <-> inexact', () => {
  test('doubleToExact is exact and toDouble inverts it', () => {
    const r = rng(4242);
    for (let i = 0; i < 2000; i++) {
      const x = (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
      const e = doubleToExact(x);
      assertCanonical(e, String(x));
      assert.equal(toDouble(e), x);
    }
  });
  test('huge rationals convert to the nearest double', () => {
    const third = new Ratnum(10n ** 400n, 3n * 10n ** 400n);
    assert.equal(toDouble(third), 1 / 3);
    const big = new Ratnum(10n ** 330n + 1n, 10n ** 20n);
    assert.equal(toDouble(big), Infinity); // beyond the double range: makeFlonum turns this into E314
    assert.equal(toDouble(new Ratnum(1n, 10n ** 400n)), 0);
  });
});

describe('formatting and parsing', () => {
  test('flonums print with shortest round-trip digits and read back', () => {
    const r = rng(2024);
    for (let i = 0; i < 3000; i++) {
      const x = (r() - 0.5) * 10 ** Math.floor(r() * 600 - 300);
      const text = formatFlonum(x);
      assert.match(text, /\.|e/, text);
      const back = parseNumber(text);
      assert.equal(back.kind, 'number', text);
      assert.ok(back.kind === 'number' && back.value instanceof Flonum && Object.is(back.value.value, x), text);
    }
  });

  test('string->number and the reader agree on number syntax', () => {
    const texts = [
      '0',
      '-0',
      '+5',
      '42',
      '-17',
      '12345678901234567890',
      '1/2',
      '-6/4',
      '4/2',
      '1/0',
      '#x1F',
      '#b-101',
      '#o17',
      '#d10',
      '#e1.5',
      '#i3/4',
      '#x#e10',
      '#e#x10',
      '1.',
      '.5',
      '-.5e1',
      '1e3',
      '1E3',
      '1e-3',
      '+inf.0',
      '-nan.0',
      '1e400',
      '#e1e3',
      '1/2.0',
      'abc',
      '',
      '+',
      '-',
      '.',
      '..',
      '1..2',
      '#xg',
      '#b2',
      '#e#i1',
      '#x1.5',
      '1e',
      '#t',
    ];
    for (const text of texts) {
      const mine = parseNumber(text);
      const reader = readerParseNumber(text);
      if (mine.kind === 'invalid') assert.equal(reader, null, text);
      else if (mine.kind === 'nonfinite') assert.equal(reader, 'nonfinite', text);
      else {
        assert.ok(reader !== null && reader !== 'nonfinite', text);
        assert.equal(writeValue(mine.value), writeValue(reader), text);
      }
    }
  });
});
