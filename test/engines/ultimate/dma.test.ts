// The DMA service (TCP port 64): FF1F authentication, REU writes with the byte count reported back,
// raw memory writes, identify and the debug register.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { basicSysPrg, startRig, waitFor, type Rig } from './helpers.js';
import { DMA_COMMANDS, DmaConnection, UltimateError, REU_MAX_CHUNK } from '../../../engines/ultimate/index.js';

describe('DMA service with a password', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ password: 'dma-pw' });
  });
  after(async () => {
    await rig.close();
  });

  test('an REU image larger than one frame is written in full and reported', async () => {
    const image = Uint8Array.from({ length: 3 * REU_MAX_CHUNK + 1000 }, (_, i) => (i * 7 + (i >> 9)) & 0xff);
    const res = await rig.device.writeReu(image, 0x10000);
    assert.deepEqual(res, { offset: 0x10000, bytesWritten: image.length, frames: 4 });
    assert.deepEqual(rig.virtual.readReu(0x10000, image.length), image);
    assert.equal(rig.virtual.readReu(0xffff, 1)[0], 0);
  });

  test('REU bounds are checked before sending', async () => {
    await assert.rejects(
      rig.device.writeReu(new Uint8Array(10), 0xfffffa),
      (e: unknown) => e instanceof UltimateError && e.kind === 'bad-input',
    );
  });

  test('identify, debug register read/write and raw memory writes', async () => {
    const dma = await rig.device.openDma();
    try {
      assert.match(await dma.identify(), /virtual/i);
      await rig.device.rest.setDebugRegister(0x11);
      assert.equal(await dma.debugRegister(0x22), 0x11);
      assert.equal(await rig.device.rest.debugRegister(), 0x22);
      await dma.writeMemory(0x6000, Uint8Array.of(9, 8, 7));
      assert.deepEqual([...(await rig.device.rest.readMemory(0x6000, 3))], [9, 8, 7]);
    } finally {
      dma.close();
    }
  });

  test('DMA run (FF02) starts a PRG; FF22/FF32 start and stop the debug stream', async () => {
    const { DebugStreamCapture, readCaptureFile, cpuWrites } = await import('../../../engines/ultimate/index.js');
    const { join } = await import('node:path');
    // BASIC stub, then $080D: LDA #$6B / STA $D7FF / JMP $0812 (FF02 types RUN, as the boot cart does)
    const prg = basicSysPrg([0xa9, 0x6b, 0x8d, 0xff, 0xd7, 0x4c, 0x12, 0x08]);
    const cap = await DebugStreamCapture.open({
      file: join(rig.dir, 'dma.u64cap'),
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 100_000,
      maxDurationMs: 60_000,
    });
    const dma = await rig.device.openDma();
    try {
      const name = Buffer.from(`127.0.0.1:${cap.address.port}`, 'latin1');
      dma.send(DMA_COMMANDS.debugStreamOn, Buffer.concat([Buffer.alloc(2), name]));
      dma.send(DMA_COMMANDS.dmaRun, prg);
      await dma.identify();
      // Firmware 3.15 closes a DMA connection idle for 1 s: hold none while polling REST.
      dma.close();
      const start = Date.now();
      while ((await rig.device.rest.debugRegister()) !== 0x6b) {
        assert.ok(Date.now() - start < 15_000, 'DMA-run program did not write the debug register');
        await new Promise((r) => setTimeout(r, 20));
      }
      const seen = cap.recorded;
      while (cap.recorded < seen + 5) await new Promise((r) => setTimeout(r, 10));
      const stop = await rig.device.openDma();
      try {
        stop.send(DMA_COMMANDS.debugStreamOff);
        await stop.identify();
      } finally {
        stop.close();
      }
    } finally {
      dma.close();
    }
    const summary = await cap.finish();
    const parsed = await readCaptureFile(summary.file);
    assert.equal(parsed.valid, true);
    assert.ok(parsed.records.some((r) => cpuWrites(r.datagram).some((w) => w.address === 0xd7ff && w.data === 0x6b)));
    assert.equal(rig.virtual.streamer.active, false);
  });

  test('FF09 carries the jump address before the PRG; FF01 resets and loads without running', async () => {
    const dma = await rig.device.openDma();
    try {
      // Jump to $C103; the PRG at $C100 starts with three bytes the CPU must skip.
      const prg = Uint8Array.of(0x00, 0xc1, 0x02, 0x02, 0x02, 0xa9, 0x4a, 0x8d, 0xff, 0xd7, 0x4c, 0x08, 0xc1);
      await dma.loadPrg(prg, 'jump', 0xc103);
    } finally {
      dma.close();
    }
    await waitFor(
      'debug register $4A',
      () => rig.device.rest.debugRegister(),
      (v) => v === 0x4a,
    );
    const dma2 = await rig.device.openDma();
    try {
      await dma2.loadPrg(basicSysPrg([0xa9, 0x4b, 0x8d, 0xff, 0xd7, 0x4c, 0x12, 0x08]), 'load');
    } finally {
      dma2.close();
    }
    assert.equal(await rig.device.rest.debugRegister(), 0, 'the reset cleared the register and nothing ran');
    const before = rig.virtual.clock.executed;
    await waitFor(
      '200k clocks',
      () => rig.virtual.clock.executed,
      (n) => n > before + 200_000,
    );
    assert.equal(await rig.device.rest.debugRegister(), 0);
  });

  test('a wrong password is refused; a command before authentication closes the connection', async () => {
    await assert.rejects(
      DmaConnection.open({ host: '127.0.0.1', port: rig.virtual.ports.dma, password: 'bad', timeoutMs: 5000 }),
      (e: unknown) => e instanceof UltimateError && e.kind === 'forbidden',
    );
    const unauth = await DmaConnection.open({ host: '127.0.0.1', port: rig.virtual.ports.dma, timeoutMs: 5000 });
    await assert.rejects(unauth.identify(), (e: unknown) => e instanceof UltimateError && e.kind === 'network');
    unauth.close();
  });

  test('garbage on the port does not crash the service', async () => {
    const s = net.connect({ host: '127.0.0.1', port: rig.virtual.ports.dma });
    await new Promise<void>((r) => s.once('connect', () => r()));
    s.write(Buffer.from([0x00, 0x12, 0x34, 0xff, 0x07]));
    await new Promise<void>((r) => {
      s.once('close', () => r());
      s.end();
    });
    assert.equal(await rig.device.rest.version(), '0.1');
  });
});

