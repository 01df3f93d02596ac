// Decoding one RV32IM instruction word into the interpreter's decode cache: an operation number, the
// register numbers and one pre-computed immediate. Work that depends only on the word and its
// address is done here once — branch and JAL targets and AUIPC results become absolute values —
// so the execute loop does the least per instruction. Writes to x0 are redirected to a sink
// register (index 32) so the loop never has to test for rd = 0.

export const OP = {
  UNDECODED: 0,
  LUI: 1, // also AUIPC: the immediate is the final value
  JAL: 2,
  JALR: 3,
  BEQ: 4,
  BNE: 5,
  BLT: 6,
  BGE: 7,
  BLTU: 8,
  BGEU: 9,
  LB: 10,
  LH: 11,
  LW: 12,
  LBU: 13,
  LHU: 14,
  SB: 15,
  SH: 16,
  SW: 17,
  ADDI: 18,
  SLTI: 19,
  SLTIU: 20,
  XORI: 21,
  ORI: 22,
  ANDI: 23,
  SLLI: 24,
  SRLI: 25,
  SRAI: 26,
  ADD: 27,
  SUB: 28,
  SLL: 29,
  SLT: 30,
  SLTU: 31,
  XOR: 32,
  SRL: 33,
  SRA: 34,
  OR: 35,
  AND: 36,
  FENCE: 37,
  ECALL: 38,
  EBREAK: 39,
  MUL: 40,
  MULH: 41,
  MULHSU: 42,
  MULHU: 43,
  DIV: 44,
  DIVU: 45,
  REM: 46,
  REMU: 47,
  ILLEGAL: 48,
  /** `jal x0, 0`: a one-instruction loop. */
  PARK: 49,
} as const;

/** Register index that absorbs writes to x0. */
export const SINK = 32;

export interface Decoded {
  op: number;
  rd: number;
  rs1: number;
  rs2: number;
  imm: number;
}

const signExtend = (value: number, bits: number): number => (value << (32 - bits)) >> (32 - bits);

/** Decodes `word` found at address `pc`. `out` is reused to avoid allocating per instruction. */
export function decodeRv32(word: number, pc: number, out: Decoded): Decoded {
  const opcode = word & 0x7f;
  const rdRaw = (word >>> 7) & 31;
  const funct3 = (word >>> 12) & 7;
  const rs1 = (word >>> 15) & 31;
  const rs2 = (word >>> 20) & 31;
  const funct7 = word >>> 25;
  const immI = word >> 20;
  out.rd = rdRaw === 0 ? SINK : rdRaw;
  out.rs1 = rs1;
  out.rs2 = rs2;
  out.imm = 0;
  out.op = OP.ILLEGAL;
  switch (opcode) {
    case 0x37: // LUI
      out.op = OP.LUI;
      out.imm = word & 0xfffff000;
      break;
    case 0x17: // AUIPC: pc + imm, known now
      out.op = OP.LUI;
      out.imm = (pc + (word & 0xfffff000)) | 0;
      break;
    case 0x6f: {
      // JAL: imm[20|10:1|11|19:12]
      const off = signExtend(
        ((word >>> 31) << 20) | (((word >>> 12) & 0xff) << 12) | (((word >>> 20) & 1) << 11) | (((word >>> 21) & 0x3ff) << 1),
        21,
      );
      out.imm = (pc + off) | 0;
      out.op = off === 0 && rdRaw === 0 ? OP.PARK : OP.JAL;
      break;
    }
    case 0x67:
      if (funct3 === 0) {
        out.op = OP.JALR;
        out.imm = immI;
      }
      break;
    case 0x63: {
      const off = signExtend(
        ((word >>> 31) << 12) | (((word >>> 7) & 1) << 11) | (((word >>> 25) & 0x3f) << 5) | (((word >>> 8) & 0xf) << 1),
        13,
      );
      out.imm = (pc + off) | 0;
      const ops = [OP.BEQ, OP.BNE, OP.ILLEGAL, OP.ILLEGAL, OP.BLT, OP.BGE, OP.BLTU, OP.BGEU] as const;
      out.op = ops[funct3]!;
      break;
    }
    case 0x03: {
      out.imm = immI;
      const ops = [OP.LB, OP.LH, OP.LW, OP.ILLEGAL, OP.LBU, OP.LHU, OP.ILLEGAL, OP.ILLEGAL] as const;
      out.op = ops[funct3]!;
      break;
    }
    case 0x23: {
      out.imm = signExtend(((word >>> 25) << 5) | ((word >>> 7) & 31), 12);
      const ops = [OP.SB, OP.SH, OP.SW] as const;
      out.op = funct3 < 3 ? ops[funct3]! : OP.ILLEGAL;
      break;
    }
    case 0x13:
      out.imm = immI;
      switch (funct3) {
        case 0:
          out.op = OP.ADDI;
          break;
        case 2:
          out.op = OP.SLTI;
          break;
        case 3:
          out.op = OP.SLTIU;
          break;
        case 4:
          out.op = OP.XORI;
          break;
        case 6:
          out.op = OP.ORI;
          break;
        case 7:
          out.op = OP.ANDI;
          break;
        case 1: // SLLI: imm[11:5] must be 0 (shamt[5] = 1 is reserved on RV32)
          if (funct7 === 0) {
            out.op = OP.SLLI;
            out.imm = rs2;
          }
          break;
        case 5:
          if (funct7 === 0 || funct7 === 0x20) {
            out.op = funct7 === 0 ? OP.SRLI : OP.SRAI;
            out.imm = rs2;
          }
          break;
      }
      break;
    case 0x33:
      if (funct7 === 0) {
        const ops = [OP.ADD, OP.SLL, OP.SLT, OP.SLTU, OP.XOR, OP.SRL, OP.OR, OP.AND] as const;
        out.op = ops[funct3]!;
      } else if (funct7 === 0x20) {
        if (funct3 === 0) out.op = OP.SUB;
        else if (funct3 === 5) out.op = OP.SRA;
      } else if (funct7 === 1) {
        const ops = [OP.MUL, OP.MULH, OP.MULHSU, OP.MULHU, OP.DIV, OP.DIVU, OP.REM, OP.REMU] as const;
        out.op = ops[funct3]!;
      }
      break;
    case 0x0f:
      // FENCE (funct3 0) and FENCE.I (funct3 1): ordering is trivially kept by a one-hart
      // interpreter whose decode cache is invalidated by every store, so both are no-ops.
      if (funct3 === 0 || funct3 === 1) out.op = OP.FENCE;
      break;
    case 0x73:
      if (word === 0x00000073) out.op = OP.ECALL;
      else if (word === 0x00100073) out.op = OP.EBREAK;
      // CSR instructions, MRET, WFI: no privileged architecture is modelled, so they are illegal.
      break;
  }
  return out;
}
