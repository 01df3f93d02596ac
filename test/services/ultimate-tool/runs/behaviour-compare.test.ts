// compare_runs' behaviour section across targets (issue 35.5): memory is compared in the bits the
// expectation names (colour RAM's upper nibble is open bus and differs between x64sc and the virtual
// C64), every other byte difference is named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareBehaviour } from '../../../../services/ultimate-tool/symbols/behaviour-compare.js';

const run = (target: string, memory: Array<Record<string, unknown>>) => ({
  target,
  status: 'passed',
  observations: { debug_register_writes: [], memory, screen_text: [] },
  crash_state: null,
});

test('masked memory: bits outside the mask are no difference; bits inside it are named', () => {
  const colour = (actual: string) => ({ address: 0xd800, expected: '0e0e', mask: '0f0f', actual, matched: true });
  const same = compareBehaviour(run('vice', [colour('fefe')]), run('ultimate', [colour('0e0e')]));
  assert.deepEqual(same.differences, []);
  assert.equal(same.same, true);
  const other = compareBehaviour(run('vice', [colour('fefe')]), run('ultimate', [colour('0e0f')]));
  assert.deepEqual(
    other.differences.map((d) => [d.field, d.baseline, d.candidate]),
    [['memory[0].actual', '0e0e', '0e0f']],
  );
  const plain = compareBehaviour(
    run('vice', [{ address: 0xc000, expected: '37', actual: '37', matched: true }]),
    run('ultimate', [{ address: 0xc000, expected: '37', actual: 'b7', matched: false }]),
  );
  assert.deepEqual(
    plain.differences.map((d) => d.field),
    ['memory[0].actual', 'memory[0].matched'],
  );
});
