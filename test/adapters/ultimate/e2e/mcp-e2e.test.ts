// The Ultimate Tool end to end, as a user runs it: the real service process (`ultimate-tool serve`
// with a virtual Ultimate 64 and `ultimate-tool virtual-vice` as the emulator), the real adapter
// process (`ultimate-tool-mcp`), and the official MCP SDK client on the adapter's stdio. The example
// project is built for real with acme in a clean copy by the service.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PNG } from 'pngjs';
import { startUltimateStack, type UltimateStack } from '../../../helpers/ultimate-stack.js';

let stack: UltimateStack;

type Envelope = {
  schema_version: number;
  operation: string;
  data?: Record<string, any>;
  error?: { code: string; layer: string; message: string; http_status?: number };
};

async function call(
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ envelope: Envelope; content: Array<Record<string, unknown>>; isError: boolean }> {
  const r = await stack.client.callTool({ name, arguments: args });
  const content = r.content as Array<Record<string, unknown>>;
  const envelope = (r.structuredContent ?? JSON.parse(String(content[0]?.text))) as Envelope;
  assert.equal(envelope.schema_version, 12);
  assert.equal(envelope.operation, name);
  return { envelope, content, isError: r.isError === true };
}

async function ok(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const { envelope } = await call(name, args);
  assert.ok(envelope.data, `${name} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.data;
}

before(async () => {
  stack = await startUltimateStack('ultimate-e2e');
});

after(async () => {
  await stack?.close();
});

async function finishedJob(jobId: string): Promise<Record<string, any>> {
  for (;;) {
    const { job } = await ok('get_job', { job_id: jobId });
    if (job.state !== 'queued' && job.state !== 'running') return job;
    await new Promise((r) => setTimeout(r, 100)); // polling, as the contract tells clients to
  }
}

test('get_project, list_targets: the example project and both targets, the ultimate one labelled as an emulation', async () => {
  const { project } = await ok('get_project');
  const names = (project.tests as Array<{ name: string }>).map((t) => t.name);
  for (const t of ['sum-passes', 'arithmetic-fails', 'greeting-on-screen', 'brk-crash', 'timeline-probe']) assert.ok(names.includes(t), t);
  const { targets } = await ok('list_targets');
  const byName = Object.fromEntries((targets as Array<{ target: string }>).map((t) => [t.target, t])) as unknown as Record<
    string,
    { available: boolean; emulation: boolean }
  >;
  assert.equal(byName.vice?.available, true);
  assert.equal(byName.ultimate?.available, true);
  assert.equal(byName.ultimate?.emulation, true);
});

test('build → job on both targets → runs → evidence: a real PNG screenshot and the screen text', { timeout: 240_000 }, async () => {
  const { probe } = await ok('probe_ultimate');
  const { job } = await ok('start_test_job', {
    test: 'greeting-on-screen',
    targets: ['vice', 'ultimate'],
    probe_id: probe.probe_id,
    confirmed_reset_count: 1,
    confirmed_reu_write_count: 0,
  });
  const done = await finishedJob(job.job_id);
  assert.equal(done.state, 'finished', JSON.stringify(done.error));
  assert.equal(done.run_ids.length, 2);
  for (const runId of done.run_ids as string[]) {
    const { run } = await ok('get_run', { run_id: runId });
    assert.equal(run.run_record_schema_version, 9);
    assert.equal(run.status, 'passed', run.status_reason);
    assert.equal(run.screen_match?.matched, true);
    const shot = await call('read_evidence', { run_id: runId, name: 'screenshot.png' });
    const image = shot.content.find((c) => c.type === 'image');
    assert.ok(image, 'PNG returned as MCP image content');
    const png = PNG.sync.read(Buffer.from(String(image.data), 'base64'));
    assert.ok(png.width >= 320 && png.height >= 200, `${png.width}x${png.height}`);
    const text = await ok('read_evidence', { run_id: runId, name: 'screen.txt' });
    assert.match(String(text.evidence.text), /HELLO FROM THE C64 PROJECT/);
  }
  const { runs } = await ok('list_runs', { test: 'greeting-on-screen', limit: 10 });
  assert.deepEqual(new Set((runs as Array<{ run_id: string }>).map((r) => r.run_id)), new Set(done.run_ids));
});

test('passing, failing and crashing tests give their verdicts; the crash carries crash_state', { timeout: 240_000 }, async () => {
  const verdicts: Record<string, string> = {};
  for (const t of ['sum-passes', 'arithmetic-fails', 'brk-crash']) {
    const { job } = await ok('start_test_job', { test: t, targets: ['vice'] });
    const done = await finishedJob(job.job_id);
    const { run } = await ok('get_run', { run_id: done.run_ids[0] });
    verdicts[t] = run.status;
    if (t === 'brk-crash') assert.equal(run.crash_state?.kind, 'brk');
  }
  assert.deepEqual(verdicts, { 'sum-passes': 'passed', 'arithmetic-fails': 'failed', 'brk-crash': 'crashed' });
});

test('bad input on every tool is a structured envelope error and the service keeps serving', async () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['get_run', { run_id: 'not-a-uuid' }, 'adapter'],
    ['get_run', { run_id: '00000000-0000-4000-8000-000000000000' }, 'service'],
    ['list_runs', { limit: 0 }, 'adapter'],
    ['list_runs', { limit: 1, extra: true }, 'adapter'],
    ['get_job', { job_id: '' }, 'adapter'],
    ['read_evidence', { run_id: '00000000-0000-4000-8000-000000000000', name: '../etc/passwd' }, 'adapter'],
    ['resolve_address', { run_id: '00000000-0000-4000-8000-000000000000', address: '$GGGG' }, 'adapter'],
    [
      'start_test_job',
      { test: 'sum-passes', targets: ['ultimate'], probe_id: 'nope', confirmed_reset_count: 1, confirmed_reu_write_count: 0 },
      'service',
    ],
    ['compare_runs', { baseline_run_id: 'x', candidate_run_id: 'y' }, 'adapter'],
  ];
  for (const [tool, args, layer] of cases) {
    const { envelope, isError } = await call(tool, args);
    assert.equal(isError, true, `${tool} ${JSON.stringify(args)}`);
    assert.equal(envelope.error?.layer, layer, `${tool}: ${JSON.stringify(envelope.error)}`);
    assert.ok(envelope.error?.code && envelope.error.message);
  }
  const notFound = await call('get_run', { run_id: '00000000-0000-4000-8000-000000000000' });
  assert.equal(notFound.envelope.error?.http_status, 404);
  assert.ok((await ok('list_targets')).targets);
});
