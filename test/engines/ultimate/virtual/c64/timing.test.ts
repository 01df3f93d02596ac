// Cycle counts against the MOS datasheet (every documented opcode; page-cross and branch
// penalties), one bus access per clock, and the exact access sequences (address, read/write,
// dummy cycles) of the 6502 for the addressing modes that have dummy accesses.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Cpu6510, IRQ_SOURCE_EXTERNAL } from '../../../../../engines/ultimate/virtual/c64/cpu6510.js';
import { DOCUMENTED, FlatBus, flags, hex, type OpcodeInfo } from './helpers.js';

const AT = 0x0400;

/** Flags that make each branch taken / not taken. */
const BRANCH_FLAGS: Record<string, [string, string]> = {
  BCC: ['', 'C'],
  BCS: ['C', ''],
  BEQ: ['Z', ''],
  BNE: ['', 'Z'],
  BMI: ['N', ''],
  BPL: ['', 'N'],
  BVC: ['', 'V'],
  BVS: ['V', ''],
};

function cpuWith(
  op: OpcodeInfo,
  opts: { at?: number; lo: number; hi: number; x?: number; y?: number; p?: string },
): { cpu: Cpu6510; bus: FlatBus } {
  const bus = new FlatBus();
  const at = opts.at ?? AT;
  bus.mem[at] = op.opcode;
  bus.mem[at + 1] = opts.lo;
  bus.mem[at + 2] = opts.hi;
  // pointers for the indirect modes: ($10) and ($10+X) point at $10F0
  bus.mem[0x10] = 0xf0;
  bus.mem[0x11] = 0x10;
  const cpu = new Cpu6510(bus);
  cpu.pc = at;
  cpu.sp = 0xf0;
  cpu.x = opts.x ?? 0;
  cpu.y = opts.y ?? 0;
  cpu.p = flags(opts.p ?? '') | 0x20;
  return { cpu, bus };
}

describe('cycle counts', () => {
  test('every documented opcode takes its datasheet cycles, one bus access per cycle', () => {
    for (const op of DOCUMENTED) {
      const p = op.mode === 'rel' ? BRANCH_FLAGS[op.mnemonic]![1] : '';
      const { cpu, bus } = cpuWith(op, { lo: 0x10, hi: 0x10, p });
      const n = cpu.step();
      assert.equal(n, op.cycles, `${hex(op.opcode)} ${op.mnemonic} ${op.mode}: cycles`);
      assert.equal(bus.accesses, n, `${hex(op.opcode)} ${op.mnemonic} ${op.mode}: bus accesses per cycle`);
    }
  });

  test('indexed reads take one more cycle when the page is crossed; writes and RMW do not', () => {
    let crossed = 0;
    for (const op of DOCUMENTED) {
      if (!['absx', 'absy', 'izy'].includes(op.mode)) continue;
      // abs $10F0 + $FF, or ($10) = $10F0 + $FF: $11EF is on the next page
      const { cpu } = cpuWith(op, { lo: op.mode === 'izy' ? 0x10 : 0xf0, hi: 0x10, x: 0xff, y: 0xff });
      const n = cpu.step();
      assert.equal(n, op.cycles + (op.pageCross ? 1 : 0), `${hex(op.opcode)} ${op.mnemonic} ${op.mode} across a page`);
      if (op.pageCross) crossed++;
    }
    assert.equal(crossed, 23, 'ADC AND CMP EOR LDA ORA SBC ×3 modes + LDX abs,Y + LDY abs,X');
  });

  test('branches: +1 when taken, +2 when the target is on another page', () => {
    for (const op of DOCUMENTED.filter((o) => o.mode === 'rel')) {
      const [taken] = BRANCH_FLAGS[op.mnemonic]!;
      const same = cpuWith(op, { lo: 0x10, hi: 0, p: taken });
      assert.equal(same.cpu.step(), 3, `${op.mnemonic} taken, same page`);
      assert.equal(same.cpu.pc, AT + 2 + 0x10);
      const fwd = cpuWith(op, { at: 0x04f0, lo: 0x10, hi: 0, p: taken });
      assert.equal(fwd.cpu.step(), 4, `${op.mnemonic} taken forward across a page`);
      assert.equal(fwd.cpu.pc, 0x0502);
      const back = cpuWith(op, { lo: 0x80, hi: 0, p: taken });
      assert.equal(back.cpu.step(), 4, `${op.mnemonic} taken backward across a page`);
      assert.equal(back.cpu.pc, AT + 2 - 0x80);
    }
  });
});

