// The VIC-II as a program observes it clock by clock: the floating bus (what the VIC read in phi1
// of the clock a CPU read of open I/O happens in), the raster counter's wrap, the light pen latch,
// the old NTSC chip's geometry, and the power-on RAM pattern. Expected values follow C. Bauer's
// timing tables and VICE's testbench programs (phi1timing, lp-trigger, raminitpattern), which the
// benchmark runs whole (docs/ultimate/TESTBENCH.md).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';

/** Runs one instruction placed at $C000 and returns the clock index of its first cycle. */
function runAt(m: C64Machine, code: number[]): number {
  m.ram.set(code, 0xc000);
  m.cpu.pc = 0xc000;
  m.cpu.p |= 0x04; // interrupts masked: the instruction runs now
  const start = m.cpu.cycles;
  m.stepInstruction();
  return start;
}

/** Sets the machine up for phi1 reads: display off (no bad lines), ECM, marker bytes in bank 0. */
function phi1Machine(video: 'pal' | 'ntsc' | 'ntsc-old'): C64Machine {
  const m = new C64Machine({ video });
  m.poke(0xd011, 0x4b); // ECM, DEN off, YSCROLL 3
  m.poke(0xd018, 0x14); // video matrix $0400
  m.poke(0xd015, 0x00);
  for (let i = 0; i < 256; i++) m.ram[0x3f00 + i] = 0x55; // refresh range
  m.ram[0x3fff] = 0xff; // idle byte
  m.ram[0x39ff] = 0xaa; // idle byte with ECM
  for (let n = 0; n < 8; n++) m.ram[0x07f8 + n] = 0x10 + n; // sprite pointers
  return m;
}

/** The phi1 byte of each 0-based clock of raster line 100, as a string of slot kinds. */
function phi1Line(m: C64Machine): string {
  const base = Math.ceil(m.cpu.cycles / m.cyclesPerFrame + 1) * m.cyclesPerFrame + 100 * m.cyclesPerLine;
  let s = '';
  for (let k = 0; k < m.cyclesPerLine; k++) {
    const v = m.vicII.phi1.data(base + k);
    s += v === 0xaa ? 'g' : v === 0x55 ? 'r' : v === 0xff ? 'i' : v >= 0x10 && v < 0x18 ? String(v - 0x10) : '?';
  }
  return s;
}

describe('VIC-II phi1 fetches (the floating bus)', () => {
  test('PAL 6569: sprite pointers 3-7 in cycles 1-10, refresh 11-15, g-accesses 16-55, pointers 0-2 from 58', () => {
    assert.equal(phi1Line(phi1Machine('pal')), `3i4i5i6i7irrrrr${'g'.repeat(40)}ii0i1i2i`);
  });

  test('NTSC 6567R8 and 6567R56A: sprite 0 at cycle 59, the extra clocks where each chip has them', () => {
    assert.equal(phi1Line(phi1Machine('ntsc')), `i4i5i6i7iirrrrr${'g'.repeat(40)}iii0i1i2i3`);
    assert.equal(phi1Line(phi1Machine('ntsc-old')), `3i4i5i6i7irrrrr${'g'.repeat(40)}iii0i1i2i`);
  });

  test('a CPU read of open I/O ($DE00) returns the phi1 byte of its own clock', () => {
    const m = phi1Machine('pal');
    const seen = new Set<number>();
    for (let i = 0; i < 70; i++) {
      runAt(m, [0xad, 0x00, 0xde]); // LDA $DE00: the read is its last clock (after a bad line's stall, if any)
      const at = m.cpu.cycles - 1;
      assert.equal(m.cpu.a, m.vicII.phi1.data(at), `read at clock ${at}`);
      seen.add(m.cpu.a);
    }
    assert.ok(seen.size >= 2, 'the reads met different kinds of fetch');
  });

  test('in display state the g-access reads the character generator byte of the cell', () => {
    const m = phi1Machine('pal');
    m.poke(0xd011, 0x1b); // text mode, DEN on
    m.poke(0xd018, 0x1c); // matrix $0400, characters $3000
    m.ram[0x0400] = 0x01; // the first cell of row 0 shows character 1
    m.ram[0x3000 + 8 + 0] = 0x42; // its first pixel row
    m.run(2 * m.cyclesPerFrame); // a frame whose line $30 saw DEN
    const frame = Math.ceil(m.cpu.cycles / m.cyclesPerFrame) * m.cyclesPerFrame;
    // First bad line $33 (YSCROLL 3): cell 0's g-access in cycle 16.
    assert.equal(m.vicII.phi1.data(frame + 0x33 * m.cyclesPerLine + 15), 0x42);
  });
});

