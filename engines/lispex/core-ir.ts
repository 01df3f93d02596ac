// The core IR: the 13 core forms every derived form lowers to. Both routes consume it — the tree
// evaluator walks it, the compiler translates it to bytecode. Nodes keep the source span of the
// surface form they came from (the origin map); spans are not part of the canonical identity.

import type { Span } from './diagnostics.js';
import { Sym, type Value } from './values.js';

/**
 * A fresh temporary made by the normalizer (for `or`, `cond =>`, `case`, `do`, …). Its identity
 * is the object, so no user symbol can name it: hygiene by construction.
 */
export class Temp {
  private static counter = 0;
  readonly id: number;
  constructor(readonly hint: string) {
    this.id = ++Temp.counter;
  }
  /** Temporaries made so far (their ids are 1..count). */
  static madeCount(): number {
    return Temp.counter;
  }
  /** Number the next temporaries from `count + 1` again (between runs, so ids do not drift). */
  static restartAt(count: number): void {
    Temp.counter = count;
  }
}

/** A variable name: a user symbol or an unforgeable temporary. */
export type Name = Sym | Temp;

export function nameText(n: Name): string {
  return n instanceof Sym ? n.name : `#<temp ${n.hint}${n.id}>`;
}

export type Core =
  | CLiteral
  | CVariable
  | CQuote
  | CIf
  | CLambda
  | CBegin
  | CSet
  | CDefine
  | CLet
  | CLetrec
  | CValues
  | CApplication
  | CGuard;

/** Self-evaluating datum, or a hidden intrinsic (a primitive object placed by the normalizer). */
export interface CLiteral {
  readonly k: 'literal';
  readonly value: Value;
  readonly span: Span;
}
export interface CVariable {
  readonly k: 'variable';
  readonly name: Name;
  readonly span: Span;
}
export interface CQuote {
  readonly k: 'quote';
  readonly value: Value;
  readonly span: Span;
}
/** `else_` null: a false test yields zero values. */
export interface CIf {
  readonly k: 'if';
  readonly test: Core;
  readonly then: Core;
  readonly else_: Core | null;
  readonly span: Span;
}
export interface CLambda {
  readonly k: 'lambda';
  readonly params: readonly Name[];
  readonly rest: Name | null;
  readonly body: Core;
  /** The name it was defined under, for printing (`#<procedure f>`). */
  readonly name: string | null;
  readonly span: Span;
}
/** Non-empty; all but the last value are discarded (any number of values allowed there). */
export interface CBegin {
  readonly k: 'begin';
  readonly body: readonly Core[];
  readonly span: Span;
}
export interface CSet {
  readonly k: 'set!';
  readonly name: Name;
  readonly value: Core;
  readonly span: Span;
}
/** Top-level definition of a global (internal definitions become `letrec`). */
export interface CDefine {
  readonly k: 'define';
  readonly name: Sym;
  readonly value: Core;
  readonly span: Span;
}
export interface CLet {
  readonly k: 'let';
  readonly names: readonly Name[];
  readonly inits: readonly Core[];
  readonly body: Core;
  readonly span: Span;
}
/**
 * `letrec` with letrec* order: every name is bound (uninitialized) first, then each init is
 * evaluated left to right and assigned at once. Reading a name before its assignment is E321.
 */
export interface CLetrec {
  readonly k: 'letrec';
  readonly names: readonly Name[];
  readonly inits: readonly Core[];
  readonly body: Core;
  readonly span: Span;
}
export interface CValues {
  readonly k: 'values';
  readonly args: readonly Core[];
  readonly span: Span;
}
export interface CApplication {
  readonly k: 'application';
  readonly fn: Core;
  readonly args: readonly Core[];
  readonly span: Span;
}
/**
 * `(guard (name clause…) body…)`: `handler` is the lowered clause chain evaluated with `name`
 * bound to the condition; its fall-through re-raises with `raise-continuable`.
 */
export interface CGuard {
  readonly k: 'guard';
  readonly name: Name;
  readonly handler: Core;
  readonly body: Core;
  readonly span: Span;
}

/** A normalized program: top-level forms in source order. */
export interface CoreProgram {
  readonly forms: readonly Core[];
  /** Every global name assigned anywhere by `define` or `set!` (so the VM knows which primitives stay unshadowed). */
  readonly assignedGlobals: ReadonlySet<Sym>;
}

/**
 * The canonical span-free core S-expression of a node (the normalized identity), e.g.
 * `(if (variable x) (literal 1) (values))`. Used by tests and for diagnostics of the pipeline.
 */
export function coreToSexpr(c: Core, show: (v: Value) => string): string {
  const names = (ns: readonly Name[]) => ns.map(nameText).join(' ');
  const binds = (ns: readonly Name[], is: readonly Core[]) => ns.map((n, i) => `(${nameText(n)} ${coreToSexpr(is[i]!, show)})`).join(' ');
  switch (c.k) {
    case 'literal':
      return `(literal ${show(c.value)})`;
    case 'variable':
      return `(variable ${nameText(c.name)})`;
    case 'quote':
      return `(quote ${show(c.value)})`;
    case 'if':
      return `(if ${coreToSexpr(c.test, show)} ${coreToSexpr(c.then, show)}${c.else_ ? ` ${coreToSexpr(c.else_, show)}` : ''})`;
    case 'lambda':
      return `(lambda (${names(c.params)}${c.rest ? ` . ${nameText(c.rest)}` : ''}) ${coreToSexpr(c.body, show)})`;
    case 'begin':
      return `(begin ${c.body.map((b) => coreToSexpr(b, show)).join(' ')})`;
    case 'set!':
      return `(set! ${nameText(c.name)} ${coreToSexpr(c.value, show)})`;
    case 'define':
      return `(define ${c.name.name} ${coreToSexpr(c.value, show)})`;
    case 'let':
      return `(let (${binds(c.names, c.inits)}) ${coreToSexpr(c.body, show)})`;
    case 'letrec':
      return `(letrec (${binds(c.names, c.inits)}) ${coreToSexpr(c.body, show)})`;
    case 'values':
      return `(values${c.args.map((a) => ` ${coreToSexpr(a, show)}`).join('')})`;
    case 'application':
      return `(${[c.fn, ...c.args].map((a) => coreToSexpr(a, show)).join(' ')})`;
    case 'guard':
      return `(guard (${nameText(c.name)} ${coreToSexpr(c.handler, show)}) ${coreToSexpr(c.body, show)})`;
  }
}

/** The children of a node (for iterative walks). */
export function coreChildren(c: Core): readonly Core[] {
  switch (c.k) {
    case 'literal':
    case 'variable':
    case 'quote':
      return [];
    case 'if':
      return c.else_ ? [c.test, c.then, c.else_] : [c.test, c.then];
    case 'lambda':
      return [c.body];
    case 'begin':
      return c.body;
    case 'set!':
    case 'define':
      return [c.value];
    case 'let':
    case 'letrec':
      return [...c.inits, c.body];
    case 'values':
      return c.args;
    case 'application':
      return [c.fn, ...c.args];
    case 'guard':
      return [c.handler, c.body];
  }
}

/** Nesting depth of a node, computed without recursion. */
export function coreDepth(root: Core): number {
  let max = 0;
  const stack: [Core, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, d] = stack.pop()!;
    if (d > max) max = d;
    for (const child of coreChildren(node)) stack.push([child, d + 1]);
  }
  return max;
}
