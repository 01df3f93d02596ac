// Memory checkpoints end to end through MCP: the real service process (`ultimate-tool serve` with a
// virtual Ultimate 64 and `ultimate-tool virtual-vice`), the real adapter process
// (`ultimate-tool-mcp`) and the official MCP SDK client. A second adapter process is pointed at a
// loopback listener that counts requests, to show what the adapter refuses locally never leaves it.
import assert from 'node:assert/strict';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Database from 'better-sqlite3';
import { startUltimateStack, type UltimateStack } from '../../../../helpers/ultimate-stack.js';

let stack: UltimateStack;
let client: Client;
let counted: { client: Client; server: http.Server; requests: string[] };

type Envelope = {
  schema_version: number;
  operation: string;
  data?: Record<string, any>;
  error?: { code: string; layer: string; message: string; http_status?: number; details?: Record<string, unknown> };
};

async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<Envelope> {
  const r = await c.callTool({ name, arguments: args });
  const content = r.content as Array<Record<string, unknown>>;
  const envelope = (r.structuredContent ?? JSON.parse(String(content[0]?.text))) as Envelope;
  assert.equal(envelope.operation, name);
  return envelope;
}

async function ok(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const envelope = await call(client, name, args);
  assert.ok(envelope.data, `${name} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.data;
}

before(async () => {
  stack = await startUltimateStack('ultimate-checkpoints-e2e');
  client = stack.client;
  // The counting listener answers like an empty service, so an accepted request is visible too.
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    const body = JSON.stringify({ api_schema_version: 13, checkpoint_comparison_record_schema_version: 1, checkpoint_comparisons: [] });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  counted = { client: await stack.adapter(`http://127.0.0.1:${port}`), server, requests };
});

after(async () => {
  await new Promise((r) => counted?.server.close(r));
  await stack?.close();
});

async function finishedJob(jobId: string): Promise<Record<string, any>> {
  for (;;) {
    const { job } = await ok('get_job', { job_id: jobId });
    if (job.state !== 'queued' && job.state !== 'running') return job;
    await new Promise((r) => setTimeout(r, 100)); // polling, as the contract tells clients to
  }
}

async function matrixJob(testName: string, probeId?: string): Promise<Record<string, any>> {
  const probe = probeId ?? (await ok('probe_ultimate')).probe.probe_id;
  const { job } = await ok('start_test_job', {
    test: testName,
    targets: ['vice', 'ultimate'],
    compare_checkpoints: true,
    probe_id: probe,
    confirmed_reset_count: 1,
    confirmed_reu_write_count: 0,
  });
  const done = await finishedJob(job.job_id);
  assert.equal(done.state, 'finished', JSON.stringify(done.error));
  return done;
}

let matched: Record<string, any>;
let diverged: Record<string, any>;

test('start_test_job(compare_checkpoints): the service checks the test before consuming the probe; the same probe then runs the matched matrix', {
  timeout: 240_000,
}, async () => {
  const { probe } = await ok('probe_ultimate');
  const refused = await call(client, 'start_test_job', {
    test: 'sum-passes',
    targets: ['vice', 'ultimate'],
    compare_checkpoints: true,
    probe_id: probe.probe_id,
    confirmed_reset_count: 1,
    confirmed_reu_write_count: 0,
  });
  assert.equal(refused.error?.code, 'invalid-request');
  assert.equal(refused.error?.http_status, 400);
  assert.match(refused.error?.message ?? '', /memory_checkpoint_capture = true/);
  matched = await matrixJob('checkpoint-probe', probe.probe_id);
  assert.match(matched.checkpoint_comparison_id, /^[0-9a-f-]{36}$/);
  const data = await ok('get_checkpoint_comparison', { comparison_id: matched.checkpoint_comparison_id });
  assert.equal(data.checkpoint_comparison_record_schema_version, 1);
  assert.equal(data.checkpoint_comparison.result, 'matched');
  assert.equal(data.checkpoint_comparison.comparison.checkpoint_comparison_schema_version, 1);
  assert.deepEqual([data.checkpoint_comparison.baseline.run_id, data.checkpoint_comparison.candidate.run_id], matched.run_ids);
});

