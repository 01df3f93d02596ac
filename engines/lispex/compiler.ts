// The compiler: core IR → bytecode. Every variable is resolved at compile time to a lexical
// address (frame depth, slot) or a global cell; `let`/`letrec`/`guard` variables get slots in
// the enclosing procedure's environment array, so entering a scope allocates nothing. Calls to
// a small set of primitives become fixnum fast-path instructions when the name provably still
// denotes the primitive (not lexically bound and never assigned by `define`/`set!` anywhere in
// the program, which is fully known before evaluation starts).

import { CodeObject, Op } from './bytecode.js';
import type { CApplication, Core, CoreProgram, Name } from './core-ir.js';
import type { Span } from './diagnostics.js';
import type { Globals } from './globals.js';
import { NO_VALUES, Sym, type Primitive } from './values.js';

interface FastOp {
  readonly op: Op;
  readonly argc: number;
}

/**
 * Guest name → fast-path opcode and the argument count it covers. Looked up by the primitive a
 * name denotes (see `byPrimitive`), never by the primitive's own name: a primitive object is
 * named after its identity group (`null?` is the group `empty?`), so a lookup by `prim.name`
 * would miss every aliased entry.
 */
const FAST_OPS: ReadonlyMap<string, FastOp> = new Map([
  ['+', { op: Op.ADD, argc: 2 }],
  ['-', { op: Op.SUB, argc: 2 }],
  ['*', { op: Op.MUL, argc: 2 }],
  ['<', { op: Op.LT, argc: 2 }],
  ['>', { op: Op.GT, argc: 2 }],
  ['<=', { op: Op.LE, argc: 2 }],
  ['>=', { op: Op.GE, argc: 2 }],
  ['=', { op: Op.NUM_EQ, argc: 2 }],
  ['cons', { op: Op.CONS, argc: 2 }],
  ['eq?', { op: Op.EQ, argc: 2 }],
  ['car', { op: Op.CAR, argc: 1 }],
  ['cdr', { op: Op.CDR, argc: 1 }],
  ['null?', { op: Op.NULLP, argc: 1 }],
  ['pair?', { op: Op.PAIRP, argc: 1 }],
  ['not', { op: Op.NOT, argc: 1 }],
  ['zero?', { op: Op.ZEROP, argc: 1 }],
]);

/** Tests fused with the branch of an `if` (jump when the test is false). */
const FUSED_TESTS: ReadonlyMap<string, FastOp> = new Map([
  ['<', { op: Op.JLT, argc: 2 }],
  ['>', { op: Op.JGT, argc: 2 }],
  ['<=', { op: Op.JLE, argc: 2 }],
  ['>=', { op: Op.JGE, argc: 2 }],
  ['=', { op: Op.JNUM_EQ, argc: 2 }],
  ['null?', { op: Op.JNULLP, argc: 1 }],
  ['pair?', { op: Op.JPAIRP, argc: 1 }],
]);

/** The same table keyed by the primitive object each name denotes in `primitives` (memoized). */
const byPrimitiveCache = new WeakMap<ReadonlyMap<string, FastOp>, WeakMap<ReadonlyMap<string, Primitive>, Map<Primitive, FastOp>>>();
function byPrimitive(table: ReadonlyMap<string, FastOp>, primitives: ReadonlyMap<string, Primitive>): Map<Primitive, FastOp> {
  let perTable = byPrimitiveCache.get(table);
  if (perTable === undefined) {
    perTable = new WeakMap();
    byPrimitiveCache.set(table, perTable);
  }
  let out = perTable.get(primitives);
  if (out === undefined) {
    out = new Map();
    for (const [name, fast] of table) {
      const prim = primitives.get(name);
      if (prim !== undefined) out.set(prim, fast);
    }
    perTable.set(primitives, out);
  }
  return out;
}

class FrameInfo {
  size = 1; // slot 0 holds the parent environment
  alloc(): number {
    return this.size++;
  }
}

