// Strings are immutable sequences of Unicode scalars (`LString`, holding the JS UTF-16 text).
// Indexing is by scalar. A string without surrogate pairs (the common case) indexes its UTF-16
// text directly; a string with astral scalars gets a scalar array built once and cached.

import { isCased, isCaseIgnorable, pushFullFold, pushFullLower, pushFullUpper } from './chars.js';
import { Char, LString } from './values.js';

const scalarCache = new WeakMap<LString, number[]>();

/** True when every scalar is one UTF-16 unit, so scalar index = code-unit index. */
export function isUnitIndexed(s: LString): boolean {
  return s.length === s.value.length;
}

/** The scalars of `s` as code points (cached for strings with astral scalars). */
export function scalarsOf(s: LString): number[] {
  if (isUnitIndexed(s)) {
    const out = new Array<number>(s.value.length);
    for (let i = 0; i < out.length; i++) out[i] = s.value.charCodeAt(i);
    return out;
  }
  let cached = scalarCache.get(s);
  if (cached === undefined) {
    cached = [];
    for (const ch of s.value) cached.push(ch.codePointAt(0)!);
    scalarCache.set(s, cached);
  }
  return cached;
}

/** The scalar at index `k` (0 <= k < length, checked by the caller). */
export function scalarAt(s: LString, k: number): number {
  if (isUnitIndexed(s)) return s.value.charCodeAt(k);
  return scalarsOf(s)[k]!;
}

export function charAt(s: LString, k: number): Char {
  return Char.of(scalarAt(s, k));
}

/** Scalars [start, end) as a new string (bounds checked by the caller). */
export function substringOf(s: LString, start: number, end: number): LString {
  if (isUnitIndexed(s)) return new LString(s.value.slice(start, end));
  return new LString(String.fromCodePoint(...scalarsOf(s).slice(start, end)));
}

export function stringFromScalars(cps: readonly number[]): LString {
  let out = '';
  // Chunked so very long strings do not overflow the argument limit of fromCodePoint.
  for (let i = 0; i < cps.length; i += 8192) out += String.fromCodePoint(...cps.slice(i, i + 8192));
  return new LString(out);
}

/** Code-point order comparison of two JS strings made of scalars (no lone surrogates). */
export function compareScalarOrder(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order differs from code-point order only between a surrogate (astral scalar,
    // larger) and a unit in U+E000..U+FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

// String case mapping is the FULL mapping of the contract's Unicode version (SpecialCasing's
// unconditional entries over UnicodeData's simple mappings, from our own tables): "ß" upcases to
// "SS", "İ" downcases to "i̇", and string-downcase applies the one language-independent
// condition, Final_Sigma. Folding is CaseFolding's full folding (status C and F).

/** True when `s` is all ASCII, where every mapping is the ASCII one. */
function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

function mapScalars(s: string, push: (cp: number, out: number[], all: number[], k: number) => void): string {
  const all: number[] = [];
  for (const ch of s) all.push(ch.codePointAt(0)!);
  const out: number[] = [];
  for (let k = 0; k < all.length; k++) push(all[k]!, out, all, k);
  return stringFromScalars(out).value;
}

export function upcaseString(s: string): string {
  if (isAscii(s)) return s.toUpperCase(); // ASCII: the same in every Unicode version
  return mapScalars(s, (cp, out) => pushFullUpper(cp, out));
}

const CAPITAL_SIGMA = 0x3a3;
const SMALL_SIGMA = 0x3c3;
const FINAL_SIGMA = 0x3c2;

/**
 * Unicode's Final_Sigma at index k: skipping case-ignorable scalars, a cased one comes before and
 * none comes after. (Case-ignorable is tested first, as ICU and Rust's std do, so a scalar that is
 * both — U+0345, modifier letters — is skipped.)
 */
function isFinalSigma(all: readonly number[], k: number): boolean {
  let i = k - 1;
  while (i >= 0 && isCaseIgnorable(all[i]!)) i--;
  if (i < 0 || !isCased(all[i]!)) return false;
  let j = k + 1;
  while (j < all.length && isCaseIgnorable(all[j]!)) j++;
  return !(j < all.length && isCased(all[j]!));
}

export function downcaseString(s: string): string {
  if (isAscii(s)) return s.toLowerCase();
  return mapScalars(s, (cp, out, all, k) => {
    if (cp === CAPITAL_SIGMA) out.push(isFinalSigma(all, k) ? FINAL_SIGMA : SMALL_SIGMA);
    else pushFullLower(cp, out);
  });
}

/** Full case folding: "Straße" and "STRASSE" both fold to "strasse", "ẞ" to "ss", "ſ" to "s". */
export function foldcaseString(s: string): string {
  if (isAscii(s)) return s.toLowerCase();
  return mapScalars(s, (cp, out) => pushFullFold(cp, out));
}
