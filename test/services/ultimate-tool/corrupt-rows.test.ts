// A corrupted row in the service store (issue 21, reliability findings): the read of that row is a
// clear error naming the run or job and the store; lists skip it and keep answering for the rest.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
const RUN = '0b7e5a8c-1d2f-4a3b-8c4d-5e6f7a8b9c0d';
before(async () => {
  h = await startHarness();
  // A second connection, as a disk error or a hand edit would leave the rows.
  const db = new Database(join(h.store, 'service.sqlite3'));
  db.prepare("INSERT INTO jobs (job_id, created_seq, state, doc) VALUES ('good-job', 1, 'finished', ?)").run(
    JSON.stringify({
      job_id: 'good-job',
      state: 'finished',
      test: 'passes',
      targets: ['vice'],
      repeat: 1,
      strict_gate: false,
      baseline_run_id: null,
      created_at: '2026-12-01T00:00:00.000Z',
      started_at: null,
      finished_at: null,
      progress: { completed_runs: 0, total_runs: 1, phase: 'finished' },
      run_ids: [],
      error: null,
    }),
  );
  db.prepare("INSERT INTO jobs (job_id, created_seq, state, doc) VALUES ('broken-job', 2, 'finished', '{not json')").run();
  // The summary stays valid JSON (an index reads it); the full record is what is damaged.
  const summary = JSON.stringify({ run_id: RUN, job_id: 'good-job', test: 'passes', target: 'vice', status: 'passed' });
  db.prepare("INSERT INTO runs (run_id, job_id, test, target, summary, record) VALUES (?, 'good-job', 'passes', 'vice', ?, '{bad')").run(
    RUN,
    summary,
  );
  db.close();
});
after(() => h?.close());

test('GET /v13/jobs lists the readable jobs and skips the corrupted row', async () => {
  const r = await h.get('/v13/jobs');
  assert.equal(r.status, 200);
  assert.deepEqual(
    r.body.jobs.map((j: { job_id: string }) => j.job_id),
    ['good-job'],
  );
});

test('GET of the corrupted job and run names the row and the store', async () => {
  const job = await h.get('/v13/jobs/broken-job');
  assert.equal(job.status, 500);
  assert.match(job.body.error.message, /job broken-job in the store .* is corrupted/);
  const run = await h.get(`/v13/runs/${RUN}`);
  assert.equal(run.status, 500);
  assert.match(run.body.error.message, new RegExp(`run ${RUN} in the store .* is corrupted`));
  // The list (summaries) keeps answering.
  const runs = await h.get('/v13/runs');
  assert.equal(runs.status, 200);
  assert.deepEqual(
    runs.body.runs.map((r: { run_id: string }) => r.run_id),
    [RUN],
  );
});
