// The tree route: an evaluator over the normalized core IR, written as a CEK-style machine with
// an explicit, heap-allocated continuation stack. Nothing recurses in JS per guest call, so
// proper tail calls and deep non-tail recursion (up to CALL_DEPTH_LIMIT) cost heap, not JS
// stack. Each evaluation step and each delivery of a value to a frame charges one machine
// transition; each condition transfer (raise, escape) charges one as well.
//
// Procedure bodies run as compiled closures (closure-compiler.ts), which charge exactly the same
// transitions: the machine enters them when it applies a closure and they call back into it
// (`callNonTail`, `callTail`, `delegateEval`) for what they do not do themselves. Their non-tail
// calls recurse on the JS stack, within a frame budget (JS_FRAME_BUDGET); past it, or when a
// procedure is entered while the budget is spent, the machine runs it on its heap stack instead,
// so deep recursion still costs heap, not JS stack.

import {
  EscapeSignal,
  GuardTarget,
  conditionFromError,
  continuationPayload,
  isCatchable,
  makeErrorObject,
  spreadValues,
  uncaughtError,
  type HandlerNode,
  type WindNode,
} from '../control-primitives.js';
import type { CApplication, CGuard, CLambda, CVariable, Core, Name } from '../core-ir.js';
import { Env, TAIL, TreeCode, sameShape, type DirectHost } from './closure-compiler.js';
import { LispexError, type SourcePosition, type WarningCode } from '../diagnostics.js';
import { type GlobalCell, UNASSIGNED } from '../globals.js';
import {
  arityError,
  expectedProcedure,
  inactiveContinuation,
  mvMisuse,
  nonContinuable,
  notAProcedure,
  notProperList,
  recursionLimit,
  reentryLimit,
  setUnbound,
  unbound,
  uninitialized,
  isHostStackOverflow,
} from '../machine-errors.js';
import { CALL_DEPTH_LIMIT, REENTRY_LIMIT } from '../meter.js';
import type { RunContext } from '../run-context.js';
import type { Globals } from '../globals.js';
import type { Meter } from '../meter.js';
import type { Runtime } from '../runtime.js';
import type { RouteRunner } from '../route-runner.js';
import {
  Closure,
  Continuation,
  MultipleValues,
  NIL,
  NO_VALUES,
  Primitive,
  Sym,
  arrayFromList,
  isProcedure,
  type Value,
} from '../values.js';

// Module-local copies of imported bindings used on the hot path (see vm/vm.ts).
const L_NIL = NIL;
const L_NO_VALUES = NO_VALUES;
const L_UNASSIGNED = UNASSIGNED;
const L_CALL_DEPTH_LIMIT = CALL_DEPTH_LIMIT;
const L_Closure = Closure;
const L_Primitive = Primitive;
const L_MultipleValues = MultipleValues;
const L_Continuation = Continuation;
const L_Sym = Sym;
const L_TAIL = TAIL;
const L_TreeCode = TreeCode;
const L_Env = Env;

/**
 * Lexical address of a variable reference, found by the first lookup and kept on the node:
 * `depth` environments up, slot `index` (or the global cell when depth is -1). Scoping is
 * lexical, so a reference sees the same environment shape every time; a node the normalizer
 * shares between scopes is caught by checking the name at the cached slot, and looked up again.
 */
interface AddressedVariable extends CVariable {
  depth?: number;
  index?: number;
  cell?: GlobalCell;
}

/**
 * An application analysed once: `simple` when the operator and every argument are variables or
 * literals, so they can be evaluated in place without a continuation frame (same transitions
 * charged, in the same order, so the meter and every fault are exactly as with frames).
 */
interface AnalysedApplication extends CApplication {
  simple?: boolean;
}

function isSimple(n: Core): boolean {
  return n.k === 'variable' || n.k === 'literal' || n.k === 'quote';
}

/** Whether `app` is simple, analysed on first use and remembered on the node. */
function isSimpleApplication(app: AnalysedApplication): boolean {
  let simple = app.simple;
  if (simple === undefined) {
    simple = isSimple(app.fn) && app.args.every(isSimple);
    app.simple = simple;
  }
  return simple;
}

