// The primitive case table (test/engines/lispex/primitives/cases.ts) as whole programs, the way
// program-cases.test.ts runs them on the built-in routes (caseAsProgram in its harness).
import { CASES } from '../primitives/cases.js';
import { caseAsProgram } from '../primitives/harness.js';

/** Every case of the table as `{ primitive, call, program }`. */
export function casePrograms(): { primitive: string; call: string; program: string }[] {
  const out: { primitive: string; call: string; program: string }[] = [];
  for (const [primitive, cases] of Object.entries(CASES)) {
    for (const [call] of cases) out.push({ primitive, call, program: caseAsProgram(call) });
  }
  return out;
}
