// A harness-convention run (no verdict) on the ultimate target with a debug-stream receiver is
// observed from the stream, as a verdict run is: REST polling (every 15 ms) missed markers written
// within one poll — timeline-probe writes its 16 markers ~10 ms apart — and counted no cycles. Its
// behaviour stays: checkpoints are still read in pause episodes acknowledged through the harness
// ($03FE), and the end state is still read from the machine after the end.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Harness, startHarness } from '../harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

async function ultimateRun(name: string): Promise<any> {
  const start = await h.post('/v13/jobs', {
    test: name,
    targets: ['ultimate'],
    probe_id: await h.probe(),
    confirmed_reset_count: 1,
    confirmed_reu_write_count: 0,
  });
  assert.equal(start.status, 201, JSON.stringify(start.body));
  const job = await h.waitJob(start.body.job.job_id);
  assert.equal(job.state, 'finished', JSON.stringify(job));
  return (await h.get(`/v13/runs/${job.run_ids[0]}`)).body.run;
}

test('timeline-probe (harness convention): all 16 quick markers, each with its cycle, from the stream', { timeout: 120_000 }, async () => {
  const run = await ultimateRun('timeline-probe');
  assert.equal(run.status, 'passed', run.status_reason);
  assert.equal(run.observations.protocol, 'harness');
  assert.deepEqual(
    run.observations.progress_markers,
    Array.from({ length: 16 }, (_, i) => i + 1),
  );
  assert.equal(run.observations.debug_register_writes_exact, true);
  assert.equal(run.observations.cycle_source, 'debug-stream');
  const writes = run.observations.debug_register_writes as Array<{ value: number; cycle: number }>;
  assert.deepEqual(
    writes.map((w) => w.value),
    [...Array.from({ length: 16 }, (_, i) => i + 1), 0x80],
  );
  for (let i = 1; i < writes.length; i++) assert.ok(writes[i]!.cycle > writes[i - 1]!.cycle, `write ${i + 1} after write ${i}`);
  // Read from the machine after the end, as a polled harness run is: not reconstructed from the trace.
  assert.equal(run.observations.end_state.exact, false);
  assert.match(run.observations.end_state.at, /^after the write of \$80 to \$D7FF that ended the run/);
});

test('checkpoint-probe (harness handshake): both points captured in pause episodes, acknowledged, with exact writes', {
  timeout: 120_000,
}, async () => {
  const run = await ultimateRun('checkpoint-probe');
  assert.equal(run.status, 'passed', run.status_reason);
  assert.equal(run.observations.cycle_source, 'debug-stream');
  assert.equal(run.observations.memory_checkpoints.captured, 2);
  assert.equal(run.observations.memory_checkpoints.acknowledgement_writes, 2);
  assert.equal(run.observations.memory_checkpoints.handshake, undefined, 'the handshake is on');
});
