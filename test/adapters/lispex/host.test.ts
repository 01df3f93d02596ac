// LispexHost: worker threads with a wall clock, cancellation, memory bounds and transfer bounds.
// Uses a scripted worker (fixtures/scripted-worker.ts) so every failure mode is reachable.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LispexHost, evaluateInWorker, locateWorkerScript } from '../../../engines/lispex/host/index.js';

const script = { url: new URL('./fixtures/scripted-worker.ts', import.meta.url), typescript: true };

describe('LispexHost', () => {
  const host = new LispexHost({ script, warmWorkers: 2, wallClockMs: 1_500 });
  after(() => host.close());

  test('a job completes with the observation', async () => {
    const outcome = await host.evaluate({ source: 'hello', route: 'vm', input: '(1 2)' });
    assert.equal(outcome.kind, 'completed');
    assert.ok(outcome.kind === 'completed');
    assert.equal(outcome.observation.stdout, 'vm:(1 2)');
    assert.deepEqual(outcome.observation.values[0]?.value, { kind: 'integer', value: '5' });
  });

  test('a worker that answered is reused: back-to-back jobs start no new worker', async () => {
    await host.evaluate({ source: 'a', route: 'tree' });
    const before = host.workersStarted;
    for (let i = 0; i < 20; i++) assert.equal((await host.evaluate({ source: `job${i}`, route: 'tree' })).kind, 'completed');
    assert.equal(host.workersStarted, before);
  });

  test('a worker whose reset failed is replaced, never reused', async () => {
    await host.evaluate({ source: 'a', route: 'tree' });
    const before = host.workersStarted;
    const outcome = await host.evaluate({ source: 'poison-reset', route: 'tree' });
    assert.equal(outcome.kind, 'completed');
    // The next job must run on another worker: the poisoned one answers `poisoned` forever.
    const next = await host.evaluate({ source: 'who', route: 'tree' });
    assert.ok(next.kind === 'completed');
    assert.notEqual(next.observation.stdout, 'poisoned');
    assert.ok(host.workersStarted > before);
  });

  test('time spent waiting for a concurrency slot counts against the wall clock', async () => {
    const narrow = new LispexHost({ script, warmWorkers: 1, maxConcurrent: 1, wallClockMs: 60_000 });
    try {
      const controller = new AbortController();
      const spinning = narrow.evaluate({ source: 'spin', route: 'tree' }, { signal: controller.signal });
      // Queued behind the spinning job, it never reaches a worker: its own clock runs out first.
      const queued = await narrow.evaluate({ source: 'ok', route: 'tree' }, { wallClockMs: 300 });
      assert.ok(queued.kind === 'wall-clock-exceeded');
      assert.equal(queued.limitMs, 300);
      controller.abort();
      assert.equal((await spinning).kind, 'cancelled');
      // The queue is empty again and the host keeps serving.
      assert.equal((await narrow.evaluate({ source: 'after', route: 'tree' })).kind, 'completed');
    } finally {
      await narrow.close();
    }
  });

  test('a plain JS infinite loop is stopped by the wall clock and the host keeps working', async () => {
    const outcome = await host.evaluate({ source: 'spin', route: 'tree' });
    assert.equal(outcome.kind, 'wall-clock-exceeded');
    assert.ok(outcome.kind === 'wall-clock-exceeded');
    assert.equal(outcome.limitMs, 1_500);
    const next = await host.evaluate({ source: 'ok', route: 'tree' });
    assert.equal(next.kind, 'completed');
  });

  test('one enormous bignum operation is stopped mid-operation', async () => {
    const outcome = await host.evaluate({ source: 'bignum', route: 'vm' }, { wallClockMs: 500 });
    assert.equal(outcome.kind, 'wall-clock-exceeded');
  });

  test('cancellation terminates a running job; other jobs run meanwhile', async () => {
    const controller = new AbortController();
    const spinning = host.evaluate({ source: 'spin', route: 'tree' }, { signal: controller.signal, wallClockMs: 60_000 });
    const other = await host.evaluate({ source: 'meanwhile', route: 'tree' });
    assert.equal(other.kind, 'completed');
    controller.abort();
    assert.equal((await spinning).kind, 'cancelled');
  });

  test('an already aborted signal never starts the job', async () => {
    const before = host.workersStarted;
    const outcome = await host.evaluate({ source: 'spin', route: 'tree' }, { signal: AbortSignal.abort() });
    assert.equal(outcome.kind, 'cancelled');
    assert.equal(host.workersStarted, before);
  });

  test('a worker that exhausts its memory bound is a worker failure, not a crash of the host', async () => {
    const small = new LispexHost({
      script,
      warmWorkers: 0,
      memory: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      wallClockMs: 60_000,
    });
    try {
      const outcome = await small.evaluate({ source: 'allocate', route: 'tree' });
      assert.equal(outcome.kind, 'worker-failure');
      assert.ok(outcome.kind === 'worker-failure');
      assert.equal(outcome.reason, 'out-of-memory');
      assert.equal((await small.evaluate({ source: 'fine', route: 'tree' })).kind, 'completed');
    } finally {
      await small.close();
    }
  });

  test('an engine that throws, or a worker that exits, is reported as a worker failure', async () => {
    const thrown = await host.evaluate({ source: 'throw', route: 'tree' });
    assert.ok(thrown.kind === 'worker-failure');
    assert.equal(thrown.reason, 'engine-threw');
    assert.match(thrown.message, /scripted engine defect/);
    const exited = await host.evaluate({ source: 'exit', route: 'tree' });
    assert.ok(exited.kind === 'worker-failure');
    assert.equal(exited.reason, 'exited');
  });

  test('transfer bounds: too many records or too many bytes are measured, not transferred', async () => {
    const bounds = { maxRecords: 256, maxObservationBytes: 1_000_000 };
    const atLimit = await host.evaluate({ source: 'warnings:256', route: 'tree' }, { bounds });
    assert.equal(atLimit.kind, 'completed');
    const records = await host.evaluate({ source: 'warnings:257', route: 'tree' }, { bounds });
    assert.ok(records.kind === 'over-bound');
    assert.deepEqual(
      { bound: records.excess.bound, actual: records.excess.actual, limit: records.excess.limit },
      { bound: 'diagnostics-and-warnings', actual: 257, limit: 256 },
    );
    const small = { maxRecords: 256, maxObservationBytes: 10_000 };
    assert.equal((await host.evaluate({ source: 'bytes:1000', route: 'tree' }, { bounds: small })).kind, 'completed');
    const bytes = await host.evaluate({ source: 'bytes:20000', route: 'tree' }, { bounds: small });
    assert.ok(bytes.kind === 'over-bound');
    assert.equal(bytes.excess.bound, 'observation-bytes');
    assert.ok(bytes.excess.actual > 10_000);
  });

  test('concurrency beyond the limit waits in arrival order', async () => {
    const narrow = new LispexHost({ script, warmWorkers: 1, maxConcurrent: 1, wallClockMs: 60_000 });
    try {
      const order: string[] = [];
      const jobs = ['one', 'two', 'three'].map((s) =>
        narrow.evaluate({ source: s, route: 'tree' }).then((o) => {
          order.push(s);
          return o.kind;
        }),
      );
      assert.deepEqual(await Promise.all(jobs), ['completed', 'completed', 'completed']);
      assert.deepEqual(order, ['one', 'two', 'three']);
    } finally {
      await narrow.close();
    }
  });

  test('close terminates every worker and later jobs answer host-closed', async () => {
    const temp = new LispexHost({ script, warmWorkers: 2 });
    assert.equal((await temp.evaluate({ source: 'x', route: 'tree' })).kind, 'completed');
    await temp.close();
    assert.equal(temp.workersAlive, 0);
    const outcome = await temp.evaluate({ source: 'x', route: 'tree' });
    assert.ok(outcome.kind === 'worker-failure');
    assert.equal(outcome.reason, 'host-closed');
  });

  test('a worker script that cannot load is a start failure', async () => {
    const broken = new LispexHost({
      script: { url: new URL('./fixtures/does-not-exist.ts', import.meta.url), typescript: true },
      warmWorkers: 0,
    });
    try {
      const outcome = await broken.evaluate({ source: 'x', route: 'tree' });
      assert.ok(outcome.kind === 'worker-failure');
      assert.equal(outcome.reason, 'start-failed');
    } finally {
      await broken.close();
    }
  });

  test('evaluateInWorker runs the real engine in the real worker, from source', async () => {
    const outcome = await evaluateInWorker({ source: '(display "w") (vector 1 2)', route: 'vm', sourceId: 'probe' });
    assert.ok(outcome.kind === 'completed');
    assert.equal(outcome.observation.stdout, 'w');
    assert.equal(outcome.observation.values[0]?.printed, '#(1 2)');
    assert.equal(outcome.observation.identity.route, 'vm');
  });

  test("a worker's stdout never reaches the host's stdout, and idle workers do not hold the process", async () => {
    const probe = fileURLToPath(new URL('./fixtures/stdout-probe.ts', import.meta.url));
    // A probe that failed to exit would be killed at the deadline and fail the exit-code check.
    const child = spawn(process.execPath, ['--import', 'tsx', probe], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    assert.equal(stdout, 'done completed\n');
    assert.match(stderr, /noise from the worker/);
  });

  test('the real worker script is found from source', () => {
    const found = locateWorkerScript();
    assert.equal(found.typescript, true);
    assert.match(found.url.pathname, /\/engines\/lispex\/worker\.ts$/);
  });
});
