// Shared by the ultimate-cpu tests: assembling real 6502 source with Debian's acme / 64tass /
// cl65, a flat 64 KiB bus that records every access, and the documented-opcode table of the
// MOS datasheet (mnemonic, addressing mode, base cycles, page-cross penalty).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cpu6510, type CpuBus } from '../../../../../engines/ultimate/virtual/c64/cpu6510.js';

export interface Assembled {
  /** The plain binary (no load address) starting at `origin`. */
  bytes: Uint8Array;
  origin: number;
  labels: Map<string, number>;
}

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'ucpu-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseLabels(text: string, re: RegExp): Map<string, number> {
  const labels = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = re.exec(line);
    if (m) labels.set(m[1]!, parseInt(m[2]!, 16));
  }
  return labels;
}

/** Assemble acme source (which must set `* = origin`) to a plain binary. */
export function acme(source: string, origin: number): Assembled {
  return withTempDir((dir) => {
    const src = join(dir, 'prog.a');
    writeFileSync(src, source);
    try {
      execFileSync('acme', ['-f', 'plain', '-o', join(dir, 'prog.bin'), '-l', join(dir, 'prog.lbl'), src], { stdio: 'pipe' });
    } catch (e) {
      const err = e as { stderr?: Buffer; stdout?: Buffer };
      throw new Error(`acme failed:\n${err.stderr?.toString() ?? ''}${err.stdout?.toString() ?? ''}`);
    }
    return {
      bytes: new Uint8Array(readFileSync(join(dir, 'prog.bin'))),
      origin,
      labels: parseLabels(readFileSync(join(dir, 'prog.lbl'), 'utf8'), /^\s*([\w.]+)\s*=\s*\$([0-9a-fA-F]+)/),
    };
  });
}

/** Assemble acme source into a C64 PRG (acme's cbm format: load address first). */
export function acmePrg(source: string): Uint8Array {
  return withTempDir((dir) => {
    const src = join(dir, 'prog.a');
    writeFileSync(src, source);
    execFileSync('acme', ['-f', 'cbm', '-o', join(dir, 'prog.prg'), src], { stdio: 'pipe' });
    return new Uint8Array(readFileSync(join(dir, 'prog.prg')));
  });
}

/** Assemble 64tass source into a C64 PRG (64tass's default output: load address first). */
export function tassPrg(source: string): Uint8Array {
  return withTempDir((dir) => {
    const src = join(dir, 'prog.s');
    writeFileSync(src, source);
    execFileSync('64tass', ['--quiet', '-o', join(dir, 'prog.prg'), src], { stdio: 'pipe' });
    return new Uint8Array(readFileSync(join(dir, 'prog.prg')));
  });
}

/** Compile C with cc65 for the C64 (`cl65 -t c64`): a PRG with cc65's own BASIC stub. */
export function cl65Prg(cSource: string): Uint8Array {
  return withTempDir((dir) => {
    const src = join(dir, 'prog.c');
    writeFileSync(src, cSource);
    execFileSync('cl65', ['-t', 'c64', '-O', '-o', join(dir, 'prog.prg'), src], { stdio: 'pipe', cwd: dir });
    return new Uint8Array(readFileSync(join(dir, 'prog.prg')));
  });
}

export interface Access {
  addr: number;
  value: number;
  write: boolean;
}

/** 64 KiB of RAM and nothing else; optionally records every access. */
export class FlatBus implements CpuBus {
  readonly mem = new Uint8Array(0x10000);
  readonly log: Access[] = [];
  recording = false;
  accesses = 0;

  read(addr: number): number {
    this.accesses++;
    const value = this.mem[addr]!;
    if (this.recording) this.log.push({ addr, value, write: false });
    return value;
  }

  write(addr: number, value: number): void {
    this.accesses++;
    this.mem[addr] = value;
    if (this.recording) this.log.push({ addr, value, write: true });
  }
}

/** A CPU on a flat bus with `bytes` at `origin`, PC there, SP $FF, all registers 0. */
export function flatCpu(bytes: Uint8Array, origin: number): { cpu: Cpu6510; bus: FlatBus } {
  const bus = new FlatBus();
  bus.mem.set(bytes, origin);
  const cpu = new Cpu6510(bus);
  cpu.pc = origin;
  cpu.sp = 0xff;
  cpu.p = 0x20;
  return { cpu, bus };
}

/** Step until the CPU jams (the test programs end on a KIL opcode) or the budget runs out. */
export function runToJam(cpu: Cpu6510, maxCycles: number, onStep?: (pc: number) => void): void {
  const limit = cpu.cycles + maxCycles;
  while (!cpu.jammed) {
    if (cpu.cycles > limit) throw new Error(`program did not finish within ${maxCycles} cycles (PC $${cpu.pc.toString(16)})`);
    onStep?.(cpu.pc);
    cpu.step();
  }
}

export type Mode = 'imp' | 'acc' | 'imm' | 'zp' | 'zpx' | 'zpy' | 'abs' | 'absx' | 'absy' | 'ind' | 'izx' | 'izy' | 'rel';

export interface OpcodeInfo {
  opcode: number;
  mnemonic: string;
  mode: Mode;
  /** Cycles without page crossing, branch not taken. */
  cycles: number;
  /** One extra cycle when the indexed address crosses a page (reads only). */
  pageCross: boolean;
}

