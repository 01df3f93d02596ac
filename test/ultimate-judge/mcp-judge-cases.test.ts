// Issues 31 and 35 end to end: the small programs of test/fixtures/c64-judge, each run through MCP
// (the official SDK client, the real adapter, the real service) on the vice target with the REAL
// x64sc and on the virtual Ultimate 64 — the same verdict, for the same reason, on both: code
// copied to $C000, a SYS expression stub, a BRK the program handles, a JAM, an unhandled BRK at the
// same cycle, a BRK with SP wrapping, a verdict beside a wrong screen, stale RAM, a result stored
// after the verdict, a PRG started with start.sys, a program that never starts.
// Needs x64sc on PATH (.ci/run puts ../shared/tools/vice there); skipped, with that reason, without.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { repoRoot } from '../helpers/bin.js';
import { startUltimateStack, type UltimateStack } from '../helpers/ultimate-stack.js';
import { foreignClient } from './foreign-client.js';

const x64sc = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'x64sc')));
const skip = x64sc ? false : 'x64sc (the real VICE) is not on PATH; .ci/run puts ../shared/tools/vice there';
const fixture = join(repoRoot, 'test', 'fixtures', 'c64-judge');

describe('the judge cases: the same verdict for the same reason on x64sc and the virtual Ultimate 64', { skip, timeout: 900_000 }, () => {
  let stack: UltimateStack | undefined;
  let client: Client;
  const { runOn } = foreignClient(() => client);

  before(async () => {
    stack = await startUltimateStack('ultimate-judge-cases', ['--vice-command', 'x64sc -default +sound -warp'], fixture);
    client = stack.client;
  });
  after(async () => {
    await stack?.close();
  });

  /** One run on each target; the statuses must agree (and equal `status`). */
  async function both(
    test: string,
    status: string,
    sameReason = true,
  ): Promise<{ vice: Record<string, any>; ultimate: Record<string, any> }> {
    const vice = await runOn('vice', test);
    const ultimate = await runOn('ultimate', test);
    assert.equal(vice.status, status, `vice: ${vice.status_reason}`);
    assert.equal(ultimate.status, status, `ultimate: ${ultimate.status_reason}`);
    if (sameReason) assert.equal(ultimate.status_reason, vice.status_reason, 'the same reason on both targets');
    return { vice, ultimate };
  }

  it('code copied to $C000 and called is no crash; $C100 holds what it stored', async () => {
    const r = await both('copy-to-c000', 'passed');
    for (const run of [r.vice, r.ultimate]) assert.equal(run.observations.memory[0].matched, true);
  });

  it('with crash.outside_code declared, the fetch at $C000 is a crash at the same site on both', async () => {
    const r = await both('copy-to-c000-declared', 'crashed');
    for (const run of [r.vice, r.ultimate]) {
      assert.equal(run.crash_state.kind, 'outside-code');
      assert.equal(run.crash_state.site.address, 0xc000);
    }
    assert.equal(r.vice.crash_state.cycle, r.ultimate.crash_state.cycle);
  });

  it('a SYS expression stub starts where BASIC computes: the first fetch inside the load range', async () => {
    const r = await both('sys-expression', 'passed');
    assert.equal(r.vice.observations.debug_register_writes[0].cycle, r.ultimate.observations.debug_register_writes[0].cycle);
    assert.equal(r.vice.observations.debug_register_writes[0].cycle, 5, 'LDA # (2) + STA abs, the write in its 4th cycle');
  });

  it('a BRK the program handles itself is the program\'s business; crash.brk "any" makes it a crash', async () => {
    await both('brk-handled', 'passed');
    const any = await both('brk-handled-any', 'crashed');
    assert.equal(any.vice.crash_state.site.address, any.ultimate.crash_state.site.address);
  });

  it('a JAM is a crash at its opcode, the same cycle on both; with crash.jam false the run says the CPU halted', async () => {
    const r = await both('jam', 'crashed');
    for (const run of [r.vice, r.ultimate]) {
      assert.equal(run.crash_state.kind, 'jam');
      assert.equal(run.crash_state.site.address, 0x080e);
      assert.equal(run.crash_state.cycle, 2);
    }
    const off = await both('jam-not-a-crash', 'timed_out');
    assert.match(off.vice.status_reason, /the CPU jammed at \$080E at cycle 2 \(crash\.jam is false/);
  });

  it("an unhandled BRK: crashed at the BRK's own fetch, cycle 4 on both, within a budget of 17", async () => {
    const r = await both('brk-unhandled', 'crashed');
    for (const run of [r.vice, r.ultimate]) {
      assert.equal(run.crash_state.kind, 'brk');
      assert.equal(run.crash_state.site.address, 0x080f);
      assert.equal(run.crash_state.cycle, 4);
      assert.equal(run.observations.cycle_budget.used, 4);
      assert.equal(run.observations.cycle_budget.within, true);
    }
    // compare_runs across targets (issue 35 part 5): a vice run against an ultimate run of one test.
    const { ok } = foreignClient(() => client);
    const cmp = await ok('compare_runs', { baseline_run_id: r.vice.run_id, candidate_run_id: r.ultimate.run_id });
    assert.notEqual(cmp.result, 'incompatible', cmp.reason);
    assert.deepEqual(cmp.behaviour.targets, { baseline: 'vice', candidate: 'ultimate' });
    const fields = cmp.behaviour.differences.map((d: { field: string }) => d.field);
    for (const f of ['status', 'crash.kind', 'crash.site', 'crash.cycle'])
      assert.ok(!fields.includes(f), `${f} differs: ${JSON.stringify(cmp.behaviour)}`);
    // Only the screens may differ (x64sc's ROM banner; the virtual device's stand-in KERNAL), each row named.
    assert.ok(
      fields.every((f: string) => /^screen_text\[\d+\]$/.test(f)),
      JSON.stringify(fields),
    );
    const never = await both('brk-never', 'timed_out');
    assert.match(never.vice.status_reason, /never wrote \$D7FF/);
  });

  it('a BRK with SP wrapping round the stack page is read without a reversed range (ackcia2)', async () => {
    // VICE gives no cycle when the VIC may have stalled the CPU in the BRK's 7 cycles (VICE.md): the
    // reasons then differ by "at cycle N" only.
    const r = await both('brk-sp-wrap', 'crashed', false);
    assert.equal(r.vice.crash_state.site.address, r.ultimate.crash_state.site.address);
    // SP as it was before the BRK ($01), the same on both; the pushes went to $0101, $0100, $01FF.
    for (const run of [r.vice, r.ultimate]) assert.equal(run.crash_state.registers.sp, 0x01);
  });

  it('a pass verdict beside a screen that does not match fails on both, naming screen_match', async () => {
    const r = await both('verdict-screen-wrong', 'failed');
    assert.match(r.vice.status_reason, /^expect\.screen_match: screen RAM does not show/);
    for (const run of [r.vice, r.ultimate]) {
      assert.equal(run.screen_match.matched, false);
      const verdict = run.observations.judgement.find((j: any) => j.expectation === 'verdict');
      assert.equal(verdict.held, true, 'the verdict itself held: the expectation failed the run');
    }
  });

  it('bytes an earlier run left in RAM never satisfy an expectation: every run starts from the power-on pattern', async () => {
    await both('write-c100', 'passed');
    const r = await both('stale-ram', 'failed');
    for (const run of [r.vice, r.ultimate]) {
      assert.equal(run.observations.memory[0].actual, 'ffff', "x64sc's power-on pattern at $C100");
      assert.equal(run.observations.ram_state.pattern, 'x64sc-power-on');
    }
  });

  it('a result stored after the verdict is not in the end state on either target (read at the verdict write)', async () => {
    const r = await both('result-after-verdict', 'failed');
    for (const run of [r.vice, r.ultimate]) {
      assert.equal(run.observations.end_state.exact, true);
      assert.match(run.observations.end_state.at, /the write of \$00 to \$D7FF that ended the run/);
      assert.equal(run.observations.end_state.cycle, run.observations.debug_register_writes[0].cycle);
    }
  });

  it('start.sys starts a PRG at $C000; without it the program never starts, and the reason says so', async () => {
    await both('sys-start', 'passed');
    const r = await both('never-starts', 'timed_out');
    assert.match(r.vice.status_reason, /the program never started: no opcode fetch inside \$C000–\$C007 after RUN/);
  });
});