describe('VIC-II raster counter', () => {
  test('$D012 still reads the last line in the first clock of line 0, 0 from the second', () => {
    const m = new C64Machine();
    const frame = Math.ceil(m.cpu.cycles / m.cyclesPerFrame + 1) * m.cyclesPerFrame;
    // read(reg, now): the access happens in clock now - 1.
    assert.equal(m.vicII.read(0x12, frame - 1 + 1), 311 & 0xff);
    assert.equal(m.vicII.read(0x12, frame + 1), 311 & 0xff);
    assert.equal(m.vicII.read(0x11, frame + 1) & 0x80, 0x80);
    assert.equal(m.vicII.read(0x12, frame + 2), 0);
    assert.equal(m.vicII.read(0x12, frame + m.cyclesPerLine + 1), 1);
  });
});

describe('VIC-II light pen', () => {
  test('a falling PB4 latches the beam once a frame and raises $D019 bit 3; held low it latches at the frame start', () => {
    const m = new C64Machine();
    m.cpu.p |= 0x04; // no KERNAL interrupt (its keyboard scan) while the pen is held
    m.poke(0xdc03, 0xff); // port B all output
    m.poke(0xdc01, 0xff);
    m.poke(0xd019, 0x0f);
    // Wait until line 100, then pull PB4 low with STA $DC01 (the write is the 4th clock).
    m.run(((100 - m.rasterLine() + 312) % 312) * m.cyclesPerLine);
    m.cpu.a = 0x00;
    const start = runAt(m, [0x8d, 0x01, 0xdc]);
    const latchedAt = start + 3 + 1; // one clock after the write
    const line = Math.floor((latchedAt % m.cyclesPerFrame) / m.cyclesPerLine);
    assert.equal(m.peek(0xd014), line & 0xff);
    assert.equal(m.peek(0xd019) & 0x08, 0x08);
    const x = m.peek(0xd013);
    // A second edge in the same frame changes nothing.
    m.cpu.a = 0xff;
    runAt(m, [0x8d, 0x01, 0xdc]);
    m.poke(0xd019, 0x08);
    m.run(2 * m.cyclesPerLine);
    m.cpu.a = 0x00;
    runAt(m, [0x8d, 0x01, 0xdc]);
    assert.equal(m.peek(0xd013), x);
    assert.equal(m.peek(0xd019) & 0x08, 0, 'no second latch in a frame');
    // Held low into the next frame: latched again at its start (line 0).
    m.run(m.cyclesPerFrame);
    assert.equal(m.peek(0xd014), 0);
    assert.equal(m.peek(0xd019) & 0x08, 0x08);
  });
});

describe('machine geometry and power-on RAM', () => {
  test("video 'ntsc-old' is the 6567R56A: 64 clocks × 262 lines, and it boots", () => {
    const m = new C64Machine({ video: 'ntsc-old' });
    assert.equal(m.cyclesPerLine, 64);
    assert.equal(m.linesPerFrame, 262);
    assert.ok(m.isReady());
    assert.throws(() => new C64Machine({ video: 'secam' as 'pal' }), /video must be 'pal', 'ntsc' or 'ntsc-old'/);
  });

  test("powerOnRam 'c64' fills RAM as x64sc does; the default stays zeroed", () => {
    const m = new C64Machine({ powerOnRam: 'c64' });
    // Blocks of four alternating $00/$FF (the first two bytes short), inverted in odd 16 KiB halves.
    assert.deepEqual([...m.ram.subarray(0x3ff8, 0x4000)], [0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00]);
    assert.deepEqual([...m.ram.subarray(0x4002, 0x400a)], [0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff]);
    assert.equal(new C64Machine().ram[0x3fff], 0);
    assert.throws(() => new C64Machine({ powerOnRam: 'random' as 'c64' }), /powerOnRam must be 'zero' or 'c64'/);
  });
});
