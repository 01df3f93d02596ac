// Observes one program run on VICE through its monitors, without the program's cooperation
// (docs/ultimate/VICE.md says what was measured on x64sc 3.10 and why each step is exact):
//   - an exec checkpoint at the entry gives the clock C0 of the program's first instruction;
//   - a store checkpoint on the watched address ($D7FF) stops after every write; the text monitor
//     names the instruction and prints the clock, so the write happened at clock − C0 − 1 (the write
//     is the last cycle of every store) and its value is the register the instruction stored;
//   - a load checkpoint on $FFFE-$FFFF stops after every IRQ/BRK vector fetch; a pushed status with
//     the B flag is a BRK, whatever the vector points to;
//   - exec checkpoints on everything outside the code ranges catch a run-away PC;
//   - a JAM opens the monitor on its own (binary JAM event; text `JAM at $xxxx`).
// An engine-level piece: it knows the monitors, not the service that judges the run.
import { UltimateError } from '../errors.js';
import type { ViceMonitorClient } from './client.js';
import { CheckpointOp } from './protocol.js';
import { storedValue } from './store-value.js';
import type { TextCheckpointHit, TextMonitorBlock, ViceTextMonitor } from './text-monitor.js';

export interface ObservedWrite {
  value: number;
  /** CPU cycles from the first cycle of the entry instruction to the write; null when not exact. */
  cycle: number | null;
  /** The instruction that wrote. */
  pc: number;
}

export interface ObservedCrash {
  kind: 'brk' | 'jam' | 'outside-code';
  pc: number;
  a: number;
  x: number;
  y: number;
  sp: number;
  p: number;
  stack: Uint8Array;
  zeroPage: Uint8Array;
  /** Cycle of the crashing instruction's opcode fetch (as ObservedWrite.cycle); null when not exact. */
  cycle: number | null;
}

/** What the caller can do at a stop: read memory while the machine stands still. */
export interface StoppedMachine {
  read(address: number, length: number): Promise<Uint8Array>;
  registers(): Promise<{ pc: number; a: number; x: number; y: number; sp: number; p: number }>;
}

export interface ObserveOptions {
  /** The watched address (the debug register, $D7FF). */
  watch: number;
  /**
   * A BRK is a crash (default true). Off: a BRK goes to the program's own handler (a harness that
   * reports its crash itself), only the IRQ/BRK vector stops are saved.
   */
  brkIsCrash?: boolean;
  /** Code ranges, inclusive; execution outside them is a crash. Empty: not checked. */
  codeRanges: ReadonlyArray<{ start: number; end: number }>;
  /** performance.now() ms. */
  deadline: number;
  /** Called once at the entry stop, before the program's first instruction (e.g. memory fills). */
  atEntry?(machine: StoppedMachine): Promise<void>;
  /** Called at the stop of every write, the machine stopped; true ends the run there. */
  onWrite(write: ObservedWrite, machine: StoppedMachine): Promise<boolean>;
}

export type ObserveResult = { writes: ObservedWrite[] } & (
  | { outcome: 'ended' }
  | { outcome: 'crashed'; crash: ObservedCrash }
  | { outcome: 'timeout'; started: boolean }
);

/** PAL VIC-II: raster lines per frame, the lines where a bad line can occur. */
const PAL_LINES = 312;
const FIRST_DMA_LINE = 0x30;
const LAST_DMA_LINE = 0xf7;
/** A bad line holds the CPU at most 43 cycles (BA low 3 cycles before 40 c-accesses). */
const MAX_STALL = 43;

/** [start, end] inclusive ranges of 0..$FFFF not covered by `ranges`. */
export function complementRanges(ranges: ReadonlyArray<{ start: number; end: number }>): Array<{ start: number; end: number }> {
  const sorted = [...ranges].sort((p, q) => p.start - q.start);
  const out: Array<{ start: number; end: number }> = [];
  let next = 0;
  for (const r of sorted) {
    if (r.start > next) out.push({ start: next, end: r.start - 1 });
    next = Math.max(next, r.end + 1);
  }
  if (next <= 0xffff) out.push({ start: next, end: 0xffff });
  return out;
}

export class ViceRunObserver {
  #entryCheckpoint: number | null = null;
  #armed: number[] = [];

