// The VIC-II takes the bus: bad lines and sprite DMA steal cycles from the 6510 with PAL timing, BA
// drops three cycles before the CPU is stopped on a read, and the debug stream shows it. The
// programs here have known cycle counts: `loop: INX / JMP loop` is 5 clocks of reads only, so in
// one frame (19 656 clocks) it runs 3931 times with the display off and (19 656 − 25 × 43) / 5 ≈
// 3716 times with it on; a sprite costs it 5 clocks a line for 21 lines, eight sprites 19.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { C64Machine, PAL_CYCLES_PER_FRAME, PAL_CYCLES_PER_LINE } from '../../../../../engines/ultimate/virtual/c64/machine.js';
import { VicII } from '../../../../../engines/ultimate/virtual/c64/vic-ii.js';

const LOOP = 0xc000;
const BA = 1 << 28;
const PHI2 = 0x80000000;

/** A machine at READY with `INX / JMP $C000` at $C000, the given VIC registers, and the CPU on the loop. */
function loopMachine(vic: Record<number, number>, onBusCycle?: (e: number) => void): C64Machine {
  const m = new C64Machine({ onBusCycle });
  m.writeMem(LOOP, Uint8Array.of(0xe8, 0x4c, 0x00, 0xc0));
  for (const [reg, v] of Object.entries(vic)) m.writeMem(0xd000 + Number(reg), Uint8Array.of(v));
  m.writeMem(0xdc0d, Uint8Array.of(0x7f)); // no timer interrupt in the way
  m.cpu.pc = LOOP;
  m.cpu.p |= 0x04;
  // Let a whole frame pass so the DEN check at line $30 sees the registers.
  m.run(PAL_CYCLES_PER_FRAME + 100);
  return m;
}

/** Loop passes in exactly one frame, measured from a frame start. */
function passesInOneFrame(m: C64Machine): number {
  const frameStart = (Math.floor(m.cpu.cycles / PAL_CYCLES_PER_FRAME) + 1) * PAL_CYCLES_PER_FRAME;
  m.run(frameStart - m.cpu.cycles);
  // Align on an instruction boundary at the loop head.
  m.run(100, (mm) => mm.cpu.pc === LOOP);
  const t0 = m.cpu.cycles;
  let passes = 0;
  m.onExec = (pc) => {
    if (pc === LOOP) passes++;
    return false;
  };
  m.run(PAL_CYCLES_PER_FRAME - (t0 - frameStart));
  m.onExec = undefined;
  return passes;
}

