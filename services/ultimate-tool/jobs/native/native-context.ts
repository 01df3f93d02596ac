// What the native flow needs from the service around it: the stores, the configured Ultimate, the
// target lease (so a native run never interleaves with a test job or capture), the lab bench, the
// clock and the log. One object, so each native module takes exactly this and nothing more.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../../common/index.js';
import { UltimateDevice } from '../../../../engines/ultimate/index.js';
import { UltimateError } from '../../../../engines/ultimate/index.js';
import type { UltimateTargetConfig } from '../job-context.js';
import { type JobHandle, type JobRecord, type JobRunner, newJobRecord } from '../job-runner.js';
import { ServiceError } from '../../http/service-error.js';
import type { ServiceStore } from '../../store/store.js';
import type { LabBench } from './lab-bench.js';
import type { NativeStore } from './native-store.js';

export interface NativeContext {
  store: ServiceStore;
  native: NativeStore;
  projectRoot: string;
  ultimate: () => UltimateTargetConfig | null;
  /** The service's one job runner: native jobs hold the ultimate lease like every other job. */
  jobs: JobRunner;
  bench: LabBench | null;
  logger: Logger;
  now: () => number;
  /** How long a native run's output is awaited on the lab bench (default 30 s). */
  outputTimeoutMs: number;
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

/** A job record for a native operation (served by GET /v13/jobs/{id} like every other job), state queued. */
export function newNativeJob(ctx: NativeContext, kind: string, extra: Record<string, unknown> = {}): JobRecord {
  return newJobRecord(randomUUID(), isoNow(ctx), {
    test: kind,
    targets: ['ultimate'],
    strict_gate: true,
    total_runs: 1,
    phase: 'queued: waiting for the ultimate target lease',
    extra: { kind, ...extra },
  });
}

/** A phase of a native job, and its end when `end` is given (a native job counts as one run). */
export function saveJob(h: JobHandle, phase: string, end?: { ok: boolean; error?: { code: string; message: string } }): void {
  h.phase(phase);
  if (end) {
    h.job.progress.completed_runs = 1;
    h.end(end);
  } else h.save();
}
