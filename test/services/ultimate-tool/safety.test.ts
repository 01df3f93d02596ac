// Physical-device safety, proven against the virtual Ultimate 64 by counting what reached it
// (resets, REU writes, FTP writes): probe handles (five minutes, single use), confirmed counts,
// identity re-probe before the first mutation, strict_gate (strictness mismatch, fail-closed on
// an injected device fault where the ordinary gate retries the read).
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { faultsFor } from '../../../engines/ultimate/virtual/index.js';
import { type Harness, startHarness } from './harness.js';

const counts = (h: Harness) => ({ ...h.counts });

describe('physical-device safety (no REU image declared)', { timeout: 180_000 }, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });
  const job = (extra: Record<string, unknown>) => h.post('/v13/jobs', { test: 'sum-passes', targets: ['ultimate'], ...extra });

  it('a probe returns identity, firmware, core, capabilities and emulation, and touches nothing', async () => {
    const before = counts(h);
    const r = await h.post('/v13/probes', {});
    assert.equal(r.status, 201);
    const p = r.body.probe;
    assert.equal(r.body.api_schema_version, 13);
    assert.equal(p.strict_gate, false);
    assert.equal(p.emulation, true);
    assert.equal(p.firmware, '0.1.0-virtual');
    assert.ok(p.capabilities.includes('run_prg'));
    assert.ok(Date.parse(p.expires_at) - Date.now() > 4.9 * 60_000);
    assert.deepEqual(counts(h), before);
  });

  it('a job without a probe, with an unknown probe, or an expired one is refused before any mutation', async () => {
    const before = counts(h);
    const none = await job({ confirmed_reset_count: 1, confirmed_reu_write_count: 0 });
    assert.equal(none.status, 422);
    assert.equal(none.body.error.code, 'probe_unknown');
    const unknown = await job({ probe_id: 'nope', confirmed_reset_count: 1, confirmed_reu_write_count: 0 });
    assert.equal(unknown.body.error.code, 'probe_unknown');
    const id = await h.probe();
    h.clock.offsetMs = 5 * 60_000 + 1;
    try {
      const expired = await job({ probe_id: id, confirmed_reset_count: 1, confirmed_reu_write_count: 0 });
      assert.equal(expired.status, 422);
      assert.equal(expired.body.error.code, 'probe_expired');
    } finally {
      h.clock.offsetMs = 0;
    }
    assert.deepEqual(counts(h), before);
  });

  it('wrong counts are refused without consuming the probe; the right ones run exactly repeat resets', async () => {
    const id = await h.probe();
    const before = counts(h);
    const wrongReset = await job({ probe_id: id, repeat: 2, confirmed_reset_count: 1, confirmed_reu_write_count: 0 });
    assert.equal(wrongReset.status, 422);
    assert.equal(wrongReset.body.error.code, 'confirmed_count_mismatch');
    assert.match(wrongReset.body.error.message, /confirmed_reset_count must equal repeat \(2\)/);
    const missingReset = await job({ probe_id: id, repeat: 2, confirmed_reu_write_count: 0 });
    assert.equal(missingReset.body.error.code, 'confirmed_count_mismatch');
    const wrongReu = await job({ probe_id: id, repeat: 2, confirmed_reset_count: 2, confirmed_reu_write_count: 2 });
    assert.equal(wrongReu.body.error.code, 'confirmed_count_mismatch');
    assert.match(wrongReu.body.error.message, /must be 0/);
    assert.deepEqual(counts(h), before);

    const good = await job({ probe_id: id, repeat: 2, confirmed_reset_count: 2, confirmed_reu_write_count: 0 });
    assert.equal(good.status, 201, JSON.stringify(good.body));
    const done = await h.waitJob(good.body.job.job_id);
    assert.equal(done.state, 'finished');
    assert.equal(done.run_ids.length, 2);
    assert.deepEqual(counts(h), { resets: before.resets + 2, reuWrites: before.reuWrites, ftpWrites: before.ftpWrites });

    const reused = await job({ probe_id: id, repeat: 2, confirmed_reset_count: 2, confirmed_reu_write_count: 0 });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error.code, 'probe_consumed');
    assert.deepEqual(counts(h), { resets: before.resets + 2, reuWrites: before.reuWrites, ftpWrites: before.ftpWrites });
  });

  it('an identity changed between probe and job fails the job with nothing written', async () => {
    const id = await h.probe();
    const before = counts(h);
    h.dev.config.set('Network Settings', 'Host Name', 'someone-else');
    try {
      const r = await job({ probe_id: id, confirmed_reset_count: 1, confirmed_reu_write_count: 0 });
      assert.equal(r.status, 201);
      const done = await h.waitJob(r.body.job.job_id);
      assert.equal(done.state, 'failed');
      assert.equal(done.error.code, 'identity_changed');
      assert.match(done.error.message, /hostname/);
      assert.deepEqual(done.run_ids, []);
      assert.deepEqual(counts(h), before);
    } finally {
      h.dev.config.set('Network Settings', 'Host Name', 'virtual-u64');
    }
  });

  it('strict_gate with an ordinary probe: 422 probe_strictness_mismatch before any mutation, probe kept', async () => {
    const id = await h.probe(false);
    const before = counts(h);
    const r = await job({ probe_id: id, strict_gate: true, confirmed_reset_count: 1, confirmed_reu_write_count: 0 });
    assert.equal(r.status, 422);
    assert.equal(r.body.error.code, 'probe_strictness_mismatch');
    assert.deepEqual(counts(h), before);
    const ok = await job({ probe_id: id, confirmed_reset_count: 1, confirmed_reu_write_count: 0 });
    assert.equal(ok.status, 201, 'the refused request did not consume the probe');
    await h.waitJob(ok.body.job.job_id);
  });

  it('one injected device fault: the ordinary gate retries the read and passes; strict_gate fails closed', async () => {
    const faults = faultsFor(h.dev);
    const ordinary = await h.probe(false);
    // A read the run makes on every path: the end state (screen RAM) after the end. The register is
    // not polled where the device streams (the virtual one always does), so the fault is not put there.
    faults.failNext({ method: 'GET', path: '/v1/machine:readmem' });
    const r1 = await job({ probe_id: ordinary, confirmed_reset_count: 1, confirmed_reu_write_count: 0 });
    const j1 = await h.waitJob(r1.body.job.job_id);
    assert.equal(faults.injected, 1);
    assert.equal(j1.state, 'finished');
    assert.equal((await h.get(`/v13/runs/${j1.run_ids[0]}`)).body.run.status, 'passed');

    const strict = await h.probe(true);
    const before = counts(h);
    faults.failNext({ method: 'GET', path: '/v1/machine:readmem' });
    const r2 = await job({ probe_id: strict, strict_gate: true, repeat: 2, confirmed_reset_count: 2, confirmed_reu_write_count: 0 });
    assert.equal(r2.status, 201);
    const j2 = await h.waitJob(r2.body.job.job_id);
    assert.equal(faults.injected, 2);
    assert.equal(j2.state, 'failed');
    assert.match(j2.error.message, /strict_gate/);
    assert.equal(j2.run_ids.length, 1, 'fail-stop: the second run never started');
    const run = (await h.get(`/v13/runs/${j2.run_ids[0]}`)).body.run;
    assert.equal(run.status, 'error');
    assert.match(run.status_reason, /503|Injected/);
    assert.equal(h.counts.resets, before.resets + 1, 'one reset: no retry, no second run');
  });

  it('probe_id on a vice-only job is refused (it would authorize nothing)', async () => {
    const r = await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'], probe_id: 'x' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'invalid-request');
  });
});

