// THE job runner of the service: every kind of job — test, capture, native run, health check,
// smoke — is submitted here the same way and runs under the same rules.
//
//   submit({ kind, job, targets, precheck, admit?, body })
//     1. the per-target queue bound (queue_full, 429) — before any work, so a refused job costs
//        nothing (no probe consumed, no row stored);
//     2. precheck(): the last validation and what it consumes (a probe handle); a throw is the
//        HTTP answer and nothing is queued;
//     3. the job is queued: it takes the ultimate target's lease (so jobs on the device never
//        interleave); vice runs go to the pool of emulator instances, side by side, without a lease;
//     4. admit() (optional), the first step under the leases whose failure is still the HTTP
//        answer (a native run answers only once its latch is on disk);
//     5. body(): the rest, in the background; its end is recorded on the job.
//
// Why one runner: run records, job states, the live progress served by GET /v13/jobs/{id}, the
// queue bound, cancellation and what SIGTERM leaves behind were each written three times (test
// jobs, captures holding the request open, native jobs with hand-made promises) and disagreed.
import { CancelledError, LeaseTable } from '../../../common/index.js';
import type { Job, RunRecord, TargetName } from '../api/schemas.js';
import { ServiceError } from '../http/service-error.js';
import type { JobContext } from './job-context.js';

export type JobKind = 'test' | 'capture' | 'native-run' | 'health-check' | 'smoke';

/** A job record as stored: the Job schema plus the fields some kinds add (kind, native_run_id, capture, …). */
export type JobRecord = Job & Record<string, unknown>;

/** Jobs waiting for or holding one target's lease, at most (docs/ultimate/SERVICE.md "Jobs, leases, runs"). */
export const DEFAULT_MAX_JOBS_PER_TARGET = 16;

const TARGET_ORDER: readonly TargetName[] = ['vice', 'ultimate'];

/** Thrown at a safe step of a job whose cancellation was asked for. */
export class JobCancelledError extends Error {
  override readonly name = 'JobCancelledError';
}

/** What a job's steps see of the runner. */
export interface JobHandle {
  readonly job: JobRecord;
  /** Aborted when the service stops (SIGTERM) or the job is cancelled. */
  readonly signal: AbortSignal;
  /** A human phase, served live; `persist` writes the job row too. */
  phase(text: string, persist?: boolean): void;
  /** Writes the job row as it is now. */
  save(): void;
  /** The next safe step: stops the job here when a cancel was asked for or the service stops. */
  safePoint(): void;
  /** Commits one complete run record (one transaction) and counts it on the job. */
  commitRun(record: RunRecord): void;
  /** Ends the job now with this outcome (otherwise a body that returns ends it `finished`). */
  end(outcome: { ok: boolean; error?: JobError }): void;
}

export interface JobError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface JobSubmission<A> {
  kind: JobKind;
  /** The new job record (state `queued`), e.g. from newJobRecord(). */
  job: JobRecord;
  /** The leases the job holds while it runs. */
  targets: readonly TargetName[];
  /** Validation and consumption before the job is queued; a throw is the caller's answer. */
  precheck?: () => void | Promise<void>;
  /** The first step under the leases; the answer of submit() waits for it. Absent: answered once queued. */
  admit?: (h: JobHandle) => Promise<A>;
  /** The job's work, under the leases. */
  body: (h: JobHandle, admitted: A) => Promise<void>;
}

interface LiveJob {
  job: JobRecord;
  kind: JobKind;
  stop: AbortController;
  cancel: AbortController;
  started: boolean;
  ended: boolean;
  done: Promise<void>;
}

export class JobRunner {
  readonly #leases = new LeaseTable();
  readonly #live = new Map<string, LiveJob>();
  readonly #maxPerTarget: number;

  constructor(
    readonly ctx: JobContext,
    options: { maxJobsPerTarget?: number } = {},
  ) {
    this.#maxPerTarget = options.maxJobsPerTarget ?? DEFAULT_MAX_JOBS_PER_TARGET;
  }

