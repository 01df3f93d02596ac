// The debug stream's UDP source port: the firmware sends from 6510 (data_streamer.cc); the virtual
// streamer takes 6510 when free and an ephemeral port otherwise (or when told 0). The capture's
// accounting depends only on datagram length and sequence, never on where a datagram came from.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { join } from 'node:path';
import { startRig, waitFor } from '../../helpers.js';
import { DebugStreamCapture, DEBUG_DATAGRAM_BYTES } from '../../../../../engines/ultimate/index.js';
import { DEBUG_STREAM_SOURCE_PORT } from '../../../../../engines/ultimate/virtual/device/debug-streamer.js';

async function bindUdp(port: number): Promise<dgram.Socket> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    s.once('error', (err) => {
      s.close();
      reject(err);
    });
    s.bind(port, '127.0.0.1', () => {
      s.removeAllListeners('error');
      resolve();
    });
  });
  return s;
}

const closeUdp = (s: dgram.Socket) => new Promise<void>((r) => s.close(() => r()));

/** Starts the virtual device's debug stream toward a receiver and returns the first data datagram's source port. */
async function streamSourcePort(opts: { streamSourcePort?: number }): Promise<{ port: number; bound: number | undefined }> {
  const rig = await startRig(opts);
  const receiver = await bindUdp(0);
  const sources: number[] = [];
  receiver.on('message', (msg, rinfo) => {
    if (msg.length === DEBUG_DATAGRAM_BYTES) sources.push(rinfo.port);
  });
  try {
    await rig.device.rest.streamStart('debug', `127.0.0.1:${receiver.address().port}`);
    await waitFor(
      'a debug datagram',
      () => sources.length,
      (n) => n > 0,
    );
    await rig.device.rest.streamStop('debug');
    return { port: sources[0]!, bound: rig.virtual.streamer.boundSourcePort };
  } finally {
    await closeUdp(receiver);
    await rig.close();
  }
}

/** Binds 6510 once it can be bound (a condition polled, with a deadline): the caller holds it. */
async function hold6510(): Promise<dgram.Socket> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await bindUdp(DEBUG_STREAM_SOURCE_PORT);
    } catch {
      if (Date.now() > deadline) throw new Error('UDP port 6510 stayed taken for 20 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

describe('debug stream source port', () => {
  test('by default the stream comes from 6510 when it is free, else from an ephemeral port', { timeout: 60_000 }, async () => {
    // Other test files run virtual devices at the same time and may hold 6510 at the moment this
    // streamer binds, even when it was free a moment before: a fallback is then the right answer,
    // so the run is repeated (a few times at most) until one binds while 6510 is free.
    let usedDefault = false;
    for (let attempt = 0; attempt < 5 && !usedDefault; attempt++) {
      await closeUdp(await hold6510());
      const { port, bound } = await streamSourcePort({});
      assert.equal(port, bound, 'datagrams leave from the bound port');
      usedDefault = port === DEBUG_STREAM_SOURCE_PORT;
      if (!usedDefault) assert.ok(port > 1024, `the fallback is an ephemeral port, got ${port}`);
    }
    assert.ok(usedDefault, 'in five runs the stream never came from 6510');
  });

  test('with 6510 taken the default falls back to an ephemeral port instead of failing', { timeout: 60_000 }, async () => {
    // Held by this test for the whole run, so the streamer surely finds it taken.
    const holder = await hold6510();
    try {
      const { port, bound } = await streamSourcePort({});
      assert.equal(port, bound);
      assert.notEqual(port, DEBUG_STREAM_SOURCE_PORT);
    } finally {
      await closeUdp(holder);
    }
  });

  test('sourcePort 0 takes an ephemeral port; an explicit port is used as given', { timeout: 60_000 }, async () => {
    const eph = await streamSourcePort({ streamSourcePort: 0 });
    assert.notEqual(eph.port, DEBUG_STREAM_SOURCE_PORT);
    assert.equal(eph.port, eph.bound);
    const probe = await bindUdp(0);
    const chosen = probe.address().port;
    await closeUdp(probe);
    const explicit = await streamSourcePort({ streamSourcePort: chosen });
    assert.equal(explicit.port, chosen);
  });
});

describe('capture accounting is independent of the source port', () => {
  test('probes and data from three different source ports are counted by length and sequence alone', { timeout: 30_000 }, async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'u2-srcport-'));
    const cap = await DebugStreamCapture.open({
      file: join(dir, 'ports.u64cap'),
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 4,
      maxDurationMs: 60_000,
    });
    const senders = [await bindUdp(0), await bindUdp(0), await bindUdp(0)];
    try {
      const datagram = (seq: number) => {
        const b = Buffer.alloc(DEBUG_DATAGRAM_BYTES);
        b.writeUInt16LE(seq, 0);
        return b;
      };
      const plan: Array<[number, Buffer]> = [
        [0, Buffer.alloc(2)],
        [1, datagram(0)],
        [2, datagram(1)],
        [0, datagram(2)],
        [1, datagram(4)],
      ];
      for (const [from, d] of plan) {
        const s = senders[from]!;
        await new Promise<void>((r, j) => s.send(d, cap.address.port, '127.0.0.1', (e) => (e ? j(e) : r())));
      }
      await cap.boundReached;
      const summary = await cap.finish();
      assert.equal(summary.probes, 1);
      assert.equal(summary.datagrams, 4);
      assert.equal(summary.missing, 1, 'sequence 3 is missing, whatever port each datagram came from');
      assert.equal(summary.outOfOrder, 0);
      assert.equal(summary.malformed, 0);
    } finally {
      for (const s of senders) await closeUdp(s);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
