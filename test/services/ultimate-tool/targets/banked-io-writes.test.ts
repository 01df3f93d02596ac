// The bus-trace observer counts a write to $D7FF as the debug register only when the CPU sees I/O
// there: with $01 = $34 the store goes to the RAM under the I/O area (the virtual C64 keeps its
// register untouched too), as VICE's vsp_bug does when it fills all 64 KiB. The port is followed
// from the trace ($00/$01 writes); Ultimax mode (GAME# low, EXROM# high) always shows I/O.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ioVisible, portLines } from '../../../../engines/ultimate/index.js';
import { feedVirtualC64 } from '../../../helpers/c64-trace.js';
import { verdictClassify } from '../../../../services/ultimate-tool/runs/run-protocol.js';
import { BusTraceObserver } from '../../../../services/ultimate-tool/targets/bus-trace-observer.js';

/** A PRG at $0801: `10 SYS 2061`, then `code` at $080D. */
function prg(code: number[]): Uint8Array {
  return Uint8Array.from([0x01, 0x08, 0x0b, 0x08, 0x0a, 0x00, 0x9e, 0x32, 0x30, 0x36, 0x31, 0x00, 0x00, 0x00, ...code]);
}

function observerFor(program: Uint8Array): BusTraceObserver {
  return new BusTraceObserver({
    prg: program,
    protocol: { classify: verdictClassify({ pass: [0x00], fail: [0xff, 0x5a] }), crash: { jam: true, brk: 'unhandled', outsideCode: [] } },
    snapshot: [],
    onMarker: () => {},
  });
}

test('the PLA rule: I/O at $D000 needs CHAREN and LORAM or HIRAM, or Ultimax; inputs read high', () => {
  assert.equal(ioVisible(0x37), true);
  assert.equal(ioVisible(0x35), true);
  assert.equal(ioVisible(0x36), true);
  assert.equal(ioVisible(0x34), false, 'LORAM and HIRAM low: RAM');
  assert.equal(ioVisible(0x33), false, 'CHAREN low: character ROM');
  assert.equal(ioVisible(0x34, true), true, 'Ultimax always shows I/O');
  // $01 = $30 written while the direction register makes bits 0–2 inputs: the pull-ups win.
  assert.equal(portLines(0x28, 0x30), 0x07);
  assert.equal(portLines(0x2f, 0x34), 0x04);
});

test('$5A stored to $D7FF with $01 = $34 is no write of the register; the $00 after $01 = $37 ends the run', () => {
  // SEI ; LDA #$34 ; STA $01 ; LDA #$5A ; STA $D7FF ; LDA #$37 ; STA $01 ; CLI ; LDA #$00 ; STA $D7FF ; JMP *
  const program = prg([
    0x78, 0xa9, 0x34, 0x85, 0x01, 0xa9, 0x5a, 0x8d, 0xff, 0xd7, 0xa9, 0x37, 0x85, 0x01, 0x58, 0xa9, 0x00, 0x8d, 0xff, 0xd7, 0x4c, 0x21,
    0x08,
  ]);
  const observer = observerFor(program);
  const machine = feedVirtualC64(observer, program);
  assert.equal(observer.end?.outcome, 'ended', JSON.stringify(observer.end));
  assert.ok(observer.end?.outcome === 'ended');
  assert.equal(observer.end.verdict, 'pass');
  assert.deepEqual(
    observer.writes.map((w) => w.value),
    [0x00],
  );
  // The machine agrees: its register holds the $00, the RAM under it the $5A.
  assert.equal(machine.debugRegister, 0x00);
  assert.equal(machine.ram[0xd7ff], 0x5a);
});