interface Binding {
  readonly slot: number;
  /** letrec-bound: loads check for "read before initialization" (E321). */
  readonly checked: boolean;
}

class Scope {
  constructor(
    readonly vars: Map<Name, Binding>,
    readonly parent: Scope | null,
    readonly frame: FrameInfo,
  ) {}
}

type Resolved = { kind: 'lexical'; depth: number; binding: Binding } | { kind: 'global' };

function resolve(scope: Scope | null, name: Name): Resolved {
  if (scope === null) return { kind: 'global' };
  let depth = 0;
  let frame = scope.frame;
  for (let s: Scope | null = scope; s !== null; s = s.parent) {
    if (s.frame !== frame) {
      depth++;
      frame = s.frame;
    }
    const b = s.vars.get(name);
    if (b !== undefined) return { kind: 'lexical', depth, binding: b };
  }
  return { kind: 'global' };
}

/** Emits one code object. */
class Emitter {
  readonly code: number[] = [];
  readonly spans: (Span | undefined)[] = [];
  readonly consts: unknown[] = [];
  private readonly constIndex = new Map<unknown, number>();

  emit(op: Op, span: Span | undefined, ...operands: number[]): number {
    const at = this.code.length;
    this.code.push(op, ...operands);
    if (span !== undefined) this.spans[at] = span;
    return at;
  }

  constant(v: unknown): number {
    // Identity-shared objects (cells, primitives, symbols) are pooled; numbers by value.
    const key = v;
    let i = this.constIndex.get(key);
    if (i === undefined) {
      i = this.consts.length;
      this.consts.push(v);
      if (typeof v === 'object' || typeof v === 'number' || typeof v === 'boolean') this.constIndex.set(key, i);
    }
    return i;
  }

  /** Set the jump target of the jump instruction at `at` (its last operand). */
  patch(at: number, target: number): void {
    const op = this.code[at]!;
    this.code[at + (op === Op.JUMP || op === Op.JUMP_IF_FALSE || op === Op.GUARD_PUSH ? 1 : 2)] = target;
  }

  here(): number {
    return this.code.length;
  }
}

export class Compiler {
  private readonly fastOps: Map<Primitive, FastOp>;
  private readonly fusedTests: Map<Primitive, FastOp>;

  constructor(
    private readonly program: CoreProgram,
    private readonly globals: Globals,
    private readonly primitives: ReadonlyMap<string, Primitive>,
  ) {
    this.fastOps = byPrimitive(FAST_OPS, primitives);
    this.fusedTests = byPrimitive(FUSED_TESTS, primitives);
  }

  /** A top-level form as a parameterless code object. */
  compileForm(form: Core): CodeObject {
    const frame = new FrameInfo();
    const em = new Emitter();
    const scope = new Scope(new Map(), null, frame);
    // Top-level code is not a procedure body: its calls are non-tail (they return to the form).
    this.compile(form, scope, em, false);
    em.emit(Op.RETURN, form.span);
    return new CodeObject('top-level', 0, false, frame.size, Int32Array.from(em.code), em.consts, em.spans);
  }

  /** The unshadowed primitive a global name denotes, if the program never assigns it. */
  private stablePrimitive(name: Name, scope: Scope): Primitive | null {
    if (!(name instanceof Sym) || this.program.assignedGlobals.has(name)) return null;
    if (resolve(scope, name).kind !== 'global') return null;
    return this.primitives.get(name.name) ?? null;
  }

  /** Compile `node`; leaves one stack value. Returns true when that value may be multiple. */
  private compile(node: Core, scope: Scope, em: Emitter, tail: boolean): boolean {
    const multi = this.compileInner(node, scope, em, tail);
    return multi;
  }

  /** Compile where exactly one value is required (E320 blamed on `consumer`). */
  private compileOne(node: Core, scope: Scope, em: Emitter, consumer: Span): void {
    if (this.compile(node, scope, em, false)) em.emit(Op.REQUIRE_ONE, consumer);
  }

