// VICE's testbench on the virtual C64: the "exitcode" programs of c64-exitcode-tests.csv (see the
// README beside it in shared/reference/vice-testbench), each run on a fresh machine set up from
// the program's options, loaded and started as the Ultimate's run_prg does (`runPrg`: reset,
// DMA-load, RUN). The program reports through the debug register: the first write to $D7FF
// within the cycle limit decides — $00 passes, anything else fails. No write within the limit
// fails, unless the options say `expect:timeout`, where running out the limit is the pass.
// The cycle limit counts from power-on, as x64sc's -limitcycles does.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { C64Machine, type C64MachineOptions, type C64Roms } from '../../engines/ultimate/virtual/c64/machine.js';

export interface TestbenchEntry {
  /** Path of the program under prg/, as in the CSV. */
  path: string;
  /** Cycle limit from power-on. */
  cycles: number;
  /** Options (`cia-new`, `vicii-ntsc`, `reu512k`, `expect:timeout`, `comment:…`). */
  options: string[];
  /** The first folder of the path: C64, CIA, CPU, REU, VICII, general, interrupts. */
  category: string;
}

export interface TestbenchResult {
  entry: TestbenchEntry;
  passed: boolean;
  /** The first value written to $D7FF, or undefined when none was written within the limit. */
  exitCode?: number;
  /** Machine clocks from power-on to the write (or to the limit). */
  cycles: number;
  /** Set when the program could not be run at all (e.g. an option the machine does not offer). */
  error?: string;
}

export const CATEGORIES = ['general', 'CPU', 'CIA', 'VICII', 'interrupts', 'C64', 'REU'] as const;

/** The testbench folder beside the repository (CI clones the repository next to shared/). */
export function defaultTestbenchDir(): string {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return resolve(repoRoot, '..', 'shared', 'reference', 'vice-testbench');
}

/** VICE's own ROMs (shared/tools/vice/C64), beside the repository like the testbench. */
export function defaultViceRomDir(): string {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return resolve(repoRoot, '..', 'shared', 'tools', 'vice', 'C64');
}

export function testbenchPresent(dir = defaultTestbenchDir()): boolean {
  return existsSync(join(dir, 'c64-exitcode-tests.csv')) && existsSync(join(dir, 'prg'));
}

/** Parses c64-exitcode-tests.csv (`path,cycles,options`, options `;`-separated). */
export function readTestbench(dir = defaultTestbenchDir()): TestbenchEntry[] {
  const text = readFileSync(join(dir, 'c64-exitcode-tests.csv'), 'utf8');
  const entries: TestbenchEntry[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (i === 0 || line.trim() === '') continue;
    const first = line.indexOf(',');
    const second = line.indexOf(',', first + 1);
    if (first < 0 || second < 0) throw new Error(`c64-exitcode-tests.csv line ${i + 1}: expected path,cycles,options; got ${line}`);
    const path = line.slice(0, first);
    const cycles = Number(line.slice(first + 1, second));
    if (!Number.isInteger(cycles) || cycles <= 0) throw new Error(`c64-exitcode-tests.csv line ${i + 1}: bad cycle limit`);
    const options = line
      .slice(second + 1)
      .split(';')
      .map((o) => o.trim())
      .filter((o) => o !== '');
    entries.push({ path, cycles, options, category: path.slice(0, path.indexOf('/')) });
  }
  return entries;
}

/** The machine options a program's testbench options ask for (as the README maps them to x64sc flags). */
export function machineOptionsFor(options: readonly string[]): C64MachineOptions {
  // x64sc powers on with RAM in a real board's pattern, not zeroed.
  const out: C64MachineOptions = { powerOnRam: 'c64' };
  for (const o of options) {
    if (o === 'cia-new') out.ciaModel = '6526A';
    else if (o === 'cia-old') out.ciaModel = '6526';
    else if (o === 'vicii-pal') out.video = 'pal';
    else if (o === 'vicii-ntsc') out.video = 'ntsc';
    else if (o === 'vicii-ntscold') out.video = 'ntsc-old';
    // VICE's own testbench runs these as -VICIImodel 6569/6567 and 8565/8562 (x64sc-hooks.sh).
    else if (o === 'vicii-old') out.vicRevision = 'old';
    else if (o === 'vicii-new') out.vicRevision = 'new';
    else {
      const reu = /^reu(\d+)([km])$/.exec(o);
      if (reu) out.reuKb = Number(reu[1]) * (reu[2] === 'm' ? 1024 : 1);
    }
  }
  // The CSV names the chip batch a program needs only in its comment ("CIA timestamp 4485
  // only", with cia-old): x64sc has no such model and fails those programs; the machine has it.
  if (out.ciaModel === '6526' && options.some((o) => o.startsWith('comment:') && /\btimestamp 4485\b/i.test(o))) {
    out.ciaModel = '6526-4485';
  }
  return out;
}

/**
 * Runs one program on a fresh machine. `cycleCap` (for a quick look) stops earlier than the
 * program's limit; a program stopped by it without a write has failed, even with expect:timeout.
 */
export function runTestbenchEntry(
  dir: string,
  entry: TestbenchEntry,
  roms?: C64Roms,
  cycleCap = Number.POSITIVE_INFINITY,
): TestbenchResult {
  const expectTimeout = entry.options.includes('expect:timeout');
  let machine: C64Machine;
  try {
    machine = new C64Machine({ ...machineOptionsFor(entry.options), roms });
  } catch (e) {
    return { entry, passed: false, cycles: 0, error: (e as Error).message };
  }
  const prg = new Uint8Array(readFileSync(join(dir, 'prg', entry.path)));
  let exitCode: number | undefined;
  machine.onDebugRegisterWrite = (value) => {
    exitCode ??= value;
  };
  machine.runPrg(prg);
  const limit = Math.min(entry.cycles, cycleCap);
  const remaining = limit - machine.cpu.cycles;
  if (remaining > 0) machine.run(remaining, () => exitCode !== undefined);
  const cycles = machine.cpu.cycles;
  if (exitCode !== undefined && cycles > limit) exitCode = undefined; // written after the limit
  const passed = exitCode === undefined ? expectTimeout && limit === entry.cycles : exitCode === 0;
  return { entry, passed, exitCode, cycles: Math.min(cycles, limit) };
}

export interface CategoryCount {
  category: string;
  passed: number;
  total: number;
}

export function tally(results: readonly TestbenchResult[]): CategoryCount[] {
  const order = [...CATEGORIES, ...new Set(results.map((r) => r.entry.category))];
  const rows: CategoryCount[] = [];
  for (const category of new Set(order)) {
    const mine = results.filter((r) => r.entry.category === category);
    if (mine.length === 0) continue;
    rows.push({ category, passed: mine.filter((r) => r.passed).length, total: mine.length });
  }
  return rows;
}

/** A Markdown table of the per-category counts with a total row. */
export function formatTable(rows: readonly CategoryCount[]): string {
  const pct = (p: number, t: number) => (t === 0 ? '—' : `${Math.round((100 * p) / t)} %`);
  const lines = ['| category | passed | |', '|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.category} | ${r.passed}/${r.total} | ${pct(r.passed, r.total)} |`);
  const p = rows.reduce((s, r) => s + r.passed, 0);
  const t = rows.reduce((s, r) => s + r.total, 0);
  lines.push(`| **total** | **${p}/${t}** | **${pct(p, t)}** |`);
  return lines.join('\n');
}
