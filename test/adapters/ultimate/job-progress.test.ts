// MCP progress of a polled test job (adapters/ultimate/job-progress.ts): with a progressToken,
// get_job and get_active_job send ONE notifications/progress before the answer — completed runs
// of planned, the same figures as the answer's job.progress — while the job is queued or running;
// nothing for a settled job and nothing without a token. Read off the raw wire of a real adapter
// process (the official SDK client dispatches notifications a microtask late and can drop them:
// test/adapters/topup/progress.test.ts) against a real service with the virtual C64 as its vice target.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openRawAdapterWire } from '../../helpers/raw-adapter-wire.js';
import { startUltimateStack, type UltimateStack } from '../../helpers/ultimate-stack.js';

let stack: UltimateStack;

before(async () => {
  stack = await startUltimateStack('ultimate-job-progress');
});
after(async () => {
  await stack?.close();
});

const REPEAT = 20;

test('get_job / get_active_job with a progressToken: runs finished out of planned, once, before the answer; none when settled or unasked', {
  timeout: 240_000,
}, async () => {
  const wire = await openRawAdapterWire(stack.serviceUrl);
  try {
    const { lines, request } = wire;
    /** One tool call; the envelope's data and the progress notifications of `token` sent before its answer. */
    const call = async (name: string, args: Record<string, unknown>, token?: string) => {
      const before = lines.length;
      const { at, message } = await request('tools/call', { name, arguments: args, ...(token ? { _meta: { progressToken: token } } : {}) });
      const envelope = message.result.structuredContent as Record<string, any>;
      assert.ok(envelope.data, `${name}: ${JSON.stringify(envelope.error)}`);
      const progress = lines.slice(before, at).filter((m) => m.method === 'notifications/progress' && m.params.progressToken === token);
      return { data: envelope.data, progress };
    };
    const waitFor = async (what: string, pred: (job: Record<string, any>) => boolean, jobId: string) => {
      const end = Date.now() + 120_000;
      for (;;) {
        const { data } = await call('get_job', { job_id: jobId });
        if (pred(data.job)) return data.job;
        if (Date.now() > end) throw new Error(`job ${jobId} never ${what}: ${JSON.stringify(data.job)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    const started = await call('start_test_job', { test: 'sum-passes', targets: ['vice'], repeat: REPEAT });
    const jobId = started.data.job.job_id as string;

    // Polled while it is queued or running: one report, the answer's own figures.
    const polled = await call('get_job', { job_id: jobId }, 'poll-1');
    assert.ok(['queued', 'running'].includes(polled.data.job.state), `still live: ${polled.data.job.state}`);
    assert.equal(polled.progress.length, 1, JSON.stringify(polled.progress));
    const p = polled.progress[0]!.params;
    assert.equal(p.total, REPEAT);
    assert.equal(p.total, polled.data.job.progress.total_runs);
    assert.equal(p.progress, polled.data.job.progress.completed_runs);
    assert.match(p.message, new RegExp(`^${p.progress} of ${REPEAT} run\\(s\\) finished \\(job ${jobId}, `));

    const running = await waitFor('ran', (j) => j.state === 'running', jobId);
    assert.equal(running.progress.total_runs, REPEAT);
    const active = await call('get_active_job', {}, 'active-1');
    assert.equal(active.data.job?.job_id, jobId);
    assert.equal(active.progress.length, 1, JSON.stringify(active.progress));
    assert.equal(active.progress[0]!.params.progress, active.data.job.progress.completed_runs);
    assert.equal(active.progress[0]!.params.total, REPEAT);

    // Without a token: nothing (checked below over the whole wire).
    await call('get_job', { job_id: jobId });

    // Settled: the answer alone.
    const cancel = await fetch(`${stack.serviceUrl}/v13/jobs/${jobId}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(cancel.status, 200);
    await waitFor('settled', (j) => ['finished', 'failed', 'cancelled'].includes(j.state), jobId);
    const settled = await call('get_job', { job_id: jobId }, 'settled-1');
    assert.equal(settled.progress.length, 0, JSON.stringify(settled.progress));

    // A last round trip: anything sent for the calls above is on the wire before its answer.
    await request('ping', {});
    const reports = lines.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progressToken);
    assert.deepEqual(reports, ['poll-1', 'active-1'], 'one report per live poll with a token, none otherwise');
  } finally {
    wire.close();
  }
});