  /** Finish an expression in tail position with a return. */
  private ret(em: Emitter, tail: boolean, span: Span): void {
    if (tail) em.emit(Op.RETURN, span);
  }

  private compileInner(node: Core, scope: Scope, em: Emitter, tail: boolean): boolean {
    switch (node.k) {
      case 'literal':
      case 'quote':
        em.emit(Op.CONST, node.span, em.constant(node.value));
        this.ret(em, tail, node.span);
        return false;
      case 'variable': {
        this.load(node.name, scope, em, node.span);
        this.ret(em, tail, node.span);
        return false;
      }
      case 'if': {
        const jf = this.test(node.test, scope, em, node.span);
        const m1 = this.compile(node.then, scope, em, tail);
        let jend = -1;
        if (!tail) jend = em.emit(Op.JUMP, node.span, 0);
        em.patch(jf, em.here());
        let m2 = true;
        if (node.else_ !== null) m2 = this.compile(node.else_, scope, em, tail);
        else {
          em.emit(Op.CONST, node.span, em.constant(NO_VALUES));
          this.ret(em, tail, node.span);
        }
        if (!tail) em.patch(jend, em.here());
        return m1 || m2;
      }
      case 'lambda': {
        const frame = new FrameInfo();
        const vars = new Map<Name, Binding>();
        for (const p of node.params) vars.set(p, { slot: frame.alloc(), checked: false });
        if (node.rest !== null) vars.set(node.rest, { slot: frame.alloc(), checked: false });
        const inner = new Scope(vars, scope, frame);
        const sub = new Emitter();
        this.compile(node.body, inner, sub, true);
        const code = new CodeObject(
          node.name,
          node.params.length,
          node.rest !== null,
          frame.size,
          Int32Array.from(sub.code),
          sub.consts,
          sub.spans,
        );
        em.emit(Op.CLOSURE, node.span, em.constant(code));
        this.ret(em, tail, node.span);
        return false;
      }
      case 'begin': {
        const last = node.body.length - 1;
        for (let i = 0; i < last; i++) {
          this.compile(node.body[i]!, scope, em, false);
          em.emit(Op.POP, undefined);
        }
        return this.compile(node.body[last]!, scope, em, tail);
      }
      case 'set!': {
        this.compileOne(node.value, scope, em, node.span);
        const r = resolve(scope, node.name);
        if (r.kind === 'lexical') em.emit(Op.SET_LEXICAL, node.span, r.depth, r.binding.slot);
        else em.emit(Op.SET_GLOBAL, node.span, em.constant(this.globals.cell(node.name as Sym)));
        this.ret(em, tail, node.span);
        return true;
      }
      case 'define': {
        this.compileOne(node.value, scope, em, node.span);
        em.emit(Op.DEFINE_GLOBAL, node.span, em.constant(this.globals.cell(node.name)));
        this.ret(em, tail, node.span);
        return true;
      }
      case 'let': {
        const slots = node.names.map(() => scope.frame.alloc());
        for (const init of node.inits) this.compileOne(init, scope, em, node.span);
        for (let i = slots.length - 1; i >= 0; i--) em.emit(Op.INIT_LOCAL, undefined, slots[i]!);
        const vars = new Map<Name, Binding>();
        for (let i = 0; i < node.names.length; i++) vars.set(node.names[i]!, { slot: slots[i]!, checked: false });
        return this.compile(node.body, new Scope(vars, scope, scope.frame), em, tail);
      }
      case 'letrec': {
        const vars = new Map<Name, Binding>();
        const slots = node.names.map((n) => {
          const slot = scope.frame.alloc();
          vars.set(n, { slot, checked: true });
          return slot;
        });
        const inner = new Scope(vars, scope, scope.frame);
        for (const s of slots) em.emit(Op.UNASSIGN, undefined, s);
        node.inits.forEach((init, i) => {
          this.compileOne(init, inner, em, node.span);
          em.emit(Op.INIT_LOCAL, undefined, slots[i]!);
        });
        return this.compile(node.body, inner, em, tail);
      }
      case 'values': {
        for (const a of node.args) this.compileOne(a, scope, em, node.span);
        if (node.args.length !== 1) em.emit(Op.VALUES, node.span, node.args.length);
        this.ret(em, tail, node.span);
        return node.args.length !== 1;
      }
      case 'application':
        return this.application(node, scope, em, tail);
      case 'guard': {
        const slot = scope.frame.alloc();
        const push = em.emit(Op.GUARD_PUSH, node.span, 0);
        this.compile(node.body, scope, em, false);
        em.emit(Op.GUARD_POP, node.span);
        let jend = -1;
        if (tail) em.emit(Op.RETURN, node.span);
        else jend = em.emit(Op.JUMP, node.span, 0);
        em.patch(push, em.here());
        em.emit(Op.INIT_LOCAL, undefined, slot);
        const vars = new Map<Name, Binding>([[node.name, { slot, checked: false }]]);
        this.compile(node.handler, new Scope(vars, scope, scope.frame), em, tail);
        if (!tail) em.patch(jend, em.here());
        return true;
      }
    }
  }

