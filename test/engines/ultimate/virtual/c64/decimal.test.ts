// Decimal mode, exhaustively: a program assembled with acme runs ADC and SBC in decimal mode for
// every operand pair and both carry values, storing A and P. The expected values come from Bruce
// Clark's published description of the NMOS 6502 ("Decimal Mode", 6502.org tutorial, appendix A:
// sequences 1-3 for A and C, N and V from sequence 2, Z from the binary sum; SBC flags binary) —
// a formulation independent of the emulator's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acme, flatCpu, hex } from './helpers.js';

const ORIGIN = 0x2000;
const SOURCE = `
!cpu 6510
* = $2000
        sei
        ldy #0
loop:   sty $03
        lda $02
        clc
        sed
        adc $03
        php
        cld
        sta $3000,y
        pla
        sta $3100,y
        lda $02
        sec
        sed
        adc $03
        php
        cld
        sta $3200,y
        pla
        sta $3300,y
        lda $02
        clc
        sed
        sbc $03
        php
        cld
        sta $3400,y
        pla
        sta $3500,y
        lda $02
        sec
        sed
        sbc $03
        php
        cld
        sta $3600,y
        pla
        sta $3700,y
        iny
        bne loop
        !byte $02
`;

const signed = (v: number) => (v & 0x80 ? v - 0x100 : v);

/** NMOS ADC in decimal mode per Bruce Clark: [A, P without B/U/D/I]. */
function adcReference(a: number, b: number, c: number): [number, number] {
  let al = (a & 0x0f) + (b & 0x0f) + c;
  if (al >= 0x0a) al = ((al + 0x06) & 0x0f) + 0x10;
  let s = (a & 0xf0) + (b & 0xf0) + al; // sequence 1
  const sv = signed(a & 0xf0) + signed(b & 0xf0) + al; // sequence 2 (signed)
  const n = sv & 0x80 ? 0x80 : 0;
  const v = sv < -128 || sv > 127 ? 0x40 : 0;
  if (s >= 0xa0) s += 0x60;
  const carry = s >= 0x100 ? 1 : 0;
  const z = ((a + b + c) & 0xff) === 0 ? 0x02 : 0;
  return [s & 0xff, n | v | z | carry];
}

/** NMOS SBC in decimal mode per Bruce Clark: A from sequence 3, flags from the binary difference. */
function sbcReference(a: number, b: number, c: number): [number, number] {
  let al = (a & 0x0f) - (b & 0x0f) + c - 1;
  if (al < 0) al = ((al - 0x06) & 0x0f) - 0x10;
  let s = (a & 0xf0) - (b & 0xf0) + al;
  if (s < 0) s -= 0x60;
  const d = a - b - (1 - c);
  const n = d & 0x80 ? 0x80 : 0;
  const v = (a ^ b) & (a ^ d) & 0x80 ? 0x40 : 0;
  const z = (d & 0xff) === 0 ? 0x02 : 0;
  const carry = d >= 0 ? 1 : 0;
  return [s & 0xff, n | v | z | carry];
}

test('decimal-mode ADC and SBC match the NMOS 6502 for all 131072 operand/carry combinations each', () => {
  const prog = acme(SOURCE, ORIGIN);
  const { cpu, bus } = flatCpu(prog.bytes, ORIGIN);
  const fixed = 0x30 | 0x08 | 0x04; // B and bit 5 (PHP), D and I set by the program
  let checked = 0;
  for (let a = 0; a < 256; a++) {
    bus.mem[2] = a;
    cpu.pc = ORIGIN;
    cpu.jammed = false;
    const limit = cpu.cycles + 200_000;
    while (!cpu.jammed && cpu.cycles < limit) cpu.step();
    assert.ok(cpu.jammed, `run for A=${hex(a)} finished`);
    for (let b = 0; b < 256; b++) {
      for (const [base, ref, what] of [
        [0x3000, adcReference(a, b, 0), 'ADC C=0'],
        [0x3200, adcReference(a, b, 1), 'ADC C=1'],
        [0x3400, sbcReference(a, b, 0), 'SBC C=0'],
        [0x3600, sbcReference(a, b, 1), 'SBC C=1'],
      ] as [number, [number, number], string][]) {
        const gotA = bus.mem[base + b]!;
        const gotP = bus.mem[base + 0x100 + b]!;
        if (gotA !== ref[0] || gotP !== (ref[1] | fixed)) {
          assert.fail(
            `${what} ${hex(a)},${hex(b)}: got A=${hex(gotA)} P=${hex(gotP)}, expected A=${hex(ref[0]!)} P=${hex(ref[1]! | fixed)}`,
          );
        }
        checked++;
      }
    }
  }
  assert.equal(checked, 4 * 65536);
});
