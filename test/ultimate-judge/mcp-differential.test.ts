// Issue 35 part 4, the differential test: the foreign programs (test/fixtures/c64-foreign) run
// through MCP on the vice target with the REAL x64sc and on the virtual Ultimate 64, and what the
// tool reports must be equal: status and reason, every $D7FF write's value, the cycle distances
// (the timed loop turns the display off), the memory expectations' bytes, the screen text of the
// program that clears and prints, and the crash's kind and site (and cycle when both counted it).
// compare_runs says the same in its behaviour section.
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

describe('differential: the foreign programs on x64sc and on the virtual Ultimate 64, through MCP', { skip, timeout: 900_000 }, () => {
  let stack: UltimateStack | undefined;
  let client: Client;
  const { ok, runOn } = foreignClient(() => client);

  before(async () => {
    stack = await startUltimateStack(
      'ultimate-differential',
      ['--vice-command', 'x64sc -default +sound -warp'],
      join(repoRoot, 'test', 'fixtures', 'c64-foreign'),
    );
    client = stack.client;
  });
  after(async () => {
    await stack?.close();
  });

  const values = (run: Record<string, any>) => run.observations.debug_register_writes.map((w: { value: number }) => w.value);
  const distances = (run: Record<string, any>) =>
    run.observations.debug_register_writes
      .slice(1)
      .map((w: { cycle: number }, i: number) => w.cycle - run.observations.debug_register_writes[i].cycle);
  const memory = (run: Record<string, any>) => run.observations.memory.map((m: { actual: string }) => m.actual);

  for (const test of ['checksum-passes', 'checksum-fails', 'pattern-at-markers', 'timed-loop', 'brk-three-deep', 'greeting-shows']) {
    it(`${test}: the same on both targets`, async () => {
      const vice = await runOn('vice', test);
      const ultimate = await runOn('ultimate', test);
      assert.equal(ultimate.status, vice.status, `${vice.status_reason} / ${ultimate.status_reason}`);
      assert.deepEqual(memory(ultimate), memory(vice));
      if (test === 'greeting-shows') assert.deepEqual(ultimate.observations.screen_text, vice.observations.screen_text);
      else {
        assert.equal(ultimate.status_reason.replace(/ at cycle \d+/, ''), vice.status_reason.replace(/ at cycle \d+/, ''));
        assert.deepEqual(values(ultimate), values(vice));
      }
      if (test === 'timed-loop') assert.deepEqual(distances(ultimate), distances(vice));
      if (vice.crash_state || ultimate.crash_state) {
        assert.equal(ultimate.crash_state.kind, vice.crash_state.kind);
        assert.equal(ultimate.crash_state.site.address, vice.crash_state.site.address);
        if (vice.crash_state.cycle != null && ultimate.crash_state.cycle != null)
          assert.equal(ultimate.crash_state.cycle, vice.crash_state.cycle);
      }
      const cmp = await ok('compare_runs', { baseline_run_id: vice.run_id, candidate_run_id: ultimate.run_id });
      const fields = cmp.behaviour.differences.map((d: { field: string }) => d.field);
      for (const f of fields) assert.match(f, /^(screen_text\[\d+\]|debug_register_writes\[\d+\]\.cycle)$/, JSON.stringify(cmp.behaviour));
    });
  }
});
