// Execution outside the program's code, judged from the bus trace of the virtual Ultimate 64
// (C64Machine streaming "6510 & VIC" entries into the judge's BusTraceObserver, as the ultimate
// target's receiver does): a jump to $C000 ends the run as crashed there, at the fetch's cycle; a
// program that reads data beside its code, jumps through a RAM pointer (JMP ($C100)) and lets the
// KERNAL's IRQ run (JMP ($0314)) is not a crash and passes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feedVirtualC64 } from '../../../helpers/c64-trace.js';
import { verdictClassify } from '../../../../services/ultimate-tool/runs/run-protocol.js';
import { BusTraceObserver } from '../../../../services/ultimate-tool/targets/bus-trace-observer.js';
import { OutsideCodeWatch } from '../../../../services/ultimate-tool/targets/outside-code.js';
import { prgLoadRange } from '../../../../services/ultimate-tool/targets/program-start.js';

/** A PRG at $0801: `10 SYS 2061`, then `code` at $080D. */
function prg(code: number[]): Uint8Array {
  return Uint8Array.from([0x01, 0x08, 0x0b, 0x08, 0x0a, 0x00, 0x9e, 0x32, 0x30, 0x36, 0x31, 0x00, 0x00, 0x00, ...code]);
}

/** Runs the PRG on the virtual machine (reset, DMA load, RUN) until the observer ends the run. */
function judge(program: Uint8Array, poke: Array<[number, number[]]> = []) {
  const range = prgLoadRange(program);
  assert.ok(range);
  const observer = new BusTraceObserver({
    prg: program,
    protocol: {
      classify: verdictClassify({ pass: [0x00], fail: [0xff] }),
      crash: { jam: true, brk: 'unhandled', outsideCode: [range] },
    },
    snapshot: [],
    onMarker: () => {},
  });
  feedVirtualC64(observer, program, {
    afterLoad: (machine) => {
      for (const [address, bytes] of poke) for (const [i, b] of bytes.entries()) machine.poke(address + i, b);
    },
  });
  assert.ok(observer.end, 'the run ended within 8 M cycles');
  return observer;
}

test('a JMP to $C000, outside the program, is a crash at $C000 with the cycle of that opcode fetch', () => {
  // $080D: LDA #$01 ; STA $D7FF (a marker) ; JMP $C000. At $C000 a pass write the run must never reach.
  const program = prg([0xa9, 0x01, 0x8d, 0xff, 0xd7, 0x4c, 0x00, 0xc0]);
  const o = judge(program, [[0xc000, [0xa9, 0x00, 0x8d, 0xff, 0xd7, 0x4c, 0x05, 0xc0]]]);
  assert.equal(o.end?.outcome, 'crashed');
  assert.ok(o.end?.outcome === 'crashed');
  assert.equal(o.end.crash.kind, 'outside-code');
  assert.equal(o.end.crash.pc, 0xc000);
  // LDA # (2) + STA abs (4, the write in its last cycle: 5) + JMP abs (3): the fetch at $C000 is cycle 9.
  assert.deepEqual(o.writes, [{ value: 0x01, cycle: 5 }]);
  assert.equal(o.end.crash.cycle, 9);
});

test('data read beside the code, a JMP through a RAM pointer into the code and the KERNAL IRQ are not crashes', () => {
  // $080D: CLI ; LDX #0
  // $0810: LDA $C200,X ; LDA $C201,X ; INX ; BNE $0810   (data reads outside the code, 256 times)
  // $0819: JMP ($C100)                                    ($C100 holds $0822, inside the code)
  // $081C: LDA #$FF ; STA $D7FF ; NOP                     (never reached)
  // $0822: LDY #$20
  // $0824: DEX ; BNE $0824 ; DEY ; BNE $0824              (about 41,000 cycles: IRQs run meanwhile)
  // $082A: LDA #$00 ; STA $D7FF ; JMP $082F
  const program = prg([
    0x58, 0xa2, 0x00, 0xbd, 0x00, 0xc2, 0xbd, 0x01, 0xc2, 0xe8, 0xd0, 0xf7, 0x6c, 0x00, 0xc1, 0xa9, 0xff, 0x8d, 0xff, 0xd7, 0xea, 0xa0,
    0x20, 0xca, 0xd0, 0xfd, 0x88, 0xd0, 0xfa, 0xa9, 0x00, 0x8d, 0xff, 0xd7, 0x4c, 0x2f, 0x08,
  ]);
  // The layout the comments promise.
  const at = (a: number) => program[2 + a - 0x0801];
  assert.deepEqual([at(0x0819), at(0x0822), at(0x082a), at(0x082f)], [0x6c, 0xa0, 0xa9, 0x4c]);
  const o = judge(program, [[0xc100, [0x22, 0x08]]]);
  assert.equal(o.end?.outcome, 'ended', JSON.stringify(o.end));
  assert.ok(o.end?.outcome === 'ended');
  assert.equal(o.end.verdict, 'pass');
  assert.ok((o.writes[0]?.cycle ?? 0) > 40_000, `the delay ran long enough for IRQs: ${o.writes[0]?.cycle}`);
});

test('the fetch rule: a read of A then A+1 outside the code; never in the ROMs, the zero or stack page, or after a JMP ($xxxx)', () => {
  const w = new OutsideCodeWatch([{ start: 0x0801, end: 0x08ff }]);
  const r = (a: number, d = 0, write = false, c = 0) => [a, d, write, c] as const;
  assert.deepEqual(w.fetchOutside([r(0xc000, 0xea, false, 7), r(0xc001)]), r(0xc000, 0xea, false, 7));
  assert.equal(w.fetchOutside([r(0xc000), r(0xc002)]), null, 'not consecutive');
  assert.equal(w.fetchOutside([r(0xc000), r(0xc001, 0, true)]), null, 'a write is not an operand fetch');
  assert.equal(w.fetchOutside([r(0xe000), r(0xe001)]), null, 'KERNAL ROM');
  assert.equal(w.fetchOutside([r(0xa000), r(0xa001)]), null, 'BASIC ROM');
  assert.equal(w.fetchOutside([r(0x00fb), r(0x00fc)]), null, 'zero page pointer');
  assert.equal(w.fetchOutside([r(0x0108), r(0x0109)]), null, 'stack pulls');
  assert.equal(w.fetchOutside([r(0x08ff), r(0x0900)]), null, 'the last byte of the code');
  assert.equal(w.fetchOutside([r(0x0800), r(0x0801)]), null, 'the byte before the code (an RTS dummy read)');
  // A JMP ($0314) at $0850 (inside the code): $6C, $14, $03, then the pointer's two reads.
  assert.equal(w.fetchOutside([r(0x0850, 0x6c), r(0x0851, 0x14), r(0x0852, 0x03), r(0x0314, 0x31), r(0x0315, 0xea)]), null);
  // The same pointer reads after a JMP abs ($4C) are a fetch: the program jumped to $0314.
  assert.deepEqual(w.fetchOutside([r(0x0850, 0x4c), r(0x0851, 0x14), r(0x0852, 0x03), r(0x0314, 0x31), r(0x0315, 0xea)]), r(0x0314, 0x31));
  assert.equal(new OutsideCodeWatch([]).active, false, 'no ranges: nothing checked');
});