describe('VIC-II bus timing (PAL, 63 × 312)', () => {
  test('display off: no cycles stolen; display on: 25 bad lines × 43 cycles from a read-only loop', () => {
    const off = passesInOneFrame(loopMachine({ 17: 0x0b }));
    const on = passesInOneFrame(loopMachine({ 17: 0x1b }));
    assert.ok(Math.abs(off - PAL_CYCLES_PER_FRAME / 5) <= 1.5, `display off: ${off} passes`);
    assert.ok(Math.abs(on - (PAL_CYCLES_PER_FRAME - 25 * 43) / 5) <= 1.5, `display on: ${on} passes`);
  });

  test('sprite DMA: one sprite costs 5 cycles a line for 21 lines (42 Y-expanded), eight cost 19', () => {
    const frame = PAL_CYCLES_PER_FRAME;
    const one = passesInOneFrame(loopMachine({ 17: 0x0b, 21: 0x01, 1: 0x80 }));
    assert.ok(Math.abs(one - (frame - 21 * 5) / 5) <= 1.5, `one sprite: ${one}`);
    const expanded = passesInOneFrame(loopMachine({ 17: 0x0b, 21: 0x01, 23: 0x01, 1: 0x80 }));
    assert.ok(Math.abs(expanded - (frame - 42 * 5) / 5) <= 1.5, `Y-expanded sprite: ${expanded}`);
    const ys: Record<number, number> = { 17: 0x0b, 21: 0xff };
    for (let n = 0; n < 8; n++) ys[1 + 2 * n] = 0x80;
    const eight = passesInOneFrame(loopMachine(ys));
    assert.ok(Math.abs(eight - (frame - 21 * 19) / 5) <= 1.5, `eight sprites: ${eight}`);
  });

  test('bad lines follow YSCROLL, and need DEN set during line $30', () => {
    const stallLines = (d011: number): number[] => {
      const lines = new Set<number>();
      let m: C64Machine | undefined;
      const cb = (e: number) => {
        if (m && (e & BA) === 0) lines.add(Math.floor(((m.cpu.cycles - 1) % PAL_CYCLES_PER_FRAME) / PAL_CYCLES_PER_LINE));
      };
      m = loopMachine({ 17: d011 }, cb);
      lines.clear();
      m.run(PAL_CYCLES_PER_FRAME);
      return [...lines].sort((a, b) => a - b);
    };
    const y3 = stallLines(0x1b);
    assert.equal(y3.length, 25);
    assert.equal(y3[0], 0x33);
    assert.equal(y3[24], 0xf3);
    const y0 = stallLines(0x18);
    assert.equal(y0[0], 0x30);
    assert.ok(y0.every((l) => (l & 7) === 0));
    assert.deepEqual(stallLines(0x0b), [], 'DEN clear: no bad lines');
  });

  test('"6510 Only" stream: three BA-low entries, then a 40-clock gap per bad line; writes go through during the warning', () => {
    // INC $C100 / JMP $C000: two writes per pass, so BA sometimes drops during a write.
    const stamps: Array<{ at: number; e: number }> = [];
    let m: C64Machine | undefined;
    m = new C64Machine({ onBusCycle: (e) => m && stamps.push({ at: m.cpu.cycles - 1, e }) });
    m.writeMem(LOOP, Uint8Array.of(0xee, 0x00, 0xc1, 0x4c, 0x00, 0xc0));
    m.writeMem(0xdc0d, Uint8Array.of(0x7f));
    m.cpu.pc = LOOP;
    m.cpu.p |= 0x04;
    m.run(PAL_CYCLES_PER_FRAME * 2);
    stamps.length = 0;
    const t0 = m.cpu.cycles;
    m.run(PAL_CYCLES_PER_FRAME * 4);
    const clocks = m.cpu.cycles - t0;
    const low = stamps.filter((s) => (s.e & BA) === 0);
    const k = (at: number) => at % PAL_CYCLES_PER_LINE;
    // every BA-low entry is in cycles 12-14 of a line (k 11..13): the warning before AEC drops
    assert.ok(low.length > 0 && low.every((s) => k(s.at) >= 11 && k(s.at) <= 13), 'BA-low entries only in the warning');
    // no entry at all while the VIC has the bus (cycles 15-54 of a bad line)
    const badLineOf = (at: number) => Math.floor((at % PAL_CYCLES_PER_FRAME) / PAL_CYCLES_PER_LINE);
    const lowLines = new Set(low.map((s) => Math.floor(s.at / PAL_CYCLES_PER_LINE)));
    assert.ok(stamps.every((s) => !(lowLines.has(Math.floor(s.at / PAL_CYCLES_PER_LINE)) && k(s.at) >= 14 && k(s.at) <= 53)));
    assert.equal(lowLines.size, 4 * 25);
    assert.ok(
      [...lowLines].every((l) => {
        const line = badLineOf(l * PAL_CYCLES_PER_LINE);
        return line >= 0x30 && line <= 0xf7 && (line & 7) === 3;
      }),
    );
    // a write during the warning is performed (BA low, R/W# low); a read there is only retried
    assert.ok(
      low.some((s) => (s.e & (1 << 24)) === 0),
      'some write went through with BA low',
    );
    const cpuReadsBaLow = low.filter((s) => ((s.e >>> 24) & 0x91) === 0x91);
    assert.equal(cpuReadsBaLow.length, 0, 'retried reads do not count as reads (BA low)');
    assert.equal(clocks - stamps.length, 4 * 25 * 40, 'exactly 40 clocks without an entry per bad line');
  });

  test('"6510 & VIC" stream: two entries per clock, the VIC half with PHI2 low', () => {
    const entries: number[] = [];
    const m = loopMachine({ 17: 0x1b, 21: 0x01, 1: 0x80 }, (e) => entries.push(e));
    m.debugStreamMode = '6510 & VIC';
    entries.length = 0;
    const t0 = m.cpu.cycles;
    m.run(PAL_CYCLES_PER_FRAME);
    const clocks = m.cpu.cycles - t0;
    assert.equal(entries.length, 2 * clocks);
    const vicHalves = entries.filter((e) => (e & PHI2) === 0);
    assert.equal(vicHalves.length, clocks);
    // in the stolen clocks the PHI2 half is the VIC's (BA low, not a CPU access)
    const stolenHalves = entries.filter((e) => (e & PHI2) !== 0 && (e & BA) === 0 && ((e >>> 24) & 0x01) === 1);
    assert.ok(stolenHalves.length >= 25 * 40 + 21 * 2, `stolen PHI2 halves: ${stolenHalves.length}`);
    assert.throws(() => {
      m.debugStreamMode = 'no such mode' as never;
    }, /unknown debug stream mode/);
  });
});

describe('one model of sprite DMA: the bus timing steals for the fetches the sequencer makes', () => {
  const L = PAL_CYCLES_PER_LINE;
  /** The lines from $40 on in which sprite 0 (Y $40, Y-expanded) takes the bus, with the $D017 writes given. */
  function stolenLines(d017Writes: [clock: number, value: number][]): number {
    const vic = new VicII(
      {
        ram: new Uint8Array(0x10000),
        chargen: new Uint8Array(0x1000),
        colorRam: new Uint8Array(0x400),
        vicBank: () => 0,
        setIrq: () => {},
      },
      L,
      312,
    );
    vic.reset(0);
    // write(reg, value, now) is the CPU's access in clock now - 1.
    vic.write(0x01, 0x40, 1);
    vic.write(0x17, 0x01, 2);
    vic.write(0x15, 0x01, 3);
    let lines = 0;
    for (let line = 0x40; line < 0x40 + 60; line++) {
      for (const [clock, value] of d017Writes) if (Math.floor(clock / L) === line) vic.write(0x17, value, clock + 1);
      // Sprite 0's first fetch: clock 57 of the line (cycle 58); DEN is off, so no bad line interferes.
      if (vic.timing.intervalAt(line * L + 57) !== undefined) lines++;
    }
    return lines;
  }

  test('a Y-expanded sprite takes the bus in 42 lines', () => {
    assert.equal(stolenLines([]), 42);
  });

  test('the $D017 crunch in cycle 15 makes it fetch 43 lines, and BA follows the sequencer', () => {
    // Line $41, clock 14 (cycle 15), the flip-flop reset: MC becomes 1 and then counts 3 a line
    // until MCBASE wraps round to 63 — 43 lines of fetches (a line table of 21/42 said 42).
    assert.equal(stolenLines([[0x41 * L + 14, 0x00]]), 43);
  });
});
