// The bad-line count behind the vice target's crash cycles (engines/ultimate/vice/vic-stall.ts),
// checked against stops measured on x64sc 3.10 (PAL, YSCROLL 3, no sprites): NOP NOP BRK autostarted
// at random raster positions and stopped at the KERNAL's BRK dispatch $FF55, 34 CPU cycles after
// the program's first instruction; and NOP JAM, stopped 4 cycles after it. Each row is a measured
// stop with the clocks x64sc's own clock counted from the program's start to it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clocksBeforeStop, cycles } from '../../../../engines/ultimate/vice/vic-stall.js';

/** BRK, then the KERNAL's PHA TXA PHA TYA PHA TSX LDA $0104,X AND #$10 BEQ before $FF55. */
const KERNAL_BRK = cycles('RRWWWRRRRWRRRRWRRRRWRRRRRRRRRR');
const JAM = cycles('RR');
const vic = { yscroll: 3, spritesEnabled: false };

describe('clocks back from a stop on x64sc, bad lines counted', () => {
  it('no bad line near: the pattern length (measured: 34 clocks from the start, the BRK at 4)', () => {
    // start line 78 cycle 20, stop line 78 cycle 54 — line 78 is no bad line (78 & 7 = 6)
    assert.equal(clocksBeforeStop({ line: 78, cycle: 54 }, KERNAL_BRK, vic), 30);
    // the frame wraps: start line 311 cycle 43, stop line 0 cycle 14
    assert.equal(clocksBeforeStop({ line: 0, cycle: 14 }, KERNAL_BRK, vic), 30);
  });

  it('a bad line after the BRK: 43 clocks more (measured: start 154/47, stop 155/61, 77 clocks)', () => {
    // 77 − 73 = the BRK 4 clocks after the start, as without the stall.
    assert.equal(clocksBeforeStop({ line: 155, cycle: 61 }, KERNAL_BRK, vic), 73);
    assert.equal(clocksBeforeStop({ line: 51, cycle: 56 }, KERNAL_BRK, vic), 73);
  });

  it('a bad line before the BRK (in the NOPs): the BRK came 47 clocks after the start (235/8 → 236/22)', () => {
    assert.equal(clocksBeforeStop({ line: 236, cycle: 22 }, KERNAL_BRK, vic), 30);
  });

  it('a stall that hides where the sequence began is not guessed (155/2 → 156/16)', () => {
    // The BA window opened at the BRK's vector read: a start one clock later explains the stop too.
    assert.equal(clocksBeforeStop({ line: 156, cycle: 16 }, KERNAL_BRK, vic), null);
  });

  it('a JAM: 2 clocks (start 159/22, stop 159/26), or 45 when the NOP ran into BA (219/11 → 219/58)', () => {
    assert.equal(clocksBeforeStop({ line: 159, cycle: 26 }, JAM, vic), 2);
    // The NOP's fetch met BA low at cycle 11 and ran at 54; the JAM's fetch at 56, its read at 57: the JAM ran clean.
    assert.equal(clocksBeforeStop({ line: 219, cycle: 58 }, JAM, vic), 2);
  });

  it('with a sprite enabled nothing is claimed; a bad pattern letter is refused', () => {
    assert.equal(clocksBeforeStop({ line: 78, cycle: 54 }, KERNAL_BRK, { yscroll: 3, spritesEnabled: true }), null);
    assert.throws(() => cycles('RX'), /a bus cycle is R or W, got "X"/);
  });
});
