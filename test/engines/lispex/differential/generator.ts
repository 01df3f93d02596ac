// A seeded generator of random Lispex programs for the differential test. Four kinds, by seed:
//   - well-typed (47 %): built by construction from typed pieces (numeric expressions over
//     numeric variables, procedures over numbers, list and vector pipelines of numbers), so
//     they normally succeed and exercise the value paths end to end;
//   - free-form (47 %): arithmetic (fixnums, bignums, rationals, reals), lists, strings,
//     closures, loops, control (call/cc, guard, raise, handlers, dynamic-wind, multiple values)
//     and errors, many of which fail on purpose — both routes must agree on faults too;
//   - resource-limit (1 %: each costs ~100 ms): a program that reaches a limit (non-tail
//     depth, output bytes);
//   - reader-error (5 %): a free-form program damaged so the reader rejects it.
// Programs always terminate (loops and recursion are bounded by small literal counters).
// Strings and characters are not only ASCII: both kinds draw from UNICODE_STRINGS/UNICODE_CHARS
// (combining marks, astral scalars, the special casings ß İ ﬃ ᾀ, final sigma, ſ, Cherokee,
// titlecase, non-ASCII digits and spaces), and well-typed programs write the results of the case
// procedures, -ci comparisons and character predicates on them (textForm).

/** Non-ASCII string literals (source text; some spell their scalars with \x…; escapes). */
export const UNICODE_STRINGS: readonly string[] = [
  '"Straße"',
  '"STRASSE"',
  '"ΟΔΟΣ ΟΔΟΣ."',
  '"ὈΔΥΣΣΕΎΣ"',
  '"ſtraſſe"',
  '"İstanbul"',
  '"ﬃ ﬆ"',
  '"ᾀᾳῼ"',
  '"e\u0301o\u0308"',
  '"\\x1F600;a"',
  '"😀𐐨𐐀"',
  '"Ꭰꭰᏸ"',
  '"ǅǆǄ"',
  '"ŉ"',
  '"և"',
  '"a\\x85;b\u3000c"',
  '"Ⅷ٣४"',
  '"ა Ა"',
  '"ΣΑ\u0345Σ"',
  '"K\u212aÅ"',
  '"\\xe000;\\x378;\\xad;"',
];

/** Non-ASCII character literals. */
export const UNICODE_CHARS: readonly string[] = [
  '#\\ß',
  '#\\x17f',
  '#\\x130',
  '#\\x131',
  '#\\x3a3',
  '#\\x3c2',
  '#\\x301',
  '#\\x345',
  '#\\x1F600',
  '#\\x10428',
  '#\\x10400',
  '#\\xab70',
  '#\\x13f8',
  '#\\x1f80',
  '#\\x1c5',
  '#\\x2167',
  '#\\x663',
  '#\\x3000',
  '#\\x85',
  '#\\x212a',
  '#\\x1e9e',
  '#\\é',
  '#\\Ω',
  '#\\x10ffff',
];

