// The stack the judge-case tests share (issues 31 and 35): the real service with the fixture
// project test/fixtures/c64-judge, the vice target on the REAL x64sc, the virtual Ultimate 64, and
// the official SDK client on the real adapter. Two files use it, so each stays well inside the
// runner's per-file timeout on a loaded 2-core machine.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, before } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { repoRoot } from '../../../helpers/bin.js';
import { startUltimateStack, type UltimateStack } from '../../../helpers/ultimate-stack.js';
import { type ForeignClient, foreignClient } from './foreign-client.js';

const x64sc = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'x64sc')));
/** Why the suite is skipped, or false when x64sc is on PATH. */
export const skip = x64sc ? false : 'x64sc (the real VICE) is not on PATH; .ci/run puts ../shared/tools/vice there';
const fixture = join(repoRoot, 'test', 'fixtures', 'c64-judge');

export interface JudgeCases extends ForeignClient {
  /** One run on each target (side by side); the statuses must agree (and equal `status`). */
  both(test: string, status: string, sameReason?: boolean): Promise<{ vice: Record<string, any>; ultimate: Record<string, any> }>;
}

/** Starts the stack before the suite's cases and stops it after; call inside the describe. */
export function judgeCasesStack(name: string): JudgeCases {
  let stack: UltimateStack | undefined;
  let client: Client;
  const fc = foreignClient(() => client);
  before(async () => {
    stack = await startUltimateStack(name, ['--vice-command', 'x64sc -default +sound -warp'], fixture);
    client = stack.client;
  });
  after(async () => {
    await stack?.close();
  });
  const both: JudgeCases['both'] = async (test, status, sameReason = true) => {
    const [vice, ultimate] = await Promise.all([fc.runOn('vice', test), fc.runOn('ultimate', test)]);
    assert.equal(vice.status, status, `vice: ${vice.status_reason}`);
    assert.equal(ultimate.status, status, `ultimate: ${ultimate.status_reason}`);
    if (sameReason) {
      // VICE gives no cycle when the VIC may have stalled the CPU at that stop (docs/ultimate/VICE.md),
      // which depends on where the raster stood when x64sc started the program: then its reason has
      // no "at cycle N" and the reasons are equal without it. Where both counted, they are equal whole.
      const cycles = (r: string) => r.match(/ at cycle \d+/g)?.length ?? 0;
      const [v, u] = [String(vice.status_reason), String(ultimate.status_reason)];
      if (cycles(v) === cycles(u)) assert.equal(u, v, 'the same reason on both targets');
      else
        assert.equal(
          u.replace(/ at cycle \d+/g, ''),
          v.replace(/ at cycle \d+/g, ''),
          'the same reason on both targets, but for a cycle one did not count',
        );
    }
    return { vice, ultimate };
  };
  return { ...fc, both };
}
