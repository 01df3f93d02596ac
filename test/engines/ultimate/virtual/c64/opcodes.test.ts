// Every documented 6502 opcode in every addressing mode, checked by a self-checking program
// assembled with acme: each case sets registers, flags and memory, executes the instruction
// under test, saves A/X/Y/P/SP and compares them (and memory) with the known result written
// below from the MOS datasheet. A mismatch stores the case number and jams at `fail`.
// The test then proves coverage: the CPU must have executed the instruction under test of
// every case, and those instructions together must be all 151 documented opcodes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';
import { acme, DOCUMENTED, flags, flatCpu, hex, runToJam } from './helpers.js';

type VMode = 'imm' | 'zp' | 'zpx' | 'zpy' | 'abs' | 'absx' | 'absx+' | 'absy' | 'absy+' | 'izx' | 'izy' | 'izy+' | 'acc' | 'imp';

interface Regs {
  a?: number;
  x?: number;
  y?: number;
  p?: string;
  sp?: number;
}

interface Case {
  title: string;
  /** Instruction text, or a raw block (with `t_` labels marking the instructions under test). */
  insn?: string;
  raw?: (n: number) => string;
  mem?: [number, number][];
  in?: Regs;
  out?: Regs & { mem?: [number, number][] };
}

const X_INDEX = 0x05;
const Y_INDEX = 0x07;

/** Where a mode's operand lives and the text of the operand. */
function operand(mode: VMode): { text: string; ea: number; setup: [number, number][]; x?: number; y?: number; decoy?: number } {
  switch (mode) {
    case 'zp':
      return { text: '$80', ea: 0x80, setup: [] };
    case 'zpx':
      return { text: '$80,x', ea: 0x85, setup: [], x: X_INDEX };
    case 'zpy':
      return { text: '$80,y', ea: 0x87, setup: [], y: Y_INDEX };
    case 'abs':
      return { text: '$1234', ea: 0x1234, setup: [] };
    case 'absx':
      return { text: '$1230,x', ea: 0x1235, setup: [], x: X_INDEX };
    case 'absx+':
      return { text: '$12fe,x', ea: 0x1303, setup: [], x: X_INDEX, decoy: 0x1203 };
    case 'absy':
      return { text: '$1230,y', ea: 0x1237, setup: [], y: Y_INDEX };
    case 'absy+':
      return { text: '$12fe,y', ea: 0x1305, setup: [], y: Y_INDEX, decoy: 0x1205 };
    case 'izx':
      return {
        text: '($60,x)',
        ea: 0x1240,
        setup: [
          [0x65, 0x40],
          [0x66, 0x12],
        ],
        x: X_INDEX,
      };
    case 'izy':
      return {
        text: '($68),y',
        ea: 0x1257,
        setup: [
          [0x68, 0x50],
          [0x69, 0x12],
        ],
        y: Y_INDEX,
      };
    case 'izy+':
      return {
        text: '($6a),y',
        ea: 0x1303,
        setup: [
          [0x6a, 0xfc],
          [0x6b, 0x12],
        ],
        y: Y_INDEX,
        decoy: 0x1203,
      };
    default:
      throw new Error(`no memory operand for ${mode}`);
  }
}

const cases: Case[] = [];

// ---- instructions that read an operand into an ALU operation ----------------------------------
type Target = 'a' | 'x' | 'y';
interface AluCase {
  r: number;
  m: number;
  p?: string;
  out: number;
  op: string;
}
function aluOp(mn: string, target: Target, modes: VMode[], list: AluCase[], writesTarget = true): void {
  // the first case in every mode, the others in the first mode
  const plan: [AluCase, VMode][] = [
    ...modes.map((m) => [list[0], m] as [AluCase, VMode]),
    ...list.slice(1).map((c) => [c, modes[0]] as [AluCase, VMode]),
  ];
  for (const [c, mode] of plan) {
    const regs: Regs = { [target]: c.r, p: c.p ?? '' };
    let insn: string;
    const mem: [number, number][] = [];
    let decoy: number | undefined;
    if (mode === 'imm') {
      insn = `${mn} #${hex(c.m)}`;
    } else {
      const o = operand(mode);
      insn = `${mn} ${o.text}`;
      mem.push(...o.setup, [o.ea, c.m]);
      if (o.x !== undefined) regs.x = o.x;
      if (o.y !== undefined) regs.y = o.y;
      if (o.decoy !== undefined) {
        decoy = o.decoy;
        mem.push([o.decoy, c.m ^ 0x5a]);
      }
    }
    const out: Case['out'] = { p: c.op, mem: decoy !== undefined ? [[decoy, c.m ^ 0x5a]] : [] };
    if (writesTarget) out[target] = c.out;
    cases.push({ title: `${insn} (${target}=${hex(c.r)} m=${hex(c.m)} p=${c.p ?? ''})`, insn, mem, in: regs, out });
  }
}