/** mulberry32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class ProgramGenerator {
  private readonly r: () => number;
  private fresh = 0;
  /** While generating a well-typed program: numeric leaves are numbers or numeric variables only. */
  private numericOnly = false;
  constructor(seed: number) {
    this.r = rng(seed);
  }

  private int(n: number): number {
    return Math.floor(this.r() * n);
  }
  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  private chance(p: number): boolean {
    return this.r() < p;
  }
  private name(prefix: string): string {
    return `${prefix}${this.fresh++}`;
  }

  /** A whole program of one of the four kinds (see the header). */
  program(): string {
    this.fresh = 0;
    const kind = this.r();
    if (kind < 0.47) return this.typedProgram();
    if (kind < 0.94) return this.freeProgram();
    if (kind < 0.95) return this.resourceProgram();
    return this.readerErrorProgram();
  }

  /** Well-typed by construction: every piece produces the type its consumer needs. */
  typedProgram(): string {
    this.numericOnly = true;
    try {
      return this.typedForms();
    } finally {
      this.numericOnly = false;
    }
  }

  private typedForms(): string {
    const forms: string[] = [];
    const procs: Array<{ name: string; arity: number }> = [];
    const numVars: string[] = [];
    const n = 2 + this.int(4);
    for (let i = 0; i < n; i++) {
      const k = this.int(9);
      const call = (): string => {
        const p = this.pick(procs);
        return `(${p.name}${Array.from({ length: p.arity }, () => ` ${this.num(1, numVars)}`).join('')})`;
      };
      if (k < 2) {
        const f = this.name('tf');
        const params = Array.from({ length: 1 + this.int(2) }, () => this.name('p'));
        forms.push(`(define (${f} ${params.join(' ')}) ${this.num(3, [...params, ...numVars])})`);
        procs.push({ name: f, arity: params.length });
        forms.push(call());
      } else if (k < 3) {
        const g = this.name('tg');
        forms.push(`(define ${g} ${this.num(2, numVars)})`);
        numVars.push(g);
        // Assigning a global (never a primitive) keeps it a number.
        if (this.chance(0.5)) forms.push(`(set! ${g} (+ ${g} ${this.num(1, numVars)}))`);
      } else if (k < 4 && procs.length > 0) {
        forms.push(`(display ${call()})`);
      } else if (k < 5) {
        const x = this.name('x');
        const list = `(list ${this.num(1, numVars)} ${this.num(1, numVars)} ${this.num(1, numVars)})`;
        forms.push(
          this.pick([
            `(map (lambda (${x}) ${this.num(2, [x, ...numVars])}) ${list})`,
            `(fold-left + 0 (map (lambda (${x}) (* ${x} ${x})) ${list}))`,
            `(length (append ${list} (reverse ${list})))`,
            `(apply max ${list})`,
            `(let loop ((l ${list}) (acc 0)) (if (null? l) acc (loop (cdr l) (+ acc (car l)))))`,
            `(let loop ((l ${list}) (n 0)) (if (not (pair? l)) n (loop (cdr l) (+ n 1))))`,
          ]),
        );
      } else if (k < 6) {
        const v = this.name('vec');
        forms.push(`(define ${v} (make-vector 3 ${this.num(1, numVars)}))`);
        forms.push(`(vector-set! ${v} ${this.int(3)} ${this.num(1, numVars)})`);
        forms.push(`(vector->list ${v})`);
      } else if (k < 7) {
        if (this.chance(0.6)) forms.push(this.textForm());
        else forms.push(`(string-append "n=" (number->string ${this.pick(['7', '42', '-3', '1/3', '2.5'])}) "!")`);
      } else if (k < 8) {
        const a = this.name('a');
        forms.push(`(call-with-values (lambda () (values ${this.num(1, numVars)} ${this.num(1, numVars)})) (lambda (${a} b) (- ${a} b)))`);
      } else {
        forms.push(this.chance(0.5) ? `(not (zero? ${this.num(2, numVars)}))` : this.num(3, numVars));
      }
    }
    return forms.join('\n');
  }

  /** A string expression over the Unicode literals (never empty, so string-ref 0 is safe). */
  private textString(d: number): string {
    if (d <= 0 || this.chance(0.5)) return this.pick(UNICODE_STRINGS);
    const t = () => this.textString(d - 1);
    switch (this.int(6)) {
      case 0:
        return `(string-append ${t()} ${t()})`;
      case 1:
        return `(${this.pick(['string-upcase', 'string-downcase', 'string-foldcase'])} ${t()})`;
      case 2:
        return `(list->string (list ${this.textChar(d - 1)} ${this.textChar(d - 1)}))`;
      case 3:
        return `(string-map ${this.pick(['char-upcase', 'char-downcase', 'char-foldcase'])} ${t()})`;
      case 4:
        return `(substring ${t()} 0 1)`;
      default:
        return `(symbol->string (string->symbol ${t()}))`;
    }
  }

  /** A character expression over the Unicode literals. */
  private textChar(d: number): string {
    if (d <= 0 || this.chance(0.5)) return this.pick(UNICODE_CHARS);
    switch (this.int(3)) {
      case 0:
        return `(string-ref ${this.textString(d - 1)} 0)`;
      case 1:
        return `(${this.pick(['char-upcase', 'char-downcase', 'char-foldcase'])} ${this.textChar(d - 1)})`;
      default:
        return `(integer->char ${this.pick(['#xdf', '#x3a3', '#x1f88', '#x1e900', '#xfb03', '#x10d0', '#x1c90', '#x2c00', '#xa7c0', '#x16e40'])})`;
    }
  }

  /** A written result of the case procedures, -ci comparisons or predicates on non-ASCII text. */
  private textForm(): string {
    const s = () => this.textString(2);
    const c = () => this.textChar(2);
    const cmp = (kind: string) =>
      `(${kind}${this.pick(['=', '<', '<=', '>', '>='])}? ${kind === 'string-ci' ? `${s()} ${s()}` : `${c()} ${c()}`})`;
    const form = this.pick([
      () => `(list (string-upcase ${s()}) (string-downcase ${s()}) (string-foldcase ${s()}))`,
      () => `(let ((t ${s()})) (list t (string-length (string-upcase t)) (string-foldcase t) (string->list (string-downcase t))))`,
      () => cmp('string-ci'),
      () => cmp('char-ci'),
      () => `(string-ci=? ${s()} (string-upcase ${s()}))`,
      () =>
        `(let ((c ${c()})) (list c (char-upcase c) (char-downcase c) (char-foldcase c) (char-alphabetic? c) (char-numeric? c) (char-whitespace? c) (char-upper-case? c) (char-lower-case? c) (char->integer c)))`,
      () => `(map char-foldcase (string->list ${s()}))`,
      () => `(string->symbol ${s()})`,
      () => `(list (string<? ${s()} ${s()}) (equal? (string-foldcase ${s()}) (string-foldcase ${s()})))`,
    ]);
    return `(write ${form()})`;
  }

  /** A program that reaches a resource limit (both routes must agree on which, and where). */
  resourceProgram(): string {
    const f = this.name('deep');
    switch (this.int(3)) {
      case 0:
        // Non-tail depth past CALL_DEPTH_LIMIT (100,000): recursion-limit.
        return `(define (${f} n) (+ 1 (${f} (+ n 1))))\n(display "start")\n(${f} 0)`;
      case 1:
        // More than the 1 MiB of output the profile allows.
        return `(display (make-string 600000 #\\a))\n(display (make-string 600000 #\\b))`;
      default:
        // Output growing in a loop until the output limit stops it.
        return `(let loop ((i 0)) (display "0123456789abcdef") (loop (+ i 1)))`;
    }
  }

  /** A free-form program damaged so that the reader rejects it. */
  readerErrorProgram(): string {
    const good = this.freeProgram();
    switch (this.int(5)) {
      case 0:
        return `${good}\n(display (+ 1 2)`;
      case 1:
        return `${good}\n)`;
      case 2:
        return `${good}\n(display "unterminated)`;
      case 3:
        return `(display 1)\n#q\n${good}`;
      default:
        return `${good}\n(list 1 . 2 3)`;
    }
  }

  /** A free-form program: a few definitions and expressions, some with output. */
  freeProgram(): string {
    const forms: string[] = [];
    const globals: string[] = [];
    const n = 1 + this.int(4);
    for (let i = 0; i < n; i++) {
      const k = this.int(10);
      if (k < 3) {
        const f = this.name('f');
        const params = Array.from({ length: this.int(3) }, () => this.name('p'));
        forms.push(`(define (${f}${params.map((p) => ` ${p}`).join('')}) ${this.expr(3, [...params, ...globals])})`);
        const args = params.map(() => this.expr(1, globals)).join(' ');
        forms.push(`(${f}${args ? ` ${args}` : ''})`);
        globals.push(f);
      } else if (k < 4) {
        const g = this.name('g');
        forms.push(`(define ${g} ${this.expr(2, globals)})`);
        globals.push(g);
      } else if (k < 5) {
        forms.push(this.recursiveDefinition(globals));
      } else if (k < 7) {
        forms.push(`(display ${this.expr(2, globals)})`);
      } else {
        forms.push(this.expr(4, globals));
      }
    }
    return forms.join('\n');
  }

  private recursiveDefinition(globals: string[]): string {
    const f = this.name('rec');
    const n = this.name('n');
    const body = this.pick([
      `(if (<= ${n} 0) ${this.expr(1, globals)} (+ 1 (${f} (- ${n} 1))))`,
      `(if (<= ${n} 0) '() (cons ${n} (${f} (- ${n} 1))))`,
      `(if (<= ${n} 0) 0 (${f} (- ${n} 1)))`,
      `(cond ((= ${n} 0) 1) (else (* ${n} (${f} (- ${n} 1)))))`,
    ]);
    globals.push(f);
    return `(define (${f} ${n}) ${body})\n(${f} ${this.int(25)})`;
  }

  private literal(): string {
    switch (this.int(14)) {
      case 0:
        return String(this.int(10) - 3);
      case 1:
        return String(this.int(1000));
      case 2:
        return this.pick(['9007199254740993', '-123456789012345678901234567890', '4611686018427387904']);
      case 3:
        return this.pick(['1/3', '-2/7', '6/4', '1/2']);
      case 4:
        return this.pick(['1.5', '-0.25', '2.0', '1e3', '0.1']);
      case 5:
        return this.pick(['#t', '#f']);
      case 6:
        return this.chance(0.5) ? this.pick(['"ab"', '"hello world"', '""', '"x\\ny"', '"é"']) : this.pick(UNICODE_STRINGS);
      case 7:
        return this.chance(0.5) ? this.pick(['#\\a', '#\\space', '#\\Z', '#\\x41']) : this.pick(UNICODE_CHARS);
      case 8:
        return this.pick(["'(1 2 3)", "'()", "'(a b . c)", "'(1 (2 3) #(4))"]);
      case 9:
        return this.pick(["'sym", "'x", "'|odd sym|"]);
      case 10:
        return this.pick(['#(1 2 3)', '#()', '#u8(1 2 255)']);
      default:
        return String(this.int(20));
    }
  }

  /** A mostly numeric expression (so arithmetic usually succeeds). */
  num(d: number, vars: readonly string[]): string {
    if (d <= 0 || this.chance(0.4)) {
      if (this.numericOnly) {
        if (vars.length > 0 && this.chance(0.4)) return this.pick(vars);
        return this.pick([String(this.int(10) - 3), String(this.int(1000)), '1/3', '2.5', '9007199254740993', '-7']);
      }
      if (this.chance(0.9)) return this.pick([String(this.int(10) - 3), String(this.int(1000)), '1/3', '2.5', '9007199254740993', '-7']);
      return this.expr(0, vars);
    }
    const a = this.num(d - 1, vars);
    const b = this.num(d - 1, vars);
    switch (this.int(6)) {
      case 0:
        return `(+ ${a} ${b})`;
      case 1:
        return `(- ${a} ${b})`;
      case 2:
        return `(* ${a} ${b})`;
      case 3:
        return `(if (${this.pick(['<', '>', '<=', '>=', '='])} ${a} ${b}) ${a} ${b})`;
      case 4:
        return `(let ((q ${a})) (* q q))`;
      default:
        return `(apply + (list ${a} ${b}))`;
    }
  }

  /** An expression of nesting budget `d` over variables `vars`. */
  expr(d: number, vars: readonly string[]): string {
    if (d <= 0 || this.chance(0.2)) {
      if (vars.length > 0 && this.chance(0.5)) return this.pick(vars);
      if (this.chance(0.01)) return 'unbound-variable';
      return this.chance(0.5) ? this.num(0, vars) : this.literal();
    }
    const e = (dd = d - 1) => this.expr(dd, vars);
    const n = () => this.num(d - 1, vars);
    const k = this.int(50);
    switch (k) {
      case 0:
      case 1:
      case 2:
        return `(${this.pick(['+', '-', '*'])} ${n()} ${n()})`;
      case 3:
        return `(${this.pick(['<', '>', '=', '<=', '>='])} ${n()} ${n()})`;
      case 4:
        return `(${this.pick(['quotient', 'remainder', 'modulo', '/'])} ${n()} ${this.pick(['0', '3', '-2', n(), n()])})`;
      case 5:
        return `(${this.pick(['car', 'cdr', 'length', 'reverse', 'null?', 'pair?', 'list?'])} ${e()})`;
      case 6:
        return `(cons ${e()} ${e()})`;
      case 7:
        return `(list ${e()} ${e()} ${e()})`;
      case 8:
        return `(append ${e()} ${e()})`;
      case 9:
        return `(if ${e()} ${e()} ${e()})`;
      case 10:
        return this.chance(0.3) ? `(if ${e()} ${e()})` : `(if (${this.pick(['pair?', 'number?', 'string?'])} ${e()}) ${e()} ${e()})`;
      case 11: {
        const v = this.name('v');
        const w = this.name('w');
        return `(let ((${v} ${e()}) (${w} ${e()})) ${this.expr(d - 1, [...vars, v, w])})`;
      }
      case 12: {
        const v = this.name('v');
        const w = this.name('w');
        return `(let* ((${v} ${e()}) (${w} ${this.expr(d - 1, [...vars, v])})) ${this.expr(d - 1, [...vars, v, w])})`;
      }
      case 13: {
        const f = this.name('lf');
        const x = this.name('x');
        return `(letrec ((${f} (lambda (${x}) (if (< ${x} 1) ${e()} (${f} (- ${x} 1)))))) (${f} ${this.int(6)}))`;
      }
      case 14: {
        const x = this.name('x');
        const y = this.name('y');
        return `((lambda (${x} ${y}) ${this.expr(d - 1, [...vars, x, y])}) ${e()} ${e()})`;
      }
      case 15: {
        const loop = this.name('loop');
        const i = this.name('i');
        const acc = this.name('acc');
        return `(let ${loop} ((${i} 0) (${acc} ${e()})) (if (< ${i} ${this.int(8)}) (${loop} (+ ${i} 1) ${this.expr(d - 1, [...vars, i, acc])}) ${acc}))`;
      }
      case 16: {
        const i = this.name('i');
        const acc = this.name('acc');
        return `(do ((${i} 0 (+ ${i} 1)) (${acc} '() (cons ${i} ${acc}))) ((= ${i} ${this.int(5)}) ${acc}) ${e()})`;
      }
      case 17:
        return `(cond (${e()} ${e()}) (${e()} => ${this.pick(['list', 'car', '(lambda (q) q)'])}) (else ${e()}))`;
      case 18:
        return `(case ${e()} ((1 2 3) ${e()}) ((a b) ${e()}) (else ${e()}))`;
      case 19:
        return `(${this.pick(['and', 'or'])} ${e()} ${e()} ${e()})`;
      case 20:
        return `(${this.pick(['when', 'unless'])} ${e()} ${e()})`;
      case 46:
      case 47:
      case 48:
      case 49:
        return n();
      case 21: {
        const k2 = this.name('k');
        return `(call/cc (lambda (${k2}) ${this.pick([`(+ 1 (${k2} ${e()}))`, e(), `(begin (${k2} ${e()}) ${e()})`])}))`;
      }
      case 22: {
        const c = this.name('c');
        return `(guard (${c} ((symbol? ${c}) (list 'sym ${c})) ((string? ${c}) ${c}) ((error-object? ${c}) (error-object-message ${c}))) ${this.pick([`(raise ${e()})`, e(), `(error "bad" ${e()})`, `(car ${e()})`])})`;
      }
      case 23: {
        const c = this.name('c');
        return `(guard (${c} (#t (list 'caught ${c}))) ${e()})`;
      }
      case 24: {
        const c = this.name('c');
        return `(with-exception-handler (lambda (${c}) ${this.pick([e(), c])}) (lambda () (+ 1 (raise-continuable ${e()}))))`;
      }
      case 25: {
        const c = this.name('c');
        return `(with-exception-handler (lambda (${c}) ${e()}) (lambda () ${this.pick([`(raise ${e()})`, e()])}))`;
      }
      case 26:
        return `(dynamic-wind (lambda () (display "[")) (lambda () ${e()}) (lambda () (display "]")))`;
      case 27: {
        const a = this.name('a');
        const b = this.name('b');
        return `(call-with-values (lambda () (values ${e()} ${e()})) (lambda (${a} ${b}) ${this.expr(d - 1, [...vars, a, b])}))`;
      }
      case 28:
        return `(values ${e()} ${e()})`;
      case 29:
        return `(error "generated error" ${e()})`;
      case 30:
        return `(apply ${this.pick(['+', 'list', 'max', '*'])} ${e()} (list ${e()} ${e()}))`;
      case 31: {
        const x = this.name('x');
        return `(map (lambda (${x}) ${this.expr(d - 1, [...vars, x])}) ${this.pick(["'(1 2 3)", e()])})`;
      }
      case 32: {
        const x = this.name('x');
        return `(for-each (lambda (${x}) (display ${x})) ${this.pick(["'(1 2 3)", e()])})`;
      }
      case 33:
        return `(begin (${this.pick(['display', 'write'])} ${e()}) ${e()})`;
      case 34:
        return `(vector-ref (vector ${e()} ${e()}) ${this.pick(['0', '1', '2', e()])})`;
      case 35:
        return `(${this.pick(['string-append', 'string<?', 'string=?', 'string-ci=?', 'string-ci<?', 'char-ci=?', 'char-ci>?'])} ${this.pick(['"a"', e()])} ${this.pick(['"b"', e()])})`;
      case 36:
        return `(${this.pick(['number->string', 'exact->inexact', 'abs', 'exact', 'square', 'zero?', 'even?'])} ${e()})`;
      case 37:
        return `\`(a ,${e()} ,@${this.pick(['(list 1 2)', e()])} . end)`;
      case 38: {
        const v = this.name('v');
        return `(let ((${v} ${e()})) (set! ${v} ${e()}) ${v})`;
      }
      case 39:
        return this.chance(0.3) ? `(not ${e()})` : `(${this.pick(['eq?', 'eqv?', 'equal?'])} ${e()} ${e()})`;
      case 40: {
        const f = this.name('cl');
        const x = this.name('x');
        return `(let ((${f} (let ((${x} ${e()})) (lambda () ${x})))) (${f}))`;
      }
      case 41:
        // expt only with a small literal exponent: a computed exponent can ask for a
        // million-digit rational, which is slow in any engine and tests nothing more.
        return this.chance(0.25)
          ? `(expt ${e()} ${this.pick(['2', '3', '-1', '0'])})`
          : `(${this.pick(['max', 'min', 'gcd'])} ${e()} ${this.pick(['2', e()])})`;
      case 42:
        return `(${this.pick([
          'symbol->string',
          'string->symbol',
          'string-length',
          'string->list',
          'list->string',
          'string-upcase',
          'string-downcase',
          'string-foldcase',
          'char-upcase',
          'char-foldcase',
          'char-alphabetic?',
          'char-whitespace?',
        ])} ${e()})`;
      case 43:
        return `(${this.pick(['%', 'list-first', 'list-rest'])} ${e()}${this.chance(0.5) ? ` ${e()}` : ''})`;
      case 44: {
        const x = this.name('x');
        return `(fold-left (lambda (${x} y) (+ ${x} y)) 0 ${this.pick(["'(1 2 3)", e()])})`;
      }
      case 45:
        return `(${this.pick(['vector', 'list'])} ${e()} ${this.pick(['(values)', '(values 1 2)', e()])} ${e()})`;
      default:
        return n();
    }
  }
}
