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

/** One observed write to $D7FF. `cycle`: CPU cycles (φ2) from the first cycle of the program's
 *  first instruction (the opcode fetch at the entry address — the SYS target of the PRG's BASIC
 *  stub, or the load address when the PRG has no stub) to the bus cycle of this write. Meaningful
 *  only when the DebugWait's `cycleSource` is not null. */
export interface DebugRegisterWrite {
  value: number;
  cycle: number;
}

/** What ends a run, decided by the caller (manifest verdict or the harness convention). */
export interface RunProtocol {
  /** 'pass' | 'fail' | 'crash' ends the run at that write; null = a progress/marker write. */
  classify(value: number): 'pass' | 'fail' | 'crash' | null;
  /** The artifact's code ranges [start, end] inclusive; execution outside them is a crash. Empty = not checked. */
  codeRanges: ReadonlyArray<{ start: number; end: number }>;
  /** Markers to capture (checkpoints[].marker), with the harness handshake on or off. */
  checkpoints?: CheckpointRecorder;
  /**
   * (Addition to the seam.) The run needs every write exactly, with cycles, and crashes without the
   * program's cooperation (verdict, budget.cycles, debug_register_writes). A target that has a
   * cheaper, less exact way (the Ultimate's REST polling) uses it only when this is not set; one that
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

export type DebugWait = {
  writes: DebugRegisterWrite[];
  /** false when writes may have been missed (hardware without a stream: REST polling). */
  writesExact: boolean;
  /** How the cycles were obtained (e.g. 'vice-stopwatch', 'debug-stream'); null = no cycles. */
  cycleSource: string | null;
  /** The crash hook the target installed by DMA for this run (ultimate without a stream), if any. */
  crashHook?: InstalledCrashHook;
} & ({ outcome: 'ended'; verdict: 'pass' | 'fail'; value: number } | { outcome: 'crashed'; crash: CrashState } | { outcome: 'timeout' });

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
  /** Fill memory (prepare.fill), then reset, load and start the PRG. */
  start(prg: Uint8Array, prepare?: { fill: MemoryFill[] }): Promise<void>;
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

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
