// Corpus harness for the fresh AOT route: the generated differential corpus compiled by the
// topaz-compiler product and run against the built-in VM, compared on the court axes.
//
// A request to the server builds one program per request (one rustc run each, ~1 s); doing that
// 10,000 times takes hours. This harness instead hands the compiler a batch of derivations
// (`topaz-compiler --compile-batch`): each derivation is compiled by the same generator into its
// own module of one executable, and member K (`program --member K --run`) answers exactly as the
// one-request program would — same runtime rlib, same rustc flags, same product boundary
// (runProduct + the route's own validation into an observation). Only the number of rustc runs
// changes. Progress is printed per batch, so a partial run still reports.
//
//   node --import tsx bench/lispex-external/aot-corpus.ts [--programs 10000] [--batch 250] [--start 0] [--opt-level 2]

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildExternalRequest } from '../../engines/lispex/external/derivation.js';
import { runProduct } from '../../engines/lispex/external/product-process.js';
import { toMemberOutcome } from '../../engines/lispex/external/topaz-route.js';
import { runTopazMember } from '../../engines/lispex/external/topaz-route.js';
import { ProgramGenerator } from '../../test/engines/lispex/differential/generator.js';
import { casePrograms } from '../../test/engines/lispex/external/case-programs.js';
import { PRODUCTS_DIR, builtinObservation, mismatchAxes, pool, requireTopaz } from '../../test/engines/lispex/external/harness.js';

const args = process.argv.slice(2);
function option(name: string, fallback: number): number {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name} expects a non-negative integer`);
  return v;
}
const PROGRAMS = option('--programs', 10_000);
const BATCH = Math.max(1, option('--batch', 250));
const START = option('--start', 0);
// The request build uses opt-level 2; a lower level (--opt-level 0|1) builds the same generated
// code with less optimizing, for a feasible full run (the semantics do not depend on it).
const OPT = option('--opt-level', 2);
if (OPT > 2) throw new Error('--opt-level expects 0, 1 or 2');
const SEED = 20261130; // the corpus seed of test/engines/lispex/external and bench/lispex-external/corpus.ts
// --cases: the primitive case table (test/engines/lispex/external/case-programs.ts) instead of the
// generated corpus.
const CASES = args.includes('--cases') ? casePrograms().map((c) => c.program) : null;
const TOTAL = CASES !== null ? Math.min(PROGRAMS, CASES.length - START) : PROGRAMS;

const topaz = requireTopaz();
const compiler = join(PRODUCTS_DIR, 'topaz-compiler');
const rustc = readFileSync(join(PRODUCTS_DIR, 'topaz-runtime', 'RUSTC'), 'utf8').trim();

const started = performance.now();
let done = 0;
let mismatched = 0;
let buildMs = 0;
const axes = new Map<string, number>();
const statuses = new Map<string, number>();
const examples: string[] = [];

let accountMismatches = 0;
for (let first = START; first < START + TOTAL; first += BATCH) {
  const count = Math.min(BATCH, START + TOTAL - first);
  const sources = Array.from({ length: count }, (_, k) => CASES?.[first + k] ?? new ProgramGenerator(SEED + first + k).program());
  const requests = sources.map((s) => buildExternalRequest(s, undefined, 'source'));
  const workspace = mkdtempSync(join(tmpdir(), 'topaz-aot-corpus-'));
  try {
    const t0 = performance.now();
    const built = spawnSync(compiler, ['--compile-batch', workspace, '--rustc', rustc, '--opt-level', String(OPT)], {
      input: JSON.stringify(requests),
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    buildMs += performance.now() - t0;
    if (built.status !== 0) throw new Error(`batch at ${first}: compiler exited ${built.status}: ${built.stderr.slice(-2000)}`);
    const program = join(workspace, 'program');
    await pool(requests, 2, async (request, k) => {
      const t = performance.now();
      const outcome = await runProduct({
        executable: program,
        args: ['--member', String(k), '--run'],
        stdin: JSON.stringify(request),
        wallClockMs: 30_000,
        maxOutputBytes: 8 << 20,
      });
      const member = toMemberOutcome(outcome, request, performance.now() - t, 'fresh-aot');
      if (member.kind !== 'completed') throw new Error(`seed ${SEED + first + k}: ${member.message}`);
      // The account too (never a court axis): the fresh AOT product runs the Topaz VM's runtime
      // plus its fast path, so its transition count and call-depth high-water mark must be the
      // Topaz VM's exactly.
      const tz = await runTopazMember({ executable: topaz, request, wallClockMs: 30_000, maxOutputBytes: 8 << 20 });
      if (tz.kind !== 'completed') throw new Error(`seed ${SEED + first + k}: topaz-vm: ${tz.message}`);
      const [ta, aa] = [tz.observation, member.observation];
      if (
        ta.resource_outcome.usage.machine_transitions !== aa.resource_outcome.usage.machine_transitions ||
        ta.metrics.max_call_depth !== aa.metrics.max_call_depth
      ) {
        accountMismatches++;
        if (examples.length < 3) examples.push(sources[k]!);
      }
      const vm = builtinObservation(sources[k]!, 'vm');
      statuses.set(vm.status, (statuses.get(vm.status) ?? 0) + 1);
      const m = mismatchAxes(vm, member.observation);
      if (m.length > 0) {
        mismatched++;
        for (const a of m) axes.set(a, (axes.get(a) ?? 0) + 1);
        if (examples.length < 3) examples.push(sources[k]!);
      }
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  done += count;
  const elapsed = (performance.now() - started) / 1000;
  console.log(
    `programs ${first}..${first + count - 1}: ${done} done, ${mismatched} mismatches, ${accountMismatches} account mismatches, build ${(buildMs / 1000).toFixed(1)} s total, ${elapsed.toFixed(1)} s elapsed`,
  );
}
console.log(
  `fresh AOT ${CASES !== null ? 'primitive cases' : 'corpus'}: ${done} programs (${CASES !== null ? 'cases' : 'seeds'} ${CASES !== null ? START : SEED + START}..${(CASES !== null ? START : SEED + START) + done - 1}) in batches of ${BATCH} at opt-level ${OPT}, ${mismatched} mismatches ${JSON.stringify([...axes])}, ${accountMismatches} account mismatches vs the Topaz VM, statuses ${JSON.stringify([...statuses])}, ${((performance.now() - started) / 1000).toFixed(1)} s (rustc ${(buildMs / 1000).toFixed(1)} s)`,
);
for (const e of examples) console.log(`  e.g.\n${e}`);
