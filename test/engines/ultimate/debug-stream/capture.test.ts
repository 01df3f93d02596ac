// Debug-stream capture: bounds with explicit truncation, gap counting under deliberate loss and
// reordering, a self-verifying file (SHA-256), decoding, and multicast delivery.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startRig, type Rig } from '../helpers.js';
import {
  DebugStreamCapture,
  SequenceTracker,
  decodeEntry,
  encodeEntry,
  parseCapture,
  readCaptureFile,
  DEBUG_DATAGRAM_BYTES,
  DEBUG_ENTRIES_PER_DATAGRAM,
  datagramEntries,
} from '../../../../engines/ultimate/index.js';

const DROP_PERIOD = 7;

describe('debug-stream capture', () => {
  let rig: Rig;
  before(async () => {
    // Every 7th datagram (ordinal 3, 10, 17, …) is dropped on purpose by the virtual streamer.
    rig = await startRig({ dropDatagram: (_seq, ordinal) => ordinal % DROP_PERIOD === 3 });
  });
  after(async () => {
    await rig.close();
  });

  test('under deliberate loss: gaps counted exactly, capture still valid, count bound explicit', async () => {
    const summary = await rig.device.captureDebugStream({
      file: join(rig.dir, 'lossy.u64cap'),
      receiverHost: '127.0.0.1',
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 300,
      maxDurationMs: 60_000,
    });
    assert.equal(summary.datagrams, 300);
    assert.equal(summary.truncation, 'max-datagrams');
    const parsed = await readCaptureFile(summary.file);
    assert.equal(parsed.valid, true, parsed.problems.join('; '));
    assert.equal(parsed.sha256, summary.sha256);
    const seqs = parsed.records.map((r) => r.sequence);
    // The stream restarts at sequence 0 on start, and sequence = ordinal on this (unwrapped) run.
    const first = seqs[0]!,
      last = seqs.at(-1)!;
    let expectedDrops = 0;
    for (let s = first + 1; s < last; s++) if (s % DROP_PERIOD === 3) expectedDrops++;
    assert.ok(expectedDrops > 30);
    assert.equal(summary.gaps, expectedDrops);
    assert.equal(summary.missing, expectedDrops);
    assert.equal(summary.outOfOrder, 0);
    assert.ok(seqs.every((s) => s % DROP_PERIOD !== 3));
    assert.equal(parsed.stats.gaps, summary.gaps);
    // Every datagram is a full 1444-byte datagram whose entries decode to CPU bus cycles; the
    // virtual streamer's two pre-stream probes (as the firmware sends) are counted apart.
    assert.equal(summary.malformed, 0);
    assert.equal(summary.probes, 2);
    assert.equal(parsed.stats.probes, 2);
    const cycles = datagramEntries(parsed.records[0]!.datagram);
    assert.equal(cycles.length, DEBUG_ENTRIES_PER_DATAGRAM);
    assert.ok([...cycles].every((e) => decodeEntry(e).phi2));
  });

  test('decoded cycles show the jiffy IRQ: IRQ# asserted, then the vector fetched from ROM', async () => {
    await rig.device.rest.reset();
    const summary = await rig.device.captureDebugStream({
      file: join(rig.dir, 'irq.u64cap'),
      receiverHost: '127.0.0.1',
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 200,
      maxDurationMs: 60_000,
    });
    const parsed = await readCaptureFile(summary.file);
    const cycles = parsed.records.flatMap((r) => [...datagramEntries(r.datagram)].map((e) => decodeEntry(e)));
    assert.equal(cycles.length, 200 * DEBUG_ENTRIES_PER_DATAGRAM);
    const vector = cycles.findIndex((c, i) => c.access === 'read' && c.address === 0xfffe && cycles[i + 1]?.address === 0xffff);
    assert.ok(vector > 0, 'no IRQ vector fetch in the stream');
    assert.equal(cycles[vector]!.romLine, true);
    // The IRQ line was low in the cycles leading up to the interrupt sequence.
    assert.ok(cycles.slice(Math.max(0, vector - 10), vector).some((c) => c.irqAsserted));
    // And the machine is not stuck in the IRQ: most cycles have IRQ# high.
    assert.ok(cycles.filter((c) => !c.irqAsserted).length > cycles.length / 2);
  });

  test('duration bound: truncation says max-duration', async () => {
    const summary = await rig.device.captureDebugStream({
      file: join(rig.dir, 'short.u64cap'),
      receiverHost: '127.0.0.1',
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 10_000_000,
      maxDurationMs: 300,
    });
    assert.equal(summary.truncation, 'max-duration');
    assert.ok(summary.datagrams > 0);
    assert.equal((await readCaptureFile(summary.file)).valid, true);
  });

  test('stopping early through an AbortSignal finishes a valid capture with truncation none', async () => {
    const ac = new AbortController();
    const pending = rig.device.captureDebugStream({
      file: join(rig.dir, 'abort.u64cap'),
      receiverHost: '127.0.0.1',
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 10_000_000,
      maxDurationMs: 600_000,
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 200);
    const summary = await pending;
    assert.equal(summary.truncation, 'none');
    assert.equal(summary.droppedAfterBound, 0);
    const parsed = await readCaptureFile(summary.file);
    assert.equal(parsed.valid, true, parsed.problems.join('; '));
    assert.equal(parsed.stats.truncation, 'none');
  });

  test('an altered capture file fails verification', async () => {
    const summary = await rig.device.captureDebugStream({
      file: join(rig.dir, 'tamper.u64cap'),
      receiverHost: '127.0.0.1',
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 20,
      maxDurationMs: 60_000,
    });
    const buf = await readFile(summary.file);
    buf[100]! ^= 0xff;
    await writeFile(summary.file, buf);
    const parsed = parseCapture(buf);
    assert.equal(parsed.valid, false);
    assert.match(parsed.problems.join(' '), /SHA-256 mismatch/);
    assert.throws(() => parseCapture(buf.subarray(0, buf.length - 10)), /trailer/);
  });
});

describe('capture from a hand-driven sender', () => {
  test('reordered, duplicated, malformed datagrams and datagrams after the bound are all counted', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'u2-cap-'));
    const cap = await DebugStreamCapture.open({
      file: join(dir, 'x.u64cap'),
      bindAddress: '127.0.0.1',
      port: 0,
      maxDatagrams: 6,
      maxDurationMs: 60_000,
    });
    const sender = dgram.createSocket('udp4');
    try {
      const datagram = (seq: number, size = DEBUG_DATAGRAM_BYTES) => {
        const b = Buffer.alloc(size);
        b.writeUInt16LE(seq, 0);
        return b;
      };
      // Three firmware probes (00 00), then 0, 1, 3 (one lost), 2 (late), 2 (duplicate), a short one
      // starting like seq 9 (not a sequence number: kept out of the count), then 5, 6 beyond the bound.
      const probe = Buffer.alloc(2);
      const order = [
        probe,
        probe,
        probe,
        datagram(0),
        datagram(1),
        datagram(3),
        datagram(2),
        datagram(2),
        datagram(9, 100),
        datagram(5),
        datagram(6),
      ];
      for (const d of order) {
        await new Promise<void>((r, j) => sender.send(d, cap.address.port, '127.0.0.1', (e) => (e ? j(e) : r())));
        // One at a time so arrival order is the send order (loopback keeps order for one sender).
      }
      await cap.boundReached;
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const s = await new Promise((r) => setTimeout(r, 50)).then(() => cap.recorded);
        if (s >= 6) break;
      }
      // The two datagrams past the bound are counted once they are drained.
      while (cap.droppedAfterBound < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const summary = await cap.finish();
      assert.equal(summary.probes, 3, 'the 00 00 probes are counted apart, not recorded');
      assert.equal(summary.datagrams, 6);
      assert.equal(summary.truncation, 'max-datagrams');
      assert.equal(summary.droppedAfterBound, 2);
      assert.equal(summary.missing, 1);
      assert.equal(summary.outOfOrder, 2);
      assert.equal(summary.gaps, 3);
      assert.equal(summary.malformed, 1);
      const parsed = await readCaptureFile(summary.file);
      assert.equal(parsed.valid, true, parsed.problems.join('; '));
      assert.deepEqual(
        parsed.records.map((r) => r.sequence),
        [0, 1, 3, 2, 2, 9],
      );
      assert.deepEqual(
        parsed.records.map((r) => r.ordinal),
        [0, 1, 2, 3, 4, 5],
      );
    } finally {
      sender.close();
      await cap.finish().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('sequence numbers wrap at 65535 without counting a gap', () => {
    const t = new SequenceTracker();
    for (const s of [65533, 65534, 65535, 0, 1]) t.observe(s);
    assert.deepEqual({ gaps: t.gaps, missing: t.missing, outOfOrder: t.outOfOrder }, { gaps: 0, missing: 0, outOfOrder: 0 });
  });

  test('bus-cycle entries decode with the documented bit layout', () => {
    // PHI2, GAME#/EXROM# high, BA high, IRQ# high, ROM# high, NMI# high, write of $42 to $D7FF.
    const e = 0x80000000 | (1 << 30) | (1 << 29) | (1 << 28) | (1 << 27) | (1 << 26) | (1 << 25) | (0x42 << 16) | 0xd7ff;
    const c = decodeEntry(e >>> 0);
    assert.deepEqual(c, {
      address: 0xd7ff,
      data: 0x42,
      rw: false,
      phi2: true,
      ba: true,
      irqAsserted: false,
      nmiAsserted: false,
      gameAsserted: false,
      exromAsserted: false,
      romLine: false,
      romSelected: false,
      access: 'write',
    });
    assert.equal(encodeEntry(c), e >>> 0);
    // IRQ asserted (line low) and a ROM read.
    const r = decodeEntry(((e & ~(1 << 27) & ~(1 << 26)) | (1 << 24)) >>> 0);
    assert.equal(r.irqAsserted, true);
    assert.equal(r.romLine, true);
    assert.equal(r.romSelected, true, 'the deprecated alias says the same');
    assert.equal(r.access, 'read');
    // The same bits on an Ultimate-II+: bit 28 is the cartridge ROM select, 27 BA, 26 IRQ#.
    const u2p = decodeEntry(((e & ~(1 << 27) & ~(1 << 26)) | (1 << 24)) >>> 0, 'u2plus');
    assert.equal(u2p.romLine, true, 'bit 28 high: ROML/ROMH selected');
    assert.equal(u2p.ba, false);
    assert.equal(u2p.irqAsserted, true);
    assert.equal(u2p.access, 'vic', 'BA (bit 27) low: not a CPU read');
    // BA low: a VIC cycle, neither CPU read nor write.
    assert.equal(decodeEntry(((e & ~(1 << 28)) | (1 << 24)) >>> 0).access, 'vic');
  });

  test('an unwritable capture location is an io error and leaves no socket bound', async () => {
    await assert.rejects(
      DebugStreamCapture.open({
        file: '/nonexistent-dir/x.u64cap',
        bindAddress: '127.0.0.1',
        port: 0,
        maxDatagrams: 10,
        maxDurationMs: 1000,
      }),
      (e: unknown) => e instanceof Error && (e as { kind?: string }).kind === 'io',
    );
  });

  test('bounds are validated before anything is bound', async () => {
    await assert.rejects(DebugStreamCapture.open({ file: '/nonexistent/x', maxDatagrams: 0, maxDurationMs: 10 }), /maxDatagrams/);
    await assert.rejects(DebugStreamCapture.open({ file: '/nonexistent/x', maxDatagrams: 10, maxDurationMs: 0 }), /maxDurationMs/);
  });
});

describe('multicast delivery', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig.close();
  });

  test('the stream reaches a receiver that joined the group', async () => {
    const summary = await rig.device.captureDebugStream({
      file: join(rig.dir, 'mc.u64cap'),
      receiverHost: '127.0.0.1',
      multicastGroup: '239.0.1.66',
      multicastInterface: '127.0.0.1',
      port: 0,
      maxDatagrams: 50,
      maxDurationMs: 30_000,
    });
    assert.equal(summary.datagrams, 50);
    assert.equal((await readCaptureFile(summary.file)).valid, true);
  });
});
