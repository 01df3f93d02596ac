// The Unicode sweep: Lispex programs that put every scalar value of a range through the character
// procedures (predicates, simple case mappings and folding, the -ci comparisons), the string case
// procedures on strings around it (full mappings; Final_Sigma on each side of it) and the
// printer (`write` of the character and of a symbol holding it), one line per scalar. The same
// program runs on the built-in VM and on the Topaz VM; their outputs must be identical.
// test/engines/lispex/unicode/sweep.test.ts runs a fixed sample of ranges, bench/lispex-unicode/sweep.ts
// every scalar 0..#x10FFFF (surrogates excluded).

import { builtinObservation, topazObservation } from '../external/harness.js';

/** Scalars per program: about 100 output bytes and a few hundred machine transitions each. */
export const SWEEP_CHUNK = 4096;
export const LAST_SCALAR = 0x10ffff;

/** The program answering for every scalar in [from, to) (surrogates skipped by the program). */
export function sweepProgram(from: number, to: number): string {
  return `(define (bit b n) (if b n 0))
(define (row i)
  (let* ((c (integer->char i))
         (s (list->string (list c)))
         (flags (+ (bit (char-alphabetic? c) 1) (bit (char-numeric? c) 2) (bit (char-whitespace? c) 4)
                   (bit (char-upper-case? c) 8) (bit (char-lower-case? c) 16)
                   (bit (char-ci=? c (char-upcase c)) 32) (bit (char-ci<? c #\\a) 64)
                   (bit (string-ci=? s (string-upcase s)) 128) (bit (string-ci<? s "ss") 256))))
    (write (list i flags c (char-upcase c) (char-downcase c) (char-foldcase c)
                 (string-upcase s) (string-downcase s) (string-foldcase s)
                 (string-downcase (list->string (list #\\A #\\x3a3 c)))
                 (string-downcase (list->string (list c #\\x3a3)))
                 (string->symbol s)))
    (newline)))
(do ((i ${from} (+ i 1))) ((>= i ${to}))
  (if (or (< i #xD800) (> i #xDFFF)) (row i)))
`;
}

/** [from, to) of every chunk covering 0..#x10FFFF. */
export function sweepChunks(size = SWEEP_CHUNK): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let from = 0; from <= LAST_SCALAR; from += size) out.push([from, Math.min(from + size, LAST_SCALAR + 1)]);
  return out;
}

export interface SweepDifference {
  scalar: number;
  builtin: string;
  topaz: string;
}

/** Runs one range on both machines (`topazExecutable`: another Topaz VM build, default dist's); the lines (scalars) on which they differ. */
export async function sweepRange(
  from: number,
  to: number,
  topazExecutable?: string,
): Promise<{ lines: number; differences: SweepDifference[] }> {
  const source = sweepProgram(from, to);
  const vm = builtinObservation(source, 'vm');
  const topaz = await topazObservation(source, undefined, topazExecutable);
  if (vm.status !== 'ok') throw new Error(`built-in VM did not complete the sweep of ${from}..${to}: ${JSON.stringify(vm).slice(0, 400)}`);
  if (topaz.status !== 'ok')
    throw new Error(`Topaz VM did not complete the sweep of ${from}..${to}: ${JSON.stringify(topaz).slice(0, 400)}`);
  const a = vm.stdout.text.split('\n');
  const b = topaz.stdout.text.split('\n');
  const differences: SweepDifference[] = [];
  for (let k = 0; k < Math.max(a.length, b.length); k++) {
    if (a[k] === b[k]) continue;
    const line = a[k] ?? b[k] ?? '';
    differences.push({ scalar: Number.parseInt(line.slice(1), 10), builtin: a[k] ?? '(missing)', topaz: b[k] ?? '(missing)' });
  }
  return { lines: a.length - 1, differences };
}

/** The contract's answers for the special mappings (docs/lispex/VALUES.md): [expression, written result]. */
export const SPECIAL_ANSWERS: Array<[string, string]> = [
  ['(char-foldcase #\\x17f)', '#\\s'],
  ['(equal? "s" (string-foldcase "ſ"))', '#t'],
  ['(char-upcase #\\ß)', '#\\ß'],
  ['(string-upcase "Straße")', '"STRASSE"'],
  ['(string-foldcase "Straße")', '"strasse"'],
  ['(string-foldcase "ẞ")', '"ss"'],
  ['(char-foldcase #\\x1e9e)', '#\\ß'],
  ['(string-ci=? "ẞ" "SS" "ß")', '#t'],
  ['(char-downcase #\\x130)', '#\\i'],
  ['(string-length (string-downcase "İ"))', '2'],
  ['(char-foldcase #\\x130)', '#\\İ'],
  ['(char-upcase #\\x1f80)', '#\\ᾈ'],
  ['(string-upcase "ᾀ")', '"ἈΙ"'],
  ['(string-upcase "ﬃ")', '"FFI"'],
  ['(string-downcase "ΟΔΟΣ ΟΔΟΣ.")', '"οδος οδος."'],
  ['(string-downcase "Σ")', '"σ"'],
  ['(string-foldcase "ΟΔΟΣ")', '"οδοσ"'],
  ['(char-foldcase #\\x3c2)', '#\\σ'],
  ['(char-foldcase #\\xab70)', '#\\Ꭰ'],
  ['(char-foldcase #\\x13a0)', '#\\Ꭰ'],
  ['(char-downcase #\\x13a0)', '#\\ꭰ'],
  ['(char-ci=? #\\x212a #\\k)', '#t'],
  ['(list (char-numeric? #\\x2167) (char-alphabetic? #\\x2167) (char-numeric? #\\x663))', '(#f #t #t)'],
  ['(list (char-whitespace? #\\x85) (char-whitespace? #\\xfeff) (char-whitespace? #\\x3000))', '(#t #f #t)'],
  ['(list (char-upper-case? #\\x2160) (char-lower-case? #\\xaa) (char-alphabetic? #\\x345))', '(#t #t #t)'],
  ['(list (char-upcase #\\x10428) (char-downcase #\\x10400))', '(#\\𐐀 #\\𐐨)'],
  ['(string->symbol "\\xfeff;a")', '|\ufeffa|'],
  ['(string->symbol "a\\x85;")', '|a\u0085|'],
  ['(list #\\x301 #\\xe000 #\\x378 #\\xad #\\x1f600)', '(#\\x301 #\\xe000 #\\x378 #\\xad #\\😀)'],
];

/** One program writing every SPECIAL_ANSWERS expression on its own line. */
export function specialAnswersProgram(): string {
  return SPECIAL_ANSWERS.map(([expr]) => `(write ${expr})\n(newline)`).join('\n');
}
