// The HTTP API itself: bad input on every route answers a structured error (code + message naming
// what is wrong and what was expected) and the service keeps serving; evidence reading is confined
// to registered files; the OpenAPI document is generated from the route schemas; build failures
// are finished jobs; /resolve and /comparisons/runs validate and 404 before any analysis.
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
let runId: string;
before(async () => {
  h = await startHarness();
  const r = await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'] });
  const job = await h.waitJob(r.body.job.job_id);
  runId = job.run_ids[0];
});
after(async () => {
  await h.close();
});

/** A GET with the path sent exactly as written (fetch would normalize "..") */
function rawGet(path: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: h.svc.port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const UNKNOWN_UUID = '11111111-2222-4333-8444-555555555555';

function assertError(r: { status: number; body: any }, status: number, code: string, pattern?: RegExp): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.api_schema_version, 13);
  assert.equal(r.body.error.code, code);
  assert.equal(typeof r.body.error.message, 'string');
  if (pattern) assert.match(r.body.error.message, pattern);
}

describe('API schema 13', { timeout: 120_000 }, () => {
  it('get_project returns the validated manifest, the tests and the REU image', async () => {
    const r = await h.get('/v13/project');
    assert.equal(r.status, 200);
    assert.equal(r.body.project.manifest.name, 'c64-example');
    assert.deepEqual(
      r.body.project.tests.map((t: any) => t.name),
      [
        'sum-passes',
        'sum-passes-ca65',
        'arithmetic-fails',
        'greeting-on-screen',
        'brk-crash',
        'timeline-probe',
        'checkpoint-probe',
        'checkpoint-skew',
        'hang-times-out',
        'sum-verdict-00',
      ],
    );
    assert.equal(r.body.project.ultimate_reu_image, null);
    assert.equal(r.body.project.tests.find((t: any) => t.name === 'timeline-probe').memory_checkpoint_capture, true);
  });

  it('list_targets labels the virtual device as emulation and says why a target is unavailable', async () => {
    const r = await h.get('/v13/targets');
    const byName = Object.fromEntries(r.body.targets.map((t: any) => [t.target, t]));
    assert.equal(byName.vice.available, true);
    assert.equal(byName.ultimate.available, true);
    assert.equal(byName.ultimate.emulation, true);
    assert.match(byName.ultimate.description, /EMULATION/);
  });

  it('unknown and malformed ids, out-of-range limits, extra fields and bad JSON are structured errors', async () => {
    assertError(await h.get(`/v13/runs/${UNKNOWN_UUID}`), 404, 'not-found');
    assertError(await h.get('/v13/runs/not-a-uuid'), 400, 'invalid-request', /UUID/);
    assertError(await h.get('/v13/runs/ABCDEF12-2222-4333-8444-555555555555'), 400, 'invalid-request');
    assertError(await h.get('/v13/jobs/nope'), 404, 'not-found');
    assertError(await h.get('/v13/runs?limit=0'), 400, 'invalid-request', /limit/);
    assertError(await h.get('/v13/runs?limit=101'), 400, 'invalid-request', /limit/);
    assertError(await h.get('/v13/runs?limit=abc'), 400, 'invalid-request', /limit/);
    assertError(await h.get('/v13/runs?target=c128'), 400, 'invalid-request', /target/);
    assertError(await h.get('/v13/runs?colour=red'), 400, 'invalid-request', /colour/);
    assertError(await h.get('/v13/runs?limit=1&limit=2'), 400, 'invalid-request', /twice/);
    assertError(await h.get('/v13/runs?cursor=bogus'), 400, 'invalid-request', /cursor/);
    assertError(await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'], extra: 1 }), 400, 'invalid-request', /extra/);
    assertError(await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'], repeat: 0 }), 400, 'invalid-request', /repeat/);
    assertError(await h.post('/v13/jobs', { test: 'sum-passes', targets: [] }), 400, 'invalid-request', /targets/);
    assertError(await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice', 'vice'] }), 400, 'invalid-request', /repeat/);
    assertError(await h.post('/v13/jobs', { test: 'no-such-test', targets: ['vice'] }), 400, 'invalid-request', /no test "no-such-test"/);
    assertError(
      await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'], baseline_run_id: 'x' }),
      400,
      'invalid-request',
      /baseline_run_id/,
    );
    assertError(await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'], baseline_run_id: UNKNOWN_UUID }), 404, 'not-found');
    assertError(await h.post('/v13/jobs', '{not json'), 400, 'invalid-request', /not JSON/);
    assertError(await h.post('/v13/probes', { strict_gate: 'yes' }), 400, 'invalid-request', /strict_gate/);
    assertError(await h.get('/v13/nothing'), 404, 'not-found', /openapi/);
    assertError(await h.get('/v12/runs'), 404, 'not-found');
    assertError(await h.post('/v13/runs', {}), 405, 'method_not_allowed', /not allowed/);
    // still serving
    assert.equal((await h.get('/v13/targets')).status, 200);
  });

  it('read_evidence is confined to registered files and verifies their checksum', async () => {
    const run = (await h.get(`/v13/runs/${runId}`)).body.run;
    assert.ok(run.evidence.length >= 8);
    for (const e of run.evidence) assert.match(e.sha256, /^[0-9a-f]{64}$/);
    assertError(await h.get(`/v13/runs/${runId}/evidence/..%2F..%2Fservice.sqlite3`), 404, 'evidence_not_registered');
    assertError(await rawGet(`/v13/runs/${runId}/evidence/..`), 404, 'evidence_not_registered');
    assertError(await rawGet(`/v13/runs/${runId}/evidence/.hidden`), 404, 'evidence_not_registered');
    assertError(await h.get(`/v13/runs/${runId}/evidence/%2Fetc%2Fpasswd`), 404, 'evidence_not_registered');
    assertError(await h.get(`/v13/runs/${runId}/evidence/not-there.txt`), 404, 'evidence_not_registered');
    assertError(await h.get(`/v13/runs/${UNKNOWN_UUID}/evidence/screen.txt`), 404, 'not-found');
    // Tampering is detected, not served.
    appendFileSync(join(h.store, 'runs', runId, 'screen.txt'), 'tampered');
    assertError(await h.get(`/v13/runs/${runId}/evidence/screen.txt`), 409, 'evidence_checksum_mismatch');
    const path = join(h.store, 'runs', runId, 'build-stdout.txt');
    const original = readFileSync(path);
    writeFileSync(path, Buffer.from(original).fill(0x41));
    assertError(await h.get(`/v13/runs/${runId}/evidence/build-stdout.txt`), 409, 'evidence_checksum_mismatch', /SHA-256/);
    // the record itself never changed
    assert.deepEqual((await h.get(`/v13/runs/${runId}`)).body.run, run);
  });

  it('resolve and compare validate their input and 404 unknown runs (analysis itself: the symbols module)', async () => {
    assertError(await h.get(`/v13/runs/${runId}/resolve`), 400, 'invalid-request', /address/);
    assertError(await h.get(`/v13/runs/${runId}/resolve?address=$10000`), 400, 'invalid-request', /ABCD/);
    assertError(await h.get(`/v13/runs/${runId}/resolve?address=zz`), 400, 'invalid-request');
    assertError(await h.get(`/v13/runs/${UNKNOWN_UUID}/resolve?address=0x0801`), 404, 'not-found');
    assertError(await h.get(`/v13/comparisons/runs?baseline=${runId}`), 400, 'invalid-request', /candidate/);
    assertError(await h.get(`/v13/comparisons/runs?baseline=${runId}&candidate=${UNKNOWN_UUID}`), 404, 'not-found');
    // The service's own label/map analysis answers from the run's snapshotted labels.
    const r = await h.get(`/v13/runs/${runId}/resolve?address=%24080D`);
    assert.equal(r.status, 200);
    assert.equal(r.body.resolver_schema_version, 2);
    assert.equal(r.body.result, 'resolved', JSON.stringify(r.body));
    assert.equal(r.body.address, 0x080d);
    const unmapped = await h.get(`/v13/runs/${runId}/resolve?address=0`);
    assert.equal(unmapped.body.result, 'unmapped', JSON.stringify(unmapped.body));
    const c = await h.get(`/v13/comparisons/runs?baseline=${runId}&candidate=${runId}`);
    assert.equal(c.body.comparison_schema_version, 1);
    assert.equal(c.body.result, 'compared', JSON.stringify(c.body));
  });

  it('run records are immutable in the store itself', async () => {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(h.store, 'service.sqlite3'));
    try {
      assert.throws(() => db.prepare("UPDATE runs SET record = '{}' WHERE run_id = ?").run(runId), /immutable/);
      assert.throws(() => db.prepare('DELETE FROM runs WHERE run_id = ?').run(runId), /immutable/);
    } finally {
      db.close();
    }
  });

  it('publishes an OpenAPI 3.1 document generated from the same schemas', async () => {
    const r = await h.get('/v13/openapi.json');
    assert.equal(r.status, 200);
    assert.equal(r.body.openapi, '3.1.0');
    const jobs = r.body.paths['/v13/jobs'].post;
    const body = jobs.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(body.properties).sort(), [
      'baseline_run_id',
      'compare_checkpoints',
      'confirmed_reset_count',
      'confirmed_reu_write_count',
      'probe_id',
      'repeat',
      'strict_gate',
      'targets',
      'test',
    ]);
    assert.equal(body.additionalProperties, false);
    const limit = r.body.paths['/v13/runs'].get.parameters.find((p: any) => p.name === 'limit');
    assert.equal(limit.schema.maximum, 100);
    const run = r.body.paths['/v13/runs/{run_id}'].get.responses['200'].content['application/json'].schema;
    assert.equal(run.properties.run.properties.run_record_schema_version.const, 9);
    for (const p of [
      '/v13/project',
      '/v13/targets',
      '/v13/jobs/active',
      '/v13/probes',
      '/v13/comparisons/runs',
      '/v13/runs/{run_id}/resolve',
    ])
      assert.ok(r.body.paths[p], p);
  });

  it('a failing build is a finished job with a clear build failure and readable build logs', async () => {
    const source = readFileSync(join(h.project, 'src', 'pass.asm'));
    writeFileSync(join(h.project, 'src', 'pass.asm'), 'this is not assembly\n');
    try {
      const r = await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'] });
      const job = await h.waitJob(r.body.job.job_id);
      assert.equal(job.state, 'finished');
      assert.equal(job.error.code, 'build_failed');
      assert.match(job.error.message, /exited with status/);
      // The assembler's own error is in the job's error, not only in build-stderr.txt (issue 35).
      assert.match(job.error.message, /stderr ends with:\n[\s\S]*pass\.asm/);
      const run = (await h.get(`/v13/runs/${job.run_ids[0]}`)).body.run;
      assert.equal(run.status, 'error');
      assert.equal(run.candidate.build.status, 'failed');
      assert.equal(run.candidate.artifact_sha256, null);
      const log = await h.get(`/v13/runs/${run.run_id}/evidence/build-stderr.txt`);
      assert.match(log.body.evidence.text, /pass\.asm/);
    } finally {
      writeFileSync(join(h.project, 'src', 'pass.asm'), source);
    }
  });
});
