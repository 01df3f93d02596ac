// When the REU's controller writes C64 memory around the VIC-II's DMA (PAL, 63 clocks a line): its
// writes go on through the first two clocks of BA low before a bad line, but only through the first
// before the sprites' DMA — a real 1750 writes 45 bytes in a line with all eight sprites on.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RecBusTiming } from '../../../../../engines/ultimate/virtual/c64/rec-bus-timing.js';
import { VicBusTiming } from '../../../../../engines/ultimate/virtual/c64/vic-timing.js';
import { VicSprites } from '../../../../../engines/ultimate/virtual/c64/vic-sprites.js';

const L = 63;

/** The clocks of `count` REC writes (a fetch) starting at clock `start`. */
function writeClocks(vic: Uint8Array, start: number, count: number): number[] {
  // The sprite sequencer on the same registers decides which sprites fetch (one DMA model).
  const sprites = new VicSprites({ vic, vicFetch: () => 0, colorOf: () => 0, badLinesEnabled: () => false }, L, 312);
  const timing = new VicBusTiming({ vic }, L, 312, (ls, now) => sprites.dmaForFetches(ls, now));
  timing.reset(0);
  sprites.reset(0);
  const cpu = { cycles: start };
  const rec = new RecBusTiming({ cpu, spriteZeroTurnsOnAt: () => false }, timing);
  rec.start();
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    rec.cycle(false, false);
    out.push(cpu.cycles - 1);
  }
  return out;
}

describe('REC writes around VIC DMA (PAL)', () => {
  test('before the sprites: only in the clock BA drops; 45 writes a line with eight sprites', () => {
    const vic = new Uint8Array(0x40);
    vic[0x15] = 0xff;
    for (let n = 0; n < 8; n++) vic[1 + 2 * n] = 0x1d; // DMA from line $1D on; DEN off: no bad line
    const from = 0x1e * L + 15;
    const clocks = writeClocks(vic, 0x1e * L + 50, 70);
    // BA drops in clock 54 (cycle 55); the VIC has the bus from clock 57 to clock 9 of the next line.
    assert.deepEqual(
      clocks.slice(0, 7).map((c) => c % L),
      [50, 51, 52, 53, 54, 10, 11],
    );
    const inLine = writeClocks(vic, from, 60).filter((c) => c < from + L).length;
    assert.equal(inLine, 45, 'from clock 15 of one line to clock 15 of the next');
  });

  test('before a bad line: through the first two clocks of BA low', () => {
    const vic = new Uint8Array(0x40);
    vic[0x11] = 0x1b; // DEN, YSCROLL 3: line $33 is a bad line
    const clocks = writeClocks(vic, 0x33 * L + 8, 6).map((c) => c % L);
    // BA drops in clock 11 (cycle 12), the VIC has the bus from clock 14 to clock 53.
    assert.deepEqual(clocks, [8, 9, 10, 11, 12, 54]);
  });
});
