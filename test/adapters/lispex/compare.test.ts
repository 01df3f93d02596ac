// lispex_compare_routes through the official SDK client (in memory): the tree-rust court on the
// real engine, mismatch reporting and member failures with a scripted host, and the courts whose
// startup products are missing or external.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LispexHost } from '../../../engines/lispex/host/index.js';
import type { EvaluateOptions, EvaluationJob, HostOutcome } from '../../../engines/lispex/host/index.js';
import type { Observation } from '../../../engines/lispex/observation.js';
import { ComparisonResultSchema, type EvaluationHost } from '../../../adapters/lispex/index.js';
import { CountingHost, connectInMemory, payload } from './helpers.js';
import { observation } from './fixtures/observations.js';

/** A product stub that answers the startup version handshake. */
const HANDSHAKE_STUB = `#!/bin/sh\necho '{"protocol":"lispex.external-backend-protocol/v1","product":"stub","version":"0"}'\n`;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A host that answers from a script, in process; 'hang' waits until the job is aborted. */
class ScriptedHost implements EvaluationHost {
  readonly aborted: string[] = [];
  readonly started: string[] = [];
  constructor(private readonly script: (job: EvaluationJob) => Observation | 'hang' | HostOutcome) {}
  evaluate(job: EvaluationJob, options: EvaluateOptions = {}): Promise<HostOutcome> {
    this.started.push(job.route);
    const answer = this.script(job);
    if (answer === 'hang') {
      return new Promise((resolve) => {
        options.signal?.addEventListener('abort', () => {
          this.aborted.push(job.route);
          resolve({ kind: 'cancelled', hostMs: 1 });
        });
      });
    }
    if ('kind' in answer) return Promise.resolve(answer);
    return Promise.resolve({ kind: 'completed', observation: answer, hostMs: 1 });
  }
}

describe('lispex_compare_routes: court tree-rust on the real engine', () => {
  let realHost: LispexHost;
  let client: Client;
  let close: () => Promise<void>;
  before(async () => {
    realHost = new LispexHost({ warmWorkers: 2 });
    ({ client, close } = await connectInMemory(realHost));
  });
  after(async () => {
    await close();
    await realHost.close();
  });

  const programs: Array<[string, string, string | undefined, string]> = [
    ['a value', '(define (fact n) (if (= n 0) 1 (* n (fact (- n 1))))) (fact 30)', undefined, 'ok'],
    ['output and warnings', '(display "x") (newline) (% 9 4) (list-rest (list 1 2))', undefined, 'ok'],
    ['input', '(map (lambda (x) (* x x)) input)', '(1 2 3)', 'ok'],
    ['a runtime error', '(display "kept") (vector-ref (vector 1 2) 5)', undefined, 'runtime-error'],
    ['a reader error', '(1 . )', undefined, 'source-error'],
    ['a recursion-limit', '(define (f n) (+ 1 (f n))) (f 1)', undefined, 'resource'],
    ['a resource exhaustion', '(define s (make-string 50000 #\\a)) (let loop () (display s) (loop))', undefined, 'resource'],
  ];
  for (const [title, source, input, status] of programs) {
    test(`${title}: both members observed, agreement on every axis`, async () => {
      const r = await client.callTool({
        name: 'lispex_compare_routes',
        arguments: { court: 'tree-rust', source, ...(input !== undefined ? { input } : {}) },
      });
      assert.equal(r.isError, false, JSON.stringify(payload(r)).slice(0, 500));
      const result = payload(r);
      assert.deepEqual(r.structuredContent, result);
      assert.ok(ComparisonResultSchema.safeParse(result).success);
      assert.equal(result.schema, 'lispex.mcp-route-comparison-result/v1');
      assert.equal(result.court_available, true);
      assert.deepEqual(result.attempted_routes, ['tree', 'rust-vm']);
      assert.deepEqual(
        result.observations.map((o: any) => [o.member, o.engine.role, o.engine.route]),
        [
          ['tree', 'rust-tree', 'tree'],
          ['rust-vm', 'rust-vm', 'vm'],
        ],
      );
      for (const o of result.observations) {
        assert.equal(o.status, status);
        assert.equal(o.identity.source_sha256, sha256(source));
      }
      assert.equal(result.request.source_sha256, sha256(source));
      assert.equal(result.request.input_sha256, input === undefined ? null : sha256(input));
      assert.deepEqual(result.mismatch_axes, []);
      assert.equal(result.axes.length, 7);
      assert.equal(result.agreement, true);
      assert.equal(result.answer_selected, false);
      assert.equal(result.partial_comparison, false);
      assert.equal(result.semantic_equivalence_proved, false);
      assert.deepEqual(result.cleanup, { workspace_created: false, workers_terminated: 2, processes_started: 0, complete: true });
      assert.match(result.members[1].implementation, /bytecode VM/);
    });
  }
});

