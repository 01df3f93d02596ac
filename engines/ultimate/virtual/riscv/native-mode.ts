// The virtual Ultimate 64 Elite II's native mode: what happens after "Run Update". As on the
// firmware (software/filetypes/filetype_u2p.cc), every record of the update file is copied to its
// load address and the core jumps to the start address of the last record; from then on the
// program owns the processor and the firmware — with its REST, FTP and DMA services — is gone until
// the device is recovered (a power cycle on hardware; recover() here).
//
// The program runs on the RV32IM interpreter in slices (so the process keeps serving its other
// sockets) under two bounds: an instruction budget and a wall-time limit. It ends by:
//  - ECALL with a7 = 93 (exit, code in a0)      → status 'exited'
//  - `j .` (a one-instruction loop)             → status 'parked' (spinning it would be pointless)
//  - any exception (no trap handler exists)     → status 'trapped', with cause, pc and tval
//  - running out of budget or time              → status 'instruction-limit' / 'time-limit'
// In every case the device stays native until recover(): the firmware does not come back by itself.
import { NATIVE_EXIT_ECALL, APP_REGION_BASE, APP_REGION_BYTES } from '../../riscv-apps/elite2-memory-map.js';
import { parseUe2 } from '../../riscv-apps/ue2.js';
import { encodeUtr2Mailbox, UTR2_MAILBOX_C64_ADDRESS } from '../../riscv-apps/utr2-mailbox.js';
import { type C64Memory, Elite2Bus } from './elite2-bus.js';
import { Rv32Cpu } from './rv32-cpu.js';
import type { TrapCause } from './rv32-trap.js';

export type NativeRunStatus = 'running' | 'exited' | 'parked' | 'trapped' | 'instruction-limit' | 'time-limit' | 'power-cycled';

export interface NativeRunReport {
  readonly status: NativeRunStatus;
  /** Where Run Update jumped (the last record's start). */
  readonly entry: number;
  readonly records: number;
  readonly payloadBytes: number;
  /** Instructions the program retired. */
  readonly retired: number;
  /** a0 of the exit ECALL, when status is 'exited'. */
  readonly exitCode?: number;
  readonly trap?: { readonly cause: TrapCause; readonly pc: number; readonly tval: number };
  /** Program counter where the program stopped (or is now). */
  readonly pc: number;
  /** Everything the program wrote to UART_DATA (latin1), up to maxUartBytes. */
  readonly uart: string;
  /** UART bytes dropped past maxUartBytes. */
  readonly uartDropped: number;
  /** The UTR2 token placed in the C64 mailbox before the jump, if any. */
  readonly token?: string;
  readonly startedAt: string;
  readonly endedAt?: string;
}

export type NativeState = { readonly mode: 'firmware' } | { readonly mode: 'native'; readonly run: NativeRunReport };

export interface NativeModeOptions {
  /** Instruction budget per run (default 1e9: 10 s of the real core's 100 MHz). */
  maxInstructions?: number;
  /** Wall-time limit per run in ms (default 30 000). */
  maxMs?: number;
  /** Instructions per slice between event-loop turns (default 2^21). */
  sliceInstructions?: number;
  /** UART bytes kept per run (default 1 MiB). */
  maxUartBytes?: number;
}

/** What the native mode needs from the device around it. */
export interface NativeHost {
  /** The C64's memory, as the firmware's window sees it. */
  c64(): C64Memory;
  /** The firmware is gone: close REST/FTP/DMA/monitor (connections refused). */
  enterNative(): Promise<void>;
  /** Power cycle: the C64 restarts and the firmware's services listen again on the same ports. */
  leaveNative(): Promise<void>;
}

export interface RunUpdateOptions {
  /** UTR2 token to place in the C64 mailbox before the jump (as REST writemem would). */
  token?: string;
  maxInstructions?: number;
  maxMs?: number;
}

export class NativeStateError extends Error {
  override readonly name = 'NativeStateError';
}

interface ActiveRun {
  entry: number;
  records: number;
  payloadBytes: number;
  token?: string;
  startedAt: Date;
  endedAt?: Date;
  startRetired: number;
  maxInstructions: number;
  deadline: number;
  status: NativeRunStatus;
  exitCode?: number;
  trap?: { cause: TrapCause; pc: number; tval: number };
  uart: number[];
  uartDropped: number;
  stopped: Promise<NativeRunReport>;
  resolveStopped: (r: NativeRunReport) => void;
}

export class Elite2NativeMode {
  readonly #host: NativeHost;
  readonly #opts: Required<NativeModeOptions>;
  #cpu?: Rv32Cpu;
  #run?: ActiveRun;
  #native = false;
  #timer?: NodeJS.Immediate;
  #last?: NativeRunReport;

