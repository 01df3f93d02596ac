// The whole R7RS-derived case corpus (test/fixtures/lispex-r7rs, README there) through the
// `rust-topaz` and `all-four` courts of `lispex_compare_routes`: each case must find its court's
// members in agreement and every member's observation equal to the case's expected outcome.
// Prints N/N per court and each failing case; exits 1 if any case fails. (CI runs a fixed
// sample: test/lispex-r7rs/courts-sample.test.ts.)
//
//   node scripts/build-products.mjs        # once: the Topaz VM, AOT compiler and runtime
//   node --import tsx bench/lispex-r7rs/corpus.ts [rust-topaz|all-four ...]
//
// LISPEX_R7RS_FILTER=<substring of a case id> runs only the matching cases.

import { pool } from '../../test/lispex-external/harness.js';
import { loadCorpus } from '../../test/lispex-r7rs/corpus.js';
import {
  type CaseVerdict,
  R7RS_COURTS,
  type R7rsCourt,
  describeVerdict,
  openCourtSession,
  runCase,
  verdictPasses,
} from '../../test/lispex-r7rs/courts.js';

const asked = process.argv.slice(2);
for (const a of asked) {
  if (!(R7RS_COURTS as readonly string[]).includes(a)) {
    console.error(`unknown court ${JSON.stringify(a)}; expected ${R7RS_COURTS.join(' or ')}`);
    process.exit(64);
  }
}
const courts = (asked.length > 0 ? asked : R7RS_COURTS) as R7rsCourt[];
const filter = process.env.LISPEX_R7RS_FILTER;
const cases = loadCorpus().filter((c) => filter === undefined || c.id.includes(filter));
const bySection = new Map<string, number>();
for (const c of cases) bySection.set(c.file, (bySection.get(c.file) ?? 0) + 1);
console.log(`${cases.length} cases: ${[...bySection].map(([f, n]) => `${f} ${n}`).join(', ')}`);

const session = await openCourtSession();
let failures = 0;
try {
  for (const court of courts) {
    const started = performance.now();
    const verdicts: CaseVerdict[] = await pool(cases, 2, (c) => runCase(session, court, c));
    const failed = verdicts.map((v, i) => [v, cases[i]!] as const).filter(([v]) => !verdictPasses(v));
    const disagreements = verdicts.filter((v) => !v.agreement).length;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${court}: ${cases.length - failed.length}/${cases.length} cases pass (members agree and match the expected outcome); ` +
        `${disagreements} with members disagreeing; ${seconds} s`,
    );
    for (const [v, c] of failed) console.log(describeVerdict(c, v));
    failures += failed.length;
  }
} finally {
  await session.close();
}
process.exit(failures === 0 ? 0 : 1);