describe('lispex_compare_routes: mismatches and member failures (scripted host)', () => {
  const connect = (host: EvaluationHost) => connectInMemory(host);
  const compare = (client: Client) =>
    client.callTool({ name: 'lispex_compare_routes', arguments: { court: 'tree-rust', source: 'anything' } });

  test('a completed mismatch: agreement false with exactly the differing axes', async () => {
    const host = new ScriptedHost((job) => (job.route === 'tree' ? observation('tree', 'same', 1) : observation('vm', 'different', 2)));
    const { client, close } = await connect(host);
    try {
      const r = await compare(client);
      assert.equal(r.isError, false);
      const result = payload(r);
      assert.equal(result.agreement, false);
      assert.deepEqual(result.mismatch_axes, ['stdout-bytes', 'value-projection']);
      assert.equal(result.answer_selected, false);
      assert.equal(result.partial_comparison, false);
      assert.equal(result.observations.length, 2);
    } finally {
      await close();
    }
  });

  test('usage counters and metrics are not compared; the resource limit is', async () => {
    const usageOnly = new ScriptedHost((job) => {
      const o = observation(job.route, 'out', 1);
      return job.route === 'tree'
        ? o
        : {
            ...o,
            resource_outcome: { ...o.resource_outcome, usage: { ...o.resource_outcome.usage, machine_transitions: 999 } },
            metrics: { ...o.metrics, max_call_depth: 7 },
          };
    });
    let { client, close } = await connect(usageOnly);
    try {
      assert.equal(payload(await compare(client)).agreement, true);
    } finally {
      await close();
    }
    const limitDiffers = new ScriptedHost((job) => {
      const o = observation(job.route, 'out', 1);
      return job.route === 'tree'
        ? o
        : { ...o, resource_outcome: { ...o.resource_outcome, status: 'limit-exceeded', limit: 'machine-transition' } };
    });
    ({ client, close } = await connect(limitDiffers));
    try {
      assert.deepEqual(payload(await compare(client)).mismatch_axes, ['resource-outcome']);
    } finally {
      await close();
    }
  });

  test('a member that runs out of wall clock: no comparison, and the other member is stopped', async () => {
    const host = new ScriptedHost((job) => (job.route === 'tree' ? { kind: 'wall-clock-exceeded', limitMs: 5000, hostMs: 5000 } : 'hang'));
    const { client, close } = await connect(host);
    try {
      const r = await compare(client);
      assert.equal(r.isError, true);
      const p = payload(r);
      assert.equal(p.failure, 'wall-clock-exceeded');
      assert.equal(p.agreement, null);
      assert.equal(p.answer_selected, false);
      assert.equal(p.partial_comparison, false);
      assert.deepEqual(p.members, [
        { member: 'tree', outcome: 'wall-clock-exceeded' },
        { member: 'rust-vm', outcome: 'cancelled' },
      ]);
      assert.deepEqual(host.aborted, ['vm']);
    } finally {
      await close();
    }
  });

  test('the comparison wall clock stops both members; each member has the 5,000 ms evaluation clock', async () => {
    const hanging = new ScriptedHost(() => 'hang');
    const counting = new CountingHost(hanging);
    const { client, close } = await connectInMemory(counting, {}, 300);
    try {
      const r = await compare(client);
      assert.equal(r.isError, true);
      const p = payload(r);
      assert.equal(p.failure, 'comparison-wall-clock-exceeded');
      assert.equal(p.limit_ms, 300);
      assert.equal(p.agreement, null);
      assert.equal(p.partial_comparison, false);
      assert.deepEqual([...hanging.aborted].sort(), ['tree', 'vm']);
      assert.deepEqual(
        counting.options.map((o) => o?.wallClockMs),
        [5_000, 5_000],
      );
    } finally {
      await close();
    }
  });

  test('cancelling the call stops both members', async () => {
    const host = new ScriptedHost(() => 'hang');
    const { client, close } = await connect(host);
    try {
      const controller = new AbortController();
      const pending = client.callTool({ name: 'lispex_compare_routes', arguments: { court: 'tree-rust', source: 'x' } }, undefined, {
        signal: controller.signal,
      });
      // Wait until both members are running (the host has been asked twice), then cancel.
      await waitFor(() => host.started.length === 2);
      controller.abort();
      await assert.rejects(pending);
      await waitFor(() => host.aborted.length === 2);
      assert.deepEqual([...host.aborted].sort(), ['tree', 'vm']);
    } finally {
      await close();
    }
  });
});

