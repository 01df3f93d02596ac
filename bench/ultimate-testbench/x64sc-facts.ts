// Checks docs/ultimate/TESTBENCH.md's facts about x64sc against x64sc itself (issue 31.7):
// 1. which CIA `-default` gives: four programs written for the new CIA (cia-new rows) run with
//    `-default` alone, with `-ciamodel 1` (6526A) and with `-ciamodel 0` (6526);
// 2. how many of the "CIA timestamp 4485 only" programs pass with the CSV's mapping (`cia-old` →
//    `-ciamodel 0`): x64sc has no 4485 model.
// Each run as the testbench README says (x64sc.ts): exit code 0 = pass, 1 = cycle limit reached.
//
//   node --import tsx bench/ultimate-testbench/x64sc-facts.ts [--x64sc PATH] [--dir TESTBENCH]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultTestbenchDir, readTestbench, testbenchPresent, type TestbenchEntry } from './testbench.js';
import { defaultX64sc } from './x64sc.js';

/** Programs of cia-new rows whose old-CIA twin exists: they fail on the old CIA. */
export const NEW_CIA_PROGRAMS = [
  'CIA/irqdelay/irqdelay-new.prg',
  'CIA/ciavarious/cia3new.prg',
  'interrupts/cia-int/cia-int-irq-new.prg',
  'interrupts/irq-ackn-bug/cia1new.prg',
];

function exitCode(x64sc: string, dir: string, entry: TestbenchEntry, flags: string[]): number {
  const args = ['-default', '-debugcart', '-warp', '+sound', '-limitcycles', String(entry.cycles), ...flags];
  args.push('-autostartprgmode', '1', '-autostart', join(dir, 'prg', entry.path));
  const r = spawnSync(x64sc, args, { stdio: 'ignore', timeout: Math.max(300_000, Math.ceil(entry.cycles / 2_000)) });
  return r.status ?? -1;
}

function main(): void {
  const { values } = parseArgs({ options: { x64sc: { type: 'string' }, dir: { type: 'string' } } });
  const x64sc = values.x64sc ?? defaultX64sc();
  const dir = values.dir ?? defaultTestbenchDir();
  if (!existsSync(x64sc)) throw new Error(`no x64sc at ${x64sc}; give --x64sc`);
  if (!testbenchPresent(dir)) throw new Error(`no testbench at ${dir}; give --dir`);
  const entries = readTestbench(dir);
  const byPath = new Map(entries.map((e) => [e.path, e]));

  console.log('## -default and the CIA model (exit code: 0 pass, 1 cycle limit, else the $D7FF value)\n');
  console.log('| program | -default | -ciamodel 1 (6526A) | -ciamodel 0 (6526) |');
  console.log('|---|---|---|---|');
  let asNew = 0;
  for (const path of NEW_CIA_PROGRAMS) {
    const e = byPath.get(path);
    if (!e) throw new Error(`${path} is not in c64-exitcode-tests.csv`);
    const [d, n, o] = [[], ['-ciamodel', '1'], ['-ciamodel', '0']].map((f) => exitCode(x64sc, dir, e, f));
    if (d === n && d !== o) asNew++;
    console.log(`| ${path} | ${d} | ${n} | ${o} |`);
  }
  console.log(`\n-default gave the 6526A's result and not the 6526's on ${asNew} of ${NEW_CIA_PROGRAMS.length}`);

  const batch = entries.filter((e) => e.options.some((o) => o.startsWith('comment:') && /\btimestamp 4485\b/i.test(o)));
  console.log(`\n## The ${batch.length} "CIA timestamp 4485 only" programs with -ciamodel 0\n`);
  let passed = 0;
  for (const e of batch) {
    const code = exitCode(x64sc, dir, e, ['-ciamodel', '0']);
    if (code === 0) passed++;
    console.log(`${code === 0 ? 'pass' : 'FAIL'} ${e.path} (exit ${code})`);
  }
  console.log(`\n${passed} of ${batch.length} pass`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
