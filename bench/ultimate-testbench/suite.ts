// VICE's testbench through the Ultimate Tool, side by side with the emulators run directly, in one
// run: the benchmark of issue 31 ("the tool adds no misjudgement, at emulator speed").
//
//   node --import tsx bench/ultimate-testbench/suite.ts [--targets vice,ultimate] [--filter TEXT]
//        [--category NAME] [--every N] [--limit N] [--dir TESTBENCH] [--rom-dir DIR] [--x64sc PATH]
//        [--vice-instances N] [--no-virtual-direct] [--json FILE] [--verbose]
//
// 1. make-project.ts writes the selected rows as a project (build: null, every PRG prebuilt).
// 2. x64sc runs each program directly, one after the other, as the testbench README says (x64sc.ts).
// 3. The virtual C64 runs each program directly with VICE's ROMs (testbench.ts), unless
//    --no-virtual-direct: the peer of the virtual Ultimate (it is the same machine).
// 4. The real service (`ultimate-tool serve`, vice target = a pool of real x64sc, virtual Ultimate
//    with VICE's ROMs via --rom-dir) and the real MCP adapter are started as processes; the official
//    SDK client calls start_suite_job once per target (the targets one after the other, so each wall
//    time is its own), polls get_job and reads every run with get_run.
// 5. The README's rule for `expect:timeout` rows (running out the cycle limit without a $D7FF write is
//    the pass) is the judge's: make-project gives those rows `expect.timeout`, so `passed` is the pass.
//
// Printed per target: passed count, the misjudged programs (the direct peer passes, the tool says
// otherwise: the tool added a misjudgement) with the tool's reason, the wall time and its ratio to
// x64sc directly on the same programs. The load average is printed at the start and the end.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { loadRomDir } from '../../engines/ultimate/virtual/c64/rom-dir.js';
import { testNames, writeTestbenchProject } from './make-project.js';
import {
  defaultTestbenchDir,
  defaultViceRomDir,
  readTestbench,
  runTestbenchEntry,
  testbenchPresent,
  type TestbenchEntry,
} from './testbench.js';
import { defaultX64sc, runX64sc } from './x64sc.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

type Target = 'vice' | 'ultimate';

export interface ToolOutcome {
  status: string;
  reason: string;
  /** The run passed (an `expect:timeout` row: it ran out its limit without a write, judged by the tool). */
  passed: boolean;
}

/**
 * The README's verdict of one run record: `passed` passes. An `expect:timeout` row is judged so by
 * the tool itself (`expect.timeout`: over budget.cycles or halted in a JAM without a write passes).
 */
export function testbenchVerdict(_entry: TestbenchEntry, run: Record<string, any>): ToolOutcome {
  const status = String(run.status);
  return { status, reason: String(run.status_reason ?? ''), passed: status === 'passed' };
}

