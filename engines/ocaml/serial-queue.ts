// Calls into one toplevel run one at a time, in arrival order. A call whose signal aborts while it
// is still waiting is dropped from the queue and never runs.
import { OcamlError } from './errors.js';

interface Job {
  run: () => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class SerialQueue {
  private readonly waiting: Job[] = [];
  private busy = false;

  get idle(): boolean {
    return !this.busy && this.waiting.length === 0;
  }

  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(new OcamlError('cancelled', 'cancelled before it started'));
      const job: Job = { run: fn, resolve: resolve as (v: unknown) => void, reject, signal };
      if (signal) {
        job.onAbort = () => {
          const i = this.waiting.indexOf(job);
          if (i >= 0) {
            this.waiting.splice(i, 1);
            reject(new OcamlError('cancelled', 'cancelled while waiting for an earlier call to finish; it never ran'));
          }
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.waiting.push(job);
      this.pump();
    });
  }

  private pump(): void {
    if (this.busy) return;
    const job = this.waiting.shift();
    if (!job) return;
    if (job.signal && job.onAbort) job.signal.removeEventListener('abort', job.onAbort);
    this.busy = true;
    job
      .run()
      .then(job.resolve, job.reject)
      .finally(() => {
        this.busy = false;
        this.pump();
      });
  }
}
