// The ultimate target without a debug stream (hardware with no receiver configured) installs a
// crash hook by DMA for a run that asks for crashes without the program's cooperation: a BRK in a
// program with no harness is then `crashed` with its registers and site, and the run declares the
// hook with its RAM footprint. Against the virtual Ultimate 64 over its real REST/DMA services,
// with no receiver (so the path is the same as on such hardware).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { writesObservation } from '../../../../services/ultimate-tool/runs/run-judge.js';
import { verdictClassify } from '../../../../services/ultimate-tool/runs/run-protocol.js';
import { CRASH_HOOK, crashHookCode } from '../../../../services/ultimate-tool/targets/crash-hook.js';
import { UltimateConnection } from '../../../../services/ultimate-tool/targets/ultimate-target.js';
import { type Rig, startRig } from '../../../engines/ultimate/helpers.js';

let rig: Rig;
before(async () => {
  rig = await startRig();
});
after(async () => {
  await rig?.close();
});

/** `10 SYS 2061`; then LDA #$44, LDX #$22, LDY #$33, BRK at $0813 (no harness, no vector of its own). */
const BRK_PRG = Uint8Array.from([
  0x01, 0x08, 0x0b, 0x08, 0x0a, 0x00, 0x9e, 0x32, 0x30, 0x36, 0x31, 0x00, 0x00, 0x00,
  // $080D: LDA #$44 ; LDX #$22 ; LDY #$33 ; $0813: BRK ; NOP
  0xa9, 0x44, 0xa2, 0x22, 0xa0, 0x33, 0x00, 0xea,
]);

const protocol = () => ({
  classify: verdictClassify({ pass: [0x00], fail: [0xff] }),
  crash: { jam: true, brk: 'unhandled' as const, outsideCode: [] },
  exactObservation: true,
});

test('a BRK without a harness, no stream: crashed through the DMA-installed hook, registers and site read back', {
  timeout: 60_000,
}, async () => {
  const conn = new UltimateConnection({ device: rig.device, identity: {}, emulation: true, strictGate: false, debugStreamReceiver: null });
  await conn.start(BRK_PRG);
  const w = await conn.waitDebugResult(performance.now() + 20_000, protocol());
  assert.equal(w.outcome, 'crashed', JSON.stringify(w));
  assert.ok(w.outcome === 'crashed');
  assert.equal(w.crash.kind, 'brk');
  assert.equal(w.crash.pc, 0x0813);
  assert.deepEqual([w.crash.a, w.crash.x, w.crash.y], [0x44, 0x22, 0x33]);
  assert.equal(w.crash.cycle, null, 'no stream, no cycles');
  assert.equal(w.writes.length, 0, 'the hook signal is not a program write');
  // The run record declares the hook: what was written where, by DMA.
  const o = writesObservation(w) as Record<string, any>;
  const end = CRASH_HOOK.handler + crashHookCode(0xfd).length - 1;
  assert.deepEqual(o.crash_hook, {
    installed_by: 'dma',
    footprint: { start: '$0380', end: `$0${end.toString(16).toUpperCase()}` },
    vector: '$0316',
    context_block: '$0380',
    signal: '$FD',
    detects: ['brk'],
  });
  await conn.close();
});
