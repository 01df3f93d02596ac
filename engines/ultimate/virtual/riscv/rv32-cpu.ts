// The RV32IM core of the virtual Ultimate 64 Elite II, in two tiers:
//  - the block tier (default, rv32-block-compiler.ts): straight-line code compiled once into JS
//    functions that V8 optimises — where the speed comes from (docs/performance/ultimate-riscv.md);
//  - the interpreter below, for code's first execution, for the exact handling of exceptions, and
//    for the last instructions of a budget: a decode cache (each RAM word decoded once into one
//    packed int plus an immediate, re-decoded after a store to it), one loop with a switch over
//    integer literals, RAM as typed-array views of one buffer; anything outside RAM goes through
//    the Rv32Bus (memory-mapped I/O) on a slow path.
// Exceptions stop the loop with their cause (rv32-trap.ts): there is no firmware trap handler to
// vector to. Misaligned loads, stores and jump/branch targets raise the misaligned exceptions (the
// core does not emulate misaligned access).
import { EMPTY_BUS, type AccessWidth, type Rv32Bus } from './rv32-bus.js';
import { compileBlock, MAX_BLOCK } from './rv32-block-compiler.js';
import { decodeRv32, OP, type Decoded } from './rv32-decode.js';
import { div, divu, mulh, mulhsu, mulhu, rem, remu } from './rv32-muldiv.js';
import type { Rv32Stop, TrapCause } from './rv32-trap.js';

if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
  throw new Error('the RV32 interpreter needs a little-endian host (its RAM is typed-array views)');
}

export interface Rv32Options {
  /** First RAM address (word-aligned). */
  ramBase: number;
  /** RAM size in bytes (a multiple of 4). */
  ramBytes: number;
  bus?: Rv32Bus;
}

type FaultCause = Exclude<TrapCause, 'breakpoint' | 'environment-call'>;

export class Rv32Cpu {
  /** x0..x31, then the sink that absorbs writes to x0. */
  readonly x = new Int32Array(33);
  pc = 0;
  /** Instructions retired since construction. */
  retired = 0;
  readonly ramBase: number;
  readonly ramBytes: number;
  readonly ram: Uint8Array;
  readonly bus: Rv32Bus;
  readonly #s8: Int8Array;
  readonly #u16: Uint16Array;
  readonly #s16: Int16Array;
  readonly #w32: Int32Array;
  // The decode cache, one slot per RAM word: operation | rd << 8 | rs1 << 14 | rs2 << 20 packed in
  // one int (0 = not decoded yet), and the immediate. Two loads per instruction instead of five.
  readonly #op: Int32Array;
  readonly #imm: Int32Array;
  readonly #scratch: Decoded = { op: 0, rd: 0, rs1: 0, rs2: 0, imm: 0 };
  // The block tier (rv32-block-compiler.ts): per word, 0 = not tried, -1 = no block starts here,
  // k > 0 = #blocks[k]; #covered marks words inside compiled blocks, so a store there invalidates.
  readonly #blockAt: Int32Array;
  readonly #covered: Uint8Array;
  readonly #blocks: Array<(left: number) => number> = [() => -1];
  #blocksLive = false;
  /** Written by a block that stops early: the faulting pc, instructions completed, and whether it stored into code. */
  readonly #st = { pc: 0, n: 0, dirty: 0 };
  /** Blocks compiled and invalidations (for tests and the benchmark). */
  blocksCompiled = 0;
  blockInvalidations = 0;
  /** False runs the plain interpreter only (the benchmark measures both). */
  useBlocks = true;
  #stop: Rv32Stop = { kind: 'limit' };

  constructor(opts: Rv32Options) {
    if (opts.ramBase % 4 !== 0 || opts.ramBytes % 4 !== 0 || opts.ramBytes <= 0) {
      throw new Error(`RAM base and size must be positive multiples of 4; got base ${opts.ramBase}, size ${opts.ramBytes}`);
    }
    this.ramBase = opts.ramBase >>> 0;
    this.ramBytes = opts.ramBytes;
    const buf = new ArrayBuffer(opts.ramBytes);
    this.ram = new Uint8Array(buf);
    this.#s8 = new Int8Array(buf);
    this.#u16 = new Uint16Array(buf);
    this.#s16 = new Int16Array(buf);
    this.#w32 = new Int32Array(buf);
    const words = opts.ramBytes >>> 2;
    this.#op = new Int32Array(words);
    this.#imm = new Int32Array(words);
    this.#blockAt = new Int32Array(words);
    this.#covered = new Uint8Array(words);
    this.bus = opts.bus ?? EMPTY_BUS;
  }

