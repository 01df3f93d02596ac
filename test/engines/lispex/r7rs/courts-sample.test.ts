// A fixed sample of the R7RS-derived corpus through the real courts of lispex_compare_routes
// (official SDK client, worker host, the built Topaz VM and fresh AOT products): every sampled
// case must find the court's members in agreement and each member's observation equal to the
// case's expectation. The whole corpus on both courts is bench/lispex-r7rs/corpus.ts.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type R7rsCase, loadCorpus } from './corpus.js';
import { type CourtSession, describeVerdict, openCourtSession, runCase, verdictPasses } from './courts.js';

/**
 * Every `stride`-th case, plus the cases named by program (issue 24's, the cycle labels). The
 * tail-call file is left to the bench: its 300,000-iteration loops take seconds of the built-in
 * VM's 5,000 ms wall clock, and on a loaded machine a run can hit it (no answer, a failed test
 * that says nothing about the case).
 */
function sample(cases: readonly R7rsCase[], stride: number, named: readonly string[]): R7rsCase[] {
  const picked = cases.filter((c, i) => (i % stride === 0 && c.file !== '16-tail-calls.cases') || named.includes(c.program));
  for (const p of named)
    assert.ok(
      picked.some((c) => c.program === p),
      `sample names a case the corpus lacks: ${p}`,
    );
  return picked;
}

const NAMED = [
  '(equal? "s" (string-foldcase "ſ"))',
  '(char-foldcase #\\ſ)',
  '(string-upcase "Straße")',
  '(string-downcase "ΟΔΟΣ ΟΔΟΣ.")',
  '(define a (vector 1))\n(define b (vector 2))\n(vector-set! a 0 a)\n(vector-set! b 0 b)\n(list a b)',
];

describe('R7RS corpus sample through the courts', { timeout: 900_000 }, () => {
  const cases = loadCorpus();
  let session: CourtSession;
  before(async () => {
    session = await openCourtSession();
  });
  after(() => session.close());

  const check = async (court: 'rust-topaz' | 'all-four', picked: readonly R7rsCase[]) => {
    const failures: string[] = [];
    for (const c of picked) {
      const v = await runCase(session, court, c);
      if (!verdictPasses(v)) failures.push(describeVerdict(c, v));
    }
    assert.deepEqual(failures, [], failures.join('\n'));
  };

  test('rust-topaz: every 20th case and the named ones', async () => {
    const picked = sample(cases, 20, NAMED);
    assert.ok(picked.length >= 45);
    await check('rust-topaz', picked);
  });

  test('all-four: every 100th case and the named ones (one fresh AOT build per case)', async () => {
    const picked = sample(cases, 100, NAMED);
    assert.ok(picked.length >= 12);
    await check('all-four', picked);
  });
});
