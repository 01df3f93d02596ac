import type { InputLines } from './input-lines.js';
import type { DebugStreamMode } from './debug-stream-mode.js';

// The part of U1's C64Machine (machine.ts) that the virtual device's servers use. Typing the servers
// against this view keeps them independent of the machine's internals, and lets a test drive a
// server with a machine built however it likes.
export interface CpuRegisters {
  a: number;
  x: number;
  y: number;
  pc: number;
  sp: number;
  p: number;
  cycles: number;
  /** True after a JAM/KIL opcode until the next reset. */
  readonly jammed: boolean;
  /** IRQ sources holding the line low, and an NMI edge not yet taken (the VICE monitor needs to
   *  know whether an interrupt is due at an instruction boundary). */
  readonly irqLines?: number;
  readonly nmiPending?: boolean;
}

export interface MachineSeam {
  readonly ram: Uint8Array;
  cpu: CpuRegisters;
  /** Debugger read: no side effects. */
  peek(addr: number): number;
  /** Debugger write: no side effects. */
  poke(addr: number, value: number): void;
  /** DMA-style access, as REST readmem/writemem do it. */
  readMem(addr: number, len: number): Uint8Array;
  writeMem(addr: number, bytes: Uint8Array): void;
  /** DMA FF08: replace the KERNAL ROM with an 8 KiB image (optional: a machine may not model it). */
  replaceKernal?(rom: Uint8Array): void;
  /** Cold reset into the KERNAL stand-in. */
  reset(): void;
  /** Load into the running machine without a reset (a debugger's load; not the Ultimate's load_prg). */
  loadPrg(bytes: Uint8Array): { start: number; end: number };
  /**
   * The Ultimate's runner path: reset, DMA-load (cut at $FFFF), then BASIC RUN ('run'), READY
   * ('none') or a jump to the given address (DMA FF09).
   */
  bootLoad(bytes: Uint8Array, then: 'run' | 'none' | number): { start: number; end: number };
  /** Reset + load + BASIC RUN, as the device's run_prg does (= bootLoad(bytes, 'run')). */
  runPrg(bytes: Uint8Array): void;
  /** Execute at least `cycles` clocks; returns clocks executed (fewer when onExec stopped it). */
  run(cycles: number): number;
  /** Execute exactly one instruction; returns its clocks. */
  stepInstruction(): number;
  /** Put PETSCII keys into the KERNAL keyboard buffer (at most 10 queued). */
  typeKeys(petscii: number[]): void;
  /** Current raster line (for the monitor's LIN register). */
  rasterLine(): number;
  debugRegister: number;
  onDebugRegisterWrite?: (value: number) => void;
  /** Called before each instruction; returning true stops run() before executing it. */
  onExec?: (pc: number) => boolean;
  /** Keyboard matrix and joystick lines the U64 input API drives, when the machine models them. */
  readonly inputLines?: InputLines;
  /** The firmware's "Debug Stream Mode" (which bus halves are streamed), when the machine models it. */
  debugStreamMode?: DebugStreamMode;
}

/** The machine's constructor, as the seam fixes it. */
export type MachineFactory = (opts: { onBusCycle: (entry: number) => void }) => MachineSeam;
