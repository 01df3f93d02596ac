// The control family (apply, call/cc, call-with-current-continuation, call-with-values,
// dynamic-wind, with-exception-handler, error, raise, raise-continuable, values) and the dynamic
// state both routes share: the handler stack, the winder list, the escape signal and the rules
// that turn runtime faults into conditions. The primitive objects are made here with arities
// derived from primitive-capabilities.v2.json; the routes dispatch on `Primitive.control`.

import capabilitiesJson from './contracts/primitive-capabilities.v2.json' with { type: 'json' };
import { LispexError, type SourcePosition } from './diagnostics.js';
import { ErrorObject, LString, MultipleValues, NO_VALUES, Primitive, type ControlOp, type Value } from './values.js';

// ---------------------------------------------------------------------------------------------
// Arity from the capability rows

export interface Arity {
  readonly min: number;
  readonly max: number;
}

/** `'2'`, `'2+'`, `'0+'`, `'1-2'`, `'1-3'`, `'1-or-2'` → min/max (max Infinity for `n+`). */
export function parseArity(text: string): Arity {
  let m = /^(\d+)$/.exec(text);
  if (m) return { min: Number(m[1]), max: Number(m[1]) };
  m = /^(\d+)\+$/.exec(text);
  if (m) return { min: Number(m[1]), max: Infinity };
  m = /^(\d+)-(?:or-)?(\d+)$/.exec(text);
  if (m) return { min: Number(m[1]), max: Number(m[2]) };
  throw new Error(`unknown arity notation ${JSON.stringify(text)} in primitive-capabilities.v2.json`);
}

interface CapabilityRow {
  name: string;
  family: string;
  arity: Arity;
}

function capabilityRows(): CapabilityRow[] {
  const cols = capabilitiesJson.columns as string[];
  const nameIx = cols.indexOf('guest_name');
  const intrinsicIx = cols.indexOf('intrinsic_id');
  const arityIx = cols.indexOf('arity');
  return (capabilitiesJson.rows as unknown[][]).map((r) => ({
    name: r[nameIx] as string,
    family: (r[intrinsicIx] as string).split('/')[0]!,
    arity: parseArity(r[arityIx] as string),
  }));
}

/** Every capability row (205), in contract order: name, family, arity. */
export const CAPABILITY_ROWS: readonly CapabilityRow[] = capabilityRows();

const CONTROL_OPS: Readonly<Record<string, ControlOp>> = {
  apply: 'apply',
  'call/cc': 'call/cc',
  'call-with-current-continuation': 'call/cc',
  'call-with-values': 'call-with-values',
  'dynamic-wind': 'dynamic-wind',
  'with-exception-handler': 'with-exception-handler',
  error: 'error',
  raise: 'raise',
  'raise-continuable': 'raise-continuable',
};

function machineOnly(name: string): never {
  // The routes dispatch control primitives on `Primitive.control` and never call `fn`; reaching
  // this means a caller bypassed the machine (an engine bug, reported as such).
  throw new Error(`internal: control primitive ${name} called outside the machine`);
}

/** `values`: one value stays itself; any other count is a transient MultipleValues. */
const valuesFn = (args: Value[]): Value => (args.length === 1 ? args[0]! : args.length === 0 ? NO_VALUES : new MultipleValues(args));

/** The control-family primitive objects by guest name (both call/cc spellings share one object). */
export function makeControlPrimitives(): Map<string, Primitive> {
  const out = new Map<string, Primitive>();
  const byOp = new Map<ControlOp, Primitive>();
  for (const row of CAPABILITY_ROWS) {
    if (row.family !== 'control') continue;
    if (row.name === 'values') {
      out.set('values', new Primitive('values', row.arity.min, row.arity.max, valuesFn));
      continue;
    }
    const op = CONTROL_OPS[row.name];
    if (op === undefined) throw new Error(`control row ${row.name} has no machine operation`);
    let p = byOp.get(op);
    if (p === undefined) {
      p = new Primitive(row.name, row.arity.min, row.arity.max, () => machineOnly(row.name), op);
      byOp.set(op, p);
    }
    out.set(row.name, p);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Dynamic state shared by both routes

/** Marks a `guard` on the handler stack; `frame` is the route's index of the guard frame. */
export class GuardTarget {
  constructor(readonly frame: number) {}
}

/** The handler stack: procedures from with-exception-handler and guard targets, innermost first. */
export interface HandlerNode {
  readonly handler: Value | GuardTarget;
  readonly next: HandlerNode | null;
}

/** The winder list of active dynamic-wind calls, innermost first. */
export interface WindNode {
  readonly after: Value;
  readonly next: WindNode | null;
  /** Handler stack in effect at the dynamic-wind call (restored while `after` runs). */
  readonly handlers: HandlerNode | null;
}

/**
 * Thrown (as a plain object, no stack capture) to carry an escape to a frame owned by an outer
 * machine run: an escape continuation's target or a guard. Each run catches it, checks whether
 * the target frame is in its part of the stack, and otherwise rethrows after trimming its part.
 */
export class EscapeSignal {
  constructor(
    /** Frame index of the target (a call/cc frame or a guard frame). */
    readonly frame: number,
    /** Values delivered to a continuation, or the condition delivered to a guard. */
    readonly payload: Value,
    readonly toGuard: boolean,
  ) {}
}

/** Runtime faults that `guard`/handlers can catch: every runtime-phase E-code. */
export function isCatchable(err: LispexError): boolean {
  return err.code.startsWith('E3');
}

/** Where an uncaught condition came from, to render it with its original position. */
const conditionOrigins = new WeakMap<ErrorObject, SourcePosition>();

/** The condition object a runtime fault becomes when a handler is installed. */
export function conditionFromError(err: LispexError): Value {
  if (err.payload !== undefined) return err.payload;
  const obj = new ErrorObject(new LString(err.message), err.irritants, err.code);
  if (err.span) conditionOrigins.set(obj, err.span);
  return obj;
}

/** The diagnostic an uncaught raised object becomes (E330 for `error`, the fault's code, or E331). */
export function uncaughtError(obj: Value, at: SourcePosition | undefined): LispexError {
  if (obj instanceof ErrorObject) {
    const code = obj.code as LispexError['code'];
    return new LispexError(code, obj.message.value, obj.irritants, conditionOrigins.get(obj) ?? at, obj);
  }
  return new LispexError('E331', 'uncaught raised object', [obj], at, obj);
}

/** `(error message irritant …)`: the message must be a string (E312 otherwise). */
export function makeErrorObject(args: Value[]): ErrorObject {
  const msg = args[0];
  if (!(msg instanceof LString)) throw new LispexError('E312', 'error: message must be a string', [msg!]);
  return new ErrorObject(msg, args.slice(1), 'E330');
}

/** Values delivered by invoking a continuation with `args`. */
export function continuationPayload(args: Value[]): Value {
  return valuesFn(args);
}

/** Spread a (possibly multiple) value into an argument list (call-with-values consumer). */
export function spreadValues(v: Value): Value[] {
  return v instanceof MultipleValues ? v.values.slice() : [v];
}
