// The bytecode VM. One value stack and one control stack, both heap arrays: a non-tail call
// pushes a return entry (depth +1), a tail call pushes nothing, so tail calls run in constant
// space and deep recursion costs heap only (bounded by CALL_DEPTH_LIMIT). Control primitives
// push marker entries (call/cc, call-with-values, dynamic-wind, with-exception-handler, raise
// return, guard) that double as return points, exactly where the tree evaluator pushes its
// marker frames, so both routes count depth and blame positions the same way.
//
// Hot path: the dispatch loop keeps code/pc/env/sp/bp in locals, charges one machine transition
// per instruction against a local counter, and handles closure calls and fixnum arithmetic
// inline. Everything rare goes through helpers operating on the fields (`sync`/`load`).

import type { CodeObject } from '../bytecode.js';
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
import { LispexError, type SourcePosition, type Span, type WarningCode } from '../diagnostics.js';
import { type GlobalCell, UNASSIGNED } from '../globals.js';
import { CALL_DEPTH_LIMIT, REENTRY_LIMIT, ResourceExhausted } from '../meter.js';
import type { RunContext } from '../run-context.js';
import type { Runtime } from '../runtime.js';
import {
  Closure,
  Continuation,
  MultipleValues,
  NIL,
  NO_VALUES,
  Pair,
  Primitive,
  arrayFromList,
  isProcedure,
  type Value,
} from '../values.js';
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
import type { Name } from '../core-ir.js';

// Module-local copies of imported bindings used on the hot path: under some loaders (tsx's
// CJS interop) every access to an imported binding is a getter call; a local const is not.
const L_NIL = NIL;
const L_NO_VALUES = NO_VALUES;
const L_UNASSIGNED = UNASSIGNED;
const L_CALL_DEPTH_LIMIT = CALL_DEPTH_LIMIT;
const L_Pair = Pair;
const L_Closure = Closure;
const L_Primitive = Primitive;
const L_MultipleValues = MultipleValues;

/** An environment: slot 0 is the parent environment, then parameters and locals. */
type Env = Value[];

// Control entry kinds.
const K_RETURN = 0,
  K_BOUNDARY = 1,
  K_CALLCC = 2,
  K_CWV = 3,
  K_WIND = 4,
  K_HANDLER = 5,
  K_RAISE = 6,
  K_GUARD = 7;

/** Extra state of a marker entry. */
interface Marker {
  handlers: HandlerNode | null;
  winders: WindNode | null;
  /** call/cc: the continuation; cwv: the consumer; wind: the WindNode; raise: site + continuable. */
  aux: unknown;
  /** guard: the handler's pc. */
  handlerPc: number;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MIN_SAFE = Number.MIN_SAFE_INTEGER;
const START: SourcePosition = { line: 1, column: 1 };

export class Vm implements Runtime {
  // Value stack.
  private stack: Value[] = new Array<Value>(1024).fill(NIL);
  // Control stack (parallel arrays).
  private cKind: number[] = [];
  private cCode: (CodeObject | null)[] = [];
  private cPc: number[] = [];
  private cEnv: (Env | null)[] = [];
  private cBp: number[] = [];
  private cSp: number[] = [];
  private cMarker: (Marker | null)[] = [];
  private csp = 0;

  // Registers while a helper runs (the loop keeps them in locals otherwise).
  private code: CodeObject = null as unknown as CodeObject;
  private pc = 0;
  private env: Env = [];
  private sp = 0;
  private bp = 0;

  private handlers: HandlerNode | null = null;
  private winders: WindNode | null = null;
  private depth = 0;
  private reentries = 0;
  /** The most recent call site: code object and instruction index. */
  private siteCode: CodeObject | null = null;
  private sitePc = 0;

  constructor(private readonly ctx: RunContext) {}

  currentSite(): SourcePosition {
    return (this.siteCode?.spans[this.sitePc] as Span | undefined) ?? START;
  }

  /** Run a top-level code object; returns its value (possibly L_MultipleValues). */
  runTopLevel(code: CodeObject): Value {
    const env: Env = new Array<Value>(code.frameSize);
    env[0] = L_NIL; // no parent
    const base = this.csp;
    this.pushControl(K_BOUNDARY, null, 0, null, 0, this.sp, null);
    this.code = code;
    this.pc = 0;
    this.env = env;
    this.bp = this.sp;
    return this.loop(base);
  }

