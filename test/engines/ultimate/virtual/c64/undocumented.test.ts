// The stable undocumented NMOS opcodes the core implements, with results and cycle counts from
// "No More Secrets — NMOS 6510 Unintended Opcodes". (The unstable SHA/SHX/SHY/TAS/ANE/LXA
// follow the commonly documented formulas and are not asserted here: real chips disagree.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cpu6510 } from '../../../../../engines/ultimate/virtual/c64/cpu6510.js';
import { FlatBus, flags, hex } from './helpers.js';

interface Case {
  name: string;
  bytes: number[];
  in: { a?: number; x?: number; y?: number; sp?: number; p?: string; mem?: [number, number][] };
  out: { a?: number; x?: number; y?: number; sp?: number; p: string; mem?: [number, number][]; cycles: number };
}

const CASES: Case[] = [
  { name: 'LAX zp', bytes: [0xa7, 0x80], in: { mem: [[0x80, 0x85]] }, out: { a: 0x85, x: 0x85, p: 'N', cycles: 3 } },
  {
    name: 'LAX (zp),Y across a page',
    bytes: [0xb3, 0x80],
    in: {
      y: 0x10,
      mem: [
        [0x80, 0xf8],
        [0x81, 0x12],
        [0x1308, 0x00],
      ],
    },
    out: { a: 0, x: 0, p: 'Z', cycles: 6 },
  },
  { name: 'SAX zp', bytes: [0x87, 0x80], in: { a: 0xf0, x: 0x3c, p: 'C' }, out: { p: 'C', mem: [[0x80, 0x30]], cycles: 3 } },
  {
    name: 'SAX (zp,X)',
    bytes: [0x83, 0x7e],
    in: {
      a: 0xff,
      x: 0x02,
      mem: [
        [0x80, 0x00],
        [0x81, 0x13],
      ],
    },
    out: { p: '', mem: [[0x1300, 0x02]], cycles: 6 },
  },
  { name: 'DCP zp', bytes: [0xc7, 0x80], in: { a: 0x40, mem: [[0x80, 0x41]] }, out: { p: 'ZC', mem: [[0x80, 0x40]], cycles: 5 } },
  {
    name: 'DCP abs,Y',
    bytes: [0xdb, 0x00, 0x13],
    in: { a: 0x40, y: 1, mem: [[0x1301, 0x50]] },
    out: { p: 'N', mem: [[0x1301, 0x4f]], cycles: 7 },
  },
  {
    name: 'ISC zp',
    bytes: [0xe7, 0x80],
    in: { a: 0x20, p: 'C', mem: [[0x80, 0x0f]] },
    out: { a: 0x10, p: 'C', mem: [[0x80, 0x10]], cycles: 5 },
  },
  { name: 'SLO zp', bytes: [0x07, 0x80], in: { a: 0x02, mem: [[0x80, 0x81]] }, out: { a: 0x02, p: 'C', mem: [[0x80, 0x02]], cycles: 5 } },
  {
    name: 'SLO abs,X',
    bytes: [0x1f, 0x00, 0x13],
    in: { a: 0x01, x: 2, mem: [[0x1302, 0x40]] },
    out: { a: 0x81, p: 'N', mem: [[0x1302, 0x80]], cycles: 7 },
  },
  {
    name: 'SLO (zp),Y',
    bytes: [0x13, 0x80],
    in: {
      a: 0,
      y: 1,
      mem: [
        [0x80, 0x00],
        [0x81, 0x13],
        [0x1301, 0x01],
      ],
    },
    out: { a: 0x02, p: '', mem: [[0x1301, 0x02]], cycles: 8 },
  },
  {
    name: 'SLO (zp,X)',
    bytes: [0x03, 0x80],
    in: {
      a: 0,
      x: 0,
      mem: [
        [0x80, 0x00],
        [0x81, 0x13],
        [0x1300, 0x80],
      ],
    },
    out: { a: 0, p: 'ZC', mem: [[0x1300, 0x00]], cycles: 8 },
  },
  {
    name: 'RLA zp',
    bytes: [0x27, 0x80],
    in: { a: 0xff, p: 'C', mem: [[0x80, 0x81]] },
    out: { a: 0x03, p: 'C', mem: [[0x80, 0x03]], cycles: 5 },
  },
  { name: 'SRE zp', bytes: [0x47, 0x80], in: { a: 0xff, mem: [[0x80, 0x03]] }, out: { a: 0xfe, p: 'NC', mem: [[0x80, 0x01]], cycles: 5 } },
  {
    name: 'RRA zp',
    bytes: [0x67, 0x80],
    in: { a: 0x10, p: 'C', mem: [[0x80, 0x02]] },
    out: { a: 0x91, p: 'N', mem: [[0x80, 0x81]], cycles: 5 },
  },
  { name: 'ANC #imm', bytes: [0x0b, 0x80], in: { a: 0xff }, out: { a: 0x80, p: 'NC', cycles: 2 } },
  { name: 'ALR #imm', bytes: [0x4b, 0x03], in: { a: 0xff }, out: { a: 0x01, p: 'C', cycles: 2 } },
  { name: 'ARR #imm', bytes: [0x6b, 0xff], in: { a: 0xc0, p: 'C' }, out: { a: 0xe0, p: 'NC', cycles: 2 } },
  { name: 'ARR #imm sets V from bits 6 and 5', bytes: [0x6b, 0xff], in: { a: 0x40 }, out: { a: 0x20, p: 'V', cycles: 2 } },
  { name: 'SBX #imm', bytes: [0xcb, 0x01], in: { a: 0x0f, x: 0xf3 }, out: { x: 0x02, p: 'C', cycles: 2 } },
  { name: 'SBC #imm ($EB)', bytes: [0xeb, 0x01], in: { a: 0x05, p: 'C' }, out: { a: 0x04, p: 'C', cycles: 2 } },
  {
    name: 'LAS abs,Y',
    bytes: [0xbb, 0x00, 0x13],
    in: { y: 0, sp: 0x3f, mem: [[0x1300, 0xf0]] },
    out: { a: 0x30, x: 0x30, sp: 0x30, p: '', cycles: 4 },
  },
  { name: 'NOP #imm ($80)', bytes: [0x80, 0xff], in: { p: 'Z' }, out: { p: 'Z', cycles: 2 } },
  { name: 'NOP implied ($1A)', bytes: [0x1a], in: {}, out: { p: '', cycles: 2 } },
  { name: 'NOP zp ($04)', bytes: [0x04, 0x80], in: {}, out: { p: '', cycles: 3 } },
  { name: 'NOP zp,X ($14)', bytes: [0x14, 0x80], in: {}, out: { p: '', cycles: 4 } },
  { name: 'NOP abs ($0C)', bytes: [0x0c, 0x00, 0x13], in: {}, out: { p: '', cycles: 4 } },
  { name: 'NOP abs,X across a page ($1C)', bytes: [0x1c, 0xff, 0x12], in: { x: 1 }, out: { p: '', cycles: 5 } },
];

