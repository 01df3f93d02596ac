// Warm worker reuse with the real engine in the real worker: many calls on few workers, each
// starting from the warm baseline — definitions, mutations and interned symbols of one call are
// invisible to the next, on both routes; a terminated worker is replaced, the others are kept.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { LispexHost } from '../../../engines/lispex/host/index.js';
import type { HostOutcome } from '../../../engines/lispex/host/index.js';
import type { Observation } from '../../../engines/lispex/index.js';

function observed(outcome: HostOutcome): Observation {
  assert.ok(outcome.kind === 'completed', `expected completed, got ${outcome.kind}`);
  return outcome.observation;
}

describe('warm workers (real engine)', { timeout: 120_000 }, () => {
  const host = new LispexHost({ warmWorkers: 1, maxConcurrent: 2, wallClockMs: 30_000 });
  after(() => host.close());

  test('nothing defined, mutated or interned in one call is visible in the next (both routes, many calls)', async () => {
    observed(await host.evaluate({ source: '1', route: 'tree' }));
    const started = host.workersStarted;
    for (let i = 0; i < 40; i++) {
      const route = i % 2 === 0 ? 'tree' : 'vm';
      const polluter = observed(
        await host.evaluate({
          route,
          source: `(define leaked ${i}) (set! car cdr) (define v (vector 0)) (vector-set! v 0 'x${i})
                   (display (string->symbol "interned-${i}")) (car '(1 2))`,
        }),
      );
      assert.equal(polluter.values[0]?.printed, '(2)');
      const probe = observed(await host.evaluate({ route, source: "(list (car '(1 2)) (symbol->string 'x))" }));
      assert.equal(probe.status, 'ok');
      assert.equal(probe.values[0]?.printed, '(1 "x")');
      assert.equal(probe.stdout, '');
      assert.equal(probe.resource_outcome.usage.output_bytes, 0);
      const unbound = observed(await host.evaluate({ route, source: 'leaked' }));
      assert.equal(unbound.diagnostics[0]?.code, 'E300');
    }
    assert.equal(host.workersStarted, started, 'no worker was replaced: every call reused a warm one');
  });

  test('the meter starts at zero on a reused worker', async () => {
    const heavy = observed(await host.evaluate({ route: 'vm', source: '(let loop ((i 0)) (if (< i 10000) (loop (+ i 1)) i))' }));
    const light = observed(await host.evaluate({ route: 'vm', source: '(+ 1 2)' }));
    assert.ok(heavy.resource_outcome.usage.machine_transitions > 10_000);
    assert.ok(light.resource_outcome.usage.machine_transitions < 100);
  });

  test('only a terminated worker is replaced; the next call answers from a fresh baseline', async () => {
    const before = host.workersStarted;
    const stopped = await host.evaluate({ route: 'tree', source: '(define x 5) (let loop () (loop))' }, { wallClockMs: 200 });
    assert.equal(stopped.kind, 'wall-clock-exceeded');
    const after = observed(await host.evaluate({ route: 'tree', source: 'x' }));
    assert.equal(after.diagnostics[0]?.code, 'E300');
    assert.ok(host.workersStarted > before);
  });

  test('200 concurrent calls are all answered, on a bounded number of workers', async () => {
    const before = host.workersStarted;
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => host.evaluate({ route: 'tree', source: '(+ 1 2)' })));
    for (const o of outcomes) assert.equal(observed(o).values[0]?.printed, '3');
    // At most maxConcurrent (2) busy plus warmWorkers (1) spare are ever alive.
    assert.ok(host.workersStarted - before <= 3, `started ${host.workersStarted - before} workers for the burst`);
    assert.ok(host.workersAlive <= 3, `${host.workersAlive} workers alive after the burst`);
  });
});
