// Runs the emulated machine in real time: slices of clocks paced against the wall clock at the
// C64's PAL rate (985 248 Hz) times `speed`, or as fast as the host allows with speed 'max' —
// while somebody waits on the machine (`idle`); an idle 'max' machine runs at the PAL rate.
// Pausing is reference-counted by reason (REST pause, an attached VICE monitor, power-off), so two
// parties holding the machine never release each other's hold.
import { performance } from 'node:perf_hooks';
import type { MachineSeam } from './machine-seam.js';

export const PAL_CLOCK_HZ = 985_248;

export type HoldReason = 'rest-pause' | 'monitor' | 'power-off' | 'menu';

export interface ClockOptions {
  /** Multiple of the PAL clock, or 'max' for unpaced (default 1). */
  speed?: number | 'max';
  /** Wall-clock length of one slice in ms (default 5). */
  sliceMs?: number;
  /** Called after each slice (the streamer flushes, the monitor checks for stops). */
  afterSlice?: (executed: number) => void;
  /**
   * At speed 'max': the clocks of one burst before the loop yields (default 200 000). The virtual
   * device makes it small while its debug stream runs: a receiver in the same process reads only
   * so many datagrams per turn of the event loop, and a larger burst would overflow its socket.
   */
  burstClocks?: () => number;
  /**
   * At speed 'max': true while nobody waits on the machine (no stream, no recent request); the
   * clock then runs at the PAL rate instead, so an idle emulation costs a few percent of a core,
   * not all of it (the service shares its event loop with an in-process device).
   */
  idle?: () => boolean;
  /** The wall clock in ms (default performance.now; tests pass their own). */
  now?: () => number;
}

export class MachineClock {
  readonly #machine: MachineSeam;
  readonly #speed: number | 'max';
  readonly #sliceMs: number;
  readonly #afterSlice?: (executed: number) => void;
  readonly #burstClocks?: () => number;
  readonly #idle?: () => boolean;
  readonly #now: () => number;
  /** Whether the last tick ran unpaced ('max' and not idle). */
  #unpaced = false;
  readonly #holds = new Set<HoldReason>();
  #timer?: NodeJS.Timeout | NodeJS.Immediate;
  #stopped = true;
  /** Wall-clock origin and clocks owed since then, re-based on every resume. */
  #originMs = 0;
  #executedSinceOrigin = 0;
  /** Total clocks executed under this clock. */
  executed = 0;

  constructor(machine: MachineSeam, opts: ClockOptions = {}) {
    this.#machine = machine;
    const speed = opts.speed ?? 1;
    if (speed !== 'max' && (!Number.isFinite(speed) || speed <= 0 || speed > 1000)) {
      throw new Error(`speed must be a positive multiple of the PAL clock (≤ 1000) or 'max', got ${speed}`);
    }
    this.#speed = speed;
    this.#sliceMs = opts.sliceMs ?? 5;
    this.#afterSlice = opts.afterSlice;
    this.#burstClocks = opts.burstClocks;
    this.#idle = opts.idle;
    this.#now = opts.now ?? (() => performance.now());
  }

  get running(): boolean {
    return !this.#stopped && this.#holds.size === 0;
  }
  get holds(): HoldReason[] {
    return [...this.#holds];
  }
  get hz(): number {
    return this.#speed === 'max' ? Infinity : PAL_CLOCK_HZ * this.#speed;
  }

  /** Unpaced now: speed 'max' while somebody waits on the machine. */
  #fast(): boolean {
    return this.#speed === 'max' && !(this.#idle?.() ?? false);
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#rebase();
    this.#schedule();
  }

  /** Stops the loop for good (used on shutdown). */
  stop(): void {
    this.#stopped = true;
    this.#cancel();
  }

  hold(reason: HoldReason): void {
    this.#holds.add(reason);
    this.#cancel();
  }

  release(reason: HoldReason): void {
    if (!this.#holds.delete(reason)) return;
    if (this.running) {
      this.#rebase();
      this.#schedule();
    }
  }

  isHeld(reason: HoldReason): boolean {
    return this.#holds.has(reason);
  }

  #rebase(): void {
    this.#originMs = this.#now();
    this.#executedSinceOrigin = 0;
  }

  #cancel(): void {
    if (this.#timer) {
      clearTimeout(this.#timer as NodeJS.Timeout);
      clearImmediate(this.#timer as NodeJS.Immediate);
      this.#timer = undefined;
    }
  }

  #schedule(): void {
    this.#cancel();
    if (!this.running) return;
    if (this.#fast()) this.#timer = setImmediate(() => this.#tick());
    else this.#timer = setTimeout(() => this.#tick(), this.#sliceMs);
  }

  #tick(): void {
    this.#timer = undefined;
    if (!this.running) return;
    if (this.#fast()) {
      this.#unpaced = true;
      this.runNow(this.#burstClocks?.() ?? 200_000);
      this.#schedule();
      return;
    }
    // Paced from here: after an unpaced stretch, the PAL rate counts from now.
    if (this.#unpaced) {
      this.#unpaced = false;
      this.#rebase();
    }
    const hz = PAL_CLOCK_HZ * (this.#speed === 'max' ? 1 : this.#speed);
    const due = Math.floor(((this.#now() - this.#originMs) / 1000) * hz);
    let owed = due - this.#executedSinceOrigin;
    // After a stall (GC, a long synchronous request, a busy host) do not catch up more than 100 ms.
    const cap = Math.ceil(hz * 0.1);
    if (owed > cap) {
      this.#executedSinceOrigin += owed - cap;
      owed = cap;
    }
    // Run at most one slice's worth at a time, yielding to I/O in between, so a catch-up does not
    // turn into one large burst of datagrams (receivers would have to buffer all of it at once).
    const chunk = Math.max(1, Math.ceil(hz * (this.#sliceMs / 1000)));
    if (owed > 0) this.#executedSinceOrigin += this.runNow(Math.min(owed, chunk));
    if (owed > chunk && this.running) {
      this.#timer = setImmediate(() => this.#tick());
      return;
    }
    this.#schedule();
  }

  /** Runs clocks synchronously (also used by the monitor to step); reports to afterSlice. */
  runNow(clocks: number): number {
    const done = this.#machine.run(clocks);
    this.executed += done;
    this.#afterSlice?.(done);
    return done;
  }
}
