// A small pool of evaluation workers, reused across jobs. A worker runs one job at a time; after
// each job the worker itself resets the engine to its warm baseline (see worker-loop.ts and
// LispexEvaluator.resetToBaseline) before it answers, so nothing a program leaves behind —
// definitions, interned symbols, output, meter counts — is visible to the next job. A worker is
// replaced only when it was terminated (wall clock, cancellation, out of memory, exit) or when its
// reset failed; start-up cost stays off the request path because spares are started ahead of need.

import type { Worker } from 'node:worker_threads';
import type { WorkerReply } from './protocol.js';
import { startWorker, type WorkerMemoryLimits, type WorkerScript } from './worker-script.js';

/** One worker; at most one job at a time. */
export class PooledWorker {
  state: 'starting' | 'idle' | 'busy' | 'dead' = 'starting';
  /** Promised to one caller (which may still be waiting for `ready`). */
  reserved = false;
  /** Jobs this worker has answered (for tests and diagnostics). */
  jobs = 0;
  /** Set while a job runs: receives the worker's replies. */
  onReply: ((reply: WorkerReply) => void) | null = null;
  /** Set while a job runs: told when the worker dies under it. */
  onDeath: ((error: Error | null, exitCode: number) => void) | null = null;
  readonly ready: Promise<void>;
  private lastError: Error | null = null;

  constructor(
    readonly worker: Worker,
    onGone: (w: PooledWorker) => void,
  ) {
    let resolveReady!: () => void;
    let rejectReady!: (e: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    });
    // A rejection nobody awaits (a warm worker that failed to start) must not crash the process.
    this.ready.catch(() => {});
    worker.on('message', (reply: WorkerReply) => {
      if (reply.type === 'ready') {
        if (this.state === 'starting') this.state = 'idle';
        resolveReady();
        return;
      }
      this.onReply?.(reply);
    });
    worker.on('error', (error: Error) => {
      this.lastError = error;
    });
    worker.on('exit', (code: number) => {
      const wasStarting = this.state === 'starting';
      this.state = 'dead';
      if (wasStarting) {
        rejectReady(this.lastError ?? new Error(`worker exited with code ${code} before it was ready`));
      }
      this.onDeath?.(this.lastError, code);
      onGone(this);
    });
  }

  terminate(): void {
    if (this.state === 'dead') return;
    this.onReply = null;
    this.onDeath = null;
    // terminate() stops running JS (even inside a long BigInt operation) at the next interrupt
    // check; the exit event then removes the worker from the pool.
    void this.worker.terminate();
  }
}

export interface WorkerPoolOptions {
  readonly script: WorkerScript;
  readonly memory: WorkerMemoryLimits;
  /** Spare workers kept started and waiting. */
  readonly warm: number;
  /** Most workers alive at once when idle (busy ones beyond it are retired on release). */
  readonly maxIdle: number;
}

export class WorkerPool {
  private readonly workers = new Set<PooledWorker>();
  private closed = false;
  /** After a worker failed to start, stop pre-starting until one starts again (no spawn loop). */
  private startFailing = false;
  /** Workers started so far (for tests and diagnostics). */
  started = 0;

  constructor(private readonly options: WorkerPoolOptions) {}

  /** Start workers until `warm` of them are starting or idle. */
  topUp(): void {
    if (this.closed || this.startFailing) return;
    let spare = 0;
    for (const w of this.workers) if ((w.state === 'starting' || w.state === 'idle') && !w.reserved) spare++;
    for (; spare < this.options.warm; spare++) this.spawn().worker.unref();
  }

  /**
   * A ready worker reserved for the caller: an idle one if any, else one still starting, else a
   * new one. Rejects if the worker cannot start.
   */
  async take(): Promise<PooledWorker> {
    if (this.closed) throw new Error('the Lispex host is closed');
    const free = (state: PooledWorker['state']): PooledWorker | undefined => {
      for (const w of this.workers) if (w.state === state && !w.reserved) return w;
      return undefined;
    };
    const chosen = free('idle') ?? free('starting') ?? this.spawn();
    // Reserve it at once so a concurrent take() does not pick the same worker; keep the event
    // loop alive while someone waits for it.
    chosen.reserved = true;
    chosen.worker.ref();
    // Keep `warm` spares: if this took the last one, a successor starts now, so a call arriving
    // while this one runs (a long evaluation, say) finds a ready worker instead of a start.
    this.topUp();
    try {
      await chosen.ready;
    } catch (error) {
      this.startFailing = true;
      throw error;
    }
    this.startFailing = false;
    if (this.closed || chosen.state === 'dead') {
      chosen.terminate();
      throw new Error(this.closed ? 'the Lispex host is closed' : 'the worker exited before its job');
    }
    chosen.state = 'busy';
    return chosen;
  }

  /**
   * An idle worker reserved for the caller and marked busy, or null when none is idle — what
   * take() does when a warm worker is waiting, without a promise (the common case of a call).
   */
  takeIdle(): PooledWorker | null {
    if (this.closed) return null;
    for (const w of this.workers) {
      if (w.state !== 'idle' || w.reserved) continue;
      w.reserved = true;
      w.worker.ref();
      this.topUp();
      w.state = 'busy';
      return w;
    }
    return null;
  }

  /**
   * Give back a worker whose job was answered (its engine is already reset to the warm
   * baseline). An idle worker does not keep the process alive.
   */
  release(w: PooledWorker): void {
    w.onReply = null;
    w.onDeath = null;
    w.reserved = false;
    if (w.state === 'dead') {
      this.topUp();
    } else if (this.closed || this.idleCount() >= this.options.maxIdle) {
      this.retire(w);
    } else {
      w.state = 'idle';
      w.worker.unref();
    }
  }

  /** Give back a worker reserved by take() but never given a job (the caller gave up waiting). */
  unused(w: PooledWorker): void {
    this.release(w);
  }

  /** Terminate a worker (its job was stopped, or it cannot be trusted) and start a successor. */
  retire(w: PooledWorker): void {
    w.terminate();
    this.topUp();
  }

  get size(): number {
    return this.workers.size;
  }

  /** Terminate every worker and wait until all have exited. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.workers];
    await Promise.all(all.map((w) => (w.state === 'dead' ? undefined : w.worker.terminate())));
  }

  private idleCount(): number {
    let n = 0;
    for (const w of this.workers) if (w.state === 'idle') n++;
    return n;
  }

  private spawn(): PooledWorker {
    const worker = startWorker(this.options.script, this.options.memory);
    this.started++;
    const pooled = new PooledWorker(worker, (gone) => this.workers.delete(gone));
    this.workers.add(pooled);
    return pooled;
  }
}
