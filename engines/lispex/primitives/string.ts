// The string family. Strings are immutable (no string-set!/string-fill!); every operation
// returns a new string. Indices count Unicode scalars; comparisons use code-point order (the
// -ci variants compare case-folded strings).

import { compareScalarOrder, downcaseString, foldcaseString, scalarAt, substringOf, upcaseString } from '../strings.js';
import { Char, LString, type PrimitiveFn } from '../values.js';
import { checkChar, checkIndex, checkRange, checkSize, checkString } from './args.js';

function stringComparison(who: string, key: (s: string) => string, holds: (c: number) => boolean): PrimitiveFn {
  return (args) => {
    let result = true;
    let prev = key(checkString(who, args[0]!).value);
    for (let i = 1; i < args.length; i++) {
      const cur = key(checkString(who, args[i]!).value);
      if (result && !holds(compareScalarOrder(prev, cur))) result = false;
      prev = cur;
    }
    return result;
  };
}

function stringMapping(who: string, map: (s: string) => string): PrimitiveFn {
  return (args) => new LString(map(checkString(who, args[0]!).value));
}

const same = (s: string) => s;

export const STRING_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  'string-length': (args) => checkString('string-length', args[0]!).length,
  'string-ref': (args) => {
    const s = checkString('string-ref', args[0]!);
    return Char.of(scalarAt(s, checkIndex('string-ref', args[1]!, s.length)));
  },
  'make-string': (args, rt) => {
    const k = checkSize('make-string', args[0]!);
    const fill = args.length > 1 ? checkChar('make-string', args[1]!) : Char.of(32);
    rt.allocate(2 * k * (fill.codePoint > 0xffff ? 2 : 1), 'make-string');
    return new LString(String.fromCodePoint(fill.codePoint).repeat(k));
  },
  'string-append': (args) => {
    let out = '';
    for (const a of args) out += checkString('string-append', a).value;
    return new LString(out);
  },
  'string-copy': (args) => {
    const s = checkString('string-copy', args[0]!);
    const [start, end] = checkRange('string-copy', args, 1, s.length);
    return substringOf(s, start, end);
  },
  substring: (args) => {
    const s = checkString('substring', args[0]!);
    const [start, end] = checkRange('substring', args, 1, s.length);
    return substringOf(s, start, end);
  },
  'string-upcase': stringMapping('string-upcase', upcaseString),
  'string-downcase': stringMapping('string-downcase', downcaseString),
  'string-foldcase': stringMapping('string-foldcase', foldcaseString),
  'string=?': stringComparison('string=?', same, (c) => c === 0),
  'string<?': stringComparison('string<?', same, (c) => c < 0),
  'string<=?': stringComparison('string<=?', same, (c) => c <= 0),
  'string>?': stringComparison('string>?', same, (c) => c > 0),
  'string>=?': stringComparison('string>=?', same, (c) => c >= 0),
  'string-ci=?': stringComparison('string-ci=?', foldcaseString, (c) => c === 0),
  'string-ci<?': stringComparison('string-ci<?', foldcaseString, (c) => c < 0),
  'string-ci<=?': stringComparison('string-ci<=?', foldcaseString, (c) => c <= 0),
  'string-ci>?': stringComparison('string-ci>?', foldcaseString, (c) => c > 0),
  'string-ci>=?': stringComparison('string-ci>=?', foldcaseString, (c) => c >= 0),
};
