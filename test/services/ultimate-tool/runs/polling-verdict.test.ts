// The ultimate target without a debug stream (hardware with no receiver configured) polls the debug
// register over REST. A program that reports `$00` for pass must be seen: the register used to be
// cleared to $00 before the run and a $00 taken for "not written yet", so such a run timed out.
// Against the virtual Ultimate 64 over its real REST/DMA services, with no receiver.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verdictClassify, harnessClassify } from '../../../../services/ultimate-tool/runs/run-protocol.js';
import { UltimateConnection, pollingIdleValue } from '../../../../services/ultimate-tool/targets/ultimate-target.js';
import { type Rig, startRig } from '../../../engines/ultimate/helpers.js';

let rig: Rig;
before(async () => {
  rig = await startRig();
});
after(async () => {
  await rig?.close();
});

/** `10 SYS 2061`; then: a short delay, LDA #$01 STA $D7FF (a marker), a delay, LDA #$00 STA $D7FF, JMP *. */
const PRG = Uint8Array.from([
  0x01, 0x08, 0x0b, 0x08, 0x0a, 0x00, 0x9e, 0x32, 0x30, 0x36, 0x31, 0x00, 0x00, 0x00,
  // $080D: LDY #$40 ; $080F: DEX ; BNE $080F ; DEY ; BNE $080F
  0xa0, 0x40, 0xca, 0xd0, 0xfd, 0x88, 0xd0, 0xfa,
  // $0815: LDA #$01 ; STA $D7FF
  0xa9, 0x01, 0x8d, 0xff, 0xd7,
  // $081A: LDY #$40 ; $081C: DEX ; BNE $081C ; DEY ; BNE $081C
  0xa0, 0x40, 0xca, 0xd0, 0xfd, 0x88, 0xd0, 0xfa,
  // $0822: LDA #$00 ; STA $D7FF ; $0827: JMP $0827
  0xa9, 0x00, 0x8d, 0xff, 0xd7, 0x4c, 0x27, 0x08,
]);

test('polling sees a $00 pass verdict (the register starts at a value that ends nothing)', { timeout: 60_000 }, async () => {
  const conn = new UltimateConnection({ device: rig.device, identity: {}, emulation: true, strictGate: false, debugStreamReceiver: null });
  const protocol = {
    classify: verdictClassify({ pass: [0x00], fail: [0xff] }),
    crash: { jam: true, brk: 'unhandled' as const, outsideCode: [] },
    exactObservation: true,
  };
  await conn.start(PRG);
  const w = await conn.waitDebugResult(performance.now() + 20_000, protocol);
  assert.equal(w.outcome, 'ended', JSON.stringify(w));
  assert.ok(w.outcome === 'ended');
  assert.equal(w.verdict, 'pass');
  assert.equal(w.value, 0x00);
  assert.equal(w.writesExact, false, 'polling may miss writes, and says so');
  assert.equal(w.writes.at(-1)?.value, 0x00);
});

test('the idle value: $00 under the harness convention, the highest value that ends nothing under a verdict', () => {
  assert.equal(pollingIdleValue({ classify: harnessClassify(0x80) }), 0x00);
  assert.equal(pollingIdleValue({ classify: verdictClassify({ pass: [0x00], fail: [0xff] }) }), 0xfe);
  assert.equal(pollingIdleValue({ classify: verdictClassify({ pass: [0x00, 0xfe], fail: [0xff] }) }), 0xfd);
});
