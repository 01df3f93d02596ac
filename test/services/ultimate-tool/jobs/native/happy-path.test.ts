// The trusted-native flow end to end against a virtual Ultimate 64 Elite II that really runs the
// project's native program: a one-shot run (token echoed, evidence attributable, intent consumed,
// a second use refused) and a standing intent (run → power cycle on the lab bench → C64 health
// check → active again → a second run with a new id and token). Each step counted at the device.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type NativeHarness, startNativeHarness } from './harness.js';

describe('native flow: happy paths', { timeout: 180_000 }, () => {
  let h: NativeHarness;
  before(async () => {
    h = await startNativeHarness();
  });
  after(async () => {
    await h.close();
  });

  it('create_native_preparation builds the manifest program and records its UE2 hash, without touching the device', async () => {
    const before = h.counts();
    const p = await h.prepare();
    assert.equal(p.program, 'utr2-echo');
    assert.match(p.ue2_sha256, /^[0-9a-f]{64}$/);
    assert.equal(p.entry, '0x03000000');
    assert.ok(p.records >= 1);
    assert.equal(p.build.source, 'sources');
    const again = await h.get(`/v13/native/preparations/${p.preparation_id}`);
    assert.deepEqual(again.body.preparation, p);
    const unknown = await h.post('/v13/native/preparations', { program: 'nope' });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error.message, /utr2-echo/);
    assert.deepEqual(h.counts(), before);
  });

  it('one-shot: runs once with a token that comes back, then is consumed; a second use is refused at no device cost', async () => {
    const created = await h.intent({ mode: 'one-shot' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const intent = created.body.intent;
    assert.equal(intent.state, 'active');
    assert.equal(intent.identity.device_host, '127.0.0.1');
    assert.match(intent.identity.product, /Elite II/);
    assert.equal(intent.identity.firmware, h.dev.identity().firmware_version);
    const before = h.counts();
    const started = await h.post('/v13/native/runs', { intent_id: intent.intent_id, device_host: h.host });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    assert.equal(started.body.native_run.state, 'latched');
    assert.equal(started.body.job.state, 'running');
    assert.equal(started.body.job.native_run_id, started.body.native_run.native_run_id);
    const token = started.body.native_run.utr2_token as string;
    const run = await h.waitRun(started.body.native_run.native_run_id);
    assert.equal(run.state, 'completed', JSON.stringify(run.outcome));
    assert.equal(run.outcome.verdict, 'attributed');
    assert.deepEqual(
      run.steps.map((s: { step: string }) => s.step),
      ['latched', 'uploaded', 'token-placed', 'trigger-latched', 'triggered', 'output-collected', 'finished'],
    );
    assert.ok(run.evidence.some((e: { name: string }) => e.name === 'uart.txt'));
    assert.ok(h.dev.lastNativeRun?.uart.includes(`UTR2 ${token} OK`));
    const uart = await h.get(`/v13/native/runs/${run.native_run_id}/evidence/uart.txt`);
    assert.equal(uart.status, 200);
    assert.ok(JSON.stringify(uart.body.evidence).includes(`UTR2 ${token} OK`));
    const missing = await h.get(`/v13/native/runs/${run.native_run_id}/evidence/nope.txt`);
    assert.equal(missing.body.error.code, 'evidence_not_registered');
    assert.deepEqual(h.counts(), { 'ftp-stor': before['ftp-stor'] + 1, 'run-update': before['run-update'] + 1 });
    const job = await h.waitJob(started.body.job.job_id);
    assert.equal(job.state, 'finished');
    const after1 = (await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent;
    assert.equal(after1.state, 'consumed');
    assert.equal(after1.runs_started, 1);
    assert.equal(after1.runs[0].native_run_id, run.native_run_id);

    await h.powerCycle();
    const twice = await h.post('/v13/native/runs', { intent_id: intent.intent_id, device_host: h.host });
    assert.equal(twice.status, 409);
    assert.equal(twice.body.error.code, 'intent_not_active');
    assert.deepEqual(h.counts(), { 'ftp-stor': before['ftp-stor'] + 1, 'run-update': before['run-update'] + 1 });
  });

  it('standing: run → power cycle → C64 health check → active again → a second run with a new id and token', async () => {
    const created = await h.intent({ mode: 'standing', confirmed_standing_authorization: true, max_runs: 5 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.intent.intent_id as string;
    const before = h.counts();
    const s1 = await h.post('/v13/native/runs', { intent_id: id, device_host: h.host });
    assert.equal(s1.status, 201, JSON.stringify(s1.body));
    const run1 = await h.waitRun(s1.body.native_run.native_run_id);
    assert.equal(run1.state, 'completed');
    let intent = (await h.get(`/v13/native/intents/${id}`)).body.intent;
    assert.equal(intent.state, 'suspended');
    assert.equal(intent.health_gate, 'pending');

    // Still native: no new run, and the health check cannot reach the firmware.
    const blocked = await h.post('/v13/native/runs', { intent_id: id, device_host: h.host });
    assert.equal(blocked.status, 409);
    const early = await h.post('/v13/native/health-checks', { intent_id: id, run_id: run1.native_run_id, device_host: h.host });
    assert.equal(early.status, 503, JSON.stringify(early.body));
    assert.equal(early.body.error.code, 'target_unavailable');

    await h.powerCycle();
    const hc = await h.post('/v13/native/health-checks', { intent_id: id, run_id: run1.native_run_id, device_host: h.host });
    assert.equal(hc.status, 201, JSON.stringify(hc.body));
    const hcJob = await h.waitJob(hc.body.job.job_id);
    assert.equal(hcJob.state, 'finished', JSON.stringify(hcJob));
    assert.equal(hcJob.health.passed, true);
    intent = (await h.get(`/v13/native/intents/${id}`)).body.intent;
    assert.equal(intent.state, 'active');
    assert.equal(intent.health_gate, 'passed');

    const s2 = await h.post('/v13/native/runs', { intent_id: id, device_host: h.host });
    assert.equal(s2.status, 201, JSON.stringify(s2.body));
    assert.notEqual(s2.body.native_run.native_run_id, run1.native_run_id);
    assert.notEqual(s2.body.native_run.utr2_token, run1.utr2_token);
    const run2 = await h.waitRun(s2.body.native_run.native_run_id);
    assert.equal(run2.state, 'completed');
    assert.ok(h.dev.lastNativeRun?.uart.includes(`UTR2 ${run2.utr2_token} OK`));
    assert.deepEqual(h.counts(), { 'ftp-stor': before['ftp-stor'] + 2, 'run-update': before['run-update'] + 2 });
    intent = (await h.get(`/v13/native/intents/${id}`)).body.intent;
    assert.equal(intent.runs_started, 2);
    assert.deepEqual(
      intent.runs.map((r: { native_run_id: string }) => r.native_run_id),
      [run2.native_run_id, run1.native_run_id],
    );
    const list = await h.get('/v13/native/intents?limit=1');
    assert.equal(list.body.intents.length, 1);
    assert.equal(list.body.intents[0].intent_id, id);
    assert.ok(list.body.next_cursor);
    await h.powerCycle();
  });
});