const ALL8: VMode[] = ['imm', 'zp', 'zpx', 'abs', 'absx', 'absx+', 'absy', 'absy+', 'izx', 'izy', 'izy+'];
aluOp('adc', 'a', ALL8, [
  { r: 0x12, m: 0x34, out: 0x46, op: '' },
  { r: 0x12, m: 0x34, p: 'C', out: 0x47, op: '' },
  { r: 0xff, m: 0x01, out: 0x00, op: 'ZC' },
  { r: 0x7f, m: 0x01, out: 0x80, op: 'NV' },
  { r: 0x80, m: 0xff, out: 0x7f, op: 'VC' },
  { r: 0x19, m: 0x28, p: 'D', out: 0x47, op: 'D' },
  { r: 0x58, m: 0x46, p: 'DC', out: 0x05, op: 'NVDC' }, // N and V from the intermediate $A5
  { r: 0x99, m: 0x01, p: 'D', out: 0x00, op: 'NDC' }, // NMOS: Z from the binary sum, N from the intermediate
  { r: 0x50, m: 0x50, p: 'D', out: 0x00, op: 'NVDC' },
]);
aluOp('sbc', 'a', ALL8, [
  { r: 0x50, m: 0x20, p: 'C', out: 0x30, op: 'C' },
  { r: 0x50, m: 0x60, p: 'C', out: 0xf0, op: 'N' },
  { r: 0x80, m: 0x01, p: 'C', out: 0x7f, op: 'VC' },
  { r: 0x00, m: 0x00, out: 0xff, op: 'N' },
  { r: 0x05, m: 0x05, p: 'C', out: 0x00, op: 'ZC' },
  { r: 0x46, m: 0x12, p: 'DC', out: 0x34, op: 'DC' },
  { r: 0x12, m: 0x21, p: 'DC', out: 0x91, op: 'ND' },
  { r: 0x00, m: 0x01, p: 'D', out: 0x98, op: 'ND' },
]);
aluOp('and', 'a', ALL8, [
  { r: 0xf0, m: 0x3c, out: 0x30, op: '' },
  { r: 0x0f, m: 0xf0, p: 'C', out: 0x00, op: 'ZC' },
  { r: 0xff, m: 0x80, p: 'V', out: 0x80, op: 'NV' },
]);
aluOp('ora', 'a', ALL8, [
  { r: 0xf0, m: 0x0f, out: 0xff, op: 'N' },
  { r: 0x00, m: 0x00, p: 'C', out: 0x00, op: 'ZC' },
  { r: 0x01, m: 0x02, p: 'NZ', out: 0x03, op: '' },
]);
aluOp('eor', 'a', ALL8, [
  { r: 0xff, m: 0x0f, out: 0xf0, op: 'N' },
  { r: 0x55, m: 0x55, out: 0x00, op: 'Z' },
  { r: 0x55, m: 0xaa, p: 'VC', out: 0xff, op: 'NVC' },
]);
aluOp(
  'cmp',
  'a',
  ALL8,
  [
    { r: 0x40, m: 0x30, out: 0x40, op: 'C' },
    { r: 0x40, m: 0x40, out: 0x40, op: 'ZC' },
    { r: 0x40, m: 0x50, out: 0x40, op: 'N' },
    { r: 0x80, m: 0x01, p: 'V', out: 0x80, op: 'VC' },
  ],
  false,
);
aluOp('lda', 'a', ALL8, [
  { r: 0x11, m: 0x42, out: 0x42, op: '' },
  { r: 0x11, m: 0x00, p: 'NC', out: 0x00, op: 'ZC' },
  { r: 0x11, m: 0x80, p: 'ZV', out: 0x80, op: 'NV' },
]);
aluOp(
  'ldx',
  'x',
  ['imm', 'zp', 'zpy', 'abs', 'absy', 'absy+'],
  [
    { r: 0x11, m: 0x42, out: 0x42, op: '' },
    { r: 0x11, m: 0x00, out: 0x00, op: 'Z' },
    { r: 0x11, m: 0xff, p: 'C', out: 0xff, op: 'NC' },
  ],
);
aluOp(
  'ldy',
  'y',
  ['imm', 'zp', 'zpx', 'abs', 'absx', 'absx+'],
  [
    { r: 0x11, m: 0x42, out: 0x42, op: '' },
    { r: 0x11, m: 0x00, out: 0x00, op: 'Z' },
    { r: 0x11, m: 0x90, out: 0x90, op: 'N' },
  ],
);
aluOp(
  'cpx',
  'x',
  ['imm', 'zp', 'abs'],
  [
    { r: 0x40, m: 0x30, out: 0x40, op: 'C' },
    { r: 0x40, m: 0x40, out: 0x40, op: 'ZC' },
    { r: 0x00, m: 0x01, out: 0x00, op: 'N' },
  ],
  false,
);
aluOp(
  'cpy',
  'y',
  ['imm', 'zp', 'abs'],
  [
    { r: 0x40, m: 0x30, out: 0x40, op: 'C' },
    { r: 0x40, m: 0x40, out: 0x40, op: 'ZC' },
    { r: 0x7f, m: 0x80, out: 0x7f, op: 'N' },
  ],
  false,
);
aluOp(
  'bit',
  'a',
  ['zp', 'abs'],
  [
    { r: 0x0f, m: 0xc0, out: 0x0f, op: 'NVZ' },
    { r: 0x41, m: 0x41, p: 'C', out: 0x41, op: 'VC' },
    { r: 0x01, m: 0x01, p: 'NVZ', out: 0x01, op: '' },
  ],
  false,
);

