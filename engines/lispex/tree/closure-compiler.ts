// Closure compilation for the tree route: each core IR node of a procedure body is turned, once,
// into a JS closure that evaluates it directly (no re-dispatch on node kinds, variables resolved
// to frame slots at analysis time). It is still a tree evaluator — the closures mirror the tree
// one node each, no bytecode — and it charges exactly the machine transitions the CEK machine in
// machine.ts charges for the same node, in the same order (EVAL per node, DELIVER per value handed
// to a waiting frame, APPLY per application), so the meter, every fault and every observation
// are the same on both paths. Non-tail guest calls recurse on the JS stack, bounded by a frame
// budget kept by the host (machine.ts); tail calls return TAIL to the caller's trampoline; control
// forms (guard) and control primitives are delegated to the CEK machine.

import { type CApplication, type Core, type CLambda, type Name, coreDepth } from '../core-ir.js';
import type { SourcePosition } from '../diagnostics.js';
import { type GlobalCell, type Globals, UNASSIGNED } from '../globals.js';
import { mvMisuse, setUnbound, unbound, uninitialized } from '../machine-errors.js';
import type { Meter } from '../meter.js';
import type { Runtime } from '../runtime.js';
import { Closure, MultipleValues, NIL, NO_VALUES, Pair, Primitive, Sym, type ClosureCode, type Value } from '../values.js';

// Module-local copies of imported bindings used on the hot path (see vm/vm.ts): an imported
// binding may be read through an accessor once compiled to CommonJS.
const NIL_VALUE: Value = NIL;
const PairCtor = Pair;
const L_MultipleValues = MultipleValues;
const L_NO_VALUES = NO_VALUES;
const L_UNASSIGNED = UNASSIGNED;
const L_Closure = Closure;
/** The argument array of every call of a closure with no arguments (never written: no slots). */
const NO_ARGS: Value[] = [];

/** A lexical environment frame: the names of its slots, their values, and the enclosing frame. */
export class Env {
  constructor(
    readonly names: readonly Name[],
    readonly values: Value[],
    readonly parent: Env | null,
  ) {}
}

/** The shape of an environment chain, which is all lexical addressing needs (an Env is one). */
export interface Scope {
  readonly names: readonly Name[];
  readonly parent: Scope | null;
}

/** A compiled node: evaluates it in `env`, having charged its transitions. */
export type Exec = (env: Env | null) => Value;

/**
 * Returned by a node in tail position that made a tail call: the callee and its arguments wait
 * in the host's `tailFn`/`tailArgs` for the trampoline of the enclosing call. Never a guest value.
 */
export const TAIL = Object.freeze({ tail: true }) as unknown as Value;

/** What compiled code needs from the machine that runs it. */
export interface DirectHost extends Runtime {
  readonly meter: Meter;
  readonly globals: Globals;
  /** The current call site (span of errors raised by primitives). */
  site: SourcePosition;
  /** A non-tail call: returns the value after the delivery to the (virtual) return frame. */
  callNonTail(fn: Value, args: Value[]): Value;
  /** A call in tail position: the value of a primitive, or TAIL. */
  callTail(fn: Value, args: Value[]): Value;
  /** Evaluate `node` on the CEK machine (control forms); `tail` when in tail position. */
  delegateEval(node: Core, env: Env | null, tail: boolean): Value;
}

/** Upper bound of a procedure's JS-stack weight (see TreeCode.weight). */
const MAX_WEIGHT = 640;

/** The closure code of the tree route: the lambda, its static scope, and its compiled body. */
export class TreeCode implements ClosureCode {
  readonly name: string | null;
  readonly required: number;
  readonly rest: boolean;
  /** The slot names of a call frame: the parameters, then the rest parameter. */
  readonly names: readonly Name[];
  /** JS frames one direct call of this procedure may hold at most (its body's nesting, bounded). */
  readonly weight: number;
  /** The compiled body once compiled (see body()); read directly on the call path. */
  exec: Exec | null = null;

  constructor(
    readonly lambda: CLambda,
    /** The scope the lambda was closed in: its closures' `env` always has this shape. */
    readonly scope: Scope | null,
    private readonly host: DirectHost,
  ) {
    this.name = lambda.name;
    this.required = lambda.params.length;
    this.rest = lambda.rest !== null;
    this.names = lambda.rest === null ? lambda.params : [...lambda.params, lambda.rest];
    this.weight = Math.min(MAX_WEIGHT, 2 + coreDepth(lambda.body));
  }

