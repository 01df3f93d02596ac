// The small inconsistencies issue 21's probe found, each refused the same way on every route: an
// address with a trailing newline, an unknown query parameter on a route that takes none, and a
// malformed timeline request that was answered "no capture" before its parameters were checked.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
// A committed run without a debug-stream capture (written directly: no emulator run needed).
const RUN = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
before(async () => {
  h = await startHarness();
  const record = {
    run_record_schema_version: 9,
    run_id: RUN,
    job_id: 'j',
    test: 'sum-passes',
    target: 'vice',
    target_identity: {},
    emulation: true,
    candidate: { artifact_sha256: null, artifact_name: 'pass.prg', build: {} },
    started_at: '2026-12-01T00:00:00.000Z',
    finished_at: '2026-12-01T00:00:01.000Z',
    timings: {},
    expectations: {},
    observations: {},
    status: 'passed',
    status_reason: '',
    screen_match: null,
    supporting_artifacts: [],
    evidence: [],
    crash_state: null,
    comparison: null,
  };
  const summary = { run_id: RUN, job_id: 'j', test: 'sum-passes', target: 'vice', status: 'passed' };
  const db = new Database(join(h.store, 'service.sqlite3'));
  db.prepare("INSERT INTO runs (run_id, job_id, test, target, summary, record) VALUES (?, 'j', 'sum-passes', 'vice', ?, ?)").run(
    RUN,
    JSON.stringify(summary),
    JSON.stringify(record),
  );
  db.close();
});
after(() => h?.close());

test('a timeline request with a malformed limit is refused for the limit, before the run is looked at', async () => {
  const r = await h.get(`/v13/runs/${RUN}/timeline?limit=abc`);
  assert.equal(r.status, 409); // timeline_failed has one status (api/errors.ts)
  assert.equal(r.body.error.code, 'timeline_failed');
  assert.equal(r.body.error.details.reason, 'invalid-limit');
  // A well-formed request on the same run still says what the run lacks.
  const ok = await h.get(`/v13/runs/${RUN}/timeline?limit=10`);
  assert.equal(ok.status, 409);
  assert.equal(ok.body.error.details.reason, 'no-capture');
});

test('an address with a trailing newline is not an address', async () => {
  const r = await h.get(`/v13/runs/${RUN}/resolve?address=${encodeURIComponent('$C000\n')}`);
  assert.equal(r.status, 400);
  assert.equal(r.body.error.code, 'invalid-request');
  assert.match(r.body.error.message, /not decimal, \$ABCD or 0xABCD/);
});

test('a route that takes no query parameters refuses an unknown one, naming it', async () => {
  for (const path of ['/v13/project?verbose=1', `/v13/runs/${RUN}?fields=all`, '/v13/jobs/active?x=1']) {
    const r = await h.get(path);
    assert.equal(r.status, 400, path);
    assert.equal(r.body.error.code, 'invalid-request');
    assert.match(r.body.error.message, /takes no query parameters; got (verbose|fields|x)/);
  }
  assert.equal((await h.get('/v13/project')).status, 200);
});
