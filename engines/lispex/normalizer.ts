// The normalizer: syntax trees → core IR. Lowers the 12 derived forms (quasiquote, let*, named
// let, cond, case, and, or, when, unless, do, function-define, internal define) to the 13 core
// forms. Hygiene: temporaries are `Temp` objects no symbol can name, and the procedures derived
// forms need (cons, append, list->vector, memv, raise-continuable) are hidden intrinsics —
// literal primitive objects — so a user rebinding `cons` cannot change what `quasiquote` means.
// Each entry into `norm` charges one normalization step.

import { type CApplication, type Core, type CoreProgram, type CLambda, type Name, Temp } from './core-ir.js';
import { LispexError, type Span } from './diagnostics.js';
import { ResourceExhausted, type Meter } from './meter.js';
import { syntaxToValue, type SList, type SSym, type Syntax } from './reader.js';
import { NIL, Sym, type Primitive } from './values.js';

/** Names that cannot be bound or assigned (E110): every syntactic keyword of the language. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'quote',
  'quasiquote',
  'unquote',
  'unquote-splicing',
  'lambda',
  'if',
  'define',
  'set!',
  'let',
  'let*',
  'letrec',
  'letrec*',
  'begin',
  'cond',
  'case',
  'and',
  'or',
  'when',
  'unless',
  'do',
  'guard',
  'values',
  'else',
  '=>',
]);

/** Forms of R7RS outside the Lispex profile: using one in operator position is E120. */
export const FORBIDDEN_EXTENSIONS: ReadonlySet<string> = new Set([
  'define-syntax',
  'let-syntax',
  'letrec-syntax',
  'syntax-rules',
  'syntax-case',
  'define-record-type',
  'delay',
  'delay-force',
  'make-promise',
  'case-lambda',
  'parameterize',
  'let-values',
  'let*-values',
  'define-values',
  'receive',
  'include',
  'include-ci',
  'import',
  'define-library',
  'cond-expand',
]);

export type IntrinsicName = 'cons' | 'append' | 'list->vector' | 'memv' | 'raise-continuable';

const S = (name: string) => Sym.of(name);
const QUASIQUOTE = S('quasiquote'),
  UNQUOTE = S('unquote'),
  UNQUOTE_SPLICING = S('unquote-splicing');
const DEFINE = S('define'),
  BEGIN = S('begin'),
  ELSE = S('else'),
  ARROW = S('=>');

export function normalizeProgram(roots: readonly Syntax[], meter: Meter, intrinsic: (name: IntrinsicName) => Primitive): CoreProgram {
  const n = new Normalizer(meter, intrinsic);
  try {
    return n.program(roots);
  } catch (e) {
    if (e instanceof ResourceExhausted) e.at ??= n.lastSpan;
    throw e;
  }
}

/** Lexical scope during normalization: which symbols are locally bound (to detect globals). */
type Scope = ReadonlySet<Sym> | null;

class Normalizer {
  readonly assignedGlobals = new Set<Sym>();
  /** Span of the form being normalized (blamed when the normalization meter runs out). */
  lastSpan: Span = { line: 1, column: 1, startByte: 0, endByte: 0 };

  constructor(
    private readonly meter: Meter,
    private readonly intrinsicOf: (name: IntrinsicName) => Primitive,
  ) {}

  private malformed(span: Span, what: string): LispexError {
    return new LispexError('E130', `malformed ${what}`, [], span);
  }

  program(roots: readonly Syntax[]): CoreProgram {
    const forms: Core[] = [];
    const queue = [...roots];
    // Top-level `begin` splices its forms (so it may contain definitions).
    const flatten = (s: Syntax): void => {
      // (An empty top-level `(begin)` splices to nothing, as in R7RS.)
      if (s.t === 'list' && s.tail === null && s.items.length > 0 && isSym(s.items[0]!, BEGIN)) {
        this.meter.chargeNormalization();
        for (const sub of s.items.slice(1)) flatten(sub);
      } else forms.push(this.topLevel(s));
    };
    for (const r of queue) flatten(r);
    return { forms, assignedGlobals: this.assignedGlobals };
  }