/** A raw TCP client on the DMA port: bytes in, bytes out, and when the device closed it. */
async function rawDma(port: number): Promise<{ sock: net.Socket; received: () => Buffer; closed: Promise<void> }> {
  const sock = net.connect({ host: '127.0.0.1', port });
  await new Promise<void>((r) => sock.once('connect', () => r()));
  let got = Buffer.alloc(0);
  sock.on('data', (d: Buffer) => {
    got = Buffer.concat([got, d]);
  });
  const closed = new Promise<void>((r) => sock.once('close', () => r()));
  return { sock, received: () => got, closed };
}

function frame(cmd: number, payload: Uint8Array, longLength = false): Buffer {
  const head = Buffer.alloc(longLength ? 5 : 4);
  head.writeUInt16LE(cmd, 0);
  head.writeUInt16LE(payload.length & 0xffff, 2);
  if (longLength) head[4] = payload.length >> 16;
  return Buffer.concat([head, payload]);
}

describe('DMA service: firmware 3.15 details', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ dmaIdleCloseMs: 300 });
  });
  after(async () => {
    await rig.close();
  });

  test('an idle connection is closed by the device; DmaConnection opens a new one for the next command', { timeout: 20_000 }, async () => {
    const raw = await rawDma(rig.virtual.ports.dma);
    await raw.closed; // nothing sent: the device hangs up on its own
    assert.equal(raw.received().length, 0);
    const dma = await DmaConnection.open({ host: '127.0.0.1', port: rig.virtual.ports.dma, timeoutMs: 5000, idleReconnectMs: 60_000 });
    try {
      assert.match(await dma.identify(), /virtual/i);
      await waitFor(
        'the device closing the idle connection',
        () => dma.closedByDevice,
        (c) => c,
      );
      assert.match(await dma.identify(), /virtual/i, 'the next command reconnected');
      assert.equal(dma.reconnects, 1);
    } finally {
      dma.close();
    }
  });

  test('firmware 3.14 keeps an idle connection open', { timeout: 20_000 }, async () => {
    const old = await startRig({ firmware: '3.14' });
    try {
      const keep = await rawDma(old.virtual.ports.dma);
      const dropped = await rawDma(rig.virtual.ports.dma);
      await dropped.closed; // the 3.15 device closed its idle connection; the 3.14 one must not have
      keep.sock.write(frame(0xff0e, new Uint8Array(0)));
      await waitFor(
        'identify on the 3.14 connection',
        () => keep.received().length,
        (n) => n > 1,
      );
      keep.sock.destroy();
    } finally {
      await old.close();
    }
  });

  test('FF0B carries a 24-bit length: the frame is skipped whole and the next command answered', async () => {
    const raw = await rawDma(rig.virtual.ports.dma);
    raw.sock.write(Buffer.concat([frame(0xff0b, new Uint8Array(70_000), true), frame(0xff0e, new Uint8Array(0))]));
    await waitFor(
      'identify after FF0B',
      () => raw.received().length,
      (n) => n > 1,
    );
    assert.match(raw.received().subarray(1).toString('latin1'), /virtual/i);
    raw.sock.destroy();
  });

  test('FF03 copies every byte to $0277 and sets $C6 to the count (no cap at 10)', async () => {
    await rig.device.rest.pause();
    try {
      const keys = Buffer.from('ABCDEFGHIJK', 'latin1'); // 11 keys
      const dma = await rig.device.openDma();
      try {
        dma.send(DMA_COMMANDS.keyboard, keys);
        await dma.identify();
      } finally {
        dma.close();
      }
      assert.deepEqual([...(await rig.device.rest.readMemory(0x0277, 11))], [...keys]);
      assert.deepEqual([...(await rig.device.rest.readMemory(0x00c6, 1))], [11]);
    } finally {
      await rig.device.rest.writeMemory(0x00c6, Uint8Array.of(0));
      await rig.device.rest.resume();
      await rig.device.rest.reset();
    }
  });

  test('FF22 without a destination streams to the configured "Stream Debug to"', { timeout: 30_000 }, async () => {
    const { DebugStreamCapture } = await import('../../../engines/ultimate/index.js');
    const { join } = await import('node:path');
    const cap = await DebugStreamCapture.open({
      file: join(rig.dir, 'ff22.u64cap'),
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 20,
      maxDurationMs: 20_000,
    });
    try {
      await rig.device.rest.setConfigItem('Data Streams', 'Stream Debug to', `127.0.0.1:${cap.address.port}`);
      const dma = await rig.device.openDma();
      try {
        dma.send(DMA_COMMANDS.debugStreamOn, Buffer.alloc(2)); // duration 0 = until stopped, no host
        await dma.identify();
      } finally {
        dma.close();
      }
      await cap.boundReached;
    } finally {
      await rig.device.rest.streamStop('debug');
    }
    const summary = await cap.finish();
    assert.equal(summary.datagrams, 20);
    assert.ok(summary.probes >= 1, 'the unicast stream was announced by probes');
  });
});

describe('DMA service on an Ultimate-II+', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ product: 'u2plus' });
  });
  after(async () => {
    await rig.close();
  });

  test('FF76 is not answered: the client says unsupported at once instead of waiting for its timeout', { timeout: 20_000 }, async () => {
    const dma = await DmaConnection.open({ host: '127.0.0.1', port: rig.virtual.ports.dma, timeoutMs: 60_000 });
    try {
      await assert.rejects(dma.debugRegister(), (e: unknown) => e instanceof UltimateError && e.kind === 'unsupported');
      // The connection is still in step: the next identify gets its own answer.
      assert.match(await dma.identify(), /Ultimate-II\+/);
    } finally {
      dma.close();
    }
    await assert.rejects(rig.device.rest.debugRegister(), (e: unknown) => e instanceof UltimateError && e.kind === 'unknown-route');
  });
});
