// get_run_timeline as the service serves it: GET /v13/runs/{id}/timeline over HTTP (keep-alive) on
// a run registering a 30-second capture (82,110 datagrams ≈ 120 MB) and its index — side by side,
// in the same run, with the peer: the same pages read by the core (readTimelinePage) directly.
// The ratio is what the route adds (run lookup, checks, JSON). Pages: first, middle, last, and an
// address-filtered page.
//
//   node --import tsx bench/ultimate-timeline/route.ts [pages-per-case]
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_RECORD_SCHEMA_VERSION, type RunRecord } from '../../services/ultimate-tool/api/schemas.js';
import { UltimateToolService } from '../../services/ultimate-tool/index.js';
import { buildCaptureIndex } from '../../services/ultimate-tool/timeline/capture-index.js';
import { readTimelinePage } from '../../services/ultimate-tool/timeline/timeline-page.js';
import { datagram, entry, writeCapture } from '../../test/services/ultimate-tool/timeline/capture-fixture.js';

const pages = Number(process.argv[2] ?? 40);
const DATAGRAMS = 82_110;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

const dir = mkdtempSync(join(tmpdir(), 'timeline-route-bench-'));
const svc = await UltimateToolService.start({
  projectDir: join(import.meta.dirname, '..', '..', 'examples', 'c64-project'),
  storeDir: join(dir, 'store'),
  port: 0,
  vice: null,
  ultimate: null,
});
try {
  const runId = randomUUID();
  const runDir = svc.store.runDir(runId);
  mkdirSync(runDir, { recursive: true });
  const grams: Buffer[] = [];
  for (let i = 0; i < DATAGRAMS; i++)
    grams.push(
      datagram(i, [
        entry(0x0801 + (i % 64), i & 0xff, 'read'),
        entry(0xd020 + (i % 2), 1, 'write'),
        entry(0x0400 + (i % 1000), 0x20, 'vic'),
      ]),
    );
  const capturePath = join(runDir, 'debug-stream-capture.bin');
  writeCapture(capturePath, grams);
  grams.length = 0;
  const { index } = await buildCaptureIndex(capturePath);
  const indexPath = join(runDir, 'debug-stream-index.bin');
  writeFileSync(indexPath, index);
  const indexSha256 = createHash('sha256').update(index).digest('hex');
  const now = new Date().toISOString();
  const record: RunRecord = {
    run_record_schema_version: RUN_RECORD_SCHEMA_VERSION,
    run_id: runId,
    job_id: 'bench',
    test: 'debug-stream-capture',
    target: 'ultimate',
    target_identity: {},
    emulation: true,
    candidate: { artifact_sha256: null, artifact_name: 'none', build: {} },
    started_at: now,
    finished_at: now,
    timings: {},
    expectations: {},
    observations: {
      debug_stream: { capture: 'debug-stream-capture.bin', index: 'debug-stream-index.bin', stream_product: 'u64', truncation: 'none' },
    },
    status: 'passed',
    status_reason: 'bench',
    screen_match: null,
    supporting_artifacts: [],
    // The capture's own SHA-256 is not re-read per page (the index carries per-block hashes).
    evidence: [
      { name: 'debug-stream-capture.bin', media_type: 'application/octet-stream', size: 0, sha256: '0'.repeat(64) },
      { name: 'debug-stream-index.bin', media_type: 'application/octet-stream', size: index.length, sha256: indexSha256 },
    ],
    crash_state: null,
    comparison: null,
  };
  svc.store.insertRun(record);

  const cases: Array<[string, string, Parameters<typeof readTimelinePage>[1]]> = [
    ['first page (256 rows)', '', {}],
    ['middle page (256 rows)', `cursor=${DATAGRAMS >> 1}:0`, { cursor: `${DATAGRAMS >> 1}:0` }],
    ['last page (256 rows)', `cursor=${DATAGRAMS - 1}:100`, { cursor: `${DATAGRAMS - 1}:100` }],
    [
      'address-filtered ($D021 writes, 4096 rows)',
      `address_from=$D021&address_to=$D021&access=write&limit=4096&cursor=${DATAGRAMS >> 2}:0`,
      { addressFrom: 0xd021, addressTo: 0xd021, access: 'write', limit: 4096, cursor: `${DATAGRAMS >> 2}:0` },
    ],
  ];
  const ev = { capturePath, indexPath, indexSha256, product: 'u64' as const };
  console.log(`capture: ${DATAGRAMS} datagrams; ${pages} pages per case; route (HTTP) vs core, interleaved`);
  const rssBefore = process.memoryUsage().rss;
  for (const [name, qs, q] of cases) {
    const route: number[] = [];
    const core: number[] = [];
    for (let i = 0; i < pages; i++) {
      let s = performance.now();
      const r = await fetch(`${svc.url}/v13/runs/${runId}/timeline${qs ? `?${qs}` : ''}`);
      const body = (await r.json()) as { rows?: unknown[] };
      route.push(performance.now() - s);
      if (r.status !== 200 || !body.rows?.length) throw new Error(`route answered ${r.status}`);
      s = performance.now();
      await readTimelinePage(ev, q);
      core.push(performance.now() - s);
    }
    console.log(
      `${name.padEnd(44)} route p50 ${percentile(route, 50).toFixed(2)} ms p95 ${percentile(route, 95).toFixed(2)} ms | core p50 ${percentile(core, 50).toFixed(2)} ms p95 ${percentile(core, 95).toFixed(2)} ms | route/core ${(percentile(route, 50) / percentile(core, 50)).toFixed(2)}×`,
    );
  }
  console.log(`rss growth over the pages: ${((process.memoryUsage().rss - rssBefore) / 1e6).toFixed(1)} MB`);
} finally {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
}