describe('the 4 MiB comparison result bound (real engine)', () => {
  test('a comparison whose result would exceed 4 MiB is refused, not truncated', async () => {
    const realHost = new LispexHost({ warmWorkers: 2 });
    const { client, close } = await connectInMemory(realHost);
    try {
      // About 2.8 MB of values per route: each observation crosses, the two together do not fit.
      const r = await client.callTool({
        name: 'lispex_compare_routes',
        arguments: { court: 'tree-rust', source: '(make-list 12000 (make-string 100 #\\a))' },
      });
      assert.equal(r.isError, true);
      const p = payload(r);
      assert.equal(p.bound, 'comparison-result');
      assert.equal(p.limit, 4_194_304);
      assert.ok(p.actual > 4_194_304);
      assert.equal(p.agreement, true);
    } finally {
      await close();
      await realHost.close();
    }
  });
});

describe('courts with startup prerequisites', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lispex-products-'));
    for (const name of ['topaz-vm', 'topaz-compiler', 'rust-tools']) {
      await writeFile(join(dir, name), HANDSHAKE_STUB);
      await chmod(join(dir, name), 0o755);
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const noWork = new ScriptedHost(() => {
    throw new Error('a court without its products must not evaluate anything');
  });

  test('without products: court_available false, nothing attempted', async () => {
    const counting = new CountingHost(noWork);
    const { client, close } = await connectInMemory(counting);
    try {
      for (const [court, missing] of [
        ['rust-topaz', ['--topaz-vm']],
        ['all-four', ['--topaz-vm', '--topaz-compiler', '--rust-tools']],
      ] as const) {
        const r = await client.callTool({ name: 'lispex_compare_routes', arguments: { court, source: '(+ 1 2)' } });
        assert.equal(r.isError, false);
        const result = payload(r);
        assert.ok(ComparisonResultSchema.safeParse(result).success);
        assert.equal(result.court, court);
        assert.equal(result.court_available, false);
        assert.equal(result.unavailable_reason.code, 'missing-startup-product');
        assert.deepEqual(result.unavailable_reason.missing_startup_options, missing);
        assert.deepEqual(result.attempted_routes, []);
        assert.deepEqual(result.observations, []);
        assert.equal(result.agreement, null);
        assert.equal(result.answer_selected, false);
        assert.equal(result.partial_comparison, false);
        assert.equal(result.request.source_sha256, sha256('(+ 1 2)'));
      }
      assert.equal(counting.jobs.length, 0);
    } finally {
      await close();
    }
  });

  // With products given, the courts run their members: test/engines/lispex/external/ drives them with
  // the real Topaz VM and fresh AOT products and with misbehaving stand-ins.
});

async function waitFor(condition: () => boolean, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not reached before the deadline');
    await new Promise((r) => setTimeout(r, 5));
  }
}
