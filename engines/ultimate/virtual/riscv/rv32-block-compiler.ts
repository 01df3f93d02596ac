// Second tier of the RV32 interpreter: straight-line runs of instructions ("blocks", ending at the
// first branch or jump) are translated once into JavaScript source and compiled with `new Function`,
// so V8 optimises them like hand-written code: registers become fixed array slots, immediates and
// branch targets literals, and the per-instruction dispatch disappears. Only numbers taken from the
// decoded instruction words go into the source — never text from outside.
//
// Blocks run on past conditional branches (each taken branch is a side exit), and a branch or JAL
// back to the block's own start loops inside the generated function while the budget allows
// (`left`, the instructions the caller may still retire), so tight loops run without dispatch.
// Every exit writes in `st.n` how many instructions it retired. Inside a block the registers it
// uses live in JavaScript locals (kept in machine registers by V8), loaded on entry and written back
// to the register file at every exit.
//
// A generated block returns the next pc, or -1 when an instruction inside it needs the exception
// path (misaligned or unmapped access, misaligned JALR target): it then reports in `st` how many
// instructions completed and the faulting pc, and the interpreter re-executes that one instruction
// to raise the exception exactly. ECALL, EBREAK, `j .`, illegal words and misaligned static targets
// are never compiled: a block ends before them and the interpreter handles them.
import { decodeRv32, type Decoded, OP, SINK } from './rv32-decode.js';

/** Longest block, in instructions; the interpreter enters a block only with this much budget left. */
export const MAX_BLOCK = 64;

export interface BlockSource {
  /** Body of `function (left)` returning the next pc or -1, with st.n set. */
  source: string;
  /** Instructions in one pass through the block. */
  length: number;
  /** Word indices the block was compiled from (a store to one invalidates it). */
  firstWord: number;
  words: number;
}

/**
 * Translates the block starting at word `i` (address `pc`) of `w32`. Undefined when the first
 * instruction is one the block tier leaves to the interpreter.
 */
