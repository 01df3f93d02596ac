// The whole R7RS-derived case corpus (test/fixtures/lispex-r7rs, README there) through the
// `rust-topaz` and `all-four` courts of `lispex_compare_routes`: each case must find its court's
// members in agreement and every member's observation equal to the case's expected outcome.
// Prints N/N per court and each failing case; exits 1 if any case fails. (CI runs a fixed
// sample: test/engines/lispex/r7rs/courts-sample.test.ts.)
//
//   node scripts/build-products.mjs        # once: the Topaz VM, AOT compiler and runtime
//   node --import tsx bench/lispex-r7rs/corpus.ts [rust-topaz|all-four ...]
//
// LISPEX_R7RS_FILTER=<substring of a case id> runs only the matching cases;
// LISPEX_R7RS_SHARD=k/n only every n-th of them (see below).

import { pool } from '../../test/engines/lispex/external/harness.js';
import { loadCorpus } from '../../test/engines/lispex/r7rs/corpus.js';
import {
  type CaseVerdict,
  R7RS_COURTS,
  type R7rsCourt,
  describeVerdict,
  openCourtSession,
  runCase,
  verdictPasses,
} from '../../test/engines/lispex/r7rs/courts.js';

const asked = process.argv.slice(2);
for (const a of asked) {
  if (!(R7RS_COURTS as readonly string[]).includes(a)) {
    console.error(`unknown court ${JSON.stringify(a)}; expected ${R7RS_COURTS.join(' or ')}`);
    process.exit(64);
  }
}
const courts = (asked.length > 0 ? asked : R7RS_COURTS) as R7rsCourt[];
const filter = process.env.LISPEX_R7RS_FILTER;
// LISPEX_R7RS_SHARD=k/n runs every n-th case starting at k (0-based): n processes side by side
// cover the corpus once (an all-four case builds a fresh AOT product, seconds under load).
const shard = /^(\d+)\/(\d+)$/.exec(process.env.LISPEX_R7RS_SHARD ?? '0/1');
if (shard === null || Number(shard[1]) >= Number(shard[2])) {
  console.error(`LISPEX_R7RS_SHARD must be k/n with 0 <= k < n, got ${JSON.stringify(process.env.LISPEX_R7RS_SHARD)}`);
  process.exit(64);
}
const [shardIndex, shardCount] = [Number(shard[1]), Number(shard[2])];
const cases = loadCorpus()
  .filter((c) => filter === undefined || c.id.includes(filter))
  .filter((_, i) => i % shardCount === shardIndex);
const bySection = new Map<string, number>();
for (const c of cases) bySection.set(c.file, (bySection.get(c.file) ?? 0) + 1);
console.log(`${cases.length} cases: ${[...bySection].map(([f, n]) => `${f} ${n}`).join(', ')}`);

const session = await openCourtSession();
let failures = 0;
try {
  for (const court of courts) {
    const started = performance.now();
    let done = 0;
    const verdicts: CaseVerdict[] = await pool(cases, 2, async (c) => {
      const v = await runCase(session, court, c);
      if (++done % 50 === 0) console.log(`  ${court}: ${done}/${cases.length} run, ${((performance.now() - started) / 1000).toFixed(0)} s`);
      return v;
    });
    // A member stopped by the 5,000 ms evaluation wall clock gives no answer at all (an
    // infrastructure-error, never a verdict on the case); on this shared machine that happens
    // under load. Such cases run once more, one at a time, and are counted in the summary.
    let rerun = 0;
    for (let i = 0; i < verdicts.length; i++) {
      if (verdicts[i]!.toolError?.includes('"wall-clock-exceeded"')) {
        rerun++;
        verdicts[i] = await runCase(session, court, cases[i]!);
      }
    }
    const failed = verdicts.map((v, i) => [v, cases[i]!] as const).filter(([v]) => !verdictPasses(v));
    const disagreements = verdicts.filter((v) => !v.agreement).length;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${court}: ${cases.length - failed.length}/${cases.length} cases pass (members agree and match the expected outcome); ` +
        `${disagreements} with members disagreeing; ${rerun} run again alone after a wall-clock stop; ${seconds} s`,
    );
    for (const [v, c] of failed) console.log(describeVerdict(c, v));
    failures += failed.length;
  }
} finally {
  await session.close();
}
process.exit(failures === 0 ? 0 : 1);
