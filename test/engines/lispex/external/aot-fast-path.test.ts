// The fresh AOT fast path (products/topaz-aot/src/fast.rs): procedures over fixnums compiled to
// plain Rust must leave exactly the machine's account. Each program runs as a fresh AOT product
// and on the Topaz VM (the same runtime without the fast path) and on the built-in VM: the court
// axes agree, and the AOT product's machine-transition count and call-depth high-water mark equal
// the Topaz VM's — on completed runs and on every way the fast path gives up and rolls back to
// the machine (bignum overflow, a non-fixnum argument, an unbound global, the transition meter,
// the call depth limit, long mutual tail recursion).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFreshAotMember } from '../../../../engines/lispex/external/aot-route.js';
import { buildExternalRequest } from '../../../../engines/lispex/external/derivation.js';
import { PRODUCTS_DIR, builtinObservation, mismatchAxes, requireTopaz, topazObservation } from './harness.js';

const compiler = join(PRODUCTS_DIR, 'topaz-compiler');
const rustc = () => readFileSync(join(PRODUCTS_DIR, 'topaz-runtime', 'RUSTC'), 'utf8').trim();

const FIB = '(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))';
const DEPTH = '(define (d n) (if (= n 0) 0 (+ 1 (d (- n 1)))))';
const MUTUAL = '(define (a n acc) (if (= n 0) acc (b (- n 1) (+ acc 1)))) (define (b n acc) (if (= n 0) acc (a (- n 1) (+ acc 2))))';

const PROGRAMS: [string, string, string][] = [
  ['fib', `${FIB} (display (fib 20)) (fib 24)`, 'ok'],
  ['tak', '(define (tak x y z) (if (not (< y x)) z (tak (tak (- x 1) y z) (tak (- y 1) z x) (tak (- z 1) x y)))) (tak 18 12 6)', 'ok'],
  ['overflow into bignums', '(define (f n) (if (= n 0) 1 (* n (f (- n 1))))) (list (f 20) (f 30))', 'ok'],
  ['flonum argument', `${FIB} (fib 10.5)`, 'ok'],
  ['symbol argument: fault in the callee', `${FIB} (fib 'a)`, 'runtime-error'],
  [
    'unbound global called',
    "(define (h n) (+ 1 (g n))) (define r (guard (e (#t 'unbound)) (h 1))) (define (g n) (* n 2)) (list r (h 5))",
    'ok',
  ],
  ['machine-transition limit inside the fast path', `${FIB} (fib 40)`, 'resource'],
  ['call depth just below the limit', `${DEPTH} (d 99990)`, 'ok'],
  ['call depth limit', `${DEPTH} (d 100010)`, 'resource'],
  ['self tail loop', '(define (loop n acc) (if (= n 0) acc (loop (- n 1) (+ acc n)))) (loop 1000000 0)', 'ok'],
  ['short mutual tail recursion', `${MUTUAL} (a 1000 0)`, 'ok'],
  ['long mutual tail recursion', `${MUTUAL} (a 300000 0)`, 'ok'],
  ['endless self tail loop: the meter reached inside the fast path', '(define (spin n) (spin (+ n 1))) (spin 0)', 'resource'],
  [
    'a procedure defined twice stays on the machine',
    '(define (g n) 1) (define (h n) (+ (g n) 1)) (define a (h 0)) (define (g n) 2) (list a (h 0))',
    'ok',
  ],
  [
    'a procedure assigned later stays on the machine',
    '(define (g n) (+ n 1)) (define (h n) (g n)) (define a (h 5)) (set! g (lambda (n) (* n 10))) (list a (h 5))',
    'ok',
  ],
  [
    'fast calls inside a slow procedure',
    `${FIB} (define (sum l) (if (null? l) 0 (+ (fib (car l)) (sum (cdr l))))) (sum '(1 2 3 20 5))`,
    'ok',
  ],
];

describe('fresh AOT fast path: same observations and the same account as the machine', { timeout: 300_000 }, () => {
  test('fib compiles to a fast path (the case the benchmark measures)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lispex-aot-fast-test-'));
    try {
      const request = buildExternalRequest(`${FIB} (fib 20)`, undefined, 'source');
      const r = spawnSync(compiler, ['--compile', dir, '--rustc', rustc()], { input: JSON.stringify(request), env: {}, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const main = readFileSync(join(dir, 'main.rs'), 'utf8');
      assert.match(main, /NativeEntry \{ index: 1, ins: &INS_1, f: c1, fast: Some\(e1\) \}/);
      assert.match(main, /NativeEntry \{ index: 0, ins: &INS_0, f: c0, fast: None \}/, 'a top-level form has no fast path');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const [name, source, status] of PROGRAMS) {
    test(name, async () => {
      requireTopaz();
      const request = buildExternalRequest(source, undefined, 'source');
      const aot = await runFreshAotMember({ compiler, rustc: rustc(), request, wallClockMs: 60_000, maxOutputBytes: 8 << 20 });
      if (aot.outcome.kind !== 'completed') throw new Error(aot.outcome.message);
      const a = aot.outcome.observation;
      const t = await topazObservation(source);
      const vm = builtinObservation(source, 'vm');
      assert.equal(a.status, status, JSON.stringify(a.diagnostics));
      assert.deepEqual(
        mismatchAxes(vm, a),
        [],
        `built-in VM vs fresh AOT: ${JSON.stringify([vm.values, a.values, vm.diagnostics, a.diagnostics])}`,
      );
      assert.deepEqual(mismatchAxes(t, a), []);
      assert.equal(a.resource_outcome.usage.machine_transitions, t.resource_outcome.usage.machine_transitions, 'machine transitions');
      assert.equal(a.metrics.max_call_depth, t.metrics.max_call_depth, 'call depth high-water mark');
    });
  }
});
