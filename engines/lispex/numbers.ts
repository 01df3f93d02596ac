// The Lispex numeric tower: exact integers (JS `number` for safe integers, `bigint` beyond),
// exact rationals (`Ratnum`), and finite flonums (`Flonum`, never NaN or ±Infinity: E314).
//
// Invariants every function here keeps (the evaluators rely on them):
//   - an exact integer that fits the safe range is a `number`, never a `bigint`;
//   - an exact integer `number` is never -0 (so `===` is numeric equality and printing is plain);
//   - a Ratnum has den > 1 and gcd(num, den) = 1 (integral results collapse to integers);
//   - a Flonum is finite (`makeFlonum` raises E314 otherwise).
// Mixed exact/inexact arithmetic is inexact (the exact operand is rounded to a double first);
// mixed comparisons are exact (the flonum is converted to its exact value), so `<`/`=` stay
// transitive. Division by an exact or inexact zero is E313.

import { asciiLowercase } from './chars.js';
import { LispexError } from './diagnostics.js';
import { Flonum, MultipleValues, Ratnum, normalizeInteger, type Value } from './values.js';

export type Int = number | bigint;
export type ExactNum = number | bigint | Ratnum;
export type Num = number | bigint | Ratnum | Flonum;

export function isNumber(v: Value): v is Num {
  return typeof v === 'number' || typeof v === 'bigint' || v instanceof Flonum || v instanceof Ratnum;
}

/** Any value that is an integer in the R7RS sense: exact integer or integral flonum. */
export function isIntegerValue(v: Value): boolean {
  return typeof v === 'number' || typeof v === 'bigint' || (v instanceof Flonum && Number.isInteger(v.value));
}

export function typeError(who: string, expected: string, got: Value): LispexError {
  return new LispexError('E312', `${who}: ${expected} expected`, [got]);
}

export function divisionByZero(who: string, args: Value[]): LispexError {
  return new LispexError('E313', `${who}: division by zero`, args);
}

/** A flonum from a double; NaN and ±Infinity are E314. */
export function makeFlonum(x: number): Flonum {
  if (!Number.isFinite(x)) throw new LispexError('E314', 'non-finite inexact number', []);
  return new Flonum(x);
}

export function checkNumber(who: string, v: Value): Num {
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof Flonum || v instanceof Ratnum) return v;
  throw typeError(who, 'number', v);
}

function toBig(x: Int): bigint {
  return typeof x === 'bigint' ? x : BigInt(x);
}

function bigAbs(x: bigint): bigint {
  return x < 0n ? -x : x;
}

function bigGcd(a: bigint, b: bigint): bigint {
  a = bigAbs(a);
  b = bigAbs(b);
  while (b !== 0n) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

function smallGcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** An exact number n/d reduced; d must be non-zero. Integral results are integers. */
export function makeRational(n: bigint, d: bigint): ExactNum {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = bigGcd(n, d);
  if (g !== 1n) {
    n /= g;
    d /= g;
  }
  if (d === 1n) return normalizeInteger(n);
  return new Ratnum(n, d);
}

function numerOf(x: ExactNum): bigint {
  return x instanceof Ratnum ? x.num : toBig(x);
}
function denomOf(x: ExactNum): bigint {
  return x instanceof Ratnum ? x.den : 1n;
}

// ---------------------------------------------------------------------------------------------
// Exact <-> inexact

const TWO_53 = 2n ** 53n;

function bitLength(x: bigint): number {
  // Hex length is within 3 bits of the true length; good enough to pick a scale (the exact
  // rounding is done by the sticky-bit division below).
  return x === 0n ? 0 : x.toString(16).length * 4;
}

function scaleByPowerOfTwo(x: number, e: number): number {
  while (e > 1000) {
    x *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    x *= 2 ** -1000;
    e += 1000;
  }
  return x * 2 ** e;
}

/** The double nearest to n/d (d > 0). May be ±Infinity for huge values; callers check. */
function ratioToDouble(n: bigint, d: bigint): number {
  const neg = n < 0n;
  if (neg) n = -n;
  let result: number;
  if (n <= TWO_53 && d <= TWO_53) {
    result = Number(n) / Number(d); // both exact doubles: IEEE division rounds correctly
  } else {
    // Quotient with at least 64 significant bits plus a sticky bit, then one rounding.
    const shift = 66 - (bitLength(n) - bitLength(d));
    let q: bigint;
    let r: bigint;
    if (shift >= 0) {
      const nn = n << BigInt(shift);
      q = nn / d;
      r = nn % d;
    } else {
      const dd = d << BigInt(-shift);
      q = n / dd;
      r = n % dd;
    }
    if (r !== 0n) q |= 1n;
    result = scaleByPowerOfTwo(Number(q), -shift);
  }
  return neg ? -result : result;
}

/** The double nearest to an exact or inexact number (±Infinity when out of range). */
export function toDouble(x: Num): number {
  if (typeof x === 'number') return x;
  if (typeof x === 'bigint') return Number(x);
  if (x instanceof Flonum) return x.value;
  return ratioToDouble(x.num, x.den);
}

/** The exact value of a finite double. */
export function doubleToExact(x: number): ExactNum {
  if (Number.isInteger(x)) {
    if (x === 0) return 0;
    return Number.isSafeInteger(x) ? x : BigInt(x);
  }
  // A non-integral finite double is m / 2^k with m integral; doubling is exact here.
  let m = x;
  let k = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    k++;
  }
  return makeRational(BigInt(m), 1n << BigInt(k));
}

