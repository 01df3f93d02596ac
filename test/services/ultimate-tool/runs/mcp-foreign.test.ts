// Issue 26 end to end through MCP: the six foreign programs of test/fixtures/c64-foreign (no
// harness: $00 pass / $FF fail, a BRK three calls deep, markers without handshake, a timed loop)
// judged on the ultimate target (the virtual Ultimate 64, observed through its debug stream), by
// the real service process, the real adapter process and the official MCP SDK client. Also the
// manifest's bad inputs, the judged write sequence and cycle budget, and the honest analyses.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { repoRoot } from '../../../helpers/bin.js';
import { startUltimateStack, type UltimateStack } from '../../../helpers/ultimate-stack.js';
import { assertBrkThreeDeepReport, foreignClient } from './foreign-client.js';

const fixture = join(repoRoot, 'test', 'fixtures', 'c64-foreign');
let stack: UltimateStack;
let client: Client;
let manifestText: string;

const { call, ok, runOn } = foreignClient(() => client);
const runOnUltimate = (testName: string) => runOn('ultimate', testName);

function editManifest(edit: (m: any) => void): void {
  const m = JSON.parse(manifestText);
  edit(m);
  writeFileSync(join(stack.project, 'ultimate-tool.json'), JSON.stringify(m));
}

before(async () => {
  stack = await startUltimateStack('ultimate-judge', [], fixture);
  client = stack.client;
  manifestText = readFileSync(join(stack.project, 'ultimate-tool.json'), 'utf8');
});

after(async () => {
  await stack?.close();
});

let passRun: Record<string, any>;

test('$00 pass: every $D7FF write with its exact cycle from the debug stream, the cycle budget used and within', {
  timeout: 120_000,
}, async () => {
  passRun = await runOnUltimate('checksum-passes');
  const o = passRun.observations;
  assert.equal(passRun.status, 'passed', passRun.status_reason);
  assert.match(passRun.status_reason, /\$00, a pass value of the verdict/);
  assert.equal(o.cycle_source, 'debug-stream');
  assert.equal(o.debug_register_writes_exact, true);
  assert.equal(o.debug_register_writes.length, 1);
  assert.equal(o.debug_register_writes[0].value, 0);
  assert.equal(typeof o.debug_register_writes[0].cycle, 'number');
  assert.deepEqual(o.cycle_budget.cycles, 20000);
  assert.equal(o.cycle_budget.used, o.debug_register_writes[0].cycle);
  assert.equal(o.cycle_budget.within, true);
  assert.equal(o.memory[0].matched, true);
  const budget = await ok('get_run_diagnostic_items', { run_id: passRun.run_id, section: 'budget' });
  const row = budget.items.find((r: { budget: string }) => r.budget === 'cycles');
  assert.equal(row.used, o.cycle_budget.used);
  assert.equal(row.within, true);
});

test('$FF fail: the program fails by its own value, no harness', { timeout: 120_000 }, async () => {
  const run = await runOnUltimate('checksum-fails');
  assert.equal(run.status, 'failed');
  assert.match(run.status_reason, /\$FF, a fail value of the verdict/);
  assert.deepEqual(
    run.observations.debug_register_writes.map((w: { value: number }) => w.value),
    [0xff],
  );
});

test('timed loop: markers $01 and $02 exactly 1007 cycles apart, $00 6 cycles later — judged by debug_register_writes', {
  timeout: 120_000,
}, async () => {
  const run = await runOnUltimate('timed-loop');
  assert.equal(run.status, 'passed', run.status_reason);
  const w = run.observations.debug_register_writes as Array<{ value: number; cycle: number }>;
  assert.deepEqual(
    w.map((x) => x.value),
    [1, 2, 0],
  );
  assert.equal(w[1]!.cycle - w[0]!.cycle, 1007);
  assert.equal(w[2]!.cycle - w[1]!.cycle, 6);
  assert.equal(run.observations.debug_register_writes_check.matched, true);
});

test('a BRK three calls deep, without a crash hook: crashed from the bus trace, report with file and line', {
  timeout: 120_000,
}, async () => {
  const run = await runOnUltimate('brk-three-deep');
  assert.equal(run.status, 'crashed', run.status_reason);
  const cs = run.crash_state;
  assert.equal(cs.handoff, 'bus-trace-v1');
  assert.equal(cs.kind, 'brk');
  // inner: LDA #$44 with X and Y from outer ($22) and middle ($33), as the KERNAL pushed them.
  assert.deepEqual([cs.registers.a, cs.registers.x, cs.registers.y], [0x44, 0x22, 0x33]);
  const report = await ok('get_crash_report', { run_id: run.run_id });
  assertBrkThreeDeepReport(report);
  const resolved = await ok('resolve_address', { run_id: run.run_id, address: report.site.address_hex });
  assert.equal(resolved.source.line, 25);
});