  /** Copies bytes into RAM (a loader's write), invalidating the decode cache they cover. */
  load(address: number, bytes: Uint8Array): void {
    const off = (address - this.ramBase) >>> 0;
    if (off + bytes.length > this.ramBytes || off >= this.ramBytes) {
      throw new RangeError(
        `cannot load ${bytes.length} bytes at 0x${(address >>> 0).toString(16)}: RAM is 0x${this.ramBase.toString(16)}..0x${(this.ramBase + this.ramBytes).toString(16)}`,
      );
    }
    this.ram.set(bytes, off);
    this.#op.fill(0, off >>> 2, (off + bytes.length + 3) >>> 2);
    this.#invalidateBlocks();
  }

  /** Clears RAM, registers and the decode cache. */
  reset(pc = this.ramBase): void {
    this.ram.fill(0);
    this.#op.fill(0);
    this.#invalidateBlocks();
    this.x.fill(0);
    this.pc = pc >>> 0;
  }

  /** Why the last run() ended. */
  get stop(): Rv32Stop {
    return this.#stop;
  }

  /**
   * Executes up to `limit` instructions from `pc`. Returns why it stopped; on an exception `pc` is
   * the faulting instruction, which is not counted as retired.
   */
  run(limit: number): Rv32Stop {
    const x = this.x;
    const base = this.ramBase;
    const size = this.ramBytes;
    const u8 = this.ram;
    const s8 = this.#s8;
    const u16 = this.#u16;
    const s16 = this.#s16;
    const w32 = this.#w32;
    const ops = this.#op;
    const imms = this.#imm;
    const blockAt = this.#blockAt;
    const blocks = this.#blocks;
    const covered = this.#covered;
    const st = this.#st;
    const useBlocks = this.useBlocks;
    let pc = this.pc >>> 0;
    let n = 0;
    let max = limit;
    /** After a block stopped early, the faulting instruction runs here, one step. */
    let stepAt = -1;
    this.#stop = { kind: 'limit' };
    while (n < max) {
      const off = (pc - base) >>> 0;
      if (off >= size) {
        this.#fault('instruction-access-fault', pc, pc);
        break;
      }
      const i = off >>> 2;
      if (useBlocks && pc !== stepAt && max - n >= MAX_BLOCK) {
        let b = blockAt[i]!;
        if (b === 0) b = this.#compileBlockAt(i, pc);
        if (b > 0) {
          const next = blocks[b]!(max - n);
          n += st.n;
          if (next >= 0) pc = next;
          else {
            pc = st.pc;
            stepAt = pc;
          }
          if (st.dirty !== 0) {
            st.dirty = 0;
            this.#invalidateBlocks();
          }
          continue;
        }
      }
      stepAt = -1;
      let d = ops[i]!;
      if (d === OP.UNDECODED) d = this.#decode(i, pc);
      n++;
      // Numeric literals, not OP.X: V8 turns a switch over dense integer literals into a jump table,
      // while property loads as case labels become a chain of compares (measured: 3× slower).
      switch (d & 0xff) {
        case 18: // ADDI
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! + imms[i]!;
          pc += 4;
          break;
        case 1: // LUI
          x[(d >>> 8) & 63] = imms[i]!;
          pc += 4;
          break;
        case 27: // ADD
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! + x[(d >>> 20) & 31]!;
          pc += 4;
          break;
        case 28: // SUB
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! - x[(d >>> 20) & 31]!;
          pc += 4;
          break;
        case 12: {
          // LW
          const a = (x[(d >>> 14) & 31]! + imms[i]!) >>> 0;
          const o = (a - base) >>> 0;
          if (o < size && (o & 3) === 0) x[(d >>> 8) & 63] = w32[o >>> 2]!;
          else if (!this.#loadSlow(a, 4, false, (d >>> 8) & 63, pc)) {
            max = --n;
            break;
          }
          pc += 4;
          break;
        }
        case 17: {
          // SW
          const a = (x[(d >>> 14) & 31]! + imms[i]!) >>> 0;
          const o = (a - base) >>> 0;
          if (o < size && (o & 3) === 0) {
            w32[o >>> 2] = x[(d >>> 20) & 31]!;
            ops[o >>> 2] = OP.UNDECODED;
            if (covered[o >>> 2] !== 0) this.#invalidateBlocks();
          } else if (!this.#storeSlow(a, 4, x[(d >>> 20) & 31]!, pc)) {
            max = --n;
            break;
          }
          pc += 4;
          break;
        }
        case 4: // BEQ
          if (x[(d >>> 14) & 31] === x[(d >>> 20) & 31]) {
            const t = imms[i]! >>> 0;
            if (t & 3) {
              this.#fault('instruction-address-misaligned', pc, t);
              max = --n;
            } else pc = t;
          } else pc += 4;
          break;
        case 5: // BNE
          if (x[(d >>> 14) & 31] !== x[(d >>> 20) & 31]) {
            const t = imms[i]! >>> 0;
            if (t & 3) {
              this.#fault('instruction-address-misaligned', pc, t);
              max = --n;
            } else pc = t;
          } else pc += 4;
          break;
        case 6: // BLT
          if (x[(d >>> 14) & 31]! < x[(d >>> 20) & 31]!) {
            const t = imms[i]! >>> 0;
            if (t & 3) {
              this.#fault('instruction-address-misaligned', pc, t);
              max = --n;
            } else pc = t;
          } else pc += 4;
          break;
        case 7: // BGE
          if (x[(d >>> 14) & 31]! >= x[(d >>> 20) & 31]!) {
            const t = imms[i]! >>> 0;
            if (t & 3) {
              this.#fault('instruction-address-misaligned', pc, t);
              max = --n;
            } else pc = t;
          } else pc += 4;
          break;
        case 8: // BLTU
          if (x[(d >>> 14) & 31]! >>> 0 < x[(d >>> 20) & 31]! >>> 0) {
            const t = imms[i]! >>> 0;
            if (t & 3) {
              this.#fault('instruction-address-misaligned', pc, t);
              max = --n;
            } else pc = t;
          } else pc += 4;
          break;
        case 9: // BGEU
          if (x[(d >>> 14) & 31]! >>> 0 >= x[(d >>> 20) & 31]! >>> 0) {
            const t = imms[i]! >>> 0;
            if (t & 3) {
              this.#fault('instruction-address-misaligned', pc, t);
              max = --n;
            } else pc = t;
          } else pc += 4;
          break;
        case 2: {
          // JAL
          const t = imms[i]! >>> 0;
          if (t & 3) {
            this.#fault('instruction-address-misaligned', pc, t);
            max = --n;
          } else {
            x[(d >>> 8) & 63] = pc + 4;
            pc = t;
          }
          break;
        }
        case 3: {
          // JALR
          const t = ((x[(d >>> 14) & 31]! + imms[i]!) & ~1) >>> 0;
          if (t & 3) {
            this.#fault('instruction-address-misaligned', pc, t);
            max = --n;
          } else {
            x[(d >>> 8) & 63] = pc + 4;
            pc = t;
          }
          break;
        }
        case 10: {
          // LB
          const a = (x[(d >>> 14) & 31]! + imms[i]!) >>> 0;
          const o = (a - base) >>> 0;
          if (o < size) x[(d >>> 8) & 63] = s8[o]!;
          else if (!this.#loadSlow(a, 1, true, (d >>> 8) & 63, pc)) {
            max = --n;
            break;
          }
          pc += 4;
          break;
        }
        case 13: {
          // LBU
          const a = (x[(d >>> 14) & 31]! + imms[i]!) >>> 0;
          const o = (a - base) >>> 0;
          if (o < size) x[(d >>> 8) & 63] = u8[o]!;
          else if (!this.#loadSlow(a, 1, false, (d >>> 8) & 63, pc)) {
            max = --n;
            break;
          }
          pc += 4;
          break;
        }
        case 11: {
          // LH
          const a = (x[(d >>> 14) & 31]! + imms[i]!) >>> 0;
          const o = (a - base) >>> 0;
          if (o < size && (o & 1) === 0) x[(d >>> 8) & 63] = s16[o >>> 1]!;
          else if (!this.#loadSlow(a, 2, true, (d >>> 8) & 63, pc)) {
            max = --n;
            break;
          }
          pc += 4;
          break;
        }
        case 14: {
          // LHU
          const a = (x[(d >>> 14) & 31]! + imms[i]!) >>> 0;
          const o = (a - base) >>> 0;
          if (o < size && (o & 1) === 0) x[(d >>> 8) & 63] = u16[o >>> 1]!;
          else if (!this.#loadSlow(a, 2, false, (d >>> 8) & 63, pc)) {
            max = --n;
            break;
          }
          pc += 4;
          break;
        }
        case 15: {
          // SB
          const a = (x[(d >>> 14) & 31]! + imms[i]!) >>> 0;
          const o = (a - base) >>> 0;
          if (o < size) {
            u8[o] = x[(d >>> 20) & 31]!;
            ops[o >>> 2] = OP.UNDECODED;
            if (covered[o >>> 2] !== 0) this.#invalidateBlocks();
          } else if (!this.#storeSlow(a, 1, x[(d >>> 20) & 31]!, pc)) {
            max = --n;
            break;
          }
          pc += 4;
          break;
        }
        case 16: {
          // SH
          const a = (x[(d >>> 14) & 31]! + imms[i]!) >>> 0;
          const o = (a - base) >>> 0;
          if (o < size && (o & 1) === 0) {
            u16[o >>> 1] = x[(d >>> 20) & 31]!;
            ops[o >>> 2] = OP.UNDECODED;
            if (covered[o >>> 2] !== 0) this.#invalidateBlocks();
          } else if (!this.#storeSlow(a, 2, x[(d >>> 20) & 31]!, pc)) {
            max = --n;
            break;
          }
          pc += 4;
          break;
        }
        case 19: // SLTI
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! < imms[i]! ? 1 : 0;
          pc += 4;
          break;
        case 20: // SLTIU
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! >>> 0 < imms[i]! >>> 0 ? 1 : 0;
          pc += 4;
          break;
        case 21: // XORI
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! ^ imms[i]!;
          pc += 4;
          break;
        case 22: // ORI
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! | imms[i]!;
          pc += 4;
          break;
        case 23: // ANDI
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! & imms[i]!;
          pc += 4;
          break;
        case 24: // SLLI
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! << imms[i]!;
          pc += 4;
          break;
        case 25: // SRLI
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! >>> imms[i]!;
          pc += 4;
          break;
        case 26: // SRAI
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! >> imms[i]!;
          pc += 4;
          break;
        case 29: // SLL
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! << (x[(d >>> 20) & 31]! & 31);
          pc += 4;
          break;
        case 30: // SLT
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! < x[(d >>> 20) & 31]! ? 1 : 0;
          pc += 4;
          break;
        case 31: // SLTU
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! >>> 0 < x[(d >>> 20) & 31]! >>> 0 ? 1 : 0;
          pc += 4;
          break;
        case 32: // XOR
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! ^ x[(d >>> 20) & 31]!;
          pc += 4;
          break;
        case 33: // SRL
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! >>> (x[(d >>> 20) & 31]! & 31);
          pc += 4;
          break;
        case 34: // SRA
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! >> (x[(d >>> 20) & 31]! & 31);
          pc += 4;
          break;
        case 35: // OR
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! | x[(d >>> 20) & 31]!;
          pc += 4;
          break;
        case 36: // AND
          x[(d >>> 8) & 63] = x[(d >>> 14) & 31]! & x[(d >>> 20) & 31]!;
          pc += 4;
          break;
        case 40: // MUL
          x[(d >>> 8) & 63] = Math.imul(x[(d >>> 14) & 31]!, x[(d >>> 20) & 31]!);
          pc += 4;
          break;
        case 41: // MULH
          x[(d >>> 8) & 63] = mulh(x[(d >>> 14) & 31]!, x[(d >>> 20) & 31]!);
          pc += 4;
          break;
        case 42: // MULHSU
          x[(d >>> 8) & 63] = mulhsu(x[(d >>> 14) & 31]!, x[(d >>> 20) & 31]!);
          pc += 4;
          break;
        case 43: // MULHU
          x[(d >>> 8) & 63] = mulhu(x[(d >>> 14) & 31]!, x[(d >>> 20) & 31]!);
          pc += 4;
          break;
        case 44: // DIV
          x[(d >>> 8) & 63] = div(x[(d >>> 14) & 31]!, x[(d >>> 20) & 31]!);
          pc += 4;
          break;
        case 45: // DIVU
          x[(d >>> 8) & 63] = divu(x[(d >>> 14) & 31]!, x[(d >>> 20) & 31]!);
          pc += 4;
          break;
        case 46: // REM
          x[(d >>> 8) & 63] = rem(x[(d >>> 14) & 31]!, x[(d >>> 20) & 31]!);
          pc += 4;
          break;
        case 47: // REMU
          x[(d >>> 8) & 63] = remu(x[(d >>> 14) & 31]!, x[(d >>> 20) & 31]!);
          pc += 4;
          break;
        case 37: // FENCE
          pc += 4;
          break;
        case 38: // ECALL
          this.#stop = { kind: 'ecall', pc };
          max = --n;
          break;
        case 39: // EBREAK
          this.#stop = { kind: 'ebreak', pc };
          max = --n;
          break;
        case 49: // PARK
          this.#stop = { kind: 'parked', pc };
          max = n;
          break;
        default: // ILLEGAL (48)
          this.#fault('illegal-instruction', pc, w32[i]!);
          max = --n;
          break;
      }
      pc >>>= 0;
    }
    this.pc = pc;
    this.retired += n;
    return this.#stop;
  }

