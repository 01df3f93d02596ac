// Where one virtual-Ultimate run's wall time goes, phase by phase: the service's UltimateConnection
// and run code (runTestOn) against the virtual device in this process, as `serve --virtual-device`
// runs them, with every REST request and the stream's wait timed. Not a service: no MCP, no job, no
// store; what those add is the suite's (suite.ts prints the run records' own timings).
//
//   node --import tsx bench/ultimate-testbench/phases.ts [--every N] [--limit N] [--filter TEXT]
//
// Printed per program: the phases (ms) and the datagrams the stream carried; then the means.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UltimateDevice } from '../../engines/ultimate/index.js';
import { VirtualUltimate } from '../../engines/ultimate/virtual/index.js';
import { loadManifest } from '../../services/ultimate-tool/project/manifest.js';
import { EvidenceWriter } from '../../services/ultimate-tool/runs/evidence.js';
import { runTestOn } from '../../services/ultimate-tool/runs/run-test.js';
import { UltimateConnection } from '../../services/ultimate-tool/targets/ultimate-target.js';
import { testNames, writeTestbenchProject } from './make-project.js';
import { defaultTestbenchDir, defaultViceRomDir, readTestbench } from './testbench.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { every: { type: 'string', default: '10' }, limit: { type: 'string', default: '8' }, filter: { type: 'string' } },
  });
  const dir = defaultTestbenchDir();
  let entries = readTestbench(dir).filter((_, i) => i % Number(values.every) === 0);
  if (values.filter) entries = entries.filter((e) => e.path.includes(values.filter!));
  entries = entries.slice(0, Number(values.limit));
  const work = mkdtempSync(join(tmpdir(), 'testbench-phases-'));
  const project = writeTestbenchProject(join(work, 'project'), dir, entries);
  const manifest = await loadManifest(project);
  const names = testNames(entries);
  const dev = await VirtualUltimate.start({ speed: 'max', romDir: defaultViceRomDir(), autoStart: false });
  dev.clock.start();
  const device = new UltimateDevice({ baseUrl: `http://127.0.0.1:${dev.ports.http}` });
  // Every REST request timed by method.
  const spent = new Map<string, number>();
  const rest = device.rest as unknown as Record<string, unknown>;
  for (const k of Object.getOwnPropertyNames(Object.getPrototypeOf(device.rest))) {
    const f = rest[k];
    if (k === 'constructor' || typeof f !== 'function') continue;
    rest[k] = async (...args: unknown[]) => {
      const t = performance.now();
      try {
        return await (f as (...a: unknown[]) => Promise<unknown>).apply(device.rest, args);
      } finally {
        spent.set(k, (spent.get(k) ?? 0) + performance.now() - t);
      }
    };
  }
  const conn = new UltimateConnection({
    device,
    identity: dev.identity(),
    emulation: true,
    strictGate: false,
    debugStreamReceiver: '127.0.0.1',
    speed: 'max',
  });
  const totals = new Map<string, number>();
  console.log(
    `# ${entries.length} programs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const e of entries) {
    const test = manifest.tests.find((t) => t.name === names.get(e))!;
    const artifact = manifest.artifacts.find((a) => a.name === test.artifact)!;
    const prg = readFileSync(join(project, artifact.path));
    spent.clear();
    const sent0 = dev.streamer.sent;
    const clocks0 = dev.clock.executed;
    const t0 = performance.now();
    await conn.configureMachine(test.machine);
    const t1 = performance.now();
    const ev = new EvidenceWriter(join(work, 'ev', test.name));
    const out = await runTestOn(conn, test, prg, ev);
    const t2 = performance.now();
    const row: Record<string, number> = {
      configure: t1 - t0,
      load: out.timings.load_ms,
      execute: out.timings.execute_ms,
      observe: out.timings.observe_ms,
      total: t2 - t0,
    };
    for (const [k, v] of spent) row[`rest.${k}`] = v;
    row.datagrams = dev.streamer.sent - sent0;
    row.kclocks = (dev.clock.executed - clocks0) / 1000;
    for (const [k, v] of Object.entries(row)) totals.set(k, (totals.get(k) ?? 0) + v);
    console.log(
      `${e.path} ${out.status}: ${Object.entries(row)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(', ')}`,
    );
  }
  console.log(`mean: ${[...totals].map(([k, v]) => `${k} ${(v / entries.length).toFixed(0)}`).join(', ')}`);
  await conn.close();
  await dev.stop();
  rmSync(work, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
