// Real runs of the example project, made through the service's own routes exactly as a client
// would: test jobs (POST /v13/jobs) for pass, fail, screen_match and crash on the vice target; a
// source-linked capture of timeline-probe on the (virtual) Ultimate for a timeline; a
// compare_checkpoints job for a stored checkpoint comparison.
import assert from 'node:assert/strict';
import type { ServiceApi } from './service-api.js';

export interface ExampleRuns {
  passed: string;
  failed: string;
  screen: string;
  crashed: string;
  timeline: string;
  checkpointComparison: string;
}

async function jobRun(api: ServiceApi, test: string): Promise<string> {
  const r = await api.post('/v13/jobs', { test, targets: ['vice'] });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const job = await api.finishedJob(r.body.job.job_id);
  assert.equal(job.state, 'finished', JSON.stringify(job));
  return job.run_ids[0] as string;
}

export async function makeExampleRuns(api: ServiceApi): Promise<ExampleRuns> {
  const passed = await jobRun(api, 'sum-passes');
  const failed = await jobRun(api, 'arithmetic-fails');
  const screen = await jobRun(api, 'greeting-on-screen');
  const crashed = await jobRun(api, 'brk-crash');

  const prep = await api.post('/v13/captures/source-linked/preparations', {
    probe_id: await api.probe(),
    receiver_ipv4: '127.0.0.1',
    test: 'timeline-probe',
  });
  assert.equal(prep.status, 201, JSON.stringify(prep.body));
  const started = await api.post(`/v13/captures/source-linked/preparations/${prep.body.preparation.preparation_id}/start`, {
    confirmed_reset_count: 1,
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  // A capture start queues a capture job; its run is the job's one run once it has ended.
  const captured = await api.finishedJob(started.body.job.job_id);
  assert.equal(captured.state, 'finished', JSON.stringify(captured));
  const timeline = captured.run_ids[0] as string;

  const matrix = await api.post('/v13/jobs', {
    test: 'checkpoint-probe',
    targets: ['vice', 'ultimate'],
    compare_checkpoints: true,
    probe_id: await api.probe(),
    confirmed_reset_count: 1,
    confirmed_reu_write_count: 0,
  });
  assert.equal(matrix.status, 201, JSON.stringify(matrix.body));
  const done = await api.finishedJob(matrix.body.job.job_id);
  assert.equal(done.state, 'finished', JSON.stringify(done));
  assert.ok(done.checkpoint_comparison_id, 'the matrix job stored a pair record');
  return { passed, failed, screen, crashed, timeline, checkpointComparison: done.checkpoint_comparison_id as string };
}
