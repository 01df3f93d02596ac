// A C64 program on the virtual device measures its own cycles with a CIA timer, with the display
// off and on, started by REST run_prg and read back with readmem: a loop of reads only
// (`INX / BNE`, 256 × 5 − 1 clocks) run from raster line $40 crosses the bad lines $43, $4B and $53
// (YSCROLL 3), each of which takes 43 clocks from it — so the display-on run is 3 × 43 = 129 clocks
// longer, as on a real PAL C64.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ACME_STUB, assemble, startRig, waitFor, type Rig } from '../../helpers.js';

function measuringProgram(d011: number): string {
  return `${ACME_STUB}
        sei
        lda #$7f
        sta $dc0d           ; no CIA 1 interrupt
        lda #$${d011.toString(16)}
        sta $d011
        ldx #2              ; two frame starts: line $30 has seen DEN as set here
w1:     lda $d012
        bne w1
w2:     lda $d012
        beq w2
        dex
        bne w1
w3:     lda $d012           ; into the display window, clear of a bad line
        cmp #$40
        bne w3
        lda #$ff
        sta $dd04
        sta $dd05
        lda #$19            ; CIA 2 timer A: force load $FFFF, one-shot, start
        sta $dd0e
        ldx #0
loop:   inx                 ; reads only: 2 + 3 clocks a pass
        bne loop
        lda #$00            ; stop the timer, then read it whole
        sta $dd0e
        lda $dd04
        sta $c000
        lda $dd05
        sta $c001
        lda #$5a
        sta $d7ff
-       jmp -
`;
}

describe('VIC-II cycle stealing seen by a program on the virtual device', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ speed: 'max' });
  });
  after(async () => {
    await rig.close();
  });

  async function elapsed(d011: number, name: string): Promise<number> {
    const prg = await assemble('acme', measuringProgram(d011), rig.dir, name);
    await rig.device.rest.setDebugRegister(0);
    await rig.device.rest.runPrg({ bytes: prg });
    await waitFor(
      `${name} finished`,
      () => rig.device.rest.debugRegister(),
      (v) => v === 0x5a,
    );
    const [lo, hi] = await rig.device.rest.readMemory(0xc000, 2);
    return 0xffff - (lo! | (hi! << 8));
  }

  test('display on costs exactly three bad lines of 43 clocks over the same loop', { timeout: 60_000 }, async () => {
    const off = await elapsed(0x0b, 'den-off');
    const on = await elapsed(0x1b, 'den-on');
    assert.ok(off >= 256 * 5 - 1 && off < 256 * 5 + 40, `display off: ${off} clocks, the loop's own count plus the timer set-up`);
    assert.equal(on - off, 3 * 43, `display on ${on}, off ${off}`);
  });
});
