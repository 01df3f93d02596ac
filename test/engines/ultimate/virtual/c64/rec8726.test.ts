// The REU's controller (REC 8726) on its own: registers poked, a transfer run on a plain 64 KiB
// bus that counts the REC's clocks, then the flags, registers, memory and clocks checked against
// the 17xx behaviour W. Moser measured (QuickReuTest, his CSG8726 reference).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';
import { Rec8726, type RecBus } from '../../../../../engines/ultimate/virtual/c64/rec8726.js';

/** A flat C64 memory that counts the REC's DMA clocks and records its interrupt line. */
class FlatBus implements RecBus {
  readonly mem = new Uint8Array(0x10000);
  clocks = 0;
  irq = false;
  dmaCycle(): void {
    this.clocks++;
  }
  dmaRead(addr: number): number {
    return this.mem[addr]!;
  }
  dmaWrite(addr: number, value: number): void {
    this.mem[addr] = value;
  }
  setIrq(active: boolean): void {
    this.irq = active;
  }
}

/** Sets C64 address, REU address (24 bits), length, interrupt mask and address control. */
function setup(rec: Rec8726, c64: number, reu: number, length: number, intMask = 0, addrControl = 0): void {
  rec.write(0x02, c64 & 0xff);
  rec.write(0x03, c64 >> 8);
  rec.write(0x04, reu & 0xff);
  rec.write(0x05, (reu >> 8) & 0xff);
  rec.write(0x06, reu >> 16);
  rec.write(0x07, length & 0xff);
  rec.write(0x08, length >> 8);
  rec.write(0x09, intMask);
  rec.write(0x0a, addrControl);
}

test('an execute with the FF00 trigger off starts at once and disarms an earlier armed execute', () => {
  const bus = new FlatBus();
  const rec = new Rec8726(512, bus);
  assert.equal(rec.write(0x01, 0x80), false, 'execute with the trigger on only arms');
  assert.equal(rec.armed, true);
  setup(rec, 0x1000, 0x10000, 16);
  assert.equal(rec.write(0x01, 0x90), true, 'execute with the trigger off starts now');
  rec.transfer();
  assert.equal(bus.clocks, 16);
  assert.equal(rec.ff00Written(), false, 'a later $FF00 write starts nothing');
  assert.equal(rec.armed, false);
});

test('a command written without execute keeps an armed transfer armed', () => {
  const rec = new Rec8726(512, new FlatBus());
  rec.write(0x01, 0x80);
  rec.write(0x01, 0x10);
  assert.equal(rec.ff00Written(), true);
  assert.equal(rec.ff00Written(), false, 'one $FF00 write, one transfer');
});

test('a verify that differs only on the last byte takes length clocks and sets end of block and verify error', () => {
  const bus = new FlatBus();
  const rec = new Rec8726(512, bus);
  for (let i = 0; i < 8; i++) {
    bus.mem[0x2000 + i] = i;
    rec.ram[0x1fff8 + i] = i;
  }
  rec.ram[0x1ffff] = 0x99;
  setup(rec, 0x2000, 0x1fff8, 8, 0xa0); // interrupt on verify error
  rec.write(0x01, 0x93);
  rec.transfer();
  assert.equal(bus.clocks, 8, 'no extra clock for a difference on the last byte');
  assert.equal(rec.peek(0x00) & 0xe0, 0xe0, 'interrupt, end of block and verify error');
  assert.equal(bus.irq, true);
  assert.equal(rec.c64Addr, 0x2008);
  assert.equal(rec.reuAddr | (rec.bank << 16), 0x20000);
  assert.equal(rec.length, 1);
});

