// The reference the benchmark measures the real interpreter against: the straightforward RV32IM
// interpreter most people write first — fetch the word through a DataView on every step, decode
// its fields, switch on the opcode and then on funct3/funct7, no caching. It executes the same
// programs to the same results (the benchmark checks), it is just slower. RAM only; ECALL stops.
import { div, divu, mulh, mulhsu, mulhu, rem, remu } from '../../engines/ultimate/virtual/riscv/rv32-muldiv.js';

export class NaiveRv32 {
  readonly x = new Int32Array(32);
  pc = 0;
  retired = 0;
  readonly #mem: DataView;
  readonly #base: number;

  constructor(ramBase: number, ramBytes: number) {
    this.#base = ramBase;
    this.#mem = new DataView(new ArrayBuffer(ramBytes));
  }

  reset(): void {
    new Uint8Array(this.#mem.buffer).fill(0);
    this.x.fill(0);
    this.retired = 0;
  }

  load(address: number, bytes: Uint8Array): void {
    new Uint8Array(this.#mem.buffer).set(bytes, address - this.#base);
  }

  /** Runs until ECALL (returns true) or `limit` instructions (false); throws on anything else. */
  run(limit: number): boolean {
    const m = this.#mem;
    const x = this.x;
    const base = this.#base;
    for (let n = 0; n < limit; n++) {
      const w = m.getInt32(this.pc - base, true);
      const opcode = w & 0x7f;
      const rd = (w >> 7) & 31;
      const f3 = (w >> 12) & 7;
      const rs1 = (w >> 15) & 31;
      const rs2 = (w >> 20) & 31;
      const f7 = w >>> 25;
      const a = x[rs1]!;
      const b = x[rs2]!;
      let next = this.pc + 4;
      let v = 0;
      let write = true;
      switch (opcode) {
        case 0x37:
          v = w & 0xfffff000;
          break;
        case 0x17:
          v = (this.pc + (w & 0xfffff000)) | 0;
          break;
        case 0x6f: {
          const off =
            ((((w >>> 31) << 20) | (((w >>> 12) & 0xff) << 12) | (((w >>> 20) & 1) << 11) | (((w >>> 21) & 0x3ff) << 1)) << 11) >> 11;
          v = next;
          next = (this.pc + off) >>> 0;
          break;
        }
        case 0x67:
          v = next;
          next = ((a + (w >> 20)) & ~1) >>> 0;
          break;
        case 0x63: {
          write = false;
          const off = ((((w >>> 31) << 12) | (((w >>> 7) & 1) << 11) | (((w >>> 25) & 0x3f) << 5) | (((w >>> 8) & 0xf) << 1)) << 19) >> 19;
          let taken = false;
          if (f3 === 0) taken = a === b;
          else if (f3 === 1) taken = a !== b;
          else if (f3 === 4) taken = a < b;
          else if (f3 === 5) taken = a >= b;
          else if (f3 === 6) taken = a >>> 0 < b >>> 0;
          else if (f3 === 7) taken = a >>> 0 >= b >>> 0;
          if (taken) next = (this.pc + off) >>> 0;
          break;
        }
        case 0x03: {
          const addr = ((a + (w >> 20)) >>> 0) - base;
          if (f3 === 0) v = m.getInt8(addr);
          else if (f3 === 1) v = m.getInt16(addr, true);
          else if (f3 === 2) v = m.getInt32(addr, true);
          else if (f3 === 4) v = m.getUint8(addr);
          else if (f3 === 5) v = m.getUint16(addr, true);
          break;
        }
        case 0x23: {
          write = false;
          const addr = ((a + (((((w >>> 25) << 5) | ((w >>> 7) & 31)) << 20) >> 20)) >>> 0) - base;
          if (f3 === 0) m.setInt8(addr, b);
          else if (f3 === 1) m.setInt16(addr, b, true);
          else m.setInt32(addr, b, true);
          break;
        }
        case 0x13: {
          const imm = w >> 20;
          if (f3 === 0) v = a + imm;
          else if (f3 === 2) v = a < imm ? 1 : 0;
          else if (f3 === 3) v = a >>> 0 < imm >>> 0 ? 1 : 0;
          else if (f3 === 4) v = a ^ imm;
          else if (f3 === 6) v = a | imm;
          else if (f3 === 7) v = a & imm;
          else if (f3 === 1) v = a << rs2;
          else v = f7 === 0x20 ? a >> rs2 : a >>> rs2;
          break;
        }
        case 0x33:
          if (f7 === 1) {
            if (f3 === 0) v = Math.imul(a, b);
            else if (f3 === 1) v = mulh(a, b);
            else if (f3 === 2) v = mulhsu(a, b);
            else if (f3 === 3) v = mulhu(a, b);
            else if (f3 === 4) v = div(a, b);
            else if (f3 === 5) v = divu(a, b);
            else if (f3 === 6) v = rem(a, b);
            else v = remu(a, b);
          } else if (f3 === 0) v = f7 === 0x20 ? a - b : a + b;
          else if (f3 === 1) v = a << (b & 31);
          else if (f3 === 2) v = a < b ? 1 : 0;
          else if (f3 === 3) v = a >>> 0 < b >>> 0 ? 1 : 0;
          else if (f3 === 4) v = a ^ b;
          else if (f3 === 5) v = f7 === 0x20 ? a >> (b & 31) : a >>> (b & 31);
          else if (f3 === 6) v = a | b;
          else v = a & b;
          break;
        case 0x0f:
          write = false;
          break;
        case 0x73:
          return true;
        default:
          throw new Error(`illegal instruction 0x${(w >>> 0).toString(16)} at 0x${this.pc.toString(16)}`);
      }
      if (write && rd !== 0) x[rd] = v;
      this.pc = next;
      this.retired++;
    }
    return false;
  }
}