  private topLevel(s: Syntax): Core {
    if (isForm(s, DEFINE)) {
      this.meter.chargeNormalization();
      const { name, value } = this.definition(s as SList, null);
      if (!(name instanceof Sym)) throw this.malformed(s.span, 'define');
      this.assignedGlobals.add(name);
      return { k: 'define', name, value, span: s.span };
    }
    return this.norm(s, null);
  }

  /** `(define name expr)` or `(define (name . params) body…)` → name and lowered value. */
  private definition(s: SList, scope: Scope): { name: Sym; value: Core } {
    const it = s.items;
    if (s.tail !== null || it.length < 2) throw this.malformed(s.span, 'define');
    const target = it[1]!;
    if (target.t === 'sym') {
      this.checkBindable(target);
      if (it.length > 3) throw this.malformed(s.span, 'define');
      const value: Core = it.length === 3 ? this.normNamed(it[2]!, scope, target.sym.name) : { k: 'values', args: [], span: s.span };
      return { name: target.sym, value };
    }
    if (target.t === 'list' && target.items.length > 0 && target.items[0]!.t === 'sym') {
      const nameSyn = target.items[0] as SSym;
      this.checkBindable(nameSyn);
      const formals: SList = { t: 'list', items: target.items.slice(1), tail: target.tail, span: target.span };
      if (it.length < 3) throw this.malformed(s.span, 'define');
      const value = this.lambda(formals, it.slice(2), scope, nameSyn.sym.name, s.span);
      return { name: nameSyn.sym, value };
    }
    throw this.malformed(s.span, 'define');
  }

  private checkBindable(s: Syntax): asserts s is SSym {
    if (s.t !== 'sym') throw this.malformed(s.span, 'binding: expected an identifier');
    if (RESERVED_NAMES.has(s.sym.name)) {
      throw new LispexError('E110', `cannot bind reserved name ${s.sym.name}`, [s.sym], s.span);
    }
  }

  /** Normalize, passing a definition name down to a lambda for printing. */
  private normNamed(s: Syntax, scope: Scope, name: string): Core {
    if (isForm(s, S('lambda')) && !this.isShadowed(scope, S('lambda'))) {
      this.meter.chargeNormalization();
      const l = s as SList;
      if (l.items.length < 3 || l.tail !== null) throw this.malformed(s.span, 'lambda');
      return this.lambda(l.items[1]!, l.items.slice(2), scope, name, s.span);
    }
    return this.norm(s, scope);
  }

  private isShadowed(scope: Scope, sym: Sym): boolean {
    return scope?.has(sym) === true;
  }

  private extend(scope: Scope, names: readonly Name[]): Scope {
    const out = new Set(scope ?? []);
    for (const n of names) if (n instanceof Sym) out.add(n);
    return out;
  }

  private intrinsic(name: IntrinsicName, span: Span): Core {
    return { k: 'literal', value: this.intrinsicOf(name), span };
  }

  private app(fn: Core, args: Core[], span: Span): CApplication {
    return { k: 'application', fn, args, span };
  }

  /** The expression normalizer: one normalization step per entry. */
  norm(s: Syntax, scope: Scope): Core {
    this.lastSpan = s.span;
    this.meter.chargeNormalization();
    switch (s.t) {
      case 'atom':
        return { k: 'literal', value: s.value, span: s.span };
      case 'vector':
        // Vectors are self-evaluating (R7RS).
        return { k: 'literal', value: syntaxToValue(s), span: s.span };
      case 'sym': {
        // `values` is also primitive row 191: as an expression it names that procedure.
        if (RESERVED_NAMES.has(s.sym.name) && s.sym.name !== 'values') {
          throw new LispexError('E130', `keyword ${s.sym.name} used as an expression`, [s.sym], s.span);
        }
        return { k: 'variable', name: s.sym, span: s.span };
      }
      case 'list':
        return this.list(s, scope);
    }
  }

  private list(s: SList, scope: Scope): Core {
    if (s.items.length === 0) throw this.malformed(s.span, 'expression: empty combination ()');
    if (s.tail !== null) throw this.malformed(s.span, 'expression: dotted combination');
    const head = s.items[0]!;
    if (head.t === 'sym' && !this.isShadowed(scope, head.sym)) {
      const keyword = head.sym.name;
      if (FORBIDDEN_EXTENSIONS.has(keyword)) {
        throw new LispexError('E120', `${keyword} is a forbidden extension`, [head.sym], s.span);
      }
      const special = this.special(keyword, s, scope);
      if (special !== null) return special;
    }
    const fn = this.norm(head, scope);
    const args = s.items.slice(1).map((a) => this.norm(a, scope));
    return this.app(fn, args, s.span);
  }

