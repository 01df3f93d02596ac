// The same testbench list on the real x64sc, for comparison with run.ts (the virtual C64): each
// program as the testbench README says —
//   x64sc -default -debugcart -warp +sound -limitcycles N [option flags] -autostartprgmode 1 -autostart FILE
// exit code 0 = pass (1 = cycle limit reached, which passes for `expect:timeout`).
//
//   node --import tsx bench/ultimate-testbench/x64sc.ts [--every N] [--filter TEXT] [--category NAME]
//        [--x64sc PATH] [--dir TESTBENCH] [--failures]
//
// --every N runs every Nth program of the list (the full list takes long on a shared machine).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  defaultTestbenchDir,
  formatTable,
  readTestbench,
  tally,
  testbenchPresent,
  type TestbenchEntry,
  type TestbenchResult,
} from './testbench.js';

/** The real VICE beside the repository (shared/tools/vice/x64sc), like the testbench. */
export function defaultX64sc(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'tools', 'vice', 'x64sc');
}

/**
 * The x64sc flags of a program's options (the README's mapping; vicii-old/vicii-new as VICE's own
 * testbench script maps them: -VICIImodel 6569/8565 on PAL, 6567/8562 on NTSC).
 */
export function x64scFlags(options: readonly string[]): string[] {
  const flags: string[] = [];
  const ntsc = options.includes('vicii-ntsc');
  for (const o of options) {
    if (o === 'cia-new') flags.push('-ciamodel', '1');
    else if (o === 'cia-old') flags.push('-ciamodel', '0');
    else if (o === 'vicii-pal') flags.push('-pal');
    else if (o === 'vicii-ntsc') flags.push('-ntsc');
    else if (o === 'vicii-ntscold') flags.push('-ntscold');
    else if (o === 'vicii-old') flags.push('-VICIImodel', ntsc ? '6567' : '6569');
    else if (o === 'vicii-new') flags.push('-VICIImodel', ntsc ? '8562' : '8565');
    else {
      const reu = /^reu(\d+)([km])$/.exec(o);
      if (reu) flags.push('-reu', '-reusize', String(Number(reu[1]) * (reu[2] === 'm' ? 1024 : 1)));
    }
  }
  return flags;
}

/** One program on x64sc as the README says; `expect:timeout` passes on the cycle limit (exit code 1). */
export function runX64sc(x64sc: string, dir: string, entry: TestbenchEntry): TestbenchResult {
  const args = [
    '-default',
    '-debugcart',
    '-warp',
    '+sound',
    '-limitcycles',
    String(entry.cycles),
    ...x64scFlags(entry.options),
    '-autostartprgmode',
    '1',
    '-autostart',
    join(dir, 'prg', entry.path),
  ];
  // The wall-clock guard scales with the program's cycle limit (x64sc -warp runs ~15–20 M clocks
  // a second here; 2 M leaves room for a loaded machine): a fixed 300 s killed floating3b
  // (1.5 G clocks, ~130 s of CPU) on a busy machine and counted it as a fail, though x64sc passes it.
  const r = spawnSync(x64sc, args, { stdio: 'ignore', timeout: Math.max(300_000, Math.ceil(entry.cycles / 2_000)) });
  if (r.error) console.error(`${entry.path}: x64sc did not finish (${r.error.message}); counted as a fail`);
  const code = r.status ?? -1;
  const timedOut = code === 1;
  const passed = entry.options.includes('expect:timeout') ? timedOut || code === 0 : code === 0;
  return { entry, passed, exitCode: timedOut ? undefined : code, cycles: 0 };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      every: { type: 'string', default: '1' },
      filter: { type: 'string' },
      category: { type: 'string' },
      x64sc: { type: 'string' },
      dir: { type: 'string' },
      failures: { type: 'boolean', default: false },
    },
  });

  const x64sc = values.x64sc ?? defaultX64sc();
  const dir = values.dir ?? defaultTestbenchDir();
  if (!existsSync(x64sc)) {
    console.error(`no x64sc at ${x64sc}; give --x64sc`);
    process.exit(2);
  }
  if (!testbenchPresent(dir)) {
    console.error(`no testbench at ${dir}; give --dir`);
    process.exit(2);
  }
  const every = Number(values.every);
  if (!Number.isInteger(every) || every < 1) {
    console.error(`--every expects a positive integer; got ${values.every}`);
    process.exit(2);
  }

  let entries = readTestbench(dir);
  if (values.filter) entries = entries.filter((e) => e.path.includes(values.filter!));
  if (values.category) entries = entries.filter((e) => e.category.toLowerCase() === values.category!.toLowerCase());
  entries = entries.filter((_, i) => i % every === 0);

  const t0 = process.hrtime.bigint();
  const results = entries.map((e) => runX64sc(x64sc, dir, e));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`\n## x64sc (${x64sc}): ${entries.length} programs${every > 1 ? ` (every ${every}th)` : ''} from ${dir}\n`);
  console.log(formatTable(tally(results)));
  console.log(`\n${seconds.toFixed(1)} s wall clock`);
  if (values.failures) {
    for (const r of results.filter((x) => !x.passed))
      console.log(`  ${r.entry.path} [${r.entry.options.join(';')}] → ${r.exitCode ?? 'limit'}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
