// A job running when the service stops (SIGTERM ends `ultimate-tool serve` with service.stop())
// is recorded as interrupted with the runs it committed, not as "cancelled before it could run"
// (issue 21, reliability findings). A queued job is still cancelled.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { ServiceStore } from '../../../services/ultimate-tool/store/store.js';
import { startHarness } from './harness.js';

test('stop() while a job runs: the job is failed/interrupted and keeps its committed runs', { timeout: 240_000 }, async () => {
  const h = await startHarness();
  try {
    const started = await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'], repeat: 20 });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const jobId = started.body.job.job_id as string;
    // Wait until at least one run is committed (polling the job; the run count is the condition).
    for (;;) {
      const { body } = await h.get(`/v13/jobs/${jobId}`);
      if (body.job.progress.completed_runs >= 1) break;
      assert.equal(body.job.state === 'finished' || body.job.state === 'failed', false, 'the job ended before it could be stopped');
      await new Promise((r) => setTimeout(r, 50));
    }
    await h.svc.stop();

    const store = new ServiceStore(h.store);
    try {
      const job = store.getJob(jobId)!;
      assert.equal(job.state, 'failed');
      assert.equal(job.error?.code, 'interrupted');
      assert.match(job.error?.message ?? '', /stopped while this job was running/);
      assert.ok(job.run_ids.length >= 1 && job.run_ids.length < 20, `run_ids ${job.run_ids.length}`);
      for (const id of job.run_ids) assert.ok(store.getRun(id), `run ${id} kept`);
    } finally {
      store.close();
    }
  } finally {
    await h.dev.stop();
    rmSync(dirname(h.store), { recursive: true, force: true });
  }
});