  /** The compiled body (compiled on first use, so unused procedures cost nothing). */
  body(): Exec {
    let e = this.exec;
    if (e === null) {
      e = compile(this.lambda.body, { names: this.names, parent: this.scope }, true, this.host);
      this.exec = e;
    }
    return e;
  }

  /** The frame of a call with `args` (arity already checked). */
  bind(args: Value[], parent: Env | null): Env {
    if (!this.rest) return new Env(this.names, args, parent);
    const required = this.required;
    const values = args.slice(0, required);
    let list: Value = NIL_VALUE;
    for (let i = args.length - 1; i >= required; i--) list = new PairCtor(args[i]!, list);
    values.push(list);
    return new Env(this.names, values, parent);
  }
}

/** Whether two scopes have the same shape (the same names, frame by frame). */
export function sameShape(a: Scope | null, b: Scope | null): boolean {
  while (a !== null && b !== null) {
    if (a === b) return true;
    const x = a.names;
    const y = b.names;
    if (x !== y) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    }
    a = a.parent;
    b = b.parent;
  }
  return a === b;
}

/** Compile `node` for evaluation in an environment of shape `scope`. */
export function compile(node: Core, scope: Scope | null, tail: boolean, host: DirectHost): Exec {
  const meter = host.meter;
  switch (node.k) {
    case 'literal':
    case 'quote': {
      const value = node.value;
      return () => {
        meter.chargeMachine();
        return value;
      };
    }
    case 'variable':
      return compileVariable(node.name, node.span, scope, host);
    case 'lambda': {
      const code = new TreeCode(node, scope, host);
      return (env) => {
        meter.chargeMachine();
        return new L_Closure(code, env);
      };
    }
    case 'if': {
      const test = compile(node.test, scope, false, host);
      const then = compile(node.then, scope, tail, host);
      const span = node.span;
      if (node.else_ === null) {
        return (env) => {
          meter.chargeMachine();
          const t = test(env);
          meter.chargeMachine();
          if (t instanceof L_MultipleValues) throw mvMisuse(span);
          return t !== false ? then(env) : L_NO_VALUES;
        };
      }
      const else_ = compile(node.else_, scope, tail, host);
      const stepwise: Exec = (env) => {
        meter.chargeMachine();
        const t = test(env);
        meter.chargeMachine();
        if (t instanceof L_MultipleValues) throw mvMisuse(span);
        return t !== false ? then(env) : else_(env);
      };
      const fused = fusedIf(node.test, span, scope, host, then, else_);
      if (fused !== null) return fused;
      const negated = fusedNotIf(node.test, scope, host, then, else_, stepwise);
      if (negated !== null) return negated;
      if (node.test.k !== 'variable') return stepwise;
      const t0 = operand(node.test, scope, host);
      if (t0.kind === K_EXEC) return stepwise;
      // A variable test (the temporaries of `or`, `cond =>`): if, its EVAL, the delivery — three
      // transitions in one batch; a fault in the read leaves two.
      return (env) => {
        const m = meter.machine;
        if (m + 3 > meter.machineLimit) return stepwise(env);
        const t = peek(t0, env);
        if (t === L_UNASSIGNED) {
          meter.machine = m + 2;
          throw readFault(t0);
        }
        meter.machine = m + 3;
        return t !== false ? then(env) : else_(env);
      };
    }
    case 'begin': {
      const count = node.body.length;
      const init = node.body.slice(0, count - 1).map((b) => compile(b, scope, false, host));
      const last = compile(node.body[count - 1]!, scope, tail, host);
      if (init.length === 1) {
        const first = init[0]!;
        return (env) => {
          meter.chargeMachine();
          first(env);
          meter.chargeMachine();
          return last(env);
        };
      }
      return (env) => {
        meter.chargeMachine();
        for (let i = 0; i < init.length; i++) {
          init[i]!(env);
          meter.chargeMachine();
        }
        return last(env);
      };
    }
    case 'set!':
      return compileSet(node.name, compile(node.value, scope, false, host), node.span, scope, host);
    case 'define': {
      const value = compile(node.value, scope, false, host);
      const cell = host.globals.cell(node.name);
      const span = node.span;
      return (env) => {
        meter.chargeMachine();
        const v = value(env);
        meter.chargeMachine();
        if (v instanceof L_MultipleValues) throw mvMisuse(span);
        cell.value = v;
        return L_NO_VALUES;
      };
    }
    case 'let': {
      const names = node.names;
      const inner: Scope = { names, parent: scope };
      const body = compile(node.body, inner, tail, host);
      const inits = node.inits.map((i) => compile(i, scope, false, host));
      const span = node.span;
      const count = inits.length;
      if (count === 0) {
        return (env) => {
          meter.chargeMachine();
          return body(new Env(names, [], env));
        };
      }
      if (count === 1) {
        // One binding (the temporaries of `or`, `case`, named results): no loop, no holey array.
        const init = inits[0]!;
        return (env) => {
          meter.chargeMachine();
          const v = init(env);
          meter.chargeMachine();
          if (v instanceof L_MultipleValues) throw mvMisuse(span);
          return body(new Env(names, [v], env));
        };
      }
      return (env) => {
        meter.chargeMachine();
        const values: Value[] = [];
        for (let i = 0; i < count; i++) {
          const v = inits[i]!(env);
          meter.chargeMachine();
          if (v instanceof L_MultipleValues) throw mvMisuse(span);
          values.push(v);
        }
        return body(new Env(names, values, env));
      };
    }
    case 'letrec': {
      const names = node.names;
      const inner: Scope = { names, parent: scope };
      const inits = node.inits.map((i) => compile(i, inner, false, host));
      const body = compile(node.body, inner, tail, host);
      const span = node.span;
      const count = inits.length;
      return (env) => {
        meter.chargeMachine();
        const values = new Array<Value>(names.length).fill(L_UNASSIGNED);
        const frame = new Env(names, values, env);
        for (let i = 0; i < count; i++) {
          const v = inits[i]!(frame);
          meter.chargeMachine();
          if (v instanceof L_MultipleValues) throw mvMisuse(span);
          values[i] = v;
        }
        return body(frame);
      };
    }
    case 'values': {
      const args = node.args.map((a) => compile(a, scope, false, host));
      const span = node.span;
      const count = args.length;
      if (count === 0) {
        return () => {
          meter.chargeMachine();
          return L_NO_VALUES;
        };
      }
      return (env) => {
        meter.chargeMachine();
        const values: Value[] = [];
        for (let i = 0; i < count; i++) {
          const v = args[i]!(env);
          meter.chargeMachine();
          if (v instanceof L_MultipleValues) throw mvMisuse(span);
          values.push(v);
        }
        return count === 1 ? values[0]! : new L_MultipleValues(values);
      };
    }
    case 'application':
      return compileApplication(node, scope, tail, host);
    case 'guard':
      return (env) => host.delegateEval(node, env, tail);
  }
}