// Frame kinds.
const F_BOUNDARY = 0,
  F_RETURN = 1,
  F_IF = 2,
  F_BEGIN = 3,
  F_ARGS = 4,
  F_LET = 5,
  F_LETREC = 6,
  F_SET = 7,
  F_DEFINE = 8,
  F_VALUES = 9,
  F_CALLCC = 10,
  F_GUARD = 11,
  F_HANDLER = 12,
  F_RAISE_RETURN = 13,
  F_WIND = 14,
  F_CWV = 15,
  // Boundaries of a run the compiled code delegated to the machine: delivering to them charges
  // nothing (the compiled caller charges that delivery itself). The tail one is a return point,
  // for a delegation in tail position.
  F_DELEGATED = 16,
  F_DELEGATED_TAIL = 17;

/**
 * JS frames compiled code may hold at once (sum of the weights of the direct calls in progress,
 * see TreeCode.weight). Well inside the main thread's default stack, with room for primitives'
 * re-entries (REENTRY_LIMIT) on top.
 */
const JS_FRAME_BUDGET = 2400;
/** Weight of one delegation to the machine (its `execute` frame is large). */
const DELEGATION_WEIGHT = 8;

/**
 * Frames a procedure body can return into directly: a procedure entered on top of one of these
 * is in tail position and pushes no F_RETURN (the VM enters procedures on top of the same
 * markers without a return entry, so both routes count the same depth).
 */
const RETURN_POINT: readonly boolean[] = [];
for (const k of [F_RETURN, F_CALLCC, F_CWV, F_WIND, F_HANDLER, F_RAISE_RETURN, F_DELEGATED_TAIL]) (RETURN_POINT as boolean[])[k] = true;
for (let k = 0; k <= F_DELEGATED_TAIL; k++) (RETURN_POINT as boolean[])[k] ??= false;

/** One continuation frame. A single shape for every kind keeps the machine monomorphic. */
class Frame {
  constructor(
    readonly kind: number,
    readonly node: Core | null,
    readonly env: Env | null,
    public index: number,
    readonly vals: Value[] | null,
    /**
     * Kind-specific: L_Continuation (call/cc), consumer (cwv), WindNode (wind), flag (raise),
     * the evaluated operator (application).
     */
    public aux: unknown,
    /** Handler stack and winders at frame creation (restored by escapes landing here). */
    readonly handlers: HandlerNode | null,
    readonly winders: WindNode | null,
  ) {}
}

/**
 * The one procedure-return frame, pushed for every non-tail call: it carries nothing (no escape
 * ever lands on it — continuations and guards target their own frames), so it need not be
 * allocated per call.
 */
const RETURN_FRAME = new Frame(F_RETURN, null, null, 0, null, null, null, null);

const EVAL = 0,
  DELIVER = 1,
  APPLY = 2,
  RAISE = 3;

export class TreeMachine implements Runtime, RouteRunner, DirectHost {
  private readonly stack: Frame[] = [];
  private handlers: HandlerNode | null = null;
  private winders: WindNode | null = null;
  private depth = 0;
  private reentries = 0;
  /** The current call site (span of errors raised by primitives and of warnings). */
  site: SourcePosition = { line: 1, column: 1 };
  readonly meter: Meter;
  readonly globals: Globals;
  /** JS frames held by compiled code in progress (see JS_FRAME_BUDGET). */
  private nest = 0;
  /** The part of `depth` counted by compiled code's non-tail calls in progress. */
  private directDepth = 0;
  /** Set while a run delegated past the frame budget: every body then runs on the heap stack. */
  private directOff = false;
  /** The pending tail call of compiled code that returned TAIL. */
  private tailFn: Value = L_NIL;
  private tailArgs: Value[] = [];
  /** The code of each lambda node evaluated by the machine, for the scope it was compiled in. */
  private readonly lambdaCodes = new Map<CLambda, TreeCode>();

  constructor(
    private readonly ctx: RunContext,
    /** False: every body runs on the heap stack (the reference the parity test compares with). */
    compiledBodies = true,
  ) {
    this.meter = ctx.meter;
    this.globals = ctx.globals;
    this.directOff = !compiledBodies;
  }

  /** The code for a lambda node evaluated by the machine in `env` (compiled for that shape). */
  private codeFor(node: CLambda, env: Env | null): TreeCode {
    let c = this.lambdaCodes.get(node);
    if (c === undefined || !sameShape(c.scope, env)) {
      c = new L_TreeCode(node, env, this);
      this.lambdaCodes.set(node, c);
    }
    return c;
  }

  /** The position to blame for a fault with no span of its own. */
  currentSite(): SourcePosition {
    return this.site;
  }

  /** Evaluate one top-level form; returns its value (possibly L_MultipleValues). */
  evalForm(node: Core): Value {
    return this.execute(EVAL, node, null, null, null, F_BOUNDARY);
  }

  // Runtime -----------------------------------------------------------------------------------

