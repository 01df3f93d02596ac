// The M extension (multiply/divide), which the virtual core accepts in addition to RV32I: results
// as the unprivileged ISA's chapter "M" defines them, including division by zero and the signed
// overflow case, first on assembled programs (-march=rv32im), then the high-word products against
// BigInt for many operand pairs.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { mulh, mulhsu, mulhu } from '../../../../../engines/ultimate/virtual/riscv/rv32-muldiv.js';
import { a0, a1, a2, a3, a4, a5, buildCases, type CaseProgram } from './rv32-harness.js';

let prog: CaseProgram;

describe('RV32M instructions', { timeout: 60_000 }, () => {
  before(async () => {
    prog = await buildCases(
      [
        {
          name: 'mul',
          text: 'li t0, -7\nli t1, 3\nmul a0, t0, t1\nli t0, 0x10000\nmul a1, t0, t0\nli t0, -1\nmulh a2, t0, t0\nmulhu a3, t0, t0\nmulhsu a4, t0, t0\nli t1, 2\nmulh a5, t0, t1',
        },
        {
          name: 'div',
          text: 'li t0, -7\nli t1, 2\ndiv a0, t0, t1\nrem a1, t0, t1\ndivu a2, t0, t1\nremu a3, t0, t1\nli t1, -2\ndiv a4, t0, t1\nrem a5, t0, t1',
        },
        { name: 'div_zero', text: 'li t0, -7\ndiv a0, t0, x0\ndivu a1, t0, x0\nrem a2, t0, x0\nremu a3, t0, x0' },
        { name: 'div_overflow', text: 'li t0, 0x80000000\nli t1, -1\ndiv a0, t0, t1\nrem a1, t0, t1\ndivu a2, t0, t1\nremu a3, t0, t1' },
      ],
      ['-march=rv32im'],
    );
  });

  it('MUL keeps the low word; MULH/MULHU/MULHSU the high word of signed/unsigned/mixed products', () => {
    const r = prog.run('mul');
    assert.equal(r.cpu.x[a0], -21);
    assert.equal(r.cpu.x[a1], 0); // 2^32 wraps to 0
    assert.equal(r.cpu.x[a2], 0); // -1 * -1 = 1
    assert.equal(r.u(a3), 0xfffffffe); // 0xffffffff^2
    assert.equal(r.u(a4), 0xffffffff); // -1 * 0xffffffff = -0xffffffff
    assert.equal(r.cpu.x[a5], -1); // -1 * 2 = -2, high word all ones
  });

  it('DIV/REM truncate toward zero, REM takes the dividend sign; DIVU/REMU unsigned', () => {
    const r = prog.run('div');
    assert.equal(r.cpu.x[a0], -3);
    assert.equal(r.cpu.x[a1], -1);
    assert.equal(r.u(a2), 0x7ffffffc);
    assert.equal(r.u(a3), 1);
    assert.equal(r.cpu.x[a4], 3);
    assert.equal(r.cpu.x[a5], -1);
  });

  it('division by zero: quotient all ones, remainder the dividend (no trap)', () => {
    const r = prog.run('div_zero');
    assert.equal(r.stop.kind, 'ecall');
    assert.equal(r.cpu.x[a0], -1);
    assert.equal(r.u(a1), 0xffffffff);
    assert.equal(r.cpu.x[a2], -7);
    assert.equal(r.cpu.x[a3], -7);
  });

  it('signed overflow -2^31 / -1: quotient -2^31, remainder 0', () => {
    const r = prog.run('div_overflow');
    assert.equal(r.u(a0), 0x80000000);
    assert.equal(r.cpu.x[a1], 0);
    assert.equal(r.cpu.x[a2], 0);
    assert.equal(r.u(a3), 0x80000000);
  });

  it('high-word products agree with BigInt over edge and pseudo-random operands', () => {
    const edges = [0, 1, -1, 2, -2, 0x7fffffff, -0x80000000, 0x12345678, -0x12345678, 0xffff, 0x10000];
    let seed = 12345;
    const rand = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) | 0;
      return seed;
    };
    const ops = [...edges];
    for (let i = 0; i < 60; i++) ops.push(rand());
    const hi = (p: bigint) => Number(BigInt.asIntN(32, p >> 32n));
    for (const a of ops) {
      for (const b of ops) {
        const sa = BigInt(a | 0);
        const sb = BigInt(b | 0);
        const ua = BigInt(a >>> 0);
        const ub = BigInt(b >>> 0);
        assert.equal(mulh(a | 0, b | 0), hi(sa * sb), `mulh ${a} ${b}`);
        assert.equal(mulhu(a | 0, b | 0), hi(ua * ub), `mulhu ${a} ${b}`);
        assert.equal(mulhsu(a | 0, b | 0), hi(sa * ub), `mulhsu ${a} ${b}`);
      }
    }
  });
});