// ---- read-modify-write ------------------------------------------------------------------------
interface RmwCase {
  m: number;
  p?: string;
  out: number;
  op: string;
}
function rmwOp(mn: string, withAcc: boolean, list: RmwCase[]): void {
  const modes: VMode[] = [...(withAcc ? ['acc' as VMode] : []), 'zp', 'zpx', 'abs', 'absx', 'absx+'];
  const plan: [RmwCase, VMode][] = [
    ...modes.map((m) => [list[0], m] as [RmwCase, VMode]),
    ...list.slice(1).map((c) => [c, 'zp'] as [RmwCase, VMode]),
  ];
  for (const [c, mode] of plan) {
    if (mode === 'acc') {
      cases.push({ title: `${mn} a (a=${hex(c.m)} p=${c.p ?? ''})`, insn: mn, in: { a: c.m, p: c.p ?? '' }, out: { a: c.out, p: c.op } });
      continue;
    }
    const o = operand(mode);
    const mem: [number, number][] = [...o.setup, [o.ea, c.m]];
    const regs: Regs = { p: c.p ?? '', a: 0x11 };
    if (o.x !== undefined) regs.x = o.x;
    const checks: [number, number][] = [[o.ea, c.out]];
    if (o.decoy !== undefined) {
      mem.push([o.decoy, 0x66]);
      checks.push([o.decoy, 0x66]);
    }
    cases.push({
      title: `${mn} ${o.text} (m=${hex(c.m)} p=${c.p ?? ''})`,
      insn: `${mn} ${o.text}`,
      mem,
      in: regs,
      out: { p: c.op, mem: checks },
    });
  }
}
rmwOp('asl', true, [
  { m: 0x81, out: 0x02, op: 'C' },
  { m: 0x40, out: 0x80, op: 'N' },
  { m: 0x80, out: 0x00, op: 'ZC' },
]);
rmwOp('lsr', true, [
  { m: 0x81, p: 'N', out: 0x40, op: 'C' },
  { m: 0x01, out: 0x00, op: 'ZC' },
  { m: 0x02, p: 'C', out: 0x01, op: '' },
]);
rmwOp('rol', true, [
  { m: 0x80, out: 0x00, op: 'ZC' },
  { m: 0x40, p: 'C', out: 0x81, op: 'N' },
  { m: 0x01, p: 'C', out: 0x03, op: '' },
]);
rmwOp('ror', true, [
  { m: 0x01, out: 0x00, op: 'ZC' },
  { m: 0x02, p: 'C', out: 0x81, op: 'N' },
  { m: 0x80, out: 0x40, op: '' },
]);
rmwOp('inc', false, [
  { m: 0xff, out: 0x00, op: 'Z' },
  { m: 0x7f, p: 'C', out: 0x80, op: 'NC' },
  { m: 0x41, out: 0x42, op: '' },
]);
rmwOp('dec', false, [
  { m: 0x01, out: 0x00, op: 'Z' },
  { m: 0x00, p: 'V', out: 0xff, op: 'NV' },
  { m: 0x43, out: 0x42, op: '' },
]);