  // Runtime -----------------------------------------------------------------------------------

  apply(proc: Value, args: Value[]): Value {
    if (this.reentries >= REENTRY_LIMIT) {
      throw reentryLimit(this.currentSite());
    }
    this.reentries++;
    const saved = { code: this.code, pc: this.pc, env: this.env, sp: this.sp, bp: this.bp, siteCode: this.siteCode, sitePc: this.sitePc };
    const base = this.csp;
    try {
      this.pushControl(K_BOUNDARY, null, 0, null, 0, this.sp, null);
      this.bp = this.sp;
      if (proc instanceof L_Closure) {
        this.pushReturn(null, 0, null, this.bp, this.sp);
        this.enterClosure(proc, args);
      } else {
        this.invoke(proc, args, true);
      }
      return this.loop(base);
    } finally {
      this.reentries--;
      this.code = saved.code;
      this.pc = saved.pc;
      this.env = saved.env;
      this.sp = saved.sp;
      this.bp = saved.bp;
      this.siteCode = saved.siteCode;
      this.sitePc = saved.sitePc;
    }
  }

  writeOut(text: string): void {
    this.ctx.writeOut(text);
  }

  allocate(bytes: number, who: string): void {
    this.ctx.allocate(bytes, who);
  }

  warn(code: WarningCode): void {
    this.ctx.warn(code, this.currentSite());
  }

  // Control stack -----------------------------------------------------------------------------

  private pushControl(
    kind: number,
    code: CodeObject | null,
    pc: number,
    env: Env | null,
    bp: number,
    sp: number,
    marker: Marker | null,
  ): void {
    const i = this.csp++;
    this.cKind[i] = kind;
    this.cCode[i] = code;
    this.cPc[i] = pc;
    this.cEnv[i] = env;
    this.cBp[i] = bp;
    this.cSp[i] = sp;
    this.cMarker[i] = marker;
  }

  private pushReturn(code: CodeObject | null, pc: number, env: Env | null, bp: number, sp: number): void {
    if (++this.depth > L_CALL_DEPTH_LIMIT) {
      this.depth--;
      throw recursionLimit(this.currentSite());
    }
    if (this.depth > this.ctx.maxDepth) this.ctx.maxDepth = this.depth;
    this.pushControl(K_RETURN, code, pc, env, bp, sp, null);
  }

  /** Pop entries down to `to` (exclusive of lower ones): release depth, deactivate continuations. */
  private truncate(to: number): void {
    for (let i = this.csp - 1; i >= to; i--) {
      const k = this.cKind[i];
      if (k === K_RETURN) this.depth--;
      else if (k === K_CALLCC) (this.cMarker[i]!.aux as Continuation).active = false;
      this.cCode[i] = null;
      this.cEnv[i] = null;
      this.cMarker[i] = null;
    }
    if (to < this.csp) this.csp = to;
  }

  /** Marker with the current registers as resume point (non-tail), or none (tail). */
  private pushMarker(kind: number, tail: boolean, aux: unknown): number {
    const m: Marker = { handlers: this.handlers, winders: this.winders, aux, handlerPc: 0 };
    const at = this.csp;
    if (tail) this.pushControl(kind, null, 0, null, 0, 0, m);
    else this.pushControl(kind, this.code, this.pc, this.env, this.bp, this.sp, m);
    return at;
  }

  // Calls -------------------------------------------------------------------------------------

  /** Enter a closure: build its environment, switch registers (no control entry pushed). */
  private enterClosure(fn: Closure, args: Value[]): void {
    const code = fn.code as CodeObject;
    const n = args.length;
    if (n < code.required || (!code.rest && n > code.required)) throw arityError(fn, n, this.currentSite());
    const env: Env = new Array<Value>(code.frameSize);
    env[0] = fn.env as Value;
    for (let i = 0; i < code.required; i++) env[i + 1] = args[i]!;
    if (code.rest) {
      let rest: Value = L_NIL;
      for (let i = n - 1; i >= code.required; i--) rest = new L_Pair(args[i]!, rest);
      env[code.required + 1] = rest;
    }
    this.code = code;
    this.pc = 0;
    this.env = env;
    this.bp = this.sp;
  }