export function compileBlock(w32: Int32Array, i: number, pc: number, ramBase: number, ramBytes: number): BlockSource | undefined {
  const lines: string[] = [];
  const d: Decoded = { op: 0, rd: 0, rs1: 0, rs2: 0, imm: 0 };
  const words = ramBytes >>> 2;
  let k = 0;
  let p = pc >>> 0;
  let j = i;
  const used = new Set<number>();
  const written = new Set<number>();
  const R = (r: number): string => {
    if (r === 0) return '0';
    used.add(r);
    return `r${r}`;
  };
  /** Placeholder for the write-back of every register the block writes (known only at the end). */
  const WB = '/*WB*/';
  const start = pc >>> 0;
  const bail = (): string => `{ ${WB} st.pc = ${p}; st.n = n + ${k}; return -1; }`;
  const finish = (tail: string): BlockSource | undefined => {
    if (k === 0) return undefined;
    const regs = [...used].sort((q, r) => q - r);
    const locals = regs.length ? `let ${regs.map((r) => `r${r} = x[${r}]`).join(', ')};\n` : '';
    const writeBack = [...written]
      .sort((q, r) => q - r)
      .map((r) => `x[${r}] = r${r};`)
      .join(' ');
    const body = `let n = 0;\n${locals}for (;;) {\n${lines.join('\n')}\n${tail}\n}`;
    return { source: body.split(WB).join(writeBack), length: k, firstWord: i, words: j - i };
  };
  const end = (next: number): BlockSource | undefined => finish(`${WB} st.n = n + ${k}; return ${next >>> 0};`);
  /** Taken transfer to `t` after `k + 1` instructions of this pass: loop when it is the start. */
  const jumpTo = (t: number): string =>
    t === start
      ? `{ n += ${k + 1}; if (st.dirty === 0 && n + ${MAX_BLOCK} <= left) continue; ${WB} st.n = n; return ${t}; }`
      : `{ ${WB} st.n = n + ${k + 1}; return ${t}; }`;
  for (;;) {
    if (k >= MAX_BLOCK || j >= words) return end(p);
    decodeRv32(w32[j]!, p, d);
    const rd = d.rd;
    const a = R(d.rs1);
    const b = R(d.rs2);
    const imm = d.imm;
    const set = (expr: string): void => {
      if (rd === SINK) return;
      used.add(rd);
      written.add(rd);
      lines.push(`r${rd} = (${expr}) | 0;`);
    };
    const addr = `const a = (${a} + ${imm}) >>> 0, o = (a - ${ramBase}) >>> 0;`;
    const load = (fast: string, width: number, signed: boolean): void => {
      const aligned = width === 4 ? ' && (o & 3) === 0' : width === 2 ? ' && (o & 1) === 0' : '';
      used.add(rd);
      written.add(rd);
      lines.push(
        `{ ${addr} if (o < ${ramBytes}${aligned}) r${rd} = ${fast}; else if (ld(a, ${width}, ${signed}, ${rd})) r${rd} = x[${rd}]; else ${bail()} }`,
      );
    };
    const store = (fast: string, width: number): void => {
      const aligned = width === 4 ? ' && (o & 3) === 0' : width === 2 ? ' && (o & 1) === 0' : '';
      lines.push(
        `{ ${addr} if (o < ${ramBytes}${aligned}) { ${fast} = ${b}; ops[o >>> 2] = 0; if (cov[o >>> 2] !== 0) st.dirty = 1; } else if (!sd(a, ${width}, ${b})) ${bail()} }`,
      );
    };
    /** A conditional branch: a side exit (or the loop back), then the block goes on. */
    const branch = (cond: string): boolean => {
      const t = imm >>> 0;
      if (t & 3) return false; // the interpreter raises the misaligned-target exception if taken
      lines.push(`if (${cond}) ${jumpTo(t)}`);
      return true;
    };
    switch (d.op) {
      case OP.LUI:
        set(`${imm}`);
        break;
      case OP.ADDI:
        set(`${a} + ${imm}`);
        break;
      case OP.SLTI:
        set(`${a} < ${imm} ? 1 : 0`);
        break;
      case OP.SLTIU:
        set(`(${a} >>> 0) < ${imm >>> 0} ? 1 : 0`);
        break;
      case OP.XORI:
        set(`${a} ^ ${imm}`);
        break;
      case OP.ORI:
        set(`${a} | ${imm}`);
        break;
      case OP.ANDI:
        set(`${a} & ${imm}`);
        break;
      case OP.SLLI:
        set(`${a} << ${imm}`);
        break;
      case OP.SRLI:
        set(`${a} >>> ${imm}`);
        break;
      case OP.SRAI:
        set(`${a} >> ${imm}`);
        break;
      case OP.ADD:
        set(`${a} + ${b}`);
        break;
      case OP.SUB:
        set(`${a} - ${b}`);
        break;
      case OP.SLL:
        set(`${a} << (${b} & 31)`);
        break;
      case OP.SLT:
        set(`${a} < ${b} ? 1 : 0`);
        break;
      case OP.SLTU:
        set(`(${a} >>> 0) < (${b} >>> 0) ? 1 : 0`);
        break;
      case OP.XOR:
        set(`${a} ^ ${b}`);
        break;
      case OP.SRL:
        set(`${a} >>> (${b} & 31)`);
        break;
      case OP.SRA:
        set(`${a} >> (${b} & 31)`);
        break;
      case OP.OR:
        set(`${a} | ${b}`);
        break;
      case OP.AND:
        set(`${a} & ${b}`);
        break;
      case OP.MUL:
        set(`Math.imul(${a}, ${b})`);
        break;
      case OP.MULH:
        set(`mulh(${a}, ${b})`);
        break;
      case OP.MULHSU:
        set(`mulhsu(${a}, ${b})`);
        break;
      case OP.MULHU:
        set(`mulhu(${a}, ${b})`);
        break;
      case OP.DIV:
        set(`div(${a}, ${b})`);
        break;
      case OP.DIVU:
        set(`divu(${a}, ${b})`);
        break;
      case OP.REM:
        set(`rem(${a}, ${b})`);
        break;
      case OP.REMU:
        set(`remu(${a}, ${b})`);
        break;
      case OP.LW:
        load('w32[o >>> 2]', 4, false);
        break;
      case OP.LH:
        load('s16[o >>> 1]', 2, true);
        break;
      case OP.LHU:
        load('u16[o >>> 1]', 2, false);
        break;
      case OP.LB:
        load('s8[o]', 1, true);
        break;
      case OP.LBU:
        load('u8[o]', 1, false);
        break;
      case OP.SW:
        store('w32[o >>> 2]', 4);
        break;
      case OP.SH:
        store('u16[o >>> 1]', 2);
        break;
      case OP.SB:
        store('u8[o]', 1);
        break;
      case OP.FENCE:
        // Ends the block, so code stored before a FENCE.I is fetched anew after it.
        k++;
        j++;
        return end(p + 4);
      case OP.BEQ:
        if (!branch(`${a} === ${b}`)) return end(p);
        break;
      case OP.BNE:
        if (!branch(`${a} !== ${b}`)) return end(p);
        break;
      case OP.BLT:
        if (!branch(`${a} < ${b}`)) return end(p);
        break;
      case OP.BGE:
        if (!branch(`${a} >= ${b}`)) return end(p);
        break;
      case OP.BLTU:
        if (!branch(`(${a} >>> 0) < (${b} >>> 0)`)) return end(p);
        break;
      case OP.BGEU:
        if (!branch(`(${a} >>> 0) >= (${b} >>> 0)`)) return end(p);
        break;
      case OP.JAL: {
        const t = imm >>> 0;
        if (t & 3) return end(p);
        set(`${(p + 4) >>> 0}`);
        const tail = jumpTo(t);
        k++;
        j++;
        return finish(tail);
      }
      case OP.JALR: {
        // Target from rs1 before rd is written (rd may equal rs1).
        lines.push(`const t = ((${a} + ${imm}) & -2) >>> 0; if (t & 3) ${bail()}`);
        set(`${(p + 4) >>> 0}`);
        const tail = `${WB} st.n = n + ${k + 1}; return t;`;
        k++;
        j++;
        return finish(tail);
      }
      default: // ECALL, EBREAK, PARK, ILLEGAL: the interpreter's
        return end(p);
    }
    k++;
    j++;
    p = (p + 4) >>> 0;
  }
}
