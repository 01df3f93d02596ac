// The virtual Ultimate on its own thread (what `serve --virtual-device` starts), with real sockets
// and a real worker thread: its REST API answers on the ports it reports, a pinned port that is
// taken rejects with the same PortInUseError as in-process, its debug stream paced by the shared
// credit loses nothing to a receiver that stops reading for longer than its socket buffer lasts,
// and stop() ends the thread and frees its ports.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { describe, test } from 'node:test';
import { DEBUG_DATAGRAM_BYTES, datagramSequence, UltimateDevice } from '../../../../../engines/ultimate/index.js';
import { PortInUseError, VirtualUltimateThread } from '../../../../../engines/ultimate/virtual/index.js';
import { canBind, occupyPort } from '../../../../helpers/ports.js';

/** Blocks this thread (the receiver's) for `ms`: nothing is read off the socket meanwhile. */
const blockThread = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('VirtualUltimateThread', () => {
  test('the device answers on its ports; stop() ends the thread and frees them', async () => {
    const dev = await VirtualUltimateThread.start({ speed: 'max' });
    let stopped = false;
    try {
      await dev.startClock();
      assert.equal(dev.identity.virtual, true);
      const device = new UltimateDevice({ baseUrl: `http://127.0.0.1:${dev.ports.http}` });
      const info = await device.rest.info();
      assert.equal(info.unique_id, dev.identity.unique_id, "the REST API is the thread's device");
      const before = await dev.stats();
      await device.rest.readMemory(0x0400, 16);
      const after = await dev.stats();
      assert.ok(after.executed > before.executed, 'its clock runs');
      await dev.stop();
      stopped = true;
      for (const port of [dev.ports.http, dev.ports.ftp, dev.ports.dma]) assert.ok(await canBind(port), `port ${port} is free after stop`);
      await assert.rejects(dev.stats(), /thread is gone/);
    } finally {
      if (!stopped) await dev.stop();
    }
  });

  test('a pinned port that is taken rejects with PortInUseError naming the service, as in-process', async () => {
    const taken = await occupyPort();
    try {
      await assert.rejects(VirtualUltimateThread.start({ dmaPort: taken.port }), (e: unknown) => {
        assert.ok(e instanceof PortInUseError, `a PortInUseError, got ${String(e)}`);
        assert.equal(e.role, 'DMA');
        assert.equal(e.port, taken.port);
        assert.equal(e.code, 'EADDRINUSE');
        return true;
      });
    } finally {
      await taken.release();
    }
  });

  test('its stream, paced by the credit, loses nothing while the receiver stops reading for 400 ms', async () => {
    const dev = await VirtualUltimateThread.start({ speed: 'max' });
    const socket = dgram.createSocket({ type: 'udp4', recvBufferSize: 256 * 1024 });
    try {
      await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
      const port = socket.address().port;
      const sequences: number[] = [];
      let enough!: () => void;
      const done = new Promise<void>((r) => {
        enough = r;
      });
      socket.on('message', (msg) => {
        if (msg.length !== DEBUG_DATAGRAM_BYTES) return; // the firmware's probes
        dev.streamCredit.took();
        sequences.push(datagramSequence(msg));
        if (sequences.length === 200) blockThread(400); // at full speed the device makes thousands meanwhile
        if (sequences.length === 6000) enough();
      });
      dev.streamCredit.attach(port, socket.getRecvBufferSize());
      await dev.startClock();
      const device = new UltimateDevice({ baseUrl: `http://127.0.0.1:${dev.ports.http}` });
      await device.rest.setConfigItem('Data Streams', 'Debug Stream Mode', '6510 & VIC');
      await device.rest.streamStart('debug', `127.0.0.1:${port}`);
      await done;
      await device.rest.streamStop('debug');
      dev.streamCredit.detach(port);
      const gaps = sequences.slice(1).filter((s, i) => s !== ((sequences[i]! + 1) & 0xffff)).length;
      assert.equal(gaps, 0, 'every datagram arrived, in order');
      const stats = await dev.stats();
      assert.ok(stats.waits > 0, 'the device held its stream back while the receiver did not read');
    } finally {
      socket.close();
      await dev.stop();
    }
  });
});
