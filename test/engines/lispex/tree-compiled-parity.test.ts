// The tree route runs procedure bodies as compiled closures (tree/closure-compiler.ts) and must
// charge exactly what the CEK machine alone charges: the same observation, counters included
// (machine transitions, max call depth), on every program. Each program here runs both ways
// (`treeCompiledBodies` false is the machine alone) and the observations must be identical but
// for the wall time. The generated corpus covers breadth; the hand-written programs cover the
// control paths (escapes through compiled frames, tail calls through apply and guard, deep
// recursion past the JS frame budget); the limit sweep covers a machine-transition limit falling
// on every single transition of a run, which is where batched charges would differ.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LispexEvaluator, type Observation } from '../../../engines/lispex/index.js';
import { profileById, DEFAULT_PROFILE_ID } from '../../../engines/lispex/meter.js';
import type { ResourceLimits } from '../../../engines/lispex/observation.js';
import { ProgramGenerator } from './differential/generator.js';
import { PROGRAMS } from '../../../bench/lispex/programs.js';

const ev = new LispexEvaluator();

function both(source: string, limits?: ResourceLimits): { compiled: string; machine: string } {
  const strip = (o: Observation) => JSON.stringify({ ...o, metrics: { ...o.metrics, wall_ms: 0 } });
  return {
    compiled: strip(ev.run(source, { route: 'tree', limits, treeCompiledBodies: true })),
    machine: strip(ev.run(source, { route: 'tree', limits, treeCompiledBodies: false })),
  };
}

function assertParity(source: string, limits?: ResourceLimits): Observation {
  const { compiled, machine } = both(source, limits);
  assert.equal(compiled, machine, `compiled bodies and the machine disagree on:\n${source}`);
  return JSON.parse(compiled) as Observation;
}

const CONTROL_PROGRAMS: readonly string[] = [
  // Escape from deep inside compiled calls to a continuation captured outside them.
  '(define (find l k) (cond ((null? l) #f) ((> (car l) 5) (k (car l))) (else (+ 1 (find (cdr l) k)))))\n(call/cc (lambda (k) (find (list 1 2 7 3) k)))',
  // A guard catching a primitive fault raised inside compiled frames, and a handler that returns.
  "(define (f n) (if (= n 0) (car '()) (+ 1 (f (- n 1)))))\n(guard (e ((string? (error-object-message e)) (list 'caught (error-object-message e)))) (f 50))",
  "(with-exception-handler (lambda (e) 42) (lambda () (+ 1 (raise-continuable 'oops))))",
  "(with-exception-handler (lambda (e) 42) (lambda () (+ 1 (raise 'oops))))",
  // Tail loops through apply, guard and call/cc stay tail calls.
  '(define (loop n) (if (= n 0) (quote done) (apply loop (list (- n 1)))))\n(loop 100000)',
  "(define (loop n) (if (= n 0) 'done (guard (e (#t (loop (- n 1)))) (raise 'x))))\n(loop 3000)",
  '(define (loop n acc) (if (= n 0) acc (loop (- n 1) (call/cc (lambda (k) (k (+ acc 1)))))))\n(loop 20000 0)',
  // dynamic-wind unwound by an escape out of compiled code.
  "(define out '())\n(define r (call/cc (lambda (k) (dynamic-wind (lambda () (set! out (cons 'in out))) (lambda () (+ 1 (k 'escaped))) (lambda () (set! out (cons 'out out)))))))\n(list r out)",
  // Deep non-tail recursion past the JS frame budget, and past the call depth limit.
  '(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))\n(count 99999)',
  '(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))\n(count 100001)',
  // Deep recursion through a higher-order primitive re-entering guest code.
  '(define (deep n) (if (= n 0) (list 0) (map (lambda (x) (+ x 1)) (deep (- n 1)))))\n(length (deep 150))',
  // Multiple values, rest parameters, letrec, set! on captured and global variables.
  '(call-with-values (lambda () (values 1 2 3)) (lambda args (apply + args)))',
  '(define (f . xs) xs)\n(define g (lambda (a . b) (list a b)))\n(g 1)\n(list (f) (f 1 2 3) (g 1 2 3))',
  '(define counter 0)\n(define (inc!) (set! counter (+ counter 1)) counter)\n(let loop ((i 0)) (if (< i 10) (begin (inc!) (loop (+ i 1)))))\ncounter',
  '(define (mk) (let ((n 0)) (lambda () (set! n (+ n 1)) n)))\n(define c (mk))\n(c) (c)\n(c)',
  '(letrec ((even? (lambda (n) (if (= n 0) #t (odd? (- n 1))))) (odd? (lambda (n) (if (= n 0) #f (even? (- n 1)))))) (even? 10001))',
  '(define (f) (letrec ((a (lambda () b)) (b (a))) b))\n(f)',
  // Faults in operator, operand and arity positions inside compiled bodies.
  '(define (f x) (undefined-thing x))\n(f 1)',
  '(define (f x) (+ x y))\n(f 1)',
  '(define (f x) (x 1))\n(f 5)',
  '(define (f x) ((lambda (a b) a) x))\n(f 1)',
  "(define (f x) (+ x 'a))\n(f 1)",
  '(define (f) (values 1 2))\n(define (g) (+ 1 (f)))\n(g)',
  '(define (f x) (display x) (newline) (* x 2))\n(f 21)',
  // A redefined primitive name is no longer answered in place.
  '(define (f x) (+ x 1))\n(f 1)\n(set! + -)\n(f 1)',
];