/** Where `name` is bound in `scope`: frames up and slot, or null for a global. */
function address(name: Name, scope: Scope | null): { depth: number; index: number } | null {
  let depth = 0;
  for (let s = scope; s !== null; s = s.parent, depth++) {
    const i = s.names.indexOf(name);
    if (i >= 0) return { depth, index: i };
  }
  return null;
}

function compileVariable(name: Name, span: SourcePosition, scope: Scope | null, host: DirectHost): Exec {
  const meter = host.meter;
  const at = address(name, scope);
  if (at === null) {
    if (!(name instanceof Sym)) {
      return () => {
        meter.chargeMachine();
        throw unbound(name as unknown as Sym, span);
      };
    }
    const cell: GlobalCell = host.globals.cell(name);
    return () => {
      meter.chargeMachine();
      const v = cell.value;
      if (v === L_UNASSIGNED) throw unbound(name, span);
      return v;
    };
  }
  const { depth, index } = at;
  if (depth === 0) {
    return (env) => {
      meter.chargeMachine();
      const v = env!.values[index]!;
      if (v === L_UNASSIGNED) throw uninitialized(name, span);
      return v;
    };
  }
  if (depth === 1) {
    return (env) => {
      meter.chargeMachine();
      const v = env!.parent!.values[index]!;
      if (v === L_UNASSIGNED) throw uninitialized(name, span);
      return v;
    };
  }
  return (env) => {
    meter.chargeMachine();
    let e = env!;
    for (let i = 0; i < depth; i++) e = e.parent!;
    const v = e.values[index]!;
    if (v === L_UNASSIGNED) throw uninitialized(name, span);
    return v;
  };
}