test('the planted divergence: checkpoint-skew is diverged at exactly $C120 (VICE 00, Ultimate 01)', { timeout: 240_000 }, async () => {
  diverged = await matrixJob('checkpoint-skew');
  const { checkpoint_comparison: rec } = await ok('get_checkpoint_comparison', { comparison_id: diverged.checkpoint_comparison_id });
  assert.equal(rec.result, 'diverged');
  assert.equal(rec.first_divergence, 'summed');
  const summed = rec.comparison.points.find((p: { name: string }) => p.name === 'summed');
  const differing = summed.ranges.filter((r: { matched: boolean }) => !r.matched);
  assert.deepEqual(
    differing.map((r: { name: string; differences: unknown }) => [r.name, r.differences]),
    [['after-marker', [{ from: 0xc120, to: 0xc120, from_hex: '$C120', to_hex: '$C120', baseline_hex: '00', candidate_hex: '01' }]]],
  );
});

test('compare_run_checkpoints: matched, diverged, incompatible and unavailable are successful results and store nothing', {
  timeout: 120_000,
}, async () => {
  const listed = async () => (await ok('list_checkpoint_comparisons')).checkpoint_comparisons.length;
  const before = await listed();
  const cmp = (b: string, c: string) => ok('compare_run_checkpoints', { baseline_run_id: b, candidate_run_id: c });
  const m = await cmp(matched.run_ids[0], matched.run_ids[1]);
  assert.equal(m.checkpoint_comparison_schema_version, 1);
  assert.equal(m.provisional, true);
  assert.equal(m.result, 'matched');
  assert.equal((await cmp(diverged.run_ids[0], diverged.run_ids[1])).result, 'diverged');
  assert.equal((await cmp(matched.run_ids[0], diverged.run_ids[1])).result, 'incompatible');
  const { job } = await ok('start_test_job', { test: 'sum-passes', targets: ['vice'] });
  const plain = await finishedJob(job.job_id);
  assert.equal((await cmp(matched.run_ids[1], plain.run_ids[0])).result, 'unavailable');
  assert.equal(await listed(), before);
});

test('list_checkpoint_comparisons: newest first; limit 0 and 201 refused by the adapter with no request sent', async () => {
  const { checkpoint_comparisons: all } = await ok('list_checkpoint_comparisons', { limit: 200 });
  assert.deepEqual(
    all.map((c: { comparison_id: string }) => c.comparison_id),
    [diverged.checkpoint_comparison_id, matched.checkpoint_comparison_id],
  );
  const { checkpoint_comparisons: one } = await ok('list_checkpoint_comparisons', { limit: 1 });
  assert.equal(one[0].comparison_id, diverged.checkpoint_comparison_id);

  for (const limit of [0, 201]) {
    const e = await call(counted.client, 'list_checkpoint_comparisons', { limit });
    assert.equal(e.error?.code, 'invalid_arguments', JSON.stringify(e));
  }
  const badMatrix = [
    { test: 'checkpoint-probe', targets: ['ultimate', 'vice'], compare_checkpoints: true },
    { test: 'checkpoint-probe', targets: ['vice', 'ultimate'], repeat: 2, compare_checkpoints: true },
    { test: 'checkpoint-probe', targets: ['vice'], compare_checkpoints: 'yes' },
  ];
  for (const args of badMatrix) assert.equal((await call(counted.client, 'start_test_job', args)).error?.code, 'invalid_arguments');
  assert.deepEqual(counted.requests, [], 'nothing reached the listener');
  // The same adapter does send a valid call: the listener would have seen the refused ones.
  assert.ok((await call(counted.client, 'list_checkpoint_comparisons', { limit: 200 })).data);
  assert.deepEqual(counted.requests, ['GET /v13/checkpoint-comparisons?limit=200']);
});

test('checkpoint_comparison_failed through MCP: an unknown pair and a corrupt stored pair', async () => {
  const unknown = await call(client, 'get_checkpoint_comparison', { comparison_id: '123e4567-e89b-42d3-a456-426614174000' });
  assert.equal(unknown.error?.code, 'checkpoint_comparison_failed');
  assert.equal(unknown.error?.http_status, 422); // one status per code (api/errors.ts)
  const db = new Database(join(stack.store, 'service.sqlite3'));
  try {
    db.exec('DROP TRIGGER checkpoint_comparisons_immutable_update');
    db.prepare('UPDATE checkpoint_comparisons SET record = ? WHERE comparison_id = ?').run('{"truncated', matched.checkpoint_comparison_id);
  } finally {
    db.close();
  }
  const corrupt = await call(client, 'get_checkpoint_comparison', { comparison_id: matched.checkpoint_comparison_id });
  assert.equal(corrupt.error?.code, 'checkpoint_comparison_failed');
  assert.equal(corrupt.error?.http_status, 422);
  assert.match(corrupt.error?.message ?? '', /not JSON/);
  assert.equal(
    (await ok('get_checkpoint_comparison', { comparison_id: diverged.checkpoint_comparison_id })).checkpoint_comparison.result,
    'diverged',
  );
});