  #iso(): string {
    return new Date(this.ctx.now()).toISOString();
  }

  /** The running job that started first (null when none runs). */
  activeJob(): Job | null {
    let best: JobRecord | null = null;
    for (const { job } of this.#live.values()) {
      if (job.state !== 'running') continue;
      if (!best || (job.started_at ?? '') < (best.started_at ?? '')) best = job;
    }
    return best ? structuredClone(best) : null;
  }

  /** A job the runner still holds, with its live progress. */
  liveJob(jobId: string): JobRecord | undefined {
    const r = this.#live.get(jobId);
    return r ? structuredClone(r.job) : undefined;
  }

  /** Jobs queued or running that hold or wait for `target`. */
  queued(target: TargetName): number {
    let n = 0;
    for (const { job, ended } of this.#live.values()) if (!ended && job.targets.includes(target)) n++;
    return n;
  }

  /** The queue bound, then precheck, then the job is queued; answers with the job (and what admit gave). */
  async submit<A = undefined>(s: JobSubmission<A>): Promise<{ job: JobRecord; admitted: A }> {
    for (const t of s.targets) {
      const n = this.queued(t);
      if (n >= this.#maxPerTarget)
        throw new ServiceError(
          'queue_full',
          `the ${t} target already has ${n} job(s) queued or running (at most ${this.#maxPerTarget}); try again when some have ended`,
          429,
          { target: t, limit: this.#maxPerTarget },
        );
    }
    await s.precheck?.();
    const job = s.job;
    const stop = new AbortController();
    const cancel = new AbortController();
    const live: LiveJob = { job, kind: s.kind, stop, cancel, started: false, ended: false, done: Promise.resolve() };
    this.#live.set(job.job_id, live);
    // A job that must be admitted is on record only once admitted: a refusal leaves no job behind.
    if (!s.admit) this.ctx.store.putJob(job);
    const signal = AbortSignal.any([stop.signal, cancel.signal]);
    const handle = this.#handle(live, signal);

    let answer!: (v: { job: JobRecord; admitted: A }) => void;
    let refuse!: (e: unknown) => void;
    const answered = new Promise<{ job: JobRecord; admitted: A }>((res, rej) => {
      answer = res;
      refuse = rej;
    });
    let admitted = false;
    if (!s.admit) {
      admitted = true;
      answer({ job: structuredClone(job), admitted: undefined as A });
    }
    // The vice target has no job lease: its pool of emulator instances (targets/vice-pool.ts) takes
    // runs side by side, each on a fresh instance; the one device of the ultimate target is leased.
    const targets = TARGET_ORDER.filter((t) => s.targets.includes(t) && t !== 'vice');
    const withLeases = (i: number, fn: () => Promise<void>): Promise<void> => {
      const t = targets[i];
      if (t === undefined) return fn();
      return this.#leases.with(t, job.job_id, () => withLeases(i + 1, fn), signal);
    };
    live.done = withLeases(0, async () => {
      live.started = true;
      let value = undefined as A;
      if (s.admit) {
        value = await s.admit(handle);
        admitted = true;
        if (job.state === 'queued') {
          job.state = 'running';
          job.started_at ??= this.#iso();
        }
        this.ctx.store.putJob(job);
        answer({ job: structuredClone(job), admitted: value });
      } else {
        job.state = 'running';
        job.started_at = this.#iso();
        this.ctx.store.putJob(job);
      }
      await s.body(handle, value);
      if (!live.ended) handle.end({ ok: true });
    })
      .catch((e: unknown) => {
        if (!admitted) {
          // Refused before admission: the caller gets the error, nothing is on record.
          refuse(
            e instanceof CancelledError || e instanceof JobCancelledError
              ? new ServiceError('cancelled', `job ${job.job_id} was cancelled before it was admitted`, 409)
              : e,
          );
          live.ended = true;
          return;
        }
        if (live.ended) {
          // A queued job cancelled outright was recorded by cancel(); its lease wait ends here.
          if (live.cancel.signal.aborted && (e instanceof CancelledError || e instanceof JobCancelledError)) return;
          this.ctx.logger.error(`job ${job.job_id} failed after it ended: ${(e as Error)?.stack ?? String(e)}`);
          return;
        }
        this.#fail(live, e);
      })
      .finally(() => this.#live.delete(job.job_id));
    return answered;
  }

  #handle(live: LiveJob, signal: AbortSignal): JobHandle {
    const job = live.job;
    const save = () => this.ctx.store.putJob(job);
    // The targets' runs go side by side, so they commit in any order; run_ids keeps one order all
    // the same — by target (vice, then ultimate), each target's runs in the order they committed.
    const rankOf = new Map<string, number>();
    return {
      job,
      signal,
      save,
      phase: (text, persist = false) => {
        job.progress.phase = text;
        if (persist) save();
      },
      safePoint: () => {
        if (live.stop.signal.aborted) throw new CancelledError('the service is stopping');
        if (live.cancel.signal.aborted) throw new JobCancelledError('cancelled');
      },
      commitRun: (record) => {
        this.ctx.store.insertRun(record);
        rankOf.set(record.run_id, Math.max(0, TARGET_ORDER.indexOf(record.target as TargetName)));
        job.run_ids.push(record.run_id);
        job.run_ids.sort((a, b) => (rankOf.get(a) ?? 0) - (rankOf.get(b) ?? 0));
        job.progress.completed_runs++;
        const statuses = job.progress.statuses ?? {};
        statuses[record.status] = (statuses[record.status] ?? 0) + 1;
        job.progress.statuses = statuses;
        save();
      },
      end: ({ ok, error }) => {
        if (live.ended) return;
        live.ended = true;
        job.state = ok ? 'finished' : 'failed';
        job.finished_at = this.#iso();
        job.error = error ?? null;
        save();
      },
    };
  }

  /** How a job that threw is recorded: cancelled, interrupted by a stop, or failed with its code. */
  #fail(live: LiveJob, e: unknown): void {
    const job = live.job;
    const kept = `its ${job.run_ids.length} committed run(s) are kept`;
    if (live.cancel.signal.aborted && (e instanceof JobCancelledError || e instanceof CancelledError)) {
      job.state = 'cancelled';
      job.error = live.started
        ? { code: 'cancelled', message: `cancelled while running, at its next safe step; ${kept}` }
        : { code: 'cancelled', message: 'cancelled while queued; it never ran' };
    } else if (live.stop.signal.aborted && (e instanceof CancelledError || e instanceof JobCancelledError)) {
      if (live.started) {
        // Stopped while running (SIGTERM): the runs it committed stay, and the record says so.
        job.state = 'failed';
        job.error = { code: 'interrupted', message: `the service stopped while this job was running; ${kept}` };
      } else {
        job.state = 'cancelled';
        job.error = { code: 'cancelled', message: 'the service stopped before this job could run' };
      }
    } else {
      job.state = 'failed';
      job.error =
        e instanceof ServiceError
          ? { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }
          : { code: 'internal', message: `the job failed unexpectedly: ${(e as Error)?.message ?? String(e)}` };
      if (!(e instanceof ServiceError)) this.ctx.logger.error(`job ${job.job_id}: ${(e as Error)?.stack ?? String(e)}`);
    }
    live.ended = true;
    job.finished_at = this.#iso();
    job.progress.phase = job.error?.code === 'interrupted' ? 'interrupted' : job.state;
    this.ctx.store.putJob(job);
  }

  /**
   * Cancels a job: a queued one outright (it never runs), a running one at its next safe step
   * (recorded `cancelled` with what it had committed). Undefined when the runner does not hold it.
   */
  cancel(jobId: string): JobRecord | undefined {
    const live = this.#live.get(jobId);
    if (!live || live.ended) return undefined;
    live.cancel.abort();
    if (live.started) live.job.cancel_requested = true;
    else if (live.job.state === 'queued' && this.ctx.store.getJob(jobId)) {
      // A queued job never ran: it is cancelled now, so the answer is the cancelled record (not
      // the queued one a later GET would contradict).
      const job = live.job;
      live.ended = true;
      job.state = 'cancelled';
      job.error = { code: 'cancelled', message: 'cancelled while queued; it never ran' };
      job.finished_at = this.#iso();
      job.progress.phase = 'cancelled';
      this.ctx.store.putJob(job);
    }
    return structuredClone(live.job);
  }

  /** Settles once the job has ended (resolves at once for a job the runner no longer holds). */
  async settled(jobId: string): Promise<void> {
    await this.#live.get(jobId)?.done;
  }

  /** Cancels queued jobs and lets running ones stop at their next safe step (recorded interrupted). */
  async stop(): Promise<void> {
    const all = [...this.#live.values()];
    for (const r of all) r.stop.abort();
    await Promise.all(all.map((r) => r.done));
  }
}

/** A new job record, state queued (every kind starts from this). */
export function newJobRecord(
  jobId: string,
  now: string,
  f: {
    test: string;
    targets: TargetName[];
    repeat?: number;
    strict_gate: boolean;
    baseline_run_id?: string | null;
    total_runs: number;
    phase?: string;
    extra?: Record<string, unknown>;
  },
): JobRecord {
  return {
    job_id: jobId,
    state: 'queued',
    test: f.test,
    targets: [...f.targets],
    repeat: f.repeat ?? 1,
    strict_gate: f.strict_gate,
    baseline_run_id: f.baseline_run_id ?? null,
    created_at: now,
    started_at: null,
    finished_at: null,
    progress: { completed_runs: 0, total_runs: f.total_runs, phase: f.phase ?? 'queued: waiting for the target lease' },
    run_ids: [],
    error: null,
    ...f.extra,
  };
}
