// Test harness for the RV32 interpreter: builds one ELF from many small assembly cases (one gcc and
// one nm run for a whole file of cases), then runs each case from its own label until it stops.
import { readElf32 } from '../../../../../engines/ultimate/riscv-apps/elf32.js';
import { buildRiscvProgram } from '../../../../../engines/ultimate/riscv-apps/riscv-toolchain.js';
import type { Rv32Bus } from '../../../../../engines/ultimate/virtual/riscv/rv32-bus.js';
import { Rv32Cpu } from '../../../../../engines/ultimate/virtual/riscv/rv32-cpu.js';
import type { Rv32Stop } from '../../../../../engines/ultimate/virtual/riscv/rv32-trap.js';

export const TEST_RAM_BASE = 0x03000000;
/** Small RAM for the tests (the device has 16 MiB); the stack starts at its top. */
export const TEST_RAM_BYTES = 0x10000;

export interface AsmCase {
  name: string;
  /** Instructions of the case; an `ecall` is appended. */
  text: string;
  /** Optional data for the case (goes to .data). */
  data?: string;
}

export interface CaseRun {
  cpu: Rv32Cpu;
  stop: Rv32Stop;
  /** Address of a label in the program. */
  sym(name: string): number;
  /** Register value as unsigned. */
  u(reg: number): number;
}

export interface CaseProgram {
  run(name: string, opts?: { bus?: Rv32Bus; limit?: number }): CaseRun;
}

/** `useBlocks: false` runs the plain interpreter only (both tiers are tested). */
export async function buildCases(
  cases: AsmCase[],
  flags: string[] = [],
  tier: { useBlocks: boolean } = { useBlocks: true },
): Promise<CaseProgram> {
  const parts = ['.section .text.start', '.globl _start', '_start: ebreak'];
  for (const c of cases) {
    parts.push('.text', `.globl case_${c.name}`, `case_${c.name}:`, c.text, 'ecall');
    if (c.data) parts.push('.data', '.balign 4', c.data);
  }
  const built = await buildRiscvProgram({ sources: { 'cases.S': `${parts.join('\n')}\n` }, flags });
  const program = readElf32(built.elf);
  const sym = (name: string): number => {
    const a = built.symbols.get(name);
    if (a === undefined) throw new Error(`no symbol ${name}`);
    return a;
  };
  return {
    run(name, opts = {}) {
      const cpu = new Rv32Cpu({ ramBase: TEST_RAM_BASE, ramBytes: TEST_RAM_BYTES, bus: opts.bus });
      cpu.useBlocks = tier.useBlocks;
      for (const s of program.segments) cpu.load(s.address, s.bytes);
      cpu.pc = sym(`case_${name}`);
      cpu.x[2] = TEST_RAM_BASE + TEST_RAM_BYTES; // sp
      const stop = cpu.run(opts.limit ?? 100_000);
      return { cpu, stop, sym, u: (r) => cpu.x[r]! >>> 0 };
    },
  };
}

/** Encodes `jal rd, offset` (for offsets the assembler refuses, such as misaligned ones). */
export function encodeJal(rd: number, offset: number): number {
  const o = offset & 0x1fffff;
  return (
    ((((o >>> 20) & 1) << 31) | (((o >>> 1) & 0x3ff) << 21) | (((o >>> 11) & 1) << 20) | (((o >>> 12) & 0xff) << 12) | (rd << 7) | 0x6f) >>>
    0
  );
}

/** Encodes a conditional branch (funct3 0 BEQ, 1 BNE, 4 BLT, 5 BGE, 6 BLTU, 7 BGEU). */
export function encodeBranch(funct3: number, rs1: number, rs2: number, offset: number): number {
  const o = offset & 0x1fff;
  return (
    ((((o >>> 12) & 1) << 31) |
      (((o >>> 5) & 0x3f) << 25) |
      (rs2 << 20) |
      (rs1 << 15) |
      (funct3 << 12) |
      (((o >>> 1) & 0xf) << 8) |
      (((o >>> 11) & 1) << 7) |
      0x63) >>>
    0
  );
}

export const word = (w: number): string => `.word 0x${(w >>> 0).toString(16)}`;

// ABI register numbers used by the cases.
export const ra = 1;
export const sp = 2;
export const t0 = 5;
export const t1 = 6;
export const t2 = 7;
export const a0 = 10;
export const a1 = 11;
export const a2 = 12;
export const a3 = 13;
export const a4 = 14;
export const a5 = 15;
