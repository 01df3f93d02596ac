// Characters: Unicode scalar values, answered from our own tables of the contract's Unicode
// version (unicode-tables.ts, generated from the UCD with the Rust copy the Topaz VM uses), never
// from the host's regex \p{…} or toUpperCase, whose Unicode version is whatever Node ships.
// Predicates: alphabetic = Alphabetic, numeric = general category Nd, whitespace = White_Space,
// upper/lower = Uppercase/Lowercase. Case mapping is the simple (one scalar to one scalar)
// mapping of UnicodeData; folding is CaseFolding's simple folding (status C and S).

import {
  ALPHABETIC,
  CASE_IGNORABLE,
  CASED,
  FULL_FOLD,
  FULL_LOWER,
  FULL_UPPER,
  INVISIBLE,
  LOWERCASE,
  NUMERIC,
  SIMPLE_FOLD,
  SIMPLE_LOWER,
  SIMPLE_UPPER,
  UPPERCASE,
  WHITE_SPACE,
} from './unicode-tables.js';

export { UNICODE_VERSION } from './unicode-tables.js';

export function isScalarValue(cp: number): boolean {
  return Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
}

/** True when `cp` lies in one of the half-open ranges [start, end) of `table`. */
function inRanges(table: Int32Array, cp: number): boolean {
  // Binary search for the last range start <= cp.
  let lo = 0;
  let hi = table.length / 2 - 1;
  if (hi < 0 || cp < table[0]!) return false;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (table[mid * 2]! <= cp) lo = mid;
    else hi = mid - 1;
  }
  return cp < table[lo * 2 + 1]!;
}

/** Index of the row starting with `cp` in a table of rows of `width` numbers, or -1. */
function rowOf(table: Int32Array, width: number, cp: number): number {
  let lo = 0;
  let hi = table.length / width - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = table[mid * width]!;
    if (at === cp) return mid * width;
    if (at < cp) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function simpleMap(table: Int32Array, cp: number): number {
  const at = rowOf(table, 2, cp);
  return at < 0 ? cp : table[at + 1]!;
}

const isAsciiUpper = (cp: number): boolean => cp >= 65 && cp <= 90;
const isAsciiLower = (cp: number): boolean => cp >= 97 && cp <= 122;

export const isAlphabetic = (cp: number): boolean => (cp < 128 ? isAsciiUpper(cp) || isAsciiLower(cp) : inRanges(ALPHABETIC, cp));
export const isNumericChar = (cp: number): boolean => (cp < 128 ? cp >= 48 && cp <= 57 : inRanges(NUMERIC, cp));
export const isWhitespaceChar = (cp: number): boolean => (cp < 128 ? cp === 32 || (cp >= 9 && cp <= 13) : inRanges(WHITE_SPACE, cp));
export const isUpperCase = (cp: number): boolean => (cp < 128 ? isAsciiUpper(cp) : inRanges(UPPERCASE, cp));
export const isLowerCase = (cp: number): boolean => (cp < 128 ? isAsciiLower(cp) : inRanges(LOWERCASE, cp));
/** Cased and Case_Ignorable: the two properties Unicode's Final_Sigma condition reads. */
export const isCased = (cp: number): boolean => inRanges(CASED, cp);
export const isCaseIgnorable = (cp: number): boolean => inRanges(CASE_IGNORABLE, cp);
/** Non-ASCII characters `write` prints as #\xHH: White_Space, Cc, Cf, M*, Zl, Zp, Co, Cn. */
export const isInvisible = (cp: number): boolean => inRanges(INVISIBLE, cp);

export function upcase(cp: number): number {
  if (cp < 128) return isAsciiLower(cp) ? cp - 32 : cp;
  return simpleMap(SIMPLE_UPPER, cp);
}

export function downcase(cp: number): number {
  if (cp < 128) return isAsciiUpper(cp) ? cp + 32 : cp;
  return simpleMap(SIMPLE_LOWER, cp);
}

/** Simple case folding (ſ -> s, ς -> σ, Cherokee small letters -> capital; ß stays ß). */
export function foldcase(cp: number): number {
  if (cp < 128) return isAsciiUpper(cp) ? cp + 32 : cp;
  return simpleMap(SIMPLE_FOLD, cp);
}

/**
 * Appends the full mapping of `cp` (SpecialCasing's unconditional entries, else the simple
 * mapping) to `out`: ß -> SS in uppercase, İ -> i̇ in lowercase, ß -> ss in folding.
 */
function pushFull(full: Int32Array, simple: Int32Array, cp: number, out: number[]): void {
  const at = rowOf(full, 4, cp);
  if (at < 0) {
    out.push(simpleMap(simple, cp));
    return;
  }
  for (let k = 1; k <= 3; k++) if (full[at + k] !== 0) out.push(full[at + k]!);
}

export const pushFullUpper = (cp: number, out: number[]): void => pushFull(FULL_UPPER, SIMPLE_UPPER, cp, out);
export const pushFullLower = (cp: number, out: number[]): void => pushFull(FULL_LOWER, SIMPLE_LOWER, cp, out);
export const pushFullFold = (cp: number, out: number[]): void => pushFull(FULL_FOLD, SIMPLE_FOLD, cp, out);

/** `s` with A–Z lowered and every other scalar kept: for the reader's ASCII-only syntax (#T, #X, +INF.0). */
export function asciiLowercase(s: string): string {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}