  /** Core and derived forms by keyword; null when `keyword` is not one. */
  private special(keyword: string, s: SList, scope: Scope): Core | null {
    const it = s.items;
    const span = s.span;
    switch (keyword) {
      case 'quote':
        if (it.length !== 2) throw this.malformed(span, 'quote');
        return { k: 'quote', value: syntaxToValue(it[1]!), span };
      case 'if': {
        if (it.length !== 3 && it.length !== 4) throw this.malformed(span, 'if');
        return {
          k: 'if',
          test: this.norm(it[1]!, scope),
          then: this.norm(it[2]!, scope),
          else_: it.length === 4 ? this.norm(it[3]!, scope) : null,
          span,
        };
      }
      case 'lambda':
        if (it.length < 3) throw this.malformed(span, 'lambda');
        return this.lambda(it[1]!, it.slice(2), scope, null, span);
      case 'begin':
        if (it.length < 2) throw this.malformed(span, 'begin');
        if (it.slice(1).some((f) => isForm(f, DEFINE))) throw this.malformed(span, 'begin: definition in expression context');
        return this.sequence(
          it.slice(1).map((f) => this.norm(f, scope)),
          span,
        );
      case 'set!': {
        if (it.length !== 3) throw this.malformed(span, 'set!');
        const target = it[1]!;
        this.checkBindable(target);
        if (!this.isShadowed(scope, target.sym)) this.assignedGlobals.add(target.sym);
        return { k: 'set!', name: target.sym, value: this.norm(it[2]!, scope), span };
      }
      case 'define':
        throw this.malformed(span, 'define: definitions are allowed only at top level or at the start of a body');
      case 'let':
        if (it.length >= 2 && it[1]!.t === 'sym') return this.namedLet(s, scope);
        return this.let(s, scope, 'let');
      case 'letrec':
      case 'letrec*':
        return this.let(s, scope, 'letrec');
      case 'let*':
        return this.letStar(s, scope);
      case 'values':
        return { k: 'values', args: it.slice(1).map((a) => this.norm(a, scope)), span };
      case 'guard':
        return this.guard(s, scope);
      case 'quasiquote':
        if (it.length !== 2) throw this.malformed(span, 'quasiquote');
        return this.quasi(it[1]!, 1, scope);
      case 'unquote':
      case 'unquote-splicing':
        throw this.malformed(span, `${keyword} outside quasiquote`);
      case 'cond':
        return this.cond(it.slice(1), scope, span);
      case 'case':
        return this.case_(s, scope);
      case 'and': {
        if (it.length === 1) return { k: 'literal', value: true, span };
        const parts = it.slice(1);
        let out = this.norm(parts[parts.length - 1]!, scope);
        for (let i = parts.length - 2; i >= 0; i--) {
          this.meter.chargeNormalization();
          out = { k: 'if', test: this.norm(parts[i]!, scope), then: out, else_: { k: 'literal', value: false, span }, span };
        }
        return out;
      }
      case 'or': {
        if (it.length === 1) return { k: 'literal', value: false, span };
        const parts = it.slice(1);
        let out = this.norm(parts[parts.length - 1]!, scope);
        for (let i = parts.length - 2; i >= 0; i--) {
          this.meter.chargeNormalization();
          const t = new Temp('or');
          const ref: Core = { k: 'variable', name: t, span };
          out = {
            k: 'let',
            names: [t],
            inits: [this.norm(parts[i]!, scope)],
            body: { k: 'if', test: ref, then: ref, else_: out, span },
            span,
          };
        }
        return out;
      }
      case 'when':
      case 'unless': {
        if (it.length < 3) throw this.malformed(span, keyword);
        const body = this.sequence(
          it.slice(2).map((f) => this.norm(f, scope)),
          span,
        );
        const none: Core = { k: 'values', args: [], span };
        const test = this.norm(it[1]!, scope);
        return keyword === 'when' ? { k: 'if', test, then: body, else_: none, span } : { k: 'if', test, then: none, else_: body, span };
      }
      case 'do':
        return this.do_(s, scope);
      default:
        return null;
    }
  }

