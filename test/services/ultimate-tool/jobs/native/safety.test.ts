// Safety of the trusted-native flow, each case counted at the virtual Elite II (FTP STORs and Run
// Update requests as the device saw them): expired and reused probes, identity changes between
// intent and run (firmware, core, UE2 hash), a revoked intent, standing intents past expiry and
// past max_runs, a non-Elite II, an uncertain trigger, a health check asked to upload, the legacy
// smoke job's confirmation rule.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { faultsFor } from '../../../../../engines/ultimate/virtual/index.js';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type NativeHarness, startNativeHarness } from './harness.js';

describe('native flow safety: authorization', { timeout: 180_000 }, () => {
  let h: NativeHarness;
  before(async () => {
    h = await startNativeHarness();
    await h.prepare();
  });
  after(async () => {
    await h.close();
  });
  const run = (intentId: string) => h.post('/v13/native/runs', { intent_id: intentId, device_host: h.host });

  it('an expired probe and a reused probe create no intent', async () => {
    const before = h.counts();
    const probe = await h.probe();
    h.clock.offsetMs = 5 * 60_000 + 1;
    const expired = await h.intent({ probe_id: probe });
    h.clock.offsetMs = 0;
    assert.equal(expired.status, 422);
    assert.equal(expired.body.error.code, 'probe_expired');
    const fresh = await h.probe();
    const first = await h.intent({ probe_id: fresh });
    assert.equal(first.status, 201);
    const reused = await h.intent({ probe_id: fresh });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error.code, 'probe_consumed');
    const unknown = await h.intent({ probe_id: 'no-such-probe' });
    assert.equal(unknown.body.error.code, 'probe_unknown');
    assert.deepEqual(h.counts(), before);
  });

  it('standing needs confirmed_standing_authorization; bad expiry and one-shot max_runs are refused; the probe survives', async () => {
    const probe = await h.probe();
    const noConfirm = await h.intent({ probe_id: probe, mode: 'standing' });
    assert.equal(noConfirm.status, 400);
    assert.match(noConfirm.body.error.message, /confirmed_standing_authorization/);
    const past = await h.intent({
      probe_id: probe,
      mode: 'standing',
      confirmed_standing_authorization: true,
      expires_at: '2001-01-01T00:00:00Z',
    });
    assert.equal(past.status, 400);
    const oneShotMax = await h.intent({ probe_id: probe, mode: 'one-shot', max_runs: 2 });
    assert.equal(oneShotMax.status, 400);
    const zero = await h.intent({ probe_id: probe, mode: 'standing', confirmed_standing_authorization: true, max_runs: 0 });
    assert.equal(zero.status, 400);
    const ok = await h.intent({ probe_id: probe, mode: 'standing', confirmed_standing_authorization: true });
    assert.equal(ok.status, 201, 'the refusals did not consume the probe');
  });

  for (const [field, value] of [
    ['firmware_version', '3.99-changed'],
    ['fpga_version', 'fpga-changed'],
    ['core_version', 'core-changed'],
  ] as const) {
    it(`an identity change (${field}) between intent and run is refused before any device write`, async () => {
      const intent = (await h.intent({})).body.intent;
      const before = h.counts();
      h.dev.identityOverrides = { [field]: value };
      try {
        const r = await run(intent.intent_id);
        assert.equal(r.status, 409, JSON.stringify(r.body));
        assert.equal(r.body.error.code, 'identity_changed');
      } finally {
        h.dev.identityOverrides = {};
      }
      assert.deepEqual(h.counts(), before);
      const after = (await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent;
      assert.equal(after.state, 'active');
      assert.equal(after.runs_started, 0);
    });
  }

  it('a changed prepared update file (UE2 hash) is refused before any device write', async () => {
    const intent = (await h.intent({})).body.intent;
    const dir = join(h.store, 'native', 'ue2');
    const file = readdirSync(dir).find((f) => f.startsWith(intent.ue2_sha256))!;
    const before = h.counts();
    const { readFileSync } = await import('node:fs');
    const original = readFileSync(join(dir, file));
    const tampered = Buffer.from(original);
    tampered[tampered.length - 1]! ^= 0xff;
    writeFileSync(join(dir, file), tampered);
    try {
      const r = await run(intent.intent_id);
      assert.equal(r.status, 409);
      assert.equal(r.body.error.code, 'ue2_changed');
    } finally {
      writeFileSync(join(dir, file), original);
    }
    assert.deepEqual(h.counts(), before);
  });

  it('a revoked intent never runs; revoke is idempotent', async () => {
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true })).body.intent;
    const before = h.counts();
    const r1 = await h.post(`/v13/native/intents/${intent.intent_id}/revoke`, {});
    assert.equal(r1.status, 200);
    assert.equal(r1.body.intent.state, 'revoked');
    const r2 = await h.post(`/v13/native/intents/${intent.intent_id}/revoke`, {});
    assert.equal(r2.body.intent.state, 'revoked');
    assert.equal(r2.body.intent.updated_at, r1.body.intent.updated_at);
    const r = await run(intent.intent_id);
    assert.equal(r.status, 409);
    assert.equal(r.body.error.code, 'intent_not_active');
    assert.equal(r.body.error.details.state, 'revoked');
    assert.deepEqual(h.counts(), before);
  });

  it('a Run Update the device refuses (an error answer) ends the run refused; the one-shot intent is spent', async () => {
    const intent = (await h.intent({})).body.intent;
    const before = h.counts();
    faultsFor(h.dev).failNext({ method: 'PUT', path: '/v1/runners:run_update', status: 503 });
    const s = await run(intent.intent_id);
    assert.equal(s.status, 201);
    const done = await h.waitRun(s.body.native_run.native_run_id);
    assert.equal(done.state, 'refused');
    assert.equal(done.outcome.verdict, 'refused_by_device');
    assert.equal(h.dev.nativeState.mode, 'firmware');
    assert.equal((await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent.state, 'consumed');
    const job = await h.waitJob(s.body.job.job_id);
    assert.equal(job.error.code, 'native_run_refused');
    assert.deepEqual(h.counts(), { 'ftp-stor': before['ftp-stor'] + 1, 'run-update': before['run-update'] + 1 });
  });

  it('a run for another host than the bound one is refused', async () => {
    const intent = (await h.intent({})).body.intent;
    const before = h.counts();
    const r = await h.post('/v13/native/runs', { intent_id: intent.intent_id, device_host: '127.0.0.2' });
    assert.equal(r.status, 409);
    assert.equal(r.body.error.code, 'host_mismatch');
    assert.deepEqual(h.counts(), before);
  });

  it('a standing intent past its expiry becomes expired and never runs', async () => {
    const expires = new Date(Date.now() + 60_000).toISOString();
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true, expires_at: expires })).body.intent;
    const before = h.counts();
    h.clock.offsetMs = 61_000;
    try {
      const r = await run(intent.intent_id);
      assert.equal(r.status, 409);
      assert.equal(r.body.error.details.state, 'expired');
    } finally {
      h.clock.offsetMs = 0;
    }
    assert.equal((await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent.state, 'expired');
    assert.deepEqual(h.counts(), before);
  });

  it('a standing intent that expires while suspended becomes expired at its health check, not active', async () => {
    const expires = new Date(Date.now() + 60_000).toISOString();
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true, expires_at: expires })).body.intent;
    const s = await run(intent.intent_id);
    const done = await h.waitRun(s.body.native_run.native_run_id);
    assert.equal(done.state, 'completed');
    await h.powerCycle();
    const before = h.counts();
    h.clock.offsetMs = 61_000;
    try {
      const hc = await h.post('/v13/native/health-checks', {
        intent_id: intent.intent_id,
        run_id: done.native_run_id,
        device_host: h.host,
      });
      assert.equal(hc.status, 201);
      assert.equal((await h.waitJob(hc.body.job.job_id)).state, 'finished');
      const after = (await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent;
      assert.equal(after.state, 'expired');
      assert.equal(after.health_gate, 'passed');
      assert.equal((await run(intent.intent_id)).body.error.details.state, 'expired');
    } finally {
      h.clock.offsetMs = 0;
    }
    assert.deepEqual(h.counts(), before);
  });

  it('a standing intent past max_runs is exhausted: the health check after its last run does not re-activate it', async () => {
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true, max_runs: 1 })).body.intent;
    const before = h.counts();
    const s = await run(intent.intent_id);
    assert.equal(s.status, 201);
    const done = await h.waitRun(s.body.native_run.native_run_id);
    assert.equal(done.state, 'completed');
    await h.powerCycle();
    const hc = await h.post('/v13/native/health-checks', { intent_id: intent.intent_id, run_id: done.native_run_id, device_host: h.host });
    assert.equal(hc.status, 201);
    assert.equal((await h.waitJob(hc.body.job.job_id)).state, 'finished');
    const after = (await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent;
    assert.equal(after.state, 'exhausted');
    const again = await run(intent.intent_id);
    assert.equal(again.status, 409);
    assert.deepEqual(h.counts(), { 'ftp-stor': before['ftp-stor'] + 1, 'run-update': before['run-update'] + 1 });
  });

  it('a health check asked to upload or run an update is refused; so is one without a pending gate', async () => {
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true })).body.intent;
    const s = await run(intent.intent_id);
    const done = await h.waitRun(s.body.native_run.native_run_id);
    await h.powerCycle();
    const before = h.counts();
    const base = { intent_id: intent.intent_id, run_id: done.native_run_id, device_host: h.host };
    for (const extra of [{ upload: true }, { file: '/Temp/x.ue2' }, { run_update: true }, { preparation_id: intent.preparation_id }]) {
      const r = await h.post('/v13/native/health-checks', { ...base, ...extra });
      assert.equal(r.status, 400, JSON.stringify(extra));
      assert.equal(r.body.error.code, 'invalid-request');
      assert.match(r.body.error.message, /Unrecognized key|unrecognized/i);
    }
    // A one-shot intent has no health gate; a revoked standing one has none pending.
    const oneShot = (await h.intent({})).body.intent;
    const r1 = await h.post('/v13/native/health-checks', { intent_id: oneShot.intent_id, run_id: done.native_run_id, device_host: h.host });
    assert.equal(r1.body.error.code, 'health_check_not_applicable');
    await h.post(`/v13/native/intents/${intent.intent_id}/revoke`, {});
    const r2 = await h.post('/v13/native/health-checks', base);
    assert.equal(r2.body.error.code, 'health_gate_not_pending');
    assert.deepEqual(h.counts(), before);
  });

  it('the legacy smoke job needs confirmed_run_update_count 1 and a fresh probe, then runs the smoke program once, bounded', async () => {
    const before = h.counts();
    const probe = await h.probe();
    const zero = await h.post('/v13/native/smoke-jobs', { probe_id: probe, device_host: h.host, confirmed_run_update_count: 0 });
    assert.equal(zero.status, 422);
    assert.equal(zero.body.error.code, 'confirmed_count_mismatch');
    const two = await h.post('/v13/native/smoke-jobs', { probe_id: probe, device_host: h.host, confirmed_run_update_count: 2 });
    assert.equal(two.status, 422);
    assert.deepEqual(h.counts(), before);
    const ok = await h.post('/v13/native/smoke-jobs', { probe_id: probe, device_host: h.host, confirmed_run_update_count: 1 });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const job = await h.waitJob(ok.body.job.job_id);
    assert.equal(job.state, 'finished', JSON.stringify(job));
    assert.equal(job.smoke.passed, true);
    assert.equal(job.smoke.expected_line, 'SMOKE crc=cbf43926 primes=00000234 OK');
    const reused = await h.post('/v13/native/smoke-jobs', { probe_id: probe, device_host: h.host, confirmed_run_update_count: 1 });
    assert.equal(reused.body.error.code, 'probe_consumed');
    assert.deepEqual(h.counts(), { 'ftp-stor': before['ftp-stor'] + 1, 'run-update': before['run-update'] + 1 });
    await h.powerCycle();
  });
});