test('compiled bodies and the machine agree on the control programs', () => {
  for (const source of CONTROL_PROGRAMS) assertParity(source);
});

test('compiled bodies and the machine agree on deep recursion through control forms, re-entries and heavy bodies', {
  timeout: 120_000,
}, () => {
  const nest = (k: number, inner: string): string => {
    let text = inner;
    for (let i = 0; i < k; i++) text = `(+ 1 ${text})`;
    return text;
  };
  const sources = [
    // Re-entry through map at every level, up to and past the re-entry limit.
    '(define (f n) (if (= n 0) 0 (car (map (lambda (x) (+ x (f (- n 1)))) (list 1)))))\n(f 199)',
    '(define (f n) (if (= n 0) 0 (car (map (lambda (x) (+ x (f (- n 1)))) (list 1)))))\n(f 250)',
    // Non-tail recursion through apply, call/cc, guard and dynamic-wind (delegated each level).
    '(define (f n) (if (= n 0) 0 (+ 1 (apply f (list (- n 1))))))\n(f 99999)',
    '(define (f n) (if (= n 0) 0 (+ 1 (call/cc (lambda (k) (f (- n 1)))))))\n(f 30000)',
    '(define (f n) (if (= n 0) 0 (+ 1 (guard (e (#t 0)) (f (- n 1))))))\n(f 30000)',
    '(define (f n) (if (= n 0) 0 (+ 1 (dynamic-wind (lambda () 0) (lambda () (f (- n 1))) (lambda () 0)))))\n(f 30000)',
    // Bodies far heavier than the JS frame budget allows many of, with re-entries on top.
    `(define (g n) (if (= n 0) 0 ${nest(200, '(g (- n 1))')}))\n(define (f n) (if (= n 0) 0 (car (map (lambda (x) (+ x (g 30) (f (- n 1)))) (list 1)))))\n(f 199)`,
    `(define (g n) (if (= n 0) 0 ${nest(500, '(g (- n 1))')}))\n(g 5000)`,
  ];
  for (const source of sources) {
    const o = assertParity(source);
    assert.notEqual(o.status, 'infrastructure-error', source);
  }
});

test('compiled bodies and the machine agree on the benchmark programs', { timeout: 120_000 }, () => {
  for (const p of PROGRAMS) {
    if (p.name === 'fib(30)') continue;
    const o = assertParity(p.source);
    assert.equal(o.values[0]?.printed, p.expected, p.name);
  }
});

test('compiled bodies and the machine agree on 3,000 generated programs', { timeout: 300_000 }, () => {
  for (let i = 0; i < 3000; i++) assertParity(new ProgramGenerator(20261130 + i).program());
});

test('a machine-transition limit on any transition of a run ends both the same way', { timeout: 300_000 }, () => {
  const base = profileById(DEFAULT_PROFILE_ID).limits;
  const sources = [
    "(define (f n) (if (< n 2) n (+ (f (- n 1)) (f (- n 2)))))\n(define (g x) (car x))\n(f 4)\n(g (cons 1 2))\n(g 'a)",
    '(define (f x y) (- (car x) y))\n(f (list 3) 1)\n(f (list 3) zz)',
    // Faults and non-primitive operators inside the batched (fused) paths.
    '(define (h x) (if (< x 2) (- x 1) (car x)))\n(h 1)\n(h 2.5)\n(set! < (lambda (a b) (> a b)))\n(h 5)\n(h 1.5)',
    "(define (h x) (if (null? x) 'e (cdr x)))\n(h '(1))\n(set! null? (lambda (v) (values 1 2)))\n(h '())",
    '(define (k) (letrec ((a (if (< 1 b) 1 2)) (b 3)) a))\n(k)',
    '(define (h x) (if (< x undefined-y) 1 2))\n(h 1)',
    '(define (h x) (- x undefined-y))\n(h 1)',
    "(define (h x) (+ x 'a))\n(h 1)",
    '(define (t) 5)\n(define (h) (+ (t) (undefined-thunk)))\n(h)',
    // The fused `(if (not (p a b)) ...)`: every way off its batch (operands p does not answer in
    // place, an unbound operand, `not` and `<` redefined, an uninitialized letrec operand).
    "(define (h x y) (if (not (< x y)) 'ge 'lt))\n(h 1 2)\n(h 2 1)\n(h 1.5 2)\n(h 'a 1)",
    '(define (h x) (if (not (= x undefined-z)) 1 2))\n(h 1)',
    '(define (h x) (if (not (< x 2)) (car x) x))\n(h 1)\n(set! not (lambda (v) v))\n(h 1)\n(h 3)',
    '(define (h x) (if (not (< x 2)) 1 2))\n(h 1)\n(set! < (lambda (a b) (values 1 2)))\n(h 1)',
    '(define (k) (letrec ((a (if (not (< 1 b)) 1 2)) (b 3)) a))\n(k)',
  ];
  for (const source of sources) {
    const full = assertParity(source);
    const total = full.resource_outcome.usage.machine_transitions;
    assert.ok(total > 10, `program too short to sweep: ${total}`);
    let exhausted = 0;
    for (let limit = 0; limit <= total; limit++) {
      const o = assertParity(source, { ...base, 'machine-transition-limit': limit });
      if (o.resource_outcome.limit === 'machine-transition') exhausted++;
    }
    assert.ok(exhausted > 0, 'the sweep never exhausted the meter');
  }
});
