// The RAM fill before a run happens on a paused machine. The previous program is still running
// when the tool writes x64sc's power-on pattern; running on, over code and stack the pattern has
// overwritten, it could write anywhere before run_prg's reset (on a device running on its own core
// that is millions of clocks: a stray $7F at $C100 failed a run). Here the previous program keeps
// incrementing $C100 from the RAM under the I/O area, which the fill leaves alone: the fill must
// leave the machine paused with $C100 as the pattern has it, and the run must start it again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UltimateDevice } from '../../../../engines/ultimate/index.js';
import { fillPowerOnPattern, VirtualUltimate } from '../../../../engines/ultimate/virtual/index.js';
import { UltimateConnection } from '../../../../services/ultimate-tool/targets/ultimate-target.js';

/** A PRG at $0801: `10 SYS 2061`, then `code` at $080D. */
function prg(code: number[]): Uint8Array {
  return Uint8Array.from([0x01, 0x08, 0x0b, 0x08, 0x0a, 0x00, 0x9e, 0x32, 0x30, 0x36, 0x31, 0x00, 0x00, 0x00, ...code]);
}

// SEI ; LDA #$34 ; STA $01 (all RAM) ; LDX #5 ; copy: LDA $0823,X ; STA $D000,X ; DEX ; BPL copy ;
// JMP $D000 — and at $0823 the loop it copies: INC $C100 ; JMP $D000.
const SCRIBBLER = prg([
  0x78, 0xa9, 0x34, 0x85, 0x01, 0xa2, 0x05, 0xbd, 0x20, 0x08, 0x9d, 0x00, 0xd0, 0xca, 0x10, 0xf7, 0x4c, 0x00, 0xd0, 0xee, 0x00, 0xc1, 0x4c,
  0x00, 0xd0,
]);

test('the fill leaves the machine paused with the pattern in place; the run starts it again', async () => {
  const dev = await VirtualUltimate.start({ speed: 'max' });
  try {
    const device = new UltimateDevice({ baseUrl: `http://127.0.0.1:${dev.ports.http}` });
    await device.runPrg({ bytes: SCRIBBLER });
    // The scribbler runs: $C100 keeps changing.
    const first = (await device.rest.readMemory(0xc100, 1))[0];
    let changed = false;
    for (let i = 0; i < 200 && !changed; i++) changed = (await device.rest.readMemory(0xc100, 1))[0] !== first;
    assert.ok(changed, 'the previous program increments $C100');
    assert.equal(dev.machine.readMem(0xd000, 3).join(','), [0xee, 0x00, 0xc1].join(','), 'its loop lives under the I/O area');

    const conn = new UltimateConnection({ device, identity: dev.identity(), emulation: true, strictGate: false });
    await conn.start(prg([0x4c, 0x0d, 0x08])); // the next run's program: JMP * (what it does does not matter)
    assert.deepEqual(dev.clock.holds, ['rest-pause'], 'the machine is paused from before the fill until the program starts');
    const pattern = new Uint8Array(0x10000);
    fillPowerOnPattern(pattern);
    assert.deepEqual(
      [...dev.machine.readMem(0xc100, 2)],
      [...pattern.subarray(0xc100, 0xc102)],
      "$C100 holds the pattern, not the old program's count",
    );

    await conn.readMemory(0x0400, 1); // starts the deferred run (reset, load, RUN)
    assert.equal(dev.clock.running, true, "run_prg's reset let the machine run again");
    await conn.close();
  } finally {
    await dev.stop();
  }
});
