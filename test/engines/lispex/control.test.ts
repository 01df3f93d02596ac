// Control on both routes: proper tail calls in constant space, call/cc escapes (E340 when
// inactive), dynamic-wind ordering, guard, raise / raise-continuable / with-exception-handler,
// multiple values, letrec initialization, and the non-tail depth limit.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CALL_DEPTH_LIMIT } from '../../../engines/lispex/index.js';
import { both, failure, run, ROUTES, value } from './helpers.js';

describe('proper tail calls', () => {
  for (const route of ROUTES) {
    test(`${route}: a 10-million-step loop runs in constant space`, () => {
      const o = run('(define (loop i acc) (if (= i 0) acc (loop (- i 1) (+ acc 1)))) (loop 10000000 0)', route, {
        limits: { 'machine-transition-limit': 1_000_000_000 },
      });
      assert.equal(o.status, 'ok', o.diagnostics.map((d) => d.rendered).join());
      assert.equal(o.values[0]!.printed, '10000000');
      assert.ok(o.metrics.max_call_depth <= 1, `depth grew to ${o.metrics.max_call_depth}`);
    });
  }

  test('tail calls through if/cond/let/begin/and/or/when and apply stay flat', () => {
    const src = `
      (define (a n) (cond ((= n 0) 'done) (else (let ((m (- n 1))) (begin (and #t (or #f (when #t (b m)))))))))
      (define (b n) (apply a (list n)))
      (a 200000)`;
    const o = both(src);
    assert.equal(o.values[0]!.printed, 'done');
    assert.ok(o.metrics.max_call_depth <= 2);
  });

  test('mutual recursion via named let and do in tail position', () => {
    assert.equal(value('(let loop ((i 0)) (if (< i 300000) (loop (+ i 1)) i))'), '300000');
  });
});

describe('non-tail depth: recursion-limit', () => {
  test('deep non-tail recursion ends in recursion-limit (resource, exit 2), never a JS stack overflow', () => {
    const f = failure('(define (f n) (if (= n 0) 0 (+ 1 (f (- n 1))))) (display "lost") (f 1000000)');
    assert.equal(f.code, 'recursion-limit');
    assert.equal(f.status, 'resource');
    assert.equal(f.phase, 'resource');
    const o = both('(define (f n) (if (= n 0) 0 (+ 1 (f (- n 1))))) (display "lost") (f 1000000)');
    assert.equal(o.stdout, '');
    assert.equal(o.exit_status, 2);
    assert.equal(o.resource_outcome.limit, 'non-tail-call-depth');
    assert.equal(o.metrics.call_depth_limit, CALL_DEPTH_LIMIT);
    assert.equal(o.metrics.max_call_depth, CALL_DEPTH_LIMIT);
  });

  test('recursion below the limit succeeds', () => {
    assert.equal(value('(define (f n) (if (= n 0) 0 (+ 1 (f (- n 1))))) (f 50000)'), '50000');
  });

  test('recursion through a higher-order primitive is bounded too', () => {
    const f = failure('(define (deep n) (if (= n 0) 0 (car (map (lambda (x) (+ 1 (deep (- n 1)))) (list n))))) (deep 100000)');
    assert.equal(f.code, 'recursion-limit');
  });
});

describe('escape continuations', () => {
  test('escaping from nested calls and from inside map', () => {
    assert.equal(value('(+ 1 (call/cc (lambda (k) (* 10 (k 41)))))'), '42');
    assert.equal(value("(call-with-current-continuation (lambda (k) (map (lambda (x) (if (= x 2) (k 'found) x)) '(1 2 3))))"), 'found');
  });

  test('a continuation used after its extent is E340', () => {
    const f = failure('(define saved #f) (+ 1 (call/cc (lambda (k) (set! saved k) 1))) (saved 5)');
    assert.equal(f.code, 'E340');
    assert.equal(failure('((call/cc (lambda (k) k)) 1)').code, 'E340');
  });

  test('continuations deliver multiple values', () => {
    assert.equal(value('(call-with-values (lambda () (call/cc (lambda (k) (k 1 2)))) list)'), '(1 2)');
  });
});

describe('dynamic-wind', () => {
  test('before/after run around normal return and around escapes', () => {
    const o = both(`
      (dynamic-wind (lambda () (display "[in]")) (lambda () (display "body")) (lambda () (display "[out]")))
      (call/cc (lambda (k) (dynamic-wind (lambda () (display "<")) (lambda () (k 'x) (display "never")) (lambda () (display ">")))))
      (guard (e (#t (display "caught"))) (dynamic-wind (lambda () (display "(")) (lambda () (raise 'boom)) (lambda () (display ")"))))`);
    assert.equal(o.stdout, '[in]body[out]<>()caught');
  });

  test('nested winds unwind innermost first', () => {
    const o = both(`(call/cc (lambda (k)
      (dynamic-wind (lambda () (display 1)) (lambda ()
        (dynamic-wind (lambda () (display 2)) (lambda () (k 0)) (lambda () (display 3))))
        (lambda () (display 4)))))`);
    assert.equal(o.stdout, '1234');
  });
});