  /**
   * Compile an `if` test and its conditional jump; returns the jump instruction to patch. A test
   * that is a fusable primitive comparison becomes one compare-and-branch instruction.
   */
  private test(test: Core, scope: Scope, em: Emitter, ifSpan: Span): number {
    if (test.k === 'application' && test.fn.k === 'variable') {
      const prim = this.stablePrimitive(test.fn.name, scope);
      const fused = prim !== null ? this.fusedTests.get(prim) : undefined;
      if (prim !== null && fused !== undefined && fused.argc === test.args.length) {
        for (const a of test.args) this.compileOne(a, scope, em, test.span);
        return em.emit(fused.op, test.span, em.constant(prim), 0);
      }
    }
    this.compileOne(test, scope, em, ifSpan);
    return em.emit(Op.JUMP_IF_FALSE, ifSpan, 0);
  }

  private application(node: CApplication, scope: Scope, em: Emitter, tail: boolean): boolean {
    const fn = node.fn;
    if (fn.k === 'variable') {
      const prim = this.stablePrimitive(fn.name, scope);
      const fast = prim !== null ? this.fastOps.get(prim) : undefined;
      if (prim !== null && fast !== undefined && fast.argc === node.args.length) {
        for (const a of node.args) this.compileOne(a, scope, em, node.span);
        em.emit(fast.op, node.span, em.constant(prim));
        this.ret(em, tail, node.span);
        return false;
      }
    }
    this.compileOne(fn, scope, em, node.span);
    for (const a of node.args) this.compileOne(a, scope, em, node.span);
    em.emit(tail ? Op.TAIL_CALL : Op.CALL, node.span, node.args.length);
    return true;
  }

  private load(name: Name, scope: Scope, em: Emitter, span: Span): void {
    const r = resolve(scope, name);
    if (r.kind === 'lexical') {
      const { depth, binding } = r;
      if (binding.checked) {
        const k = em.constant(name);
        if (depth === 0) em.emit(Op.LOCAL_CHECKED, span, binding.slot, k);
        else em.emit(Op.LEXICAL_CHECKED, span, depth, binding.slot, k);
      } else if (depth === 0) em.emit(Op.LOCAL, span, binding.slot);
      else if (depth === 1) em.emit(Op.LOCAL1, span, binding.slot);
      else em.emit(Op.LEXICAL, span, depth, binding.slot);
      return;
    }
    const sym = name as Sym;
    const prim = this.stablePrimitive(sym, scope);
    if (prim !== null) em.emit(Op.PRIMITIVE, span, em.constant(prim));
    else em.emit(Op.GLOBAL, span, em.constant(this.globals.cell(sym)));
  }
}