  apply(proc: Value, args: Value[]): Value {
    if (this.reentries >= REENTRY_LIMIT) {
      throw reentryLimit(this.site);
    }
    this.reentries++;
    const site = this.site;
    try {
      return this.execute(APPLY, null, null, proc, args, F_BOUNDARY);
    } finally {
      this.reentries--;
      this.site = site;
    }
  }

  writeOut(text: string): void {
    this.ctx.writeOut(text);
  }

  allocate(bytes: number, who: string): void {
    this.ctx.allocate(bytes, who);
  }

  warn(code: WarningCode): void {
    this.ctx.warn(code, this.site);
  }

  // Services of compiled code (DirectHost) ---------------------------------------------------

  /**
   * A non-tail call from compiled code: APPLY (1), the body, and the delivery to the return
   * frame (1) — the frame itself is the JS stack here. Anything but a closure within the frame
   * budget or an ordinary primitive is delegated to the machine.
   */
  callNonTail(fn: Value, args: Value[]): Value {
    if (fn instanceof L_Closure) {
      const code = fn.code as TreeCode;
      const nest0 = this.nest;
      if (nest0 + code.weight > JS_FRAME_BUDGET) return this.delegate(APPLY, null, null, fn, args, F_DELEGATED, true);
      const meter = this.meter;
      meter.chargeMachine();
      const n = args.length;
      if (n !== code.required && (n < code.required || !code.rest)) throw this.arityError(fn, n);
      if (++this.depth > L_CALL_DEPTH_LIMIT) {
        this.depth--;
        throw recursionLimit(this.site);
      }
      if (this.depth > this.ctx.maxDepth) this.ctx.maxDepth = this.depth;
      this.directDepth++;
      this.nest = nest0 + code.weight;
      const env = code.rest ? code.bind(args, fn.env as Env | null) : new L_Env(code.names, args, fn.env as Env | null);
      let v = (code.exec ?? code.body())(env);
      if (v === L_TAIL) v = this.trampoline(nest0);
      this.nest = nest0;
      this.directDepth--;
      this.depth--;
      meter.chargeMachine();
      return v;
    }
    if (fn instanceof L_Primitive && fn.control === null) {
      this.meter.chargeMachine();
      const n = args.length;
      if (n < fn.minArgs || n > fn.maxArgs) throw this.arityError(fn, n);
      return fn.fn(args, this);
    }
    return this.delegate(APPLY, null, null, fn, args, F_DELEGATED);
  }

  /** A call in tail position: an ordinary primitive is called in place, anything else is TAIL. */
  callTail(fn: Value, args: Value[]): Value {
    if (fn instanceof L_Primitive && fn.control === null) {
      this.meter.chargeMachine();
      const n = args.length;
      if (n < fn.minArgs || n > fn.maxArgs) throw this.arityError(fn, n);
      return fn.fn(args, this);
    }
    this.tailFn = fn;
    this.tailArgs = args;
    return L_TAIL;
  }

  /**
   * Run pending tail calls (tailFn/tailArgs) of a direct call until one returns a value: the
   * procedure return it delivers to is the direct call's, so no depth is added.
   */
  private trampoline(nest0: number): Value {
    const meter = this.meter;
    for (;;) {
      const fn = this.tailFn;
      const args = this.tailArgs;
      if (fn instanceof L_Closure) {
        const code = fn.code as TreeCode;
        if (nest0 + code.weight > JS_FRAME_BUDGET) break;
        this.nest = nest0 + code.weight;
        meter.chargeMachine();
        const n = args.length;
        if (n !== code.required && (n < code.required || !code.rest)) throw this.arityError(fn, n);
        const env = code.rest ? code.bind(args, fn.env as Env | null) : new L_Env(code.names, args, fn.env as Env | null);
        const v = (code.exec ?? code.body())(env);
        if (v !== L_TAIL) return v;
        continue;
      }
      if (fn instanceof L_Primitive) {
        if (fn.control === null) {
          meter.chargeMachine();
          const n = args.length;
          if (n < fn.minArgs || n > fn.maxArgs) throw this.arityError(fn, n);
          return fn.fn(args, this);
        }
        if (fn.control === 'apply') {
          // As the machine does: APPLY of `apply` (1), then APPLY of the spread call.
          meter.chargeMachine();
          const n = args.length;
          if (n < fn.minArgs || n > fn.maxArgs) throw this.arityError(fn, n);
          const spread = arrayFromList(args[n - 1]!);
          if (spread === null) throw notProperList('apply', args[n - 1]!, this.site);
          this.tailFn = args[0]!;
          this.tailArgs = args.slice(1, n - 1).concat(spread);
          continue;
        }
      }
      break;
    }
    this.nest = nest0;
    return this.delegate(APPLY, null, null, this.tailFn, this.tailArgs, F_DELEGATED_TAIL, this.nest + DELEGATION_WEIGHT > JS_FRAME_BUDGET);
  }

