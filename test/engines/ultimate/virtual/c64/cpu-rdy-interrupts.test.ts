// The interrupt poll while RDY holds the 6510 (the VIC-II's BA low for sprite DMA or a bad line):
// only the CPU's own clocks count towards the two-clock delay (three after a taken branch that
// stays in its page); a line that goes low while the CPU is held counts as one clock when it runs
// again, except during SEI; CLI whose second cycle is held lets the IRQ in right after it. These
// are x64sc's rules and the real C64's as VICE-testprogs interrupts/irqdma measured them. First a
// flat bus holds the CPU on reads in scripted clocks, as the machine does when BA is low; then the
// machine itself, where sprite 0's DMA holds a chain of SEI/CLI (the clocks found by tracing it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cpu6510, IRQ_SOURCE_EXTERNAL } from '../../../../../engines/ultimate/virtual/c64/cpu6510.js';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';
import { acme, FlatBus } from './helpers.js';

/** A flat bus whose reads wait while BA is low: `lowFrom..lowTo` in clocks counted from `t0`. */
class HeldBus extends FlatBus {
  cpu: Cpu6510 | undefined;
  t0 = 0;
  lowFrom = Number.POSITIVE_INFINITY;
  lowTo = Number.NEGATIVE_INFINITY;

  override read(addr: number): number {
    const cpu = this.cpu!;
    const now = cpu.cycles - 1 - this.t0;
    if (now >= this.lowFrom && now <= this.lowTo) cpu.hold(cpu.cycles - 1, this.t0 + this.lowTo);
    return super.read(addr);
  }
}

interface Outcome {
  /** The return address the IRQ pushed: where the interrupted program continues (0 = no IRQ). */
  returnTo: number;
  /** The clock (from t0) of the handler's first opcode fetch. */
  handlerAt: number;
}

/**
 * Run `body` (acme source at $0400 after a SEI or CLI prologue) with the IRQ line low from
 * clock `irqAt` and BA low over `hold` (clocks from t0 = the first clock of `body`).
 */
function run(body: string, opts: { i: 0 | 1; irqAt: number; hold?: [number, number]; nmi?: boolean }): Outcome {
  const source = `
!cpu 6510
* = $0400
${body}
        nop
        nop
        nop
        nop
        !byte $02
irq:    tsx
        lda $0102,x
        sta $11
        lda $0103,x
        sta $12
        !byte $02
`;
  const prog = acme(source, 0x0400);
  const bus = new HeldBus();
  bus.mem.set(prog.bytes, 0x0400);
  const held = new Cpu6510(bus);
  held.pc = 0x0400;
  held.sp = 0xff;
  held.p = 0x20 | (opts.i << 2);
  bus.cpu = held;
  const handler = prog.labels.get('irq')!;
  bus.mem[0xfffe] = handler & 0xff;
  bus.mem[0xffff] = handler >> 8;
  bus.mem[0xfffa] = handler & 0xff;
  bus.mem[0xfffb] = handler >> 8;
  bus.t0 = held.cycles;
  if (opts.hold) [bus.lowFrom, bus.lowTo] = opts.hold;
  if (opts.nmi) held.triggerNmi(bus.t0 + opts.irqAt);
  else held.setIrqSource(IRQ_SOURCE_EXTERNAL, true, bus.t0 + opts.irqAt);
  let handlerAt = -1;
  while (!held.jammed && held.cycles < bus.t0 + 200) {
    if (held.pc === handler && handlerAt < 0) handlerAt = held.cycles - bus.t0;
    held.step();
  }
  return { returnTo: bus.mem[0x11]! | (bus.mem[0x12]! << 8), handlerAt };
}

// Bodies start at $0400. NOP = 2 clocks, LDA zp = 3, BEQ taken in-page = 3.

test('without holds the poll is the second-to-last clock (the reference for the cases below)', () => {
  // LDA $10 at clocks 0-2, NOP at 3-4: low at clock 1 -> taken after the LDA (entry clocks 3-9).
  const a = run('        lda $10', { i: 0, irqAt: 1 });
  assert.deepEqual(a, { returnTo: 0x0402, handlerAt: 10 });
  // Low at clock 2 (the LDA's last): the NOP runs first.
  assert.equal(run('        lda $10', { i: 0, irqAt: 2 }).returnTo, 0x0403);
});

