// Characters: Unicode scalar values. Predicates use Unicode properties (R7RS: alphabetic,
// numeric = general category Nd, whitespace = White_Space, upper/lower = Uppercase/Lowercase);
// case mapping uses the simple (one scalar to one scalar) mappings, so a character whose full
// mapping has several scalars (ß -> SS) maps to itself.

const ALPHABETIC = /^\p{Alphabetic}$/u;
const NUMERIC = /^\p{Nd}$/u;
const WHITESPACE = /^\p{White_Space}$/u;
const UPPER = /^\p{Uppercase}$/u;
const LOWER = /^\p{Lowercase}$/u;

export function isScalarValue(cp: number): boolean {
  return Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
}

function test(re: RegExp, cp: number): boolean {
  if (cp < 128) {
    // ASCII answers without a regexp.
    if (re === ALPHABETIC) return (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
    if (re === NUMERIC) return cp >= 48 && cp <= 57;
    if (re === WHITESPACE) return cp === 32 || (cp >= 9 && cp <= 13);
    if (re === UPPER) return cp >= 65 && cp <= 90;
    if (re === LOWER) return cp >= 97 && cp <= 122;
  }
  return re.test(String.fromCodePoint(cp));
}

export const isAlphabetic = (cp: number): boolean => test(ALPHABETIC, cp);
export const isNumericChar = (cp: number): boolean => test(NUMERIC, cp);
export const isWhitespaceChar = (cp: number): boolean => test(WHITESPACE, cp);
export const isUpperCase = (cp: number): boolean => test(UPPER, cp);
export const isLowerCase = (cp: number): boolean => test(LOWER, cp);

/** The single scalar `text` holds, or null when it holds zero or several. */
function singleScalar(text: string): number | null {
  const cp = text.codePointAt(0);
  if (cp === undefined) return null;
  return text.length === (cp > 0xffff ? 2 : 1) ? cp : null;
}

export function upcase(cp: number): number {
  if (cp < 128) return cp >= 97 && cp <= 122 ? cp - 32 : cp;
  return singleScalar(String.fromCodePoint(cp).toUpperCase()) ?? cp;
}

export function downcase(cp: number): number {
  if (cp < 128) return cp >= 65 && cp <= 90 ? cp + 32 : cp;
  return singleScalar(String.fromCodePoint(cp).toLowerCase()) ?? cp;
}

/** Cherokee letters, the one script whose case folding maps to UPPERCASE. */
export function isCherokee(cp: number): boolean {
  return (cp >= 0x13a0 && cp <= 0x13fd) || (cp >= 0xab70 && cp <= 0xabbf);
}

/**
 * Simple case folding, approximated as lowercase(uppercase(c)) when both are single scalars
 * (ß stays, ς and Σ fold to σ, ſ to s), except Cherokee, which folds to uppercase.
 */
export function foldcase(cp: number): number {
  if (cp < 128) return cp >= 65 && cp <= 90 ? cp + 32 : cp;
  if (isCherokee(cp)) return upcase(cp);
  const up = singleScalar(String.fromCodePoint(cp).toUpperCase());
  if (up !== null) {
    const folded = singleScalar(String.fromCodePoint(up).toLowerCase());
    if (folded !== null) return folded;
  }
  return downcase(cp);
}