type Expect = ['R' | 'W', number, number?][];

function trace(bytes: number[], setup: (cpu: Cpu6510, bus: FlatBus) => void, at = AT): { cpu: Cpu6510; log: Expect } {
  const bus = new FlatBus();
  bus.mem.set(bytes, at);
  const cpu = new Cpu6510(bus);
  cpu.pc = at;
  cpu.sp = 0xff;
  setup(cpu, bus);
  bus.recording = true;
  cpu.step();
  return { cpu, log: bus.log.map((a) => [a.write ? 'W' : 'R', a.addr, a.value] as ['R' | 'W', number, number]) };
}

/** Compare address and direction of every access (and the value where the expectation gives one). */
function assertAccesses(actual: Expect, expected: Expect, what: string): void {
  const fmt = (e: Expect) => e.map(([rw, a, v]) => `${rw}${hex(a, 4)}${v === undefined ? '' : `=${hex(v)}`}`).join(' ');
  const trimmed: Expect = actual.map(([rw, a, v], i) => (expected[i]?.[2] === undefined ? [rw, a] : [rw, a, v]));
  assert.equal(fmt(trimmed), fmt(expected), what);
}

describe('bus cycles', () => {
  test('INC abs,X: dummy read, read, write of the old value, write of the new', () => {
    const { log } = trace([0xfe, 0x34, 0x12], (cpu, bus) => {
      cpu.x = 1;
      bus.mem[0x1235] = 0x41;
    });
    assertAccesses(
      log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['R', 0x402],
        ['R', 0x1235],
        ['R', 0x1235, 0x41],
        ['W', 0x1235, 0x41],
        ['W', 0x1235, 0x42],
      ],
      'INC $1234,X',
    );
  });

  test('LDA abs,X across a page reads the unfixed address first', () => {
    const { log } = trace([0xbd, 0xff, 0x12], (cpu) => {
      cpu.x = 1;
    });
    assertAccesses(
      log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['R', 0x402],
        ['R', 0x1200],
        ['R', 0x1300],
      ],
      'LDA $12FF,X',
    );
  });

  test('STA (zp),Y always does the dummy read before writing', () => {
    const { log } = trace([0x91, 0x10], (cpu, bus) => {
      cpu.y = 0x10;
      cpu.a = 0x77;
      bus.mem[0x10] = 0xf8;
      bus.mem[0x11] = 0x12;
    });
    assertAccesses(
      log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['R', 0x10],
        ['R', 0x11],
        ['R', 0x1208],
        ['W', 0x1308, 0x77],
      ],
      'STA ($10),Y',
    );
  });

  test('zero-page indexed and (zp,X) wrap inside page zero after a dummy read of the base', () => {
    const a = trace([0xb5, 0x80], (cpu) => {
      cpu.x = 0x90;
    });
    assertAccesses(
      a.log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['R', 0x80],
        ['R', 0x10],
      ],
      'LDA $80,X with X=$90',
    );
    const b = trace([0xa1, 0xff], (cpu, bus) => {
      cpu.x = 0;
      bus.mem[0xff] = 0x34;
      bus.mem[0x00] = 0x12;
    });
    assertAccesses(
      b.log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['R', 0xff],
        ['R', 0xff],
        ['R', 0x00],
        ['R', 0x1234],
      ],
      'LDA ($FF,X)',
    );
  });

  test('ASL zp: read, write back, write the result', () => {
    const { log } = trace([0x06, 0x10], (_cpu, bus) => {
      bus.mem[0x10] = 0x81;
    });
    assertAccesses(
      log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['R', 0x10, 0x81],
        ['W', 0x10, 0x81],
        ['W', 0x10, 0x02],
      ],
      'ASL $10',
    );
  });

  test('JSR and RTS: stack dummy reads, pushes of PCH then PCL, the final PC fetch', () => {
    const j = trace([0x20, 0x00, 0x20], () => {});
    assertAccesses(
      j.log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['R', 0x1ff],
        ['W', 0x1ff, 0x04],
        ['W', 0x1fe, 0x02],
        ['R', 0x402],
      ],
      'JSR $2000',
    );
    assert.equal(j.cpu.pc, 0x2000);
    const r = trace(
      [0x60],
      (cpu, bus) => {
        cpu.sp = 0xfd;
        bus.mem[0x1fe] = 0x02;
        bus.mem[0x1ff] = 0x04;
      },
      0x2000,
    );
    assertAccesses(
      r.log,
      [
        ['R', 0x2000],
        ['R', 0x2001],
        ['R', 0x1fd],
        ['R', 0x1fe],
        ['R', 0x1ff],
        ['R', 0x402],
      ],
      'RTS',
    );
    assert.equal(r.cpu.pc, 0x403);
  });

  test('PHA and PLA', () => {
    const ph = trace([0x48], (cpu) => {
      cpu.a = 0x99;
    });
    assertAccesses(
      ph.log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['W', 0x1ff, 0x99],
      ],
      'PHA',
    );
    const pl = trace([0x68], (cpu) => {
      cpu.sp = 0xfe;
    });
    assertAccesses(
      pl.log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['R', 0x1fe],
        ['R', 0x1ff],
      ],
      'PLA',
    );
  });

  test('a taken branch across a page fetches the next opcode, then the wrong-page address', () => {
    const { log, cpu } = trace([0xd0, 0x10], () => {}, 0x04fd);
    assertAccesses(
      log,
      [
        ['R', 0x4fd],
        ['R', 0x4fe],
        ['R', 0x4ff],
        ['R', 0x40f],
      ],
      'BNE +$10 at $04FD',
    );
    assert.equal(cpu.pc, 0x50f);
  });

  test('IRQ entry: two dummy reads, three pushes (B clear), the vector', () => {
    const { log, cpu } = trace([0xea], (c, bus) => {
      c.p = 0x20;
      c.irqLines = IRQ_SOURCE_EXTERNAL;
      bus.mem[0xfffe] = 0x00;
      bus.mem[0xffff] = 0x30;
    });
    assertAccesses(
      log,
      [
        ['R', 0x400],
        ['R', 0x400],
        ['W', 0x1ff, 0x04],
        ['W', 0x1fe, 0x00],
        ['W', 0x1fd, 0x20],
        ['R', 0xfffe],
        ['R', 0xffff],
      ],
      'IRQ',
    );
    assert.equal(cpu.pc, 0x3000);
    assert.equal(cpu.p & 0x04, 0x04, 'I set');
  });

  test('BRK pushes PC+2 and P with B set', () => {
    const { log } = trace([0x00, 0xea], (c, bus) => {
      c.p = 0x21;
      bus.mem[0xfffe] = 0x00;
      bus.mem[0xffff] = 0x30;
    });
    assertAccesses(
      log,
      [
        ['R', 0x400],
        ['R', 0x401],
        ['W', 0x1ff, 0x04],
        ['W', 0x1fe, 0x02],
        ['W', 0x1fd, 0x31],
        ['R', 0xfffe],
        ['R', 0xffff],
      ],
      'BRK',
    );
  });
});
