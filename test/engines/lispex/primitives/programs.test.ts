// The primitives inside whole programs, on both routes: guest callbacks through rt.apply
// (closures, escapes, errors raised inside callbacks), deprecated-alias warnings at their call
// sites, rendered diagnostics with written irritants, and printed result values.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LispexEvaluator } from '../../../../engines/lispex/index.js';
import type { Observation } from '../../../../engines/lispex/observation.js';

const evaluator = new LispexEvaluator();
const ROUTES = ['tree', 'vm'] as const;

interface Expect {
  readonly status?: Observation['status'];
  /** `write` forms of the last form's values. */
  readonly values?: readonly string[];
  readonly stdout?: string;
  /** Rendered diagnostic lines. */
  readonly diagnostics?: readonly string[];
  readonly warnings?: readonly string[];
}

function check(source: string, want: Expect): void {
  for (const route of ROUTES) {
    const o = evaluator.run(source, { route, sourceId: 'p.lspx' });
    const label = `${route}: ${source}`;
    assert.equal(o.status, want.status ?? 'ok', `${label}\n${o.diagnostics.map((d) => d.rendered).join('\n')}`);
    if (want.values)
      assert.deepEqual(
        o.values.map((v) => v.printed),
        want.values,
        label,
      );
    if (want.stdout !== undefined) assert.equal(o.stdout, want.stdout, label);
    assert.deepEqual(
      o.diagnostics.map((d) => d.rendered),
      want.diagnostics ?? [],
      label,
    );
    if (want.warnings)
      assert.deepEqual(
        o.warnings.map((d) => d.rendered),
        want.warnings,
        label,
      );
  }
}

describe('higher-order primitives call guest closures', () => {
  test('map, filter, folds, reduce, all?/any?', () => {
    check("(map (lambda (x) (* x x)) '(1 2 3))", { values: ['(1 4 9)'] });
    check("(filter (lambda (x) (> x 1)) '(1 2 3))", { values: ['(2 3)'] });
    check("(fold-left (lambda (acc x) (cons x acc)) '() '(1 2 3))", { values: ['(3 2 1)'] });
    check("(fold-right (lambda (x acc) (cons x acc)) '() '(1 2 3))", { values: ['(1 2 3)'] });
    check("(reduce (lambda (acc x) (- acc x)) 10 '(1 2 3))", { values: ['4'] });
    check('(list (all? odd? \'(1 3)) (any? (lambda (x) (string? x)) \'(1 "a")))', { values: ['(#t #t)'] });
    check('(string-map (lambda (c) (char-upcase c)) "abλ")', { values: ['"ABΛ"'] });
    check('(vector-map (lambda (x) (* 2 x)) #(1 2 3))', { values: ['#(2 4 6)'] });
  });

  test('side effects run left to right', () => {
    check('(for-each (lambda (x) (display x) (display ",")) \'(1 2 3))', { stdout: '1,2,3,', values: [] });
    check('(vector-for-each display #(a "b" #\\c))', { stdout: 'abc' });
    check('(string-for-each (lambda (c) (write c)) "ab")', { stdout: '#\\a#\\b' });
  });

  test('an escape continuation leaves a callback loop', () => {
    check("(call/cc (lambda (k) (for-each (lambda (x) (if (> x 2) (k x))) '(1 2 3 4)) 'none))", { values: ['3'] });
  });

  test('an error raised inside a callback stops the run with its own code', () => {
    check('(map (lambda (x) (error "bad" x)) \'(7))', {
      status: 'runtime-error',
      diagnostics: ['E330 p.lspx:1:18 bad 7'],
    });
  });

  test('a callback must return one value where its value is used (E320); for-each ignores the count', () => {
    check("(map (lambda (x) (values x x)) '(1))", {
      status: 'runtime-error',
      diagnostics: ['E320 p.lspx:1:1 map: the procedure returned 2 values where one is needed'],
    });
    check("(filter (lambda (x) (values)) '(1))", {
      status: 'runtime-error',
      diagnostics: ['E320 p.lspx:1:1 filter: the procedure returned 0 values where one is needed'],
    });
    check('(vector-map (lambda (x) (display x)) #(1))', {
      status: 'runtime-error',
      stdout: '1',
      diagnostics: ['E320 p.lspx:1:1 vector-map: the procedure returned 0 values where one is needed'],
    });
    check("(for-each (lambda (x) (values 1 2)) '(1)) (vector-for-each (lambda (x) (values)) #(1))", { values: [] });
  });

  test('a primitive fault inside a callback is a condition guard can catch', () => {
    check("(guard (e (#t (list (error-object? e) (error-object-irritants e)))) (map car '(1)))", { values: ['(#t (1))'] });
  });
});