  /** Compiles the block starting at word i; returns its index, or -1 when none starts there. */
  #compileBlockAt(i: number, pc: number): number {
    const src = compileBlock(this.#w32, i, pc, this.ramBase, this.ramBytes);
    if (!src) {
      this.#blockAt[i] = -1;
      this.#blocksLive = true;
      return -1;
    }
    const factory = new Function(
      'x',
      'w32',
      'u8',
      's8',
      'u16',
      's16',
      'ops',
      'cov',
      'st',
      'ld',
      'sd',
      'mulh',
      'mulhsu',
      'mulhu',
      'div',
      'divu',
      'rem',
      'remu',
      `'use strict';\nreturn function block_${(pc >>> 0).toString(16)}(left) {\n${src.source}\n};`,
    ) as (...args: unknown[]) => (left: number) => number;
    const fn = factory(
      this.x,
      this.#w32,
      this.ram,
      this.#s8,
      this.#u16,
      this.#s16,
      this.#op,
      this.#covered,
      this.#st,
      (a: number, w: AccessWidth, signed: boolean, rd: number) => this.#loadSlow(a, w, signed, rd, 0),
      (a: number, w: AccessWidth, v: number) => this.#storeSlow(a, w, v, 0),
      mulh,
      mulhsu,
      mulhu,
      div,
      divu,
      rem,
      remu,
    );
    const k = this.#blocks.length;
    this.#blocks.push(fn);
    this.#blockAt[i] = k;
    this.#blocksLive = true;
    this.#covered.fill(1, src.firstWord, src.firstWord + src.words);
    this.blocksCompiled++;
    return k;
  }

