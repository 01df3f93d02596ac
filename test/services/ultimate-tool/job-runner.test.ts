// The one job runner (services/ultimate-tool/jobs/job-runner.ts): the per-target queue bound is
// checked before any work (queue_full, 429: no job stored, no probe consumed), and POST
// /v13/jobs/{job_id}/cancel cancels a queued job outright and a running one at its next safe step,
// keeping the runs it committed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Harness, startHarness } from './harness.js';

let h: Harness;

before(async () => {
  h = await startHarness({ service: { maxJobsPerTarget: 2 } });
});
after(async () => {
  await h?.close();
});

async function jobCount(): Promise<number> {
  return (await h.get('/v13/jobs?limit=100')).body.jobs.length;
}

test('queue bound, then cancel: queued outright, running at its next safe step, settled refused', { timeout: 240_000 }, async () => {
  // The device's jobs queue behind its lease (vice jobs do not: they share the emulator pool).
  const ultimateJob = async (repeat = 1) =>
    h.post('/v13/jobs', {
      test: 'sum-passes',
      targets: ['ultimate'],
      repeat,
      probe_id: await h.probe(),
      confirmed_reset_count: repeat,
      confirmed_reu_write_count: 0,
    });
  const running = await ultimateJob(20);
  assert.equal(running.status, 201, JSON.stringify(running.body));
  const queued = await ultimateJob();
  assert.equal(queued.status, 201, JSON.stringify(queued.body));
  const stored = await jobCount();

  // The ultimate queue holds 2 jobs: a third is refused before anything is stored or consumed.
  const probe = await h.probe();
  const full = await h.post('/v13/jobs', {
    test: 'sum-passes',
    targets: ['vice', 'ultimate'],
    probe_id: probe,
    confirmed_reset_count: 1,
    confirmed_reu_write_count: 0,
  });
  assert.equal(full.status, 429, JSON.stringify(full.body));
  assert.equal(full.body.error.code, 'queue_full');
  assert.deepEqual(full.body.error.details, { target: 'ultimate', limit: 2 });
  assert.equal(await jobCount(), stored, 'a refused job leaves no row');

  // The queued job is cancelled outright: it never runs.
  const q = await h.post(`/v13/jobs/${queued.body.job.job_id}/cancel`, {});
  assert.equal(q.status, 200, JSON.stringify(q.body));
  // The answer is the cancelled record, not the queued one a later GET contradicts (issue 36).
  assert.equal(q.body.job.state, 'cancelled', JSON.stringify(q.body.job));
  assert.equal(q.body.job.error.code, 'cancelled');
  const qDone = await h.waitJob(queued.body.job.job_id);
  assert.equal(qDone.state, 'cancelled');
  assert.equal(qDone.error.code, 'cancelled');
  assert.equal(qDone.started_at, null);
  assert.deepEqual(qDone.run_ids, []);

  // The running job stops at its next safe step (between runs), keeping what it committed.
  const jobId = running.body.job.job_id as string;
  for (;;) {
    const { body } = await h.get(`/v13/jobs/${jobId}`);
    if (body.job.progress.completed_runs >= 1) break;
    assert.equal(body.job.state === 'queued' || body.job.state === 'running', true, 'the job ended before it could be cancelled');
    await new Promise((r) => setTimeout(r, 50));
  }
  const r = await h.post(`/v13/jobs/${jobId}/cancel`, {});
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.job.cancel_requested, true);
  const done = await h.waitJob(jobId);
  assert.equal(done.state, 'cancelled', JSON.stringify(done));
  assert.equal(done.error.code, 'cancelled');
  assert.match(done.error.message, /committed run\(s\) are kept/);
  assert.ok(done.run_ids.length >= 1 && done.run_ids.length < 20, `run_ids ${done.run_ids.length}`);
  for (const id of done.run_ids) assert.equal((await h.get(`/v13/runs/${id}`)).status, 200, `run ${id} kept`);

  // A job that has ended cannot be cancelled; an unknown one is not found; the body is {}.
  const again = await h.post(`/v13/jobs/${jobId}/cancel`, {});
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'job_settled');
  assert.equal(again.body.error.details.state, 'cancelled');
  const unknown = await h.post('/v13/jobs/no-such-job/cancel', {});
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'not-found');
  const withBody = await h.post(`/v13/jobs/${jobId}/cancel`, { force: true });
  assert.equal(withBody.status, 400);
  // The probe the refused job named was not consumed.
  const useProbe = await h.post('/v13/jobs', {
    test: 'sum-passes',
    targets: ['ultimate'],
    probe_id: probe,
    confirmed_reset_count: 1,
    confirmed_reu_write_count: 0,
  });
  assert.equal(useProbe.status, 201, `the probe was not consumed by the refusal: ${JSON.stringify(useProbe.body)}`);
  await h.waitJob(useProbe.body.job.job_id);
});
