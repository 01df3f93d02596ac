// An independent oracle: expressions whose meaning R7RS-small fixes (and Lispex does not change)
// evaluated by Guile 3 (`guile-3.0 --r7rs`, a required CI package) and by both Lispex routes;
// the `write` forms must be identical ("error" where both fail). Inexact values stay within
// [1e-3, 1e10) so both printers use plain decimal notation; bytevectors are compared through
// their elements (Guile writes them #vu8(…)).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LispexEvaluator } from '../../../../engines/lispex/index.js';

const EXPRESSIONS = [
  // exact and inexact arithmetic
  '(+ 1/2 1/3)',
  '(- 1/2 1/2)',
  '(* 2/3 3/4)',
  '(/ 6 -4)',
  '(/ 1 3 5)',
  '(+ 1 0.5)',
  '(* 1.5 1.5)',
  '(- 0.1 0.3)',
  '(+ 9007199254740991 1)',
  '(- -9007199254740991 10)',
  '(* 123456789123456789 987654321987654321)',
  '(/ 100000000000000000000 300000000000000000000)',
  '(expt 3 40)',
  '(expt 2/3 5)',
  '(expt 2 -10)',
  '(expt 1.5 3)',
  '(abs -1/2)',
  '(abs -7.25)',
  '(square -11)',
  '(max 1 2 3/2)',
  '(min 1/2 1/3)',
  '(max 1 2.5)',
  // integer division family
  '(quotient -17 5)',
  '(remainder -17 5)',
  '(modulo -17 5)',
  '(modulo 17 -5)',
  '(modulo -17 -5)',
  '(call-with-values (lambda () (floor/ -17 5)) list)',
  '(call-with-values (lambda () (truncate/ -17 5)) list)',
  '(floor-quotient 17 -5)',
  '(floor-remainder 17 -5)',
  '(truncate-quotient 17 -5)',
  '(truncate-remainder 17 -5)',
  '(quotient 100000000000000000000 7)',
  '(modulo -100000000000000000000 7)',
  '(quotient 17.0 5)',
  '(gcd 12 -18)',
  '(gcd)',
  '(lcm 4 -6)',
  '(lcm)',
  '(gcd 0 0)',
  '(call-with-values (lambda () (exact-integer-sqrt 1000000000000000000000)) list)',
  '(call-with-values (lambda () (exact-integer-sqrt 15)) list)',
  // rounding and exactness
  '(floor -7/2)',
  '(ceiling -7/2)',
  '(round -7/2)',
  '(round 7/2)',
  '(truncate -7/2)',
  '(round 0.5)',
  '(round 1.5)',
  '(round -2.5)',
  '(floor -3.5)',
  '(ceiling 3.2)',
  '(truncate -3.7)',
  '(exact 0.125)',
  '(exact 3.0)',
  '(inexact 1/8)',
  '(exact->inexact 2/3)',
  '(inexact->exact 0.75)',
  '(exact? 1/2)',
  '(inexact? 1.0)',
  '(exact-integer? 2.0)',
  // comparisons and predicates
  '(< 1 2 3)',
  '(< 1 3 2)',
  '(= 1 1.0)',
  '(= 1/2 0.5)',
  '(<= 1/3 0.3333)',
  '(> 3 2.5 2)',
  '(>= 2 2 2)',
  '(zero? 0.0)',
  '(positive? -1/2)',
  '(negative? -0.5)',
  '(even? 100000000000000000000)',
  '(odd? -3)',
  '(integer? 2.0)',
  '(integer? 5/2)',
  '(rational? 1/2)',
  '(number? (quote a))',
  '(exact-integer? 5)',
  // number <-> string
  '(number->string 255 2)',
  '(number->string -255 16)',
  '(number->string 1/3 8)',
  '(number->string 3.25)',
  '(string->number "101" 2)',
  '(string->number "-ff" 16)',
  '(string->number "#o17")',
  '(string->number "1/3")',
  '(string->number "#e0.25")',
  '(string->number "#i3/8")',
  '(string->number "12abc")',
  '(string->number "1e2")',
  // characters
  '(char->integer #\\A)',
  '(integer->char 955)',
  '(char-upcase #\\a)',
  '(char-downcase #\\x39B)',
  '(char-foldcase #\\x3A3)',
  '(char-alphabetic? #\\x3BB)',
  '(char-numeric? #\\x663)',
  '(char-whitespace? #\\x3000)',
  '(char-upper-case? #\\x3A3)',
  '(char-lower-case? #\\a)',
  '(char<? #\\a #\\b #\\c)',
  '(char-ci=? #\\a #\\A)',
  '(char-ci<? #\\a #\\B)',
  // strings
  '(string-length "a\\x3BB;\\x1F600;")',
  '(string-ref "a\\x3BB;\\x1F600;" 2)',
  '(substring "hello" 1 3)',
  '(string-append "ab" "" "cd")',
  '(string-copy "hello" 2)',
  '(string-copy "hello" 1 4)',
  '(string-upcase "hello")',
  '(string-downcase "HeLLo")',
  '(string-foldcase "ABC")',
  '(string=? "a" "a" "a")',
  '(string<? "abc" "abd")',
  '(string<? "\\xFFFF;" "\\x1F600;")',
  '(string>? "b" "a")',
  '(string-ci=? "AbC" "aBc")',
  '(string-ci<? "a" "B")',
  '(string->list "abc")',
  '(list->string (list #\\a #\\b))',
  '(string->vector "abc" 1)',
  '(vector->string #(#\\x #\\y))',
  '(string->symbol "abc")',
  '(symbol->string (quote xyz))',
  '(make-string 3 #\\z)',
  '(string-map char-upcase "abc")',
  // lists and vectors
  '(append (quote (1 2)) (quote (3)) (quote ()) (quote (4 . 5)))',
  '(reverse (quote (1 2 3)))',
  '(list-tail (quote (1 2 3)) 2)',
  '(list-ref (quote (a b c)) 1)',
  '(list-copy (quote (1 2 3)))',
  '(length (quote (1 2 3)))',
  '(list? (quote (1 . 2)))',
  '(member (list 2) (quote (1 (2) 3)))',
  '(memv 2 (quote (1 2 3)))',
  '(memq (quote c) (quote (a b c d)))',
  '(assoc 2.0 (quote ((1 one) (2 two))))',
  '(assv 2 (quote ((1 one) (2 two))))',
  '(assq (quote b) (quote ((a 1) (b 2))))',
  '(map (lambda (x) (* x x)) (quote (1 2 3)))',
  '(make-list 2 (quote x))',
  '(vector->list #(1 2 3))',
  '(list->vector (quote (1 2)))',
  '(vector-copy #(1 2 3) 1)',
  '(vector-length (make-vector 3 0))',
  '(vector-map (lambda (x) (+ x 1)) #(1 2))',
  '(let ((v (vector 1 2 3))) (vector-set! v 0 9) v)',
  '(vector-ref #(a b c) 2)',
  '(bytevector-u8-ref (bytevector 1 2 255) 2)',
  '(bytevector-u8-ref (bytevector 5 6) 1)',
  '(bytevector-length (make-bytevector 4 0))',
  '(caddr (quote (1 2 3)))',
  '(cdddr (quote (1 2 3 4)))',
  '(caar (quote ((1) 2)))',
  '(cadar (quote ((1 2))))',
  // equality
  '(equal? (quote (1 #(2 "x"))) (list 1 (vector 2 "x")))',
  '(eqv? 2 2.0)',
  '(eqv? 100000000000000000000 100000000000000000000)',
  '(equal? "abc" "abc")',
  '(boolean=? #t #t)',
  '(symbol=? (quote a) (quote a) (quote b))',
  '(not 3)',
  // errors both sides agree are errors
  '(car (quote ()))',
  '(vector-ref #(1 2) 2)',
  '(/ 5 0)',
  '(string-ref "abc" 3)',
  '(+ 1 "2")',
  '(integer->char 55296)',
  '(exact-integer-sqrt -4)',
  '(list-tail (quote (1)) 2)',
  '(substring "abc" 2 1)',
];

