// What the durable latch costs: the latch transaction of the native flow (run insert + intent out
// of `active`, SQLite WAL with synchronous = FULL, fsync'd) side by side in one run with an
// ordinary job-state write of the same service (the main store, synchronous = NORMAL, no fsync per
// commit), interleaved so machine load hits both alike. The ratio is what the latch's guarantee
// (survives power loss, not only kill -9) costs per write.
//
//   node --import tsx bench/ultimate-native-flow/latch.ts [iterations]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NativeIntent, NativeRun } from '../../services/ultimate-tool/jobs/native/native-records.js';
import { NativeStore } from '../../services/ultimate-tool/jobs/native/native-store.js';
import { ServiceStore } from '../../services/ultimate-tool/store/store.js';

const n = Number(process.argv[2] ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'native-latch-bench-'));
const store = new ServiceStore(join(dir, 'store'));
const native = new NativeStore(join(dir, 'store'));
const now = new Date().toISOString();

function intent(): NativeIntent {
  return {
    intent_id: randomUUID(),
    preparation_id: randomUUID(),
    program: 'bench',
    ue2_sha256: '0'.repeat(64),
    mode: 'standing',
    state: 'active',
    state_reason: null,
    health_gate: 'none',
    identity: {
      device_host: '127.0.0.1',
      product: 'Ultimate 64 Elite II',
      unique_id: null,
      hostname: 'h',
      firmware: 'f',
      fpga: 'x',
      core: null,
      api_version: '0.1',
      virtual: true,
    },
    probe_id: randomUUID(),
    created_at: now,
    updated_at: now,
    expires_at: null,
    max_runs: null,
    runs_started: 0,
    last_run_id: null,
  };
}

const intents = Array.from({ length: n }, intent);
for (const i of intents) native.insertIntent(i);
const latchMs: number[] = [];
const jobMs: number[] = [];
for (let k = 0; k < n; k++) {
  const runId = randomUUID();
  const run: NativeRun = {
    native_run_id: runId,
    intent_id: intents[k]!.intent_id,
    job_id: randomUUID(),
    program: 'bench',
    ue2_sha256: '0'.repeat(64),
    utr2_token: 'T0',
    device_file: '/Temp/x.ue2',
    state: 'latched',
    steps: [{ step: 'latched', at: now }],
    started_at: now,
    finished_at: null,
    outcome: null,
    evidence: [],
  };
  let t = performance.now();
  native.transition(intents[k]!.intent_id, { kind: 'latch', runId }, now, { insert: run });
  latchMs.push(performance.now() - t);
  t = performance.now();
  store.putJob({
    job_id: randomUUID(),
    state: 'running',
    test: 'bench',
    targets: ['ultimate'],
    repeat: 1,
    strict_gate: false,
    baseline_run_id: null,
    created_at: now,
    started_at: now,
    finished_at: null,
    progress: { completed_runs: 0, total_runs: 1, phase: 'x' },
    run_ids: [],
    error: null,
  });
  jobMs.push(performance.now() - t);
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const p95 = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length * 0.95)]!;
const out = {
  iterations: n,
  latch_fsync_median_ms: +median(latchMs).toFixed(3),
  latch_fsync_p95_ms: +p95(latchMs).toFixed(3),
  job_write_median_ms: +median(jobMs).toFixed(3),
  job_write_p95_ms: +p95(jobMs).toFixed(3),
  ratio_median: +(median(latchMs) / median(jobMs)).toFixed(1),
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
native.close();
store.close();
rmSync(dir, { recursive: true, force: true });