export function toExact(x: Num): ExactNum {
  return x instanceof Flonum ? doubleToExact(x.value) : x;
}

export function toInexact(x: Num): Flonum {
  return x instanceof Flonum ? x : makeFlonum(toDouble(x));
}

// ---------------------------------------------------------------------------------------------
// Arithmetic (generic slow paths; the primitives inline the fixnum fast paths)

export function add(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
    return BigInt(a) + BigInt(b);
  }
  if (a instanceof Flonum || b instanceof Flonum) return makeFlonum(toDouble(a) + toDouble(b));
  if (a instanceof Ratnum || b instanceof Ratnum) {
    const an = numerOf(a as ExactNum),
      ad = denomOf(a as ExactNum);
    const bn = numerOf(b as ExactNum),
      bd = denomOf(b as ExactNum);
    return makeRational(an * bd + bn * ad, ad * bd);
  }
  return normalizeInteger(toBig(a as Int) + toBig(b as Int));
}

export function negate(a: Num): Num {
  if (typeof a === 'number') return a === 0 ? 0 : -a;
  if (typeof a === 'bigint') return normalizeInteger(-a);
  if (a instanceof Flonum) return new Flonum(-a.value);
  return new Ratnum(-a.num, a.den);
}

export function sub(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
    return BigInt(a) - BigInt(b);
  }
  return add(a, negate(b));
}

export function mul(a: Num, b: Num): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
    return normalizeInteger(BigInt(a) * BigInt(b));
  }
  if (a instanceof Flonum || b instanceof Flonum) return makeFlonum(toDouble(a) * toDouble(b));
  if (a instanceof Ratnum || b instanceof Ratnum) {
    return makeRational(numerOf(a as ExactNum) * numerOf(b as ExactNum), denomOf(a as ExactNum) * denomOf(b as ExactNum));
  }
  return normalizeInteger(toBig(a as Int) * toBig(b as Int));
}

export function isZero(a: Num): boolean {
  if (typeof a === 'number') return a === 0;
  if (a instanceof Flonum) return a.value === 0;
  return false; // a normalized bigint or Ratnum is never zero
}

/** a / b; the caller has checked that b is not zero. */
export function div(a: Num, b: Num): Num {
  if (a instanceof Flonum || b instanceof Flonum) return makeFlonum(toDouble(a) / toDouble(b));
  const ea = a as ExactNum,
    eb = b as ExactNum;
  return makeRational(numerOf(ea) * denomOf(eb), denomOf(ea) * numerOf(eb));
}

/** -1, 0 or 1. Exact comparison even across exactness. */
export function compare(a: Num, b: Num): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof Flonum && (b instanceof Flonum || typeof b === 'number')) {
    const y = typeof b === 'number' ? b : b.value;
    return a.value < y ? -1 : a.value > y ? 1 : 0;
  }
  if (b instanceof Flonum && typeof a === 'number') {
    return a < b.value ? -1 : a > b.value ? 1 : 0;
  }
  const ea = toExact(a),
    eb = toExact(b);
  if (!(ea instanceof Ratnum) && !(eb instanceof Ratnum)) {
    const x = toBig(ea),
      y = toBig(eb);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const l = numerOf(ea) * denomOf(eb),
    r = numerOf(eb) * denomOf(ea);
  return l < r ? -1 : l > r ? 1 : 0;
}