  /** Evaluate a control form (guard) on the machine, on top of the compiled caller. */
  delegateEval(node: Core, env: Env | null, tail: boolean): Value {
    return this.delegate(EVAL, node, env, null, null, tail ? F_DELEGATED_TAIL : F_DELEGATED);
  }

  /**
   * A nested machine run for compiled code. Past the frame budget it runs with compiled bodies
   * off, so everything below it lives on the heap stack.
   */
  private delegate(
    mode: number,
    node: Core | null,
    env: Env | null,
    fn: Value | null,
    args: Value[] | null,
    boundary: number,
    overBudget = this.nest + DELEGATION_WEIGHT > JS_FRAME_BUDGET,
  ): Value {
    const off = this.directOff;
    if (overBudget) this.directOff = true;
    this.nest += DELEGATION_WEIGHT;
    try {
      return this.execute(mode, node, env, fn, args, boundary);
    } finally {
      this.nest -= DELEGATION_WEIGHT;
      this.directOff = off;
    }
  }

  // The machine -------------------------------------------------------------------------------

  private push(kind: number, node: Core | null, env: Env | null, index: number, vals: Value[] | null, aux: unknown): void {
    this.stack.push(new Frame(kind, node, env, index, vals, aux, this.handlers, this.winders));
  }

  /** Drop frames from `to` upward: deactivate their continuations and release their depth. */
  private truncate(to: number): void {
    const st = this.stack;
    for (let i = st.length - 1; i >= to; i--) {
      const f = st[i]!;
      if (f.kind === F_RETURN) this.depth--;
      else if (f.kind === F_CALLCC) (f.aux as Continuation).active = false;
    }
    st.length = to;
  }

  /** Run `after` thunks of dynamic-winds being left, innermost first, until `target`. */
  private unwindTo(target: WindNode | null): void {
    while (this.winders !== target && this.winders !== null) {
      const w = this.winders;
      this.winders = w.next;
      this.handlers = w.handlers;
      this.apply(w.after, []);
    }
  }

  /** The operator evaluated by the last `simpleOperands`. */
  private operator: Value = L_NIL;

  /**
   * Evaluate the operator (into `operator`) and the arguments of a simple application in place,
   * charging what the frame path charges: EVAL and DELIVER per operand, in evaluation order.
   */
  private simpleOperands(app: CApplication, env: Env | null): Value[] {
    const meter = this.ctx.meter;
    meter.chargeMachine();
    this.operator = this.simpleValue(app.fn, env, app);
    meter.chargeMachine();
    const operands = app.args;
    const count = operands.length;
    const args = new Array<Value>(count);
    for (let i = 0; i < count; i++) {
      meter.chargeMachine();
      args[i] = this.simpleValue(operands[i]!, env, app);
      meter.chargeMachine();
    }
    return args;
  }

  /** The value of a variable or literal operand (see AnalysedApplication). */
  private simpleValue(n: Core, env: Env | null, app: CApplication): Value {
    if (n.k !== 'variable') return (n as { value: Value }).value;
    const v = this.variable(n, env);
    // As the argument frame would: an operand is one value.
    if (v instanceof L_MultipleValues) throw this.mvMisuse(app);
    return v;
  }

  /** The value of a variable reference, through its cached lexical address when it holds. */
  private variable(node: AddressedVariable, env: Env | null): Value {
    const depth = node.depth;
    if (depth !== undefined) {
      if (depth >= 0) {
        let e = env;
        for (let i = 0; i < depth && e !== null; i++) e = e.parent;
        const index = node.index!;
        if (e !== null && e.names[index] === node.name) {
          const v = e.values[index]!;
          if (v === L_UNASSIGNED) throw uninitialized(node.name, node.span);
          return v;
        }
      } else {
        // A global reference: the same chain length as when it was resolved (cheap pointer
        // walk) means the same lexical context, where the name had no lexical binding.
        let length = 0;
        for (let e = env; e !== null; e = e.parent) length++;
        if (length === node.index) {
          const v = node.cell!.value;
          if (v === L_UNASSIGNED) throw unbound(node.name as Sym, node.span);
          return v;
        }
      }
    }
    return this.resolve(node, env);
  }

