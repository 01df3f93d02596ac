// Work that must not overlap runs one at a time, in arrival order. A waiter whose signal aborts
// is dropped from the queue and never runs (it rejects with a CancelledError).

export class CancelledError extends Error {
  override readonly name = 'CancelledError';
}

interface Waiter {
  run: () => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class SerialQueue {
  readonly #waiting: Waiter[] = [];
  #busy = false;

  get idle(): boolean {
    return !this.#busy && this.#waiting.length === 0;
  }

  /** How many calls are waiting (not counting the one running). */
  get pending(): number {
    return this.#waiting.length;
  }

  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError('cancelled before it started'));
      const waiter: Waiter = { run: fn, resolve: resolve as (v: unknown) => void, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.#waiting.indexOf(waiter);
          if (i >= 0) {
            this.#waiting.splice(i, 1);
            reject(new CancelledError('cancelled while waiting for an earlier call to finish; it never ran'));
          }
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiting.push(waiter);
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#busy) return;
    const next = this.#waiting.shift();
    if (!next) return;
    if (next.signal && next.onAbort) next.signal.removeEventListener('abort', next.onAbort);
    this.#busy = true;
    next
      .run()
      .then(next.resolve, next.reject)
      .finally(() => {
        this.#busy = false;
        this.#pump();
      });
  }
}

/**
 * Named exclusive leases (for example one per device target): `acquire(name)` resolves with a
 * release function once nobody else holds that name. Holders of different names never wait for
 * each other. `holder(name)` says who holds it, for messages like "busy: held by job X".
 */
export class LeaseTable {
  readonly #queues = new Map<string, SerialQueue>();
  readonly #holders = new Map<string, string>();

  holder(name: string): string | undefined {
    return this.#holders.get(name);
  }

  /** Run `fn` while holding the lease `name`; `owner` is recorded for `holder()`. */
  with<T>(name: string, owner: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let queue = this.#queues.get(name);
    if (!queue) {
      queue = new SerialQueue();
      this.#queues.set(name, queue);
    }
    const q = queue;
    return q.run(async () => {
      this.#holders.set(name, owner);
      try {
        return await fn();
      } finally {
        this.#holders.delete(name);
        if (q.idle || q.pending === 0) {
          // keep the map small: a queue with nobody waiting is recreated on the next acquire
          queueMicrotask(() => {
            if (q.idle && this.#queues.get(name) === q) this.#queues.delete(name);
          });
        }
      }
    }, signal);
  }
}