test('I/O, ROM and vector addresses never resolve to the nearest RAM label', { timeout: 60_000 }, async () => {
  const cases: Array<[string, string]> = [
    ['$D7FF', 'Ultimate 64 debug register'],
    ['$DD04', 'CIA 2 timer A low'],
    ['$FFFC', 'CPU vectors RESET vector low'],
  ];
  for (const [address, name] of cases) {
    const r = await ok('resolve_address', { run_id: passRun.run_id, address });
    assert.equal(r.result, 'unmapped', `${address}: ${JSON.stringify(r)}`);
    assert.deepEqual(r.symbols, []);
    assert.equal(r.hardware.name, name);
  }
});

test('markers without handshake: the pattern captured at the exact write of $01 and of $02; a 496-byte expectation after a prepare.fill', {
  timeout: 120_000,
}, async () => {
  const run = await runOnUltimate('pattern-at-markers');
  assert.equal(run.status, 'passed', run.status_reason);
  const mc = run.observations.memory_checkpoints;
  assert.deepEqual([mc.captured, mc.acknowledgement_writes, mc.handshake], [2, 0, false]);
  const ev = await ok('read_evidence', { run_id: run.run_id, name: 'checkpoints.json' });
  const capture = JSON.parse(ev.evidence.text);
  assert.deepEqual(
    capture.points.map((p: any) => [p.name, p.ranges[0].bytes_hex]),
    [
      ['ascending', '000102030405060708090a0b0c0d0e0f'],
      ['inverted', 'fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0'],
    ],
  );
  assert.equal(run.observations.memory[0].matched, true);
  assert.equal(run.observations.memory[0].expected.length, 496 * 2);
});

test('the greeting is judged by the screen; colour RAM through a 4-bit mask', { timeout: 120_000 }, async () => {
  const run = await runOnUltimate('greeting-shows');
  assert.equal(run.status, 'passed', run.status_reason);
  assert.equal(run.observations.memory[0].mask, '0f0f0f0f0f');
  assert.equal(run.observations.memory[0].matched, true);
});

test('judged, not just recorded: a wrong cycle distance and an exceeded cycle budget fail the run', { timeout: 180_000 }, async () => {
  editManifest((m) => {
    const t = m.tests.find((x: any) => x.name === 'timed-loop');
    t.expect.debug_register_writes[1].cycles_after_previous = 1006;
  });
  const seq = await runOnUltimate('timed-loop');
  assert.equal(seq.status, 'failed');
  assert.match(seq.status_reason, /write 2 \(\$02\) came 1007 cycles after the previous one, expected 1006/);
  editManifest((m) => {
    m.tests.find((x: any) => x.name === 'checksum-passes').budget.cycles = 10;
  });
  const over = await runOnUltimate('checksum-passes');
  assert.equal(over.status, 'failed');
  assert.match(over.status_reason, /over the budget of 10/);
  // Judged at the budget (issue 31): stopped at the first cycle past it, not after the program ended.
  assert.equal(over.observations.cycle_budget.within, false);
  assert.equal(over.observations.cycle_budget.used, null);
  assert.match(over.status_reason, /stopped it at cycle 11\b/);
  assert.equal(over.observations.end_state.cycle, 11);
});

test('a checkpoint comparison with 0 points compared is unavailable, not matched', { timeout: 180_000 }, async () => {
  editManifest((m) => {
    const t = m.tests.find((x: any) => x.name === 'pattern-at-markers');
    t.checkpoints[0].marker = 5; // never written
    t.checkpoints[1].marker = 6;
  });
  const a = await runOnUltimate('pattern-at-markers');
  const b = await runOnUltimate('pattern-at-markers');
  assert.equal(a.observations.memory_checkpoints.captured, 0);
  const cmp = await ok('compare_run_checkpoints', { baseline_run_id: a.run_id, candidate_run_id: b.run_id });
  assert.equal(cmp.result, 'unavailable');
  assert.equal(cmp.points_compared, 0);
});

test('bad manifests are refused naming the field: a verdict value out of range, a fill past $FFFF, overlapping sets', {
  timeout: 60_000,
}, async () => {
  const cases: Array<[(m: any) => void, RegExp]> = [
    [
      (m) => {
        m.tests[0].verdict.pass = [256];
      },
      /tests\.0\.verdict\.pass\.0: .*255/,
    ],
    [
      (m) => {
        m.tests[0].prepare = { fill: [{ address: '$FF00', length: 512, byte: 0 }] };
      },
      /tests\.0\.prepare\.fill\.0\.length: the fill from \$FF00 of 512 bytes runs past \$FFFF/,
    ],
    [
      (m) => {
        m.tests[0].verdict = { pass: [0, 1], fail: [1, 255] };
      },
      /tests\.0\.verdict: the values \$01 are in both pass and fail/,
    ],
  ];
  for (const [edit, message] of cases) {
    editManifest(edit);
    const e = await call('get_project');
    // manifest_invalid (409) since api/errors.ts gave every error code one status (it was invalid-request).
    assert.equal(e.error?.code, 'manifest_invalid', JSON.stringify(e));
    assert.equal(e.error?.http_status, 409);
    assert.match(e.error?.message ?? '', message);
  }
  writeFileSync(join(stack.project, 'ultimate-tool.json'), manifestText);
  assert.equal((await ok('get_project')).project.tests.length, 6);
});