const loadText = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** What the bench needs of an MCP client (the official SDK's Client, either major version). */
export interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

interface Stack {
  client: Client;
  close(): Promise<void>;
}

/** The service and the adapter as processes (tsx from the sources: no build needed), the SDK client on the adapter. */
export async function startStack(project: string, opts: { x64sc: string; romDir: string; instances?: number }): Promise<Stack> {
  const work = mkdtempSync(join(tmpdir(), 'testbench-suite-store-'));
  const tsx = ['--import', 'tsx'];
  const service = spawn(
    process.execPath,
    [
      ...tsx,
      join(repoRoot, 'bin', 'ultimate-tool.ts'),
      'serve',
      '--project',
      project,
      '--port',
      '0',
      '--store',
      join(work, 'store'),
      '--virtual-device',
      '--rom-dir',
      opts.romDir,
      '--vice-command',
      `${opts.x64sc} -default +sound`,
      ...(opts.instances ? ['--vice-instances', String(opts.instances)] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const info = await new Promise<Record<string, unknown>>((res, rej) => {
    let buf = '';
    service.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n')[0];
      if (buf.includes('\n') && line) res(JSON.parse(line) as Record<string, unknown>);
    });
    service.once('exit', (code) => rej(new Error(`the service exited ${code} before it listened`)));
  });
  const client = new Client({ name: 'testbench-suite', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...tsx, join(repoRoot, 'bin', 'ultimate-tool-mcp.ts'), '--service-url', String(info.url)],
      stderr: 'inherit',
    }),
  );
  return {
    client,
    close: async () => {
      await client.close();
      service.kill('SIGTERM');
      await new Promise((r) => (service.exitCode !== null ? r(null) : service.once('exit', r)));
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** One tool call; the envelope's data, or an error naming the tool and the service's error. */
export async function callOk(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = (await client.callTool({ name, arguments: args })) as { content: unknown; structuredContent?: unknown };
  const content = r.content as Array<Record<string, unknown>>;
  const envelope = (r.structuredContent ?? JSON.parse(String(content[0]?.text))) as { data?: Record<string, any>; error?: unknown };
  if (!envelope.data) throw new Error(`${name} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.data;
}

/** The whole project as one suite job on `target`, polled to its end; the run records by test name. */
export async function runSuiteOn(
  client: ToolCaller,
  target: Target,
  testCount: number,
  progress?: (line: string) => void,
): Promise<Map<string, Record<string, any>>> {
  let args: Record<string, unknown> = { targets: [target] };
  if (target === 'ultimate') {
    const { probe } = await callOk(client, 'probe_ultimate');
    args = { ...args, probe_id: probe.probe_id, confirmed_reset_count: testCount, confirmed_reu_write_count: 0 };
  }
  let { job } = await callOk(client, 'start_suite_job', args);
  for (;;) {
    if (job.state !== 'queued' && job.state !== 'running') break;
    await new Promise((r) => setTimeout(r, 1000)); // polling, as the contract tells clients to
    ({ job } = await callOk(client, 'get_job', { job_id: job.job_id }));
    const p = job.progress;
    progress?.(`${target}: ${p.completed_runs}/${p.total_runs} runs ${JSON.stringify(p.statuses ?? {})}`);
  }
  if (job.state !== 'finished') throw new Error(`the ${target} suite job ended ${job.state}: ${JSON.stringify(job.error)}`);
  const runs = new Map<string, Record<string, any>>();
  for (const id of job.run_ids as string[]) {
    const { run } = await callOk(client, 'get_run', { run_id: id });
    runs.set(String(run.test), run);
  }
  return runs;
}

/** The run records' own phase timings (record.timings), averaged: where a run's wall time goes. */
export function phaseMeans(runs: Array<Record<string, any>>): string | null {
  const sums = new Map<string, number>();
  let n = 0;
  for (const run of runs) {
    const t = run.timings as Record<string, unknown> | undefined;
    if (!t) continue;
    n++;
    for (const [k, v] of Object.entries(t)) if (typeof v === 'number' && k.endsWith('_ms')) sums.set(k, (sums.get(k) ?? 0) + v);
  }
  if (n === 0) return null;
  return [...sums].map(([k, v]) => `${k.replace(/_ms$/, '')} ${(v / n).toFixed(0)}`).join(', ');
}

function seconds(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      targets: { type: 'string', default: 'vice,ultimate' },
      filter: { type: 'string' },
      category: { type: 'string' },
      limit: { type: 'string' },
      every: { type: 'string' },
      dir: { type: 'string' },
      'rom-dir': { type: 'string' },
      x64sc: { type: 'string' },
      'vice-instances': { type: 'string' },
      'no-virtual-direct': { type: 'boolean', default: false },
      json: { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
  });
  const dir = values.dir ?? defaultTestbenchDir();
  const romDir = values['rom-dir'] ?? defaultViceRomDir();
  const x64sc = values.x64sc ?? defaultX64sc();
  if (!testbenchPresent(dir)) throw new Error(`no testbench at ${dir} (c64-exitcode-tests.csv and prg/ expected); give --dir`);
  if (!existsSync(x64sc)) throw new Error(`no x64sc at ${x64sc}; give --x64sc`);
  const targets = values.targets.split(',').map((t) => t.trim()) as Target[];
  for (const t of targets) if (t !== 'vice' && t !== 'ultimate') throw new Error(`--targets takes vice and/or ultimate; got ${t}`);
  const instances = values['vice-instances'] === undefined ? undefined : Number(values['vice-instances']);

  let entries = readTestbench(dir);
  if (values.filter) entries = entries.filter((e) => e.path.includes(values.filter!));
  if (values.category) entries = entries.filter((e) => e.category.toLowerCase() === values.category!.toLowerCase());
  if (values.every) {
    const n = Number(values.every);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--every expects a positive integer; got ${values.every}`);
    entries = entries.filter((_, i) => i % n === 0);
  }
  if (values.limit) {
    const n = Number(values.limit);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--limit expects a positive integer; got ${values.limit}`);
    entries = entries.slice(0, n);
  }
  if (entries.length === 0) throw new Error('no program matches --filter/--category');

  const work = mkdtempSync(join(tmpdir(), 'testbench-suite-'));
  const project = writeTestbenchProject(join(work, 'project'), dir, entries);
  const log = (s: string) => console.log(s);
  log(`# VICE's testbench through the tool: ${entries.length} programs, load average at start ${loadText()}, ${new Date().toISOString()}`);

  // x64sc directly: the reference verdicts and the time to beat.
  let t0 = process.hrtime.bigint();
  const direct = new Map<TestbenchEntry, boolean>();
  for (const e of entries) direct.set(e, runX64sc(x64sc, dir, e).passed);
  const x64scSeconds = seconds(t0);
  log(
    `x64sc directly: ${[...direct.values()].filter(Boolean).length}/${entries.length} passed, ${x64scSeconds.toFixed(1)} s (load ${loadText()})`,
  );

  let virtualDirect: Map<TestbenchEntry, boolean> | undefined;
  let virtualSeconds: number | undefined;
  if (targets.includes('ultimate') && !values['no-virtual-direct']) {
    const roms = loadRomDir(romDir);
    t0 = process.hrtime.bigint();
    virtualDirect = new Map(entries.map((e) => [e, runTestbenchEntry(dir, e, roms).passed]));
    virtualSeconds = seconds(t0);
    log(
      `virtual C64 directly (VICE's ROMs): ${[...virtualDirect.values()].filter(Boolean).length}/${entries.length} passed, ${virtualSeconds.toFixed(1)} s (load ${loadText()})`,
    );
  }

  const stack = await startStack(project, { x64sc, romDir, instances });
  const summary: Record<string, unknown> = {
    programs: entries.length,
    x64sc_direct: { passed: [...direct.values()].filter(Boolean).length, seconds: x64scSeconds },
    ...(virtualDirect ? { virtual_direct: { passed: [...virtualDirect.values()].filter(Boolean).length, seconds: virtualSeconds } } : {}),
  };
  try {
    for (const target of targets) {
      t0 = process.hrtime.bigint();
      let last = 0;
      const runs = await runSuiteOn(stack.client, target, entries.length, (line) => {
        if (values.verbose || Date.now() - last > 30_000) {
          last = Date.now();
          log(`  ${line} (${seconds(t0).toFixed(0)} s, load ${loadText()})`);
        }
      });
      const wall = seconds(t0);
      const peer = target === 'vice' ? direct : (virtualDirect ?? direct);
      const peerName = target === 'vice' || !virtualDirect ? 'x64sc directly' : 'the virtual C64 directly';
      const names = testNames(entries);
      let passed = 0;
      const misjudged: Array<{ path: string; status: string; reason: string }> = [];
      const alsoX64sc: string[] = [];
      for (const e of entries) {
        const run = runs.get(names.get(e)!);
        const outcome = run ? testbenchVerdict(e, run) : { status: 'missing', reason: 'no run of this test in the job', passed: false };
        if (outcome.passed) passed++;
        else if (peer.get(e))
          misjudged.push({
            path: `${e.path}${e.options.length ? ` [${e.options.join(';')}]` : ''}`,
            status: outcome.status,
            reason: outcome.reason,
          });
        if (!outcome.passed && target === 'ultimate' && virtualDirect && direct.get(e) && !virtualDirect.get(e)) alsoX64sc.push(e.path);
      }
      log(`\n## ${target} through the tool (MCP, start_suite_job)`);
      log(
        `passed ${passed}/${entries.length}; wall ${wall.toFixed(1)} s = ${(wall / x64scSeconds).toFixed(2)}× x64sc directly (load ${loadText()})`,
      );
      const phases = phaseMeans([...runs.values()]);
      if (phases) log(`per run, mean ms: ${phases}`);
      log(`misjudged (${peerName} passes, the tool does not): ${misjudged.length}`);
      for (const m of misjudged) log(`  ${m.path}: ${m.status} — ${m.reason}`);
      if (alsoX64sc.length) log(`x64sc passes, the virtual C64 directly fails too (an emulation gap, not the tool's): ${alsoX64sc.length}`);
      summary[target] = { passed, seconds: wall, ratio_to_x64sc: wall / x64scSeconds, misjudged };
    }
  } finally {
    await stack.close();
    rmSync(work, { recursive: true, force: true });
  }
  log(`\nload average at the end ${loadText()}, ${new Date().toISOString()}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(summary, null, 1)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