describe('native flow safety: uncertain acceptance', { timeout: 120_000 }, () => {
  let h: NativeHarness;
  before(async () => {
    h = await startNativeHarness({ runUpdateAnswer: 'none' });
  });
  after(async () => {
    await h.close();
  });

  it('an unanswered Run Update makes the run uncertain and the intent suspended for good — never retried', async () => {
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true })).body.intent;
    const s = await h.post('/v13/native/runs', { intent_id: intent.intent_id, device_host: h.host });
    assert.equal(s.status, 201);
    const run = await h.waitRun(s.body.native_run.native_run_id);
    assert.equal(run.state, 'uncertain', JSON.stringify(run));
    assert.match(run.outcome.reason, /Run Update write/);
    const after = (await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent;
    assert.equal(after.state, 'suspended');
    assert.equal(after.health_gate, 'none');
    assert.match(after.state_reason, /uncertain/);
    assert.deepEqual(h.counts(), { 'ftp-stor': 1, 'run-update': 1 });
    await h.powerCycle();
    const again = await h.post('/v13/native/runs', { intent_id: intent.intent_id, device_host: h.host });
    assert.equal(again.body.error.code, 'intent_not_active');
    const hc = await h.post('/v13/native/health-checks', { intent_id: intent.intent_id, run_id: run.native_run_id, device_host: h.host });
    assert.equal(hc.body.error.code, 'health_gate_not_pending');
    assert.deepEqual(h.counts(), { 'ftp-stor': 1, 'run-update': 1 });
  });
});

describe('native flow safety: not an Elite II', { timeout: 60_000 }, () => {
  let h: NativeHarness;
  before(async () => {
    h = await startNativeHarness({ product: 'u64' });
  });
  after(async () => {
    await h.close();
  });

  it('an intent for a plain Ultimate 64 is refused, and its probe is not consumed', async () => {
    const probe = await h.probe();
    const r = await h.intent({ probe_id: probe });
    assert.equal(r.status, 409);
    assert.equal(r.body.error.code, 'not_elite2');
    assert.match(r.body.error.message, /Elite II/);
    const smoke = await h.post('/v13/native/smoke-jobs', { probe_id: probe, device_host: h.host, confirmed_run_update_count: 1 });
    assert.equal(smoke.body.error.code, 'not_elite2');
    assert.deepEqual(h.counts(), { 'ftp-stor': 0, 'run-update': 0 });
  });
});