function compileSet(name: Name, value: Exec, span: SourcePosition, scope: Scope | null, host: DirectHost): Exec {
  const meter = host.meter;
  const at = address(name, scope);
  if (at === null) {
    const sym = name as Sym;
    const globals = host.globals;
    return (env) => {
      meter.chargeMachine();
      const v = value(env);
      meter.chargeMachine();
      if (v instanceof L_MultipleValues) throw mvMisuse(span);
      if (globals.lookup(sym) === undefined) throw setUnbound(sym, span);
      globals.define(sym, v);
      return L_NO_VALUES;
    };
  }
  const { depth, index } = at;
  return (env) => {
    meter.chargeMachine();
    const v = value(env);
    meter.chargeMachine();
    if (v instanceof L_MultipleValues) throw mvMisuse(span);
    let e = env!;
    for (let i = 0; i < depth; i++) e = e.parent!;
    e.values[index] = v;
    return L_NO_VALUES;
  };
}

// Operands of an application, read without a call when they are a literal or a variable (the
// common case): the same charge (EVAL, 1) and the same faults as the compiled node.
const K_CONST = 0,
  K_LOCAL0 = 1,
  K_LOCAL1 = 2,
  K_GLOBAL = 3,
  K_EXEC = 4;

class Operand {
  constructor(
    readonly kind: number,
    readonly index: number,
    readonly value: Value,
    readonly cell: GlobalCell | null,
    readonly exec: Exec | null,
    readonly name: Name | null,
    readonly span: SourcePosition,
  ) {}
}

function operand(node: Core, scope: Scope | null, host: DirectHost): Operand {
  if (node.k === 'literal' || node.k === 'quote') return new Operand(K_CONST, 0, node.value, null, null, null, node.span);
  if (node.k === 'variable') {
    const at = address(node.name, scope);
    if (at === null && node.name instanceof Sym) {
      return new Operand(K_GLOBAL, 0, false, host.globals.cell(node.name), null, node.name, node.span);
    }
    if (at !== null && at.depth <= 1) {
      return new Operand(at.depth === 0 ? K_LOCAL0 : K_LOCAL1, at.index, false, null, null, node.name, node.span);
    }
  }
  return new Operand(K_EXEC, 0, false, null, compile(node, scope, false, host), null, node.span);
}

/** The value of a literal or variable operand without charging: UNASSIGNED when it would fault. */
function peek(o: Operand, env: Env | null): Value {
  switch (o.kind) {
    case K_CONST:
      return o.value;
    case K_LOCAL0:
      return env!.values[o.index]!;
    case K_LOCAL1:
      return env!.parent!.values[o.index]!;
    default:
      return o.cell!.value;
  }
}

/** The fault of reading an operand that peeked UNASSIGNED. */
function readFault(o: Operand): Error {
  return o.kind === K_GLOBAL ? unbound(o.name as Sym, o.span) : uninitialized(o.name!, o.span);
}

/** The value of an operand, charged as its node's EVAL. */
function read(o: Operand, env: Env | null, meter: Meter): Value {
  switch (o.kind) {
    case K_CONST:
      meter.chargeMachine();
      return o.value;
    case K_LOCAL0: {
      meter.chargeMachine();
      const v = env!.values[o.index]!;
      if (v === L_UNASSIGNED) throw uninitialized(o.name!, o.span);
      return v;
    }
    case K_LOCAL1: {
      meter.chargeMachine();
      const v = env!.parent!.values[o.index]!;
      if (v === L_UNASSIGNED) throw uninitialized(o.name!, o.span);
      return v;
    }
    case K_GLOBAL: {
      meter.chargeMachine();
      const v = o.cell!.value;
      if (v === L_UNASSIGNED) throw unbound(o.name as Sym, o.span);
      return v;
    }
    default:
      return o.exec!(env);
  }
}

