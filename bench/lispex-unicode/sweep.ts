// Every Unicode scalar value (0..#x10FFFF without the surrogates) through the character and
// string case procedures and the printer, on the built-in VM and on the Topaz VM
// (test/engines/lispex/unicode/sweep.ts's program, in chunks of 4,096 scalars, two at a time); prints the
// number of scalars compared, the differences (the first few in full) and the time taken.
// CI runs a fixed sample: test/engines/lispex/unicode/sweep.test.ts.
//
//   node --import tsx bench/lispex-unicode/sweep.ts [path/to/other/topaz-vm]

import { pool, requireTopaz } from '../../test/engines/lispex/external/harness.js';
import { type SweepDifference, sweepChunks, sweepRange } from '../../test/engines/lispex/unicode/sweep.js';

const executable = process.argv[2] ?? requireTopaz();
const started = performance.now();
let scalars = 0;
const differences: SweepDifference[] = [];
await pool(sweepChunks(), 2, async ([from, to]) => {
  const r = await sweepRange(from, to, executable);
  scalars += r.lines;
  differences.push(...r.differences);
});
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`Unicode sweep: ${scalars} scalars, ${differences.length} differences (built-in VM vs ${executable}), ${seconds} s`);
for (const d of differences.sort((a, b) => a.scalar - b.scalar).slice(0, 10)) {
  console.log(`  #x${d.scalar.toString(16)}\n    built-in ${d.builtin}\n    topaz    ${d.topaz}`);
}
process.exit(differences.length === 0 && scalars === 0x110000 - 0x800 ? 0 : 1);