  private sequence(body: Core[], span: Span): Core {
    return body.length === 1 ? body[0]! : { k: 'begin', body, span };
  }

  /** Parameters: `(a b)`, `(a . rest)`, or `rest`. Duplicates are E130. */
  private formals(f: Syntax): { params: Sym[]; rest: Sym | null } {
    const params: Sym[] = [];
    let rest: Sym | null = null;
    if (f.t === 'sym') {
      this.checkBindable(f);
      rest = f.sym;
    } else if (f.t === 'list') {
      for (const p of f.items) {
        this.checkBindable(p);
        params.push(p.sym);
      }
      if (f.tail !== null) {
        this.checkBindable(f.tail);
        rest = f.tail.sym;
      }
    } else throw this.malformed(f.span, 'lambda parameter list');
    const all = rest ? [...params, rest] : params;
    if (new Set(all).size !== all.length) throw this.malformed(f.span, 'lambda parameter list: duplicate parameter');
    return { params, rest };
  }

  private lambda(formals: Syntax, body: readonly Syntax[], scope: Scope, name: string | null, span: Span): CLambda {
    const { params, rest } = this.formals(formals);
    const inner = this.extend(scope, rest ? [...params, rest] : params);
    return { k: 'lambda', params, rest, body: this.body(body, inner, span), name, span };
  }

  /** A body: leading internal definitions (→ letrec*), then at least one expression. */
  private body(forms: readonly Syntax[], scope: Scope, span: Span): Core {
    const defs: { name: Sym; syn: SList }[] = [];
    let i = 0;
    while (i < forms.length && isForm(forms[i]!, DEFINE) && !this.isShadowed(scope, DEFINE)) {
      const d = forms[i] as SList;
      const target = d.items[1];
      const nameSyn = target?.t === 'list' ? target.items[0] : target;
      if (nameSyn === undefined) throw this.malformed(d.span, 'define');
      this.checkBindable(nameSyn);
      defs.push({ name: nameSyn.sym, syn: d });
      i++;
    }
    if (i === forms.length) throw this.malformed(span, 'body: no expression');
    if (defs.length === 0)
      return this.sequence(
        forms.map((f) => this.norm(f, scope)),
        span,
      );
    this.meter.chargeNormalization();
    const names = defs.map((d) => d.name);
    if (new Set(names).size !== names.length) throw this.malformed(span, 'body: duplicate internal definition');
    const inner = this.extend(scope, names);
    const inits = defs.map((d) => {
      this.meter.chargeNormalization();
      return this.definition(d.syn, inner).value;
    });
    const rest = forms.slice(i);
    for (const f of rest)
      if (isForm(f, DEFINE) && !this.isShadowed(inner, DEFINE)) throw this.malformed(f.span, 'define after an expression in a body');
    const bodyCore = this.sequence(
      rest.map((f) => this.norm(f, inner)),
      span,
    );
    return { k: 'letrec', names, inits, body: bodyCore, span };
  }

  private bindings(b: Syntax, what: string): { names: Sym[]; inits: Syntax[]; spans: Span[] } {
    if (b.t !== 'list' || b.tail !== null) throw this.malformed(b.span, `${what} bindings`);
    const names: Sym[] = [];
    const inits: Syntax[] = [];
    const spans: Span[] = [];
    for (const one of b.items) {
      if (one.t !== 'list' || one.tail !== null || one.items.length !== 2) throw this.malformed(one.span, `${what} binding`);
      const n = one.items[0]!;
      this.checkBindable(n);
      names.push(n.sym);
      inits.push(one.items[1]!);
      spans.push(one.span);
    }
    return { names, inits, spans };
  }

  private let(s: SList, scope: Scope, kind: 'let' | 'letrec'): Core {
    const it = s.items;
    if (it.length < 3) throw this.malformed(s.span, kind);
    const { names, inits } = this.bindings(it[1]!, kind);
    if (new Set(names).size !== names.length) throw this.malformed(s.span, `${kind}: duplicate binding`);
    const inner = this.extend(scope, names);
    const initScope = kind === 'let' ? scope : inner;
    const initCores = inits.map((e, i) => this.normNamed(e, initScope, names[i]!.name));
    return { k: kind, names, inits: initCores, body: this.body(it.slice(2), inner, s.span), span: s.span };
  }