function runGuile(exprs: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'lispex-guile-'));
  try {
    const file = join(dir, 'oracle.scm');
    const lines = [
      '(import (scheme base) (scheme write) (scheme char) (scheme inexact) (scheme cxr))',
      '(define-syntax try (syntax-rules () ((_ e) (begin (guard (c (#t (display "error"))) (write e)) (newline)))))',
      ...exprs.map((e) => `(try ${e})`),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const res = spawnSync('guile-3.0', ['--r7rs', '--no-auto-compile', '-q', file], { encoding: 'utf8', timeout: 60_000 });
    if (res.error) throw new Error(`guile-3.0 (a required CI package) could not run: ${res.error.message}`);
    assert.equal(res.status, 0, res.stderr);
    return res.stdout.split('\n').slice(0, exprs.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('Guile 3 as an oracle for R7RS-fixed behaviour', () => {
  test(`${EXPRESSIONS.length} expressions agree on both routes`, () => {
    const guile = runGuile(EXPRESSIONS);
    assert.equal(guile.length, EXPRESSIONS.length);
    const evaluator = new LispexEvaluator();
    const mismatches: string[] = [];
    EXPRESSIONS.forEach((expr, i) => {
      for (const route of ['tree', 'vm'] as const) {
        const o = evaluator.run(expr, { route });
        const ours = o.status === 'ok' ? o.values.map((v) => v.printed).join(' ') : o.status === 'runtime-error' ? 'error' : o.status;
        if (ours !== guile[i]) mismatches.push(`${route}: ${expr} => ${ours}, guile ${guile[i]}`);
      }
    });
    assert.deepEqual(mismatches, []);
  });
});
