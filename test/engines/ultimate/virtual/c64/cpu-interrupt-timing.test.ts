// When the 6510 sees an interrupt: it polls IRQ/NMI in an instruction's second-to-last cycle, so
// a line that goes low in the last cycle waits for the next instruction; a taken branch without
// page crossing polls one cycle earlier still (its third cycle has none). The source says at
// which clock it pulled the line (`setIrqSource`), as the CIA and VIC models do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IRQ_SOURCE_EXTERNAL } from '../../../../../engines/ultimate/virtual/c64/cpu6510.js';
import { acme, flatCpu } from './helpers.js';

const SOURCE = `
!cpu 6510
* = $0400
        cli
        nop                 ; clocks 0-1 after the CLI has run
        lda $10             ; 3 clocks
        beq +               ; taken, same page: 3 clocks
+       nop
        nop
        !byte $02
irq:    tsx
        lda $0102,x
        sta $11
        lda $0103,x
        sta $12
        !byte $02
`;

/** Assert the IRQ line at `clock` (counted from the NOP after CLI); where did it interrupt? */
function interruptedAt(clock: number, releasedAt?: number): number {
  const prog = acme(SOURCE, 0x0400);
  const { cpu, bus } = flatCpu(prog.bytes, 0x0400);
  bus.mem[0xfffe] = prog.labels.get('irq')! & 0xff;
  bus.mem[0xffff] = prog.labels.get('irq')! >> 8;
  cpu.p = 0x24;
  cpu.step(); // CLI
  const t0 = cpu.cycles;
  cpu.setIrqSource(IRQ_SOURCE_EXTERNAL, true, t0 + clock);
  if (releasedAt !== undefined) cpu.setIrqSource(IRQ_SOURCE_EXTERNAL, false, t0 + releasedAt);
  while (!cpu.jammed && cpu.cycles < t0 + 100) cpu.step();
  return bus.mem[0x11]! | (bus.mem[0x12]! << 8);
}

test('an IRQ in the second-to-last cycle is taken after the instruction, in the last cycle one instruction later', () => {
  // NOP = clocks 0-1, LDA zp = 2-4, BEQ (taken, no page cross) = 5-7, NOP at $0406 = 8-9.
  assert.equal(interruptedAt(0), 0x0402, 'low from the NOP poll: taken before LDA');
  assert.equal(interruptedAt(1), 0x0404, 'low in the NOP last cycle: LDA runs first');
  assert.equal(interruptedAt(3), 0x0404, 'low in the LDA second-to-last cycle: taken after it');
  assert.equal(interruptedAt(4), 0x0406, 'low in the LDA last cycle: the branch runs first');
});

test('a taken branch without page crossing delays an IRQ of its second cycle by one instruction', () => {
  // BEQ polls in clock 6 (its operand fetch); clock 6 itself is already too late.
  assert.equal(interruptedAt(5), 0x0406, 'low before the branch poll: taken after the branch');
  assert.equal(interruptedAt(6), 0x0407, 'low in the branch second cycle: the NOP after it runs first');
});

test('a line released after the poll still takes the IRQ (the poll latched it)', () => {
  // Low in clock 0 (the NOP's poll), high again from clock 1: the IRQ is taken after the NOP.
  assert.equal(interruptedAt(0, 1), 0x0402);
  // Low only in clock 1 (after the NOP's poll, released before the LDA's poll in clock 3): no IRQ.
  assert.equal(interruptedAt(1, 2), 0);
});