// ---- stores -----------------------------------------------------------------------------------
function storeOp(mn: string, reg: Target, modes: VMode[]): void {
  for (const mode of modes) {
    const o = operand(mode);
    const regs: Regs = { [reg]: 0xa5, p: 'NC' };
    if (o.x !== undefined) regs.x = o.x;
    if (o.y !== undefined) regs.y = o.y;
    const value = regs[reg] as number;
    const mem: [number, number][] = [...o.setup, [o.ea, 0x00]];
    const checks: [number, number][] = [[o.ea, value]];
    if (o.decoy !== undefined) {
      mem.push([o.decoy, 0x66]);
      checks.push([o.decoy, 0x66]);
    }
    cases.push({ title: `${mn} ${o.text}`, insn: `${mn} ${o.text}`, mem, in: regs, out: { p: 'NC', mem: checks } });
  }
}
storeOp('sta', 'a', ['zp', 'zpx', 'abs', 'absx', 'absx+', 'absy', 'absy+', 'izx', 'izy', 'izy+']);
storeOp('stx', 'x', ['zp', 'zpy', 'abs']);
storeOp('sty', 'y', ['zp', 'zpx', 'abs']);

// ---- implied ----------------------------------------------------------------------------------
const imp = (insn: string, inR: Regs, out: Case['out'], mem?: [number, number][]): void => {
  cases.push({ title: `${insn} ${JSON.stringify(inR)}`, insn, in: inR, out, mem });
};
imp('tax', { a: 0x80 }, { x: 0x80, p: 'N' });
imp('tax', { a: 0x00, p: 'C' }, { x: 0x00, p: 'ZC' });
imp('tay', { a: 0x80 }, { y: 0x80, p: 'N' });
imp('tay', { a: 0x00 }, { y: 0x00, p: 'Z' });
imp('txa', { x: 0x01, p: 'NZ' }, { a: 0x01, p: '' });
imp('txa', { x: 0xff }, { a: 0xff, p: 'N' });
imp('tya', { y: 0x00 }, { a: 0x00, p: 'Z' });
imp('tya', { y: 0x7f, p: 'V' }, { a: 0x7f, p: 'V' });
imp('tsx', { sp: 0xff }, { x: 0xff, p: 'N' });
imp('tsx', { sp: 0x40 }, { x: 0x40, p: '' });
imp('txs', { x: 0x80, p: 'Z' }, { sp: 0x80, p: 'Z' });
imp('txs', { x: 0x00 }, { sp: 0x00, p: '' });
imp('inx', { x: 0xff }, { x: 0x00, p: 'Z' });
imp('inx', { x: 0x7f }, { x: 0x80, p: 'N' });
imp('iny', { y: 0xff, p: 'C' }, { y: 0x00, p: 'ZC' });
imp('iny', { y: 0x10 }, { y: 0x11, p: '' });
imp('dex', { x: 0x00 }, { x: 0xff, p: 'N' });
imp('dex', { x: 0x01 }, { x: 0x00, p: 'Z' });
imp('dey', { y: 0x00 }, { y: 0xff, p: 'N' });
imp('dey', { y: 0x01, p: 'V' }, { y: 0x00, p: 'ZV' });
imp('clc', { p: 'NC' }, { p: 'N' });
imp('sec', { p: 'Z' }, { p: 'ZC' });
imp('cld', { p: 'DC' }, { p: 'C' });
imp('sed', { p: '' }, { p: 'D' });
imp('cli', { p: 'IZ' }, { p: 'Z' });
imp('sei', { p: 'V' }, { p: 'VI' });
imp('clv', { p: 'NVC' }, { p: 'NC' });
imp('nop', { a: 0x01, x: 0x02, y: 0x03, p: 'NVZC' }, { p: 'NVZC' });
imp('pha', { a: 0xc3, sp: 0xf0 }, { sp: 0xef, p: '', mem: [[0x1f0, 0xc3]] });
imp('php', { p: 'NC', sp: 0xf0 }, { sp: 0xef, p: 'NC', mem: [[0x1f0, 0xb1]] });
imp('pla', { a: 0x11, sp: 0xf0 }, { a: 0x80, sp: 0xf1, p: 'N' }, [[0x1f1, 0x80]]);
imp('pla', { a: 0x11, sp: 0xf0, p: 'C' }, { a: 0x00, sp: 0xf1, p: 'ZC' }, [[0x1f1, 0x00]]);
imp('plp', { sp: 0xf0 }, { sp: 0xf1, p: 'NVZC' }, [[0x1f1, 0xc3]]);
imp('plp', { sp: 0xf0, p: 'NVZC' }, { sp: 0xf1, p: 'DI' }, [[0x1f1, 0x0c]]);