export function sign(a: Num): number {
  if (typeof a === 'number') return Math.sign(a);
  if (typeof a === 'bigint') return a < 0n ? -1 : 1;
  if (a instanceof Flonum) return a.value < 0 ? -1 : a.value > 0 ? 1 : 0;
  return a.num < 0n ? -1 : 1;
}

export function abs(a: Num): Num {
  if (typeof a === 'number') return Math.abs(a);
  if (typeof a === 'bigint') return a < 0n ? -a : a;
  if (a instanceof Flonum) return a.value < 0 || Object.is(a.value, -0) ? new Flonum(-a.value) : a;
  return a.num < 0n ? new Ratnum(-a.num, a.den) : a;
}

// ---------------------------------------------------------------------------------------------
// Rounding to integers

function floorDivBig(n: bigint, d: bigint): bigint {
  // d > 0
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

function roundHalfEvenDouble(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  let r: number;
  if (diff < 0.5) r = f;
  else if (diff > 0.5) r = f + 1;
  else r = f % 2 === 0 ? f : f + 1;
  return r === 0 && (x < 0 || Object.is(x, -0)) ? -0 : r;
}

export type RoundingMode = 'floor' | 'ceiling' | 'round' | 'truncate';

export function roundTo(mode: RoundingMode, a: Num): Num {
  if (typeof a === 'number' || typeof a === 'bigint') return a;
  if (a instanceof Flonum) {
    const x = a.value;
    switch (mode) {
      case 'floor':
        return new Flonum(Math.floor(x));
      case 'ceiling':
        return new Flonum(Math.ceil(x));
      case 'truncate':
        return new Flonum(Math.trunc(x));
      case 'round':
        return new Flonum(roundHalfEvenDouble(x));
    }
  }
  const { num, den } = a;
  const fl = floorDivBig(num, den);
  switch (mode) {
    case 'floor':
      return normalizeInteger(fl);
    case 'ceiling':
      return normalizeInteger(fl + 1n);
    case 'truncate':
      return normalizeInteger(num < 0n ? fl + 1n : fl);
    case 'round': {
      const twice = 2n * (num - fl * den); // 2 * fractional part * den, in (0, 2den)
      if (twice < den) return normalizeInteger(fl);
      if (twice > den) return normalizeInteger(fl + 1n);
      return normalizeInteger(fl % 2n === 0n ? fl : fl + 1n);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Integer division family. Arguments are integers (exact, or integral flonums: then the result
// is inexact, per R7RS).

export type DivisionKind = 'truncate' | 'floor';

export function checkInteger(who: string, v: Value): Int | Flonum {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (v instanceof Flonum && Number.isInteger(v.value)) return v;
  throw typeError(who, 'integer', v);
}

export function exactIntOf(v: Int | Flonum): Int {
  if (v instanceof Flonum) return doubleToExact(v.value) as Int;
  return v;
}

function intResult(x: Int, inexact: boolean): Num {
  return inexact ? makeFlonum(Number(x)) : x;
}

/** Quotient and remainder of a / b (b non-zero) with truncating or flooring semantics. */
export function divideIntegers(kind: DivisionKind, a: Int, b: Int): [Int, Int] {
  if (typeof a === 'number' && typeof b === 'number') {
    let r = a % b; // exact for doubles
    let q = (a - r) / b; // exact: a - r is a multiple of b within the safe range
    if (kind === 'floor' && r !== 0 && r < 0 !== b < 0) {
      r += b;
      q -= 1;
    }
    if (Number.isSafeInteger(q)) return [q === 0 ? 0 : q, r === 0 ? 0 : r];
    // MIN_SAFE / -1 style overflow: fall through to bigint
  }
  const x = toBig(a),
    y = toBig(b);
  let q = x / y;
  let r = x % y;
  if (kind === 'floor' && r !== 0n && r < 0n !== y < 0n) {
    r += y;
    q -= 1n;
  }
  return [normalizeInteger(q), normalizeInteger(r)];
}

/** Shared body of quotient, remainder, modulo and the floor-/truncate- family: checks and E313. */
export function integerDivision(who: string, args: Value[], kind: DivisionKind): { q: Num; r: Num } {
  const fa = checkInteger(who, args[0]!);
  const fb = checkInteger(who, args[1]!);
  const inexact = fa instanceof Flonum || fb instanceof Flonum;
  const b = exactIntOf(fb);
  if (b === 0) throw divisionByZero(who, args);
  const [q, r] = divideIntegers(kind, exactIntOf(fa), b);
  return { q: intResult(q, inexact), r: intResult(r, inexact) };
}

export function gcdInt(a: Int, b: Int): Int {
  if (typeof a === 'number' && typeof b === 'number') return smallGcd(a, b);
  return normalizeInteger(bigGcd(toBig(a), toBig(b)));
}

export function lcmInt(a: Int, b: Int): Int {
  if (a === 0 || b === 0) return 0;
  const g = gcdInt(a, b);
  const x = bigAbs(toBig(a)) / toBig(g);
  return normalizeInteger(x * bigAbs(toBig(b)));
}

/** Integer square root s with s*s <= n < (s+1)^2, n >= 0. */
export function exactIntegerSqrt(n: Int): [Int, Int] {
  if (typeof n === 'number') {
    let s = Math.floor(Math.sqrt(n));
    // Math.sqrt can be off by one near 2^53; adjust exactly with bigint arithmetic if needed.
    if (s * s > n) s--;
    else if ((s + 1) * (s + 1) <= n) s++;
    if (Number.isSafeInteger(s * s)) return [s, n - s * s];
  }
  const big = toBig(n);
  if (big < 2n) return [normalizeInteger(big), 0];
  // Start above the root (bitLength over-estimates); Newton from above decreases to floor(sqrt(n)).
  let x = 1n << BigInt(Math.ceil(bitLength(big) / 2) + 1);
  for (;;) {
    const y = (x + big / x) >> 1n;
    if (y >= x) {
      // x may still be one too large when started below; settle both directions.
      while (x * x > big) x--;
      while ((x + 1n) * (x + 1n) <= big) x++;
      return [normalizeInteger(x), normalizeInteger(big - x * x)];
    }
    x = y;
  }
}

/** base^e with e an exact integer. Zero base with a negative exponent is E313. */
export function expt(base: Num, e: Int, args: Value[]): Num {
  const negative = typeof e === 'number' ? e < 0 : e < 0n;
  if (base instanceof Flonum) {
    if (base.value === 0 && negative) throw divisionByZero('expt', args);
    return makeFlonum(base.value ** Number(e));
  }
  if (isZero(base)) {
    if (negative) throw divisionByZero('expt', args);
    return e === 0 ? 1 : 0;
  }
  if (base === 1) return 1;
  if (base === -1) return toBig(e) % 2n === 0n ? 1 : -1;
  const mag = negative ? -toBig(e) : toBig(e);
  let n = numerOf(base) ** mag;
  let d = denomOf(base) ** mag;
  if (negative) [n, d] = [d, n];
  return makeRational(n, d);
}

// ---------------------------------------------------------------------------------------------
// number->string / string->number

/** Shortest round-trip decimal for a finite double, always with a `.0` or exponent marker. */
export function formatFlonum(x: number): string {
  if (Object.is(x, -0)) return '-0.0';
  const s = String(x);
  const e = s.indexOf('e');
  if (e >= 0) {
    let mantissa = s.slice(0, e);
    if (!mantissa.includes('.')) mantissa += '.0';
    const exp = s.slice(e + 1);
    return `${mantissa}e${exp.startsWith('+') ? exp.slice(1) : exp}`;
  }
  return s.includes('.') ? s : `${s}.0`;
}

export function formatNumber(x: Num, radix = 10): string {
  if (typeof x === 'number' || typeof x === 'bigint') return x.toString(radix);
  if (x instanceof Ratnum) return `${x.num.toString(radix)}/${x.den.toString(radix)}`;
  return formatFlonum(x.value);
}

export type ParsedNumber =
  | { readonly kind: 'number'; readonly value: Num }
  | { readonly kind: 'invalid' }
  /** Syntactically a number, but a non-finite inexact one (+inf.0, +nan.0, 1e400): E314. */
  | { readonly kind: 'nonfinite' };

const INVALID: ParsedNumber = { kind: 'invalid' };
const NONFINITE: ParsedNumber = { kind: 'nonfinite' };

/** Largest decimal exponent accepted for an exact (#e) decimal, bounding the bigint built. */
export const MAX_EXACT_DECIMAL_EXPONENT = 100_000;

const DIGITS: Record<number, RegExp> = {
  2: /^[01]+$/,
  8: /^[0-7]+$/,
  10: /^[0-9]+$/,
  16: /^[0-9a-fA-F]+$/,
};
const RADIX_PREFIX: Record<number, string> = { 2: '0b', 8: '0o', 10: '', 16: '0x' };
const DECIMAL = /^([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;

function parseUInteger(digits: string, radix: number): Int | null {
  if (!DIGITS[radix]!.test(digits)) return null;
  if (radix === 10 && digits.length <= 15) return Number(digits);
  return normalizeInteger(BigInt(RADIX_PREFIX[radix] + digits));
}

/**
 * Parse R7RS number syntax (no complex numbers): optional `#b #o #d #x` and `#e #i` prefixes
 * (at most one of each, any order, any case), a sign, then an integer, `n/d`, or (radix 10) a
 * decimal with optional `e` exponent; `+inf.0 -inf.0 +nan.0 -nan.0` are recognized as numbers
 * only to be reported non-finite. `n/0` is not a number (invalid).
 */
export function parseNumber(text: string, defaultRadix = 10): ParsedNumber {
  let radix = defaultRadix;
  let exactness: 'e' | 'i' | null = null;
  let sawRadix = false;
  let i = 0;
  while (i + 1 < text.length && text[i] === '#') {
    const p = asciiLowercase(text[i + 1]!);
    if (p === 'e' || p === 'i') {
      if (exactness !== null) return INVALID;
      exactness = p;
    } else if (p === 'b' || p === 'o' || p === 'd' || p === 'x') {
      if (sawRadix) return INVALID;
      sawRadix = true;
      radix = p === 'b' ? 2 : p === 'o' ? 8 : p === 'd' ? 10 : 16;
    } else return INVALID;
    i += 2;
  }
  let body = text.slice(i);
  let negative = false;
  if (body.startsWith('+') || body.startsWith('-')) {
    negative = body[0] === '-';
    body = body.slice(1);
    const lower = asciiLowercase(body);
    if (lower === 'inf.0' || lower === 'nan.0') return NONFINITE;
  }
  if (body.length === 0) return INVALID;
  let value: Num;
  const slash = body.indexOf('/');
  if (slash >= 0) {
    const n = parseUInteger(body.slice(0, slash), radix);
    const d = parseUInteger(body.slice(slash + 1), radix);
    if (n === null || d === null || d === 0) return INVALID;
    const exactValue = makeRational(toBig(n), toBig(d));
    if (exactness === 'i') {
      const f = toInexactChecked(exactValue);
      if (f === null) return NONFINITE;
      value = f;
    } else value = exactValue;
  } else {
    const asInt = parseUInteger(body, radix);
    if (asInt !== null) {
      value = asInt;
      if (exactness === 'i') {
        const d = toDouble(asInt);
        if (!Number.isFinite(d)) return NONFINITE;
        value = new Flonum(d);
      }
    } else {
      if (radix !== 10) return INVALID;
      const m = DECIMAL.exec(body);
      if (m === null) return INVALID;
      const intPart = m[1]!,
        fracPart = m[2] ?? '';
      if (intPart.length === 0 && fracPart.length === 0) return INVALID;
      if (exactness === 'e') {
        const exp = m[3] === undefined ? 0 : Number(m[3]);
        if (Math.abs(exp) > MAX_EXACT_DECIMAL_EXPONENT) return INVALID;
        const mantissa = BigInt((intPart || '0') + fracPart);
        const scale = exp - fracPart.length;
        value = scale >= 0 ? normalizeInteger(mantissa * 10n ** BigInt(scale)) : makeRational(mantissa, 10n ** BigInt(-scale));
      } else {
        const d = Number(body);
        if (!Number.isFinite(d)) return NONFINITE;
        value = new Flonum(d);
      }
    }
  }
  if (negative) value = value instanceof Flonum ? new Flonum(-value.value) : negate(value);
  return { kind: 'number', value };
}

function toInexactChecked(x: Num): Flonum | null {
  const d = toDouble(x);
  return Number.isFinite(d) ? new Flonum(d) : null;
}

/** Radix argument of number->string/string->number: 2, 8, 10 or 16. */
export function checkRadix(who: string, v: Value | undefined): number {
  if (v === undefined) return 10;
  if (v === 2 || v === 8 || v === 10 || v === 16) return v as number;
  throw typeError(who, 'radix 2, 8, 10 or 16', v);
}

/** Two values, as `floor/`, `truncate/` and `exact-integer-sqrt` return them. */
export function twoValues(a: Value, b: Value): MultipleValues {
  return new MultipleValues([a, b]);
}
