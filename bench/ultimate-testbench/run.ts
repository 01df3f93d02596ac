// Runs VICE's testbench (c64-exitcode-tests.csv) on the virtual C64 and prints the per-category
// table and the time.
//
//   node --import tsx bench/ultimate-testbench/run.ts [--roms stand-in|vice|both] [--filter TEXT]
//        [--category NAME] [--dir TESTBENCH] [--rom-dir DIR] [--failures] [--verbose]
//
// --roms: the stand-in ROMs (default), VICE's ROMs (shared/tools/vice/C64, or --rom-dir), or both
// runs one after the other. --filter keeps programs whose path contains TEXT; --category keeps one
// category (general, CPU, CIA, VICII, interrupts, C64, REU). --failures lists the failing programs
// with their $D7FF value; --verbose prints every program as it finishes.
import { parseArgs } from 'node:util';
import { loadRomDir } from '../../engines/ultimate/virtual/c64/rom-dir.js';
import type { C64Roms } from '../../engines/ultimate/virtual/c64/machine.js';
import {
  defaultTestbenchDir,
  defaultViceRomDir,
  formatTable,
  readTestbench,
  runTestbenchEntry,
  tally,
  testbenchPresent,
  type TestbenchResult,
} from './testbench.js';

const { values } = parseArgs({
  options: {
    roms: { type: 'string', default: 'stand-in' },
    filter: { type: 'string' },
    category: { type: 'string' },
    dir: { type: 'string' },
    'rom-dir': { type: 'string' },
    failures: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});

const dir = values.dir ?? defaultTestbenchDir();
if (!testbenchPresent(dir)) {
  console.error(`no testbench at ${dir} (c64-exitcode-tests.csv and prg/ expected); give --dir`);
  process.exit(2);
}
const romChoice = values.roms;
if (romChoice !== 'stand-in' && romChoice !== 'vice' && romChoice !== 'both') {
  console.error(`--roms must be stand-in, vice or both; got ${romChoice}`);
  process.exit(2);
}

let entries = readTestbench(dir);
if (values.filter) entries = entries.filter((e) => e.path.includes(values.filter!));
if (values.category) {
  const wanted = values.category.toLowerCase();
  entries = entries.filter((e) => e.category.toLowerCase() === wanted);
}
if (entries.length === 0) {
  console.error('no program matches --filter/--category');
  process.exit(2);
}

function runAll(label: string, roms: C64Roms | undefined): void {
  const t0 = process.hrtime.bigint();
  const results: TestbenchResult[] = [];
  let emulated = 0;
  for (const entry of entries) {
    const r = runTestbenchEntry(dir, entry, roms);
    results.push(r);
    emulated += r.cycles;
    if (values.verbose) {
      const code = r.error ?? (r.exitCode === undefined ? 'no write' : `$${r.exitCode.toString(16).padStart(2, '0')}`);
      console.log(`${r.passed ? 'pass' : 'FAIL'} ${entry.path} (${code}, ${r.cycles} cycles)`);
    }
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`\n## ${label}: ${entries.length} programs from ${dir}\n`);
  console.log(formatTable(tally(results)));
  console.log(
    `\n${seconds.toFixed(1)} s wall clock, ${(emulated / 1e6).toFixed(0)} M emulated cycles ` +
      `(${(emulated / seconds / 1e6).toFixed(1)} MHz); node ${process.version}`,
  );
  if (values.failures) {
    console.log('\nfailing:');
    for (const r of results.filter((x) => !x.passed)) {
      const code = r.error ?? (r.exitCode === undefined ? 'no write' : `$${r.exitCode.toString(16).padStart(2, '0')}`);
      console.log(`  ${r.entry.path} [${r.entry.options.join(';')}] → ${code}`);
    }
  }
}

if (romChoice === 'stand-in' || romChoice === 'both') runAll('stand-in ROMs', undefined);
if (romChoice === 'vice' || romChoice === 'both') {
  const romDir = values['rom-dir'] ?? defaultViceRomDir();
  runAll(`VICE's ROMs (${romDir})`, loadRomDir(romDir));
}
