import { casePrograms } from './case-programs.js';
import { builtinObservation, mismatchAxes, pool, topazObservation } from './harness.js';
const all = casePrograms();
const bad: string[] = [];
await pool(all, 2, async (c) => {
  const vm = builtinObservation(c.program, 'vm');
  const tz = await topazObservation(c.program);
  const m = mismatchAxes(vm, tz);
  if (m.length) bad.push(`${c.call} [${m}]\n vm: ${JSON.stringify([vm.values.map(v=>v.printed), vm.diagnostics.map(d=>d.rendered)])}\n tz: ${JSON.stringify([tz.values.map(v=>v.printed), tz.diagnostics.map(d=>d.rendered)])}`);
});
console.log(all.length, 'cases', bad.length, 'mismatches');
console.log(bad.join('\n'));
