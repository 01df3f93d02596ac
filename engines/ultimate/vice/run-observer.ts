// Observes one program run on VICE through its monitors, without the program's cooperation
// (docs/ultimate/VICE.md says what was measured on x64sc 3.10 and why each step is exact):
//   - an exec checkpoint on the PRG's load range gives the clock C0 of the program's first
//     instruction there (the program's start, whatever BASIC or SYS got there); a load checkpoint
//     on the first statement byte gives BASIC's start (basic-start.ts), the start of a program that
//     writes the watched address before any instruction in its range (or whose time runs out first);
//   - a store checkpoint on the watched address ($D7FF) stops after every write; the text monitor
//     names the instruction and prints the clock, so the write happened at clock − C0 − 1 (the write
//     is the last cycle of every store) and its value is the register the instruction stored;
//   - an exec checkpoint on the KERNAL's BRK dispatch ($FF55), which no IRQ reaches, and (the
//     KERNAL banked out) one on the RAM vector's target catch a BRK; the caller's policy says
//     whether it is a crash (brk-policy.ts);
//   - a stop's clock is counted back to the instruction it is about over the CPU's known bus
//     cycles, with the bad lines the VIC-II took among them (vic-stall.ts);
//   - exec checkpoints on everything outside the code ranges catch a run-away PC;
//   - a JAM opens the monitor on its own (binary JAM event; text `JAM at $xxxx`).
// An engine-level piece: it knows the monitors, not the service that judges the run.
import { UltimateError } from '../errors.js';
import type { ViceMonitorClient } from './client.js';
import { CheckpointOp } from './protocol.js';
import { CHRGOT_LOAD, firstStatementAddress } from '../basic-start.js';
import { ioVisible } from '../io-visible.js';
import { storedValue } from './store-value.js';
import type { TextCheckpointHit, TextMonitorBlock, ViceTextMonitor } from './text-monitor.js';
import { type BusCycle, clocksBeforeStop, cycles, type StopRaster } from './vic-stall.js';

export interface ObservedWrite {
  value: number;
  /** CPU cycles from the first cycle of the entry instruction to the write; null when not exact. */
  cycle: number | null;
  /** The instruction that wrote. */
  pc: number;
}

/** What decides whether a BRK is a crash (the service's brk-policy.ts), read at the vector stop. */
export interface BrkStopFacts {
  /** Where the vector fetch sent the CPU (the PC at the stop). */
  vector: number;
  /** The word at $0316/$0317. */
  brkVector: number;
  /** The RAM under $FFFE/$FFFF differs from what it held when the program started. */
  ramVectorChanged: boolean;
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
   * Whether a BRK is a crash, given what the vector stop shows; absent: no BRK is (and no stop at
   * the vector fetches at all).
   */
  brkIsCrash?: (facts: BrkStopFacts) => boolean;
  /** A JAM is a crash (default true); otherwise the run ends as halted there. */
  jamIsCrash?: boolean;
  /** Code ranges, inclusive; execution outside them is a crash. Empty: not checked. */
  codeRanges: ReadonlyArray<{ start: number; end: number }>;
  /** budget.cycles: checked every `budgetPollMs` of wall time while the program runs. */
  cycleBudget?: number;
  /** performance.now() ms. */
  deadline: number;
  /** Called once at the start stop, before the program's first instruction (e.g. memory fills). */
  atEntry?(machine: StoppedMachine): Promise<void>;
  /** Called at the stop of every write, the machine stopped; true ends the run there. */
  onWrite(write: ObservedWrite, machine: StoppedMachine): Promise<boolean>;
}

/** How a run ended, and the writes seen. */
export type ObserveOutcome = { writes: ObservedWrite[]; stoppedAt: number | null } & (
  | { outcome: 'ended' }
  | { outcome: 'crashed'; crash: ObservedCrash }
  | { outcome: 'over_budget'; cycle: number }
  | { outcome: 'halted'; pc: number; cycle: number | null }
  | { outcome: 'timeout'; started: boolean }
);

export type ObserveResult = ObserveOutcome & {
  /**
   * How the program's start was found: its first instruction in the load range, or BASIC's start
   * (a program that wrote the watched address, or whose time ran out, before any); null: never started.
   */
  start: 'load-range-fetch' | 'basic' | null;
  /** false when the start's clock is not exact (an interrupt the VIC may have stretched came with BASIC's read): no cycle is. */
  startExact: boolean;
};

