// An REU transfer in the debug stream: the REC drives the bus while the CPU is halted, so the trace
// holds its accesses (address, data, R/W in the CPU's half) and one VIC half for every clock of the
// transfer. Before, a transfer's clocks were missing from the stream: a trace-based observer counted
// too few clocks after one and kept the old bytes where a fetch had written C64 RAM (a memory
// expectation read from the trace then saw RAM's power-on pattern instead of the REU's bytes).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';
import { dramPowerOnPattern } from '../../../../../engines/ultimate/virtual/c64/rec8726.js';

const PHI2 = 0x80000000;
const READ = 0x01000000;

/** `10 SYS 2061`, then: fetch 4 bytes REU $000000 → C64 $C100 (command $91), then $00 to $D7FF and JMP *. */
const PROGRAM = Uint8Array.from([
  0x01, 0x08, 0x0b, 0x08, 0x0a, 0x00, 0x9e, 0x32, 0x30, 0x36, 0x31, 0x00, 0x00, 0x00,
  // LDA #$00 STA $DF02 LDA #$C1 STA $DF03 LDA #$00 STA $DF04 STA $DF05 STA $DF06 STA $DF08 STA $DF0A
  0xa9, 0x00, 0x8d, 0x02, 0xdf, 0xa9, 0xc1, 0x8d, 0x03, 0xdf, 0xa9, 0x00, 0x8d, 0x04, 0xdf, 0x8d, 0x05, 0xdf, 0x8d, 0x06, 0xdf, 0x8d, 0x08,
  0xdf, 0x8d, 0x0a, 0xdf,
  // LDA #$04 STA $DF07 LDA #$91 STA $DF01 LDA #$00 STA $D7FF JMP *
  0xa9, 0x04, 0x8d, 0x07, 0xdf, 0xa9, 0x91, 0x8d, 0x01, 0xdf, 0xa9, 0x00, 0x8d, 0xff, 0xd7, 0x4c, 0x3d, 0x08,
]);

test('an REU fetch shows in the "6510 & VIC" stream: its four writes to $C100 and a VIC half for every clock', () => {
  const machine = new C64Machine({});
  machine.setReu(256);
  machine.bootLoad(PROGRAM, 'run');
  // Run up to the program (BASIC's RUN), then stream the rest.
  machine.run(5_000_000, (m) => m.cpu.pc === 0x080d);
  assert.equal(machine.cpu.pc, 0x080d, 'reached the program');
  const entries: number[] = [];
  machine.onBusCycle = (e) => entries.push(e >>> 0);
  machine.debugStreamMode = '6510 & VIC';
  const c0 = machine.cpu.cycles;
  for (let i = 0; i < 40 && (machine.cpu.pc as number) !== 0x083d; i++) machine.stepInstruction();
  assert.equal(machine.cpu.pc, 0x083d, 'at JMP * after the verdict');
  const clocks = machine.cpu.cycles - c0;
  const vicHalves = entries.filter((e) => (e & PHI2) === 0).length;
  assert.equal(vicHalves, clocks, "one VIC half for every clock, the transfer's included");
  const writes = entries.filter((e) => (e & PHI2) !== 0 && (e & READ) === 0).map((e) => [e & 0xffff, (e >>> 16) & 0xff]);
  const pattern = dramPowerOnPattern(4);
  assert.deepEqual(
    writes.filter(([a]) => a! >= 0xc100 && a! <= 0xc103),
    [0, 1, 2, 3].map((i) => [0xc100 + i, pattern[i]]),
    "the REC's writes, in order, with the REU's bytes",
  );
  assert.deepEqual([...machine.ram.subarray(0xc100, 0xc104)], [...pattern]);
});
