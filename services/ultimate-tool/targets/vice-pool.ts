// The vice target's pool of emulator instances (`serve --vice-instances N`, default: the machine's
// cores): up to N runs at once, each on an instance of its own. Every run gets a FRESH emulator
// process started with that run's machine flags (targets/machine-options.ts), so each run starts on
// a clean machine by construction — nothing of an earlier run (RAM, chips, checkpoints, warp
// state) can remain. The start-up is hidden: after a run, the slot starts a spare instance with
// the same flags in the background (consecutive tests mostly share their machine), parked in its
// monitor so it costs no CPU while it waits; a run whose flags match a spare takes it.
import type { Logger } from '../../../common/index.js';
import { ViceConnection, withRunDefaults } from './vice-target.js';

export interface VicePoolOptions {
  /** The emulator's argv (default x64sc -default +sound); +autostart-delay-random, -autostartprgmode 1, flags and the monitors are appended. */
  command: string[];
  /** Instances at most (≥ 1). */
  instances: number;
  /** Start each instance with -warp (the emulation as fast as the host allows). */
  warp: boolean;
  startTimeoutMs?: number;
  logger?: Logger;
}

interface Spare {
  key: string;
  conn: Promise<ViceConnection>;
}

/** One run's instance; give it back with release(). */
export interface ViceLease {
  readonly conn: ViceConnection;
  /** The argv the instance was started with (command, -warp, machine flags). */
  readonly argv: string[];
}

export class VicePool {
  readonly #opts: VicePoolOptions;
  #busy = 0;
  readonly #waiting: Array<() => void> = [];
  readonly #spares: Spare[] = [];
  #closed = false;

  constructor(opts: VicePoolOptions) {
    if (!Number.isInteger(opts.instances) || opts.instances < 1) throw new RangeError(`instances must be ≥ 1; got ${opts.instances}`);
    this.#opts = opts;
  }

  get instances(): number {
    return this.#opts.instances;
  }

  /** Runs holding an instance now. */
  get busy(): number {
    return this.#busy;
  }

  argv(flags: readonly string[]): string[] {
    return [...withRunDefaults(this.#opts.command), ...(this.#opts.warp ? ['-warp'] : []), ...flags];
  }

  /** Waits for a free slot (or the signal), then hands out a fresh instance started with `flags`. */
  async acquire(flags: readonly string[], signal?: AbortSignal): Promise<ViceLease> {
    await this.#slot(signal);
    try {
      const argv = this.argv(flags);
      const key = JSON.stringify(argv);
      const i = this.#spares.findIndex((s) => s.key === key);
      let conn: ViceConnection | undefined;
      if (i >= 0) {
        const [spare] = this.#spares.splice(i, 1);
        conn = await spare!.conn.catch(() => undefined);
      }
      if (!conn) {
        conn = await this.#launch(argv);
        // The same state as a spare's: stopped in the monitor, ready for the run's first command.
        await conn.client.ping();
      }
      return { conn, argv };
    } catch (e) {
      this.#free();
      throw e;
    }
  }

  /** Ends the run's instance and starts a spare with the same flags for the next run. */
  async release(lease: ViceLease): Promise<void> {
    try {
      await lease.conn.close();
    } finally {
      this.#free();
    }
    if (this.#closed) return;
    const key = JSON.stringify(lease.argv);
    if (this.#spares.some((s) => s.key === key)) return;
    const conn = this.#launch(lease.argv).then(async (c) => {
      // Parked in its monitor: an idle emulator in warp would otherwise take a whole core.
      await c.client.ping();
      return c;
    });
    conn.catch((e: unknown) => this.#opts.logger?.warn(`vice pool: a spare instance did not start: ${(e as Error).message}`));
    this.#spares.push({ key, conn });
    // At most one spare per slot: the oldest goes.
    while (this.#spares.length > this.#opts.instances) {
      const old = this.#spares.shift()!;
      void old.conn.then((c) => c.close()).catch(() => undefined);
    }
  }

  /** Closes the spares; runs in progress close their own instances on release. */
  async close(): Promise<void> {
    this.#closed = true;
    const spares = this.#spares.splice(0);
    await Promise.all(spares.map((s) => s.conn.then((c) => c.close()).catch(() => undefined)));
  }

  #launch(argv: string[]): Promise<ViceConnection> {
    return ViceConnection.launch({ command: argv, startTimeoutMs: this.#opts.startTimeoutMs, emulation: true });
  }

  #slot(signal?: AbortSignal): Promise<void> {
    if (this.#busy < this.#opts.instances) {
      this.#busy++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const take = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#busy++;
        resolve();
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(take);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(take);
    });
  }

  #free(): void {
    this.#busy--;
    this.#waiting.shift()?.();
  }
}
