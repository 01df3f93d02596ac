// Every core form (13) and every derived form (12) on both routes, normalizer diagnostics
// (E110, E120, E130), hygiene, top-level semantics, input binding and interactive output.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { coreToSexpr } from '../../../engines/lispex/core-ir.js';
import { primitiveTable } from '../../../engines/lispex/evaluator.js';
import { Meter, profileById } from '../../../engines/lispex/meter.js';
import { normalizeProgram } from '../../../engines/lispex/normalizer.js';
import { writeValue } from '../../../engines/lispex/printer.js';
import { readAll } from '../../../engines/lispex/reader.js';
import { encodeSource } from '../../../engines/lispex/source.js';
import { both, failure, value, values } from './helpers.js';

describe('core forms', () => {
  const cases: [string, string, string][] = [
    ['literal', '42', '42'],
    ['variable', '(define x 5) x', '5'],
    ['quote', '(quote (a b))', '(a b)'],
    ['if', '(if (< 1 2) (quote yes) (quote no))', 'yes'],
    ['lambda', '((lambda (a b . rest) (list a b rest)) 1 2 3 4)', '(1 2 (3 4))'],
    ['lambda (variadic)', '((lambda args args) 1 2)', '(1 2)'],
    ['begin', '(begin 1 2 3)', '3'],
    ['set!', '(define x 1) (set! x (+ x 1)) x', '2'],
    ['define', '(define y 10) (* y y)', '100'],
    ['let', '(let ((a 1) (b 2)) (+ a b))', '3'],
    [
      'letrec',
      '(letrec ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1))))) (od? (lambda (n) (if (= n 0) #f (ev? (- n 1)))))) (ev? 100))',
      '#t',
    ],
    ['values', '(call-with-values (lambda () (values 1 2 3)) list)', '(1 2 3)'],
    ['application', '((if #t + -) 3 4)', '7'],
    ['guard', "(guard (e ((symbol? e) (list 'caught e))) (raise 'oops))", '(caught oops)'],
  ];
  for (const [form, src, expected] of cases) {
    test(`${form}: ${src}`, () => assert.equal(value(src), expected));
  }

  test('one-armed if with a false test and define/set! yield zero values', () => {
    assert.deepEqual(values(both('(if #f #f)')), []);
    assert.deepEqual(values(both('(define z 1)')), []);
    assert.deepEqual(values(both('(define z 1) (set! z 2)')), []);
  });

  test('values with several results at top level', () => {
    assert.deepEqual(values(both('(values 1 "two" #\\3)')), ['1', '"two"', '#\\3']);
  });
});

describe('derived forms', () => {
  const cases: [string, string, string][] = [
    [
      'quasiquote',
      '(let ((x 2) (xs (list 3 4))) `(1 ,x ,@xs #(5 ,x) (nested `(a ,(b ,x)))))',
      '(1 2 3 4 #(5 2) (nested (quasiquote (a (unquote (b 2))))))',
    ],
    ['quasiquote dotted', '(let ((t 9)) `(1 . ,t))', '(1 . 9)'],
    ['let*', '(let* ((a 1) (b (+ a 1)) (c (* b 10))) (list a b c))', '(1 2 20)'],
    ['named let', '(let loop ((i 0) (acc (quote ()))) (if (= i 4) acc (loop (+ i 1) (cons i acc))))', '(3 2 1 0)'],
    ['cond', "(cond ((assv 2 '((1 . a) (2 . b))) => cdr) (else 'none))", 'b'],
    ['cond (test only, else)', "(list (cond (#f 1) (7)) (cond (#f 1) (else 'e)))", '(7 e)'],
    ['case', "(list (case 5 ((1 2 3) 'small) ((4 5 6) 'medium) (else 'big)) (case 'x ((x) => (lambda (s) s)) (else 'no)))", '(medium x)'],
    ['and', '(list (and) (and 1 2) (and 1 #f 3))', '(#t 2 #f)'],
    ['or', '(list (or) (or #f 2) (or #f #f))', '(#f 2 #f)'],
    ['when', "(when (> 2 1) 'a 'b)", 'b'],
    ['unless', "(unless (> 1 2) 'c)", 'c'],
    ['do', '(do ((i 0 (+ i 1)) (s 0 (+ s i))) ((= i 5) s))', '10'],
    ['function-define', '(define (sq x) (* x x)) (sq 12)', '144'],
    ['internal-define', '(define (f x) (define y (* x 2)) (define (g) (+ y 1)) (g)) (f 20)', '41'],
  ];
  for (const [form, src, expected] of cases) {
    test(`${form}: ${src}`, () => assert.equal(value(src), expected));
  }

  test('when/unless that do not run and cond/case without a match yield zero values', () => {
    for (const src of ['(when #f 1)', '(unless #t 1)', '(cond (#f 1))', "(case 9 ((1) 'a))", '(do ((i 0 (+ i 1))) ((= i 2)))']) {
      assert.deepEqual(values(both(src)), [], src);
    }
  });
});

