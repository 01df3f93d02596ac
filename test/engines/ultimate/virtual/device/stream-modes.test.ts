// The debug stream over UDP as the firmware's "Debug Stream Mode" and the product shape it: the
// VIC's stolen cycles are visible (BA low, gaps), "6510 & VIC" gives two entries per clock, and an
// Ultimate-II+ uses its own bit layout, which the decoder reads per product.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startRig, type Rig } from '../../helpers.js';
import { datagramEntries, decodeEntry, readCaptureFile } from '../../../../../engines/ultimate/index.js';

async function captureEntries(rig: Rig, name: string, datagrams = 60): Promise<number[]> {
  const summary = await rig.device.captureDebugStream({
    file: join(rig.dir, name),
    receiverHost: '127.0.0.1',
    bindAddress: '127.0.0.1',
    port: 0,
    maxDatagrams: datagrams,
    maxDurationMs: 30_000,
  });
  assert.equal(summary.datagrams, datagrams);
  const parsed = await readCaptureFile(summary.file);
  return parsed.records.flatMap((r) => [...datagramEntries(r.datagram)]);
}

describe('debug stream modes on the virtual U64', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig.close();
  });

  test('"6510 Only" (default): bad lines show as BA-low entries (the display is on after reset)', { timeout: 60_000 }, async () => {
    await rig.device.rest.reset();
    const cycles = (await captureEntries(rig, 'cpu.u64cap')).map((e) => decodeEntry(e));
    assert.ok(
      cycles.every((c) => c.phi2),
      'CPU halves only',
    );
    const baLow = cycles.filter((c) => !c.ba);
    assert.ok(baLow.length > 0, 'some entries were taken while BA was low');
    assert.ok(
      baLow.every((c) => c.access === 'vic' || c.access === 'write'),
      'a read with BA low is only the CPU waiting, never counted as a read',
    );
  });

  test('"6510 & VIC": two entries per clock, the VIC half with PHI2 low', { timeout: 60_000 }, async () => {
    await rig.device.rest.setConfigItem('Data Streams', 'Debug Stream Mode', '6510 & VIC');
    try {
      const entries = await captureEntries(rig, 'vic.u64cap');
      const vicHalves = entries.filter((e) => (e & 0x80000000) === 0).length;
      assert.ok(Math.abs(vicHalves - entries.length / 2) <= 1, `${vicHalves} VIC halves of ${entries.length}`);
    } finally {
      await rig.device.rest.setConfigItem('Data Streams', 'Debug Stream Mode', '6510 Only');
    }
  });
});

describe('debug stream of a virtual Ultimate-II+', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ product: 'u2plus' });
  });
  after(async () => {
    await rig.close();
  });

  test('entries are in the U2+ layout: BA on bit 27, IRQ# on 26, cartridge ROM select on 28', { timeout: 60_000 }, async () => {
    assert.equal(await rig.device.family(), 'u2plus');
    const entries = await captureEntries(rig, 'u2p.u64cap');
    const cycles = entries.map((e) => decodeEntry(e, 'u2plus'));
    assert.ok(
      cycles.every((c) => !c.romLine),
      'no cartridge: ROML/ROMH never selected',
    );
    const kernalReads = cycles.filter((c) => c.access === 'read' && c.address >= 0xe000);
    assert.ok(kernalReads.length > 0, 'KERNAL reads decode as reads (BA taken from bit 27)');
    // Read with the U64 table, bit 28 (the U2+ ROM select, always 0 here) would look like BA low
    // on every entry: no entry would be a read.
    assert.equal(entries.map((e) => decodeEntry(e, 'u64')).filter((c) => c.access === 'read').length, 0);
  });
});