  /**
   * Apply any procedure. `tail`: the continuation is the control stack top (no return entry is
   * pushed; a result is delivered). Not tail: the registers are the resume point. Returns a value
   * when one is available immediately and `tail` is false (the caller pushes it), or undefined
   * when the registers now point at code to run (or a delivery already happened).
   */
  private invoke(fn: Value, args: Value[], tail: boolean): Value | undefined {
    for (;;) {
      if (fn instanceof L_Closure) {
        if (!tail) this.pushReturn(this.code, this.pc, this.env, this.bp, this.sp);
        this.enterClosure(fn, args);
        return undefined;
      }
      if (fn instanceof L_Primitive) {
        const n = args.length;
        if (n < fn.minArgs || n > fn.maxArgs) throw arityError(fn, n, this.currentSite());
        if (fn.control === null) {
          const v = fn.fn(args, this);
          if (tail) {
            this.deliver(v);
            return undefined;
          }
          return v;
        }
        switch (fn.control) {
          case 'apply': {
            const spread = arrayFromList(args[n - 1]!);
            if (spread === null) throw notProperList('apply', args[n - 1]!, this.currentSite());
            fn = args[0]!;
            args = args.slice(1, n - 1).concat(spread);
            continue;
          }
          case 'call/cc': {
            this.checkProcedure('call/cc', args[0]!);
            const k = new Continuation(this.csp, 0);
            this.pushMarker(K_CALLCC, tail, k);
            fn = args[0]!;
            args = [k];
            tail = true;
            continue;
          }
          case 'call-with-values':
            this.checkProcedure('call-with-values', args[0]!);
            this.checkProcedure('call-with-values', args[1]!);
            this.pushMarker(K_CWV, tail, args[1]!);
            fn = args[0]!;
            args = [];
            tail = true;
            continue;
          case 'dynamic-wind': {
            for (const p of args) this.checkProcedure('dynamic-wind', p);
            const [before, thunk, after] = args as [Value, Value, Value];
            this.apply(before, []);
            const w: WindNode = { after, next: this.winders, handlers: this.handlers };
            this.pushMarker(K_WIND, tail, w);
            this.winders = w;
            fn = thunk;
            args = [];
            tail = true;
            continue;
          }
          case 'with-exception-handler':
            this.checkProcedure('with-exception-handler', args[0]!);
            this.checkProcedure('with-exception-handler', args[1]!);
            this.pushMarker(K_HANDLER, tail, null);
            this.handlers = { handler: args[0]!, next: this.handlers };
            fn = args[1]!;
            args = [];
            tail = true;
            continue;
          case 'error':
            return this.raise(makeErrorObject(args), false, tail);
          case 'raise':
          case 'raise-continuable':
            return this.raise(args[0]!, fn.control === 'raise-continuable', tail);
        }
      }
      if (fn instanceof Continuation) {
        this.ctx.meter.chargeMachine();
        if (!fn.active) throw inactiveContinuation(this.currentSite());
        this.escapeTo(fn.frame as number, continuationPayload(args), false);
        return undefined;
      }
      throw notAProcedure(fn, this.currentSite());
    }
  }

  /** Deliver `obj` to the innermost handler (condition transfer). */
  private raise(obj: Value, continuable: boolean, tail: boolean): Value | undefined {
    this.ctx.meter.chargeMachine();
    const h = this.handlers;
    if (h === null) throw uncaughtError(obj, this.currentSite());
    if (h.handler instanceof GuardTarget) {
      this.escapeTo(h.handler.frame, obj, true);
      return undefined;
    }
    this.pushMarker(K_RAISE, tail, { continuable, obj, site: this.currentSite() });
    this.handlers = h.next;
    return this.invoke(h.handler, [obj], true);
  }

  /**
   * Leave to control entry `target` (a call/cc or guard marker): run the `after` thunks of the
   * winders being left, then either land here or, when the entry belongs to an outer run,
   * unwind the JS stack to it with an EscapeSignal.
   */
  private escapeTo(target: number, payload: Value, toGuard: boolean): void {
    const m = this.cMarker[target]!;
    while (this.winders !== m.winders && this.winders !== null) {
      const w = this.winders;
      this.winders = w.next;
      this.handlers = w.handlers;
      this.apply(w.after, []);
    }
    if (target < this.runBase) throw new EscapeSignal(target, payload, toGuard);
    this.land(target, payload, toGuard);
  }

  /** Base control index of the innermost running loop. */
  private runBase = 0;

