// Seeds a service store through the store's own API (ServiceStore.insertRuns: one SQLite
// transaction, the same insertRun the job runner commits with) with realistic run records — the
// shape the job runner writes (schema 9: identity, build summary, timings, expectations,
// observations with 25 screen lines, eight registered evidence files, supporting artifacts) over
// the example project's tests, both targets and every status — and with one capture run whose
// debug-stream capture covers 30 s of bus trace (82,110 datagrams, the U64's rate), written in
// the device layer's capture format and indexed by the service's own buildCaptureIndex.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256File, sha256Hex } from '../../common/index.js';
import { RUN_RECORD_SCHEMA_VERSION, type RunRecord, type RunStatus } from '../../services/ultimate-tool/api/schemas.js';
import { ServiceStore } from '../../services/ultimate-tool/store/store.js';
import { buildCaptureIndex } from '../../services/ultimate-tool/timeline/capture-index.js';
import { datagram, entry, writeCapture } from '../../test/services/ultimate-tool/timeline/capture-fixture.js';

const TESTS = ['sum-passes', 'arithmetic-fails', 'greeting-on-screen', 'brk-crash', 'timeline-probe', 'checkpoint-probe'];
const STATUSES: RunStatus[] = ['passed', 'passed', 'passed', 'failed', 'crashed', 'timed_out', 'error'];
/** 30 s of a U64 debug stream (docs/ultimate/CAPTURES.md). */
export const CAPTURE_DATAGRAMS = 82_110;

function runRecord(i: number): RunRecord {
  const sha = sha256Hex(`artifact ${i % 50}`);
  const at = new Date(Date.UTC(2026, 0, 1) + i * 7000).toISOString();
  const test = TESTS[i % TESTS.length] ?? 'sum-passes';
  const target = i % 3 === 0 ? 'ultimate' : 'vice';
  return {
    run_record_schema_version: RUN_RECORD_SCHEMA_VERSION,
    run_id: randomUUID(),
    job_id: randomUUID(),
    test,
    target,
    target_identity:
      target === 'ultimate'
        ? { product: 'Ultimate 64', firmware_version: '3.12', fpga_version: '121', core_version: '1.45', api_version: '0.1', virtual: true }
        : { emulator: 'virtual-vice', monitor: 'binary' },
    emulation: true,
    candidate: {
      artifact_sha256: sha,
      artifact_name: test,
      build: { status: 'succeeded', command: ['make', '--no-print-directory'], exit_code: 0, duration_ms: 212.5, clean_copy: true },
    },
    started_at: at,
    finished_at: at,
    timings: {
      build_ms: 212,
      load_ms: 71,
      execute_ms: 12,
      observe_ms: 41,
      record_ms: 2,
      run_total_ms: 140,
      device_ms: 120,
      service_ms: 20,
    },
    expectations: {
      observe: 'debug_register',
      debug_register: 128,
      screen_match: null,
      memory: [{ address: 49152, bytes: '37' }],
      budget: { time_ms: 5000 },
    },
    observations: {
      observe: 'debug_register',
      debug_register: 128,
      debug_register_hex: '$80',
      progress_markers: [1, 2, 3],
      memory: [{ address: 49152, bytes: '37', actual: '37', matched: true }],
      screen_text: Array.from({ length: 25 }, (_, r) => (r === 0 ? 'READY.'.padEnd(40) : ' '.repeat(40))),
    },
    status: STATUSES[i % STATUSES.length] ?? 'passed',
    status_reason: 'seeded by bench/ultimate-dashboard (a realistic record, not a real run)',
    screen_match: null,
    supporting_artifacts: [
      { role: 'prg', format: 'c64-prg', name: `${test}.prg`, size: 212, sha256: sha },
      { role: 'labels', format: 'acme-vicelabels', name: `${test}.labels`, size: 600, sha256: sha },
    ],
    evidence: [
      'build-stdout.txt',
      'build-stderr.txt',
      'screen.txt',
      'screenshot.png',
      'screen-ram.bin',
      'colour-ram.bin',
      `${test}.prg`,
      `${test}.labels`,
    ].map((name) => ({
      name,
      media_type: name.endsWith('.png') ? 'image/png' : name.endsWith('.txt') ? 'text/plain' : 'application/octet-stream',
      size: 1000,
      sha256: sha,
    })),
    crash_state: null,
    comparison: null,
  };
}

/** 10,000 (or `count`) runs in one transaction; returns the time it took. */
export function seedRuns(storeDir: string, count: number): number {
  const t = performance.now();
  const store = new ServiceStore(storeDir);
  try {
    store.insertRuns(Array.from({ length: count }, (_, i) => runRecord(i)));
  } finally {
    store.close();
  }
  return performance.now() - t;
}

export interface CaptureRun {
  runId: string;
  captureBytes: number;
  indexBytes: number;
  datagrams: number;
}

/** One committed run registering a capture (default 30 s) and its timeline index (newest run). */
export async function seedCaptureRun(storeDir: string, datagrams: number = CAPTURE_DATAGRAMS): Promise<CaptureRun> {
  const store = new ServiceStore(storeDir);
  try {
    const runId = randomUUID();
    const runDir = store.runDir(runId);
    mkdirSync(runDir, { recursive: true });
    const grams: Buffer[] = [];
    for (let i = 0; i < datagrams; i++)
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
    const capture = await sha256File(capturePath);
    const captureBytes = capture.size;
    const at = new Date().toISOString();
    store.insertRun({
      ...runRecord(0),
      run_id: runId,
      test: 'debug-stream-capture',
      target: 'ultimate',
      started_at: at,
      finished_at: at,
      status: 'passed',
      observations: {
        debug_stream: {
          capture: 'debug-stream-capture.bin',
          index: 'debug-stream-index.bin',
          stream_product: 'u64',
          truncation: 'none',
          datagrams: CAPTURE_DATAGRAMS,
          duration_ms: 30_000,
        },
      },
      supporting_artifacts: [],
      evidence: [
        { name: 'debug-stream-capture.bin', media_type: 'application/octet-stream', size: captureBytes, sha256: capture.sha256 },
        { name: 'debug-stream-index.bin', media_type: 'application/octet-stream', size: index.length, sha256: sha256Hex(index) },
      ],
    });
    return { runId, captureBytes, indexBytes: index.length, datagrams };
  } finally {
    store.close();
  }
}
