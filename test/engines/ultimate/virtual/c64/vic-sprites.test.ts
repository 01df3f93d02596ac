// The VIC-II's sprite unit to the clock and pixel, driven through its register file as the CPU
// would: a collision is latched in the clock whose pixels make it (a read one clock earlier does
// not see it; a read's clear holds half a clock longer), a write to a sprite's X reaches the comparators from the next clock's pixels, the
// Y-expansion flip-flop shows each row on two lines and a write to $D017 in the middle of a
// sprite changes it from that line on, and the collision interrupt rises at the clock of the
// collision; a bad line made mid-line in idle state fetches from $38FF in the next clock; an
// acknowledging $D019 write releases the interrupt line one clock after it; the 8565 reports the
// light pen's X one step earlier than the 6569. Geometry: PAL 6569, 63 clocks a line; X block 96-103 is drawn in clock 25 of a line
// (X 0 in clock 13, 8 pixels a clock).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VicSprites } from '../../../../../engines/ultimate/virtual/c64/vic-sprites.js';
import { VicII } from '../../../../../engines/ultimate/virtual/c64/vic-ii.js';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';

const L = 63;
/** First clock of raster line `r` in frame 0. */
const line = (r: number) => r * L;

interface Rig {
  vic: Uint8Array;
  mem: Uint8Array;
  unit: VicSprites;
}

/**
 * Sprite 0 (pointer $20 → $0800) and sprite 1 (pointer $21 → $0840) at Y = 50, so both show from
 * raster line 51; `rows0` and `rows1` are their 21 rows as 24-bit values.
 */
function rig(x0: number, x1: number, rows0: (r: number) => number, rows1: (r: number) => number): Rig {
  const vic = new Uint8Array(0x40);
  const mem = new Uint8Array(0x4000);
  vic[0x18] = 0x10; // video matrix $0400
  mem[0x07f8] = 0x20;
  mem[0x07f9] = 0x21;
  for (let r = 0; r < 21; r++) {
    for (const [base, v] of [
      [0x0800, rows0(r)],
      [0x0840, rows1(r)],
    ] as const) {
      mem[base + 3 * r] = (v >> 16) & 0xff;
      mem[base + 3 * r + 1] = (v >> 8) & 0xff;
      mem[base + 3 * r + 2] = v & 0xff;
    }
  }
  const unit = new VicSprites({ vic, vicFetch: (a) => mem[a & 0x3fff]!, colorOf: () => 0, badLinesEnabled: () => true }, L, 312);
  unit.reset(0);
  vic[0x00] = x0;
  vic[0x02] = x1;
  vic[0x01] = 50;
  vic[0x03] = 50;
  vic[0x15] = 0x03;
  return { vic, mem, unit };
}

const FULL = () => 0xffffff;
const FIRST_PIXEL = () => 0x800000;
const FIRST_EIGHT = () => 0xff0000;
const NONE = () => 0;