test('held clocks do not count: a line low from the clock before a held last cycle waits an instruction', () => {
  // LDA $10: opcode 0, operand 1, read at 2 held through 5, retried at 6. Low from clock 1: own
  // clocks 1 and 6 -> two clocks, taken after the LDA (handler at 7 + 7 = 14).
  assert.deepEqual(run('        lda $10', { i: 0, irqAt: 1, hold: [2, 5] }), { returnTo: 0x0402, handlerAt: 14 });
  // Taken branch in its page: opcode 0, operand 1, dummy read at 2 held through 5, retried at 6.
  // Low from clock 1 (the branch's poll clock without the hold): own clocks 1 and 6 make two,
  // the branch needs three -> the NOP after it runs first (counting all clocks would take it).
  const branch = `
        lda #0
        beq +
+`;
  // LDA #0 takes clocks 0-1; BEQ is at 2-4; hold its dummy read (clock 4) through 7, retry at 8.
  const r = run(branch, { i: 0, irqAt: 3, hold: [4, 7] });
  assert.equal(r.returnTo, 0x0405, 'the NOP after the branch ran before the IRQ');
  assert.equal(r.handlerAt, 9 + 2 + 7);
  // Low from the branch's opcode fetch (clock 2): three own clocks by its end -> taken after it.
  assert.equal(run(branch, { i: 0, irqAt: 2, hold: [4, 7] }).returnTo, 0x0404);
});

test('a line that goes low while the CPU is held counts one clock when it runs again', () => {
  // LDA $10 with its read held over 2-5 (retry 6): low from clock 4 (inside the hold) -> latched,
  // plus the retried read = two clocks: taken after the LDA.
  assert.equal(run('        lda $10', { i: 0, irqAt: 4, hold: [2, 5] }).returnTo, 0x0402);
  // Low from the retry clock itself: one clock only, the NOP runs first.
  assert.equal(run('        lda $10', { i: 0, irqAt: 6, hold: [2, 5] }).returnTo, 0x0403);
});

test('SEI held in its second cycle latches nothing: an IRQ arriving in the hold is not taken', () => {
  // SEI at clocks 0-1, its second cycle held 1-4, retried at 5. Low from clock 3.
  assert.equal(run('        sei', { i: 0, irqAt: 3, hold: [1, 4] }).returnTo, 0, 'SEI held: no IRQ');
  // The same hold on a NOP latches the IRQ: taken after the NOP.
  assert.equal(run('        nop', { i: 0, irqAt: 3, hold: [1, 4] }).returnTo, 0x0401, 'NOP held: taken after it');
  // A line low before the SEI's poll is taken after the SEI, held or not (I is set after the poll).
  assert.equal(run('        sei', { i: 0, irqAt: 0, hold: [1, 4] }).returnTo, 0x0401);
});

test('an NMI edge inside a hold is latched whatever the instruction, SEI included', () => {
  // Same SEI hold as above (1-4, retry 5), the NMI edge at clock 3: taken after the SEI.
  assert.deepEqual(run('        sei', { i: 0, irqAt: 3, hold: [1, 4], nmi: true }), { returnTo: 0x0401, handlerAt: 13 });
  // An edge at the retry clock counts one clock only: the NOP after the SEI runs first.
  assert.equal(run('        sei', { i: 0, irqAt: 5, hold: [1, 4], nmi: true }).returnTo, 0x0402);
});

test('CLI held in its second cycle lets a waiting IRQ in right after it', () => {
  // I set, the line low long before: CLI at 0-1 (second cycle held 1-4, retried at 5).
  assert.equal(run('        cli', { i: 1, irqAt: -10, hold: [1, 4] }).returnTo, 0x0401, 'held CLI: taken after the CLI');
  // Not held: the poll after CLI still sees I set; the next instruction runs first.
  assert.equal(run('        cli', { i: 1, irqAt: -10 }).returnTo, 0x0402, 'CLI not held: one instruction later');
  // PLP clearing I keeps its one-instruction delay even when held (x64sc: only CLI is special).
  const plp = `
        lda #0
        pha
        plp`;
  // LDA #0 0-1, PHA 2-4, PLP 5-8: hold its pull (clock 8) through 10.
  assert.equal(run(plp, { i: 1, irqAt: -10, hold: [8, 10] }).returnTo, 0x0405);
});

// ---- the same on the machine: sprite 0's DMA holds a chain of SEI/CLI --------------------------

const CHAIN = 0xc000;
const PAIRS = 400;
const BA_LOW = 1 << 28;

interface Traced {
  addr: number;
  op: number;
  start: number;
  end: number;
}