  private land(target: number, payload: Value, toGuard: boolean): void {
    const m = this.cMarker[target]!;
    if (toGuard) {
      // Resume at the guard's handler code with the condition on the stack.
      const code = this.cCode[target]!;
      const env = this.cEnv[target]!;
      const bp = this.cBp[target]!;
      const sp = this.cSp[target]!;
      this.truncate(target);
      this.handlers = m.handlers;
      this.winders = m.winders;
      this.code = code;
      this.env = env;
      this.bp = bp;
      this.sp = sp;
      this.stack[this.sp++] = payload;
      this.pc = m.handlerPc;
      return;
    }
    this.truncate(target + 1);
    this.handlers = m.handlers;
    this.winders = m.winders;
    this.deliver(payload);
  }

  /**
   * Deliver a value to the control stack top (what `return` does): resume a caller, or run a
   * marker's exit action. Leaves the registers pointing at the code to continue, or, when the
   * boundary is reached, records the result for the loop to return.
   */
  private deliver(v: Value): void {
    for (;;) {
      this.ctx.meter.chargeMachine();
      const i = this.csp - 1;
      const kind = this.cKind[i]!;
      const code = this.cCode[i]!;
      if (kind === K_BOUNDARY) {
        this.csp = i;
        this.sp = this.cSp[i]!;
        this.finished = true;
        this.result = v;
        return;
      }
      const m = this.cMarker[i];
      const resume = code !== null;
      const pc = this.cPc[i]!,
        env = this.cEnv[i]!,
        bp = this.cBp[i]!,
        sp = this.cSp[i]!;
      this.cCode[i] = null;
      this.cEnv[i] = null;
      this.cMarker[i] = null;
      this.csp = i;
      switch (kind) {
        case K_RETURN:
          this.depth--;
          break;
        case K_CALLCC:
          (m!.aux as Continuation).active = false;
          break;
        case K_HANDLER:
        case K_GUARD:
          this.handlers = m!.handlers;
          break;
        case K_RAISE: {
          const r = m!.aux as { continuable: boolean; obj: Value; site: SourcePosition };
          if (!r.continuable) throw nonContinuable(r.obj, r.site);
          this.handlers = m!.handlers;
          break;
        }
        case K_WIND: {
          const w = m!.aux as WindNode;
          this.winders = w.next;
          this.handlers = w.handlers;
          this.apply(w.after, []);
          break;
        }
        case K_CWV: {
          const consumer = m!.aux as Value;
          if (resume) {
            this.code = code;
            this.pc = pc;
            this.env = env;
            this.bp = bp;
            this.sp = sp;
          }
          const r = this.invoke(consumer, spreadValues(v), !resume);
          if (r !== undefined) this.stack[this.sp++] = r;
          return;
        }
      }
      if (resume) {
        this.code = code;
        this.pc = pc;
        this.env = env;
        this.bp = bp;
        this.sp = sp;
        this.stack[this.sp++] = v;
        return;
      }
    }
  }

  private finished = false;
  private result: Value = L_NIL;

  private checkProcedure(who: string, v: Value): void {
    if (!isProcedure(v)) throw expectedProcedure(who, v, this.currentSite());
  }

  // The loop ----------------------------------------------------------------------------------

  /** Run until the boundary entry at `base` receives a value. */
  private loop(base: number): Value {
    const savedBase = this.runBase;
    this.runBase = base;
    const meter = this.ctx.meter;
    try {
      for (;;) {
        try {
          if (this.finished) {
            this.finished = false;
            return this.result;
          }
          const r = this.dispatch(meter.machineLimit);
          if (r !== undefined) return r;
        } catch (e) {
          if (e instanceof EscapeSignal && e.frame > base && e.frame < this.csp) {
            this.land(e.frame, e.payload, e.toGuard);
            continue;
          }
          if (e instanceof LispexError && e.span === undefined) e.span = this.currentSite();
          if (e instanceof LispexError && isCatchable(e) && this.handlers !== null && e.payload === undefined) {
            try {
              const r = this.raise(conditionFromError(e), false, true);
              if (r !== undefined) this.deliver(r);
            } catch (e2) {
              if (e2 instanceof EscapeSignal && e2.frame > base && e2.frame < this.csp) {
                this.land(e2.frame, e2.payload, e2.toGuard);
                continue;
              }
              this.truncate(base);
              throw e2;
            }
            continue;
          }
          this.truncate(base);
          if (isHostStackOverflow(e) && this.reentries === 0) {
            throw new LispexError('recursion-limit', 'host stack exhausted', [], this.currentSite());
          }
          throw e;
        }
      }
    } finally {
      this.runBase = savedBase;
    }
  }

