// list_runs and get_run over HTTP with 10,000 stored runs, side by side in one run with the
// cheapest route of the same server (GET /v13/jobs/active: no store access) as the floor, so the
// ratio says what the store adds over HTTP itself.
//
//   node --import tsx bench/ultimate-service/runs.ts [iterations]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceStore } from '../../services/ultimate-tool/store/store.js';
import { UltimateToolService } from '../../services/ultimate-tool/index.js';
import type { RunRecord } from '../../services/ultimate-tool/api/schemas.js';

const iterations = Number(process.argv[2] ?? 500);
const RUNS = 10_000;
const project = join(import.meta.dirname, '..', '..', 'examples', 'c64-project');

function record(i: number): RunRecord {
  const sha = 'ab'.repeat(32);
  const t = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return {
    run_record_schema_version: 9,
    run_id: randomUUID(),
    job_id: randomUUID(),
    test: ['sum-passes', 'arithmetic-fails', 'greeting-on-screen', 'brk-crash'][i % 4]!,
    target: i % 2 ? 'vice' : 'ultimate',
    target_identity: { product: 'Ultimate 64 (virtual)', emulation: true },
    emulation: true,
    candidate: { artifact_sha256: sha, artifact_name: 'pass', build: { status: 'succeeded', command: ['make'], duration_ms: 200 } },
    started_at: t,
    finished_at: t,
    timings: { build_ms: 200, load_ms: 70, execute_ms: 10, observe_ms: 40, record_ms: 1 },
    expectations: { observe: 'debug_register', debug_register: 128, memory: [], budget: { time_ms: 5000 } },
    observations: { debug_register: 128, progress_markers: [], memory: [], screen_text: Array(25).fill('X'.repeat(40)) },
    status: i % 3 ? 'passed' : 'failed',
    status_reason: 'the program reported $80, the expected pass value',
    screen_match: null,
    supporting_artifacts: [{ role: 'prg', format: 'c64-prg', name: 'pass.prg', size: 202, sha256: sha }],
    evidence: Array.from({ length: 8 }, (_, k) => ({ name: `e${k}.bin`, media_type: 'application/octet-stream', size: 1000, sha256: sha })),
    crash_state: null,
    comparison: null,
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - t));
      })
      .on('error', reject);
  });
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

const store = mkdtempSync(join(tmpdir(), 'ultimate-bench-runs-'));
try {
  const seed = new ServiceStore(store);
  const ids: string[] = [];
  const batch: RunRecord[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = record(i);
    ids.push(r.run_id);
    batch.push(r);
  }
  seed.insertRuns(batch);
  seed.close();
  const svc = await UltimateToolService.start({ projectDir: project, storeDir: store, port: 0, vice: null });
  const cursorPage = JSON.parse(await (await fetch(`${svc.url}/v13/runs?limit=100`)).text()).next_cursor as string;
  const cases: Array<[string, () => string]> = [
    ['floor: GET /v13/jobs/active', () => '/v13/jobs/active'],
    ['list_runs first page (limit 20)', () => '/v13/runs?limit=20'],
    ['list_runs page 2 via cursor (limit 100)', () => `/v13/runs?limit=100&cursor=${cursorPage}`],
    ['list_runs filtered test+target (limit 20)', () => '/v13/runs?limit=20&test=brk-crash&target=ultimate'],
    ['get_run (random of 10,000)', () => `/v13/runs/${ids[Math.floor(Math.random() * ids.length)]}`],
  ];
  for (const [, p] of cases) for (let i = 0; i < 50; i++) await get(svc.port, p()); // warm-up
  const results: Array<{ name: string; p50: number; p95: number }> = [];
  for (const [name, p] of cases) {
    const xs: number[] = [];
    for (let i = 0; i < iterations; i++) xs.push(await get(svc.port, p()));
    results.push({ name, p50: pct(xs, 50), p95: pct(xs, 95) });
  }
  const floor = results[0]!;
  console.log(`${RUNS} stored runs, ${iterations} requests per case, keep-alive HTTP on 127.0.0.1`);
  console.log('case'.padEnd(44), 'p50 ms'.padStart(8), 'p95 ms'.padStart(8), 'p95 / floor'.padStart(12));
  for (const r of results)
    console.log(r.name.padEnd(44), r.p50.toFixed(3).padStart(8), r.p95.toFixed(3).padStart(8), (r.p95 / floor.p95).toFixed(2).padStart(12));
  // The store alone (no HTTP), in the same process and run: what a page costs without the socket.
  const direct: Array<[string, () => unknown]> = [
    ['store.listRuns first page (limit 20)', () => svc.store.listRuns({ limit: 20 })],
    ['store.listRuns filtered (limit 20)', () => svc.store.listRuns({ limit: 20, test: 'brk-crash', target: 'vice' })],
    ['store.getRun (random)', () => svc.store.getRun(ids[Math.floor(Math.random() * ids.length)]!)],
  ];
  for (const [name, fn] of direct) {
    const xs: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const t = performance.now();
      fn();
      xs.push(performance.now() - t);
    }
    console.log(
      name.padEnd(44),
      pct(xs, 50).toFixed(3).padStart(8),
      pct(xs, 95).toFixed(3).padStart(8),
      (pct(xs, 95) / floor.p95).toFixed(2).padStart(12),
    );
  }
  await svc.stop();
} finally {
  agent.destroy();
  rmSync(store, { recursive: true, force: true });
}
