// What a test run needs from a machine, whichever target it is: start a PRG (reset, load, RUN),
// wait for the harness's result byte, read memory. The vice target speaks the binary monitor,
// the ultimate target the device's REST/DMA services; run-test.ts is the same for both.

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

import type { CheckpointRecorder } from './checkpoint-recorder.js';

export type DebugWait =
  | { outcome: 'result'; value: number; progress: number[] }
  | { outcome: 'timeout'; last: number | null; progress: number[] }
  | { outcome: 'jam'; pc: number; progress: number[] };

export interface TargetConnection {
  readonly emulation: boolean;
  readonly identity: Record<string, unknown>;
  /** Milliseconds spent waiting for the machine (device or emulator), for the phase split. */
  deviceMs: number;
  /** Reset, load the PRG and start it with BASIC RUN (the PRG is at $0801 with a SYS stub). */
  start(prg: Uint8Array): Promise<void>;
  /**
   * Waits for a byte ≥ $80 written to $D7FF, until `deadline` (performance.now() ms). With
   * `checkpoints`, a marker of a planned point starts one pause episode: stop, read the point's
   * ranges, write the acknowledgement, resume once (docs/ultimate/CHECKPOINT_COMPARISON.md).
   */
  waitDebugResult(deadline: number, checkpoints?: CheckpointRecorder): Promise<DebugWait>;
  /** Polls memory until `done(bytes)` or the deadline; returns the last bytes read. */
  pollMemory(address: number, length: number, deadline: number, done: (b: Uint8Array) => boolean): Promise<Uint8Array>;
  readMemory(address: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
