// Turns VICE's testbench list into an Ultimate Tool project: ultimate-tool.json (build: null,
// every PRG prebuilt) and the programs under prg/, one test per row of c64-exitcode-tests.csv.
//
//   node --import tsx bench/ultimate-testbench/make-project.ts --out DIR [--dir TESTBENCH]
//        [--filter TEXT] [--category NAME] [--paths FILE]
//
// TESTBENCH is a folder with c64-exitcode-tests.csv and prg/ (default ../shared/reference/vice-testbench;
// any checkout of VICE-testprogs with the CSV made as that folder's README says). Each row becomes:
// - `verdict {pass: [0], fail: [1..255]}`: the first $D7FF write decides, $00 passes (the README's rule);
// - `machine` from the row's options (cia-new/cia-old → cia_model, "CIA timestamp 4485" → 6526-4485,
//   vicii-pal/ntsc/ntscold → video, vicii-old/new → vic_revision, reuNNNk/reuNm → reu_kb);
// - `budget.cycles` = the row's cycle limit (x64sc counts it from power-on, the tool from the
//   program's first instruction: a budget a boot's worth more generous), `budget.time_ms` a wall-clock
//   guard scaled to it;
// - `expect:timeout` rows get `expect.timeout: true` — the README's rule, running out the cycle limit
//   without a write is the pass, judged by the tool's judge — and `crash.jam: false` (the cpujam
//   programs halt on purpose: a halt runs out the limit too).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { defaultTestbenchDir, machineOptionsFor, readTestbench, testbenchPresent, type TestbenchEntry } from './testbench.js';

/** The manifest's `machine` of a row (the runner's mapping, in the manifest's names). */
export function machineOf(options: readonly string[]): Record<string, unknown> | undefined {
  const m = machineOptionsFor(options);
  const out: Record<string, unknown> = {};
  if (m.ciaModel !== undefined) out.cia_model = m.ciaModel;
  if (m.video !== undefined) out.video = m.video;
  if (m.vicRevision !== undefined) out.vic_revision = m.vicRevision;
  if (m.reuKb !== undefined) out.reu_kb = m.reuKb;
  return Object.keys(out).length ? out : undefined;
}

/** A test/artifact name from the program's path: lower case, [a-z0-9_-], ≤ 64, unique by a hash suffix when cut. */
export function nameOf(path: string): string {
  const slug = path
    .replace(/\.prg$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug.length <= 64) return slug;
  const hash = createHash('sha256').update(path).digest('hex').slice(0, 8);
  return `${slug.slice(0, 55)}-${hash}`;
}

/** The wall-clock guard of a run (the cycle budget decides): 5 k clocks a millisecond or more, 60 s at least, the manifest's 600 s at most. */
export function timeBudgetMs(cycles: number): number {
  return Math.min(600_000, Math.max(60_000, Math.ceil(cycles / 200)));
}

/**
 * The test name of each row: nameOf its path, with a hash suffix of the row (path and options) when
 * another row took that name — the CSV lists some programs twice (cia1pb7.prg with cia-old and with
 * cia-new), and some paths differ only in case (cia1pb7.prg, CIA1pb7.prg).
 */
export function testNames(entries: readonly TestbenchEntry[]): Map<TestbenchEntry, string> {
  const names = new Map<TestbenchEntry, string>();
  const taken = new Set<string>();
  for (const e of entries) {
    let name = nameOf(e.path);
    if (taken.has(name)) {
      const hash = createHash('sha256')
        .update(`${e.path};${e.options.join(';')}`)
        .digest('hex')
        .slice(0, 8);
      name = `${name.slice(0, 55)}-${hash}`;
    }
    if (taken.has(name)) throw new Error(`two rows map to the test name ${name}: ${e.path} [${e.options.join(';')}]`);
    taken.add(name);
    names.set(e, name);
  }
  return names;
}

export function testbenchManifest(entries: readonly TestbenchEntry[]): Record<string, unknown> {
  const fail = Array.from({ length: 255 }, (_, i) => i + 1);
  const artifacts: unknown[] = [];
  const tests: unknown[] = [];
  const names = testNames(entries);
  for (const e of entries) {
    const name = names.get(e)!;
    artifacts.push({ name, path: `prg/${e.path}`, prebuilt: true });
    const machine = machineOf(e.options);
    const timeout = e.options.includes('expect:timeout');
    tests.push({
      name,
      description:
        `${e.path}${e.options.length ? ` [${e.options.join(';')}]` : ''}${timeout ? ' — expect:timeout: running out the cycle limit without a write is the pass (expect.timeout)' : ''}`.slice(
          0,
          500,
        ),
      artifact: name,
      observe: 'debug_register',
      verdict: { pass: [0], fail },
      ...(machine ? { machine } : {}),
      // The cpujam programs of the expect:timeout rows end in a JAM on purpose: halting is not a crash there.
      ...(timeout ? { crash: { jam: false } } : {}),
      expect: timeout ? { timeout: true } : {},
      budget: { time_ms: timeBudgetMs(e.cycles), cycles: e.cycles },
    });
  }
  return {
    manifest_schema_version: 1,
    name: 'vice-testbench',
    build: null,
    artifacts,
    ultimate_reu_image: null,
    tests,
  };
}

/** Writes the project (ultimate-tool.json and the PRGs under prg/) into `out`; returns its absolute path. */
export function writeTestbenchProject(outDir: string, dir: string, entries: readonly TestbenchEntry[]): string {
  const out = resolve(outDir);
  mkdirSync(out, { recursive: true });
  for (const e of entries) {
    const to = join(out, 'prg', e.path);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(dir, 'prg', e.path), to);
  }
  writeFileSync(join(out, 'ultimate-tool.json'), `${JSON.stringify(testbenchManifest(entries), null, 1)}\n`);
  return out;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      dir: { type: 'string' },
      filter: { type: 'string' },
      category: { type: 'string' },
      paths: { type: 'string' },
    },
  });
  if (!values.out) {
    console.error('usage: make-project.ts --out DIR [--dir TESTBENCH] [--filter TEXT] [--category NAME] [--paths FILE]');
    process.exit(64);
  }
  const dir = values.dir ?? defaultTestbenchDir();
  if (!testbenchPresent(dir)) {
    console.error(`no testbench at ${dir} (c64-exitcode-tests.csv and prg/ expected); give --dir`);
    process.exit(2);
  }
  let entries = readTestbench(dir);
  if (values.filter) entries = entries.filter((e) => e.path.includes(values.filter!));
  if (values.category) entries = entries.filter((e) => e.category.toLowerCase() === values.category!.toLowerCase());
  if (values.paths) {
    const wanted = new Set(
      readFileSync(values.paths, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    );
    entries = entries.filter((e) => wanted.has(e.path));
  }
  const out = writeTestbenchProject(values.out, dir, entries);
  console.log(`${out}: ${entries.length} tests from ${dir}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
