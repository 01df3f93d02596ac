// A small fake machine for exercising primitives directly: reads each call `(name arg ...)` as
// one datum with the real reader (arguments are literal data, not evaluated), checks arity as
// the evaluators do (E302), and runs the registry function with a Runtime that records stdout
// and warnings. `&name` arguments stand for procedures: registry primitives or the test
// procedures below.

import { LispexError } from '../../../../engines/lispex/diagnostics.js';
import { DEFAULT_PROFILE_ID, Meter, profileById } from '../../../../engines/lispex/meter.js';
import { writeValue } from '../../../../engines/lispex/printer.js';
import { PRIMITIVE_CAPABILITIES } from '../../../../engines/lispex/primitives/capabilities.js';
import { buildPrimitiveRegistry, type PrimitiveTable } from '../../../../engines/lispex/primitives/registry.js';
import { readAll, syntaxToValue } from '../../../../engines/lispex/reader.js';
import type { Runtime } from '../../../../engines/lispex/runtime.js';
import {
  Char,
  ErrorObject,
  LString,
  LVector,
  MultipleValues,
  Pair,
  Primitive,
  Sym,
  arrayFromList,
  listFromArray,
  type Value,
} from '../../../../engines/lispex/values.js';
import type { WarningCode } from '../../../../engines/lispex/diagnostics.js';

/** Stand-ins for the control family (the machine's own rows are tested on both routes). */
function controlStandIns(): PrimitiveTable {
  const out: Record<string, (args: Value[], rt: Runtime) => Value> = {};
  for (const row of PRIMITIVE_CAPABILITIES) {
    if (row.family === 'control') {
      out[row.identityGroup] = () => {
        throw new Error(`control primitive ${row.name} needs the machine`);
      };
    }
  }
  return out;
}

export const registry = buildPrimitiveRegistry(controlStandIns());

export class FakeRuntime implements Runtime {
  stdout = '';
  readonly warnings: WarningCode[] = [];
  calls = 0;
  apply(proc: Value, args: Value[]): Value {
    this.calls++;
    if (!(proc instanceof Primitive)) throw new LispexError('E301', 'not a procedure', [proc]);
    if (args.length < proc.minArgs || args.length > proc.maxArgs) {
      throw new LispexError('E302', `${proc.name}: wrong number of arguments`, [proc]);
    }
    return proc.fn(args, this);
  }
  writeOut(text: string): void {
    this.stdout += text;
  }
  allocated = 0;
  allocate(bytes: number): void {
    this.allocated += bytes;
  }
  warn(code: WarningCode): void {
    this.warnings.push(code);
  }
}

/** Test procedures usable as `&name` arguments. */
const TEST_PROCEDURES: Record<string, Primitive> = {
  double: new Primitive('double', 1, 1, ([x]) => (x as number) * 2),
  'add-pair': new Primitive('add-pair', 2, 2, ([a, b]) => (a as number) + (b as number)),
  'cons-pair': new Primitive('cons-pair', 2, 2, ([a, b]) => new Pair(a!, b!)),
  'to-upper': new Primitive('to-upper', 1, 1, ([c]) =>
    Char.of(
      String.fromCodePoint((c as Char).codePoint)
        .toUpperCase()
        .codePointAt(0)!,
    ),
  ),
  'not-a-char': new Primitive('not-a-char', 1, 1, () => 1),
  boom: new Primitive('boom', 1, 1, () => {
    throw new LispexError('E330', 'boom', []);
  }),
};

function resolveProcedures(v: Value): Value {
  if (v instanceof Sym && v.name.startsWith('&')) {
    const name = v.name.slice(1);
    if (name === 'err') return new ErrorObject(new LString('bad thing'), [1, Sym.of('a')]);
    const p = TEST_PROCEDURES[name] ?? registry.byName.get(name);
    if (p === undefined) throw new Error(`harness: unknown procedure ${name}`);
    return p;
  }
  if (v instanceof Pair) {
    const items = arrayFromList(v);
    if (items !== null) return listFromArray(items.map(resolveProcedures));
  }
  if (v instanceof LVector) return new LVector(v.items.map(resolveProcedures));
  return v;
}

export function readData(text: string): Value[] {
  const meter = new Meter(profileById(DEFAULT_PROFILE_ID).limits);
  return readAll(new TextEncoder().encode(text), meter).map(syntaxToValue);
}

export function datum(text: string): Value {
  const all = readData(text);
  if (all.length !== 1) throw new Error(`harness: expected one datum in ${text}`);
  return all[0]!;
}

/** Written result (`values(a b)` for several values), or `!CODE` when the call raised. */
export function show(v: Value): string {
  if (v instanceof MultipleValues) return `values(${v.values.map((x) => writeValue(x)).join(' ')})`;
  return writeValue(v);
}

export interface CallOutcome {
  readonly result: string;
  readonly stdout: string;
  readonly warnings: readonly WarningCode[];
  readonly error?: LispexError;
}

/** Run `(name arg ...)`: `name` is looked up in the registry, arguments are literal data. */
export function call(text: string, rt = new FakeRuntime()): CallOutcome {
  const form = datum(text);
  if (!(form instanceof Pair) || !(form.car instanceof Sym)) throw new Error(`harness: bad call ${text}`);
  const name = form.car.name;
  const prim = registry.byName.get(name);
  if (prim === undefined) throw new Error(`harness: ${name} is not a primitive`);
  const args = (arrayFromList(form.cdr) ?? []).map(resolveProcedures);
  try {
    const v = rt.apply(prim, args);
    return { result: show(v), stdout: rt.stdout, warnings: rt.warnings };
  } catch (e) {
    if (e instanceof LispexError) return { result: `!${e.code}`, stdout: rt.stdout, warnings: rt.warnings, error: e };
    throw e;
  }
}

const PRELUDE = `
(define (double x) (* x 2))
(define (add-pair a b) (+ a b))
(define (cons-pair a b) (cons a b))
(define (to-upper c) (char-upcase c))
(define (not-a-char c) 1)
(define (boom x) (error "boom"))
(define err (guard (e (#t e)) (error "bad thing" 1 'a)))
`;

/** `(name arg ...)` with literal arguments → program text calling `name` with quoted data, after a
 * prelude defining the test procedures in Lispex (so each route's own call path is exercised). */
export function caseAsProgram(call: string): string {
  const form = datum(call) as Pair;
  const name = (form.car as Sym).name;
  const args = (arrayFromList(form.cdr) ?? []).map((a) => {
    if (a instanceof Sym && a.name.startsWith('&')) return a.name.slice(1);
    return `'${writeValue(a)}`;
  });
  return `${PRELUDE}\n(${[name, ...args].join(' ')})`;
}