/** The KERNAL's IRQ/BRK entry (every C64 KERNAL's $FFFE vector) and its BRK dispatch, JMP ($0316). */
const KERNAL_IRQ_ENTRY = 0xff48;
const KERNAL_BRK_DISPATCH = 0xff55;
/** $FF48-$FF57: PHA TXA PHA TYA PHA TSX LDA $0104,X AND #$10 BEQ +3 JMP ($0316). */
const KERNAL_IRQ_CODE = [0x48, 0x8a, 0x48, 0x98, 0x48, 0xba, 0xbd, 0x04, 0x01, 0x29, 0x10, 0xf0, 0x03, 0x6c, 0x16, 0x03];

/** How often a run with a cycle budget is stopped to read the clock (wall-clock ms). */
const BUDGET_POLL_MS = 100;

/** x64sc's monitor bank "ram" (banks: 0 cpu, 1 ram, 2 rom, 3 io, 4 cart; measured on 3.10). */
const RAM_BANK = 1;

/**
 * The CPU's bus cycles between the cycle a stop is about and the stop (vic-stall.ts counts the
 * bad lines among them): BRK's (and an interrupt's) seven — opcode, padding, three pushes, the
 * vector — and, at the KERNAL's BRK dispatch, those of PHA TXA PHA TYA PHA TSX LDA $0104,X (one
 * more read across a page) AND # and BEQ not taken after it.
 */
const BRK_CYCLES = cycles('RRWWWRR');
const kernalBrkCycles = (ldaReads: string) => [...BRK_CYCLES, ...cycles(`RRW RR RRW RR RRW RR ${ldaReads} RR RR`.replaceAll(' ', ''))];
const KERNAL_BRK_CYCLES = kernalBrkCycles('RRRR');
const KERNAL_BRK_CYCLES_PAGE_CROSSED = kernalBrkCycles('RRRRR');
/** A store's write, then the interrupt VICE took before it opened the monitor. */
const STORE_THEN_INTERRUPT = cycles('W' + 'RRWWWRR');
/** CHRGOT's read of program text (an LDA's last cycle), then the interrupt VICE took before it opened the monitor. */
const READ_THEN_INTERRUPT = cycles('R' + 'RRWWWRR');
/** A JAM opcode's fetch and the one read VICE does before it opens the monitor. */
const JAM_CYCLES = cycles('RR');

