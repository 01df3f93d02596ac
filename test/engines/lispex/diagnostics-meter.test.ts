// Every row of the diagnostic catalog reached by a program (on both routes), the rendering rule,
// warnings in occurrence order, and each of the five meter axes exhausted with the README §8
// exhaustion semantics.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DIAGNOSTIC_CATALOG, EXHAUSTION_CODES, type MeterAxis } from '../../../engines/lispex/index.js';
import { both, run, ROUTES } from './helpers.js';

/** One program per catalog code (errors) — each must end with exactly that code. */
const ERROR_PROGRAMS: Record<string, string> = {
  E100: '(1 2',
  E110: '(define lambda 1)',
  E120: '#;(x) 1',
  E130: '(let ((x 1 2)) x)',
  E140: '(1 . 2 3)',
  E150: '"\\q"',
  E300: '(+ 1 nowhere)',
  E301: '(5 1)',
  E302: '((lambda (x) x) 1 2)',
  E303: '(set! never-defined 1)',
  E310: "(car '())",
  E311: '(vector-ref (vector 1 2) 2)',
  E312: '(+ 1 "a")',
  E313: '(quotient 1 0)',
  E314: '(* 1e200 1e200)',
  E320: '(+ (values 1 2) 1)',
  E321: '(letrec ((a b) (b 1)) a)',
  E330: '(error "custom failure" 1)',
  E331: "(raise 'object)",
  E332: '(with-exception-handler (lambda (e) 1) (lambda () (raise 2)))',
  E340: '(define k #f) (call/cc (lambda (c) (set! k c))) (k 1)',
  'recursion-limit': '(define (f n) (+ 1 (f n))) (f 0)',
};

describe('every catalog code is reached', () => {
  for (const [code, row] of DIAGNOSTIC_CATALOG) {
    if (row.severity === 'warning') continue;
    test(`${code} (${row.family})`, () => {
      const src = ERROR_PROGRAMS[code];
      assert.ok(src !== undefined, `no program for catalog code ${code}`);
      const o = both(src);
      assert.equal(o.diagnostics.length, 1);
      const d = o.diagnostics[0]!;
      assert.equal(d.code, code);
      assert.equal(o.exit_status, row.exit_status);
      const expectedPhase = row.phase === 'reader-or-normalizer' ? 'reader' : row.phase === 'reader-or-runtime' ? 'runtime' : row.phase;
      assert.equal(d.phase, expectedPhase);
      assert.equal(o.status, row.phase === 'resource' ? 'resource' : expectedPhase === 'runtime' ? 'runtime-error' : 'source-error');
      assert.match(d.rendered, new RegExp(`^${code} source:\\d+:\\d+ `));
      assert.equal(d.rendered, `${code} source:${d.line}:${d.column} ${d.message}${d.irritants.map((i) => ` ${i}`).join('')}`);
    });
  }

  test('E300 blames the first failing lookup in evaluation order', () => {
    const o = both('(define (f) (list 1\n  missing-a missing-b))\n(f)');
    assert.equal(o.diagnostics[0]!.rendered, 'E300 source:2:3 unbound variable missing-a');
  });

  test('E314 from the reader is a reader-phase source error', () => {
    const o = both('(display 1) 1e999');
    assert.equal(o.diagnostics[0]!.code, 'E314');
    assert.equal(o.diagnostics[0]!.phase, 'reader');
    assert.equal(o.status, 'source-error');
  });
});

describe('warnings', () => {
  test('W330 and W331 in occurrence order, no irritants, exit 0 (TOPLEVEL-VALUE-OUTPUT-1 L120-SDL-102 shape)', () => {
    const o = both('(% 7 3)\n(list-first \'(1 2))\n(list-rest \'(1 2))\n(display "done")\n(newline)');
    assert.equal(o.status, 'ok');
    assert.equal(o.exit_status, 0);
    assert.equal(o.stdout, 'done\n');
    assert.deepEqual(
      o.warnings.map((w) => w.code),
      ['W330', 'W331', 'W331'],
    );
    assert.deepEqual(
      o.warnings.map((w) => w.rendered),
      [
        `W330 source:1:1 ${o.warnings[0]!.message}`,
        `W331 source:2:1 ${o.warnings[1]!.message}`,
        `W331 source:3:1 ${o.warnings[2]!.message}`,
      ],
    );
  });

  test('warnings before a fault are kept', () => {
    const o = both('(% 9 4) (car 1)');
    assert.equal(o.status, 'runtime-error');
    assert.deepEqual(
      o.warnings.map((w) => w.code),
      ['W330'],
    );
  });
});

