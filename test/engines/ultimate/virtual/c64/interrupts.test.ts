// IRQ and NMI on the bare CPU, with programs assembled by acme: the I flag masks IRQ but not NMI,
// the IRQ line is level-triggered and NMI edge-triggered, CLI/SEI/PLP take effect one
// instruction late for the interrupt poll (as on the NMOS 6502), RTI resumes exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IRQ_SOURCE_EXTERNAL } from '../../../../../engines/ultimate/virtual/c64/cpu6510.js';
import { acme, flatCpu } from './helpers.js';

// Main program at $0400; the IRQ handler counts into $10 and records the interrupted PC (from
// the stack) in $11/$12; the NMI handler counts into $20.
const SOURCE = `
!cpu 6510
* = $0400
main:   cli
after_cli:
        nop
after_nop:
        nop
        sei
after_sei:
        nop
        nop
        !byte $02
irq:    inc $10
        tsx
        lda $0102,x
        sta $11
        lda $0103,x
        sta $12
        lda #0
        sta $30             ; the handler releases the line (like acknowledging a chip)
        rti
nmi:    inc $20
        rti
`;

function setup() {
  const prog = acme(SOURCE, 0x0400);
  const { cpu, bus } = flatCpu(prog.bytes, 0x0400);
  const label = (n: string) => prog.labels.get(n)!;
  bus.mem[0xfffe] = label('irq') & 0xff;
  bus.mem[0xffff] = label('irq') >> 8;
  bus.mem[0xfffa] = label('nmi') & 0xff;
  bus.mem[0xfffb] = label('nmi') >> 8;
  cpu.p = 0x24; // I set
  return { cpu, bus, label };
}

test('IRQ is masked by I; after CLI it is taken one instruction later; the handler returns exactly', () => {
  const { cpu, bus, label } = setup();
  bus.mem[0x30] = 1;
  cpu.irqLines = IRQ_SOURCE_EXTERNAL;
  // while the line is low the CPU polls it before each instruction: release it when the handler clears $30
  while (!cpu.jammed) {
    cpu.step();
    if (bus.mem[0x30] === 0) cpu.irqLines = 0;
  }
  assert.equal(bus.mem[0x10], 1, 'one interrupt');
  const interrupted = bus.mem[0x11]! | (bus.mem[0x12]! << 8);
  assert.equal(interrupted, label('after_nop'), 'the instruction after CLI ran before the IRQ was taken');
});

test('an IRQ pending at SEI is still taken right after it (the poll saw I clear)', () => {
  const { cpu, bus, label } = setup();
  cpu.pc = label('after_cli'); // I clear, no CLI involved
  cpu.p = 0x20;
  bus.mem[0x30] = 1;
  // Interrupts are polled between instructions, and a poll belongs to the instruction before it:
  // a line that is low right after SEI was seen by SEI's own poll, which still had I clear.
  while (cpu.pc !== label('after_sei') - 1) cpu.step();
  cpu.step(); // SEI
  cpu.irqLines = IRQ_SOURCE_EXTERNAL;
  assert.equal(cpu.step(), 7, 'the IRQ sequence');
  assert.equal(cpu.pc, label('irq'));
  assert.equal(bus.mem[0x1fe]! | (bus.mem[0x1ff]! << 8), label('after_sei'));
});

test('NMI is taken with I set, once per edge, with B clear on the stack', () => {
  const { cpu, bus } = setup();
  cpu.pc = 0x0401; // skip the CLI: I stays set
  cpu.triggerNmi();
  const n = cpu.step();
  assert.equal(n, 7);
  assert.equal(bus.mem[0x1fd]! & 0x10, 0, 'B clear in the pushed P');
  while (!cpu.jammed) cpu.step();
  assert.equal(bus.mem[0x20], 1, 'one NMI for one edge');
  assert.equal(bus.mem[0x10], 0, 'no IRQ');
});
