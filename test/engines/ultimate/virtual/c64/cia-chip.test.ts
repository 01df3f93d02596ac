// The CIA chips and the 6510's unstable ANE, clock by clock. Each program here was run on real
// VICE x64sc (-debugcart, -ciamodel 0 and 1) and the expected values are what x64sc wrote to
// $D7FF: the virtual C64 must give the same. The display is off so no bad line moves the timing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';
import type { CiaModel } from '../../../../../engines/ultimate/virtual/c64/cia6526.js';
import { acmePrg } from './helpers.js';

const HEADER = `!cpu 6510
* = $0801
!word next, 10
!byte $9e
!text "2064", 0
next: !word 0
* = $0810
  sei
  lda #$7f
  sta $dc0d
  sta $dd0d
  lda $dc0d
  lda #$0b
  sta $d011      ; display off: no bad lines
- lda $d011
  bpl -
`;

/** Run HEADER + body (a BASIC SYS stub at $0801) and return the first value written to $D7FF. */
function debugValue(body: string, ciaModel: CiaModel = '6526'): number {
  const m = new C64Machine({ ciaModel });
  let value: number | undefined;
  m.onDebugRegisterWrite = (v) => {
    value ??= v;
  };
  m.runPrg(acmePrg(HEADER + body));
  m.run(4_000_000, () => value !== undefined);
  assert.notEqual(value, undefined, 'the program wrote $D7FF');
  return value!;
}

describe('CIA 6526/6526A (values from x64sc)', () => {
  test('timer B counting timer A underflows', () => {
    // A: latch 9, continuous; B: latch $20, counting A's underflows. After the wait B has
    // counted 20 underflows of A: $20 - 20 = 12.
    assert.equal(
      debugValue(`  lda #0
  sta $dc0e
  sta $dc0f
  lda #$09
  sta $dc04
  lda #0
  sta $dc05
  lda #$20
  sta $dc06
  lda #0
  sta $dc07
  lda #$51       ; B: count A underflows, force load, start
  sta $dc0f
  lda #$11       ; A: force load, start, continuous
  sta $dc0e
  ldx #40
- dex
  bne -
  lda $dc06
  sta $d7ff
  jmp *
`),
      12,
    );
  });

  test('the old 6526 raises the interrupt (ICR bit 7) one clock after the flag, the 6526A in the same clock', () => {
    const program = (latch: number) => `  lda #0
  sta $dc0e
  lda #$81
  sta $dc0d
  lda #${latch}
  sta $dc04
  lda #0
  sta $dc05
  lda $dc0d
  lda #$19      ; force load, one-shot, start
  sta $dc0e
  lda $dc0d
  ldx $dc0d
  ldy $dc0d
  stx $02
  sty $03
  ora $02
  asl
  ora $03
  sta $d7ff
  jmp *
`;
    // Three ICR reads 4 clocks apart around a one-shot underflow; $D7FF gets (r1 | r2) << 1 | r3.
    // Earlier: the first read already has the flag and bit 7 on both chips.
    assert.equal(debugValue(program(8), '6526'), 0x81);
    assert.equal(debugValue(program(8), '6526A'), 0x81);
    // Latch 9: the flag is set in the clock of the first read — the 6526A shows bit 7 with it,
    // the 6526 not yet (and reading acknowledges, so no read sees bit 7).
    assert.equal(debugValue(program(9), '6526'), 0x01);
    assert.equal(debugValue(program(9), '6526A'), 0x81);
    // Latch 10: the underflow comes after the three reads.
    assert.equal(debugValue(program(10), '6526'), 0x00);
    assert.equal(debugValue(program(10), '6526A'), 0x00);
  });

  test('a timer started by writing CRA decrements first three clocks after the write', () => {
    const body = `
  lda #0
  sta $dc0e
  lda #$40
  sta $dc04
  lda #$00
  sta $dc05      ; stopped: the latch goes into the counter
  lda #$01
  sta $dc0e      ; start (no force load)
  lda $dc04      ; read 4 clocks after the write
  sta $d7ff
  jmp *
`;
    assert.equal(debugValue(body), 0x40 - 2);
  });
});

describe('CIA time-of-day clock (values from x64sc)', () => {
  test('the alarm flags ICR bit 2 when the running clock reaches it', () => {
    // Clock set to 01:00:00.0 (50 Hz input), alarm 01:00:00.3: the flag comes with tenths = 3.
    assert.equal(
      debugValue(`  lda #$80
  sta $dc0e      ; TOD input 50 Hz
  lda #0
  sta $dc0f      ; writes set the time
  lda #$01
  sta $dc0b      ; hours: stops the clock
  lda #0
  sta $dc0a
  sta $dc09
  sta $dc08      ; tenths: starts it
  lda #$80
  sta $dc0f      ; writes set the alarm
  lda #3
  sta $dc08
  lda #0
  sta $dc09
  sta $dc0a
  lda #$01
  sta $dc0b
  lda $dc0d      ; forget a flag from before
- lda $dc0d
  and #$04
  beq -
  lda $dc08
  sta $d7ff
  jmp *
`),
      3,
    );
  });

  test('writing hour 12 flips the AM/PM bit', () => {
    assert.equal(
      debugValue(`  lda #0
  sta $dc0f
  lda #$12
  sta $dc0b      ; writing 12 flips AM/PM
  lda $dc0b
  ldx $dc08      ; unlatch
  sta $d7ff
  jmp *
`),
      0x92,
    );
  });
});

describe('6510 unstable opcodes (values from x64sc)', () => {
  test('ANE #imm outside DMA: A = (A | $EF) & X & imm', () => {
    assert.equal(
      debugValue(`  lda #0
  ldx #$ff
  !byte $8b, $ff
  sta $d7ff
  jmp *
`),
      0xef,
    );
  });
});
