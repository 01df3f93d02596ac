// The ultimate target without a debug stream polls the debug register. The device's reset sets
// that register to $00, a verdict value for many tests: an idle value written before the reset
// would be gone, and a poll before the program's first write would read a pass the program never
// gave (seen as a flaky `ended` on a loaded machine). A program that never writes $D7FF must time
// out, with the hook and without, however the polls fall.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verdictClassify } from '../../../../services/ultimate-tool/runs/run-protocol.js';
import { UltimateConnection } from '../../../../services/ultimate-tool/targets/ultimate-target.js';
import { type Rig, startRig } from '../../../engines/ultimate/helpers.js';

let rig: Rig;
before(async () => {
  rig = await startRig();
});
after(async () => {
  await rig?.close();
});

/** `10 SYS 2061`; then $080D: JMP $080D — never writes the debug register. */
const SPIN_PRG = Uint8Array.from([0x01, 0x08, 0x0b, 0x08, 0x0a, 0x00, 0x9e, 0x32, 0x30, 0x36, 0x31, 0x00, 0x00, 0x00, 0x4c, 0x0d, 0x08]);

for (const exactObservation of [false, true]) {
  test(`a program that never writes $D7FF times out on polling with verdict pass [$00] (${exactObservation ? 'with' : 'without'} the crash hook)`, {
    timeout: 60_000,
  }, async () => {
    const conn = new UltimateConnection({
      device: rig.device,
      identity: {},
      emulation: true,
      strictGate: false,
      debugStreamReceiver: null,
    });
    await conn.start(SPIN_PRG);
    const w = await conn.waitDebugResult(performance.now() + 1500, {
      classify: verdictClassify({ pass: [0x00], fail: [0xff] }),
      crash: { jam: true, brk: 'unhandled' as const, outsideCode: [] },
      exactObservation,
    });
    assert.equal(w.outcome, 'timeout', JSON.stringify(w));
    assert.deepEqual(w.writes, []);
    // The program did start: it spins at its own code.
    const pc = await rig.device.rest.readMemory(0x080d, 3);
    assert.deepEqual([...pc], [0x4c, 0x0d, 0x08]);
    await conn.close();
  });
}
