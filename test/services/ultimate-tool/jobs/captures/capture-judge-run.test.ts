// One judge for every run, capture runs included (issue 35): a source-linked capture run of a test
// is judged by runs/run-judge.ts judgeRun from what the capture observed — the run's end and writes
// from its own trace, the screen and memory read after the stream stopped — and the post-stop pass
// marker as one more judged check. So a program whose verdict passes but whose screen_match,
// memory expectation or cycle budget does not hold fails as a capture run, for the same reason as an
// ordinary run of the same test on the vice target and the virtual Ultimate 64.
// timeline-probe (the only test a source-linked capture runs) reports its pass value ($80) after 16
// markers; each case below adds one expectation to it that its program does not meet.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Harness, startHarness } from '../../harness.js';

// timeline-probe whole (~1,500 datagrams with the reset) and the capture's tail after the result.
const MAX_DATAGRAMS = 12_000;
let h: Harness;
let pristine: string;

before(async () => {
  h = await startHarness({ service: { captureLimits: { maxDatagrams: MAX_DATAGRAMS, maxDurationMs: 10_000 } } });
  pristine = readFileSync(join(h.project, 'ultimate-tool.json'), 'utf8');
});
after(async () => {
  await h?.close();
});

/** timeline-probe as in the example, with `change` applied to its manifest entry. */
function probeWith(change: (t: any) => void): void {
  const manifest = JSON.parse(pristine);
  const t = manifest.tests.find((x: { name: string }) => x.name === 'timeline-probe');
  change(t);
  writeFileSync(join(h.project, 'ultimate-tool.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

async function captureRun(): Promise<any> {
  const prep = await h.post('/v13/captures/source-linked/preparations', {
    probe_id: await h.probe(),
    receiver_ipv4: '127.0.0.1',
    test: 'timeline-probe',
  });
  assert.equal(prep.status, 201, JSON.stringify(prep.body));
  const start = await h.post(`/v13/captures/source-linked/preparations/${prep.body.preparation.preparation_id}/start`, {
    confirmed_reset_count: 1,
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(start.status, 201, JSON.stringify(start.body));
  const job = await h.waitJob(start.body.job.job_id);
  assert.equal(job.state, 'finished', JSON.stringify(job));
  const r = await h.get(`/v13/runs/${job.run_ids[0]}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.run;
}

async function ordinaryRuns(targets: string[]): Promise<any[]> {
  const start = await h.post('/v13/jobs', {
    test: 'timeline-probe',
    targets,
    ...(targets.includes('ultimate') ? { probe_id: await h.probe(), confirmed_reset_count: 1, confirmed_reu_write_count: 0 } : {}),
  });
  assert.equal(start.status, 201, JSON.stringify(start.body));
  const job = await h.waitJob(start.body.job.job_id);
  assert.equal(job.state, 'finished', JSON.stringify(job));
  const runs = [];
  for (const id of job.run_ids) runs.push((await h.get(`/v13/runs/${id}`)).body.run);
  return runs;
}

const judged = (run: any) => run.observations.judgement.map((x: any) => [x.expectation, x.held]);

describe('a capture run is judged as every run', { timeout: 600_000 }, () => {
  it('the verdict passes, screen_match does not: failed, naming screen_match, as an ordinary run on both targets', async () => {
    probeWith((t) => {
      t.expect.screen_match = { text: 'NEVER ON SCREEN' };
    });
    const capture = await captureRun();
    const why = 'expect.screen_match: screen RAM does not show "NEVER ON SCREEN" at the end of the run';
    assert.equal(capture.status, 'failed', capture.status_reason);
    assert.equal(capture.status_reason, why);
    // The record says what was judged, in the judge's order, as an ordinary run's record does.
    assert.deepEqual(judged(capture), [
      ['debug_register', true],
      ['expect.screen_match', false],
      ['pass_marker', true],
    ]);
    assert.deepEqual(capture.screen_match, { text: 'NEVER ON SCREEN', row: null, matched: false, found_at: null });
    assert.equal(capture.observations.pass_marker.matched, true);
    for (const name of ['screen.txt', 'screenshot.png', 'screen-ram.bin', 'colour-ram.bin', 'pass-marker.json'])
      assert.ok(
        capture.evidence.some((e: { name: string }) => e.name === name),
        name,
      );

    // One program, one verdict: the same test run ordinarily.
    const runs = await ordinaryRuns(['vice', 'ultimate']);
    for (const run of runs) {
      assert.equal(run.status, 'failed', `${run.target}: ${run.status_reason}`);
      assert.equal(run.status_reason, why, run.target);
      assert.deepEqual(judged(run), [
        ['debug_register', true],
        ['expect.screen_match', false],
      ]);
    }
  });

  it('the verdict passes, a memory expectation does not: failed, naming expect.memory[0], as an ordinary run', async () => {
    // The program leaves its result $80 in RESULT_MIRROR ($03FF); the test expects $81 there.
    probeWith((t) => {
      t.expect.memory = [{ address: '$03FF', bytes: '81' }];
    });
    const capture = await captureRun();
    const why = 'expect.memory[0]: memory at $03FF is 80, expected 81';
    assert.equal(capture.status, 'failed', capture.status_reason);
    assert.equal(capture.status_reason, why);
    assert.deepEqual(capture.observations.memory, [
      {
        address: 0x03ff,
        address_hex: '$03FF',
        expected: '81',
        actual: '80',
        matched: false,
        first_difference: { address_hex: '$03FF', expected: '$81', actual: '$80' },
      },
    ]);
    assert.deepEqual(judged(capture), [
      ['debug_register', true],
      ['expect.memory[0]', false],
      ['pass_marker', true],
    ]);
    const runs = await ordinaryRuns(['vice', 'ultimate']);
    for (const run of runs) {
      assert.equal(run.status, 'failed', `${run.target}: ${run.status_reason}`);
      assert.equal(run.status_reason, why, run.target);
    }
  });

  it("over budget.cycles: the capture's own trace stops the judge at the budget, as the stream does on an ordinary run", async () => {
    // The 16 markers take ~170,000 clocks; the budget ends long before the pass value.
    probeWith((t) => {
      t.budget.cycles = 1000;
    });
    const capture = await captureRun();
    const why = 'over the budget of 1000 cycles: the program had not ended by then (budget.cycles stopped it at cycle 1001)';
    assert.equal(capture.status, 'failed', capture.status_reason);
    assert.equal(capture.status_reason, why);
    assert.equal(capture.observations.cycle_source, 'debug-stream');
    assert.equal(capture.observations.cycle_budget.within, false);
    // The polling beside the capture saw the program end with its pass value; the trace is the judge's observation.
    assert.equal(capture.observations.pass_marker.debug_register, 0x80);
    const [ultimate] = await ordinaryRuns(['ultimate']);
    assert.equal(ultimate.status, 'failed', ultimate.status_reason);
    assert.equal(ultimate.status_reason, why);
  });

  it('every expectation holding: passed, with the judgement recorded', async () => {
    probeWith(() => undefined);
    const capture = await captureRun();
    assert.equal(capture.status, 'passed', capture.status_reason);
    assert.equal(capture.status_reason, 'the program reported $80, the expected pass value');
    assert.deepEqual(judged(capture), [
      ['debug_register', true],
      ['pass_marker', true],
    ]);
    assert.equal(capture.observations.end_state.exact, false);
  });
});
