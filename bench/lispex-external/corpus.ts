// The full differential corpus (10,000 generated programs, LISPEX_EXTERNAL_PROGRAMS to change)
// and every primitive case through the Topaz VM product against the built-in VM, compared on the
// court axes and on the account both machines keep (machine transitions, call-depth high-water
// mark: the Topaz VM's quick tier must leave exactly the machine's); prints the mismatch counts
// per axis and the time taken. (CI runs a sample:
// test/engines/lispex/external/topaz-corpus.test.ts.)
//
//   node --import tsx bench/lispex-external/corpus.ts

import { casePrograms } from '../../test/engines/lispex/external/case-programs.js';
import { builtinObservation, mismatchAxes, pool, requireTopaz, topazRun } from '../../test/engines/lispex/external/harness.js';
import { ProgramGenerator } from '../../test/engines/lispex/differential/generator.js';

const COUNT = Number(process.env.LISPEX_EXTERNAL_PROGRAMS ?? 10_000);
const SEED = 20261130;
requireTopaz();

async function run(label: string, sources: readonly string[]): Promise<void> {
  const started = performance.now();
  const axes = new Map<string, number>();
  const statuses = new Map<string, number>();
  let mismatched = 0;
  let accountMismatches = 0;
  let quickPrograms = 0;
  let quickCalls = 0;
  let givenUp = 0;
  const examples: string[] = [];
  await pool(sources, 2, async (source) => {
    const vm = builtinObservation(source, 'vm');
    const { observation: topaz, fastPaths: fast } = await topazRun(source);
    statuses.set(vm.status, (statuses.get(vm.status) ?? 0) + 1);
    const m = mismatchAxes(vm, topaz);
    if (fast.quick_calls > 0) quickPrograms++;
    quickCalls += fast.quick_calls;
    givenUp += fast.given_up;
    const account =
      vm.resource_outcome.usage.machine_transitions === topaz.resource_outcome.usage.machine_transitions &&
      vm.metrics.max_call_depth === topaz.metrics.max_call_depth;
    if (!account) {
      accountMismatches++;
      if (examples.length < 3) examples.push(source);
    }
    if (m.length > 0) {
      mismatched++;
      for (const a of m) axes.set(a, (axes.get(a) ?? 0) + 1);
      if (examples.length < 3) examples.push(source);
    }
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `${label}: ${sources.length} programs, ${mismatched} mismatches ${JSON.stringify([...axes])}, ${accountMismatches} account mismatches, quick tier: ${quickPrograms} programs completed ${quickCalls} calls on it (${givenUp} attempts given up), statuses ${JSON.stringify([...statuses])}, ${seconds} s`,
  );
  for (const e of examples) console.log(`  e.g.\n${e}`);
}

await run(
  'generated corpus',
  Array.from({ length: COUNT }, (_, i) => new ProgramGenerator(SEED + i).program()),
);
await run(
  'primitive cases',
  casePrograms().map((c) => c.program),
);