describe('VIC-II sprite unit (PAL)', () => {
  test('a collision is latched in the clock that draws its pixel, not a line at a time', () => {
    // Sprite 0 covers X 77-100, sprite 1's first pixel is X 100: they meet in block 96-103.
    const { unit } = rig(77, 100, FULL, FIRST_PIXEL);
    const t = line(51) + 25;
    assert.equal(unit.peek(0x1e, t), 0, 'a read in clock 25 sees the pixels up to clock 24');
    assert.equal(unit.peek(0x1e, t + 1), 0x03, 'a read in clock 26 sees clock 25 drawn');
    assert.equal(unit.pendingIrq, 0x04, 'the first collision raises the sprite-sprite interrupt flag');
    assert.equal(unit.pendingIrqAt, t + 1, 'at the clock after the pixels');
  });

  test('a read clears the latch after its own clock: a collision drawn in the read clock is lost', () => {
    const { unit } = rig(77, 100, FULL, FIRST_PIXEL);
    const t = line(51) + 25;
    assert.equal(unit.read(0x1e, t), 0);
    assert.equal(unit.peek(0x1e, line(52)), 0, 'the pixels of clock 25 collided and were cleared with the read');
    assert.equal(unit.read(0x1e, line(53)), 0x03, 'the next line collides again');
  });

  test("the read's clear holds through the first four pixels of the next clock", () => {
    // Read in clock 24; the collision is pixel 3 (X 99) or pixel 4 (X 100) of clock 25.
    for (const [x0, x1, expected] of [
      [76, 99, 0x00],
      [77, 100, 0x03],
    ] as const) {
      const { unit } = rig(x0, x1, FULL, FIRST_PIXEL);
      assert.equal(unit.read(0x1e, line(51) + 24), 0);
      assert.equal(unit.peek(0x1e, line(52)), expected, `collision at X ${x1}`);
    }
  });

  test('a write to a sprite X in clock t reaches the comparator from clock t + 1', () => {
    // Sprite 0 at X 96 (block drawn in clock 25) moved to 97; sprite 1's only pixel is X 120:
    // they meet only if sprite 0 starts at 97.
    for (const [k, expected] of [
      [24, 0x03],
      [25, 0x00],
    ] as const) {
      const { vic, unit } = rig(96, 120, FULL, FIRST_PIXEL);
      const t = line(51) + k;
      unit.beforeWrite(0x00, 97, t);
      vic[0x00] = 97;
      assert.equal(unit.peek(0x1e, line(52)), expected, `write in clock ${k}`);
    }
  });

  test('Y expansion shows each row on two lines; clearing MxYE mid-sprite steps one row a line', () => {
    // Sprite 0 has pixels in row 1 only; sprite 1 (same X, not expanded) in every row.
    const collisionsByLine = (writeD017At?: number): number[] => {
      const { vic, unit } = rig(100, 100, (r) => (r === 1 || r === 3 ? 0xffffff : 0), FULL);
      vic[0x17] = 0x01;
      const seen: number[] = [];
      for (let r = 51; r < 60; r++) {
        if (writeD017At !== undefined && r === writeD017At) {
          unit.beforeWrite(0x17, 0x00, line(r) + 30);
          vic[0x17] = 0;
        }
        seen.push(unit.read(0x1e, line(r + 1) - 1) === 0x03 ? 1 : 0);
      }
      return seen;
    };
    assert.deepEqual(collisionsByLine(), [0, 0, 1, 1, 0, 0, 1, 1, 0], 'rows 0,0,1,1,2,2,3,3,4');
    // Cleared during line 53 (row 1, first of its two lines), with the flip-flop set after
    // cycle 56 of line 52: row 1 is shown once more on line 54, then one row a line (2, 3, 4…).
    assert.deepEqual(collisionsByLine(53), [0, 0, 1, 1, 0, 1, 0, 0, 0]);
  });

  test('a bad line made in idle state mid-line: the next g-access reads $38FF (the DMA-delay fetch)', () => {
    // Sprite 0 (24 opaque pixels) over column 38 (X 328) of line $32; idle byte $3FFF empty,
    // $38FF = $81. $D011 = $13 (YSCROLL 3: line $32 is idle, before the first bad line).
    const seen = (k: number): number => {
      const { vic, mem, unit } = rig(72, 0, FULL, FULL);
      vic[0x10] = 0x01;
      vic[0x01] = 0x31;
      vic[0x15] = 0x01;
      vic[0x11] = 0x13;
      mem[0x38ff] = 0x81;
      const t = line(0x32) + k;
      unit.beforeWrite(0x11, 0x1a, t); // YSCROLL 2: line $32 becomes a bad line
      vic[0x11] = 0x1a;
      return unit.peek(0x1f, line(0x33));
    };
    assert.equal(seen(52), 0x01, 'written in clock 52: the g-access of clock 53 is column 38');
    assert.equal(seen(20), 0x00, 'written earlier: column 38 shows the (blank) display data');
  });

  test('a memory write mid-line reaches the g-accesses after its clock, not the ones before', () => {
    // Sprite 0's first 8 pixels at X 104-111: column 10 of line 51 (idle state, DEN off: every
    // g-access reads $3FFF), fetched in clock 25 of the line. $3FFF is empty until the write.
    const seen = (k: number): number => {
      const { mem, unit } = rig(104, 0, FIRST_EIGHT, NONE);
      const t = line(51) + k;
      unit.beforeMemoryWrite(t);
      mem[0x3fff] = 0xff;
      return unit.peek(0x1f, line(52));
    };
    assert.equal(seen(24), 0x01, 'written in clock 24: the g-access of clock 25 reads $FF');
    assert.equal(seen(25), 0x00, 'written in clock 25: its g-access came first (phi1) and read $00');
    // The pixels are worked out only at the peek, after the write: column 10 must still show the
    // byte its g-access fetched, not memory as it is then.
    assert.equal(seen(40), 0x00, 'written later in the line: column 10 was fetched long before');
  });

  test('a sprite shows nothing, and fetches nothing, while it is not enabled', () => {
    const { vic, unit } = rig(77, 100, FULL, FIRST_PIXEL);
    vic[0x15] = 0x01;
    assert.equal(unit.peek(0x1e, line(60)), 0);
    assert.ok(!unit.idle, 'sprite 0 alone is fetched and shown');
    vic[0x15] = 0;
    unit.catchUp(line(400));
    assert.ok(unit.idle, 'its DMA ended after 21 rows and nothing restarted it');
  });
});

