// Memory checkpoints through the real service over HTTP: the example project's checkpoint program
// built with acme, `ultimate-tool virtual-vice` as the vice target and a virtual Ultimate 64 as the
// ultimate target. The compare_checkpoints matrix, the provisional comparison (which stores
// nothing), stored pair records, and every checkpoint_comparison_failed path.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { faultsFor } from '../../../../../engines/ultimate/virtual/device/fault-injection.js';
import { fillPowerOnPattern } from '../../../../../engines/ultimate/virtual/index.js';
import { RAM_PATTERN_RANGES } from '../../../../../services/ultimate-tool/targets/ultimate-target.js';
import { type Harness, startHarness } from '../../harness.js';

let h: Harness;
const dbFile = () => join(h.store, 'service.sqlite3');

before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

function probeRow(probeId: string): { consumed_at_ms: number | null; consumed_by_job: string | null } {
  const db = new Database(dbFile(), { readonly: true });
  try {
    const row = db.prepare('SELECT doc FROM probes WHERE probe_id = ?').get(probeId) as { doc: string };
    return JSON.parse(row.doc);
  } finally {
    db.close();
  }
}

function pairCount(): number {
  const db = new Database(dbFile(), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM checkpoint_comparisons').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

interface MatrixJob {
  job_id: string;
  run_ids: string[];
  checkpoint_comparison_id: string;
}

async function matrix(testName: string): Promise<MatrixJob> {
  const probe = await h.probe();
  const r = await h.post('/v13/jobs', {
    test: testName,
    targets: ['vice', 'ultimate'],
    compare_checkpoints: true,
    probe_id: probe,
    confirmed_reset_count: 1,
    confirmed_reu_write_count: 0,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.job.compare_checkpoints, true);
  assert.equal(r.body.job.checkpoint_comparison_id, null);
  const job = await h.waitJob(r.body.job.job_id);
  assert.equal(job.state, 'finished', JSON.stringify(job.error));
  assert.equal(probeRow(probe).consumed_by_job, job.job_id);
  return job;
}

/** Counts what reaches the virtual Ultimate: REST pauses, resumes and memory writes. */
function watchDevice() {
  const seen = { pauses: 0, resumes: 0, writes: [] as Array<[number, string]> };
  const { clock, machine } = h.dev as unknown as {
    clock: { hold(r: string): void; release(r: string): void };
    machine: { writeMem(a: number, b: Uint8Array): void };
  };
  const hold = clock.hold.bind(clock);
  const release = clock.release.bind(clock);
  const writeMem = machine.writeMem.bind(machine);
  clock.hold = (r) => {
    if (r === 'rest-pause') seen.pauses++;
    hold(r);
  };
  clock.release = (r) => {
    if (r === 'rest-pause') seen.resumes++;
    release(r);
  };
  machine.writeMem = (a, b) => {
    seen.writes.push([a, Buffer.from(b).toString('hex')]);
    writeMem(a, b);
  };
  return {
    seen,
    /**
     * What the run wrote beyond the RAM fill (issue 35.2: every Ultimate run starts with DMA
     * writes of x64sc's power-on pattern over RAM_PATTERN_RANGES, before the reset). The leading
     * writes must tile those ranges exactly with the pattern, in order; the rest is returned.
     */
    afterRamFill(): { pauses: number; resumes: number; writes: Array<[number, string]> } {
      const pattern = new Uint8Array(0x10000);
      fillPowerOnPattern(pattern);
      let i = 0;
      for (const r of RAM_PATTERN_RANGES) {
        let next = r.start;
        while (next <= r.end) {
          const w = seen.writes[i++];
          assert.ok(w, `the RAM fill stopped at $${next.toString(16)}`);
          const [address, hex] = w;
          assert.equal(address, next, 'the RAM fill writes its ranges in order');
          const bytes = Buffer.from(hex, 'hex');
          assert.ok(address + bytes.length - 1 <= r.end, 'the RAM fill stays inside its range');
          assert.equal(hex, Buffer.from(pattern.subarray(address, address + bytes.length)).toString('hex'));
          next += bytes.length;
        }
      }
      return { pauses: seen.pauses, resumes: seen.resumes, writes: seen.writes.slice(i) };
    },
    restore() {
      clock.hold = hold;
      clock.release = release;
      machine.writeMem = writeMem;
    },
  };
}

let probeJob: MatrixJob;
let skewJob: MatrixJob;

test('matrix on checkpoint-probe: both runs pass, each captured both points with one acknowledgement each, the pair is matched', {
  timeout: 180_000,
}, async () => {
  const watch = watchDevice();
  try {
    probeJob = await matrix('checkpoint-probe');
  } finally {
    watch.restore();
  }
  // Mutation budget and one resume per pause episode: two points, two pauses, two resumes — plus
  // the pause the RAM fill is written in, which load_prg's boot cartridge lifts — and past the RAM
  // fill every run starts with, the only writes are the two acknowledgement bytes at $03FE.
  assert.deepEqual(watch.afterRamFill(), {
    pauses: 3,
    resumes: 3,
    writes: [
      [0x03fe, '01'],
      [0x03fe, '02'],
    ],
  });
  assert.equal(probeJob.run_ids.length, 2);
  const runs = await Promise.all(probeJob.run_ids.map(async (id: string) => (await h.get(`/v13/runs/${id}`)).body.run));
  assert.deepEqual(
    runs.map((r) => r.target),
    ['vice', 'ultimate'],
  );
  for (const run of runs) {
    assert.equal(run.status, 'passed', run.status_reason);
    assert.deepEqual(run.observations.memory_checkpoints, {
      evidence: 'checkpoints.json',
      planned: 2,
      captured: 2,
      missing: [],
      acknowledgement_writes: 2,
    });
    assert.ok(run.evidence.some((e: { name: string }) => e.name === 'checkpoints.json'));
  }
  const id = probeJob.checkpoint_comparison_id;
  assert.match(id, /^[0-9a-f-]{36}$/);
  const got = await h.get(`/v13/checkpoint-comparisons/${id}`);
  assert.equal(got.status, 200, JSON.stringify(got.body));
  assert.equal(got.body.checkpoint_comparison_record_schema_version, 1);
  const rec = got.body.checkpoint_comparison;
  assert.equal(rec.checkpoint_comparison_record_schema_version, 1);
  assert.equal(rec.job_id, probeJob.job_id);
  assert.deepEqual(rec.baseline, { run_id: probeJob.run_ids[0], target: 'vice' });
  assert.deepEqual(rec.candidate, { run_id: probeJob.run_ids[1], target: 'ultimate' });
  assert.equal(rec.result, 'matched');
  assert.equal(rec.comparison.checkpoint_comparison_schema_version, 1);
  assert.equal(rec.comparison.result, 'matched');
  assert.equal(rec.comparison.points_compared, 2);
  // The squares 0..15 (low bytes) at the first point, as both machines left them.
  const squares = Array.from({ length: 16 }, (_, i) => (i * i) & 0xff);
  const ev = await h.get(`/v13/runs/${probeJob.run_ids[1]}/evidence/checkpoints.json`);
  const capture = JSON.parse(ev.body.evidence.text);
  assert.equal(capture.points[0].ranges[0].bytes_hex, Buffer.from(squares).toString('hex'));
});

test('matrix on checkpoint-skew: the planted divergence is reported as diverged at exactly $C120 in point "summed"', {
  timeout: 180_000,
}, async () => {
  skewJob = await matrix('checkpoint-skew');
  const got = await h.get(`/v13/checkpoint-comparisons/${skewJob.checkpoint_comparison_id}`);
  const c = got.body.checkpoint_comparison.comparison;
  assert.equal(c.result, 'diverged');
  assert.equal(got.body.checkpoint_comparison.result, 'diverged');
  assert.equal(c.first_divergence, 'summed');
  assert.equal(c.points_diverged, 1);
  const [squares, summed] = c.points;
  assert.equal(squares.matched, true);
  assert.equal(summed.matched, false);
  const byName = Object.fromEntries(summed.ranges.map((r: { name: string }) => [r.name, r]));
  assert.equal(byName.table.matched, true);
  assert.equal(byName.sum.matched, true);
  assert.deepEqual(byName['after-marker'].differences, [
    { from: 0xc120, to: 0xc120, from_hex: '$C120', to_hex: '$C120', baseline_hex: '00', candidate_hex: '01' },
  ]);
});

test('provisional comparison: matched, diverged, incompatible, unavailable as successes; it stores nothing', {
  timeout: 120_000,
}, async () => {
  const before = pairCount();
  const [pv = '', pu = ''] = probeJob.run_ids;
  const [sv = '', su = ''] = skewJob.run_ids;
  const q = (b: string, c: string) => h.get(`/v13/comparisons/checkpoints?baseline=${b}&candidate=${c}`);
  const matched = await q(pv, pu);
  assert.equal(matched.status, 200);
  assert.equal(matched.body.checkpoint_comparison_schema_version, 1);
  assert.equal(matched.body.provisional, true);
  assert.equal(matched.body.result, 'matched');
  assert.equal((await q(sv, su)).body.result, 'diverged');
  const incompatible = await q(pv, su);
  assert.equal(incompatible.body.result, 'incompatible');
  assert.match(incompatible.body.reason, /different tests/);
  const plain = await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'] });
  const plainJob = await h.waitJob(plain.body.job.job_id);
  const unavailable = await q(plainJob.run_ids[0], pu);
  assert.equal(unavailable.body.result, 'unavailable');
  assert.match(unavailable.body.reason, /baseline run captured no memory checkpoints/);
  assert.equal(pairCount(), before, 'the provisional comparison stored nothing');
  const bad = await h.get(`/v13/comparisons/checkpoints?baseline=${pv}`);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid-request');
});

test('list_checkpoint_comparisons: newest first, limit 1-200 default 50', async () => {
  const all = await h.get('/v13/checkpoint-comparisons');
  assert.equal(all.status, 200);
  assert.equal(all.body.checkpoint_comparison_record_schema_version, 1);
  const ids = all.body.checkpoint_comparisons.map((c: { comparison_id: string }) => c.comparison_id);
  assert.deepEqual(ids, [skewJob.checkpoint_comparison_id, probeJob.checkpoint_comparison_id]);
  assert.equal('comparison' in all.body.checkpoint_comparisons[0], false, 'the list carries summaries');
  const one = await h.get('/v13/checkpoint-comparisons?limit=1');
  assert.deepEqual(
    one.body.checkpoint_comparisons.map((c: { comparison_id: string }) => c.comparison_id),
    [skewJob.checkpoint_comparison_id],
  );
  for (const limit of ['0', '201', 'x']) {
    const r = await h.get(`/v13/checkpoint-comparisons?limit=${limit}`);
    assert.equal(r.status, 400, limit);
    assert.equal(r.body.error.code, 'invalid-request');
  }
});

test('checkpoint_comparison_failed: an unknown pair, a corrupt stored pair, an altered checkpoints.json', async () => {
  const unknown = await h.get('/v13/checkpoint-comparisons/123e4567-e89b-42d3-a456-426614174000');
  assert.equal(unknown.status, 422); // checkpoint_comparison_failed has one status (api/errors.ts)
  assert.equal(unknown.body.error.code, 'checkpoint_comparison_failed');
  assert.equal(unknown.body.error.details.reason, 'unknown');

  // Corrupt the stored record on disk (the immutability trigger has to go first: only an outside
  // hand can do this), then read it through the service.
  const db = new Database(dbFile());
  try {
    db.exec('DROP TRIGGER checkpoint_comparisons_immutable_update');
    const row = db.prepare('SELECT record FROM checkpoint_comparisons WHERE comparison_id = ?').get(probeJob.checkpoint_comparison_id) as {
      record: string;
    };
    const doc = JSON.parse(row.record);
    doc.comparison.checkpoint_comparison_schema_version = 7;
    db.prepare('UPDATE checkpoint_comparisons SET record = ? WHERE comparison_id = ?').run(
      JSON.stringify(doc),
      probeJob.checkpoint_comparison_id,
    );
  } finally {
    db.close();
  }
  const corrupt = await h.get(`/v13/checkpoint-comparisons/${probeJob.checkpoint_comparison_id}`);
  assert.equal(corrupt.status, 422);
  assert.equal(corrupt.body.error.code, 'checkpoint_comparison_failed');
  assert.equal(corrupt.body.error.details.reason, 'corrupt-record');
  assert.match(corrupt.body.error.message, /checkpoint_comparison_schema_version/);
  // The service keeps serving, and the other pair is intact.
  assert.equal((await h.get(`/v13/checkpoint-comparisons/${skewJob.checkpoint_comparison_id}`)).status, 200);

  // Alter one byte of a registered checkpoints.json: the provisional comparison refuses it.
  const file = join(h.store, 'runs', skewJob.run_ids[1] ?? '', 'checkpoints.json');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"01"', '"00"'));
  const tampered = await h.get(`/v13/comparisons/checkpoints?baseline=${skewJob.run_ids[0]}&candidate=${skewJob.run_ids[1]}`);
  assert.equal(tampered.status, 422);
  assert.equal(tampered.body.error.code, 'checkpoint_comparison_failed');
  assert.equal(tampered.body.error.details.reason, 'evidence-integrity');
});

test('the matrix rules are checked before the probe handle is consumed', { timeout: 120_000 }, async () => {
  const probe = await h.probe();
  const resetsBefore = h.counts.resets;
  const base = { probe_id: probe, confirmed_reset_count: 1, confirmed_reu_write_count: 0, compare_checkpoints: true };
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ test: 'checkpoint-probe', targets: ['ultimate', 'vice'] }, /exactly \["vice","ultimate"\] in that order/],
    [{ test: 'checkpoint-probe', targets: ['ultimate'] }, /exactly \["vice","ultimate"\]/],
    [{ test: 'checkpoint-probe', targets: ['vice', 'ultimate'], repeat: 2, confirmed_reset_count: 2 }, /repeat 1/],
    [{ test: 'sum-passes', targets: ['vice', 'ultimate'] }, /memory_checkpoint_capture = true/],
  ];
  for (const [body, message] of cases) {
    const r = await h.post('/v13/jobs', { ...base, ...body });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'invalid-request');
    assert.match(r.body.error.message, message);
    const row = probeRow(probe);
    assert.equal(row.consumed_at_ms, null, 'the probe is still unconsumed');
    assert.equal(row.consumed_by_job, null);
  }
  assert.equal(h.counts.resets, resetsBefore, 'nothing reached the device');
  // The same probe still starts a valid matrix job: it was never consumed.
  const okJob = await h.post('/v13/jobs', { ...base, test: 'checkpoint-probe', targets: ['vice', 'ultimate'] });
  assert.equal(okJob.status, 201, JSON.stringify(okJob.body));
  assert.equal(probeRow(probe).consumed_by_job, okJob.body.job.job_id);
  await h.waitJob(okJob.body.job.job_id);
});