// Primitives answered in place for the common argument types when the operator is still the
// primitive it was at analysis time (same APPLY charge; anything else calls the primitive).
const P_ADD = 1,
  P_SUB = 2,
  P_LT = 3,
  P_GT = 4,
  P_LE = 5,
  P_GE = 6,
  P_NUM_EQ = 7,
  P_CONS = 8,
  P_CAR = 11,
  P_CDR = 12,
  P_NULL = 13,
  P_PAIR = 14,
  P_NOT = 15;
const BINARY: Readonly<Record<string, number>> = {
  '+': P_ADD,
  '-': P_SUB,
  '<': P_LT,
  '>': P_GT,
  '<=': P_LE,
  '>=': P_GE,
  '=': P_NUM_EQ,
  cons: P_CONS,
};
// Keyed by the primitive object's own name, which is its identity group (`null?` is `empty?`):
// the behaviour answered in place is that object's, whatever guest name reached it.
const UNARY: Readonly<Record<string, number>> = { car: P_CAR, cdr: P_CDR, 'empty?': P_NULL, 'pair?': P_PAIR, not: P_NOT };

/** The primitive an application's operator names now, when it is one with an in-place path. */
function knownPrimitive(fn: Operand, count: number): { prim: Primitive; op: number } | null {
  if (fn.kind !== K_GLOBAL) return null;
  const p = fn.cell!.value;
  if (!(p instanceof Primitive) || p.control !== null || count < p.minArgs || count > p.maxArgs) return null;
  const op = count === 2 ? BINARY[p.name] : count === 1 ? UNARY[p.name] : undefined;
  return op === undefined ? null : { prim: p, op };
}

/**
 * An `if` whose test applies a known primitive to literals or variables, in one closure: the
 * transitions of the if (1), of the test (6 or 8) and of the delivery to the if (1) are charged
 * in one batch, corrected to the step-by-step count wherever a fault or a call intervenes.
 * Null when the test is not of that shape, or to fall back to step-by-step near the limit.
 */
function fusedIf(testNode: Core, ifSpan: SourcePosition, scope: Scope | null, host: DirectHost, then: Exec, else_: Exec): Exec | null {
  if (testNode.k !== 'application' || testNode.args.length === 0 || testNode.args.length > 2) return null;
  const fn = operand(testNode.fn, scope, host);
  const args = testNode.args.map((a) => operand(a, scope, host));
  if (fn.kind !== K_GLOBAL || !args.every((a) => a.kind !== K_EXEC)) return null;
  const known = knownPrimitive(fn, args.length);
  if (known === null) return null;
  const { prim, op } = known;
  const meter = host.meter;
  const span = testNode.span;
  const fnCell = fn.cell!;
  const a0 = args[0]!;
  const test = compileApplication(testNode, scope, false, host);
  const stepwise: Exec = (env) => {
    meter.chargeMachine();
    const t = test(env);
    meter.chargeMachine();
    if (t instanceof L_MultipleValues) throw mvMisuse(ifSpan);
    return t !== false ? then(env) : else_(env);
  };
  if (args.length === 1) {
    // if (1), test EVAL (1), operator (2), operand (2), APPLY (1), delivery to the if (1).
    return (env) => {
      const m = meter.machine;
      if (m + 8 > meter.machineLimit) return stepwise(env);
      meter.machine = m + 8;
      const f = fnCell.value;
      if (f === L_UNASSIGNED) {
        meter.machine = m + 3;
        throw readFault(fn);
      }
      const v0 = peek(a0, env);
      if (v0 === L_UNASSIGNED) {
        meter.machine = m + 5;
        throw readFault(a0);
      }
      host.site = span;
      let t: Value | undefined;
      if (f === prim) {
        t = unary(op, v0);
        if (t === undefined) {
          meter.machine = m + 7;
          t = prim.fn([v0], host);
          meter.machine = m + 8;
        }
      } else {
        meter.machine = m + 6;
        t = host.callNonTail(f, [v0]);
        meter.chargeMachine();
        if (t instanceof L_MultipleValues) throw mvMisuse(ifSpan);
      }
      return t !== false ? then(env) : else_(env);
    };
  }
  const a1 = args[1]!;
  // if (1), test EVAL (1), operator (2), two operands (4), APPLY (1), delivery to the if (1).
  return (env) => {
    const m = meter.machine;
    if (m + 10 > meter.machineLimit) return stepwise(env);
    meter.machine = m + 10;
    const f = fnCell.value;
    if (f === L_UNASSIGNED) {
      meter.machine = m + 3;
      throw readFault(fn);
    }
    const v0 = peek(a0, env);
    if (v0 === L_UNASSIGNED) {
      meter.machine = m + 5;
      throw readFault(a0);
    }
    const v1 = peek(a1, env);
    if (v1 === L_UNASSIGNED) {
      meter.machine = m + 7;
      throw readFault(a1);
    }
    host.site = span;
    let t: Value | undefined;
    if (f === prim) {
      t = binary(op, v0, v1);
      if (t === undefined) {
        meter.machine = m + 9;
        t = prim.fn([v0, v1], host);
        meter.machine = m + 10;
      }
    } else {
      meter.machine = m + 8;
      t = host.callNonTail(f, [v0, v1]);
      meter.chargeMachine();
      if (t instanceof L_MultipleValues) throw mvMisuse(ifSpan);
    }
    return t !== false ? then(env) : else_(env);
  };
}

