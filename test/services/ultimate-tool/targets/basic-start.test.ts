// Issue 31, item 2, for programs BASIC runs: a program without machine code (`10 POKE 55295,0`)
// makes no opcode fetch inside its load range, so its start is where BASIC began its first line —
// CHRGOT's read of the first statement byte (engines/ultimate/basic-start.ts). The bus-trace
// observer is fed the real virtual C64's trace (the KERNAL's RAM test at the reset reads that byte
// too); a SYS stub's program still starts at its first instruction; a BASIC program that never
// writes $D7FF has started all the same; budget.cycles runs once the start is settled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feedVirtualC64 } from '../../../helpers/c64-trace.js';
import { verdictClassify } from '../../../../services/ultimate-tool/runs/run-protocol.js';
import { BusTraceObserver } from '../../../../services/ultimate-tool/targets/bus-trace-observer.js';
import { ProgramStartDetector } from '../../../../services/ultimate-tool/targets/program-start.js';

/** A BASIC program at $0801 of one line: `10 <tokens>`. */
function basic(line: number[]): Uint8Array {
  const next = 0x0801 + 4 + line.length + 1;
  return Uint8Array.from([0x01, 0x08, next & 0xff, next >> 8, 10, 0, ...line, 0, 0, 0]);
}
const text = (s: string) => [...Buffer.from(s, 'latin1')];
const POKE = 0x97;
const GOTO = 0x89;
const SYS = 0x9e;

const endOf = (o: BusTraceObserver) => o.end;

function run(program: Uint8Array, frames: number, cycleBudget?: number): BusTraceObserver {
  const observer = new BusTraceObserver({
    prg: program,
    protocol: {
      classify: verdictClassify({ pass: [0x00], fail: [0xff] }),
      crash: { jam: true, brk: 'unhandled', outsideCode: [] },
      ...(cycleBudget === undefined ? {} : { cycleBudget }),
    },
    snapshot: [],
    onMarker: () => {},
  });
  feedVirtualC64(observer, program, { frames });
  return observer;
}

test('10 POKE 55295,0: no machine code, started where BASIC began the line; the $00 is a pass', () => {
  const observer = run(basic([POKE, ...text('55295,0')]), 400);
  assert.equal(observer.end?.outcome, 'ended', JSON.stringify(observer.end));
  assert.ok(observer.end?.outcome === 'ended' && observer.end.verdict === 'pass');
  assert.equal(observer.startKind, 'basic');
  assert.equal(observer.writes.length, 1);
  // POKE parses two numbers in floating point: thousands of cycles from the first statement byte.
  const cycle = observer.writes[0]!.cycle;
  assert.ok(cycle > 1000 && cycle < 20_000, `cycle ${cycle}`);
});

test('10 POKE 55295,255: the same start, judged fail', () => {
  const observer = run(basic([POKE, ...text('55295,255')]), 400);
  assert.ok(observer.end?.outcome === 'ended' && observer.end.verdict === 'fail', JSON.stringify(observer.end));
  assert.equal(observer.startKind, 'basic');
});

test('a SYS stub still starts at its first instruction: LDA # then STA $D7FF writes at cycle 5', () => {
  // 10 SYS 2061 ; then at $080D: LDA #$00 ; STA $D7FF ; JMP *
  const stub = basic([SYS, ...text('2061')]);
  assert.equal(0x0801 + stub.length - 2, 0x080d);
  const program = Uint8Array.from([...stub, 0xa9, 0x00, 0x8d, 0xff, 0xd7, 0x4c, 0x12, 0x08]);
  const observer = run(program, 400);
  assert.ok(observer.end?.outcome === 'ended' && observer.end.verdict === 'pass', JSON.stringify(observer.end));
  assert.equal(observer.startKind, 'load-range-fetch');
  assert.equal(observer.writes[0]!.cycle, 5);
});

test('10 GOTO 10 never writes $D7FF: running, not started, until the run ends; then started at BASIC', () => {
  const observer = run(basic([GOTO, ...text('10')]), 200);
  assert.equal(observer.end, null);
  assert.equal(observer.running, true);
  assert.equal(observer.started, false);
  observer.settle();
  assert.equal(observer.started, true);
  assert.equal(observer.startKind, 'basic');
  assert.ok(observer.cycle > 1_000_000, `cycle ${observer.cycle}`);
});

test('no budget runs while only BASIC has started: a SYS stub within 17 cycles passes (its BASIC takes thousands)', () => {
  const stub = basic([SYS, ...text('2061')]);
  const observer = run(Uint8Array.from([...stub, 0xa9, 0x00, 0x8d, 0xff, 0xd7, 0x4c, 0x12, 0x08]), 400, 17);
  assert.ok(observer.end?.outcome === 'ended' && observer.end.verdict === 'pass', JSON.stringify(observer.end));
});

test('settled on BASIC later than budget.cycles: over budget where it was settled', () => {
  const looping = run(basic([GOTO, ...text('10')]), 200, 50_000);
  assert.equal(looping.end, null);
  looping.settle();
  // Read through a function: the assertion above narrowed `looping.end` to null for the type checker.
  const end = endOf(looping);
  assert.equal(end?.outcome, 'over_budget');
  assert.ok(end?.outcome === 'over_budget' && end.cycle > 1_000_000, JSON.stringify(end));
  // The POKE comes thousands of cycles after BASIC's start: over a budget of 1000 at its write.
  const poke = run(basic([POKE, ...text('55295,0')]), 400, 1000);
  assert.equal(poke.end?.outcome, 'over_budget', JSON.stringify(poke.end));
  assert.equal(poke.writes.length, 0, 'the write past the budget is not judged');
});

test("the detector: only a read right after CHRGOT's operand ($007B) is BASIC's start, and only after the reset", () => {
  const d = new ProgramStartDetector({ start: 0x0801, end: 0x0810 });
  // Before the reset (the previous program, a BASIC one too): nothing.
  d.read(0x007b, 1);
  d.read(0x0805, 2);
  assert.equal(d.basicStart, null);
  d.read(0xfffc, 3);
  d.read(0xfffd, 4);
  // The KERNAL's RAM test: LDA ($C1),Y reads the pointer's high byte at $00C2, then the byte.
  d.read(0x00c2, 5);
  d.read(0x0805, 6);
  assert.equal(d.basicStart, null);
  d.read(0x007b, 7);
  d.read(0x0805, 8);
  assert.equal(d.basicStart, 8);
  assert.equal(d.started, false, 'a candidate until settled');
  assert.equal(d.settleOnBasic(), 8);
  assert.equal(d.kind, 'basic');
  assert.equal(d.settleOnBasic(), null, 'settled once');
  // A PRG too short for a BASIC line has no BASIC start.
  const short = new ProgramStartDetector({ start: 0xc000, end: 0xc002 }, true);
  short.read(0x007b, 1);
  short.read(0xc004, 2);
  assert.equal(short.basicStart, null);
});
