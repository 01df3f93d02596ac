// What a test run needs from a machine, whichever target it is: fill memory and start a PRG
// (reset, load, RUN), observe every write to $D7FF until the run's protocol says it ended (or it
// crashed, or the budget ran out), read memory. The vice target speaks the binary monitor, the
// ultimate target the device's REST/DMA services and debug stream; run-test.ts is the same for both
// and judges the run from the DebugWait (docs/ultimate/SERVICE.md, "Judging a run").
import type { CheckpointRecorder } from './checkpoint-recorder.js';

/** Harness hand-off addresses and codes (examples/c64-project/src/harness.asm, docs/ultimate/SERVICE.md). */
export const HANDOFF = {
  debugRegister: 0xd7ff,
  resultMirror: 0x03ff,
  crashArea: 0x0340,
  crashAreaBytes: 16,
  pass: 0x80,
  /** $80..$FF end a run: $80 pass, $81..$BF fail, $C0 crash. */
  terminalFrom: 0x80,
  crash: 0xc0,
} as const;

/** One observed write to $D7FF. `cycle`: CPU cycles (φ2) from the program's start — the first
 *  opcode fetch inside the PRG's load range after RUN (or SYS), program-start.ts — to the bus cycle
 *  of this write. Every cycle a target reports (writes, crashes, budgets) counts from that origin.
 *  Meaningful only when the DebugWait's `cycleSource` is not null. */
export interface DebugRegisterWrite {
  value: number;
  cycle: number;
}

/** What is a crash (the manifest's tests[].crash), the same on every target. */
export interface CrashPolicy {
  /** A JAM opcode halting the CPU is a crash; otherwise the run waits for its end as if nothing happened. */
  jam: boolean;
  /** 'unhandled': a BRK that reaches the KERNAL's own handling (brk-policy.ts); 'any'; 'never'. */
  brk: 'unhandled' | 'any' | 'never';
  /** Code ranges, inclusive; an opcode fetch outside them (ROM, zero and stack page excepted) is a crash. Empty = not checked. */
  outsideCode: ReadonlyArray<{ start: number; end: number }>;
}

/** What ends a run, decided by the caller (manifest verdict or the harness convention). */
export interface RunProtocol {
  /** 'pass' | 'fail' | 'crash' ends the run at that write; null = a progress/marker write. */
  classify(value: number): 'pass' | 'fail' | 'crash' | null;
  crash: CrashPolicy;
  /** budget.cycles: the run stops once its clock passes this many cycles without having ended. */
  cycleBudget?: number;
  /** Markers to capture (checkpoints[].marker), with the harness handshake on or off. */
  checkpoints?: CheckpointRecorder;
  /**
   * (Addition to the seam.) The run needs every write exactly, with cycles, crashes without the
   * program's cooperation, and its end state at the ending write (verdict, budget.cycles,
   * debug_register_writes, crash options). The Ultimate observes every run from its debug stream
   * when it has one, and this decides whether the memory is reconstructed from the trace (a
   * snapshot read before the start); without a stream it decides the DMA crash hook. A target that
   * is always exact ignores it.
   */
  exactObservation?: boolean;
}

export interface CrashState {
  kind: 'brk' | 'jam' | 'outside-code' | 'harness';
  pc: number;
  a: number;
  x: number;
  y: number;
  sp: number;
  p: number;
  /** $0100-$01FF at the crash. */
  stack: Uint8Array;
  /** $0000-$00FF at the crash. */
  zeroPage: Uint8Array;
  /** As DebugRegisterWrite.cycle; null when the target counts no cycles. */
  cycle: number | null;
}

/** How a program's start was found (targets/program-start.ts). */
export type ProgramStartKind = 'load-range-fetch' | 'basic';