describe('diagnostics from primitives', () => {
  test('codes, messages and written irritants', () => {
    check('(vector-ref (vector 1 "x") 5)', {
      status: 'runtime-error',
      diagnostics: ['E311 p.lspx:1:1 vector-ref: index out of range for length 2 5'],
    });
    check('(/ 1 0)', { status: 'runtime-error', diagnostics: ['E313 p.lspx:1:1 /: division by zero 1 0'] });
    check('(* 1e200 1e200)', { status: 'runtime-error', diagnostics: ['E314 p.lspx:1:1 non-finite inexact number'] });
    check("(car '())", { status: 'runtime-error', diagnostics: ['E310 p.lspx:1:1 car: pair expected ()'] });
    check('(+ 1 "a")', { status: 'runtime-error', diagnostics: ['E312 p.lspx:1:1 +: number expected "a"'] });
    check("(length '(1 . 2))", { status: 'runtime-error', diagnostics: ['E312 p.lspx:1:1 length: proper list expected (1 . 2)'] });
  });

  test('output committed before a fault stays', () => {
    check('(display "before") (newline) (vector-ref (vector) 0)', {
      status: 'runtime-error',
      stdout: 'before\n',
      diagnostics: ['E311 p.lspx:1:30 vector-ref: index out of range for length 0 0'],
    });
  });
});

describe('deprecated aliases', () => {
  test('L120-SDL-102 shape: stdout done, warnings W330 W331 W331 in order', () => {
    check('(% 7 2) (list-first \'(1)) (list-rest \'(1)) (display "done") (newline)', {
      stdout: 'done\n',
      warnings: [
        'W330 p.lspx:1:1 deprecated procedure % (use modulo)',
        'W331 p.lspx:1:9 deprecated list alias (use car/cdr)',
        'W331 p.lspx:1:27 deprecated list alias (use car/cdr)',
      ],
    });
  });
});

describe('values through whole programs', () => {
  test('numbers', () => {
    check('(define (fact n) (if (= n 0) 1 (* n (fact (- n 1))))) (fact 30)', { values: ['265252859812191058636308480000000'] });
    check('(list (exact->inexact 1/3) (/ 6 4) (exact 2.5) (expt 2 -3))', {
      values: ['(0.3333333333333333 3/2 5/2 1/8)'],
    });
    check('(call-with-values (lambda () (floor/ -7 2)) list)', { values: ['(-4 1)'] });
    check('(exact-integer-sqrt 17)', { values: ['4', '1'] });
    check('(list (number->string 255 16) (string->number "#b101") (round 5/2) (max 1 2.0))', { values: ['("ff" 5 2 2.0)'] });
  });

  test('strings, characters and symbols', () => {
    check('(list (string-append "a" "λ") (string-length "😀x") (string-ref "a😀" 1) (string->symbol "a b") (symbol->string \'x))', {
      values: ['("aλ" 2 #\\😀 |a b| "x")'],
    });
    check('(list->string (map char-upcase (string->list "abc")))', { values: ['"ABC"'] });
  });

  test('vectors: vector-set! returns the unspecified value; a cycle prints with a label', () => {
    check('(define v (vector 1 2)) (vector-set! v 0 v)', { values: ['#<unspecified>'] });
    check('(define v (vector 1 2)) (vector-set! v 1 v) (write v)', { stdout: '#0=#(1 #0#)' });
  });

  test('procedures print with their names; identity groups are one procedure', () => {
    check('(list car first (eq? car first) (eq? call/cc call-with-current-continuation) (eq? list-first car))', {
      values: ['(#<procedure car> #<procedure car> #t #t #f)'],
    });
  });
});