describe('VIC-II interrupt output (PAL)', () => {
  function vicWithLog(): { vic: VicII; ram: Uint8Array; log: [boolean, number][] } {
    const ram = new Uint8Array(0x10000);
    const log: [boolean, number][] = [];
    const vic = new VicII(
      {
        ram,
        chargen: new Uint8Array(0x1000),
        colorRam: new Uint8Array(0x400),
        vicBank: () => 0,
        setIrq: (active, at) => log.push([active, at]),
      },
      L,
      312,
    );
    vic.reset(0);
    return { vic, ram, log };
  }

  test('an acknowledging $D019 write releases the line one clock after the write', () => {
    const { vic, log } = vicWithLog();
    vic.write(0x12, 10, 1); // raster compare: line 10
    vic.write(0x1a, 0x01, 2);
    vic.handleEvents(line(10) + 5);
    assert.deepEqual(log.at(-1), [true, line(10)], 'the match pulls the line low at the line start');
    vic.write(0x19, 0x01, 700); // the write is clock 699
    assert.deepEqual(log.at(-1), [false, 700]);
  });

  test('the sprite-sprite collision interrupt rises at the clock after the colliding pixels', () => {
    const { vic, ram, log } = vicWithLog();
    ram[0x07f8] = 0x20;
    ram[0x07f9] = 0x21;
    for (let r = 0; r < 21; r++) {
      ram.set([0xff, 0xff, 0xff], 0x0800 + 3 * r);
      ram.set([0x80, 0x00, 0x00], 0x0840 + 3 * r);
    }
    let now = 1;
    for (const [reg, value] of [
      [0x18, 0x14],
      [0x00, 77],
      [0x02, 100],
      [0x01, 50],
      [0x03, 50],
      [0x15, 0x03],
      [0x1a, 0x04],
    ] as const) {
      vic.write(reg, value, now++);
    }
    // Instruction boundaries every three clocks, as the machine calls it between instructions.
    for (now = 10; now < line(52) && !log.some(([active]) => active); now += 3) {
      if (now >= vic.nextEvent) vic.handleEvents(now);
    }
    assert.deepEqual(
      log.find(([active]) => active),
      [true, line(51) + 26],
    );
  });
});

describe('VIC-II revision', () => {
  test("the 8565 ('new') latches the light pen X one pixel pair earlier than the 6569 ('old')", () => {
    const x = (revision: 'old' | 'new') => {
      const m = new C64Machine({ vicRevision: revision });
      const at = line(100) + 30;
      m.vicII.lightPenInput(true, at);
      return [m.vicII.regs[0x13]!, m.vicII.regs[0x14]!] as const;
    };
    const [oldX, oldY] = x('old');
    const [newX, newY] = x('new');
    assert.equal(oldY, 100);
    assert.equal(newY, 100);
    assert.equal(newX, oldX - 1);
  });

  test('an unknown revision is refused by name', () => {
    assert.throws(() => new C64Machine({ vicRevision: '8565' as never }), /vicRevision must be 'old' or 'new'; got "8565"/);
  });
});

describe('VIC-II collision latches seen by a debugger', () => {
  test('a peek of $D01E shows the latch without clearing it; the CPU read clears it', () => {
    const m = new C64Machine();
    m.poke(0xd018, 0x14);
    m.ram[0x07f8] = 0x20;
    m.ram[0x07f9] = 0x20;
    m.ram.fill(0xff, 0x0800, 0x0840);
    for (const [addr, v] of [
      [0xd000, 100],
      [0xd002, 110],
      [0xd001, 80],
      [0xd003, 80],
      [0xd015, 0x03],
    ] as const) {
      m.poke(addr, v);
    }
    m.run(2 * m.cyclesPerFrame);
    assert.equal(m.peek(0xd01e), 0x03);
    assert.equal(m.peek(0xd01e), 0x03, 'still latched after a peek');
    m.ram.set([0xad, 0x1e, 0xd0], 0xc000); // LDA $D01E
    m.cpu.pc = 0xc000;
    m.cpu.p |= 0x04;
    m.stepInstruction();
    assert.equal(m.cpu.a, 0x03);
    m.poke(0xd015, 0x00); // no sprites from here: nothing collides again
    assert.equal(m.peek(0xd01e), 0x00, 'cleared by the CPU read');
  });
});