  /** Drops every compiled block (after a store into code, a load or a reset). */
  #invalidateBlocks(): void {
    if (!this.#blocksLive) return;
    this.#blockAt.fill(0);
    this.#covered.fill(0);
    this.#blocks.length = 1;
    this.#blocksLive = false;
    this.blockInvalidations++;
  }

  #decode(i: number, pc: number): number {
    const d = decodeRv32(this.#w32[i]!, pc, this.#scratch);
    const packed = d.op | (d.rd << 8) | (d.rs1 << 14) | (d.rs2 << 20);
    this.#op[i] = packed;
    this.#imm[i] = d.imm;
    return packed;
  }

  #fault(cause: FaultCause, pc: number, tval: number): void {
    this.#stop = { kind: 'trap', cause, pc: pc >>> 0, tval: tval >>> 0 };
  }

  /** A load that is misaligned or outside RAM. Returns false after raising an exception. */
  #loadSlow(a: number, width: AccessWidth, signed: boolean, rd: number, pc: number): boolean {
    if (a & (width - 1)) {
      this.#fault('load-address-misaligned', pc, a);
      return false;
    }
    const v = this.bus.read(a, width);
    if (v === undefined) {
      this.#fault('load-access-fault', pc, a);
      return false;
    }
    const bits = 32 - width * 8;
    this.x[rd] = signed ? (v << bits) >> bits : bits === 0 ? v : v & ((1 << (width * 8)) - 1);
    return true;
  }

  /** A store that is misaligned or outside RAM. Returns false after raising an exception. */
  #storeSlow(a: number, width: AccessWidth, value: number, pc: number): boolean {
    if (a & (width - 1)) {
      this.#fault('store-address-misaligned', pc, a);
      return false;
    }
    const v = width === 4 ? value >>> 0 : value & ((1 << (width * 8)) - 1);
    if (!this.bus.write(a, width, v)) {
      this.#fault('store-access-fault', pc, a);
      return false;
    }
    return true;
  }
}