  /** Full lookup of a reference; records its address on the node for the next time. */
  private resolve(node: AddressedVariable, env: Env | null): Value {
    const name = node.name;
    let depth = 0;
    for (let e = env; e !== null; e = e.parent, depth++) {
      const names = e.names;
      for (let i = 0; i < names.length; i++) {
        if (names[i] === name) {
          node.depth = depth;
          node.index = i;
          const v = e.values[i]!;
          if (v === L_UNASSIGNED) throw uninitialized(name, node.span);
          return v;
        }
      }
    }
    if (!(name instanceof L_Sym)) throw unbound(name as unknown as Sym, node.span);
    const cell = this.ctx.globals.cell(name);
    node.depth = -1;
    node.index = depth;
    node.cell = cell;
    if (cell.value === L_UNASSIGNED) throw unbound(name, node.span);
    return cell.value;
  }

  private assign(name: Name, env: Env | null, value: Value, at: SourcePosition): void {
    for (let e = env; e !== null; e = e.parent) {
      const i = e.names.indexOf(name);
      if (i >= 0) {
        e.values[i] = value;
        return;
      }
    }
    const sym = name as Sym;
    if (this.ctx.globals.lookup(sym) === undefined) throw setUnbound(sym, at);
    this.ctx.globals.define(sym, value);
  }