test('stable undocumented opcodes: results and cycle counts', () => {
  for (const c of CASES) {
    const bus = new FlatBus();
    bus.mem.set(c.bytes, 0x0400);
    for (const [addr, v] of c.in.mem ?? []) bus.mem[addr] = v;
    const cpu = new Cpu6510(bus);
    cpu.pc = 0x0400;
    cpu.a = c.in.a ?? 0x11;
    cpu.x = c.in.x ?? 0;
    cpu.y = c.in.y ?? 0;
    cpu.sp = c.in.sp ?? 0xff;
    cpu.p = flags(c.in.p ?? '') | 0x20;
    const n = cpu.step();
    assert.equal(n, c.out.cycles, `${c.name}: cycles`);
    assert.equal(cpu.pc, 0x0400 + c.bytes.length, `${c.name}: PC`);
    assert.equal(hex(cpu.a), hex(c.out.a ?? c.in.a ?? 0x11), `${c.name}: A`);
    assert.equal(hex(cpu.x), hex(c.out.x ?? c.in.x ?? 0), `${c.name}: X`);
    assert.equal(hex(cpu.sp), hex(c.out.sp ?? c.in.sp ?? 0xff), `${c.name}: SP`);
    assert.equal(hex(cpu.p), hex(flags(c.out.p) | 0x20), `${c.name}: P`);
    for (const [addr, v] of c.out.mem ?? []) assert.equal(hex(bus.mem[addr]!), hex(v), `${c.name}: memory ${hex(addr, 4)}`);
  }
});

test('all twelve KIL opcodes jam the CPU with PC on the opcode', () => {
  for (const op of [0x02, 0x12, 0x22, 0x32, 0x42, 0x52, 0x62, 0x72, 0x92, 0xb2, 0xd2, 0xf2]) {
    const bus = new FlatBus();
    bus.mem[0x0400] = op;
    const cpu = new Cpu6510(bus);
    cpu.pc = 0x0400;
    cpu.step();
    assert.equal(cpu.jammed, true, hex(op));
    assert.equal(cpu.pc, 0x0400);
    assert.equal(cpu.step(), 0, 'a jammed CPU executes nothing');
  }
});

test('all 256 opcodes execute without throwing', () => {
  for (let op = 0; op < 256; op++) {
    const bus = new FlatBus();
    bus.mem.set([op, 0x10, 0x12], 0x0400);
    const cpu = new Cpu6510(bus);
    cpu.pc = 0x0400;
    assert.doesNotThrow(() => cpu.step(), hex(op));
  }
});