test('a failure inside a pause episode ends the Ultimate run as error, without a retry and with one resume; the pair is unavailable', {
  timeout: 180_000,
}, async () => {
  const faults = faultsFor(h.dev);
  const injectedBefore = faults.injected;
  faults.failNext({ method: 'GET', path: '/v1/machine:readmem', status: 503 });
  const watch = watchDevice();
  let job: MatrixJob;
  try {
    job = await matrix('checkpoint-probe');
  } finally {
    watch.restore();
  }
  assert.equal(faults.injected - injectedBefore, 1);
  // One pause, its failed read, no acknowledgement, exactly one resume (beside the RAM fill's pause,
  // lifted by load_prg); the run did not go on (past the RAM fill every run starts with, nothing was written).
  assert.deepEqual(watch.afterRamFill(), { pauses: 2, resumes: 2, writes: [] });
  const [vice, ultimate] = await Promise.all(job.run_ids.map(async (id) => (await h.get(`/v13/runs/${id}`)).body.run));
  assert.equal(vice.status, 'passed');
  assert.equal(ultimate.status, 'error');
  assert.match(ultimate.status_reason, /503|readmem/i);
  assert.equal(
    ultimate.evidence.some((e: { name: string }) => e.name === 'checkpoints.json'),
    false,
  );
  const pair = await h.get(`/v13/checkpoint-comparisons/${job.checkpoint_comparison_id}`);
  assert.equal(pair.body.checkpoint_comparison.result, 'unavailable');
  assert.match(pair.body.checkpoint_comparison.comparison.reason, /candidate run captured no memory checkpoints/);
});
