// The Topaz VM's quick tier (products/topaz-vm/src/quick/): procedures translated at load into a
// register form and tried on non-tail calls. It must be invisible except in speed: every court
// axis agrees with the built-in VM, and so do the account the machine keeps — machine
// transitions and the call-depth high-water mark — whether the tier completed the call or gave
// up (its stores to globals and captured variables undone) and left it to the machine. The
// product's `metrics.fast_paths` says which happened, so each case also asserts the path it is
// meant to exercise was taken (no vacuous agreement).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastPaths } from '../../../../engines/lispex/external/topaz-route.js';
import { ProgramGenerator } from '../differential/generator.js';
import { builtinObservation, mismatchAxes, pool, requireTopaz, topazRun } from './harness.js';

/** Same observation and the same account as the built-in VM; returns the fast-path counts. */
async function agrees(source: string): Promise<{ fast: FastPaths; status: string }> {
  const vm = builtinObservation(source, 'vm');
  const { observation: topaz, fastPaths } = await topazRun(source);
  assert.deepEqual(mismatchAxes(vm, topaz), [], `axes: ${JSON.stringify([vm.values, topaz.values, vm.diagnostics, topaz.diagnostics])}`);
  assert.equal(topaz.resource_outcome.usage.machine_transitions, vm.resource_outcome.usage.machine_transitions, 'machine transitions');
  assert.equal(topaz.metrics.max_call_depth, vm.metrics.max_call_depth, 'call depth high-water mark');
  return { fast: fastPaths, status: topaz.status };
}

const FIB = '(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))';

// [name, source, expected status, how the tier must be involved]
type Involvement = 'completes' | 'gives-up' | 'not-eligible';
const CASES: [string, string, string, Involvement][] = [
  ['fixnum recursion', `${FIB} (fib 18)`, 'ok', 'completes'],
  [
    'list code: car/cdr read in place, cons, append, null?',
    "(define (rev l acc) (if (null? l) acc (rev (cdr l) (cons (car l) acc)))) (define (f l) (append (rev l '()) (list (car l) (car (cdr l))))) (f '(1 2 3 4))",
    'ok',
    'completes',
  ],
  [
    'or/and with a let-bound temporary',
    '(define (g x y) (or (and (pair? x) (car x)) (let ((z (* y 2))) (+ z 1)))) (define (h) (list (g (list 7) 1) (g 3 4))) (h)',
    'ok',
    'completes',
  ],
  [
    'internal procedures read through the closure environment',
    '(define (outer n) (define (even? k) (if (= k 0) #t (odd? (- k 1)))) (define (odd? k) (if (= k 0) #f (even? (- k 1)))) (list (even? n) (odd? n))) (define (run) (outer 11)) (run)',
    'ok',
    'completes',
  ],
  [
    'primitive in tail position, vectors, strings',
    '(define (v n) (vector-ref (vector 1 2 n) 2)) (define (s x) (string-append "a" (number->string x))) (define (t n) (list (v n) (s n))) (t 5)',
    'ok',
    'completes',
  ],
  [
    'set! of a local and multiple values',
    '(define (k x) (let ((y 1)) (set! y (+ y x)) y)) (define (m) (call-with-values (lambda () (values (k 1) (k 2))) list)) (m)',
    'ok',
    'completes',
  ],
  [
    'overflow into bignums and flonums go through the primitives',
    `${FIB} (define (sq x) (* x x)) (define (r) (list (sq 4000000000) (sq 1.5) (fib 10.0))) (r)`,
    'ok',
    'completes',
  ],
  [
    'a primitive in tail position given parameters passed on in place',
    "(define (f p q) (append p q)) (define (h x y) (list? x)) (define (g) (list (f '(1 2) '(3)) (h 2.5 \"\") (h '() 1))) (g)",
    'ok',
    'completes',
  ],
  ['the same with a fault: append of a non-list', '(define (f3 p4) (append p4 6)) (f3 548)', 'runtime-error', 'gives-up'],
  [
    'set! of a global in a loop',
    '(define counter 0) (define (lp i) (if (< i 100) (begin (set! counter (+ counter i)) (lp (+ i 1))) counter)) (define (go) (lp 0)) (list (go) counter)',
    'ok',
    'completes',
  ],
  [
    'set! of a captured variable',
    '(define (make) (let ((n 0)) (lambda () (set! n (+ n 1)) n))) (define c (make)) (define (tick3) (c) (c) (c)) (list (tick3) (c))',
    'ok',
    'completes',
  ],
  ['a procedure replaced in its global while it runs', '(define (f) (set! f 5) (+ 1 2)) (define (h) (f)) (list (h) f)', 'ok', 'completes'],
  [
    'stores undone when the attempt gives up (global: incremented once, not twice)',
    '(define g 1) (define (f x) (set! g (+ g 1)) (car x)) (define (h) (f 5)) (list (guard (e (#t g)) (h)) (guard (e (#t g)) (h)))',
    'ok',
    'gives-up',
  ],
  [
    'stores undone when the attempt gives up (captured variable)',
    "(define (make) (let ((n 0)) (lambda (x) (set! n (+ n 1)) (if (pair? x) n (car x))))) (define c (make)) (define (t) (guard (e (#t 'f)) (c 5))) (list (t) (t) (c '(1)))",
    'ok',
    'gives-up',
  ],
  [
    'set! of an unbound global inside',
    '(define (f) (set! nowhere 1) 2) (define (h) (f)) (guard (e (#t (quote unbound))) (h))',
    'ok',
    'gives-up',
  ],
  ['fault inside: car of a non-pair (the machine raises it)', '(define (f x) (car x)) (define (g) (f 5)) (g)', 'runtime-error', 'gives-up'],
  [
    'fault inside, caught by guard outside',
    "(define (f x) (+ 1 (car x))) (define (g) (guard (e (#t 'caught)) (f 'a))) (list (g) (f '(1)))",
    'ok',
    'gives-up',
  ],
  ['a CAR whose value is dropped still faults', '(define (f x) (car x) 1) (define (g) (f 5)) (g)', 'runtime-error', 'gives-up'],
  [
    'an unbound global whose value is dropped still faults',
    '(define (f x) not-defined-anywhere x) (define (g) (f 5)) (g)',
    'runtime-error',
    'gives-up',
  ],
  ['unbound global inside', '(define (h n) (+ 1 (undefined-yet n))) (guard (e (#t (quote unbound))) (h 1))', 'ok', 'gives-up'],
  [
    'multiple values where one is required',
    '(define (two) (values 1 2)) (define (f) (+ 1 (two))) (guard (e (#t (quote caught))) (f))',
    'ok',
    'gives-up',
  ],
  ['transition limit reached inside', `${FIB} (fib 40)`, 'resource', 'gives-up'],
  ['call depth limit reached inside', '(define (d n) (if (= n 0) 0 (+ 1 (d (- n 1))))) (d 100010)', 'resource', 'gives-up'],
  ['deep recursion just below the limit', '(define (d n) (if (= n 0) 0 (+ 1 (d (- n 1))))) (d 99990)', 'ok', 'completes'],
  [
    'output makes a procedure ineligible (never attempted)',
    '(define (p n) (display n) (newline) n) (define (q) (p 1)) (q)',
    'ok',
    'not-eligible',
  ],
  [
    'a procedure calling an ineligible global is ineligible too',
    '(define (p n) (display n) n) (define (q n) (+ 1 (p n))) (q 2)',
    'ok',
    'not-eligible',
  ],
];