  constructor(host: NativeHost, opts: NativeModeOptions = {}) {
    this.#host = host;
    this.#opts = {
      maxInstructions: opts.maxInstructions ?? 1e9,
      maxMs: opts.maxMs ?? 30_000,
      sliceInstructions: opts.sliceInstructions ?? 1 << 21,
      maxUartBytes: opts.maxUartBytes ?? 1024 * 1024,
    };
  }

  get state(): NativeState {
    return this.#native && this.#run ? { mode: 'native', run: this.#report(this.#run) } : { mode: 'firmware' };
  }

  /** The report of the most recent run, kept after recover() (the bench's serial log). */
  get lastRun(): NativeRunReport | undefined {
    return this.#run ? this.#report(this.#run) : this.#last;
  }

  /**
   * Run Update: validates the file (nothing changes when it is malformed), places the token, takes
   * the firmware's services down, loads the records and starts the program at the last record's
   * start. Resolves once the program is running; whenStopped() resolves when it ends.
   */
  async runUpdate(ue2: Uint8Array, opts: RunUpdateOptions = {}): Promise<NativeRunReport> {
    if (this.#native)
      throw new NativeStateError('the device is running native code; only a recovery (power cycle) brings the firmware back');
    const image = parseUe2(ue2);
    const mailbox = opts.token === undefined ? undefined : encodeUtr2Mailbox(opts.token);
    if (mailbox) this.#host.c64().writeMem(UTR2_MAILBOX_C64_ADDRESS, mailbox);
    this.#native = true;
    await this.#host.enterNative();
    this.#cpu ??= new Rv32Cpu({
      ramBase: APP_REGION_BASE,
      ramBytes: APP_REGION_BYTES,
      bus: new Elite2Bus({ c64: () => this.#host.c64(), uartOut: (b) => this.#uartOut(b) }),
    });
    const cpu = this.#cpu;
    cpu.reset(image.entry);
    for (const r of image.records) cpu.load(r.loadAddress, r.bytes);
    let resolveStopped!: (r: NativeRunReport) => void;
    const stopped = new Promise<NativeRunReport>((resolve) => {
      resolveStopped = resolve;
    });
    this.#run = {
      entry: image.entry,
      records: image.records.length,
      payloadBytes: image.payloadBytes,
      token: opts.token,
      startedAt: new Date(),
      startRetired: cpu.retired,
      maxInstructions: opts.maxInstructions ?? this.#opts.maxInstructions,
      deadline: performance.now() + (opts.maxMs ?? this.#opts.maxMs),
      status: 'running',
      uart: [],
      uartDropped: 0,
      stopped,
      resolveStopped,
    };
    this.#timer = setImmediate(() => this.#slice());
    return this.#report(this.#run);
  }

  /** Resolves with the report when the current program stops (at once when it already has). */
  whenStopped(): Promise<NativeRunReport> {
    if (!this.#run) return Promise.reject(new NativeStateError('no native program has been started'));
    return this.#run.stopped;
  }

  /** Power cycle: halts the program, brings the firmware and its services back. */
  async recover(): Promise<void> {
    if (this.#timer) clearImmediate(this.#timer);
    this.#timer = undefined;
    const run = this.#run;
    if (run) {
      if (run.status === 'running') this.#finish(run, 'power-cycled');
      this.#last = this.#report(run);
      this.#run = undefined;
    }
    if (!this.#native) return;
    this.#native = false;
    await this.#host.leaveNative();
  }

  /** Stops the program without bringing services back (the device is being shut down). */
  close(): void {
    if (this.#timer) clearImmediate(this.#timer);
    this.#timer = undefined;
    if (this.#run?.status === 'running') this.#finish(this.#run, 'power-cycled');
  }

  #slice(): void {
    this.#timer = undefined;
    const run = this.#run;
    const cpu = this.#cpu;
    if (!run || !cpu || run.status !== 'running') return;
    const left = run.maxInstructions - (cpu.retired - run.startRetired);
    const stop = cpu.run(Math.min(this.#opts.sliceInstructions, left));
    switch (stop.kind) {
      case 'limit':
        if (cpu.retired - run.startRetired >= run.maxInstructions) this.#finish(run, 'instruction-limit');
        else if (performance.now() >= run.deadline) this.#finish(run, 'time-limit');
        else this.#timer = setImmediate(() => this.#slice());
        return;
      case 'ecall':
        if (cpu.x[17] === NATIVE_EXIT_ECALL) {
          run.exitCode = cpu.x[10]!;
          this.#finish(run, 'exited');
        } else {
          run.trap = { cause: 'environment-call', pc: stop.pc, tval: 0 };
          this.#finish(run, 'trapped');
        }
        return;
      case 'ebreak':
        run.trap = { cause: 'breakpoint', pc: stop.pc, tval: stop.pc };
        this.#finish(run, 'trapped');
        return;
      case 'parked':
        this.#finish(run, 'parked');
        return;
      case 'trap':
        run.trap = { cause: stop.cause, pc: stop.pc, tval: stop.tval };
        this.#finish(run, 'trapped');
        return;
    }
  }

  #finish(run: ActiveRun, status: NativeRunStatus): void {
    run.status = status;
    run.endedAt = new Date();
    run.resolveStopped(this.#report(run));
  }

  #uartOut(byte: number): void {
    const run = this.#run;
    if (!run) return;
    if (run.uart.length < this.#opts.maxUartBytes) run.uart.push(byte);
    else run.uartDropped++;
  }

  #report(run: ActiveRun): NativeRunReport {
    const cpu = this.#cpu;
    return {
      status: run.status,
      entry: run.entry,
      records: run.records,
      payloadBytes: run.payloadBytes,
      retired: cpu ? cpu.retired - run.startRetired : 0,
      ...(run.exitCode === undefined ? {} : { exitCode: run.exitCode }),
      ...(run.trap ? { trap: { ...run.trap } } : {}),
      pc: cpu?.pc ?? run.entry,
      uart: Buffer.from(run.uart).toString('latin1'),
      uartDropped: run.uartDropped,
      ...(run.token === undefined ? {} : { token: run.token }),
      startedAt: run.startedAt.toISOString(),
      ...(run.endedAt ? { endedAt: run.endedAt.toISOString() } : {}),
    };
  }
}
