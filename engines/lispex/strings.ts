// Strings are immutable sequences of Unicode scalars (`LString`, holding the JS UTF-16 text).
// Indexing is by scalar. A string without surrogate pairs (the common case) indexes its UTF-16
// text directly; a string with astral scalars gets a scalar array built once and cached.

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

export function upcaseString(s: string): string {
  return s.toUpperCase();
}

export function downcaseString(s: string): string {
  return s.toLowerCase();
}

const CHEROKEE = /[\u13a0-\u13fd\uab70-\uabbf]/u;

/**
 * Full case folding approximated as lowercase(uppercase(s)) (ß -> ss, ς -> σ), except Cherokee
 * letters, which fold to uppercase as Unicode's CaseFolding specifies.
 */
export function foldcaseString(s: string): string {
  // ASCII-only strings fold by lowercasing (cheap and exact).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range, controls included, folds by lowercasing.
  if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase();
  if (!CHEROKEE.test(s)) return s.toUpperCase().toLowerCase();
  let out = '';
  for (const ch of s) out += CHEROKEE.test(ch) ? ch.toUpperCase() : ch.toUpperCase().toLowerCase();
  return out;
}