test('on the machine: STA $DF01 (execute now) then STA $FF00 runs one transfer, not a second one', () => {
  const m = new C64Machine({ reuKb: 512 });
  m.poke(0xdf01, 0x80); // armed, as a register check writing $80 to $DF01 leaves it
  const regs = [0x00, 0xc1, 0x00, 0x00, 0x00, 0x04, 0x00];
  for (const [i, v] of regs.entries()) m.poke(0xdf02 + i, v);
  m.ram.set([1, 2, 3, 4, 5], 0xc100);
  const before = m.reu!.ram[4];
  // LDA #$90; STA $DF01; STA $FF00; JMP *
  const code = [0xa9, 0x90, 0x8d, 0x01, 0xdf, 0x8d, 0x00, 0xff, 0x4c, 0x08, 0xc0];
  code.forEach((b, i) => {
    m.ram[0xc000 + i] = b;
  });
  m.cpu.pc = 0xc000;
  m.run(1000, (mm) => mm.cpu.pc === 0xc008);
  assert.equal(m.cpu.pc, 0xc008);
  assert.deepEqual([...m.reu!.ram.subarray(0, 4)], [1, 2, 3, 4]);
  assert.equal(m.reu!.ram[4], before, 'no second, one-byte stash from $C104');
  assert.equal(m.reu!.reuAddr, 4);
  assert.equal(m.reu!.c64Addr, 0xc104);
});

/** Starts CIA 1 timer A from $FFFF, continuous: it counts one a clock and wraps after 65536. */
function startTimer(m: C64Machine): void {
  m.poke(0xdc0e, 0x00);
  m.poke(0xdc04, 0xff);
  m.poke(0xdc05, 0xff);
  m.poke(0xdc0e, 0x11);
}

/**
 * Stashes `length` bytes from CIA 1 timer A low (fixed C64 address; the timer started less than
 * 60 000 clocks before) and returns the clock of each of the REC's reads, from the timer values.
 */
function stashTimerClocks(m: C64Machine, length: number, command = 0x90): number[] {
  const regs = [0x04, 0xdc, 0x00, 0x00, 0x00, length & 0xff, length >> 8, 0x00, 0x80];
  for (const [i, v] of regs.entries()) m.poke(0xdf02 + i, v);
  m.poke(0xdf01, command); // stash (or swap) now: runs inside this poke
  const end = m.cpu.cycles - 1; // the transfer's last clock (a swap ends with a write)
  const atEnd = m.peek(0xdc04); // the timer as a read in that clock sees it
  const v = m.reu!.ram.subarray(0, length);
  // The timer's low byte falls by one a clock; unwrap it backwards from the last clock.
  const clocks = new Array<number>(length);
  clocks[length - 1] = end - ((v[length - 1]! - atEnd + 256) % 256);
  for (let i = length - 2; i >= 0; i--) clocks[i] = clocks[i + 1]! - ((v[i]! - v[i + 1]! + 256) % 256);
  return clocks;
}

const PAL_LINE = 63;
const PAL_FRAME = PAL_LINE * 312;
const lineOf = (c: number) => Math.floor((c % PAL_FRAME) / PAL_LINE);

test('a stash reads in every clock BA is high and none while it is low: a bad line stops it from cycle 12 through 54', () => {
  const m = new C64Machine({ reuKb: 512 });
  m.poke(0xd011, 0x1b); // display on, YSCROLL 3: lines $33, $3B, … are bad lines
  m.poke(0xd015, 0x00);
  m.run(PAL_FRAME); // a frame with DEN set in line $30
  startTimer(m);
  m.run(((0x3a - lineOf(m.cpu.cycles) + 312) % 312) * PAL_LINE); // somewhere in line $3A
  const clocks = stashTimerClocks(m, 200);
  const badBaLow = (c: number) => lineOf(c) === 0x3b && c % PAL_LINE >= 11 && c % PAL_LINE <= 53;
  const expected: number[] = [];
  for (let c = clocks[0]!; expected.length < 200; c++) if (!badBaLow(c)) expected.push(c);
  assert.ok(
    clocks.some((c) => lineOf(c) === 0x3b && c % PAL_LINE === 10),
    'read in cycle 11, the clock before BA drops',
  );
  assert.ok(
    clocks.some((c) => lineOf(c) === 0x3b && c % PAL_LINE === 54),
    'and again in cycle 55, when the VIC lets go',
  );
  assert.deepEqual(clocks, expected);
});