// ---- control flow (raw blocks) ----------------------------------------------------------------
const FAIL = (label: string) => `beq ${label}\n        jmp fail\n${label}:`;
const BRANCHES: [string, string, string][] = [
  // mnemonic, flags that make it taken, flags that do not
  ['bcc', '', 'C'],
  ['bcs', 'C', ''],
  ['beq', 'Z', ''],
  ['bne', '', 'Z'],
  ['bmi', 'N', ''],
  ['bpl', '', 'N'],
  ['bvc', '', 'V'],
  ['bvs', 'V', ''],
];
for (const [mn, takenP, notP] of BRANCHES) {
  for (const [p, expect] of [
    [takenP, 1],
    [notP, 0],
  ] as [string, number][]) {
    cases.push({
      title: `${mn} forward and backward with p=${p} (${expect ? 'taken' : 'not taken'})`,
      raw: (n) => `
        lda #${hex(flags(p))}
        pha
        plp
t_${n}_1: ${mn} br_${n}_fwd
        lda #0
        jmp br_${n}_chk
br_${n}_fwd:
        lda #1
br_${n}_chk:
        cmp #${expect}
        ${FAIL(`br_${n}_ok1`)}
        jmp br_${n}_start
br_${n}_back:
        lda #1
        jmp br_${n}_chk2
br_${n}_start:
        lda #${hex(flags(p))}
        pha
        plp
t_${n}_2: ${mn} br_${n}_back
        lda #0
br_${n}_chk2:
        cmp #${expect}
        ${FAIL(`br_${n}_ok2`)}`,
    });
  }
}
cases.push({
  title: 'bne taken across a page boundary',
  raw: (n) => `
        ldx #1
        jmp pc_${n}_go
        !align 255, 240
pc_${n}_go:
        !fill 10, $ea
t_${n}: bne pc_${n}_target      ; at $xxFA, the target is on the next page
        jmp fail
        !fill 8, $ea
pc_${n}_target:
        nop`,
});
cases.push({
  title: 'jmp absolute',
  raw: (n) => `
t_${n}: jmp jmp_${n}_ok
        jmp fail
jmp_${n}_ok:`,
});
cases.push({
  title: 'jmp (indirect)',
  raw: (n) => `
        lda #<jind_${n}_ok
        sta $1280
        lda #>jind_${n}_ok
        sta $1281
t_${n}: jmp ($1280)
        jmp fail
jind_${n}_ok:`,
});
cases.push({
  title: 'jmp (indirect) at $xxFF takes the high byte from $xx00 (NMOS)',
  raw: (n) => `
        lda #<jw_${n}_ok
        sta $12ff
        lda #>jw_${n}_ok
        sta $1200
        lda #>fail
        sta $1300
t_${n}: jmp ($12ff)
        jmp fail
jw_${n}_ok:`,
});
cases.push({
  title: 'jsr pushes the address of its last byte; rts returns after it',
  raw: (n) => `
        ldx #$ff
        txs
t_${n}_1: jsr jsr_${n}_sub
jsr_${n}_ret:
        lda $05
        cmp #<(jsr_${n}_ret - 1)
        ${FAIL(`jsr_${n}_ok1`)}
        lda $06
        cmp #>(jsr_${n}_ret - 1)
        ${FAIL(`jsr_${n}_ok2`)}
        lda $09
        cmp #$fd
        ${FAIL(`jsr_${n}_ok3`)}
        tsx
        cpx #$ff
        ${FAIL(`jsr_${n}_ok4`)}
        jmp jsr_${n}_end
jsr_${n}_sub:
        tsx
        stx $09
        lda $0101,x
        sta $05
        lda $0102,x
        sta $06
t_${n}_2: rts
jsr_${n}_end:`,
});
cases.push({
  title: 'rti pulls P and the exact return address',
  raw: (n) => `
        ldx #$ff
        txs
        lda #>rti_${n}_ok
        pha
        lda #<rti_${n}_ok
        pha
        lda #$c3
        pha
t_${n}: rti
        jmp fail
rti_${n}_ok:
        php
        pla
        cmp #$f3
        ${FAIL(`rti_${n}_ok1`)}
        tsx
        cpx #$ff
        ${FAIL(`rti_${n}_ok2`)}`,
});
cases.push({
  title: 'brk pushes PC+2 and P with B, sets I, jumps through $FFFE',
  raw: (n) => `
        lda #<brk_${n}_handler
        sta $fffe
        lda #>brk_${n}_handler
        sta $ffff
        ldx #$ff
        txs
        lda #$00
        pha
        plp
t_${n}: brk
        !byte $ea
brk_${n}_after:
        jmp fail
brk_${n}_handler:
        php
        pla
        and #$04
        cmp #$04
        ${FAIL(`brk_${n}_ok1`)}
        lda $01fd
        and #$30
        cmp #$30
        ${FAIL(`brk_${n}_ok2`)}
        lda $01fe
        cmp #<brk_${n}_after
        ${FAIL(`brk_${n}_ok3`)}
        lda $01ff
        cmp #>brk_${n}_after
        ${FAIL(`brk_${n}_ok4`)}
        tsx
        cpx #$fc
        ${FAIL(`brk_${n}_ok5`)}`,
});

