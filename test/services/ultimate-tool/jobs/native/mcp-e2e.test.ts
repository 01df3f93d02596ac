// The seven native tools end to end, as a user runs them: the real service process
// (`ultimate-tool serve --virtual-device --virtual-product u64-elite2`, whose lab bench becomes its
// --bench-url), the real adapter process and the official MCP SDK client: prepare, probe, intent,
// get, run (token back), power cycle on the bench, health check, second run, revoke, the legacy
// smoke job, and local validation before any request.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startUltimateStack, type UltimateStack } from '../../../../helpers/ultimate-stack.js';

let stack: UltimateStack;

type Envelope = {
  schema_version: number;
  operation: string;
  data?: Record<string, any>;
  error?: { code: string; layer: string; message: string };
};

async function call(name: string, args: Record<string, unknown> = {}): Promise<Envelope> {
  const r = await stack.client.callTool({ name, arguments: args });
  const content = r.content as Array<{ text?: string }>;
  const envelope = (r.structuredContent ?? JSON.parse(String(content[0]?.text))) as Envelope;
  assert.equal(envelope.operation, name);
  return envelope;
}

async function ok(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const e = await call(name, args);
  assert.ok(e.data, `${name} failed: ${JSON.stringify(e.error)}`);
  return e.data;
}

async function finishedJob(jobId: string): Promise<Record<string, any>> {
  for (;;) {
    const { job } = await ok('get_job', { job_id: jobId });
    if (job.state !== 'queued' && job.state !== 'running') return job;
    await new Promise((r) => setTimeout(r, 50)); // polling, as the contract tells clients to
  }
}

async function powerCycle(): Promise<void> {
  const res = await fetch(`${String(stack.serviceInfo.bench_url)}/bench/power-cycle`, { method: 'POST' });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
}

before(async () => {
  stack = await startUltimateStack('native-e2e', ['--virtual-product', 'u64-elite2', '--no-vice']);
});

after(async () => {
  await stack?.close();
});

test('the seven native tools through the adapter and the SDK client', { timeout: 120_000 }, async () => {
  const tools = (await stack.client.listTools()).tools.map((t) => t.name);
  for (const n of [
    'create_native_preparation',
    'create_native_intent',
    'get_native_intent',
    'revoke_native_intent',
    'start_native_run',
    'start_native_health_check',
    'start_riscv_smoke_job',
  ])
    assert.ok(tools.includes(n), n);

  const { preparation } = await ok('create_native_preparation', { program: 'utr2-echo' });
  assert.match(preparation.ue2_sha256, /^[0-9a-f]{64}$/);
  const { probe } = await ok('probe_ultimate');
  assert.match(probe.identity.product, /Elite II/);
  const { intent } = await ok('create_native_intent', {
    preparation_id: preparation.preparation_id,
    probe_id: probe.probe_id,
    mode: 'standing',
    confirmed_standing_authorization: true,
    max_runs: 3,
  });
  assert.equal(intent.state, 'active');
  const host = intent.identity.device_host as string;

  const first = await ok('start_native_run', { intent_id: intent.intent_id, device_host: host });
  assert.equal(first.native_run.state, 'latched');
  const job1 = await finishedJob(first.job.job_id);
  assert.equal(job1.state, 'finished', JSON.stringify(job1));
  let got = (await ok('get_native_intent', { intent_id: intent.intent_id })).intent;
  assert.equal(got.state, 'suspended');
  assert.equal(got.health_gate, 'pending');
  assert.equal(got.runs[0].native_run_id, first.native_run.native_run_id);
  const uart = await (await fetch(`${String(stack.serviceInfo.bench_url)}/bench/uart`)).text();
  assert.ok(uart.includes(`UTR2 ${first.native_run.utr2_token} OK`));

  await powerCycle();
  const hc = await ok('start_native_health_check', {
    intent_id: intent.intent_id,
    run_id: first.native_run.native_run_id,
    device_host: host,
  });
  assert.equal((await finishedJob(hc.job.job_id)).state, 'finished');
  got = (await ok('get_native_intent', { intent_id: intent.intent_id })).intent;
  assert.equal(got.state, 'active');

  const second = await ok('start_native_run', { intent_id: intent.intent_id, device_host: host });
  assert.notEqual(second.native_run.utr2_token, first.native_run.utr2_token);
  assert.equal((await finishedJob(second.job.job_id)).state, 'finished');
  const revoked = (await ok('revoke_native_intent', { intent_id: intent.intent_id })).intent;
  assert.equal(revoked.state, 'revoked');
  await powerCycle();
  const refused = await call('start_native_run', { intent_id: intent.intent_id, device_host: host });
  assert.equal(refused.error?.code, 'intent_not_active');

  // Local validation: never reaches the service.
  const bad = await call('start_riscv_smoke_job', { probe_id: 'x', device_host: host, confirmed_run_update_count: 2 });
  assert.ok(bad.error);
  assert.equal(bad.error.layer, 'adapter');
  const badStanding = await call('create_native_intent', { preparation_id: preparation.preparation_id, probe_id: 'x', mode: 'standing' });
  assert.equal(badStanding.error?.layer, 'adapter');

  const smokeProbe = (await ok('probe_ultimate')).probe;
  const smoke = await ok('start_riscv_smoke_job', { probe_id: smokeProbe.probe_id, device_host: host, confirmed_run_update_count: 1 });
  const smokeJob = await finishedJob(smoke.job.job_id);
  assert.equal(smokeJob.state, 'finished', JSON.stringify(smokeJob));
  assert.equal(smokeJob.smoke.passed, true);
  await powerCycle();
});
