// The whole case table again, this time as programs on both routes: each `(name arg ...)` call
// becomes `(name 'arg ...)` in a program (test procedures defined in Lispex), so every primitive
// is also exercised through each route's own call path (including the VM's inlined fixnum
// paths), and the result or diagnostic code must match the direct call.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LispexEvaluator } from '../../../../engines/lispex/index.js';
import { PRIMITIVE_CAPABILITIES } from '../../../../engines/lispex/primitives/capabilities.js';
import { CASES } from './cases.js';
import { caseAsProgram } from './harness.js';

const evaluator = new LispexEvaluator();

describe('case table as programs on both routes', () => {
  for (const row of PRIMITIVE_CAPABILITIES) {
    const cases = CASES[row.name];
    if (cases === undefined) continue;
    test(row.name, () => {
      for (const [call, want] of cases) {
        const source = caseAsProgram(call);
        for (const route of ['tree', 'vm'] as const) {
          const o = evaluator.run(source, { route });
          let got: string;
          if (o.status === 'ok') {
            const printed = o.values.map((v) => v.printed);
            got = printed.length === 1 ? printed[0]! : `values(${printed.join(' ')})`;
          } else {
            got = `!${o.diagnostics[0]?.code ?? o.status}`;
          }
          assert.equal(got, want, `${route}: ${call}`);
        }
      }
    });
  }
});
