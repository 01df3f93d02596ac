// The DMA service's firmware-3.15 details that the client never relies on but the virtual device
// must reproduce: FF05's read-then-wait order and its tick, a payload stalled past the receive
// timeout performed as if complete, FF08 (KERNAL replacement) and FF0C (power off).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startRig, waitFor } from '../../helpers.js';
import { VirtualDmaServer, type DmaDevice } from '../../../../../engines/ultimate/virtual/device/dma-server.js';

/** A device that records what the DMA server asks of it. */
function recordingDevice(): DmaDevice & { log: string[]; writes: Array<{ address: number; bytes: number[] }> } {
  const log: string[] = [];
  const writes: Array<{ address: number; bytes: number[] }> = [];
  return {
    log,
    writes,
    loadPrg: () => log.push('load'),
    writeMemory: (address, bytes) => {
      writes.push({ address, bytes: [...bytes] });
      log.push(`write ${address.toString(16)}`);
    },
    typeKeys: () => log.push('keys'),
    reset: () => log.push('reset'),
    writeReu: () => log.push('reu'),
    identify: () => 'test device',
    debugRegister: 0,
    startDebugStream: async () => undefined,
    stopDebugStream: () => undefined,
    defaultDebugDestination: () => '127.0.0.1:1',
    powerOff: () => log.push('poweroff'),
    replaceKernal: () => log.push('kernal'),
  };
}

function frame(cmd: number, payload: number[], declared = payload.length): Buffer {
  const b = Buffer.alloc(4 + payload.length);
  b.writeUInt16LE(cmd, 0);
  b.writeUInt16LE(declared, 2);
  Buffer.from(payload).copy(b, 4);
  return b;
}

async function connect(port: number): Promise<{ sock: net.Socket; received: () => Buffer; closed: () => boolean }> {
  const sock = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  let data = Buffer.alloc(0);
  let closed = false;
  sock.on('data', (d: Buffer) => {
    data = Buffer.concat([data, d]);
  });
  sock.on('close', () => {
    closed = true;
  });
  return { sock, received: () => data, closed: () => closed };
}

describe('DMA FF05 wait', () => {
  const servers: VirtualDmaServer[] = [];
  after(async () => {
    for (const s of servers) await s.close();
  });

  test('reads its `length` payload bytes first, then waits `length` ticks of 5 ms (200 Hz), and only then performs the next command', async () => {
    const dev = recordingDevice();
    const waits: number[] = [];
    let release: () => void = () => undefined;
    const server = new VirtualDmaServer({
      device: dev,
      idleCloseMs: null,
      sleep: (ms) => {
        waits.push(ms);
        dev.log.push('wait');
        return new Promise<void>((r) => {
          release = r;
        });
      },
    });
    servers.push(server);
    const port = await server.listen(0);
    const c = await connect(port);
    // FF05 declares 4 payload bytes; send only 2 of them, then the other 2 followed by a DMA write
    // and an identify. Had the server not read the payload, it would parse those bytes as commands.
    c.sock.write(frame(0xff05, [0xff, 0x06], 4).subarray(0, 6));
    c.sock.write(Buffer.concat([Buffer.from([0x01, 0x00]), frame(0xff06, [0x00, 0x60, 0xaa]), frame(0xff0e, [])]));
    await waitFor(
      'the wait to start',
      () => waits.length,
      (n) => n === 1,
    );
    assert.deepEqual(waits, [4 * 5], 'four ticks of 5 ms');
    assert.deepEqual(dev.log, ['wait'], 'the DMA write waits behind FF05');
    release();
    await waitFor(
      'the identify answer',
      () => c.received().length,
      (n) => n >= 1 + 'test device'.length,
    );
    assert.deepEqual(dev.log, ['wait', 'write 6000']);
    assert.deepEqual(dev.writes, [{ address: 0x6000, bytes: [0xaa] }]);
    c.sock.destroy();
  });
});