test("where sprite 0's DMA turns on, the stash still reads in cycle 55; a line later it waits from cycle 55", () => {
  const m = new C64Machine({ reuKb: 512 });
  m.poke(0xd011, 0x0b); // display off: no bad lines
  m.run(PAL_FRAME);
  startTimer(m);
  m.run(((0x60 - lineOf(m.cpu.cycles) + 312) % 312) * PAL_LINE); // in line $60
  m.poke(0xd001, 0x61); // sprite 0 turns on in line $61
  m.poke(0xd015, 0x01);
  const clocks = stashTimerClocks(m, 180);
  const at = (line: number, k: number) => clocks.some((c) => lineOf(c) === line && c % PAL_LINE === k);
  assert.ok(at(0x61, 54), 'cycle 55 of the turn-on line is the REC’s');
  for (const k of [55, 56, 57, 58]) assert.ok(!at(0x61, k), `cycle ${k + 1} of the turn-on line is the VIC’s`);
  assert.ok(at(0x61, 59), 'the REC reads again after the s-accesses');
  for (const k of [54, 55, 56, 57, 58]) assert.ok(!at(0x62, k), `cycle ${k + 1} of the next line is the VIC’s`);
  assert.ok(at(0x62, 53));
});

/** The REC's read clocks that fall in line `line`, as cycle numbers 1..63. */
function cyclesIn(clocks: number[], line: number): number[] {
  return clocks.filter((c) => lineOf(c) === line).map((c) => (c % PAL_LINE) + 1);
}

test("a swap's read caught by a bad line's BA is held to cycle 14; one not yet started waits for the VIC", () => {
  let held = 0;
  let waited = 0;
  // The two phases of the read/write pairs against the bad line: a one-byte stash first shifts it.
  for (const shift of [false, true]) {
    const m = new C64Machine({ reuKb: 512 });
    m.poke(0xd011, 0x1b);
    m.poke(0xd015, 0x00);
    m.run(PAL_FRAME);
    startTimer(m);
    m.run(((0x3a - lineOf(m.cpu.cycles) + 312) % 312) * PAL_LINE);
    if (shift) {
      for (const [i, v] of [0x00, 0xc0, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00].entries()) m.poke(0xdf02 + i, v);
      m.poke(0xdf01, 0x90); // one clock
    }
    const clocks = stashTimerClocks(m, 1200, 0x92); // swap: a read and a write a byte, ~40 lines
    for (let line = 0x3b; line <= 0x5b; line += 8) {
      const cs = cyclesIn(clocks, line);
      const inBa = cs.filter((c) => c >= 12 && c <= 54);
      if (inBa.length === 1) {
        held++;
        assert.equal(inBa[0], 14, `line ${line}: the held read takes the warning's last clock`);
        assert.ok(
          cs.includes(10) && cs.includes(56) && !cs.includes(55),
          `line ${line}: read 10, held read, write 55, read 56: ${cs.join(' ')}`,
        );
      } else {
        waited++;
        assert.deepEqual(inBa, [], `line ${line}: no read while the VIC has the bus`);
        assert.ok(cs.includes(9) && !cs.includes(11) && cs.includes(55), `line ${line}: read 9, write 10, wait, read 55: ${cs.join(' ')}`);
      }
    }
  }
  assert.ok(held > 0 && waited > 0, `both phases seen (held ${held}, waited ${waited})`);
});

test("a swap's read is not held when sprite 0's DMA follows the bad line: BA stays low through cycle 59", () => {
  const m = new C64Machine({ reuKb: 512 });
  m.poke(0xd011, 0x1b);
  m.run(PAL_FRAME);
  startTimer(m);
  m.run(((0x3a - lineOf(m.cpu.cycles) + 312) % 312) * PAL_LINE);
  m.poke(0xd001, 0x3a); // sprite 0 shown from line $3B, 21 lines: over the bad lines $3B and $43
  m.poke(0xd015, 0x01);
  const clocks = stashTimerClocks(m, 400, 0x92);
  for (const line of [0x3b, 0x43]) {
    const cs = cyclesIn(clocks, line);
    assert.deepEqual(
      cs.filter((c) => c >= 12 && c <= 59),
      [],
      `line ${line}: ${cs.join(' ')}`,
    );
    assert.ok(cs.includes(60) || cs.includes(61), `line ${line}: the next read after the sprite DMA: ${cs.join(' ')}`);
  }
});
