// What the judge is given for a capture run (jobs/captures.ts captureWait): the capture's own trace
// when it holds the run's end, its exact writes with a timeout when it holds the whole run and no
// end, otherwise the polled end with the trace's writes and the polled ones after them, without
// cycles. And the post-stop pass marker judged as one more check: a verdict that passes with a
// marker that does not match fails the run, naming the marker.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CAPTURE_END_STATE, captureWait, passMarkerCheck } from '../../../../../services/ultimate-tool/jobs/captures.js';
import { TestSchema } from '../../../../../services/ultimate-tool/project/manifest.js';
import { judgeRun } from '../../../../../services/ultimate-tool/runs/run-judge.js';
import type { CrashState, DebugWait } from '../../../../../services/ultimate-tool/targets/connection.js';
import type { CaptureJudgement } from '../../../../../services/ultimate-tool/timeline/capture-judge.js';

const TEST = TestSchema.parse({
  name: 't',
  artifact: 'a',
  observe: 'debug_register',
  expect: { debug_register: 0x80 },
  budget: { time_ms: 1000, cycles: 5000 },
});
const polledEnd: DebugWait = {
  writes: [
    { value: 1, cycle: 0 },
    { value: 3, cycle: 0 },
    { value: 0x80, cycle: 0 },
  ],
  writesExact: false,
  cycleSource: null,
  endState: { cycle: null, at: 'polled', exact: false, how: 'REST' },
  outcome: 'ended',
  verdict: 'pass',
  value: 0x80,
};
const noHarnessCrash = async (): Promise<CrashState> => {
  throw new Error('no harness crash here');
};
const trace = (o: Partial<CaptureJudgement>): CaptureJudgement => ({
  writes: [],
  writesExact: true,
  cutBeforeEnd: false,
  cycleSource: 'debug-stream',
  sawVicHalves: true,
  started: true,
  end: null,
  ...o,
});
const marker = { value: 0x80, value_hex: '$80', expected_hex: '$80', matched: true };

test('a trace that holds the end decides: its writes, its cycles, its end', async () => {
  const judged = trace({
    writes: [
      { value: 1, cycle: 100 },
      { value: 2, cycle: 200 },
      { value: 3, cycle: 300 },
      { value: 0x80, cycle: 4000 },
    ],
    end: { outcome: 'ended', verdict: 'pass', value: 0x80 },
  });
  const w = await captureWait(judged, polledEnd, noHarnessCrash);
  assert.equal(w.outcome, 'ended');
  assert.equal(w.cycleSource, 'debug-stream');
  assert.equal(w.writesExact, true);
  assert.deepEqual(w.endState, CAPTURE_END_STATE);
  const j = judgeRun(TEST, { wait: w, range: null, screen: null, memory: [], extra: [passMarkerCheck(marker)] });
  assert.equal(j.status, 'passed', j.reason);
  assert.deepEqual(j.budget?.used, 4000);
  // Past the budget in the trace: failed, at the trace's cycle, though the polling saw the pass value.
  const over = await captureWait(trace({ end: { outcome: 'over_budget', cycle: 5001 } }), polledEnd, noHarnessCrash);
  const jo = judgeRun(TEST, { wait: over, range: null, screen: null, memory: [] });
  assert.equal(jo.status, 'failed');
  assert.match(jo.reason, /stopped it at cycle 5001/);
});

test("a trace cut before the end: the polled end, the trace's writes then the polled ones, no cycles (a budget cannot be judged)", async () => {
  const judged = trace({
    writes: [
      { value: 1, cycle: 100 },
      { value: 2, cycle: 200 },
    ],
    writesExact: false,
    cutBeforeEnd: true,
  });
  const w = await captureWait(judged, polledEnd, noHarnessCrash);
  assert.equal(w.outcome, 'ended');
  assert.deepEqual(
    w.writes.map((x) => x.value),
    [1, 2, 3, 0x80],
  );
  assert.equal(w.cycleSource, null);
  assert.equal(w.writesExact, false);
  const j = judgeRun(TEST, { wait: w, range: null, screen: null, memory: [] });
  assert.equal(j.status, 'error', 'a budget the observation has no cycles for is not a pass');
  assert.match(j.reason, /^budget\.cycles: /);
});

test("the whole run in the trace and no end: a timeout with the trace's exact writes", async () => {
  const polled: DebugWait = { ...polledEnd, outcome: 'timeout', started: false, writes: [] };
  const w = await captureWait(trace({ writes: [{ value: 7, cycle: 10 }] }), polled, noHarnessCrash);
  assert.equal(w.outcome, 'timeout');
  assert.equal(w.outcome === 'timeout' && w.started, true);
  const j = judgeRun({ ...TEST, budget: { time_ms: 1000 } }, { wait: w, range: null, screen: null, memory: [] });
  assert.equal(j.status, 'timed_out');
  assert.match(j.reason, /1 write, the last \$07/);
});

test('a pass marker that does not match fails a passing verdict, naming the marker; one that cannot be read is an error', async () => {
  const w = await captureWait(
    trace({ writes: [{ value: 0x80, cycle: 40 }], end: { outcome: 'ended', verdict: 'pass', value: 0x80 } }),
    polledEnd,
    noHarnessCrash,
  );
  const bad = judgeRun(TEST, {
    wait: w,
    range: null,
    screen: null,
    memory: [],
    extra: [passMarkerCheck({ value: 0x81, value_hex: '$81', expected_hex: '$80', matched: false })],
  });
  assert.equal(bad.status, 'failed');
  assert.equal(bad.reason, "pass_marker: $03FF (the harness's RAM mirror of $D7FF) read after the stream stopped is $81, expected $80");
  assert.deepEqual(bad.judged.at(-1), { expectation: 'pass_marker', held: false, reason: bad.reason.slice('pass_marker: '.length) });
  const unread = judgeRun(TEST, {
    wait: w,
    range: null,
    screen: null,
    memory: [],
    extra: [passMarkerCheck({ value: null, value_hex: null, expected_hex: '$80', matched: false })],
  });
  assert.equal(unread.status, 'error');
});
