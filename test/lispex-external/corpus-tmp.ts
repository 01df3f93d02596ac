import { ProgramGenerator } from '../lispex-diff/generator.js';
import { builtinObservation, mismatchAxes, pool, topazObservation } from './harness.js';
const N = Number(process.argv[2] ?? 500);
const SEED = 20261130;
const bad: string[] = [];
const axesCount = new Map<string, number>();
await pool(Array.from({ length: N }, (_, i) => i), 2, async (i) => {
  const src = new ProgramGenerator(SEED + i).program();
  const vm = builtinObservation(src, 'vm');
  const tz = await topazObservation(src);
  const m = mismatchAxes(vm, tz);
  if (m.length) {
    for (const a of m) axesCount.set(a, (axesCount.get(a) ?? 0) + 1);
    if (bad.length < 8) bad.push(`seed ${SEED + i} ${m.join(',')}\n${src}\nvm: ${JSON.stringify([vm.status, vm.stdout.text, vm.values.map(v=>v.printed), vm.diagnostics.map(d=>d.rendered), vm.warnings.map(d=>d.rendered)])}\ntz: ${JSON.stringify([tz.status, tz.stdout.text, tz.values.map(v=>v.printed), tz.diagnostics.map(d=>d.rendered), tz.warnings.map(d=>d.rendered)])}`);
  }
});
console.log(bad.join('\n\n'));
console.log('mismatch axes', [...axesCount]);
