// LispexHost: evaluation in worker threads. The engine is synchronous; running it in a worker is
// what lets the wall clock and cancellation stop anything — even one huge bignum operation — by
// terminating the worker, while the calling thread (an MCP server, say) keeps answering. Each
// worker's memory is bounded by V8 resourceLimits, so a runaway allocation kills only that worker.
// Workers are reused: each resets its engine to the warm baseline after every job (see
// worker-pool.ts); only a terminated worker is replaced.

import { performance } from 'node:perf_hooks';
import type { InlineEvaluator } from './inline-evaluator.js';
import { isInlineBounded } from './inline-gate.js';
import type { HostOutcome, WorkerFailureReason } from './outcome.js';
import type { EvaluationJob, TransferBounds, WorkerReply } from './protocol.js';
import type { Answer } from './worker-loop.js';
import { WorkerPool, type PooledWorker } from './worker-pool.js';
import { DEFAULT_WORKER_MEMORY, locateWorkerScript, type WorkerMemoryLimits, type WorkerScript } from './worker-script.js';

/** The fixed evaluation wall clock of the MCP contract. */
export const DEFAULT_WALL_CLOCK_MS = 5_000;

/** Longest wait for a worker to start before the call answers `start-failed`. */
export const WORKER_START_TIMEOUT_MS = 60_000;

/** No transfer bound: the observation is delivered whatever its size. */
export const UNBOUNDED_TRANSFER: TransferBounds = {
  maxRecords: Number.MAX_SAFE_INTEGER,
  maxObservationBytes: Number.MAX_SAFE_INTEGER,
};

export interface LispexHostOptions {
  /** Spare workers kept started ahead of need (default 2: one comparison runs two routes at once). */
  readonly warmWorkers?: number;
  /** Most evaluations running at once; more wait in arrival order (default 4). */
  readonly maxConcurrent?: number;
  /**
   * Wall clock per evaluation, counted from the moment `evaluate` is called: time spent waiting
   * for a concurrency slot counts against it, so a burst of calls never waits unbounded (default
   * 5,000 ms). Waiting for a worker to start (first use, or after a worker was terminated) is
   * not counted; it is bounded by WORKER_START_TIMEOUT_MS.
   */
  readonly wallClockMs?: number;
  readonly memory?: WorkerMemoryLimits;
  /** Bounds the worker checks before sending an observation (default: none). */
  readonly bounds?: TransferBounds;
  /** The worker script (default: engines/lispex/worker found next to this module). */
  readonly script?: WorkerScript;
  /**
   * Evaluate the jobs the inline gate admits (programs that provably end within microseconds:
   * short, no variables, procedures or loops, see inline-gate.ts) on the calling thread instead of
   * a worker, saving the trip to the worker and back. The engine is then loaded in the calling
   * thread too (in the background; until it is warm every job goes to a worker). Default false.
   */
  readonly inline?: boolean;
}

export interface EvaluateOptions {
  /** Aborting terminates the worker and answers `cancelled`. */
  readonly signal?: AbortSignal;
  readonly wallClockMs?: number;
  readonly bounds?: TransferBounds;
}

/** Why a call stopped before its worker answered. */
type Interruption = 'cancelled' | 'wall-clock';

export class LispexHost {
  private readonly pool: WorkerPool;
  private readonly wallClockMs: number;
  private readonly maxConcurrent: number;
  private readonly bounds: TransferBounds;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private nextJobId = 1;
  private closed = false;
  private inlineEvaluator: InlineEvaluator | null = null;
  private readonly inlineLoading: Promise<boolean>;
  private inlineCount = 0;

  constructor(options: LispexHostOptions = {}) {
    this.wallClockMs = options.wallClockMs ?? DEFAULT_WALL_CLOCK_MS;
    this.maxConcurrent = Math.max(1, options.maxConcurrent ?? 4);
    this.bounds = options.bounds ?? UNBOUNDED_TRANSFER;
    const warm = Math.max(0, options.warmWorkers ?? 2);
    this.pool = new WorkerPool({
      script: options.script ?? locateWorkerScript(),
      memory: options.memory ?? DEFAULT_WORKER_MEMORY,
      warm,
      maxIdle: Math.max(warm, this.maxConcurrent),
    });
    this.pool.topUp();
    this.inlineLoading = options.inline
      ? import('./inline-evaluator.js').then(
          ({ InlineEvaluator }) => {
            if (!this.closed) this.inlineEvaluator = new InlineEvaluator();
            return this.inlineEvaluator !== null;
          },
          () => false,
        )
      : Promise.resolve(false);
  }

  /** Resolves once inline evaluation is ready: true, or false when it is off or failed to load. */
  inlineReady(): Promise<boolean> {
    return this.inlineLoading;
  }