// ---- the program --------------------------------------------------------------------------------
function caseCode(c: Case, n: number): string {
  const lines: string[] = [
    `; case ${n}: ${c.title}`,
    `case_${n}:`,
    `        lda #<${n}`,
    '        sta $02',
    `        lda #>${n}`,
    '        sta $03',
  ];
  if (c.raw) {
    lines.push(c.raw(n));
    return lines.join('\n');
  }
  const inR = { a: 0x11, x: 0x22, y: 0x33, p: '', sp: 0xff, ...c.in };
  const out = { a: inR.a, x: inR.x, y: inR.y, sp: inR.sp, ...c.out };
  lines.push(`        ldx #${hex(inR.sp)}`, '        txs');
  for (const [addr, v] of c.mem ?? []) lines.push(`        lda #${hex(v)}`, `        sta ${hex(addr, 4)}`);
  lines.push(
    `        lda #${hex(flags(inR.p))}`,
    '        pha',
    `        lda #${hex(inR.a)}`,
    `        ldx #${hex(inR.x)}`,
    `        ldy #${hex(inR.y)}`,
    '        plp',
  );
  lines.push(`t_${n}: ${c.insn}`);
  lines.push(
    '        php',
    '        sta $05',
    '        stx $06',
    '        sty $07',
    '        pla',
    '        sta $08',
    '        tsx',
    '        stx $09',
  );
  const check = (addr: number, v: number, k: string) => {
    lines.push(`        lda ${hex(addr, addr > 0xff ? 4 : 2)}`, `        cmp #${hex(v)}`, `        ${FAIL(`c_${n}_${k}`)}`);
  };
  check(0x05, out.a, 'a');
  check(0x06, out.x, 'x');
  check(0x07, out.y, 'y');
  check(0x08, flags(out.p ?? '') | 0x30, 'p');
  check(0x09, out.sp, 's');
  for (const [i, [addr, v]] of (out.mem ?? []).entries()) check(addr, v, `m${i}`);
  return lines.join('\n');
}

