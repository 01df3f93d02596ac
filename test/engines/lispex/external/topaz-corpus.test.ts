// The Topaz VM against the built-in VM on the generated differential corpus and on the primitive
// case table, compared on the court's axes. CI runs a sample (LISPEX_EXTERNAL_PROGRAMS, default
// 300 programs, and every other primitive case); bench/lispex-external/corpus.ts runs all
// 10,000 programs and every case.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProgramGenerator } from '../differential/generator.js';
import { casePrograms } from './case-programs.js';
import { builtinObservation, mismatchAxes, pool, requireTopaz, topazObservation } from './harness.js';

const COUNT = Number(process.env.LISPEX_EXTERNAL_PROGRAMS ?? 300);
const SEED = Number(process.env.LISPEX_DIFF_SEED ?? 20261130);

test(`Topaz VM agrees with the built-in VM on ${COUNT} generated programs`, { timeout: 300_000 }, async () => {
  requireTopaz();
  const mismatches: string[] = [];
  const statuses = new Map<string, number>();
  await pool(
    Array.from({ length: COUNT }, (_, i) => SEED + i),
    2,
    async (seed) => {
      const source = new ProgramGenerator(seed).program();
      const vm = builtinObservation(source, 'vm');
      const topaz = await topazObservation(source);
      statuses.set(topaz.status, (statuses.get(topaz.status) ?? 0) + 1);
      const axes = mismatchAxes(vm, topaz);
      if (axes.length > 0 && mismatches.length < 5) mismatches.push(`seed ${seed} [${axes.join(', ')}]:\n${source}`);
    },
  );
  assert.deepEqual(mismatches, []);
  // Agreement is not vacuous: both successes and faults were compared.
  assert.ok((statuses.get('ok') ?? 0) > COUNT / 5, JSON.stringify([...statuses]));
  assert.ok((statuses.get('runtime-error') ?? 0) > COUNT / 10, JSON.stringify([...statuses]));
});

test('Topaz VM agrees with the built-in VM on the primitive case table (sample)', { timeout: 300_000 }, async () => {
  requireTopaz();
  const cases = casePrograms().filter((_, i) => i % 2 === 0);
  const mismatches: string[] = [];
  await pool(cases, 2, async (c) => {
    const axes = mismatchAxes(builtinObservation(c.program, 'vm'), await topazObservation(c.program));
    if (axes.length > 0) mismatches.push(`${c.call} [${axes.join(', ')}]`);
  });
  assert.ok(cases.length > 300);
  assert.deepEqual(mismatches, []);
});