describe('meter exhaustion', () => {
  const tight = (axis: MeterAxis, limit: number) => ({
    limits: {
      'frontend-transition-limit': axis === 'frontend-transition' ? limit : 1_000_000,
      'token-limit': axis === 'token' ? limit : 1_000_000,
      'normalization-step-limit': axis === 'normalization-step' ? limit : 1_000_000,
      'machine-transition-limit': axis === 'machine-transition' ? limit : 1_000_000,
      'output-byte-limit': axis === 'output-byte' ? limit : 1_000_000,
    },
  });
  const usageField: Record<MeterAxis, keyof import('../../../engines/lispex/index.js').ResourceUsage> = {
    'frontend-transition': 'frontend_transitions',
    token: 'tokens',
    'normalization-step': 'normalization_steps',
    'machine-transition': 'machine_transitions',
    'output-byte': 'output_bytes',
  };
  const cases: [MeterAxis, number, string][] = [
    ['frontend-transition', 20, '(% 5 2) (display "a long enough source text")'],
    ['token', 6, '(% 5 2) (display (list 1 2 3 4 5 6))'],
    ['normalization-step', 4, '(% 5 2) (display (let* ((a 1) (b 2) (c 3)) (list a b c)))'],
    ['machine-transition', 5000, '(% 5 2) (display "partial") (define (spin) (spin)) (spin)'],
    ['output-byte', 10, '(% 5 2) (display "12345") (display "67890") (display "X")'],
  ];
  for (const [axis, limit, src] of cases) {
    for (const route of ROUTES) {
      test(`${route}: ${axis} limit ${limit}`, () => {
        const o = run(src, route, tight(axis, limit));
        assert.equal(o.status, 'resource');
        assert.equal(o.exit_status, 2);
        assert.equal(o.stdout, '');
        assert.equal(o.stdout_bytes, 0);
        assert.equal(o.interactive_stdout, '');
        assert.deepEqual(o.values, []);
        assert.equal(o.diagnostics.length, 1);
        assert.equal(o.diagnostics[0]!.phase, 'resource');
        assert.equal(o.diagnostics[0]!.code, EXHAUSTION_CODES[axis]);
        assert.equal(o.resource_outcome.status, 'limit-exceeded');
        assert.equal(o.resource_outcome.limit, axis);
        const used = o.resource_outcome.usage[usageField[axis]];
        assert.ok(used <= limit && used > 0, `usage ${used} of ${limit}`);
        // Earlier stages' work is reported; warnings admitted before exhaustion are kept.
        if (axis === 'machine-transition' || axis === 'output-byte') {
          assert.deepEqual(
            o.warnings.map((w) => w.code),
            ['W330'],
          );
          assert.ok(o.resource_outcome.usage.tokens > 0);
        }
      });
    }
  }

  test('output exactly at the limit is admitted; one byte over is denied atomically', () => {
    const at = both('(display "12345")', tight('output-byte', 5));
    assert.equal(at.status, 'ok');
    assert.equal(at.resource_outcome.usage.output_bytes, 5);
    const over = both('(display "12") (display "3456")', tight('output-byte', 5));
    assert.equal(over.status, 'resource');
    assert.equal(over.resource_outcome.usage.output_bytes, 2);
    const utf8 = both('(display "ééé")', tight('output-byte', 5));
    assert.equal(utf8.status, 'resource', 'three é are six UTF-8 bytes');
  });

  test('the routes agree on exhaustion: status, limit, limits (counters may differ)', () => {
    const src = '(define (spin n) (spin (+ n 1))) (spin 0)';
    const o = both(src, tight('machine-transition', 100_000));
    assert.equal(o.resource_outcome.limit, 'machine-transition');
  });

  test('the default profile stops a runaway loop on the machine-transition axis', () => {
    const o = run('(define (spin) (spin)) (spin)', 'vm');
    assert.equal(o.resource_outcome.limit, 'machine-transition');
    assert.equal(o.resource_outcome.usage.machine_transitions, o.resource_outcome.limits['machine-transition-limit']);
  });
});
