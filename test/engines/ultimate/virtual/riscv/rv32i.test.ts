// The RV32I base instructions, one group at a time, from the RISC-V unprivileged ISA manual
// (chapter "RV32I Base Integer Instruction Set"): each case is a small program of ours, assembled by
// Debian's riscv64-unknown-elf toolchain (-march=rv32i -mabi=ilp32), run on the interpreter until its
// closing ECALL, then its registers and memory are checked against what the manual specifies.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  a0,
  a1,
  a2,
  a3,
  a4,
  a5,
  type AsmCase,
  buildCases,
  type CaseProgram,
  encodeBranch,
  encodeJal,
  ra,
  t0,
  t1,
  word,
} from './rv32-harness.js';

const BEQ = 0;
const BNE = 1;
const BLT = 4;
const BGE = 5;
const BLTU = 6;
const BGEU = 7;

const cases: AsmCase[] = [
  // LUI / AUIPC
  { name: 'lui', text: 'lui a0, 0xfffff\nlui a1, 0x12345\nlui x0, 0x1' },
  { name: 'auipc', text: 'auipc_here: auipc a0, 0\nauipc a1, 0x1\nauipc a2, 0xfffff' },
  // JAL / JALR
  { name: 'jal', text: 'jal_at: jal a0, 1f\nli a1, 99\n1: li a2, 7' },
  { name: 'jal_x0', text: 'jal x0, 1f\nli a1, 99\n1: li a2, 7' },
  { name: 'jalr', text: 'la t0, 1f\njalr_at: jalr a0, 0(t0)\nli a1, 99\n1: li a2, 7' },
  { name: 'jalr_clears_bit0', text: 'la t0, 1f\naddi t0, t0, 1\njalr a0, 0(t0)\nli a1, 99\n1: li a2, 7' },
  { name: 'jalr_neg_imm', text: 'la t0, 1f\naddi t0, t0, 16\njalr a0, -16(t0)\nli a1, 99\n1: li a2, 7' },
  { name: 'jalr_rd_is_rs1', text: 'la ra, 1f\njalr_rr: jalr ra, 0(ra)\nli a1, 99\n1: li a2, 7' },
  { name: 'jalr_misaligned', text: 'la t0, 1f\naddi t0, t0, 2\nli a0, 55\njalr_mis: jalr a0, 0(t0)\n1: nop' },
  { name: 'jal_misaligned', text: `li a0, 55\njal_mis: ${word(encodeJal(a0, 6))}\nnop\nnop` },
  // Branches: taken / not taken, signed vs unsigned
  {
    name: 'branches',
    text: `li a0, 0
li t0, -1
li t1, 1
blt t0, t1, 1f
ori a0, a0, 1
1: bltu t0, t1, 2f
ori a0, a0, 2
2: bge t1, t0, 3f
ori a0, a0, 4
3: bgeu t1, t0, 4f
ori a0, a0, 8
4: beq t0, t0, 5f
ori a0, a0, 16
5: bne t0, t0, 6f
ori a0, a0, 32
6: bge t0, t0, 7f
ori a0, a0, 64
7: bgeu t0, t0, 8f
ori a0, a0, 128
8: blt t0, t0, 9f
ori a0, a0, 256
9: bltu t1, t0, 10f
ori a0, a0, 512
10: bne t0, t1, 11f
ori a0, a0, 1024
11: beq t0, t1, 12f
li t2, 2048
or a0, a0, t2
12: nop`,
  },
  { name: 'branch_backward', text: 'li a0, 0\nli t0, 5\n1: addi a0, a0, 3\naddi t0, t0, -1\nbnez t0, 1b' },
  { name: 'branch_misaligned_taken', text: `li t0, 1\nbr_mis: ${word(encodeBranch(BEQ, 5, 5, 6))}\nnop\nnop` },
  {
    name: 'branch_misaligned_not_taken',
    text: `li t0, 1\nli t1, 2\n${word(encodeBranch(BEQ, 5, 6, 6))}\n${word(encodeBranch(BNE, 5, 5, 6))}\n${word(encodeBranch(BLT, 6, 5, 6))}\n${word(encodeBranch(BGE, 5, 6, 6))}\n${word(encodeBranch(BLTU, 6, 5, 6))}\n${word(encodeBranch(BGEU, 5, 6, 6))}\nli a0, 1`,
  },
  // Loads: each width, sign and zero extension
  {
    name: 'loads',
    text: 'la t0, ld_data\nlb a0, 0(t0)\nlbu a1, 0(t0)\nlh a2, 2(t0)\nlhu a3, 2(t0)\nlw a4, 4(t0)\nlb a5, 1(t0)',
    data: 'ld_data: .byte 0x80, 0x7f\n.half 0x8001\n.word 0xdeadbeef',
  },
  {
    name: 'load_neg_offset',
    text: 'la t0, ldn_data\naddi t0, t0, 8\nlw a0, -8(t0)\nlw a1, -4(t0)',
    data: 'ldn_data: .word 0x11111111, 0x22222222',
  },
  { name: 'load_x0', text: 'la t0, lx_data\nlw x0, 0(t0)\nadd a0, x0, x0', data: 'lx_data: .word 0x12345678' },
  { name: 'lw_misaligned', text: 'la t0, lm_data\nli a0, 7\nlw_mis: lw a0, 2(t0)', data: 'lm_data: .word 0, 0' },
  { name: 'lh_misaligned', text: 'la t0, lm_data\nlh_mis: lh a0, 1(t0)' },
  { name: 'lb_unmapped', text: 'li t0, 0x20000000\nlb_fault: lb a0, 0(t0)' },
  // Stores: each width writes exactly its bytes
  {
    name: 'stores',
    text: 'la t0, st_data\nli t1, 0x12345678\nsb t1, 0(t0)\nsh t1, 6(t0)\nsw t1, 8(t0)\nlw a0, 0(t0)\nlw a1, 4(t0)\nlw a2, 8(t0)',
    data: 'st_data: .word 0xaaaaaaaa, 0xbbbbbbbb, 0xcccccccc',
  },
  { name: 'sw_misaligned', text: 'la t0, st_data\nli t1, 1\nsw_mis: sw t1, 1(t0)\nlw a0, 0(t0)' },
  { name: 'sh_misaligned', text: 'la t0, st_data\nsh_mis: sh t1, 3(t0)' },
  { name: 'sw_unmapped', text: 'li t0, 0x20000000\nsw_fault: sw t0, 0(t0)' },
  // Register-immediate
  { name: 'addi', text: 'li t0, 0x7fffffff\naddi a0, t0, 1\naddi a1, x0, -2048\naddi a2, x0, 2047\naddi x0, x0, 5\nmv a3, x0' },
  {
    name: 'slti',
    text: 'li t0, -1\nslti a0, t0, 0\nslti a1, t0, -1\nsltiu a2, t0, -1\nsltiu a3, x0, 1\nsltiu a4, t0, 1\nsltiu a5, x0, -2048',
  },
  {
    name: 'logic_imm',
    text: 'li t0, 0x0f0f0f0f\nxori a0, t0, -1\nori a1, t0, -2048\nandi a2, t0, -1\nandi a3, t0, 0x7ff\nxori a4, t0, 0x0ff',
  },
  {
    name: 'shift_imm',
    text: 'li t0, 0x80000001\nslli a0, t0, 31\nsrli a1, t0, 31\nsrai a2, t0, 31\nslli a3, t0, 0\nsrai a4, t0, 1\nsrli a5, t0, 1',
  },
  // slli with shamt[5] = 1 (0x02051513 = slli a0, a0, 32 in RV64) is reserved on RV32.
  { name: 'slli_shamt5_illegal', text: `shamt5: ${word(0x02051513)}` },
  // Register-register
  {
    name: 'add_sub',
    text: 'li t0, 0x7fffffff\nli t1, 1\nadd a0, t0, t1\nsub a1, x0, t1\nli t2, 0x80000000\nsub a2, t2, t1\nadd a3, t2, t2\nadd x0, t0, t1\nmv a4, x0',
  },
  {
    name: 'shifts_reg',
    text: 'li t0, 0x80000001\nli t1, 31\nsll a0, t0, t1\nsrl a1, t0, t1\nsra a2, t0, t1\nli t1, 33\nsll a3, t0, t1\nsrl a4, t0, t1\nsra a5, t0, t1',
  },
  {
    name: 'slt',
    text: 'li t0, -1\nli t1, 1\nslt a0, t0, t1\nsltu a1, t0, t1\nslt a2, t1, t0\nsltu a3, t1, t0\nslt a4, t0, t0\nsltu a5, x0, t1',
  },
  { name: 'logic_reg', text: 'li t0, 0xff00ff00\nli t1, 0x0ff00ff0\nxor a0, t0, t1\nor a1, t0, t1\nand a2, t0, t1' },
  // FENCE, ECALL, EBREAK, illegal words
  { name: 'fence', text: `li a0, 1\nfence\nfence rw, rw\n${word(0x0000100f)}\naddi a0, a0, 1` },
  { name: 'ebreak', text: 'li a0, 3\nebrk: ebreak\nli a0, 4' },
  { name: 'zero_word', text: `zw: ${word(0)}` },
  { name: 'csr_illegal', text: `csr: ${word(0x30002573)}` },
  { name: 'compressed_illegal', text: `cmp: ${word(0x00010001)}` },
  // Self-modifying code: a store over an instruction that already ran must take effect.
  {
    name: 'self_modify',
    text: `li a0, 0
li t1, 2
la t0, smc_slot
lw a1, 0(t0)
la t2, smc_alt
lw a2, 0(t2)
1: nop
smc_slot: addi a0, a0, 1
addi t1, t1, -1
beqz t1, 2f
sw a2, 0(t0)
j 1b
2: nop
.data
smc_alt: addi a0, a0, 100
.text`,
  },
  { name: 'park', text: 'li a0, 9\npark_at: j park_at' },
  { name: 'jump_outside_ram', text: 'li t0, 0x40\njalr t0' },
  { name: 'long_loop', text: 'li a0, 0\n1: addi a0, a0, 1\nj 1b' },
];

