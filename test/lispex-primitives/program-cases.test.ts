// The whole case table again, this time as programs on both routes: each `(name arg ...)` call
// becomes `(name 'arg ...)` in a program (test procedures defined in Lispex), so every primitive
// is also exercised through each route's own call path (including the VM's inlined fixnum
// paths), and the result or diagnostic code must match the direct call.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LispexEvaluator } from '../../engines/lispex/index.js';
import { PRIMITIVE_CAPABILITIES } from '../../engines/lispex/primitives/capabilities.js';
import { writeValue } from '../../engines/lispex/printer.js';
import { type Pair, Sym, arrayFromList } from '../../engines/lispex/values.js';
import { CASES } from './cases.js';
import { datum } from './harness.js';

const PRELUDE = `
(define (double x) (* x 2))
(define (add-pair a b) (+ a b))
(define (cons-pair a b) (cons a b))
(define (to-upper c) (char-upcase c))
(define (not-a-char c) 1)
(define (boom x) (error "boom"))
(define err (guard (e (#t e)) (error "bad thing" 1 'a)))
`;

/** `(name arg ...)` with literal arguments → program text calling `name` with quoted data. */
function asProgram(call: string): string {
  const form = datum(call) as Pair;
  const name = (form.car as Sym).name;
  const args = (arrayFromList(form.cdr) ?? []).map((a) => {
    if (a instanceof Sym && a.name.startsWith('&')) return a.name.slice(1);
    return `'${writeValue(a)}`;
  });
  return `${PRELUDE}\n(${[name, ...args].join(' ')})`;
}

const evaluator = new LispexEvaluator();

describe('case table as programs on both routes', () => {
  for (const row of PRIMITIVE_CAPABILITIES) {
    const cases = CASES[row.name];
    if (cases === undefined) continue;
    test(row.name, () => {
      for (const [call, want] of cases) {
        const source = asProgram(call);
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
