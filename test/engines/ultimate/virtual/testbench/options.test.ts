// The runner's mapping from a CSV line's options to the machine's options (no programs run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineOptionsFor } from '../../../../../bench/ultimate-testbench/testbench.js';

test('cia-old with the comment "CIA timestamp 4485 only" asks for the 6526 of that batch', () => {
  assert.equal(machineOptionsFor(['cia-old', 'comment:CIA timestamp 4485 only']).ciaModel, '6526-4485');
  assert.equal(machineOptionsFor(['cia-old']).ciaModel, '6526');
  assert.equal(machineOptionsFor(['cia-old', 'comment:not 100% stable - rerun on failure']).ciaModel, '6526');
  // The batch is an old 6526: a line asking for the new chip keeps it.
  assert.equal(machineOptionsFor(['cia-new', 'comment:CIA timestamp 4485 only']).ciaModel, '6526A');
  assert.equal(machineOptionsFor([]).ciaModel, undefined);
});
