// The R7RS-derived corpus itself: every file parses, the corpus holds at least the 628 cases the
// issue's Done-when names, every case names an R7RS-small section and fits the MCP source bound,
// and the expectation checker rejects what it should (a wrong value, code, status, stdout or
// warning list) — so a passing court run means something.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FIXED_BOUNDS, utf8Length } from '../../../../adapters/lispex/bounds.js';
import { CorpusFormatError, type ObservedOutcome, expectationDiffs, loadCorpus, parseCases } from './corpus.js';

const ok = (printed: string[], stdout = '', warnings: string[] = []): ObservedOutcome => ({
  status: 'ok',
  values: printed.map((p) => ({ printed: p })),
  stdout: { text: stdout },
  diagnostics: [],
  warnings: warnings.map((code) => ({ code })),
});
const failed = (status: string, code: string, stdout = ''): ObservedOutcome => ({
  status,
  values: [],
  stdout: { text: stdout },
  diagnostics: [{ code }],
  warnings: [],
});

describe('R7RS corpus', () => {
  const cases = loadCorpus();

  test('at least 628 cases, unique ids, each with a section, a program and an expectation', () => {
    assert.ok(cases.length >= 628, `${cases.length} cases`);
    assert.equal(new Set(cases.map((c) => c.id)).size, cases.length);
    for (const c of cases) {
      assert.match(c.section, /^[2-7](\.\d+)*$/, `${c.id}: R7RS-small section`);
      assert.ok(c.program.length > 0, c.id);
      assert.ok(utf8Length(c.program) <= FIXED_BOUNDS.sourceBytes, `${c.id} fits the source bound`);
      const e = c.expect;
      assert.ok(e.values !== undefined || e.error !== undefined || e.stdout !== undefined, `${c.id} expects something`);
    }
  });

  test('the cases of issue 24 are in it', () => {
    const programs = cases.map((c) => c.program);
    assert.ok(programs.includes('(equal? "s" (string-foldcase "ſ"))'));
    assert.ok(programs.includes('(char-foldcase #\\ſ)'));
  });

  test('the checker accepts the expected outcome and names every difference', () => {
    const [c] = parseCases('t', '== §6.2.6 x\n(+ 1 2)\n=> 3\n');
    assert.deepEqual(expectationDiffs(c!, ok(['3'])), []);
    assert.deepEqual(expectationDiffs(c!, ok(['4'])), ['expected => 3, got => 4']);
    assert.deepEqual(expectationDiffs(c!, ok(['3'], 'x')), [], 'stdout is not checked unless the case names it');
    assert.deepEqual(expectationDiffs(c!, ok(['3'], '', ['W330'])), ['expected warnings [], got [W330]']);
    assert.deepEqual(expectationDiffs(c!, failed('runtime-error', 'E312')), ['expected ok, got runtime-error E312']);

    const [multi] = parseCases('t', '== §6.10 v\n(values 1 2)\n=> 1 2\n');
    assert.deepEqual(expectationDiffs(multi!, ok(['1', '2'])), []);
    const [none] = parseCases('t', '== §6.10 v\n(values)\n=>\n');
    assert.deepEqual(expectationDiffs(none!, ok([])), []);
    assert.deepEqual(expectationDiffs(none!, ok(['1'])), ['expected => , got => 1']);

    const [err] = parseCases('t', '== §6.4 e\n(display "a")\n(car 1)\nout: "a"\nerror: E310\n');
    assert.deepEqual(expectationDiffs(err!, failed('runtime-error', 'E310', 'a')), []);
    assert.deepEqual(expectationDiffs(err!, failed('runtime-error', 'E310', '')), ['expected stdout "a", got ""']);
    assert.deepEqual(expectationDiffs(err!, failed('runtime-error', 'E312', 'a')), ['expected runtime-error E310, got runtime-error E312']);
    const [reader] = parseCases('t', '== §6.2.5 r\n+inf.0\nerror: E314 source-error\n');
    assert.deepEqual(expectationDiffs(reader!, failed('source-error', 'E314')), []);
    assert.deepEqual(expectationDiffs(reader!, failed('runtime-error', 'E314')), ['expected source-error E314, got runtime-error E314']);
    const [limit] = parseCases('t', '== §3.5 l\n(f)\nerror: recursion-limit\n');
    assert.deepEqual(expectationDiffs(limit!, failed('resource', 'recursion-limit')), []);
  });

  test('format errors name the file, the line and what was expected', () => {
    assert.throws(
      () => parseCases('bad', '(+ 1 2)\n=> 3\n'),
      (e: unknown) => {
        assert.ok(e instanceof CorpusFormatError);
        assert.match(e.message, /^bad\.cases:1: expected a case header/);
        return true;
      },
    );
    assert.throws(() => parseCases('bad', '== §1 x\n(+ 1 2)\n'), /bad\.cases:1: case has no expectation line/);
    assert.throws(() => parseCases('bad', '== §1 x\n1\nout: abc\n'), /bad\.cases:3: out: needs a JSON string literal/);
    assert.throws(() => parseCases('bad', '== §1 x\n1\nerror: E300 broken\n'), /bad\.cases:3: error: needs a code/);
    assert.throws(() => parseCases('bad', '== §1 x\n1\n=> 1\nerror: E300\n'), /either values or an error/);
  });
});