/**
 * An `if` whose test is `(not (p a b))`, `p` a known binary primitive and `a`, `b` literals or
 * variables (tak's `(if (not (< y x)) ...)`): when both operators still hold their primitives,
 * both operands are readable and `p` answers in place, the whole test — if (1), the `not`
 * application (EVAL 1, operator 2, operand DELIVER 1, APPLY 1), the inner application (8) and the
 * delivery to the if (1), 15 transitions — is charged in one batch, with nothing called.
 * Anything else (a redefined operator, an unbound or uninitialized operand, an operand `p` does
 * not answer in place, the meter within 15 of its limit) runs the step-by-step closure instead,
 * before anything was charged, so every count and fault is the step-by-step one.
 */
function fusedNotIf(testNode: Core, scope: Scope | null, host: DirectHost, then: Exec, else_: Exec, stepwise: Exec): Exec | null {
  if (testNode.k !== 'application' || testNode.args.length !== 1) return null;
  const inner = testNode.args[0]!;
  if (inner.k !== 'application' || inner.args.length !== 2) return null;
  const notFn = operand(testNode.fn, scope, host);
  const known = knownPrimitive(notFn, 1);
  if (known === null || known.op !== P_NOT) return null;
  const innerFn = operand(inner.fn, scope, host);
  const args = inner.args.map((a) => operand(a, scope, host));
  if (!args.every((a) => a.kind !== K_EXEC)) return null;
  const innerKnown = knownPrimitive(innerFn, 2);
  if (innerKnown === null || innerKnown.op === P_CONS) return null;
  const meter = host.meter;
  const notCell = notFn.cell!;
  const notPrim = known.prim;
  const innerCell = innerFn.cell!;
  const innerPrim = innerKnown.prim;
  const op = innerKnown.op;
  const a0 = args[0]!;
  const a1 = args[1]!;
  // The step-by-step path sets the call site of the inner application, then of the `not`.
  const notSpan = testNode.span;
  return (env) => {
    const m = meter.machine;
    if (m + 15 <= meter.machineLimit && notCell.value === notPrim && innerCell.value === innerPrim) {
      const v0 = peek(a0, env);
      const v1 = peek(a1, env);
      if (v0 !== L_UNASSIGNED && v1 !== L_UNASSIGNED) {
        const t = binary(op, v0, v1);
        if (t !== undefined) {
          meter.machine = m + 15;
          host.site = notSpan;
          return t === false ? then(env) : else_(env);
        }
      }
    }
    return stepwise(env);
  };
}

function binary(op: number, a: Value, b: Value): Value | undefined {
  if (op === P_CONS) return new PairCtor(a, b);
  if (typeof a !== 'number' || typeof b !== 'number') return undefined;
  switch (op) {
    case P_ADD: {
      const r = a + b;
      return Number.isSafeInteger(r) ? r : undefined;
    }
    case P_SUB: {
      const r = a - b;
      return Number.isSafeInteger(r) ? (r === 0 ? 0 : r) : undefined;
    }
    case P_LT:
      return a < b;
    case P_GT:
      return a > b;
    case P_LE:
      return a <= b;
    case P_GE:
      return a >= b;
    default:
      return a === b;
  }
}