  private letStar(s: SList, scope: Scope): Core {
    const it = s.items;
    if (it.length < 3) throw this.malformed(s.span, 'let*');
    const { names, inits } = this.bindings(it[1]!, 'let*');
    if (names.length === 0) return { k: 'let', names: [], inits: [], body: this.body(it.slice(2), scope, s.span), span: s.span };
    // Nest one `let` per binding, innermost holding the body.
    const scopes: Scope[] = [scope];
    const initCores: Core[] = [];
    for (let i = 0; i < names.length; i++) {
      this.meter.chargeNormalization();
      initCores.push(this.normNamed(inits[i]!, scopes[i]!, names[i]!.name));
      scopes.push(this.extend(scopes[i]!, [names[i]!]));
    }
    let out: Core = this.body(it.slice(2), scopes[names.length]!, s.span);
    for (let i = names.length - 1; i >= 0; i--) {
      out = { k: 'let', names: [names[i]!], inits: [initCores[i]!], body: out, span: s.span };
    }
    return out;
  }

  /** `(let loop ((v i) …) body…)` → `((letrec ((loop (lambda (v …) body…))) loop) i …)`. */
  private namedLet(s: SList, scope: Scope): Core {
    const it = s.items;
    if (it.length < 4) throw this.malformed(s.span, 'named let');
    const nameSyn = it[1] as SSym;
    this.checkBindable(nameSyn);
    const { names, inits } = this.bindings(it[2]!, 'named let');
    if (new Set(names).size !== names.length) throw this.malformed(s.span, 'named let: duplicate binding');
    const initCores = inits.map((e) => this.norm(e, scope));
    const loopScope = this.extend(scope, [nameSyn.sym]);
    const bodyScope = this.extend(loopScope, names);
    const lam: CLambda = {
      k: 'lambda',
      params: names,
      rest: null,
      body: this.body(it.slice(3), bodyScope, s.span),
      name: nameSyn.sym.name,
      span: s.span,
    };
    const loopRef: Core = { k: 'variable', name: nameSyn.sym, span: nameSyn.span };
    const rec: Core = { k: 'letrec', names: [nameSyn.sym], inits: [lam], body: loopRef, span: s.span };
    return this.app(rec, initCores, s.span);
  }

  /** cond clauses → if-chain; no match → zero values. */
  private cond(clauses: readonly Syntax[], scope: Scope, span: Span, fallthrough?: Core): Core {
    let out: Core = fallthrough ?? { k: 'values', args: [], span };
    for (let i = clauses.length - 1; i >= 0; i--) {
      this.meter.chargeNormalization();
      const c = clauses[i]!;
      if (c.t !== 'list' || c.tail !== null || c.items.length === 0) throw this.malformed(c.span, 'cond clause');
      const head = c.items[0]!;
      if (isSym(head, ELSE) && !this.isShadowed(scope, ELSE)) {
        if (i !== clauses.length - 1 || c.items.length < 2) throw this.malformed(c.span, 'cond else clause');
        out = this.sequence(
          c.items.slice(1).map((f) => this.norm(f, scope)),
          c.span,
        );
        continue;
      }
      const test = this.norm(head, scope);
      if (c.items.length === 1) {
        const t = new Temp('cond');
        const ref: Core = { k: 'variable', name: t, span: c.span };
        out = { k: 'let', names: [t], inits: [test], body: { k: 'if', test: ref, then: ref, else_: out, span: c.span }, span: c.span };
      } else if (isSym(c.items[1]!, ARROW) && !this.isShadowed(scope, ARROW)) {
        if (c.items.length !== 3) throw this.malformed(c.span, 'cond => clause');
        const t = new Temp('cond');
        const ref: Core = { k: 'variable', name: t, span: c.span };
        const receiver = this.norm(c.items[2]!, scope);
        out = {
          k: 'let',
          names: [t],
          inits: [test],
          body: { k: 'if', test: ref, then: this.app(receiver, [ref], c.span), else_: out, span: c.span },
          span: c.span,
        };
      } else {
        out = {
          k: 'if',
          test,
          then: this.sequence(
            c.items.slice(1).map((f) => this.norm(f, scope)),
            c.span,
          ),
          else_: out,
          span: c.span,
        };
      }
    }
    return out;
  }

