// Races the state machine must win: two start_native_run calls at once on one standing intent
// (exactly one runs), and a revoke that arrives after the first latch but before the Run Update
// write (the run stops at the second latch: the device sees the upload but never the trigger).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stepsFor } from '../../../../../engines/ultimate/virtual/index.js';
import { type NativeHarness, startNativeHarness } from './harness.js';

describe('native flow: races', { timeout: 120_000 }, () => {
  let h: NativeHarness;
  before(async () => {
    h = await startNativeHarness();
  });
  after(async () => {
    await h.close();
  });

  it('two simultaneous runs of one standing intent: exactly one is latched and reaches the device', async () => {
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true })).body.intent;
    const before = h.counts();
    const body = { intent_id: intent.intent_id, device_host: h.host };
    const [a, b] = await Promise.all([h.post('/v13/native/runs', body), h.post('/v13/native/runs', body)]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [201, 409]);
    const won = a.status === 201 ? a : b;
    const lost = a.status === 201 ? b : a;
    assert.equal(lost.body.error.code, 'intent_not_active');
    await h.waitRun(won.body.native_run.native_run_id);
    assert.deepEqual(h.counts(), { 'ftp-stor': before['ftp-stor'] + 1, 'run-update': before['run-update'] + 1 });
    assert.equal((await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent.runs_started, 1);
    await h.powerCycle();
  });

  it('two simultaneous runs of an intent past its expiry both get the recorded refusal (no internal error)', async () => {
    const expires = new Date(Date.now() + 60_000).toISOString();
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true, expires_at: expires })).body.intent;
    const before = h.counts();
    h.clock.offsetMs = 120_000;
    try {
      const body = { intent_id: intent.intent_id, device_host: h.host };
      const rs = await Promise.all([h.post('/v13/native/runs', body), h.post('/v13/native/runs', body), h.post('/v13/native/runs', body)]);
      for (const r of rs) {
        assert.equal(r.status, 409, JSON.stringify(r.body));
        assert.equal(r.body.error.details.state, 'expired');
      }
    } finally {
      h.clock.offsetMs = 0;
    }
    assert.deepEqual(h.counts(), before);
  });

  it('a revoke between the first latch and the Run Update write stops the run before the trigger', async () => {
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true })).body.intent;
    const before = h.counts();
    const hold = stepsFor(h.dev).hold('ftp-stor');
    const started = await h.post('/v13/native/runs', { intent_id: intent.intent_id, device_host: h.host });
    assert.equal(started.status, 201);
    await hold.reached;
    const revoked = await h.post(`/v13/native/intents/${intent.intent_id}/revoke`, {});
    assert.equal(revoked.body.intent.state, 'revoked');
    hold.release();
    const run = await h.waitRun(started.body.native_run.native_run_id);
    assert.equal(run.state, 'refused');
    assert.equal(run.outcome.verdict, 'stopped');
    assert.ok(!run.steps.some((s: { step: string }) => s.step === 'trigger-latched'));
    assert.deepEqual(h.counts(), { 'ftp-stor': before['ftp-stor'] + 1, 'run-update': before['run-update'] });
    assert.equal(h.dev.nativeState.mode, 'firmware');
    assert.equal((await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent.state, 'revoked');
  });

  it('GET /v13/jobs/active shows a native run while it holds the device, and nothing once it ended', async () => {
    const intent = (await h.intent({ mode: 'one-shot' })).body.intent;
    const hold = stepsFor(h.dev).hold('run-update');
    const started = await h.post('/v13/native/runs', { intent_id: intent.intent_id, device_host: h.host });
    assert.equal(started.status, 201);
    await hold.reached;
    const active = (await h.get('/v13/jobs/active')).body.job;
    assert.equal(active?.job_id, started.body.job.job_id);
    assert.equal(active.state, 'running');
    assert.equal(active.intent_id, intent.intent_id);
    hold.release();
    const run = await h.waitRun(started.body.native_run.native_run_id);
    assert.equal(run.state, 'completed');
    await h.waitJob(started.body.job.job_id);
    assert.equal((await h.get('/v13/jobs/active')).body.job, null);
    await h.powerCycle();
  });
});
