// expect.timeout (issue 31): a test whose program must NOT end the run, as VICE's testbench marks
// some rows expect:timeout. The one judge passes it when the run runs out its budget (the cycle
// budget when there is one) or halts in a JAM crash.jam calls no crash, and fails it when the
// program ends the run with a value; the manifest refuses it beside observe "screen" or a
// expect.debug_register.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManifestSchema, type TestSpec } from '../../../../services/ultimate-tool/project/manifest.js';
import { judgeRun } from '../../../../services/ultimate-tool/runs/run-judge.js';
import type { DebugWait } from '../../../../services/ultimate-tool/targets/connection.js';

function manifestWith(t: Record<string, unknown>) {
  return ManifestSchema.safeParse({
    manifest_schema_version: 1,
    name: 'p',
    build: null,
    artifacts: [{ name: 'a', path: 'a.prg', prebuilt: true }],
    tests: [{ name: 't', artifact: 'a', observe: 'debug_register', expect: {}, budget: { time_ms: 5000 }, ...t }],
  });
}

function spec(t: Record<string, unknown>): TestSpec {
  const m = manifestWith(t);
  assert.ok(m.success, m.success ? '' : JSON.stringify(m.error.issues));
  return m.data.tests[0]!;
}

const base = {
  writes: [],
  writesExact: true,
  cycleSource: 'test',
  endState: { cycle: null, at: 'test', exact: false, how: 'test' },
};

const judge = (t: TestSpec, w: Record<string, unknown>) =>
  judgeRun(t, { wait: { ...base, ...w } as unknown as DebugWait, range: { start: 0x0801, end: 0x0900 }, screen: null, memory: [] });

test('with a cycle budget: running it out passes, a verdict write fails, the wall clock alone cannot tell', () => {
  const t = spec({ verdict: { pass: [0], fail: [255] }, expect: { timeout: true }, budget: { time_ms: 5000, cycles: 1000 } });
  const over = judge(t, { outcome: 'over_budget', cycle: 1001 });
  assert.equal(over.status, 'passed');
  assert.match(over.reason, /ran out its budget of 1000 cycles without ending the run, as expect\.timeout asks/);
  const ended = judge(t, { outcome: 'ended', verdict: 'pass', value: 0, writes: [{ value: 0, cycle: 10 }] });
  assert.equal(ended.status, 'failed');
  assert.match(ended.reason, /reported \$00, but expect\.timeout says it must run out its budget/);
  const wall = judge(t, { outcome: 'timeout', started: true });
  assert.equal(wall.status, 'timed_out');
  assert.match(wall.reason, /before budget\.cycles \(1000\), so expect\.timeout cannot be judged/);
  const jam = judge(spec({ expect: { timeout: true }, crash: { jam: false }, budget: { time_ms: 5000, cycles: 1000 } }), {
    outcome: 'timeout',
    started: true,
    halted: { pc: 0x0810, cycle: 20 },
  });
  assert.equal(jam.status, 'passed', jam.reason);
  assert.match(jam.reason, /jammed at \$0810 at cycle 20 .*, as expect\.timeout asks/);
});

test('without a cycle budget the time budget is the one to run out; never starting or crashing is judged as always', () => {
  const t = spec({ expect: { timeout: true } });
  assert.equal(judge(t, { outcome: 'timeout', started: true }).status, 'passed');
  const never = judge(t, { outcome: 'timeout', started: false });
  assert.equal(never.status, 'timed_out');
  assert.match(never.reason, /never started/);
  const crash = judge(t, {
    outcome: 'crashed',
    crash: { kind: 'jam', pc: 0x0810, a: 0, x: 0, y: 0, sp: 0xff, p: 0, cycle: 5 },
  });
  assert.equal(crash.status, 'crashed');
  // Without expect.timeout the same time-out is what it always was.
  assert.equal(judge(spec({}), { outcome: 'timeout', started: true }).status, 'timed_out');
});

test('the manifest refuses expect.timeout with observe "screen" or beside expect.debug_register', () => {
  const screen = manifestWith({
    observe: 'screen',
    expect: { timeout: true, screen_match: { text: 'READY.' } },
  });
  assert.equal(screen.success, false);
  assert.match(JSON.stringify(screen.error?.issues), /expect\.timeout needs observe \\"debug_register\\"/);
  const both = manifestWith({ expect: { timeout: true, debug_register: 0x80 } });
  assert.equal(both.success, false);
  assert.match(JSON.stringify(both.error?.issues), /contradict each other/);
  assert.equal(manifestWith({ expect: { timeout: false } }).success, false, 'only true is a value');
});