// Both execution tiers run every case: compiled blocks (the default) and the plain interpreter.
for (const useBlocks of [true, false]) {
  let prog: CaseProgram;

  describe(`RV32I instructions (${useBlocks ? 'block tier' : 'interpreter only'})`, { timeout: 60_000 }, () => {
    before(async () => {
      prog = await buildCases(cases, [], { useBlocks });
    });

    it('LUI places the 20-bit immediate in the top bits, low 12 zero; writes to x0 are dropped', () => {
      const r = prog.run('lui');
      assert.deepEqual(r.stop.kind, 'ecall');
      assert.equal(r.u(a0), 0xfffff000);
      assert.equal(r.cpu.x[a0], -4096);
      assert.equal(r.u(a1), 0x12345000);
      assert.equal(r.cpu.x[0], 0);
    });

    it('AUIPC adds the upper immediate to its own address (wrapping)', () => {
      const r = prog.run('auipc');
      const here = r.sym('auipc_here');
      assert.equal(r.u(a0), here);
      assert.equal(r.u(a1), here + 4 + 0x1000);
      assert.equal(r.u(a2), (here + 8 + 0xfffff000) >>> 0);
    });

    it('JAL writes pc+4 to rd and jumps; JAL x0 only jumps', () => {
      const r = prog.run('jal');
      assert.equal(r.u(a0), r.sym('jal_at') + 4);
      assert.equal(r.cpu.x[a1], 0);
      assert.equal(r.cpu.x[a2], 7);
      const r2 = prog.run('jal_x0');
      assert.equal(r2.cpu.x[0], 0);
      assert.equal(r2.cpu.x[a1], 0);
      assert.equal(r2.cpu.x[a2], 7);
    });

    it('JALR jumps to rs1+imm with bit 0 cleared, link is pc+4, rs1 read before rd is written', () => {
      const r = prog.run('jalr');
      assert.equal(r.u(a0), r.sym('jalr_at') + 4);
      assert.equal(r.cpu.x[a1], 0);
      assert.equal(r.cpu.x[a2], 7);
      const odd = prog.run('jalr_clears_bit0');
      assert.equal(odd.stop.kind, 'ecall');
      assert.equal(odd.cpu.x[a1], 0);
      assert.equal(odd.cpu.x[a2], 7);
      const neg = prog.run('jalr_neg_imm');
      assert.equal(neg.cpu.x[a1], 0);
      assert.equal(neg.cpu.x[a2], 7);
      const same = prog.run('jalr_rd_is_rs1');
      assert.equal(same.u(ra), same.sym('jalr_rr') + 4);
      assert.equal(same.cpu.x[a1], 0);
      assert.equal(same.cpu.x[a2], 7);
    });

    it('a JALR or JAL to a target not 4-byte aligned raises instruction-address-misaligned on the jump, rd unchanged', () => {
      const r = prog.run('jalr_misaligned');
      const at = r.sym('jalr_mis');
      assert.deepEqual(r.stop, { kind: 'trap', cause: 'instruction-address-misaligned', pc: at, tval: at + 4 + 2 });
      assert.equal(r.cpu.x[a0], 55);
      assert.equal(r.cpu.pc, at);
      const j = prog.run('jal_misaligned');
      const jat = j.sym('jal_mis');
      assert.deepEqual(j.stop, { kind: 'trap', cause: 'instruction-address-misaligned', pc: jat, tval: jat + 6 });
      assert.equal(j.cpu.x[a0], 55);
    });

    it('BEQ/BNE/BLT/BGE/BLTU/BGEU compare signed and unsigned as specified', () => {
      const r = prog.run('branches');
      // Taken: blt -1<1, bgeu 1>=... no: bgeu 1 >= 0xffffffff is false. Bits set = branches not taken.
      // 1: blt -1<1 taken; 2: bltu 0xffffffff<1 not taken; 4: bge 1>=-1 taken; 8: bgeu 1>=0xffffffff not
      // taken; 16: beq taken; 32: bne equal not taken; 64: bge equal taken; 128: bgeu equal taken;
      // 256: blt equal not taken; 512: bltu 1<0xffffffff taken; 1024: bne taken; 2048: beq not taken.
      assert.equal(r.cpu.x[a0], 2 | 8 | 32 | 256 | 2048);
      assert.equal(prog.run('branch_backward').cpu.x[a0], 15);
    });

    it('a taken branch to a misaligned target traps; a not-taken one does not', () => {
      const r = prog.run('branch_misaligned_taken');
      const at = r.sym('br_mis');
      assert.deepEqual(r.stop, { kind: 'trap', cause: 'instruction-address-misaligned', pc: at, tval: at + 6 });
      const n = prog.run('branch_misaligned_not_taken');
      assert.equal(n.stop.kind, 'ecall');
      assert.equal(n.cpu.x[a0], 1);
    });

    it('LB/LH sign-extend, LBU/LHU zero-extend, LW loads the word; negative offsets; loads to x0 are dropped', () => {
      const r = prog.run('loads');
      assert.equal(r.cpu.x[a0], -128);
      assert.equal(r.cpu.x[a1], 0x80);
      assert.equal(r.cpu.x[a2], -32767);
      assert.equal(r.cpu.x[a3], 0x8001);
      assert.equal(r.u(a4), 0xdeadbeef);
      assert.equal(r.cpu.x[a5], 0x7f);
      const n = prog.run('load_neg_offset');
      assert.equal(n.u(a0), 0x11111111);
      assert.equal(n.u(a1), 0x22222222);
      const z = prog.run('load_x0');
      assert.equal(z.cpu.x[0], 0);
      assert.equal(z.cpu.x[a0], 0);
    });

    it('misaligned loads raise load-address-misaligned with the address, rd unchanged; unmapped ones a load access fault', () => {
      const r = prog.run('lw_misaligned');
      assert.deepEqual(r.stop, { kind: 'trap', cause: 'load-address-misaligned', pc: r.sym('lw_mis'), tval: r.sym('lm_data') + 2 });
      assert.equal(r.cpu.x[a0], 7);
      const h = prog.run('lh_misaligned');
      assert.deepEqual(h.stop, { kind: 'trap', cause: 'load-address-misaligned', pc: h.sym('lh_mis'), tval: h.sym('lm_data') + 1 });
      const f = prog.run('lb_unmapped');
      assert.deepEqual(f.stop, { kind: 'trap', cause: 'load-access-fault', pc: f.sym('lb_fault'), tval: 0x20000000 });
    });

    it('SB/SH/SW write exactly 1, 2 and 4 bytes (little-endian)', () => {
      const r = prog.run('stores');
      assert.equal(r.u(a0), 0xaaaaaa78);
      assert.equal(r.u(a1), 0x5678bbbb);
      assert.equal(r.u(a2), 0x12345678);
    });

    it('misaligned stores raise store-address-misaligned and write nothing; unmapped ones a store access fault', () => {
      const r = prog.run('sw_misaligned');
      assert.deepEqual(r.stop, { kind: 'trap', cause: 'store-address-misaligned', pc: r.sym('sw_mis'), tval: r.sym('st_data') + 1 });
      const data = r.sym('st_data') - 0x03000000;
      assert.deepEqual([...r.cpu.ram.subarray(data, data + 4)], [0xaa, 0xaa, 0xaa, 0xaa]);
      const h = prog.run('sh_misaligned');
      assert.equal(h.stop.kind === 'trap' && h.stop.cause, 'store-address-misaligned');
      const f = prog.run('sw_unmapped');
      assert.deepEqual(f.stop, { kind: 'trap', cause: 'store-access-fault', pc: f.sym('sw_fault'), tval: 0x20000000 });
    });

    it('ADDI wraps on overflow and sign-extends its 12-bit immediate; ADDI x0 is a no-op', () => {
      const r = prog.run('addi');
      assert.equal(r.u(a0), 0x80000000);
      assert.equal(r.cpu.x[a1], -2048);
      assert.equal(r.cpu.x[a2], 2047);
      assert.equal(r.cpu.x[a3], 0);
    });

    it('SLTI compares signed; SLTIU compares unsigned against the sign-extended immediate', () => {
      const r = prog.run('slti');
      assert.equal(r.cpu.x[a0], 1); // -1 < 0
      assert.equal(r.cpu.x[a1], 0); // -1 < -1
      assert.equal(r.cpu.x[a2], 0); // 0xffffffff < 0xffffffff
      assert.equal(r.cpu.x[a3], 1); // seqz x0
      assert.equal(r.cpu.x[a4], 0); // 0xffffffff < 1
      assert.equal(r.cpu.x[a5], 1); // 0 < 0xfffff800
    });

    it('XORI/ORI/ANDI use the sign-extended immediate (XORI -1 is NOT)', () => {
      const r = prog.run('logic_imm');
      assert.equal(r.u(a0), 0xf0f0f0f0);
      assert.equal(r.u(a1), 0xffffff0f);
      assert.equal(r.u(a2), 0x0f0f0f0f);
      assert.equal(r.u(a3), 0x70f);
      assert.equal(r.u(a4), 0x0f0f0ff0);
    });

    it('SLLI/SRLI/SRAI by 31, 1 and 0; shamt[5] set is an illegal instruction on RV32', () => {
      const r = prog.run('shift_imm');
      assert.equal(r.u(a0), 0x80000000);
      assert.equal(r.u(a1), 1);
      assert.equal(r.cpu.x[a2], -1);
      assert.equal(r.u(a3), 0x80000001);
      assert.equal(r.u(a4), 0xc0000000);
      assert.equal(r.u(a5), 0x40000000);
      const bad = prog.run('slli_shamt5_illegal');
      assert.deepEqual(bad.stop, { kind: 'trap', cause: 'illegal-instruction', pc: bad.sym('shamt5'), tval: 0x02051513 });
    });

    it('ADD/SUB wrap modulo 2^32; writes to x0 are dropped', () => {
      const r = prog.run('add_sub');
      assert.equal(r.u(a0), 0x80000000);
      assert.equal(r.cpu.x[a1], -1);
      assert.equal(r.u(a2), 0x7fffffff);
      assert.equal(r.cpu.x[a3], 0);
      assert.equal(r.cpu.x[a4], 0);
    });

    it('SLL/SRL/SRA use only the low 5 bits of rs2 (31, and 33 as 1)', () => {
      const r = prog.run('shifts_reg');
      assert.equal(r.u(a0), 0x80000000);
      assert.equal(r.u(a1), 1);
      assert.equal(r.cpu.x[a2], -1);
      assert.equal(r.u(a3), 0x00000002);
      assert.equal(r.u(a4), 0x40000000);
      assert.equal(r.u(a5), 0xc0000000);
    });

    it('SLT is signed, SLTU unsigned (SLTU rd, x0, rs is snez)', () => {
      const r = prog.run('slt');
      assert.deepEqual(
        [a0, a1, a2, a3, a4, a5].map((x) => r.cpu.x[x]),
        [1, 0, 0, 1, 0, 1],
      );
    });

    it('XOR/OR/AND', () => {
      const r = prog.run('logic_reg');
      assert.equal(r.u(a0), 0xf0f0f0f0);
      assert.equal(r.u(a1), 0xfff0fff0);
      assert.equal(r.u(a2), 0x0f000f00);
    });

    it('FENCE and FENCE.I are no-ops', () => {
      assert.equal(prog.run('fence').cpu.x[a0], 2);
    });

    it('ECALL and EBREAK stop at their own address without retiring', () => {
      const r = prog.run('fence');
      assert.equal(r.stop.kind, 'ecall');
      assert.equal(r.stop.kind === 'ecall' && r.cpu.pc, r.stop.kind === 'ecall' && r.stop.pc);
      const b = prog.run('ebreak');
      assert.deepEqual(b.stop, { kind: 'ebreak', pc: b.sym('ebrk') });
      assert.equal(b.cpu.x[a0], 3);
      assert.equal(b.cpu.retired, 1);
    });

    it('the all-zero word, CSR instructions and 16-bit (compressed) encodings are illegal instructions', () => {
      const z = prog.run('zero_word');
      assert.deepEqual(z.stop, { kind: 'trap', cause: 'illegal-instruction', pc: z.sym('zw'), tval: 0 });
      const c = prog.run('csr_illegal');
      assert.equal(c.stop.kind === 'trap' && c.stop.cause, 'illegal-instruction');
      assert.equal(c.stop.kind === 'trap' && c.stop.pc, c.sym('csr'));
      const k = prog.run('compressed_illegal');
      assert.deepEqual(k.stop, { kind: 'trap', cause: 'illegal-instruction', pc: k.sym('cmp'), tval: 0x00010001 });
    });

    it('a store over an instruction that already ran takes effect on its next execution', () => {
      const r = prog.run('self_modify');
      // First pass runs `addi a0, a0, 1`; the store replaces it with `addi a0, a0, 100`, which the
      // second pass must execute (a stale decode would give 2).
      assert.equal(r.stop.kind, 'ecall');
      assert.equal(r.cpu.x[a0], 101);
    });

    it('`j .` parks the program instead of spinning', () => {
      const r = prog.run('park');
      assert.deepEqual(r.stop, { kind: 'parked', pc: r.sym('park_at') });
      assert.equal(r.cpu.x[a0], 9);
    });

    it('fetching outside RAM raises an instruction access fault at the target', () => {
      const r = prog.run('jump_outside_ram');
      assert.deepEqual(r.stop, { kind: 'trap', cause: 'instruction-access-fault', pc: 0x40, tval: 0x40 });
    });

    it('run(limit) stops after exactly `limit` instructions and resumes where it stopped', () => {
      const r = prog.run('long_loop', { limit: 1001 });
      assert.equal(r.stop.kind, 'limit');
      assert.equal(r.cpu.retired, 1001);
      assert.equal(r.cpu.x[a0], 500);
      r.cpu.run(2000);
      assert.equal(r.cpu.retired, 3001);
      assert.equal(r.cpu.x[a0], 1500);
    });

    it('loads and stores outside RAM go to the bus with their width; LB/LH sign-extend bus values', () => {
      const writes: Array<[number, number, number]> = [];
      const bus = {
        read: (a: number, w: 1 | 2 | 4) =>
          a >= 0x10000000 && a < 0x10000100 ? (w === 4 ? 0x8000ff80 : w === 2 ? 0xff80 : 0x80) : undefined,
        write: (a: number, w: 1 | 2 | 4, v: number) => {
          writes.push([a, w, v]);
          return a >= 0x10000000 && a < 0x10000100;
        },
      };
      const p = prog;
      const r = p.run('bus_io', { bus });
      assert.equal(r.stop.kind, 'ecall');
      assert.equal(r.cpu.x[a0], -128);
      assert.equal(r.cpu.x[a1], 0x80);
      assert.equal(r.cpu.x[a2], -128);
      assert.equal(r.cpu.x[a3], 0xff80);
      assert.equal(r.u(a4), 0x8000ff80);
      assert.deepEqual(writes, [
        [0x10000010, 1, 0x78],
        [0x10000012, 2, 0x5678],
        [0x10000014, 4, 0x12345678],
      ]);
    });

    it(useBlocks ? 'compiles blocks and drops them after a store into code' : 'compiles no blocks', () => {
      const r = prog.run('self_modify');
      if (useBlocks) {
        assert.ok(r.cpu.blocksCompiled > 0);
        assert.ok(r.cpu.blockInvalidations > 0);
      } else assert.equal(r.cpu.blocksCompiled, 0);
    });
  });
}

cases.push({
  name: 'bus_io',
  text: 'li t0, 0x10000000\nlb a0, 0(t0)\nlbu a1, 0(t0)\nlh a2, 2(t0)\nlhu a3, 2(t0)\nlw a4, 4(t0)\nli t1, 0x12345678\nsb t1, 0x10(t0)\nsh t1, 0x12(t0)\nsw t1, 0x14(t0)',
});

void t0;
void t1;