  /**
   * The machine loop. Starts in `mode` (EVAL a node, or APPLY a procedure) on top of a fresh
   * boundary frame and returns the value delivered to that boundary.
   */
  private execute(
    startMode: number,
    startNode: Core | null,
    startEnv: Env | null,
    startFn: Value | null,
    startArgs: Value[] | null,
    boundary: number,
  ): Value {
    const st = this.stack;
    const meter = this.ctx.meter;
    const base = st.length;
    // What compiled code in progress above this run holds; restored when a fault unwinds it.
    const nest0 = this.nest;
    const directDepth0 = this.directDepth;
    const directOff0 = this.directOff;
    this.push(boundary, null, null, 0, null, null);
    let mode = startMode;
    let node = startNode as Core;
    let env = startEnv;
    let fn = startFn as Value;
    let args = startArgs as Value[];
    let val: Value = L_NIL;
    let raiseContinuable = false;
    for (;;) {
      try {
        for (;;) {
          if (mode === EVAL) {
            meter.chargeMachine();
            // Cases in order of frequency (a string switch tests them one after another).
            switch (node.k) {
              case 'variable':
                val = this.variable(node, env);
                mode = DELIVER;
                break;
              case 'application': {
                const app = node as AnalysedApplication;
                if (isSimpleApplication(app)) {
                  args = this.simpleOperands(app, env);
                  fn = this.operator;
                  this.site = app.span;
                  mode = APPLY;
                  break;
                }
                // vals: the arguments; the operator is kept in `aux` (index 0 = operator pending).
                this.push(F_ARGS, node, env, 0, new Array<Value>(node.args.length), null);
                node = node.fn;
                break;
              }
              case 'literal':
              case 'quote':
                val = node.value;
                mode = DELIVER;
                break;
              case 'if': {
                const test = node.test as AnalysedApplication;
                if (test.k === 'application' && isSimpleApplication(test)) {
                  // The test is a call with simple operands: evaluate them in place; an ordinary
                  // primitive is then called in place too, with the transitions the frame path
                  // charges (EVAL and DELIVER per operand, APPLY, DELIVER to the if).
                  meter.chargeMachine();
                  args = this.simpleOperands(test, env);
                  fn = this.operator;
                  this.site = test.span;
                  if (fn instanceof L_Primitive && fn.control === null) {
                    meter.chargeMachine();
                    const count = args.length;
                    if (count < fn.minArgs || count > fn.maxArgs) throw this.arityError(fn, count);
                    const t = fn.fn(args, this);
                    meter.chargeMachine();
                    if (t instanceof L_MultipleValues) throw this.mvMisuse(node);
                    if (t !== false) node = node.then;
                    else if (node.else_ !== null) node = node.else_;
                    else {
                      val = L_NO_VALUES;
                      mode = DELIVER;
                    }
                    break;
                  }
                  this.push(F_IF, node, env, 0, null, null);
                  mode = APPLY;
                  break;
                }
                this.push(F_IF, node, env, 0, null, null);
                node = test;
                break;
              }
              case 'lambda':
                val = new L_Closure(this.codeFor(node, env), env);
                mode = DELIVER;
                break;
              case 'begin':
                this.push(F_BEGIN, node, env, 1, null, null);
                node = node.body[0]!;
                break;
              case 'set!':
              case 'define':
                this.push(node.k === 'set!' ? F_SET : F_DEFINE, node, env, 0, null, null);
                node = node.value;
                break;
              case 'let':
              case 'values':
                if (node.k === 'let' ? node.inits.length === 0 : node.args.length === 0) {
                  if (node.k === 'values') {
                    val = L_NO_VALUES;
                    mode = DELIVER;
                  } else {
                    env = new L_Env(node.names, [], env);
                    node = node.body;
                  }
                  break;
                }
                this.push(node.k === 'let' ? F_LET : F_VALUES, node, env, 0, [], null);
                node = node.k === 'let' ? node.inits[0]! : node.args[0]!;
                break;
              case 'letrec': {
                const slots = node.names.map(() => L_UNASSIGNED);
                env = new L_Env(node.names, slots, env);
                if (node.inits.length === 0) {
                  node = node.body;
                  break;
                }
                this.push(F_LETREC, node, env, 0, null, null);
                node = node.inits[0]!;
                break;
              }
              case 'guard': {
                const target = new GuardTarget(st.length);
                this.push(F_GUARD, node, env, 0, null, null);
                this.handlers = { handler: target, next: this.handlers };
                node = node.body;
                break;
              }
            }
            continue;
          }

          if (mode === DELIVER) {
            const f = st[st.length - 1]!;
            if (f.kind >= F_DELEGATED) {
              st.pop();
              return val;
            }
            meter.chargeMachine();
            switch (f.kind) {
              case F_BOUNDARY:
                st.pop();
                return val;
              case F_RETURN:
                st.pop();
                this.depth--;
                continue;
              case F_IF: {
                if (val instanceof L_MultipleValues) throw this.mvMisuse(f.node!);
                st.pop();
                const n = f.node as Extract<Core, { k: 'if' }>;
                env = f.env;
                if (val !== false) node = n.then;
                else if (n.else_ !== null) node = n.else_;
                else {
                  val = L_NO_VALUES;
                  continue;
                }
                mode = EVAL;
                continue;
              }
              case F_BEGIN: {
                const n = f.node as Extract<Core, { k: 'begin' }>;
                env = f.env;
                node = n.body[f.index]!;
                if (++f.index >= n.body.length) st.pop();
                mode = EVAL;
                continue;
              }
              case F_ARGS: {
                if (val instanceof L_MultipleValues) throw this.mvMisuse(f.node!);
                const n = f.node as Extract<Core, { k: 'application' }>;
                const vals = f.vals!;
                if (f.index === 0) f.aux = val;
                else vals[f.index - 1] = val;
                if (f.index < n.args.length) {
                  env = f.env;
                  node = n.args[f.index++]!;
                  mode = EVAL;
                  continue;
                }
                st.pop();
                fn = f.aux as Value;
                args = vals;
                this.site = n.span;
                mode = APPLY;
                continue;
              }
              case F_LET:
              case F_VALUES: {
                if (val instanceof L_MultipleValues) throw this.mvMisuse(f.node!);
                const vals = f.vals!;
                vals.push(val);
                const n = f.node!;
                const list = n.k === 'let' ? n.inits : (n as Extract<Core, { k: 'values' }>).args;
                env = f.env;
                if (vals.length < list.length) {
                  node = list[vals.length]!;
                  mode = EVAL;
                  continue;
                }
                st.pop();
                if (n.k === 'let') {
                  env = new L_Env(n.names, vals, env);
                  node = n.body;
                  mode = EVAL;
                } else {
                  val = vals.length === 1 ? vals[0]! : new L_MultipleValues(vals);
                }
                continue;
              }
              case F_LETREC: {
                if (val instanceof L_MultipleValues) throw this.mvMisuse(f.node!);
                const n = f.node as Extract<Core, { k: 'letrec' }>;
                env = f.env;
                env!.values[f.index] = val;
                if (++f.index < n.inits.length) node = n.inits[f.index]!;
                else {
                  st.pop();
                  node = n.body;
                }
                mode = EVAL;
                continue;
              }
              case F_SET: {
                if (val instanceof L_MultipleValues) throw this.mvMisuse(f.node!);
                st.pop();
                const n = f.node as Extract<Core, { k: 'set!' }>;
                this.assign(n.name, f.env, val, n.span);
                val = L_NO_VALUES;
                continue;
              }
              case F_DEFINE: {
                if (val instanceof L_MultipleValues) throw this.mvMisuse(f.node!);
                st.pop();
                const n = f.node as Extract<Core, { k: 'define' }>;
                this.ctx.globals.define(n.name, val);
                val = L_NO_VALUES;
                continue;
              }
              case F_CALLCC:
                st.pop();
                (f.aux as Continuation).active = false;
                continue;
              case F_GUARD:
              case F_HANDLER:
                st.pop();
                this.handlers = f.handlers;
                continue;
              case F_RAISE_RETURN: {
                st.pop();
                const r = f.aux as { continuable: boolean; obj: Value; site: SourcePosition };
                if (r.continuable) {
                  this.handlers = f.handlers;
                  continue;
                }
                throw nonContinuable(r.obj, r.site);
              }
              case F_WIND: {
                st.pop();
                const w = f.aux as WindNode;
                this.winders = w.next;
                this.handlers = w.handlers;
                const result: Value = val;
                this.apply(w.after, []);
                val = result;
                continue;
              }
              case F_CWV:
                st.pop();
                fn = f.aux as Value;
                args = spreadValues(val);
                mode = APPLY;
                continue;
            }
            throw new Error(`internal: unknown tree frame kind ${f.kind}`);
          }

          if (mode === APPLY) {
            meter.chargeMachine();
            if (fn instanceof L_Closure) {
              const code = fn.code as TreeCode;
              const n = args.length;
              if (n < code.required || (!code.rest && n > code.required)) throw this.arityError(fn, n);
              // A call whose continuation is already a procedure return is a tail call.
              if (!RETURN_POINT[st[st.length - 1]!.kind]) {
                if (++this.depth > L_CALL_DEPTH_LIMIT) {
                  this.depth--;
                  throw recursionLimit(this.site);
                }
                if (this.depth > this.ctx.maxDepth) this.ctx.maxDepth = this.depth;
                st.push(RETURN_FRAME);
              }
              env = code.bind(args, fn.env as Env | null);
              const weight = code.weight;
              if (!this.directOff && this.nest + weight <= JS_FRAME_BUDGET) {
                // Run the body compiled; a tail call it makes comes back here as TAIL.
                const nest0 = this.nest;
                this.nest = nest0 + weight;
                let v = (code.exec ?? code.body())(env);
                // Tail calls to compiled closures loop here (the frame below stays the same
                // return point, so no depth is added), charging APPLY (1) each as below.
                while (v === L_TAIL) {
                  const next = this.tailFn;
                  if (!(next instanceof L_Closure)) break;
                  const c = next.code as TreeCode;
                  if (nest0 + c.weight > JS_FRAME_BUDGET) break;
                  meter.chargeMachine();
                  const targs = this.tailArgs;
                  const tn = targs.length;
                  if (tn !== c.required && (tn < c.required || !c.rest)) throw this.arityError(next, tn);
                  this.nest = nest0 + c.weight;
                  env = c.rest ? c.bind(targs, next.env as Env | null) : new L_Env(c.names, targs, next.env as Env | null);
                  v = (c.exec ?? c.body())(env);
                }
                this.nest = nest0;
                if (v === L_TAIL) {
                  fn = this.tailFn;
                  args = this.tailArgs;
                } else {
                  val = v;
                  mode = DELIVER;
                }
                continue;
              }
              node = code.lambda.body;
              mode = EVAL;
              continue;
            }
            if (fn instanceof L_Primitive) {
              const n = args.length;
              if (n < fn.minArgs || n > fn.maxArgs) throw this.arityError(fn, n);
              if (fn.control === null) {
                val = fn.fn(args, this);
                mode = DELIVER;
                continue;
              }
              switch (fn.control) {
                case 'apply': {
                  const spread = arrayFromList(args[n - 1]!);
                  if (spread === null) throw notProperList('apply', args[n - 1]!, this.site);
                  fn = args[0]!;
                  args = args.slice(1, n - 1).concat(spread);
                  continue;
                }
                case 'call/cc': {
                  this.checkProcedure('call/cc', args[0]!);
                  const k = new L_Continuation(st.length, 0);
                  this.push(F_CALLCC, null, null, 0, null, k);
                  fn = args[0]!;
                  args = [k];
                  continue;
                }
                case 'call-with-values':
                  this.checkProcedure('call-with-values', args[0]!);
                  this.checkProcedure('call-with-values', args[1]!);
                  this.push(F_CWV, null, null, 0, null, args[1]!);
                  fn = args[0]!;
                  args = [];
                  continue;
                case 'dynamic-wind': {
                  for (const p of args) this.checkProcedure('dynamic-wind', p);
                  const [before, thunk, after] = args as [Value, Value, Value];
                  this.apply(before, []);
                  const w: WindNode = { after, next: this.winders, handlers: this.handlers };
                  this.push(F_WIND, null, null, 0, null, w);
                  this.winders = w;
                  fn = thunk;
                  args = [];
                  continue;
                }
                case 'with-exception-handler': {
                  this.checkProcedure('with-exception-handler', args[0]!);
                  this.checkProcedure('with-exception-handler', args[1]!);
                  this.push(F_HANDLER, null, null, 0, null, null);
                  this.handlers = { handler: args[0]!, next: this.handlers };
                  fn = args[1]!;
                  args = [];
                  continue;
                }
                case 'error':
                  val = makeErrorObject(args);
                  raiseContinuable = false;
                  mode = RAISE;
                  continue;
                case 'raise':
                case 'raise-continuable':
                  val = args[0]!;
                  raiseContinuable = fn.control === 'raise-continuable';
                  mode = RAISE;
                  continue;
              }
            }
            if (fn instanceof L_Continuation) {
              meter.chargeMachine();
              if (!fn.active) throw inactiveContinuation(this.site);
              const target = fn.frame as number;
              const payload = continuationPayload(args);
              this.escape(target, payload, false, base);
              this.land(target, false);
              val = payload;
              mode = DELIVER;
              continue;
            }
            throw notAProcedure(fn, this.site);
          }

          // RAISE: deliver `val` to the innermost handler.
          meter.chargeMachine();
          const h = this.handlers;
          if (h === null) throw uncaughtError(val, this.site);
          if (h.handler instanceof GuardTarget) {
            const target = h.handler.frame;
            this.escape(target, val, true, base);
            const landed = this.land(target, true);
            const g = landed.guard!;
            env = new L_Env([g.name], [val], landed.env);
            node = g.handler;
            mode = EVAL;
            continue;
          }
          this.push(F_RAISE_RETURN, null, null, 0, null, { continuable: raiseContinuable, obj: val, site: this.site });
          this.handlers = h.next;
          fn = h.handler;
          args = [val];
          mode = APPLY;
        }
      } catch (e) {
        // Compiled code between the fault and this run is gone: give back what it held.
        this.nest = nest0;
        this.depth -= this.directDepth - directDepth0;
        this.directDepth = directDepth0;
        this.directOff = directOff0;
        if (e instanceof EscapeSignal && e.frame > base && e.frame < st.length) {
          const landed = this.land(e.frame, e.toGuard);
          if (e.toGuard) {
            const g = landed.guard!;
            env = new L_Env([g.name], [e.payload], landed.env);
            node = g.handler;
            mode = EVAL;
          } else {
            val = e.payload;
            mode = DELIVER;
          }
          continue;
        }
        if (e instanceof LispexError && e.span === undefined) e.span = this.site;
        if (e instanceof LispexError && isCatchable(e) && this.handlers !== null && e.payload === undefined) {
          val = conditionFromError(e);
          raiseContinuable = false;
          mode = RAISE;
          continue;
        }
        if (isHostStackOverflow(e) && this.reentries === 0) {
          this.truncate(base);
          throw new LispexError('recursion-limit', 'host stack exhausted', [], this.site);
        }
        this.truncate(base);
        throw e;
      }
    }
  }

  /**
   * Leave the dynamic extent down to frame `target`: run the `after` thunks of winders entered
   * since, then, when the frame belongs to an outer run, unwind the JS stack to that run.
   */
  private escape(target: number, payload: Value, toGuard: boolean, base: number): void {
    const frame = this.stack[target]!;
    this.unwindTo(frame.winders);
    if (target < base) {
      throw new EscapeSignal(target, payload, toGuard);
    }
  }

  /** Pop everything from `target` up (inclusive) and restore that frame's handler stack. */
  private land(target: number, toGuard: boolean): { env: Env | null; guard: CGuard | null } {
    const frame = this.stack[target]!;
    this.truncate(target);
    this.handlers = frame.handlers;
    this.winders = frame.winders;
    return { env: frame.env, guard: toGuard ? (frame.node as CGuard) : null };
  }

  private mvMisuse(node: Core): LispexError {
    return mvMisuse(node.span);
  }

  private arityError(fn: Value, n: number): LispexError {
    return arityError(fn, n, this.site);
  }

  private checkProcedure(who: string, v: Value): void {
    if (!isProcedure(v)) throw expectedProcedure(who, v, this.site);
  }
}