describe('hygiene', () => {
  test('user bindings named like temporaries do not capture', () => {
    // `or`, `case`, `do` use temporaries no symbol can name.
    assert.equal(
      value('(let ((t 5) (key 6) (do-loop 7)) (list (or #f t) (case 1 ((1) key)) (do ((i 0 (+ i 1))) ((= i 1) do-loop))))'),
      '(5 6 7)',
    );
  });

  test('redefining cons/append/memv does not change quasiquote or case', () => {
    const src =
      "(define (cons a b) 'hijacked) (define (append . x) 'hijacked) (define (memv . x) #f) (define (list->vector x) 'hijacked) (list `(1 ,@(list 2) #(,3)) (case 2 ((2) 'ok) (else 'bad)))";
    assert.equal(value(src), '((1 2 #(3)) ok)');
  });

  test('redefining + is honoured by both routes (no stale fast path)', () => {
    assert.equal(value("(define (f a b) (+ a b)) (define + (lambda (a b) 'plus)) (f 1 2)"), 'plus');
    assert.equal(value("(define (g x) (car x)) (set! car (lambda (x) 'mine)) (g 5)"), 'mine');
  });

  test('a local binding shadows a primitive', () => {
    assert.equal(value('(let ((+ -)) (+ 10 3))'), '7');
    assert.equal(value("(define (h car) (car 1)) (h (lambda (x) (list 'local x)))"), '(local 1)');
  });
});

describe('normalizer diagnostics', () => {
  const cases: [string, string][] = [
    ['(define if 1)', 'E110'],
    ['(lambda (x quote) x)', 'E110'],
    ['(let ((else 1)) else)', 'E110'],
    ['(set! define 2)', 'E110'],
    ['(define-syntax foo (syntax-rules () ((_ x) x)))', 'E120'],
    ['(delay 1)', 'E120'],
    ['(case-lambda ((x) x))', 'E120'],
    ['(if)', 'E130'],
    ['(lambda (x x) x)', 'E130'],
    ['(let ((x)) x)', 'E130'],
    ['()', 'E130'],
    ['(quote)', 'E130'],
    ['(f . x)', 'E130'],
    ['(lambda (x) (display x) (define y 1) y)', 'E130'],
    ['(if 1 (define x 2) 3)', 'E130'],
    [',x', 'E130'],
    ['(list if)', 'E130'],
    ['(cond (else 1) (#t 2))', 'E130'],
    ['(let loop)', 'E130'],
    ['(do ((i 0)) )', 'E130'],
    ['(guard (e) )', 'E130'],
    ['(define)', 'E130'],
  ];
  for (const [src, code] of cases) {
    test(`${src} → ${code}`, () => {
      const f = failure(src);
      assert.equal(f.code, code);
      assert.equal(f.phase, 'normalizer');
      assert.equal(f.status, 'source-error');
    });
  }

  test('a normalizer error stops the run before any form is evaluated', () => {
    const o = both('(display "side effect") (if)');
    assert.equal(o.stdout, '');
    assert.equal(o.interactive_stdout, '');
  });
});

describe('normalized core identity', () => {
  test('derived forms lower to core forms only', () => {
    const meter = new Meter(profileById('lispex-mcp-local-authoring/v1').limits);
    const prims = primitiveTable();
    const program = normalizeProgram(
      readAll(encodeSource('(when (and a b) (do ((i 0 (+ i 1))) ((= i 2) i)))'), meter),
      meter,
      (n) => prims.get(n)!,
    );
    const text = coreToSexpr(program.forms[0]!, writeValue);
    assert.match(text, /^\(if \(if \(variable a\) \(variable b\) \(literal #f\)\)/);
    for (const derived of ['when', 'and', ' do ', 'cond', 'case', 'let*']) assert.ok(!text.includes(`(${derived.trim()} `), text);
    assert.ok(meter.normalization > 5);
  });
});

describe('top level, input and interactive output', () => {
  test('forms share one global environment in source order', () => {
    assert.equal(value('(define a 1) (define (get) a) (set! a 2) (get)'), '2');
  });

  test('input is bound as a datum', () => {
    assert.equal(value('(cadr input)', { input: '(1 (2 3) "x")' }), '(2 3)');
    const o = both('input', { input: '(a b' });
    assert.equal(o.status, 'source-error');
    assert.match(o.diagnostics[0]!.rendered, /^E100 input:1:1 /);
  });

  test('interactive output interleaves explicit output and written results', () => {
    const o = both('(display "hi") (newline) (+ 1 2) (values "a" #\\b) (define q 1) (values)');
    assert.equal(o.stdout, 'hi\n');
    assert.equal(o.interactive_stdout, 'hi\n3\n"a"\n#\\b\n');
  });

  test('a runtime fault keeps committed output, and nothing of the failed form', () => {
    const o = both('(display "one") (begin (display "two") (car 5)) (display "three")');
    assert.equal(o.status, 'runtime-error');
    assert.equal(o.exit_status, 1);
    assert.equal(o.stdout, 'onetwo');
    assert.equal(o.interactive_stdout, 'onetwo');
    assert.equal(o.values.length, 0);
  });

  test('value projection: portable kinds as JSON, others named, all printed', () => {
    const o = both('(list 1 2/3 1.5 #\\a \'b "c" #(1) #u8(2) \'(1 . 2) (expt 2 70))');
    assert.equal(o.values[0]!.portable, true);
    assert.equal(o.values[0]!.value.kind, 'proper-list');
    const items = (o.values[0]!.value as unknown as { items: { kind: string }[] }).items.map((i) => i.kind);
    assert.deepEqual(items, [
      'integer',
      'rational',
      'finite-real',
      'character',
      'symbol',
      'string',
      'vector',
      'bytevector',
      'improper-list',
      'integer',
    ]);
    const p = both('car');
    assert.deepEqual(
      p.values.map((v) => [v.portable, v.value.kind, v.printed]),
      [[false, 'procedure', '#<procedure car>']],
    );
    const id = p.identity;
    assert.match(id.source_sha256, /^[0-9a-f]{64}$/);
    assert.equal(id.profile_id, 'lispex-mcp-local-authoring/v1');
    assert.equal(id.meter_id, 'lispex.product-resource-meter/v1');
  });
});
