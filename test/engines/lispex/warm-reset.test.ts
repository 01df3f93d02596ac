// The warm baseline of a reused worker: after any run, resetEngineTo brings the process-wide
// engine state (interned symbols, temporary numbering) back exactly, and a run after the reset
// sees nothing of the run before it — on both routes, across many runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineState, resetEngineTo } from '../../../engines/lispex/baseline.js';
import { LispexEvaluator } from '../../../engines/lispex/index.js';
import { Sym } from '../../../engines/lispex/values.js';

const evaluator = new LispexEvaluator();
// Warm both routes first, as the worker does, so the baseline includes what warming interns.
for (const route of ['tree', 'vm'] as const) evaluator.run("(define (f x) (or x 'w)) (f #f)", { route });

const POLLUTER = (i: number): string => `
(define leaked-${i} (vector 1 2 3))
(vector-set! leaked-${i} 0 'mutated)
(set! car (lambda (p) 'hijacked))
(define s (string->symbol "interned-by-run-${i}"))
(define (g x) (case x ((a) 1) (else (or #f x))))
(display (list s (g 'b) 'quoted-symbol-${i}))
s`;

for (const route of ['tree', 'vm'] as const) {
  test(`${route}: a reset after each of many polluting runs restores the baseline exactly`, () => {
    const baseline = engineState();
    for (let i = 0; i < 50; i++) {
      const polluted = evaluator.run(POLLUTER(i), { route });
      assert.equal(polluted.status, 'ok', polluted.diagnostics[0]?.rendered);
      assert.ok(engineState().symbols > baseline.symbols, 'the run interned new symbols');
      resetEngineTo(baseline);
      assert.deepEqual(engineState(), baseline);
      // Nothing of the polluting run is observable by the next one.
      const probe = evaluator.run(`(list (car '(1 2)) (symbol->string 'fresh))`, { route });
      assert.equal(probe.values[0]?.printed, '(1 "fresh")');
      const unbound = evaluator.run(`leaked-${i}`, { route });
      assert.equal(unbound.status, 'runtime-error');
      assert.equal(unbound.diagnostics[0]?.code, 'E300');
      resetEngineTo(baseline);
    }
    assert.deepEqual(engineState(), baseline);
  });
}

test('after a reset, a symbol of the forgotten run is interned afresh and stays eq? to itself', () => {
  const baseline = engineState();
  evaluator.run('(string->symbol "transient-name")', { route: 'vm' });
  resetEngineTo(baseline);
  const again = Sym.of('transient-name');
  assert.equal(Sym.of('transient-name'), again);
  assert.equal(engineState().symbols, baseline.symbols + 1);
  resetEngineTo(baseline);
});

test('temporary numbering restarts, so the same program normalizes identically after a reset', () => {
  const baseline = engineState();
  const source = "(define (h x) (or x (cond ((assv x '((1 . 2))) => cdr) (else 0)))) (h #f)";
  const first = evaluator.run(source, { route: 'tree' });
  const afterFirst = engineState();
  resetEngineTo(baseline);
  const second = evaluator.run(source, { route: 'tree' });
  assert.deepEqual(engineState(), afterFirst);
  assert.deepEqual(second.values, first.values);
  resetEngineTo(baseline);
});