/** Where a checkpoint stop stood on the raster. */
function rasterOf(hit: TextCheckpointHit): StopRaster {
  return { line: hit.rasterLine, cycle: hit.rasterCycle };
}

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
  #startCheckpoint: number | null = null;
  /** The load checkpoint on the first statement byte: BASIC's start. */
  #basicCheckpoint: number | null = null;
  #armed: number[] = [];

  constructor(
    readonly client: ViceMonitorClient,
    readonly text: ViceTextMonitor,
  ) {}

  /**
   * Before the program starts (autostart): the exec checkpoint on the PRG's load range. x64sc's
   * AUTOSTART resets the machine before it runs another instruction (measured on 3.10: an exec
   * checkpoint at the KERNAL's reset $FCE2 is never hit, and the first hit in the range is the new
   * program's first instruction, also right after a previous program spun inside the same range).
   */
  async armStart(range: { start: number; end: number }): Promise<void> {
    await this.#disarm();
    this.text.discard();
    this.#startCheckpoint = (
      await this.client.checkpointSet({ start: range.start, end: range.end, op: CheckpointOp.exec, stop: true })
    ).number;
    // BASIC's start: the KERNAL's RAM test at the reset reads the byte too (three stops, told
    // apart by the instruction), nothing else does until BASIC runs the program.
    const firstStatement = firstStatementAddress(range);
    if (firstStatement !== null)
      this.#basicCheckpoint = (await this.client.checkpointSet({ start: firstStatement, op: CheckpointOp.load, stop: true })).number;
  }

  async #disarm(): Promise<void> {
    const all = [...this.#armed, ...[this.#startCheckpoint, this.#basicCheckpoint].filter((n): n is number => n !== null)];
    this.#armed = [];
    this.#startCheckpoint = null;
    this.#basicCheckpoint = null;
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
   * Clocks from the first of `pattern`'s cycles (the CPU's last before the stop) to a stop at
   * `stop`, with the bad lines the VIC-II took counted in (vic-stall.ts); null when they cannot be
   * known (a sprite enabled, or a stall that hides where the sequence began).
   */
  async #clocksBack(stop: StopRaster, pattern: readonly BusCycle[]): Promise<number | null> {
    const regs = await this.client.memoryGet(0xd011, 0xd015);
    return clocksBeforeStop(stop, pattern, { yscroll: (regs[0] ?? 0) & 7, spritesEnabled: (regs[4] ?? 0) !== 0 });
  }

  /**
   * The `n` bytes above SP (SP+1, SP+2, …) as the stack page wraps: with SP at $FE the next three
   * are $01FF, $0100, $0101. One read of the whole page, never a reversed range (VICE answers a
   * MEMORY_GET whose end is below its start with error $81).
   */
  async #pushed(sp: number, n: number): Promise<Uint8Array> {
    const page = await this.client.memoryGet(0x0100, 0x01ff);
    return Uint8Array.from({ length: n }, (_, i) => page[(sp + 1 + i) & 0xff] ?? 0);
  }

  async #crashMemory(): Promise<{ stack: Uint8Array; zeroPage: Uint8Array }> {
    return { zeroPage: await this.client.memoryGet(0x0000, 0x00ff), stack: await this.client.memoryGet(0x0100, 0x01ff) };
  }

  async observe(opts: ObserveOptions): Promise<ObserveResult> {
    const writes: ObservedWrite[] = [];
    const startCp = this.#startCheckpoint;
    const basicCp = this.#basicCheckpoint;
    if (startCp === null) throw new UltimateError('bad-input', 'ViceRunObserver.observe before armStart');
    // Until the program's first instruction in its load range, or BASIC's start (whichever first).
    let entry: TextMonitorBlock;
    let basicHit: TextCheckpointHit | undefined;
    for (;;) {
      const block = await this.text.nextBlock(opts.deadline, (b) => b.hits.some((h) => h.number === startCp || h.number === basicCp));
      if (!block) return { outcome: 'timeout', started: false, writes, stoppedAt: null, start: null, startExact: true };
      entry = block;
      if (block.hits.some((h) => h.number === startCp)) break;
      basicHit = block.hits.find((h) => h.number === basicCp && h.instructionPc === CHRGOT_LOAD);
      if (basicHit) break;
      await this.client.resume(); // the KERNAL's RAM test at the reset
    }
    this.#startCheckpoint = null;
    this.#basicCheckpoint = null;
    this.#armed = [startCp];
    if (basicCp !== null) await this.client.checkpointDelete(basicCp);
    // Started by BASIC, the start is a candidate: the program's machine code (a SYS stub's) may
    // still come, and with it the start; it is BASIC's once the program writes the watched address.
    let start: 'basic-candidate' | 'basic' | 'load-range-fetch' = basicHit ? 'basic-candidate' : 'load-range-fetch';
    let c0: number;
    let startExact = true;
    if (basicHit) {
      const at = await this.#basicReadClock(basicHit, entry);
      startExact = at !== null;
      c0 = at ?? basicHit.clock - 1;
    } else c0 = entry.hits.find((h) => h.number === startCp)!.clock;
    // The CPU vector as the program found it (RAM under the KERNAL): a BRK policy compares with it.
    const ramVector0 = await this.client.memoryGet(0xfffe, 0xffff, { bank: RAM_BANK });
    await opts.atEntry?.(this.#machine());
    const storeCp = (await this.client.checkpointSet({ start: opts.watch, op: CheckpointOp.store, stop: true })).number;
    this.#armed.push(storeCp);
    // BRKs without a stop at every interrupt: a load checkpoint on $FFFE stopped x64sc at each IRQ
    // too (measured: Lorenz ldab, 497 stops, 62 of its 66 s). With the KERNAL in, a BRK takes the
    // KERNAL's BRK dispatch (JMP ($0316) at $FF55), which an IRQ never executes: an exec checkpoint
    // there. With the KERNAL banked out the CPU jumps through the RAM under $FFFE: while the program
    // has not set that vector it leads to where the power-on pattern points, and an exec checkpoint
    // there catches the BRK (#brk checks the stop is a BRK's entry), removed once the program
    // stores to $FFFE/$FFFF (a vector it set: a BRK through it is handled). ($01 stores cannot
    // tell the banking cheaply: the KERNAL's IRQ writes $01 every time, for the cassette motor.)
    let vectorCp = -1;
    let kernalBrkCp = -1;
    let vectorStoreCp = -1;
    let vectorSet = false;
    const brkIsCrash = opts.brkIsCrash;
    const outside = new Set<number>();
    /**
     * Armed once the start is settled. outside_code is about the program's machine code, so not for
     * a program BASIC runs (BASIC executes CHRGET at $0073).
     */
    const armCrashChecks = async (machineCode: boolean): Promise<void> => {
      await this.client.checkpointDelete(startCp);
      this.#armed = this.#armed.filter((n) => n !== startCp);
      if (brkIsCrash) {
        kernalBrkCp = (await this.client.checkpointSet({ start: KERNAL_BRK_DISPATCH, op: CheckpointOp.exec, stop: true })).number;
        this.#armed.push(kernalBrkCp);
        // The policy decides whether a BRK through a vector the program did not set is a crash (not
        // when the PRG itself covers $FFFE/$FFFF).
        if (brkIsCrash({ vector: -1, brkVector: 0, ramVectorChanged: false })) {
          const target = (ramVector0[0] ?? 0) | ((ramVector0[1] ?? 0) << 8);
          vectorCp = (await this.client.checkpointSet({ start: target, op: CheckpointOp.exec, stop: true })).number;
          vectorStoreCp = (await this.client.checkpointSet({ start: 0xfffe, end: 0xffff, op: CheckpointOp.store, stop: true })).number;
          this.#armed.push(vectorCp, vectorStoreCp);
        }
      }
      if (machineCode && opts.codeRanges.length > 0) {
        for (const r of complementRanges(opts.codeRanges)) {
          const n = (await this.client.checkpointSet({ start: r.start, end: r.end, op: CheckpointOp.exec, stop: true })).number;
          outside.add(n);
          this.#armed.push(n);
        }
      }
    };
    if (start === 'load-range-fetch') await armCrashChecks(true);
    await this.client.resume();
    const result = (r: ObserveOutcome): ObserveResult => ({ ...r, start: start === 'load-range-fetch' ? start : 'basic', startExact });
    for (;;) {
      const wait = opts.cycleBudget === undefined ? opts.deadline : Math.min(opts.deadline, performance.now() + BUDGET_POLL_MS);
      const block = await this.text.nextBlock(wait, (b) => b.hits.length > 0 || b.jamPc !== null);
      if (!block) {
        const timedOut = performance.now() >= opts.deadline;
        // Only BASIC's start seen: no budget runs yet (a SYS stub's BASIC takes cycles the budget
        // is not about), unless the time ran out, which settles the start on BASIC's.
        const candidate = start === 'basic-candidate';
        if (!timedOut && candidate) continue;
        if (timedOut && (!candidate || opts.cycleBudget === undefined))
          return result({ outcome: 'timeout', started: true, writes, stoppedAt: null });
        // Stop the machine (any binary command does) and read its clock.
        await this.client.ping();
        const used = (await this.text.stopwatch()) - c0;
        if (opts.cycleBudget !== undefined && used > opts.cycleBudget)
          return result({ outcome: 'over_budget', cycle: used, writes, stoppedAt: used });
        if (timedOut) return result({ outcome: 'timeout', started: true, writes, stoppedAt: null });
        await this.client.resume();
        continue;
      }
      if (block.jamPc !== null) {
        const jam = await this.#jam(block, c0);
        if (opts.jamIsCrash === false) return result({ outcome: 'halted', pc: jam.pc, cycle: jam.cycle, writes, stoppedAt: jam.cycle });
        return result({ outcome: 'crashed', crash: jam, writes, stoppedAt: jam.cycle });
      }
      // The program's first instruction first, then a write (a write and an interrupt can open the
      // monitor together).
      const order = (h: TextCheckpointHit): number => (h.number === startCp ? -1 : h.number === storeCp ? 0 : 1);
      let ended: number | null = null;
      for (const hit of [...block.hits].sort((p: TextCheckpointHit, q: TextCheckpointHit) => order(p) - order(q))) {
        if (hit.number === startCp) {
          if (start !== 'basic-candidate') continue;
          // BASIC reached the program's machine code: its first instruction is the start.
          start = 'load-range-fetch';
          c0 = hit.clock;
          startExact = true;
          await armCrashChecks(true);
        } else if (hit.number === storeCp) {
          // The checkpoint fires on any store to the address; with I/O banked out the store went to
          // the RAM underneath, which neither the debug cartridge nor the Ultimate's register sees.
          if (!(await this.#ioVisible())) continue;
          const settled = start === 'basic-candidate';
          if (settled) {
            // BASIC wrote it, no machine code ran: BASIC's start is the program's.
            start = 'basic';
            await armCrashChecks(false);
          }
          const w = await this.#write(hit, block, c0);
          // Settled later than the budget: over budget there (the trace observer judges the same).
          if (settled && opts.cycleBudget !== undefined && w.cycle !== null && w.cycle > opts.cycleBudget)
            return result({ outcome: 'over_budget', cycle: w.cycle, writes, stoppedAt: w.cycle });
          writes.push(w);
          if (await opts.onWrite(w, this.#machine())) ended = w.cycle ?? -1;
        } else if (hit.number === vectorCp && brkIsCrash) {
          const brk = await this.#brk(hit, c0, ramVector0, brkIsCrash);
          if (brk) return result({ outcome: 'crashed', crash: brk, writes, stoppedAt: brk.cycle });
        } else if (hit.number === kernalBrkCp && brkIsCrash) {
          const brk = await this.#kernalBrk(hit, c0, vectorSet, brkIsCrash);
          if (brk) return result({ outcome: 'crashed', crash: brk, writes, stoppedAt: brk.cycle });
        } else if (hit.number === vectorStoreCp) {
          vectorSet = true;
          for (const n of [vectorCp, vectorStoreCp]) await this.client.checkpointDelete(n);
          this.#armed = this.#armed.filter((n) => n !== vectorCp && n !== vectorStoreCp);
          vectorCp = -1;
          vectorStoreCp = -1;
        } else if (outside.has(hit.number)) {
          const r = await this.client.registersGet();
          return result({
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
            stoppedAt: hit.clock - c0,
          });
        }
      }
      if (ended !== null) return result({ outcome: 'ended', writes, stoppedAt: ended < 0 ? null : ended });
      await this.client.resume();
    }
  }

  /**
   * The clock of CHRGOT's read of the first statement byte: the LDA's last cycle, the cycle before
   * the stop (the monitor opens after the instruction, at $007C), or further back when VICE took an
   * interrupt before opening it (as #write counts a store's); null when that cannot be known.
   */
  async #basicReadClock(hit: TextCheckpointHit, block: TextMonitorBlock): Promise<number | null> {
    const next = (CHRGOT_LOAD + 3) & 0xffff;
    if (block.pc === next) return hit.clock - 1;
    const r = await this.client.registersGet();
    const pushed = await this.#pushed(r.SP, 3);
    const ret = (pushed[1] ?? 0) | ((pushed[2] ?? 0) << 8);
    const back = ret === next ? await this.#clocksBack(rasterOf(hit), READ_THEN_INTERRUPT) : null;
    return back === null ? null : hit.clock - back;
  }

  /** Whether the CPU sees I/O at $D000–$DFFF now: `$01` as read through the monitor (inputs pulled high). */
  async #ioVisible(): Promise<boolean> {
    const port = await this.client.memoryGet(0x0001, 0x0001);
    return ioVisible(port[0] ?? 0x37);
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
    const pushed = await this.#pushed(r.SP, 3);
    const ret = (pushed[1] ?? 0) | ((pushed[2] ?? 0) << 8);
    const back = ret === next ? await this.#clocksBack(rasterOf(hit), STORE_THEN_INTERRUPT) : null;
    return { value: sv.value, cycle: back === null ? null : hit.clock - c0 - back, pc: hit.instructionPc };
  }

  /**
   * A stop at the target of the RAM vector under $FFFE (the KERNAL banked out): a crash when the pushed status has the B flag and the
   * policy says so (the vector the CPU took, $0316/$0317, whether the program set the RAM vector).
   */
  async #brk(
    hit: TextCheckpointHit,
    c0: number,
    ramVector0: Uint8Array,
    policy: (f: BrkStopFacts) => boolean,
  ): Promise<ObservedCrash | null> {
    const r = await this.client.registersGet();
    // The stop is at the vector's target (the exec checkpoint there) only when the CPU took the
    // vector: a program that runs code there with the KERNAL in is not at a BRK. (A load
    // checkpoint on $FFFE, used before, opened x64sc's monitor one instruction late for an IRQ, so
    // A's bit 4 was read as the B flag: Lorenz ldab was 'crashed' at random sites.)
    const cpuVector = await this.client.memoryGet(0xfffe, 0xffff);
    if (r.PC !== ((cpuVector[0] ?? 0) | ((cpuVector[1] ?? 0) << 8))) return null;
    const pushed = await this.#pushed(r.SP, 3);
    const p = pushed[0] ?? 0;
    if ((p & 0x10) === 0) return null;
    const v316 = await this.client.memoryGet(0x0316, 0x0317);
    const ramVector = await this.client.memoryGet(0xfffe, 0xffff, { bank: RAM_BANK });
    const facts: BrkStopFacts = {
      vector: r.PC,
      brkVector: (v316[0] ?? 0) | ((v316[1] ?? 0) << 8),
      ramVectorChanged: ramVector[0] !== ramVector0[0] || ramVector[1] !== ramVector0[1],
    };
    if (!policy(facts)) return null;
    const ret = (pushed[1] ?? 0) | ((pushed[2] ?? 0) << 8);
    const back = await this.#clocksBack(rasterOf(hit), BRK_CYCLES);
    return {
      kind: 'brk',
      pc: (ret - 2) & 0xffff,
      a: r.A,
      x: r.X,
      y: r.Y,
      sp: (r.SP + 3) & 0xff,
      p,
      cycle: back === null ? null : hit.clock - c0 - back,
      ...(await this.#crashMemory()),
    };
  }

  /**
   * A stop at the KERNAL's BRK dispatch ($FF55, JMP ($0316)), reached only by a BRK (the B flag
   * set on the stack): the KERNAL's entry has pushed A, X and Y over the BRK's status and return
   * address. Null when the code there is not the KERNAL's (RAM banked in) or the policy says no.
   */
  async #kernalBrk(
    hit: TextCheckpointHit,
    c0: number,
    vectorSet: boolean,
    policy: (f: BrkStopFacts) => boolean,
  ): Promise<ObservedCrash | null> {
    const code = await this.client.memoryGet(KERNAL_IRQ_ENTRY, KERNAL_BRK_DISPATCH + 2);
    if (!KERNAL_IRQ_CODE.every((b, i) => code[i] === b)) return null;
    const v316 = await this.client.memoryGet(0x0316, 0x0317);
    const facts: BrkStopFacts = {
      vector: KERNAL_IRQ_ENTRY,
      brkVector: (v316[0] ?? 0) | ((v316[1] ?? 0) << 8),
      ramVectorChanged: vectorSet,
    };
    if (!policy(facts)) return null;
    const r = await this.client.registersGet();
    // SP+1…: Y, X, A (the KERNAL's pushes), then the BRK's status and return address.
    const [y = 0, x = 0, a = 0, p = 0, lo = 0, hi = 0] = await this.#pushed(r.SP, 6);
    // From the BRK's opcode fetch to the stop: BRK 7, PHA 3, TXA 2, PHA 3, TYA 2, PHA 3, TSX 2,
    // LDA $0104,X 4 (5 across a page), AND 2, BEQ not taken 2.
    const back = await this.#clocksBack(rasterOf(hit), r.X >= 0xfc ? KERNAL_BRK_CYCLES_PAGE_CROSSED : KERNAL_BRK_CYCLES);
    return {
      kind: 'brk',
      pc: (((hi << 8) | lo) - 2) & 0xffff,
      a,
      x,
      y,
      sp: (r.SP + 6) & 0xff,
      p,
      cycle: back === null ? null : hit.clock - c0 - back,
      ...(await this.#crashMemory()),
    };
  }

  async #jam(block: TextMonitorBlock, c0: number): Promise<ObservedCrash> {
    const clock = await this.text.stopwatch();
    const r = await this.client.registersGet();
    // VICE spends two cycles on a JAM opcode (fetch and one read) before it opens the monitor.
    const back = await this.#clocksBack({ line: r.LIN ?? 0, cycle: r.CYC ?? 0 }, JAM_CYCLES);
    return {
      kind: 'jam',
      pc: block.jamPc ?? r.PC,
      a: r.A,
      x: r.X,
      y: r.Y,
      sp: r.SP,
      p: r.FL,
      cycle: back === null ? null : clock - c0 - back,
      ...(await this.#crashMemory()),
    };
  }

  /** Deletes this run's checkpoints (the machine is left as it is). */
  async finish(): Promise<void> {
    await this.#disarm();
  }
}