  constructor(
    readonly client: ViceMonitorClient,
    readonly text: ViceTextMonitor,
  ) {}

  /** Before the program starts (autostart): the exec checkpoint at its entry. */
  async armEntry(entry: number): Promise<void> {
    await this.#disarm();
    this.text.discard();
    this.#entryCheckpoint = (await this.client.checkpointSet({ start: entry, op: CheckpointOp.exec, stop: true })).number;
  }

  async #disarm(): Promise<void> {
    const all = [...this.#armed, ...(this.#entryCheckpoint === null ? [] : [this.#entryCheckpoint])];
    this.#armed = [];
    this.#entryCheckpoint = null;
    for (const n of all) await this.client.checkpointDelete(n).catch(() => undefined);
  }

  #machine(): StoppedMachine {
    return {
      read: (address, length) => this.client.memoryGet(address, address + length - 1),
      registers: async () => {
        const r = await this.client.registersGet();
        return { pc: r.PC, a: r.A, x: r.X, y: r.Y, sp: r.SP, p: r.FL };
      },
    };
  }

  /**
   * Whether the VIC-II may have held the CPU in the `cycles` before a stop at raster line `line`
   * (then a cycle computed back from the stop's clock is not exact). Conservative: any enabled
   * sprite, or a bad-line candidate (lines $30–$F7 whose low bits equal YSCROLL) among the lines
   * the window touches.
   */
  async #vicMayHaveStalled(line: number, cycles: number): Promise<boolean> {
    const regs = await this.client.memoryGet(0xd011, 0xd015);
    if ((regs[4] ?? 0) !== 0) return true;
    const yscroll = (regs[0] ?? 0) & 7;
    const span = Math.ceil((cycles + MAX_STALL) / 63) + 1;
    for (let i = 0; i <= span; i++) {
      const l = (line - i + PAL_LINES) % PAL_LINES;
      if (l >= FIRST_DMA_LINE && l <= LAST_DMA_LINE && (l & 7) === yscroll) return true;
    }
    return false;
  }

  async #crashMemory(): Promise<{ stack: Uint8Array; zeroPage: Uint8Array }> {
    return { zeroPage: await this.client.memoryGet(0x0000, 0x00ff), stack: await this.client.memoryGet(0x0100, 0x01ff) };
  }

  async observe(opts: ObserveOptions): Promise<ObserveResult> {
    const writes: ObservedWrite[] = [];
    const entryCp = this.#entryCheckpoint;
    if (entryCp === null) throw new UltimateError('bad-input', 'ViceRunObserver.observe before armEntry');
    const entry = await this.text.nextBlock(opts.deadline, (b) => b.hits.some((h) => h.number === entryCp));
    if (!entry) return { outcome: 'timeout', started: false, writes };
    const c0 = entry.hits.find((h) => h.number === entryCp)!.clock;
    await opts.atEntry?.(this.#machine());
    await this.client.checkpointDelete(entryCp);
    this.#entryCheckpoint = null;
    const storeCp = (await this.client.checkpointSet({ start: opts.watch, op: CheckpointOp.store, stop: true })).number;
    const vectorCp =
      opts.brkIsCrash === false
        ? -1
        : (await this.client.checkpointSet({ start: 0xfffe, end: 0xffff, op: CheckpointOp.load, stop: true })).number;
    this.#armed = vectorCp < 0 ? [storeCp] : [storeCp, vectorCp];
    const outside = new Set<number>();
    if (opts.codeRanges.length > 0) {
      for (const r of complementRanges(opts.codeRanges)) {
        const n = (await this.client.checkpointSet({ start: r.start, end: r.end, op: CheckpointOp.exec, stop: true })).number;
        outside.add(n);
        this.#armed.push(n);
      }
    }
    await this.client.resume();

    for (;;) {
      const block = await this.text.nextBlock(opts.deadline, (b) => b.hits.length > 0 || b.jamPc !== null);
      if (!block) return { outcome: 'timeout', started: true, writes };
      if (block.jamPc !== null) return { outcome: 'crashed', crash: await this.#jam(block, c0), writes };
      // A write and an interrupt can open the monitor together: the write first.
      const order = (h: TextCheckpointHit) => (h.number === storeCp ? 0 : 1);
      let ended = false;
      for (const hit of [...block.hits].sort((p, q) => order(p) - order(q))) {
        if (hit.number === storeCp) {
          const w = await this.#write(hit, block, c0);
          writes.push(w);
          if (await opts.onWrite(w, this.#machine())) ended = true;
        } else if (hit.number === vectorCp) {
          const brk = await this.#brk(hit, c0);
          if (brk) return { outcome: 'crashed', crash: brk, writes };
        } else if (outside.has(hit.number)) {
          const r = await this.client.registersGet();
          return {
            outcome: 'crashed',
            crash: {
              kind: 'outside-code',
              pc: block.pc,
              a: r.A,
              x: r.X,
              y: r.Y,
              sp: r.SP,
              p: r.FL,
              cycle: hit.clock - c0,
              ...(await this.#crashMemory()),
            },
            writes,
          };
        }
      }
      if (ended) return { outcome: 'ended', writes };
      await this.client.resume();
    }
  }

  async #write(hit: TextCheckpointHit, block: TextMonitorBlock, c0: number): Promise<ObservedWrite> {
    const sv = storedValue(hit.bytes, hit);
    const at = `$${hit.instructionPc.toString(16).toUpperCase().padStart(4, '0')}`;
    if (sv.kind !== 'value')
      throw new UltimateError('vice', `the write to the watched address by the instruction at ${at} cannot be observed: ${sv.reason}`);
    const next = (hit.instructionPc + hit.bytes.length) & 0xffff;
    if (block.pc === next) return { value: sv.value, cycle: hit.clock - c0 - 1, pc: hit.instructionPc };
    // VICE took an IRQ/NMI before opening the monitor: the stop is after the 7-cycle interrupt
    // sequence, which the VIC may have stretched. Exact only when it cannot have.
    const r = await this.client.registersGet();
    const pushed = await this.client.memoryGet(0x0100 + ((r.SP + 1) & 0xff), 0x0100 + ((r.SP + 3) & 0xff));
    const ret = (pushed[1] ?? 0) | ((pushed[2] ?? 0) << 8);
    const exact = ret === next && !(await this.#vicMayHaveStalled(hit.rasterLine, 7));
    return { value: sv.value, cycle: exact ? hit.clock - c0 - 8 : null, pc: hit.instructionPc };
  }

  /** A stop after an IRQ/NMI/BRK vector fetch: a crash when the pushed status has the B flag. */
  async #brk(hit: TextCheckpointHit, c0: number): Promise<ObservedCrash | null> {
    const r = await this.client.registersGet();
    const pushed = await this.client.memoryGet(0x0100 + ((r.SP + 1) & 0xff), 0x0100 + ((r.SP + 3) & 0xff));
    const p = pushed[0] ?? 0;
    if ((p & 0x10) === 0) return null;
    const ret = (pushed[1] ?? 0) | ((pushed[2] ?? 0) << 8);
    const exact = !(await this.#vicMayHaveStalled(hit.rasterLine, 7));
    return {
      kind: 'brk',
      pc: (ret - 2) & 0xffff,
      a: r.A,
      x: r.X,
      y: r.Y,
      sp: (r.SP + 3) & 0xff,
      p,
      cycle: exact ? hit.clock - c0 - 7 : null,
      ...(await this.#crashMemory()),
    };
  }

  async #jam(block: TextMonitorBlock, c0: number): Promise<ObservedCrash> {
    const clock = await this.text.stopwatch();
    const r = await this.client.registersGet();
    const line = r.LIN ?? 0;
    // VICE spends two cycles on a JAM opcode (fetch and one read) before it opens the monitor.
    const exact = !(await this.#vicMayHaveStalled(line, 2));
    return {
      kind: 'jam',
      pc: block.jamPc ?? r.PC,
      a: r.A,
      x: r.X,
      y: r.Y,
      sp: r.SP,
      p: r.FL,
      cycle: exact ? clock - c0 - 2 : null,
      ...(await this.#crashMemory()),
    };
  }

  /** Deletes this run's checkpoints (the machine is left as it is). */
  async finish(): Promise<void> {
    await this.#disarm();
  }
}