  /**
   * The dispatch loop proper. Returns the run's value when the boundary is reached; throws on
   * faults (the caller turns catchable ones into raises and resumes).
   */
  private dispatch(limit: number): Value | undefined {
    const meter = this.ctx.meter;
    const stack = this.stack;
    let code = this.code;
    let ins = code.code;
    let consts = code.consts;
    let pc = this.pc;
    let env = this.env;
    let sp = this.sp;
    let bp = this.bp;
    let steps = meter.machine;
    let siteCode = this.siteCode;
    let sitePc = this.sitePc;
    let csp = this.csp;
    let depth = this.depth;
    let maxDepth = this.ctx.maxDepth;
    /** True between syncing the registers to the fields for a helper call and loading them back. */
    let helper = false;
    const cKind = this.cKind,
      cCode = this.cCode,
      cPc = this.cPc,
      cEnv = this.cEnv,
      cBp = this.cBp,
      cSp = this.cSp;
    try {
      for (;;) {
        if (++steps > limit) {
          steps--;
          this.code = code;
          this.pc = pc;
          this.env = env;
          this.sp = sp;
          this.bp = bp;
          this.siteCode = siteCode;
          this.sitePc = sitePc;
          meter.machine = steps;
          this.csp = csp;
          this.depth = depth;
          this.ctx.maxDepth = maxDepth;
          helper = true;
          throw new ResourceExhausted('machine-transition');
        }
        const at = pc;
        switch (ins[pc]) {
          case 0: // CONST
            stack[sp++] = consts[ins[pc + 1]!] as Value;
            pc += 2;
            continue;
          case 1: // LOCAL
            stack[sp++] = env[ins[pc + 1]!]!;
            pc += 2;
            continue;
          case 2: // LOCAL1
            stack[sp++] = (env[0] as unknown as Env)[ins[pc + 1]!]!;
            pc += 2;
            continue;
          case 3: {
            // LEXICAL
            let e = env;
            for (let d = ins[pc + 1]!; d > 0; d--) e = e[0] as unknown as Env;
            stack[sp++] = e[ins[pc + 2]!]!;
            pc += 3;
            continue;
          }
          case 4: {
            // LOCAL_CHECKED slot name
            const v = env[ins[pc + 1]!]!;
            if (v === L_UNASSIGNED) throw uninitialized(consts[ins[pc + 2]!] as Name, code.spans[at]);
            stack[sp++] = v;
            pc += 3;
            continue;
          }
          case 5: {
            // LEXICAL_CHECKED
            let e = env;
            for (let d = ins[pc + 1]!; d > 0; d--) e = e[0] as unknown as Env;
            const v = e[ins[pc + 2]!]!;
            if (v === L_UNASSIGNED) throw uninitialized(consts[ins[pc + 3]!] as Name, code.spans[at]);
            stack[sp++] = v;
            pc += 4;
            continue;
          }
          case 6: {
            // GLOBAL
            const cell = consts[ins[pc + 1]!] as GlobalCell;
            const v = cell.value;
            if (v === L_UNASSIGNED) throw unbound(cell.name, code.spans[at]);
            stack[sp++] = v;
            pc += 2;
            continue;
          }
          case 7: // PRIMITIVE
            stack[sp++] = consts[ins[pc + 1]!] as Value;
            pc += 2;
            continue;
          case 8: {
            // SET_LEXICAL
            let e = env;
            for (let d = ins[pc + 1]!; d > 0; d--) e = e[0] as unknown as Env;
            e[ins[pc + 2]!] = stack[--sp]!;
            stack[sp++] = L_NO_VALUES;
            pc += 3;
            continue;
          }
          case 9: {
            // SET_GLOBAL
            const cell = consts[ins[pc + 1]!] as GlobalCell;
            if (cell.value === L_UNASSIGNED) throw setUnbound(cell.name, code.spans[at]);
            cell.value = stack[--sp]!;
            stack[sp++] = L_NO_VALUES;
            pc += 2;
            continue;
          }
          case 10: {
            // DEFINE_GLOBAL
            (consts[ins[pc + 1]!] as GlobalCell).value = stack[--sp]!;
            stack[sp++] = L_NO_VALUES;
            pc += 2;
            continue;
          }
          case 11: // INIT_LOCAL
            env[ins[pc + 1]!] = stack[--sp]!;
            pc += 2;
            continue;
          case 12: // UNASSIGN
            env[ins[pc + 1]!] = L_UNASSIGNED;
            pc += 2;
            continue;
          case 13: // CLOSURE
            stack[sp++] = new L_Closure(consts[ins[pc + 1]!] as CodeObject, env);
            pc += 2;
            continue;
          case 14: // POP
            sp--;
            pc += 1;
            continue;
          case 15: // REQUIRE_ONE
            if (stack[sp - 1] instanceof L_MultipleValues) throw mvMisuse(code.spans[at]!);
            pc += 1;
            continue;
          case 16: {
            // VALUES
            const n = ins[pc + 1]!;
            const vals = stack.slice(sp - n, sp);
            sp -= n;
            stack[sp++] = vals.length === 0 ? L_NO_VALUES : new L_MultipleValues(vals);
            pc += 2;
            continue;
          }
          case 17: // JUMP
            pc = ins[pc + 1]!;
            continue;
          case 18: // JUMP_IF_FALSE
            pc = stack[--sp] === false ? ins[pc + 1]! : pc + 2;
            continue;
          case 19: // CALL
          case 20: {
            // TAIL_CALL
            const argc = ins[pc + 1]!;
            const tail = ins[pc] === 20;
            siteCode = code;
            sitePc = at;
            const fnAt = sp - argc - 1;
            const fn = stack[fnAt]!;
            pc += 2;
            if (fn instanceof L_Closure) {
              const callee = fn.code as CodeObject;
              if (argc === callee.required && !callee.rest) {
                // Inline fast path: fixed arity closure.
                const newEnv: Env = new Array<Value>(callee.frameSize);
                newEnv[0] = fn.env as Value;
                for (let i = 0; i < argc; i++) newEnv[i + 1] = stack[fnAt + 1 + i]!;
                if (tail) {
                  sp = bp;
                } else {
                  sp = fnAt;
                  if (++depth > L_CALL_DEPTH_LIMIT) {
                    depth--;
                    this.code = code;
                    this.pc = pc;
                    this.env = env;
                    this.sp = sp;
                    this.bp = bp;
                    this.siteCode = siteCode;
                    this.sitePc = sitePc;
                    meter.machine = steps;
                    this.csp = csp;
                    this.depth = depth;
                    this.ctx.maxDepth = maxDepth;
                    helper = true;
                    throw recursionLimit(code.spans[at]);
                  }
                  if (depth > maxDepth) maxDepth = depth;
                  const i = csp++;
                  cKind[i] = K_RETURN;
                  cCode[i] = code;
                  cPc[i] = pc;
                  cEnv[i] = env;
                  cBp[i] = bp;
                  cSp[i] = sp;
                  bp = sp;
                }
                code = callee;
                ins = callee.code;
                consts = callee.consts;
                env = newEnv;
                pc = 0;
                continue;
              }
            }
            const args = stack.slice(fnAt + 1, sp);
            sp = tail ? bp : fnAt;
            this.code = code;
            this.pc = pc;
            this.env = env;
            this.sp = sp;
            this.bp = bp;
            this.siteCode = siteCode;
            this.sitePc = sitePc;
            meter.machine = steps;
            this.csp = csp;
            this.depth = depth;
            this.ctx.maxDepth = maxDepth;
            helper = true;
            if (tail && fn instanceof L_Primitive && fn.control === null) {
              // Tail call of a plain primitive: compute, then return the value.
              const n = args.length;
              if (n < fn.minArgs || n > fn.maxArgs) throw arityError(fn, n, code.spans[at]!);
              const v = fn.fn(args, this);
              this.deliver(v);
            } else {
              const r = this.invoke(fn, args, tail);
              if (r !== undefined) this.stack[this.sp++] = r;
            }
            if (this.finished) {
              this.finished = false;
              return this.result;
            }
            code = this.code;
            ins = code.code;
            consts = code.consts;
            pc = this.pc;
            env = this.env;
            sp = this.sp;
            bp = this.bp;
            steps = meter.machine;
            csp = this.csp;
            depth = this.depth;
            maxDepth = this.ctx.maxDepth;
            helper = false;
            continue;
          }
          case 21: {
            // RETURN
            const v = stack[sp - 1]!;
            const i = csp - 1;
            const retCode = cCode[i];
            if (cKind[i] === K_RETURN && retCode !== null) {
              // Inline fast path: return to a bytecode caller.
              depth--;
              code = retCode!;
              ins = code.code;
              consts = code.consts;
              pc = cPc[i]!;
              env = cEnv[i]!;
              bp = cBp[i]!;
              sp = cSp[i]!;
              cEnv[i] = null;
              csp = i;
              stack[sp++] = v;
              continue;
            }
            sp--;
            this.code = code;
            this.pc = pc;
            this.env = env;
            this.sp = sp;
            this.bp = bp;
            this.siteCode = siteCode;
            this.sitePc = sitePc;
            meter.machine = steps;
            this.csp = csp;
            this.depth = depth;
            this.ctx.maxDepth = maxDepth;
            helper = true;
            this.deliver(v);
            if (this.finished) {
              this.finished = false;
              return this.result;
            }
            code = this.code;
            ins = code.code;
            consts = code.consts;
            pc = this.pc;
            env = this.env;
            sp = this.sp;
            bp = this.bp;
            steps = meter.machine;
            csp = this.csp;
            depth = this.depth;
            maxDepth = this.ctx.maxDepth;
            helper = false;
            continue;
          }
          case 22: {
            // GUARD_PUSH
            const handlerPc = ins[pc + 1]!;
            pc += 2;
            const target = new GuardTarget(csp);
            const m: Marker = { handlers: this.handlers, winders: this.winders, aux: null, handlerPc };
            this.csp = csp;
            this.pushControl(K_GUARD, code, pc, env, bp, sp, m);
            csp = this.csp;
            this.handlers = { handler: target, next: this.handlers };
            continue;
          }
          case 23: {
            // GUARD_POP
            const i = csp - 1;
            this.handlers = this.cMarker[i]!.handlers;
            cCode[i] = null;
            cEnv[i] = null;
            this.cMarker[i] = null;
            csp = i;
            pc += 1;
            continue;
          }
          case 24: {
            // ADD
            const b = stack[sp - 1]!,
              a = stack[sp - 2]!;
            siteCode = code;
            sitePc = at;
            if (typeof a === 'number' && typeof b === 'number') {
              const r = a + b;
              if (r <= MAX_SAFE && r >= MIN_SAFE) {
                stack[sp - 2] = r;
                sp--;
                pc += 2;
                continue;
              }
            }
            break;
          }
          case 25: {
            // SUB
            const b = stack[sp - 1]!,
              a = stack[sp - 2]!;
            siteCode = code;
            sitePc = at;
            if (typeof a === 'number' && typeof b === 'number') {
              const r = a - b;
              if (r <= MAX_SAFE && r >= MIN_SAFE) {
                stack[sp - 2] = r;
                sp--;
                pc += 2;
                continue;
              }
            }
            break;
          }
          case 26: {
            // MUL
            const b = stack[sp - 1]!,
              a = stack[sp - 2]!;
            siteCode = code;
            sitePc = at;
            if (typeof a === 'number' && typeof b === 'number') {
              const r = a * b;
              if (r <= MAX_SAFE && r >= MIN_SAFE && !Object.is(r, -0)) {
                stack[sp - 2] = r;
                sp--;
                pc += 2;
                continue;
              }
            }
            break;
          }
          case 27:
          case 28:
          case 29:
          case 30:
          case 31: {
            // LT GT LE GE NUM_EQ
            const b = stack[sp - 1]!,
              a = stack[sp - 2]!;
            siteCode = code;
            sitePc = at;
            if (typeof a === 'number' && typeof b === 'number') {
              const op = ins[pc]!;
              stack[sp - 2] = op === 27 ? a < b : op === 28 ? a > b : op === 29 ? a <= b : op === 30 ? a >= b : a === b;
              sp--;
              pc += 2;
              continue;
            }
            break;
          }
          case 32: // CONS
            siteCode = code;
            sitePc = at;
            stack[sp - 2] = new L_Pair(stack[sp - 2]!, stack[sp - 1]!);
            sp--;
            pc += 2;
            continue;
          case 33: // EQ
            siteCode = code;
            sitePc = at;
            break;
          case 34: {
            // CAR
            const p = stack[sp - 1]!;
            siteCode = code;
            sitePc = at;
            if (p instanceof L_Pair) {
              stack[sp - 1] = p.car;
              pc += 2;
              continue;
            }
            break;
          }
          case 35: {
            // CDR
            const p = stack[sp - 1]!;
            siteCode = code;
            sitePc = at;
            if (p instanceof L_Pair) {
              stack[sp - 1] = p.cdr;
              pc += 2;
              continue;
            }
            break;
          }
          case 36: // NULLP
            siteCode = code;
            sitePc = at;
            stack[sp - 1] = stack[sp - 1] === L_NIL;
            pc += 2;
            continue;
          case 37: // PAIRP
            siteCode = code;
            sitePc = at;
            stack[sp - 1] = stack[sp - 1] instanceof L_Pair;
            pc += 2;
            continue;
          case 38: // NOT
            siteCode = code;
            sitePc = at;
            stack[sp - 1] = stack[sp - 1] === false;
            pc += 2;
            continue;
          case 39: {
            // ZEROP
            const a = stack[sp - 1]!;
            siteCode = code;
            sitePc = at;
            if (typeof a === 'number') {
              stack[sp - 1] = a === 0;
              pc += 2;
              continue;
            }
            break;
          }
          case 40:
          case 41:
          case 42:
          case 43:
          case 44: {
            // JLT JGT JLE JGE JNUM_EQ
            const b = stack[sp - 1]!,
              a = stack[sp - 2]!;
            siteCode = code;
            sitePc = at;
            const op = ins[pc]!;
            let r: boolean;
            if (typeof a === 'number' && typeof b === 'number') {
              r = op === 40 ? a < b : op === 41 ? a > b : op === 42 ? a <= b : op === 43 ? a >= b : a === b;
            } else {
              const prim = consts[ins[pc + 1]!] as Primitive;
              this.code = code;
              this.pc = pc;
              this.env = env;
              this.sp = sp;
              this.bp = bp;
              this.siteCode = siteCode;
              this.sitePc = sitePc;
              meter.machine = steps;
              this.csp = csp;
              this.depth = depth;
              this.ctx.maxDepth = maxDepth;
              helper = true;
              r = prim.fn([a, b], this) !== false;
              steps = meter.machine;
              helper = false;
            }
            sp -= 2;
            pc = r ? pc + 3 : ins[pc + 2]!;
            continue;
          }
          case 45: // JNULLP
            siteCode = code;
            sitePc = at;
            pc = stack[--sp] === L_NIL ? pc + 3 : ins[pc + 2]!;
            continue;
          case 46: // JPAIRP
            siteCode = code;
            sitePc = at;
            pc = stack[--sp] instanceof L_Pair ? pc + 3 : ins[pc + 2]!;
            continue;
          default:
            throw new Error(`internal: bad opcode ${ins[pc]} at ${pc}`);
        }
        // Slow path of a fast-path instruction: call the primitive itself.
        const op = ins[pc]!;
        const prim = consts[ins[pc + 1]!] as Primitive;
        const argc = op >= 34 ? 1 : 2;
        const args = stack.slice(sp - argc, sp);
        sp -= argc;
        pc += 2;
        this.code = code;
        this.pc = pc;
        this.env = env;
        this.sp = sp;
        this.bp = bp;
        this.siteCode = siteCode;
        this.sitePc = sitePc;
        meter.machine = steps;
        this.csp = csp;
        this.depth = depth;
        this.ctx.maxDepth = maxDepth;
        helper = true;
        const v = prim.fn(args, this);
        code = this.code;
        ins = code.code;
        consts = code.consts;
        pc = this.pc;
        env = this.env;
        sp = this.sp;
        bp = this.bp;
        steps = meter.machine;
        csp = this.csp;
        depth = this.depth;
        maxDepth = this.ctx.maxDepth;
        helper = false;
        stack[sp++] = v;
      }
    } catch (e) {
      // After a helper ran, the fields are authoritative (it may have pushed entries).
      if (!helper) {
        this.code = code;
        this.pc = pc;
        this.env = env;
        this.sp = sp;
        this.bp = bp;
        this.siteCode = siteCode;
        this.sitePc = sitePc;
        meter.machine = steps;
        this.csp = csp;
        this.depth = depth;
        this.ctx.maxDepth = maxDepth;
      }
      throw e;
    }
  }
}
