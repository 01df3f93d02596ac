// The char family: conversions, Unicode predicates, simple case mapping, and n-ary
// comparisons by code point (the -ci variants compare simple-case-folded code points).

import {
  downcase,
  foldcase,
  isAlphabetic,
  isLowerCase,
  isNumericChar,
  isScalarValue,
  isUpperCase,
  isWhitespaceChar,
  upcase,
} from '../chars.js';
import { Char, type PrimitiveFn } from '../values.js';
import { checkChar, typeError } from './args.js';

function charPredicate(who: string, test: (cp: number) => boolean): PrimitiveFn {
  return (args) => test(checkChar(who, args[0]!).codePoint);
}

function charMapping(who: string, map: (cp: number) => number): PrimitiveFn {
  return (args) => Char.of(map(checkChar(who, args[0]!).codePoint));
}

/** n-ary chain; every argument is type-checked even after the answer is known. */
function charComparison(who: string, key: (cp: number) => number, holds: (a: number, b: number) => boolean): PrimitiveFn {
  return (args) => {
    let result = true;
    let prev = key(checkChar(who, args[0]!).codePoint);
    for (let i = 1; i < args.length; i++) {
      const cur = key(checkChar(who, args[i]!).codePoint);
      if (result && !holds(prev, cur)) result = false;
      prev = cur;
    }
    return result;
  };
}

const same = (cp: number) => cp;
const lt = (a: number, b: number) => a < b;
const le = (a: number, b: number) => a <= b;
const eq = (a: number, b: number) => a === b;
const ge = (a: number, b: number) => a >= b;
const gt = (a: number, b: number) => a > b;

export const CHAR_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  'char->integer': (args) => checkChar('char->integer', args[0]!).codePoint,
  'integer->char': (args) => {
    const n = args[0]!;
    if (typeof n === 'number' && isScalarValue(n)) return Char.of(n);
    throw typeError('integer->char', 'Unicode scalar value (0..#xD7FF or #xE000..#x10FFFF)', n);
  },
  'char-alphabetic?': charPredicate('char-alphabetic?', isAlphabetic),
  'char-numeric?': charPredicate('char-numeric?', isNumericChar),
  'char-whitespace?': charPredicate('char-whitespace?', isWhitespaceChar),
  'char-upper-case?': charPredicate('char-upper-case?', isUpperCase),
  'char-lower-case?': charPredicate('char-lower-case?', isLowerCase),
  'char-upcase': charMapping('char-upcase', upcase),
  'char-downcase': charMapping('char-downcase', downcase),
  'char-foldcase': charMapping('char-foldcase', foldcase),
  'char=?': charComparison('char=?', same, eq),
  'char<?': charComparison('char<?', same, lt),
  'char<=?': charComparison('char<=?', same, le),
  'char>?': charComparison('char>?', same, gt),
  'char>=?': charComparison('char>=?', same, ge),
  'char-ci=?': charComparison('char-ci=?', foldcase, eq),
  'char-ci<?': charComparison('char-ci<?', foldcase, lt),
  'char-ci<=?': charComparison('char-ci<=?', foldcase, le),
  'char-ci>?': charComparison('char-ci>?', foldcase, gt),
  'char-ci>=?': charComparison('char-ci>=?', foldcase, ge),
};