  /** `(case key ((d …) e …) … (else e …))` → test each clause with the memv intrinsic. */
  private case_(s: SList, scope: Scope): Core {
    const it = s.items;
    if (it.length < 2) throw this.malformed(s.span, 'case');
    const key = this.norm(it[1]!, scope);
    const t = new Temp('key');
    const ref: Core = { k: 'variable', name: t, span: s.span };
    let out: Core = { k: 'values', args: [], span: s.span };
    const clauses = it.slice(2);
    for (let i = clauses.length - 1; i >= 0; i--) {
      this.meter.chargeNormalization();
      const c = clauses[i]!;
      if (c.t !== 'list' || c.tail !== null || c.items.length < 2) throw this.malformed(c.span, 'case clause');
      const head = c.items[0]!;
      const isElse = isSym(head, ELSE) && !this.isShadowed(scope, ELSE);
      if (isElse && i !== clauses.length - 1) throw this.malformed(c.span, 'case else clause');
      let body: Core;
      if (isSym(c.items[1]!, ARROW) && !this.isShadowed(scope, ARROW)) {
        if (c.items.length !== 3) throw this.malformed(c.span, 'case => clause');
        body = this.app(this.norm(c.items[2]!, scope), [ref], c.span);
      } else
        body = this.sequence(
          c.items.slice(1).map((f) => this.norm(f, scope)),
          c.span,
        );
      if (isElse) {
        out = body;
        continue;
      }
      if (head.t !== 'list' || head.tail !== null) throw this.malformed(head.span, 'case datum list');
      const data = syntaxToValue(head);
      const test = this.app(this.intrinsic('memv', c.span), [ref, { k: 'quote', value: data, span: head.span }], c.span);
      out = { k: 'if', test, then: body, else_: out, span: c.span };
    }
    return { k: 'let', names: [t], inits: [key], body: out, span: s.span };
  }

  /** `(do ((v init step) …) (test res …) cmd …)` → a letrec loop over a fresh temporary. */
  private do_(s: SList, scope: Scope): Core {
    const it = s.items;
    if (it.length < 3) throw this.malformed(s.span, 'do');
    const specs = it[1]!;
    if (specs.t !== 'list' || specs.tail !== null) throw this.malformed(specs.span, 'do bindings');
    const names: Sym[] = [];
    const inits: Core[] = [];
    const stepSyn: (Syntax | null)[] = [];
    for (const sp of specs.items) {
      if (sp.t !== 'list' || sp.tail !== null || sp.items.length < 2 || sp.items.length > 3) throw this.malformed(sp.span, 'do binding');
      const n = sp.items[0]!;
      this.checkBindable(n);
      names.push(n.sym);
      inits.push(this.norm(sp.items[1]!, scope));
      stepSyn.push(sp.items[2] ?? null);
    }
    if (new Set(names).size !== names.length) throw this.malformed(s.span, 'do: duplicate binding');
    const exit = it[2]!;
    if (exit.t !== 'list' || exit.tail !== null || exit.items.length < 1) throw this.malformed(exit.span, 'do exit clause');
    const inner = this.extend(scope, names);
    const loop = new Temp('do');
    const test = this.norm(exit.items[0]!, inner);
    const result: Core =
      exit.items.length > 1
        ? this.sequence(
            exit.items.slice(1).map((f) => this.norm(f, inner)),
            exit.span,
          )
        : { k: 'values', args: [], span: exit.span };
    const steps: Core[] = names.map((n, i) => (stepSyn[i] ? this.norm(stepSyn[i]!, inner) : { k: 'variable', name: n, span: s.span }));
    const again = this.app({ k: 'variable', name: loop, span: s.span }, steps, s.span);
    const commands = it.slice(3).map((f) => this.norm(f, inner));
    const loopBody: Core = {
      k: 'if',
      test,
      then: result,
      else_: commands.length > 0 ? { k: 'begin', body: [...commands, again], span: s.span } : again,
      span: s.span,
    };
    const lam: CLambda = { k: 'lambda', params: names, rest: null, body: loopBody, name: 'do-loop', span: s.span };
    const loopRef: Core = { k: 'variable', name: loop, span: s.span };
    return this.app({ k: 'letrec', names: [loop], inits: [lam], body: loopRef, span: s.span }, inits, s.span);
  }