function unary(op: number, a: Value): Value | undefined {
  switch (op) {
    case P_CAR:
      return a instanceof PairCtor ? a.car : undefined;
    case P_CDR:
      return a instanceof PairCtor ? a.cdr : undefined;
    case P_NULL:
      return a === NIL_VALUE;
    case P_PAIR:
      return a instanceof PairCtor;
    default:
      return a === false;
  }
}

/**
 * An application: EVAL (1), the operator evaluated and delivered (1), each operand evaluated and
 * delivered (1 each), then the call — as the CEK machine's argument frame does.
 */
function compileApplication(node: CApplication, scope: Scope | null, tail: boolean, host: DirectHost): Exec {
  const meter = host.meter;
  const span = node.span;
  const fn = operand(node.fn, scope, host);
  const args = node.args.map((a) => operand(a, scope, host));
  const count = args.length;
  const known = knownPrimitive(fn, count);
  if (known !== null) {
    const { prim, op } = known;
    const simple = args.every((a) => a.kind !== K_EXEC);
    if (count === 2) {
      const a0 = args[0]!;
      const a1 = args[1]!;
      const stepwise: Exec = (env) => {
        meter.chargeMachine();
        const f = read(fn, env, meter);
        meter.chargeMachine();
        const v0 = read(a0, env, meter);
        meter.chargeMachine();
        if (v0 instanceof L_MultipleValues) throw mvMisuse(span);
        const v1 = read(a1, env, meter);
        meter.chargeMachine();
        if (v1 instanceof L_MultipleValues) throw mvMisuse(span);
        host.site = span;
        if (f === prim) {
          meter.chargeMachine();
          const r = binary(op, v0, v1);
          return r !== undefined ? r : prim.fn([v0, v1], host);
        }
        return tail ? host.callTail(f, [v0, v1]) : host.callNonTail(f, [v0, v1]);
      };
      if (!simple) return stepwise;
      // Operands that are literals or variables: the eight transitions up to and including
      // APPLY are charged at once when they all fit, and a fault among them leaves the meter
      // exactly where the step-by-step charges would have.
      const fnCell = fn.cell!;
      return (env) => {
        const m = meter.machine;
        if (m + 8 > meter.machineLimit) return stepwise(env);
        meter.machine = m + 8;
        const f = fnCell.value;
        if (f === L_UNASSIGNED) {
          meter.machine = m + 2;
          throw readFault(fn);
        }
        const v0 = peek(a0, env);
        if (v0 === L_UNASSIGNED) {
          meter.machine = m + 4;
          throw readFault(a0);
        }
        const v1 = peek(a1, env);
        if (v1 === L_UNASSIGNED) {
          meter.machine = m + 6;
          throw readFault(a1);
        }
        host.site = span;
        if (f === prim) {
          const r = binary(op, v0, v1);
          return r !== undefined ? r : prim.fn([v0, v1], host);
        }
        meter.machine = m + 7;
        return tail ? host.callTail(f, [v0, v1]) : host.callNonTail(f, [v0, v1]);
      };
    }
    const a0 = args[0]!;
    const stepwise: Exec = (env) => {
      meter.chargeMachine();
      const f = read(fn, env, meter);
      meter.chargeMachine();
      const v0 = read(a0, env, meter);
      meter.chargeMachine();
      if (v0 instanceof L_MultipleValues) throw mvMisuse(span);
      host.site = span;
      if (f === prim) {
        meter.chargeMachine();
        const r = unary(op, v0);
        return r !== undefined ? r : prim.fn([v0], host);
      }
      return tail ? host.callTail(f, [v0]) : host.callNonTail(f, [v0]);
    };
    if (!simple) return stepwise;
    // As for two operands: EVAL, operator and operand (each EVAL and DELIVER), APPLY — six.
    const fnCell = fn.cell!;
    return (env) => {
      const m = meter.machine;
      if (m + 6 > meter.machineLimit) return stepwise(env);
      meter.machine = m + 6;
      const f = fnCell.value;
      if (f === L_UNASSIGNED) {
        meter.machine = m + 2;
        throw readFault(fn);
      }
      const v0 = peek(a0, env);
      if (v0 === L_UNASSIGNED) {
        meter.machine = m + 4;
        throw readFault(a0);
      }
      host.site = span;
      if (f === prim) {
        const r = unary(op, v0);
        return r !== undefined ? r : prim.fn([v0], host);
      }
      meter.machine = m + 5;
      return tail ? host.callTail(f, [v0]) : host.callNonTail(f, [v0]);
    };
  }
  switch (count) {
    case 0: {
      const stepwise: Exec = (env) => {
        meter.chargeMachine();
        const f = read(fn, env, meter);
        meter.chargeMachine();
        if (f instanceof L_MultipleValues) throw mvMisuse(span);
        host.site = span;
        return tail ? host.callTail(f, []) : host.callNonTail(f, []);
      };
      if (fn.kind === K_EXEC) return stepwise;
      // `(f)` with f a variable (thunks, loops): EVAL, operator EVAL and DELIVER in one batch. A
      // closure with no parameters gets the shared empty frame array (it has no slot to write).
      return (env) => {
        const m = meter.machine;
        if (m + 3 > meter.machineLimit) return stepwise(env);
        const f = peek(fn, env);
        if (f === L_UNASSIGNED) {
          meter.machine = m + 2;
          throw readFault(fn);
        }
        meter.machine = m + 3;
        host.site = span;
        const args = f instanceof L_Closure ? NO_ARGS : [];
        return tail ? host.callTail(f, args) : host.callNonTail(f, args);
      };
    }
    case 1: {
      const a0 = args[0]!;
      return (env) => {
        meter.chargeMachine();
        const f = read(fn, env, meter);
        meter.chargeMachine();
        if (f instanceof L_MultipleValues) throw mvMisuse(span);
        const v0 = read(a0, env, meter);
        meter.chargeMachine();
        if (v0 instanceof L_MultipleValues) throw mvMisuse(span);
        host.site = span;
        return tail ? host.callTail(f, [v0]) : host.callNonTail(f, [v0]);
      };
    }
    case 2: {
      const a0 = args[0]!;
      const a1 = args[1]!;
      return (env) => {
        meter.chargeMachine();
        const f = read(fn, env, meter);
        meter.chargeMachine();
        if (f instanceof L_MultipleValues) throw mvMisuse(span);
        const v0 = read(a0, env, meter);
        meter.chargeMachine();
        if (v0 instanceof L_MultipleValues) throw mvMisuse(span);
        const v1 = read(a1, env, meter);
        meter.chargeMachine();
        if (v1 instanceof L_MultipleValues) throw mvMisuse(span);
        host.site = span;
        return tail ? host.callTail(f, [v0, v1]) : host.callNonTail(f, [v0, v1]);
      };
    }
    case 3: {
      // Unrolled (tak, three-argument helpers): the default case's steps without its loop.
      const a0 = args[0]!;
      const a1 = args[1]!;
      const a2 = args[2]!;
      return (env) => {
        meter.chargeMachine();
        const f = read(fn, env, meter);
        meter.chargeMachine();
        if (f instanceof L_MultipleValues) throw mvMisuse(span);
        const v0 = read(a0, env, meter);
        meter.chargeMachine();
        if (v0 instanceof L_MultipleValues) throw mvMisuse(span);
        const v1 = read(a1, env, meter);
        meter.chargeMachine();
        if (v1 instanceof L_MultipleValues) throw mvMisuse(span);
        const v2 = read(a2, env, meter);
        meter.chargeMachine();
        if (v2 instanceof L_MultipleValues) throw mvMisuse(span);
        host.site = span;
        return tail ? host.callTail(f, [v0, v1, v2]) : host.callNonTail(f, [v0, v1, v2]);
      };
    }
    default:
      return (env) => {
        meter.chargeMachine();
        const f = read(fn, env, meter);
        meter.chargeMachine();
        if (f instanceof L_MultipleValues) throw mvMisuse(span);
        const values = new Array<Value>(count);
        for (let i = 0; i < count; i++) {
          const v = read(args[i]!, env, meter);
          meter.chargeMachine();
          if (v instanceof L_MultipleValues) throw mvMisuse(span);
          values[i] = v;
        }
        host.site = span;
        return tail ? host.callTail(f, values) : host.callNonTail(f, values);
      };
  }
}