/**
 * A machine at READY running `SEI; LDA #$7F; STA $DC0D; LDA $DC0D; [LDA $02 when pad]` and then
 * SEI/CLI pairs across the lines where sprite 0 (Y = $60, display off) takes the bus, with its
 * IRQ vector on a handler that stores the return address at $02/$03 and jams.
 */
function chainMachine(pad: boolean, onBusCycle?: (m: C64Machine, e: number) => void): { m: C64Machine; first: number } {
  const prologue = [0x78, 0xa9, 0x7f, 0x8d, 0x0d, 0xdc, 0xad, 0x0d, 0xdc, ...(pad ? [0xa5, 0x02] : [])];
  const first = CHAIN + prologue.length;
  const handler = first + 2 * PAIRS + 1;
  const code = [...prologue, ...Array.from({ length: PAIRS }, () => [0x78, 0x58]).flat(), 0x02];
  code.push(0xba, 0xbd, 0x02, 0x01, 0x85, 0x02, 0xbd, 0x03, 0x01, 0x85, 0x03, 0x02); // handler
  let m: C64Machine | undefined;
  m = new C64Machine({ onBusCycle: onBusCycle && ((e) => m && onBusCycle(m, e)) });
  m.writeMem(CHAIN, Uint8Array.from(code));
  m.poke(0x01, 0x35); // RAM at $E000-$FFFF: the IRQ vector is ours
  m.writeMem(0xfffe, Uint8Array.of(handler & 0xff, handler >> 8));
  m.writeMem(0xd011, Uint8Array.of(0x0b)); // display off: no bad lines, only the sprite's DMA
  m.writeMem(0xd015, Uint8Array.of(0x01));
  m.writeMem(0xd001, Uint8Array.of(0x60));
  m.cpu.pc = CHAIN;
  m.cpu.p |= 0x04;
  m.run(1000, (mm) => mm.cpu.pc === first);
  return { m, first };
}

/** Each instruction of the chain with its clocks, and the clocks where a hold began (BA low on a read). */
function traceChain(pad: boolean): { steps: Traced[]; holdStarts: Set<number> } {
  const holdStarts = new Set<number>();
  const { m, first } = chainMachine(pad, (mm, e) => {
    if ((e & BA_LOW) === 0 && (e & 0x80000000) !== 0) holdStarts.add(mm.cpu.cycles - 1);
  });
  const steps: Traced[] = [];
  while (m.cpu.pc >= first && m.cpu.pc < first + 2 * PAIRS) {
    const start = m.cpu.cycles;
    const addr = m.cpu.pc;
    m.stepInstruction();
    steps.push({ addr, op: m.peek(addr), start, end: m.cpu.cycles });
  }
  return { steps, holdStarts };
}

/** The chain instruction with opcode `op` whose second cycle sprite DMA held, for some pad. */
function heldSecondCycle(op: number): { pad: boolean; step: Traced } {
  for (const pad of [false, true]) {
    const { steps, holdStarts } = traceChain(pad);
    const step = steps.find((s) => s.op === op && s.end - s.start > 2 && holdStarts.has(s.start + 1));
    if (step) return { pad, step };
  }
  throw new Error(`no ${op.toString(16)} with a held second cycle in the chain`);
}

/** Run the chain with the IRQ line low from clock `at`: the return address the IRQ pushed. */
function chainIrq(pad: boolean, at: number): number {
  const { m } = chainMachine(pad);
  m.cpu.setIrqSource(IRQ_SOURCE_EXTERNAL, true, at);
  m.run(4 * PAIRS * 2);
  assert.equal(m.lastStop, 'jam');
  return m.ram[0x02]! | (m.ram[0x03]! << 8);
}

test('on the machine: a CLI whose second cycle sprite 0 holds takes a waiting IRQ right after it', () => {
  const { pad, step } = heldSecondCycle(0x58);
  // Low from the SEI's last cycle before it (too late for the SEI's poll): taken after the CLI,
  // not one instruction later as without the hold.
  assert.equal(chainIrq(pad, step.start - 1), step.addr + 1);
});

test('on the machine: an IRQ that arrives while sprite 0 holds SEI is not taken after the SEI', () => {
  const { pad, step } = heldSecondCycle(0x78);
  // Low from the first held clock: no latch during SEI, so I is set first; the IRQ waits for the
  // next SEI/CLI pair (taken after its SEI, as CLI delays by one instruction).
  assert.equal(chainIrq(pad, step.start + 1), step.addr + 3);
});