describe('exceptions', () => {
  test('guard catches raised objects, error objects and runtime faults', () => {
    assert.equal(value('(guard (e ((string? e) (string-append e "!"))) (raise "hey"))'), '"hey!"');
    assert.equal(
      value('(guard (e ((error-object? e) (list (error-object-message e) (error-object-irritants e)))) (error "bad" 1 2))'),
      '("bad" (1 2))',
    );
    assert.equal(value("(guard (e (#t 'fault)) (vector-ref (vector 1) 5))"), 'fault');
  });

  test('a guard with no matching clause re-raises', () => {
    assert.equal(value("(guard (outer (#t (list 'outer outer))) (guard (inner ((string? inner) 'no)) (raise 'sym)))"), '(outer sym)');
    assert.equal(failure("(guard (e ((string? e) 'no)) (raise 'sym))").code, 'E331');
    assert.equal(failure("(guard (e ((string? e) 'no)) (car '()))").code, 'E310');
  });

  test('raise-continuable returns the handler value; raise does not (E332)', () => {
    assert.equal(value('(with-exception-handler (lambda (c) (* c 2)) (lambda () (+ 1 (raise-continuable 20))))'), '41');
    assert.equal(failure('(with-exception-handler (lambda (c) 0) (lambda () (raise 1)))').code, 'E332');
  });

  test('handlers run in the outer handler context', () => {
    const src = `(guard (e (#t (list 'outer e)))
      (with-exception-handler (lambda (c) (raise (list 'wrapped c))) (lambda () (raise 'inner))))`;
    assert.equal(value(src), '(outer (wrapped inner))');
  });

  test('uncaught: error → E330 with message and irritants, other objects → E331', () => {
    const e = failure('(error "disk full:" "sda" 98)');
    assert.equal(e.code, 'E330');
    assert.match(e.rendered, /^E330 source:1:1 disk full: "sda" 98$/);
    assert.match(failure('(raise \'(1 "two"))').rendered, /^E331 source:1:1 uncaught raised object \(1 "two"\)$/);
  });
});

describe('multiple values and letrec', () => {
  test('values where one value is required is E320', () => {
    for (const src of [
      '(+ 1 (values 1 2))',
      '(if (values) 1 2)',
      '(define x (values 1 2))',
      '(let ((a (values))) a)',
      '(list (display 1))',
    ]) {
      assert.equal(failure(src).code, 'E320', src);
    }
  });

  test('multiple values pass through tail positions and begin discards them', () => {
    assert.equal(value('(call-with-values (lambda () (if #t (values 1 2) 0)) +)'), '3');
    assert.equal(value('(begin (values 1 2) 3)'), '3');
  });

  test('reading a letrec variable before initialization is E321', () => {
    assert.equal(failure('(letrec ((a (+ b 1)) (b 2)) a)').code, 'E321');
    assert.equal(failure('(define (f) (define x y) (define y 1) x) (f)').code, 'E321');
  });
});

describe('the control family rows, each on both routes', () => {
  const cases: [string, string, string][] = [
    ['apply', "(apply list 1 2 '(3 4))", '(1 2 3 4)'],
    ['call/cc', '(call/cc (lambda (k) (k 1) 2))', '1'],
    ['call-with-current-continuation', '(call-with-current-continuation (lambda (k) 3))', '3'],
    ['call-with-values', '(call-with-values (lambda () (values 1 2)) cons)', '(1 . 2)'],
    ['dynamic-wind', "(dynamic-wind (lambda () 0) (lambda () 'body) (lambda () 1))", 'body'],
    ['with-exception-handler', "(with-exception-handler (lambda (c) 'h) (lambda () (raise-continuable 1)))", 'h'],
    ['error', '(guard (e (#t (error-object-message e))) (error "msg"))', '"msg"'],
    ['raise', "(guard (e (#t e)) (raise 'r))", 'r'],
    ['raise-continuable', '(with-exception-handler (lambda (c) (+ c 1)) (lambda () (raise-continuable 41)))', '42'],
    ['values', '(call-with-values (lambda () (values)) list)', '()'],
  ];
  for (const [name, src, expected] of cases) {
    test(`${name}`, () => assert.equal(value(src), expected));
  }

  test('control primitives are first-class procedures', () => {
    assert.equal(value('(map (lambda (f) (procedure? f)) (list apply call/cc values raise error dynamic-wind))'), '(#t #t #t #t #t #t)');
    assert.equal(value('(apply call/cc (list (lambda (k) (k 9))))'), '9');
    assert.equal(value('(eq? call/cc call-with-current-continuation)'), '#t');
  });

  test('arity and argument checks of control primitives', () => {
    assert.equal(failure('(call/cc 1)').code, 'E312');
    assert.equal(failure("(apply + 1 '(2 . 3))").code, 'E312');
    assert.equal(failure('(dynamic-wind (lambda () 1) (lambda () 2))').code, 'E302');
    assert.equal(failure('(error 42)').code, 'E312');
  });
});

describe('host-safety bounds on program shape', () => {
  test('datum nesting beyond the reader bound is recursion-limit before anything runs', () => {
    const o = both(`(display "x") ${'('.repeat(600)}${')'.repeat(600)}`);
    assert.equal(o.status, 'resource');
    assert.equal(o.diagnostics[0]!.code, 'recursion-limit');
    assert.equal(o.stdout, '');
    assert.equal(value(`(length '${'('.repeat(400)}${')'.repeat(400)})`), '1');
  });

  test('a normalized form deeper than the bound is recursion-limit on both routes (never a JS overflow)', () => {
    const f = failure(`(and ${'#t '.repeat(5000)})`);
    assert.equal(f.code, 'recursion-limit');
    assert.equal(value(`(and ${'#t '.repeat(300)}7)`), '7');
  });
});
