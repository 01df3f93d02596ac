// Fresh AOT: build time per request (a fresh workspace and one rustc run against the prebuilt
// runtime rlib each time) and the run time of the built program on fib(30), next to the built-in
// VM and the Topaz VM in the same run. Also runs a sample of the differential corpus through the
// fresh AOT member (one build per program) and counts mismatches against the built-in VM.
//
//   node --import tsx bench/lispex-external/aot.ts [--runs 3] [--corpus 40]

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFreshAotMember } from '../../engines/lispex/external/aot-route.js';
import { buildExternalRequest } from '../../engines/lispex/external/derivation.js';
import { runTopazMember } from '../../engines/lispex/external/topaz-route.js';
import { LispexEvaluator } from '../../engines/lispex/index.js';
import { ProgramGenerator } from '../../test/engines/lispex/differential/generator.js';
import { PRODUCTS_DIR, builtinObservation, mismatchAxes, requireTopaz } from '../../test/engines/lispex/external/harness.js';
import { PROGRAMS } from '../lispex/programs.js';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1] ?? 3) || 3;
const CORPUS = args.includes('--corpus') ? Number(args[args.indexOf('--corpus') + 1]) : 40;
const topaz = requireTopaz();
const compiler = join(PRODUCTS_DIR, 'topaz-compiler');
const rustc = readFileSync(join(PRODUCTS_DIR, 'topaz-runtime', 'RUSTC'), 'utf8').trim();

const fib = PROGRAMS.find((p) => p.name === 'fib(30)')!;
const request = buildExternalRequest(fib.source, undefined, 'source');
let vmBest = Infinity;
let topazBest = Infinity;
let aotRunBest = Infinity;
let buildBest = Infinity;
let buildWorst = 0;
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  new LispexEvaluator().run(fib.source, { route: 'vm' });
  vmBest = Math.min(vmBest, performance.now() - t0);
  const tz = await runTopazMember({ executable: topaz, request, wallClockMs: 120_000, maxOutputBytes: 1 << 20 });
  if (tz.kind === 'completed') topazBest = Math.min(topazBest, tz.observation.metrics.wall_ms);
  const aot = await runFreshAotMember({ compiler, rustc, request, wallClockMs: 120_000, maxOutputBytes: 1 << 20 });
  if (aot.outcome.kind !== 'completed') throw new Error(aot.outcome.message);
  if (aot.outcome.observation.values[0]?.printed !== fib.expected) throw new Error('fresh AOT: wrong fib(30)');
  aotRunBest = Math.min(aotRunBest, aot.outcome.observation.metrics.wall_ms);
  buildBest = Math.min(buildBest, aot.buildMs ?? Infinity);
  buildWorst = Math.max(buildWorst, aot.buildMs ?? 0);
}
console.log(`fib(30), best of ${RUNS} (machine shared with other work: compare ratios)`);
console.log(`  built-in VM ${vmBest.toFixed(1)} ms | Topaz VM ${topazBest.toFixed(1)} ms | fresh AOT run ${aotRunBest.toFixed(1)} ms`);
console.log(`  fresh AOT vs built-in VM: ${(vmBest / aotRunBest).toFixed(2)}x; vs Topaz VM: ${(topazBest / aotRunBest).toFixed(2)}x`);
console.log(`  fresh AOT build (workspace + rustc + link): best ${buildBest.toFixed(0)} ms, worst ${buildWorst.toFixed(0)} ms`);

let mismatched = 0;
let builds = 0;
const t = performance.now();
for (let i = 0; i < CORPUS; i++) {
  const source = new ProgramGenerator(20261130 + i).program();
  const aot = await runFreshAotMember({
    compiler,
    rustc,
    request: buildExternalRequest(source, undefined, 'source'),
    wallClockMs: 30_000,
    maxOutputBytes: 8 << 20,
  });
  if (aot.outcome.kind !== 'completed') throw new Error(`seed ${20261130 + i}: ${aot.outcome.message}`);
  builds++;
  if (mismatchAxes(builtinObservation(source, 'vm'), aot.outcome.observation).length > 0) mismatched++;
}
console.log(
  `corpus sample through fresh AOT: ${builds} programs (one build each), ${mismatched} mismatches, ${((performance.now() - t) / 1000).toFixed(1)} s`,
);