export type DebugWait = {
  writes: DebugRegisterWrite[];
  /** false when writes may have been missed (hardware without a stream: REST polling). */
  writesExact: boolean;
  /** How the cycles were obtained (e.g. 'vice-stopwatch', 'debug-stream'); null = no cycles. */
  cycleSource: string | null;
  /** The crash hook the target installed by DMA for this run (ultimate without a stream), if any. */
  crashHook?: InstalledCrashHook;
  /** When the end state (memory, screen) is read: run-test.ts reads it right after the wait. */
  endState: EndStateMoment;
  /**
   * Where the program's start (every cycle's origin) was found: its first opcode fetch inside the
   * load range, or BASIC's start (program-start.ts); absent when it never started or the target
   * cannot tell (REST polling).
   */
  programStart?: ProgramStartKind;
} & (
  | { outcome: 'ended'; verdict: 'pass' | 'fail'; value: number }
  | { outcome: 'crashed'; crash: CrashState }
  /** budget.cycles passed without an end: the run was stopped at (or just after) `cycle`. */
  | { outcome: 'over_budget'; cycle: number | null }
  /**
   * The time budget ran out. `started`: whether the program's first instruction was seen;
   * `halted`: the CPU jammed (crash.jam false), so nothing more could happen.
   */
  | { outcome: 'timeout'; started: boolean; halted?: { pc: number; cycle: number | null } }
);

/**
 * The one moment a run's end state is read (docs/ultimate/SERVICE.md, "The end state"): the cycle
 * (on the run's clock) and why, and whether the memory read is the machine exactly at that cycle.
 */
export interface EndStateMoment {
  cycle: number | null;
  /** e.g. "the write of $00 that ended the run". */
  at: string;
  /** true: memory is as it was at `cycle` (VICE stopped there; the Ultimate's trace replayed to it). */
  exact: boolean;
  /** How it was read. */
  how: string;
}

/** A crash hook written into the machine's RAM (targets/crash-hook.ts): what the run record declares. */
export interface InstalledCrashHook {
  /** The RAM the tool wrote, inclusive. */
  footprint: { start: number; end: number };
  /** Where the handler stores the context (the harness crash area's layout). */
  block: number;
  /** The $D7FF value the handler signals a BRK with. */
  signal: number;
  /** The vector pointed at the handler. */
  vector: number;
}

/** One prepare.fill entry: `length` bytes of `byte` from `address` (within $0000-$FFFF). */
export interface MemoryFill {
  address: number;
  length: number;
  byte: number;
}

export interface TargetConnection {
  readonly emulation: boolean;
  readonly identity: Record<string, unknown>;
  /** Milliseconds spent waiting for the machine (device or emulator), for the phase split. */
  deviceMs: number;
  /** Fill memory (prepare.fill), then reset, load and start the PRG ("run", or SYS `start.sys`). */
  start(prg: Uint8Array, prepare?: { fill: MemoryFill[]; sys?: number }): Promise<void>;
  /** What was done to RAM before the run (docs/ultimate/SERVICE.md, "Every run starts from the same machine"). */
  ramState(): RamState;
  /**
   * Observes every write to $D7FF until `protocol.classify` ends the run, a crash, or `deadline`
   * (performance.now() ms). With `protocol.checkpoints`, a marker of a planned point is captured
   * (docs/ultimate/CHECKPOINT_COMPARISON.md).
   */
  waitDebugResult(deadline: number, protocol: RunProtocol): Promise<DebugWait>;
  /** Polls memory until `done(bytes)` or the deadline; returns the last bytes read. */
  pollMemory(address: number, length: number, deadline: number, done: (b: Uint8Array) => boolean): Promise<Uint8Array>;
  readMemory(address: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** The run record's observations.ram_state. */
export interface RamState {
  /** The pattern RAM holds before the KERNAL's reset: x64sc's power-on pattern (ram-power-on.ts). */
  pattern: 'x64sc-power-on';
  /** The ranges the tool filled with it (inclusive, hex), or that the emulator's own power-up filled. */
  filled: Array<{ start: string; end: string }>;
  how: string;
  /**
   * The REU's memory when the run's machine has one (`machine.reu_kb`): the 17xx DRAM power-on
   * pattern over its whole size, so no earlier run's REU bytes (nor the Ultimate's own REU memory,
   * which a reset keeps) can reach the program — or, on Ultimate hardware, `as-left`: the contract
   * allows REU writes there only for a declared REU image, with its confirmed count.
   */
  reu?: { pattern: '17xx-power-on' | 'as-left'; size_kb: number; how: string };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