  /** Jobs evaluated on the calling thread so far (see LispexHostOptions.inline). */
  get inlineEvaluations(): number {
    return this.inlineCount;
  }

  /** Workers started since construction (a worker is reused until it is terminated). */
  get workersStarted(): number {
    return this.pool.started;
  }

  /** Workers alive right now (warm, starting or busy). */
  get workersAlive(): number {
    return this.pool.size;
  }

  /** Evaluate one job on a worker at its warm baseline. Never rejects: every failure is an outcome. */
  async evaluate(job: EvaluationJob, options: EvaluateOptions = {}): Promise<HostOutcome> {
    const started = performance.now();
    const elapsed = (): number => Math.round((performance.now() - started) * 1000) / 1000;
    const { signal } = options;
    const limitMs = options.wallClockMs ?? this.wallClockMs;
    if (signal?.aborted) return { kind: 'cancelled', hostMs: elapsed() };
    if (this.closed) return this.closedOutcome(elapsed());
    const bounds = options.bounds ?? this.bounds;

    // A program that provably ends within microseconds needs no worker to be stoppable: it runs
    // here, synchronously (so no cancellation can arrive during it), through the same engine code
    // and transfer bounds as in a worker.
    const inline = this.inlineEvaluator;
    if (inline?.usable && isInlineBounded(job)) {
      const answer = inline.run(this.nextJobId++, job, bounds);
      this.inlineCount++;
      const hostMs = elapsed();
      // Out of reach by construction; but had this thread been stalled past the limit, a worker's
      // wall clock would have stopped the job, and that is the answer.
      if (hostMs > limitMs) return { kind: 'wall-clock-exceeded', limitMs, hostMs };
      return answerOutcome(answer, hostMs);
    }

    // The common case — a slot is free and a warm worker waits — without queueing or a start to
    // bound: one timer (the wall clock) and the caller's signal watched directly.
    if (this.running < this.maxConcurrent) {
      const worker = this.pool.takeIdle();
      if (worker !== null) {
        this.running++;
        return this.runOn(worker, job, bounds, elapsed, (stopWith) => {
          const timer = setTimeout(() => stopWith({ kind: 'wall-clock-exceeded', limitMs, hostMs: elapsed() }), limitMs);
          const onAbort = (): void => stopWith({ kind: 'cancelled', hostMs: elapsed() });
          signal?.addEventListener('abort', onAbort, { once: true });
          return () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
          };
        });
      }
    }

