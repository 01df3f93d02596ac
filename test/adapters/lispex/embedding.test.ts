// What an embedder imports from the engine's public entry (engines/lispex/index.ts, the package
// subpath mcp-engines/engines/lispex): the evaluator, the worker host and its outcome types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as lispex from '../../../engines/lispex/index.js';
import type { HostOutcome, LispexHostOptions } from '../../../engines/lispex/index.js';

test('the engine entry exports the worker host, and it evaluates in a real worker', { timeout: 60_000 }, async () => {
  assert.equal(typeof lispex.LispexHost, 'function');
  assert.equal(lispex.DEFAULT_WALL_CLOCK_MS, 5_000);
  const options: LispexHostOptions = { warmWorkers: 1, maxConcurrent: 1 };
  const host = new lispex.LispexHost(options);
  try {
    const outcome: HostOutcome = await host.evaluate({ source: '(display "hi") (* 6 7)', route: 'tree' });
    assert.ok(outcome.kind === 'completed');
    assert.equal(outcome.observation.stdout, 'hi');
    assert.equal(outcome.observation.values[0]?.printed, '42');
  } finally {
    await host.close();
  }
});

test('the engine entry exports the in-process evaluator and the baseline API', () => {
  const o = new lispex.LispexEvaluator().run('(+ 1 2)', { route: 'vm' });
  assert.equal(o.values[0]?.printed, '3');
  assert.equal(typeof lispex.engineState().symbols, 'number');
});
