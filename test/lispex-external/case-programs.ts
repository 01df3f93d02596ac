// The primitive case table (test/lispex-primitives/cases.ts) as whole programs, the way
// program-cases.test.ts runs them on the built-in routes: each `(name arg ...)` call becomes
// `(name 'arg ...)` after a small prelude of test procedures.

import { writeValue } from '../../engines/lispex/printer.js';
import { type Pair, Sym, arrayFromList } from '../../engines/lispex/values.js';
import { CASES } from '../lispex-primitives/cases.js';
import { datum } from '../lispex-primitives/harness.js';

const PRELUDE = `
(define (double x) (* x 2))
(define (add-pair a b) (+ a b))
(define (cons-pair a b) (cons a b))
(define (to-upper c) (char-upcase c))
(define (not-a-char c) 1)
(define (boom x) (error "boom"))
(define err (guard (e (#t e)) (error "bad thing" 1 'a)))
`;

function asProgram(call: string): string {
  const form = datum(call) as Pair;
  const name = (form.car as Sym).name;
  const args = (arrayFromList(form.cdr) ?? []).map((a) => {
    if (a instanceof Sym && a.name.startsWith('&')) return a.name.slice(1);
    return `'${writeValue(a)}`;
  });
  return `${PRELUDE}\n(${[name, ...args].join(' ')})`;
}

/** Every case of the table as `{ primitive, call, program }`. */
export function casePrograms(): { primitive: string; call: string; program: string }[] {
  const out: { primitive: string; call: string; program: string }[] = [];
  for (const [primitive, cases] of Object.entries(CASES)) {
    for (const [call] of cases) out.push({ primitive, call, program: asProgram(call) });
  }
  return out;
}