const ORIGIN = 0x2000;
const source = [
  '!cpu 6510',
  `* = ${hex(ORIGIN, 4)}`,
  '        sei',
  '        cld',
  ...cases.map(caseCode),
  '        lda #$01',
  '        sta $04',
  '        !byte $02           ; JAM: all cases passed',
  'fail:   lda #$ff',
  '        sta $04',
  '        !byte $02           ; JAM: case number in $02/$03',
].join('\n');

test('every documented opcode and addressing mode gives the datasheet result', () => {
  const prog = acme(source, ORIGIN);
  const { cpu, bus } = flatCpu(prog.bytes, ORIGIN);
  const executed = new Set<number>();
  runToJam(cpu, 5_000_000, (pc) => executed.add(pc));

  const caseNo = bus.mem[2]! | (bus.mem[3]! << 8);
  if (bus.mem[4] !== 1) {
    const c = cases[caseNo];
    assert.fail(
      `case ${caseNo} failed: ${c?.title}\n  A=${hex(bus.mem[5]!)} X=${hex(bus.mem[6]!)} Y=${hex(bus.mem[7]!)} ` +
        `P=${hex(bus.mem[8]!)} SP=${hex(bus.mem[9]!)} (PC ${hex(cpu.pc, 4)})`,
    );
  }
  assert.equal(caseNo, cases.length - 1, 'the program ran through every case');

  // coverage: the instructions under test, as assembled and as executed
  const tested = new Set<number>();
  for (const [name, addr] of prog.labels) {
    if (!/^t_\d+(_\d+)?$/.test(name)) continue;
    assert.ok(executed.has(addr), `instruction under test ${name} at ${hex(addr, 4)} was executed`);
    tested.add(prog.bytes[addr - ORIGIN]!);
  }
  const missing = DOCUMENTED.filter((o) => !tested.has(o.opcode)).map((o) => `${hex(o.opcode)} ${o.mnemonic} ${o.mode}`);
  assert.deepEqual(missing, [], 'every documented opcode is the instruction under test of some case');
  assert.equal(DOCUMENTED.length, 151);
});

test("the same program passes on the C64 machine's bus (KERNAL banked out for the BRK vector)", () => {
  const prog = acme(source, ORIGIN);
  const m = new C64Machine();
  m.writeMem(ORIGIN, prog.bytes);
  m.poke(0x01, 0x35); // RAM at $E000-$FFFF, I/O at $D000
  m.poke(0xdc0d, 0x7f); // the KERNAL's timer interrupt off: cases run with I clear
  m.cpu.pc = ORIGIN;
  m.run(5_000_000);
  assert.equal(m.lastStop, 'jam');
  const caseNo = m.ram[2]! | (m.ram[3]! << 8);
  assert.equal(m.ram[4], 1, `case ${caseNo} (${cases[caseNo]?.title}) failed on the machine`);
  assert.equal(caseNo, cases.length - 1);
});