describe('Topaz VM quick tier: invisible except in speed', { timeout: 300_000 }, () => {
  for (const [name, source, status, involvement] of CASES) {
    test(name, async () => {
      requireTopaz();
      const { fast, status: got } = await agrees(source);
      assert.equal(got, status);
      assert.equal(fast.compiled_calls, 0, 'the Topaz VM has no compiled fast path');
      if (involvement === 'completes')
        assert.ok(fast.quick_calls > 0, `expected calls completed on the quick tier: ${JSON.stringify(fast)}`);
      if (involvement === 'gives-up') assert.ok(fast.given_up > 0, `expected an attempt given up: ${JSON.stringify(fast)}`);
      if (involvement === 'not-eligible') assert.deepEqual(fast, { quick_calls: 0, compiled_calls: 0, given_up: 0 });
    });
  }

  test('generated corpus sample: same axes, transitions and call depth as the built-in VM', async () => {
    requireTopaz();
    const count = Number(process.env.LISPEX_EXTERNAL_PROGRAMS ?? 150);
    const seed0 = Number(process.env.LISPEX_DIFF_SEED ?? 20261201);
    const mismatches: string[] = [];
    let quick = 0;
    await pool(
      Array.from({ length: count }, (_, i) => seed0 + i),
      2,
      async (seed) => {
        const source = new ProgramGenerator(seed).program();
        const vm = builtinObservation(source, 'vm');
        const { observation: topaz, fastPaths } = await topazRun(source);
        quick += fastPaths.quick_calls;
        const axes = mismatchAxes(vm, topaz);
        if (topaz.resource_outcome.usage.machine_transitions !== vm.resource_outcome.usage.machine_transitions)
          axes.push('machine_transitions' as never);
        if (topaz.metrics.max_call_depth !== vm.metrics.max_call_depth) axes.push('max_call_depth' as never);
        if (axes.length > 0 && mismatches.length < 5) mismatches.push(`seed ${seed} [${axes.join(', ')}]:\n${source}`);
      },
    );
    assert.deepEqual(mismatches, []);
    // The sample exercised the tier.
    assert.ok(quick > 0, 'no generated program completed a call on the quick tier');
  });
});