describe('physical-device safety with a declared REU image', { timeout: 120_000 }, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      mutateProject: (dir) => {
        writeFileSync(join(dir, 'reu.bin'), Buffer.alloc(4096, 0x5a));
        const m = JSON.parse(readFileSync(join(dir, 'ultimate-tool.json'), 'utf8'));
        m.ultimate_reu_image = 'reu.bin';
        writeFileSync(join(dir, 'ultimate-tool.json'), JSON.stringify(m));
      },
    });
  });
  after(async () => {
    await h.close();
  });

  it('requires confirmed_reu_write_count == repeat and writes the image exactly that often', async () => {
    const project = await h.get('/v13/project');
    assert.equal(project.body.project.ultimate_reu_image, 'reu.bin');
    const id = await h.probe();
    const before = counts(h);
    const zero = await h.post('/v13/jobs', {
      test: 'sum-passes',
      targets: ['ultimate'],
      repeat: 2,
      probe_id: id,
      confirmed_reset_count: 2,
    });
    assert.equal(zero.body.error.code, 'confirmed_count_mismatch');
    assert.match(zero.body.error.message, /REU image reu\.bin/);
    assert.deepEqual(counts(h), before);
    const ok = await h.post('/v13/jobs', {
      test: 'sum-passes',
      targets: ['ultimate'],
      repeat: 2,
      probe_id: id,
      confirmed_reset_count: 2,
      confirmed_reu_write_count: 2,
    });
    assert.equal(ok.status, 201);
    const done = await h.waitJob(ok.body.job.job_id);
    assert.equal(done.state, 'finished');
    assert.deepEqual(counts(h), { resets: before.resets + 2, reuWrites: before.reuWrites + 2, ftpWrites: before.ftpWrites });
    assert.deepEqual([...h.dev.readReu(0, 4)], [0x5a, 0x5a, 0x5a, 0x5a]);
  });
});