    // One stop signal for the whole call: the caller's cancellation, or the wall clock, which
    // starts now (queueing included).
    const stop = new AbortController();
    const onCallerAbort = (): void => stop.abort('cancelled' satisfies Interruption);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    const expire = (): void => stop.abort('wall-clock' satisfies Interruption);
    let timer = setTimeout(expire, limitMs);
    const interrupted = (): HostOutcome =>
      (stop.signal.reason as Interruption) === 'wall-clock'
        ? { kind: 'wall-clock-exceeded', limitMs, hostMs: elapsed() }
        : { kind: 'cancelled', hostMs: elapsed() };
    try {
      const admitted = await this.admit(stop.signal);
      if (!admitted) return this.closed ? this.closedOutcome(elapsed()) : interrupted();
      // Waiting for a slot counted; starting a worker (only at first use, or after one was
      // terminated) does not: it is infrastructure time, bounded by WORKER_START_TIMEOUT_MS.
      const queuedMs = performance.now() - started;
      clearTimeout(timer);
      let worker: PooledWorker;
      try {
        worker = await this.takeUnless(stop.signal);
        timer = setTimeout(expire, Math.max(0, limitMs - queuedMs));
      } catch (error) {
        this.release();
        if (this.closed) return this.closedOutcome(elapsed());
        if (stop.signal.aborted) return interrupted();
        const message = error instanceof Error ? error.message : String(error);
        return {
          kind: 'worker-failure',
          reason: 'start-failed',
          message: `the evaluation worker did not start: ${message}`,
          hostMs: elapsed(),
        };
      }
      return await this.runOn(worker, job, bounds, elapsed, (stopWith) => {
        const onStop = (): void => stopWith(interrupted());
        if (stop.signal.aborted) onStop();
        else stop.signal.addEventListener('abort', onStop, { once: true });
        return () => stop.signal.removeEventListener('abort', onStop);
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Terminate every worker; later evaluations answer `worker-failure` / `host-closed`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake();
    await this.pool.close();
  }

  /**
   * A worker from the pool, unless `stop` fires or the start takes longer than
   * WORKER_START_TIMEOUT_MS first (then the worker goes back unused when it is ready).
   */
  private takeUnless(stop: AbortSignal): Promise<PooledWorker> {
    const taking = this.pool.take();
    let startTimer: NodeJS.Timeout | undefined;
    const bounded = new Promise<PooledWorker>((resolve, reject) => {
      startTimer = setTimeout(() => reject(new Error(`no worker was ready within ${WORKER_START_TIMEOUT_MS} ms`)), WORKER_START_TIMEOUT_MS);
      taking.then(resolve, reject);
    }).finally(() => clearTimeout(startTimer));
    return this.raceStop(taking, bounded, stop);
  }

  private raceStop(taking: Promise<PooledWorker>, bounded: Promise<PooledWorker>, stop: AbortSignal): Promise<PooledWorker> {
    if (stop.aborted) {
      taking.then(
        (w) => this.pool.unused(w),
        () => {},
      );
      return Promise.reject(new Error('interrupted'));
    }
    return new Promise<PooledWorker>((resolve, reject) => {
      const onStop = (): void => {
        taking.then(
          (w) => this.pool.unused(w),
          () => {},
        );
        reject(new Error('interrupted'));
      };
      stop.addEventListener('abort', onStop, { once: true });
      bounded.then(
        (w) => {
          stop.removeEventListener('abort', onStop);
          resolve(w);
        },
        (error: unknown) => {
          stop.removeEventListener('abort', onStop);
          // A start that timed out: give the worker back whenever it does become ready.
          taking.then(
            (w) => this.pool.unused(w),
            () => {},
          );
          reject(error);
        },
      );
    });
  }

  /**
   * Run `job` on `worker` (which holds a slot). `watch` arms whatever may stop the call first —
   * it calls its argument with the outcome to answer, which terminates the worker — and returns
   * how to disarm it once the call is settled.
   */
  private runOn(
    worker: PooledWorker,
    job: EvaluationJob,
    bounds: TransferBounds,
    elapsed: () => number,
    watch: (stopWith: (outcome: HostOutcome) => void) => () => void,
  ): Promise<HostOutcome> {
    const id = this.nextJobId++;
    return new Promise<HostOutcome>((resolve) => {
      let settled = false;
      let disarm: (() => void) | null = null;
      /** `reusable`: the worker answered and reset itself; otherwise it is terminated. */
      const finish = (outcome: HostOutcome, reusable: boolean): void => {
        if (settled) return;
        settled = true;
        disarm?.();
        if (reusable) this.pool.release(worker);
        else this.pool.retire(worker);
        this.release();
        resolve(outcome);
      };
      disarm = watch((outcome) => finish(outcome, false));
      if (settled) {
        disarm();
        return;
      }
      worker.onReply = (reply: WorkerReply) => {
        if (reply.type === 'ready' || reply.id !== id) return;
        finish(answerOutcome(reply, elapsed()), reply.reset === 'baseline');
      };
      worker.onDeath = (error, exitCode) => {
        const reason: WorkerFailureReason =
          (error as NodeJS.ErrnoException | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out-of-memory' : 'exited';
        const message =
          reason === 'out-of-memory'
            ? 'the evaluation worker ran out of memory and was stopped'
            : `the evaluation worker exited (code ${exitCode})${error ? `: ${error.message}` : ''}`;
        finish({ kind: 'worker-failure', reason, message, hostMs: elapsed() }, false);
      };
      worker.worker.postMessage({ type: 'job', id, job, bounds });
    });
  }

  /** Wait for a concurrency slot; false when stopped (or closed) while waiting. */
  private admit(stop: AbortSignal): Promise<boolean> {
    if (this.closed || stop.aborted) return Promise.resolve(false);
    if (this.running < this.maxConcurrent) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const wake = (): void => {
        stop.removeEventListener('abort', onAbort);
        if (this.closed) {
          resolve(false);
          return;
        }
        this.running++;
        resolve(true);
      };
      const onAbort = (): void => {
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      };
      this.waiting.push(wake);
      stop.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  private closedOutcome(hostMs: number): HostOutcome {
    return { kind: 'worker-failure', reason: 'host-closed', message: 'the Lispex host is closed', hostMs };
  }
}

/** The outcome of a job the engine answered (in a worker or inline). */
function answerOutcome(answer: Answer, hostMs: number): HostOutcome {
  switch (answer.type) {
    case 'observation':
      return { kind: 'completed', observation: answer.observation, hostMs };
    case 'over-bound':
      return { kind: 'over-bound', excess: answer.excess, hostMs };
    case 'engine-failure':
      return { kind: 'worker-failure', reason: 'engine-threw', message: answer.message, hostMs };
  }
}

let defaultHost: LispexHost | undefined;

/**
 * Evaluate one job on a process-wide host (created on first use, one warm worker, idle workers
 * do not keep the process alive). For servers, construct a `LispexHost` and close it on exit.
 */
export function evaluateInWorker(job: EvaluationJob, options: EvaluateOptions = {}): Promise<HostOutcome> {
  defaultHost ??= new LispexHost({ warmWorkers: 1 });
  return defaultHost.evaluate(job, options);
}
