// What the native flow needs from the service around it: the stores, the configured Ultimate, the
// target lease (so a native run never interleaves with a test job or capture), the lab bench, the
// clock and the log. One object, so each native module takes exactly this and nothing more.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../common/index.js';
import { UltimateDevice } from '../../../engines/ultimate/device.js';
import { UltimateError } from '../../../engines/ultimate/errors.js';
import type { Job } from '../api-schemas.js';
import type { UltimateTargetConfig } from '../jobs.js';
import { ServiceError } from '../service-error.js';
import type { ServiceStore } from '../store.js';
import type { LabBench } from './lab-bench.js';
import type { NativeStore } from './native-store.js';

export interface NativeContext {
  store: ServiceStore;
  native: NativeStore;
  projectRoot: string;
  ultimate: () => UltimateTargetConfig | null;
  withTargetLease: <T>(holder: string, fn: () => Promise<T>) => Promise<T>;
  bench: LabBench | null;
  logger: Logger;
  now: () => number;
  /** How long a native run's output is awaited on the lab bench (default 30 s). */
  outputTimeoutMs: number;
  /** Native jobs not yet ended, by id: GET /v13/jobs/active shows the running one like a test job. */
  liveJobs: Map<string, Job>;
}

export function isoNow(ctx: NativeContext): string {
  return new Date(ctx.now()).toISOString();
}

export function openDevice(ctx: NativeContext): UltimateDevice {
  const u = ctx.ultimate();
  if (!u) throw new ServiceError('target_unavailable', 'no Ultimate is configured in this service (C64U_HOST or --virtual-device)', 503);
  return new UltimateDevice(u.device);
}

/**
 * Whether a failed device step left its effect unknown: nobody answered, the connection broke, or
 * the answer made no sense. A refusal the device stated (HTTP status, FTP reply code, nothing
 * listening at all) is definite: the step did not happen.
 */
export function isAmbiguous(e: unknown): boolean {
  if (!(e instanceof UltimateError)) return true;
  return e.kind === 'timeout' || e.kind === 'network' || e.kind === 'protocol';
}

/** A job record for a native operation (served by GET /v13/jobs/{id} like every other job). */
export function newNativeJob(ctx: NativeContext, kind: string, extra: Record<string, unknown> = {}): Job & Record<string, unknown> {
  const now = isoNow(ctx);
  const job: Job & Record<string, unknown> = {
    job_id: randomUUID(),
    state: 'running',
    test: kind,
    targets: ['ultimate'],
    repeat: 1,
    strict_gate: true,
    baseline_run_id: null,
    created_at: now,
    started_at: now,
    finished_at: null,
    progress: { completed_runs: 0, total_runs: 1, phase: 'starting' },
    run_ids: [],
    error: null,
    kind,
    ...extra,
  };
  ctx.liveJobs.set(job.job_id, job);
  return job;
}

export function saveJob(
  ctx: NativeContext,
  job: Job,
  phase: string,
  end?: { ok: boolean; error?: { code: string; message: string } },
): void {
  job.progress.phase = phase;
  if (end) {
    job.state = end.ok ? 'finished' : 'failed';
    job.finished_at = isoNow(ctx);
    job.progress.completed_runs = 1;
    job.error = end.error ?? null;
    ctx.liveJobs.delete(job.job_id);
  }
  ctx.store.putJob(job);
}