// The 151 documented opcodes with the datasheet's cycle counts ("*" = +1 on page cross;
// branches: +1 taken, +1 more when the target is on another page).
const TABLE = `
69 ADC imm 2|65 ADC zp 3|75 ADC zpx 4|6D ADC abs 4|7D ADC absx 4*|79 ADC absy 4*|61 ADC izx 6|71 ADC izy 5*
29 AND imm 2|25 AND zp 3|35 AND zpx 4|2D AND abs 4|3D AND absx 4*|39 AND absy 4*|21 AND izx 6|31 AND izy 5*
0A ASL acc 2|06 ASL zp 5|16 ASL zpx 6|0E ASL abs 6|1E ASL absx 7
90 BCC rel 2|B0 BCS rel 2|F0 BEQ rel 2|30 BMI rel 2|D0 BNE rel 2|10 BPL rel 2|50 BVC rel 2|70 BVS rel 2
24 BIT zp 3|2C BIT abs 4|00 BRK imp 7|18 CLC imp 2|D8 CLD imp 2|58 CLI imp 2|B8 CLV imp 2
C9 CMP imm 2|C5 CMP zp 3|D5 CMP zpx 4|CD CMP abs 4|DD CMP absx 4*|D9 CMP absy 4*|C1 CMP izx 6|D1 CMP izy 5*
E0 CPX imm 2|E4 CPX zp 3|EC CPX abs 4|C0 CPY imm 2|C4 CPY zp 3|CC CPY abs 4
C6 DEC zp 5|D6 DEC zpx 6|CE DEC abs 6|DE DEC absx 7|CA DEX imp 2|88 DEY imp 2
49 EOR imm 2|45 EOR zp 3|55 EOR zpx 4|4D EOR abs 4|5D EOR absx 4*|59 EOR absy 4*|41 EOR izx 6|51 EOR izy 5*
E6 INC zp 5|F6 INC zpx 6|EE INC abs 6|FE INC absx 7|E8 INX imp 2|C8 INY imp 2
4C JMP abs 3|6C JMP ind 5|20 JSR abs 6
A9 LDA imm 2|A5 LDA zp 3|B5 LDA zpx 4|AD LDA abs 4|BD LDA absx 4*|B9 LDA absy 4*|A1 LDA izx 6|B1 LDA izy 5*
A2 LDX imm 2|A6 LDX zp 3|B6 LDX zpy 4|AE LDX abs 4|BE LDX absy 4*
A0 LDY imm 2|A4 LDY zp 3|B4 LDY zpx 4|AC LDY abs 4|BC LDY absx 4*
4A LSR acc 2|46 LSR zp 5|56 LSR zpx 6|4E LSR abs 6|5E LSR absx 7|EA NOP imp 2
09 ORA imm 2|05 ORA zp 3|15 ORA zpx 4|0D ORA abs 4|1D ORA absx 4*|19 ORA absy 4*|01 ORA izx 6|11 ORA izy 5*
48 PHA imp 3|08 PHP imp 3|68 PLA imp 4|28 PLP imp 4
2A ROL acc 2|26 ROL zp 5|36 ROL zpx 6|2E ROL abs 6|3E ROL absx 7
6A ROR acc 2|66 ROR zp 5|76 ROR zpx 6|6E ROR abs 6|7E ROR absx 7
40 RTI imp 6|60 RTS imp 6
E9 SBC imm 2|E5 SBC zp 3|F5 SBC zpx 4|ED SBC abs 4|FD SBC absx 4*|F9 SBC absy 4*|E1 SBC izx 6|F1 SBC izy 5*
38 SEC imp 2|F8 SED imp 2|78 SEI imp 2
85 STA zp 3|95 STA zpx 4|8D STA abs 4|9D STA absx 5|99 STA absy 5|81 STA izx 6|91 STA izy 6
86 STX zp 3|96 STX zpy 4|8E STX abs 4|84 STY zp 3|94 STY zpx 4|8C STY abs 4
AA TAX imp 2|A8 TAY imp 2|BA TSX imp 2|8A TXA imp 2|9A TXS imp 2|98 TYA imp 2
`;

export const DOCUMENTED: readonly OpcodeInfo[] = TABLE.trim()
  .split(/[|\n]/)
  .map((entry) => {
    const [op, mnemonic, mode, cyc] = entry.trim().split(/\s+/);
    if (op === undefined || mnemonic === undefined || mode === undefined || cyc === undefined) {
      throw new Error(`opcode table entry ${JSON.stringify(entry)} needs four fields`);
    }
    return {
      opcode: parseInt(op, 16),
      mnemonic,
      mode: mode as Mode,
      cycles: parseInt(cyc, 10),
      pageCross: cyc.endsWith('*'),
    };
  });

/** Status-register byte from flag letters (N V D I Z C; B and bit 5 are not flags). */
export function flags(letters: string): number {
  const bits: Record<string, number> = { C: 0x01, Z: 0x02, I: 0x04, D: 0x08, V: 0x40, N: 0x80 };
  let p = 0;
  for (const ch of letters) {
    const bit = bits[ch];
    if (bit === undefined) throw new Error(`unknown flag letter ${ch}`);
    p |= bit;
  }
  return p;
}

export function hex(n: number, digits = 2): string {
  return `$${n.toString(16).toUpperCase().padStart(digits, '0')}`;
}