describe('DMA receive timeout inside a payload (firmware 3.15)', () => {
  const servers: VirtualDmaServer[] = [];
  after(async () => {
    for (const s of servers) await s.close();
  });

  test('a stalled payload is performed with its declared length, the tail taken from the load buffer; the late bytes are read as commands', async () => {
    const dev = recordingDevice();
    const server = new VirtualDmaServer({ device: dev, idleCloseMs: 200 });
    servers.push(server);
    const port = await server.listen(0);
    const c = await connect(port);
    // A complete write leaves 00 70 11 22 33 44 in the load buffer.
    c.sock.write(frame(0xff06, [0x00, 0x70, 0x11, 0x22, 0x33, 0x44]));
    await waitFor(
      'the first write',
      () => dev.writes.length,
      (n) => n === 1,
    );
    // Now 6 bytes declared but only 4 sent: after the receive timeout the write is performed with
    // 4 bytes of data, the last two being the stale 33 44.
    c.sock.write(frame(0xff06, [0x00, 0x80, 0x55, 0x66, 0x77, 0x88]).subarray(0, 8));
    await waitFor(
      'the stalled write',
      () => dev.writes.length,
      (n) => n === 2,
    );
    assert.deepEqual(dev.writes[1], { address: 0x8000, bytes: [0x55, 0x66, 0x33, 0x44] });
    assert.equal(c.closed(), false, 'a short read keeps the connection');
    // The missing tail arrives late: it is parsed as the start of the next command. 0E FF is an
    // identify; with its zero length it is answered.
    c.sock.write(Buffer.from([0x0e, 0xff, 0x00, 0x00]));
    await waitFor(
      'the identify answer',
      () => c.received().length,
      (n) => n >= 1 + 'test device'.length,
    );
    // Then nothing: idle for the receive timeout while waiting for a command closes the connection.
    await waitFor(
      'the idle close',
      () => c.closed(),
      (v) => v,
    );
  });

  test('with firmware 3.14 (no receive timeout) a payload waits for its bytes however long', async () => {
    const dev = recordingDevice();
    let waited = 0;
    const server = new VirtualDmaServer({
      device: dev,
      idleCloseMs: null,
      sleep: async () => {
        waited++;
      },
    });
    servers.push(server);
    const port = await server.listen(0);
    const c = await connect(port);
    c.sock.write(frame(0xff06, [0x00, 0x80, 0x55, 0x66]).subarray(0, 6));
    // An FF05 on a second connection proves the server is serving while the first payload waits.
    const d = await connect(port);
    d.sock.write(Buffer.concat([frame(0xff05, [0]), frame(0xff0e, [])]));
    await waitFor(
      'the second connection',
      () => d.received().length,
      (n) => n > 0,
    );
    assert.equal(waited, 1);
    assert.equal(dev.writes.length, 0, 'the incomplete write is not performed');
    c.sock.write(Buffer.from([0x55, 0x66]));
    await waitFor(
      'the completed write',
      () => dev.writes.length,
      (n) => n === 1,
    );
    assert.deepEqual(dev.writes[0], { address: 0x8000, bytes: [0x55, 0x66] });
    c.sock.destroy();
    d.sock.destroy();
  });
});

describe('DMA FF08 and FF0C on the virtual device', () => {
  test('FF08 replaces the KERNAL ROM with the 8 KiB after two ignored bytes; FF0C powers the machine off', {
    timeout: 60_000,
  }, async () => {
    const rig = await startRig();
    try {
      const dma = await rig.device.openDma();
      try {
        const kernal = Uint8Array.from({ length: 8192 }, (_, i) => (i * 13 + 5) & 0xff);
        assert.notEqual(rig.virtual.machine.peek(0xe123), kernal[0x123]);
        dma.send(0xff08, Uint8Array.from([0xde, 0xad, ...kernal]));
        await dma.identify();
        // $01 after reset maps the KERNAL at $E000.
        assert.equal(rig.virtual.machine.peek(0xe123), kernal[0x123]);
        assert.equal(rig.virtual.machine.peek(0xffff), kernal[0x1fff]);
        assert.equal(rig.virtual.clock.isHeld('power-off'), false);
        dma.send(0xff0c);
        await dma.identify();
        assert.equal(rig.virtual.clock.isHeld('power-off'), true);
      } finally {
        dma.close();
      }
    } finally {
      await rig.close();
    }
  });

  test('on an Ultimate-II+ FF0C is not implemented: the machine keeps running', { timeout: 60_000 }, async () => {
    const rig = await startRig({ product: 'u2plus' });
    try {
      const dma = await rig.device.openDma();
      try {
        dma.send(0xff0c);
        await dma.identify();
        assert.equal(rig.virtual.clock.isHeld('power-off'), false);
      } finally {
        dma.close();
      }
    } finally {
      await rig.close();
    }
  });
});
