// The virtual Ultimate keeps one REU memory: what DMA command FF07 (writeReu) and the REU preload
// put there is what the C64's REC at $DF00 fetches, what the C64 stashes is what readReu shows,
// and the settings "RAM Expansion Unit" / "REU Size" decide whether the REC is there and its size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualUltimate } from '../../../../../engines/ultimate/virtual/index.js';
import type { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';

const CAT = 'C64 and Cartridge Settings';

/** Programs the REC through its registers as a CPU write would, and lets the transfer run. */
function recTransfer(m: C64Machine, command: number, c64: number, reu: number, length: number): void {
  const regs = [c64 & 0xff, c64 >> 8, reu & 0xff, (reu >> 8) & 0xff, reu >> 16, length & 0xff, length >> 8];
  for (const [i, v] of regs.entries()) m.poke(0xdf02 + i, v);
  m.poke(0xdf01, command);
  m.run(100);
}

test('DMA writes into the REU are what the C64 fetches; C64 stashes are what readReu shows', async () => {
  const dev = await VirtualUltimate.start({ reuKb: 256, autoStart: false, vicePort: null });
  try {
    const m = dev.machine as unknown as C64Machine;
    assert.equal(m.reuKb, 256);
    assert.equal(dev.reuSizeKb(), 256);
    assert.equal(dev.config.get(CAT, 'RAM Expansion Unit'), 'Enabled');
    assert.equal(dev.config.get(CAT, 'REU Size'), '256 KB');
    const image = Uint8Array.from({ length: 32 }, (_, i) => (i * 11 + 3) & 0xff);
    dev.writeReu(0x10000, image);
    recTransfer(m, 0x91, 0xc000, 0x10000, image.length); // fetch REU → C64, execute now
    assert.deepEqual(m.ram.subarray(0xc000, 0xc000 + image.length), image);
    m.ram.set(Uint8Array.of(0xde, 0xad, 0xbe, 0xef), 0xc100);
    recTransfer(m, 0x90, 0xc100, 0x20000, 4); // stash C64 → REU
    assert.deepEqual(dev.readReu(0x20000, 4), Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
    // Beyond the REU's 256 KiB the REC sees no DRAM: the device memory there is not reached.
    dev.writeReu(0x50000, Uint8Array.of(0x77));
    recTransfer(m, 0x91, 0xc200, 0x50000, 1);
    assert.notEqual(m.ram[0xc200], 0x77);
  } finally {
    await dev.stop();
  }
});

test('the REU settings choose the REC at the next reset; the memory is kept', async () => {
  const dev = await VirtualUltimate.start({
    autoStart: false,
    vicePort: null,
    config: { [CAT]: { 'RAM Expansion Unit': 'Enabled', 'REU Size': '128 KB' } },
  });
  try {
    const m = dev.machine as unknown as C64Machine;
    assert.equal(m.reuKb, 128);
    dev.writeReu(0x1234, Uint8Array.of(0x5a));
    assert.equal(dev.config.set(CAT, 'REU Size', '1 MB'), undefined);
    assert.equal(m.reuKb, 128, 'a settings change waits for the reset');
    dev.reset();
    assert.equal(m.reuKb, 1024);
    recTransfer(m, 0x91, 0xc000, 0x1234, 1);
    assert.equal(m.ram[0xc000], 0x5a);
    assert.equal(dev.config.set(CAT, 'RAM Expansion Unit', 'Disabled'), undefined);
    dev.reset();
    assert.equal(m.reuKb, 0);
    assert.equal(m.reu, undefined);
    // No REC at $DF00: its C64 address register does not keep what is written (the read is the
    // open bus — what the VIC-II fetched in that clock's phi1, vic-phi1.ts).
    m.poke(0xdf02, 0xa5);
    assert.notEqual(m.peek(0xdf02), 0xa5, 'no REC at $DF00');
  } finally {
    await dev.stop();
  }
});

test('without REU settings or reuKb there is no REU, and a bad reuKb is refused by name', async () => {
  const dev = await VirtualUltimate.start({ autoStart: false, vicePort: null });
  try {
    assert.equal((dev.machine as unknown as C64Machine).reuKb, 0);
  } finally {
    await dev.stop();
  }
  await assert.rejects(VirtualUltimate.start({ reuKb: 300, autoStart: false, vicePort: null }), /reuKb must be 0 \(no REU\) or one of/);
});