  /** `(guard (var clause …) body …)`: clauses as cond, falling through to raise-continuable. */
  private guard(s: SList, scope: Scope): Core {
    const it = s.items;
    if (it.length < 3) throw this.malformed(s.span, 'guard');
    const spec = it[1]!;
    if (spec.t !== 'list' || spec.tail !== null || spec.items.length < 1) throw this.malformed(spec.span, 'guard clause list');
    const v = spec.items[0]!;
    this.checkBindable(v);
    const inner = this.extend(scope, [v.sym]);
    const ref: Core = { k: 'variable', name: v.sym, span: v.span };
    const reraise = this.app(this.intrinsic('raise-continuable', s.span), [ref], s.span);
    const handler = this.cond(spec.items.slice(1), inner, spec.span, reraise);
    const body = this.body(it.slice(2), scope, s.span);
    return { k: 'guard', name: v.sym, handler, body, span: s.span };
  }

  /** Quasiquote at nesting `depth`, built from hidden cons/append/list->vector intrinsics. */
  private quasi(x: Syntax, depth: number, scope: Scope): Core {
    this.meter.chargeNormalization();
    const span = x.span;
    if (!containsUnquote(x)) return { k: 'quote', value: syntaxToValue(x), span };
    if (x.t === 'vector') {
      const asList: SList = { t: 'list', items: x.items, tail: null, span };
      return this.app(this.intrinsic('list->vector', span), [this.quasi(asList, depth, scope)], span);
    }
    if (x.t !== 'list') return { k: 'quote', value: syntaxToValue(x), span };
    const head = x.items[0];
    if (x.tail === null && x.items.length === 2 && head !== undefined && head.t === 'sym') {
      if (head.sym === UNQUOTE) {
        if (depth === 1) return this.norm(x.items[1]!, scope);
        return this.list2(head, this.quasi(x.items[1]!, depth - 1, scope), span);
      }
      if (head.sym === QUASIQUOTE) return this.list2(head, this.quasi(x.items[1]!, depth + 1, scope), span);
      if (head.sym === UNQUOTE_SPLICING && depth === 1) throw this.malformed(span, 'unquote-splicing outside a list');
    }
    // Walk items right to left over an accumulated tail.
    const items = x.items;
    let end = items.length;
    let acc: Core;
    // `(a . ,b)` reads as `(a unquote b)`: a trailing `unquote e` pair is the tail.
    if (x.tail === null && end >= 3 && isSym(items[end - 2]!, UNQUOTE)) {
      acc =
        depth === 1
          ? this.norm(items[end - 1]!, scope)
          : this.list2(items[end - 2] as SSym, this.quasi(items[end - 1]!, depth - 1, scope), span);
      end -= 2;
    } else acc = x.tail === null ? { k: 'quote', value: NIL, span } : this.quasi(x.tail, depth, scope);
    for (let i = end - 1; i >= 0; i--) {
      const item = items[i]!;
      if (depth === 1 && item.t === 'list' && item.tail === null && item.items.length === 2 && isSym(item.items[0]!, UNQUOTE_SPLICING)) {
        acc = this.app(this.intrinsic('append', item.span), [this.norm(item.items[1]!, scope), acc], item.span);
      } else {
        acc = this.app(this.intrinsic('cons', item.span), [this.quasi(item, depth, scope), acc], item.span);
      }
    }
    return acc;
  }

  private list2(head: SSym, second: Core, span: Span): Core {
    const cons = (a: Core, b: Core) => this.app(this.intrinsic('cons', span), [a, b], span);
    return cons({ k: 'quote', value: head.sym, span: head.span }, cons(second, { k: 'quote', value: NIL, span }));
  }
}

function isSym(s: Syntax, sym: Sym): boolean {
  return s.t === 'sym' && s.sym === sym;
}

function isForm(s: Syntax, head: Sym): boolean {
  return s.t === 'list' && s.items.length > 0 && isSym(s.items[0]!, head);
}

function containsUnquote(x: Syntax): boolean {
  if (x.t === 'sym') return x.sym === UNQUOTE || x.sym === UNQUOTE_SPLICING;
  if (x.t === 'vector') return x.items.some(containsUnquote);
  if (x.t === 'list') return x.items.some(containsUnquote) || (x.tail !== null && containsUnquote(x.tail));
  return false;
}
