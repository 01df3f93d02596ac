// Every non-control primitive row, called directly through the registry with a fake machine:
// normal results in their `write` form and error cases with their exact catalog codes.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PRIMITIVE_CAPABILITIES } from '../../../../engines/lispex/primitives/capabilities.js';
import { CASES, NO_ERROR_CASE } from './cases.js';
import { call } from './harness.js';

const valueRows = PRIMITIVE_CAPABILITIES.filter((r) => r.family !== 'control');

describe('primitive case table', () => {
  test('covers every non-control row with a normal and an error case', () => {
    const missing: string[] = [];
    for (const row of valueRows) {
      const cases = CASES[row.name];
      if (cases === undefined) {
        missing.push(`${row.name}: no cases`);
        continue;
      }
      if (!cases.some(([, want]) => !want.startsWith('!'))) missing.push(`${row.name}: no normal case`);
      if (!NO_ERROR_CASE.has(row.name) && !cases.some(([, want]) => want.startsWith('!'))) missing.push(`${row.name}: no error case`);
      for (const [text] of cases) {
        if (!text.startsWith(`(${row.name} `) && text !== `(${row.name})`)
          missing.push(`${row.name}: case ${text} calls another primitive`);
      }
    }
    const names = new Set(valueRows.map((r) => r.name));
    for (const name of Object.keys(CASES)) if (!names.has(name)) missing.push(`${name}: not a non-control row`);
    assert.deepEqual(missing, []);
    assert.equal(valueRows.length, 195);
  });

  for (const row of valueRows) {
    test(`${row.name} (${row.family}, arity ${row.arity})`, () => {
      for (const [text, want] of CASES[row.name] ?? []) {
        assert.equal(call(text).result, want, text);
      }
    });
  }
});
