// The VICE client against byte fixtures written by hand from VICE's documentation (vice manual,
// "Binary monitor") and src/monitor/monitor_binary.c — not from engines/ultimate/vice/protocol.ts,
// which the client and the virtual monitor share. A scripted peer on a real socket checks every
// request byte for byte and answers with fixed frames.
//
// Request:  02 | api 02 | body length u32 LE | request id u32 LE | command u8 | body
// Response: 02 | api 02 | body length u32 LE | type u8 | error u8 | request id u32 LE | body
// Events carry request id FF FF FF FF. Errors: type 00 (monitor_binary_error), error byte != 0.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { listenLoopback } from '../../../../common/loopback.js';
import { ViceMonitorClient, UltimateError, type ViceEvent } from '../../../../engines/ultimate/index.js';

const u32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
const EVENT = [0xff, 0xff, 0xff, 0xff];

/** A response frame from its parts (hand-built, as the manual lays it out). */
function response(type: number, error: number, id: number[], body: number[] = []): Buffer {
  return Buffer.from([0x02, 0x02, ...u32(body.length), type, error, ...id, ...body]);
}

/** One scripted exchange: the request bytes expected (id as sent by the client) and the frames to answer. */
interface Step {
  command: number;
  body: number[];
  answer: (id: number[]) => Buffer[];
}

class ScriptedVice {
  readonly server = net.createServer((s) => this.#serve(s));
  readonly mismatches: string[] = [];
  #steps: Step[] = [];
  #socket?: net.Socket;
  port = 0;

  script(steps: Step[]): void {
    this.#steps = steps;
  }

  /** Sends frames unprompted (events). */
  push(...frames: Buffer[]): void {
    for (const f of frames) this.#socket?.write(f);
  }

  #serve(s: net.Socket): void {
    this.#socket = s;
    let buf = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 11) {
        const len = buf.readUInt32LE(2);
        if (buf.length < 11 + len) return;
        const frame = buf.subarray(0, 11 + len);
        buf = buf.subarray(11 + len);
        const step = this.#steps.shift();
        const id = [...frame.subarray(6, 10)];
        const expected = step && Buffer.from([0x02, 0x02, ...u32(step.body.length), ...id, step.command, ...step.body]);
        if (!step || !expected!.equals(frame)) {
          this.mismatches.push(`got ${frame.toString('hex')}, expected ${expected?.toString('hex') ?? 'nothing'}`);
          continue;
        }
        for (const a of step.answer(id)) s.write(a);
      }
    });
    s.on('error', () => undefined);
  }
}

describe('VICE client against hand-written byte fixtures', () => {
  const peer = new ScriptedVice();
  let client: ViceMonitorClient;
  before(async () => {
    peer.port = await listenLoopback(peer.server);
    client = await ViceMonitorClient.connect({ port: peer.port, timeoutMs: 5000 });
  });
  after(async () => {
    client.close();
    await new Promise<void>((r) => peer.server.close(() => r()));
  });

  test('PING 0x81: empty body; answered by type 0x81', async () => {
    peer.script([{ command: 0x81, body: [], answer: (id) => [response(0x81, 0, id)] }]);
    await client.ping();
    assert.deepEqual(peer.mismatches, []);
  });

  test('MEMORY_GET 0x01: side effects, start, end (inclusive), memspace, bank; answer u16 length + bytes', async () => {
    peer.script([
      {
        command: 0x01,
        body: [0x00, 0x00, 0xc0, 0x03, 0xc0, 0x00, 0x00, 0x00],
        answer: (id) => [response(0x01, 0, id, [0x04, 0x00, 0xde, 0xad, 0xbe, 0xef])],
      },
    ]);
    assert.deepEqual([...(await client.memoryGet(0xc000, 0xc003))], [0xde, 0xad, 0xbe, 0xef]);
    assert.deepEqual(peer.mismatches, []);
  });

  test('MEMORY_SET 0x02: the same header then the bytes', async () => {
    peer.script([
      { command: 0x02, body: [0x00, 0x00, 0x10, 0x01, 0x10, 0x00, 0x00, 0x00, 0x0a, 0x0b], answer: (id) => [response(0x02, 0, id)] },
    ]);
    await client.memorySet(0x1000, Uint8Array.of(0x0a, 0x0b));
    assert.deepEqual(peer.mismatches, []);
  });

  test('REGISTERS_GET 0x31: memspace byte; answer count u16 and items of (size 3, id, u16 value)', async () => {
    const item = (id: number, v: number) => [3, id, v & 0xff, v >> 8];
    peer.script([
      {
        command: 0x31,
        body: [0x00],
        answer: (id) => [
          response(0x31, 0, id, [
            0x06,
            0x00,
            ...item(0x03, 0xc123),
            ...item(0x00, 0x11),
            ...item(0x01, 0x22),
            ...item(0x02, 0x33),
            ...item(0x04, 0xf0),
            ...item(0x05, 0x24),
          ]),
        ],
      },
    ]);
    const r = await client.registersGet();
    assert.deepEqual(
      { PC: r.PC, A: r.A, X: r.X, Y: r.Y, SP: r.SP, FL: r.FL },
      { PC: 0xc123, A: 0x11, X: 0x22, Y: 0x33, SP: 0xf0, FL: 0x24 },
    );
    assert.deepEqual(peer.mismatches, []);
  });

  test('CHECKPOINT_SET 0x12: start, end, stop, enabled, op, temporary; answered by CHECKPOINT_INFO 0x11', async () => {
    const info = [...u32(7), 0, 0x00, 0x08, 0x00, 0x08, 1, 1, 4, 0, ...u32(0), ...u32(0), 0, 0];
    peer.script([{ command: 0x12, body: [0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x04, 0x00], answer: (id) => [response(0x11, 0, id, info)] }]);
    const c = await client.checkpointSet({ start: 0x0800, end: 0x0800, op: 4 });
    assert.equal(c.number, 7);
    assert.equal(c.start, 0x0800);
    assert.deepEqual(peer.mismatches, []);
  });

  test('an error frame (type 0x00, error 0x83) rejects the request with the error code', async () => {
    peer.script([{ command: 0x01, body: [0x00, 0x00, 0x00, 0x0a, 0x00, 0x05, 0x00, 0x00], answer: (id) => [response(0x00, 0x83, id)] }]);
    await assert.rejects(
      client.memoryGet(0, 10, { memspace: 5 }),
      (e: unknown) => e instanceof UltimateError && e.kind === 'vice' && e.code === 0x83,
    );
    assert.deepEqual(peer.mismatches, []);
  });

  test('events: JAM 0x61 with an empty body, REGISTER_INFO 0x31, STOPPED 0x62 and RESUMED 0x63 with a PC', async () => {
    const seen: ViceEvent[] = [];
    const on = (e: ViceEvent) => seen.push(e);
    client.on('event', on);
    const resumed = client.waitForEvent('resumed', 5000);
    peer.push(
      response(0x61, 0, EVENT),
      response(0x31, 0, EVENT, [0x01, 0x00, 3, 0x03, 0x02, 0x80]),
      response(0x62, 0, EVENT, [0x02, 0x80]),
      response(0x63, 0, EVENT, [0x02, 0x80]),
    );
    await resumed;
    client.off('event', on);
    assert.deepEqual(seen, [
      { type: 'jam', pc: 0, pcSent: false },
      { type: 'registers', registers: seen[1]!.type === 'registers' ? seen[1]!.registers : ({} as never) },
      { type: 'stopped', pc: 0x8002 },
      { type: 'resumed', pc: 0x8002 },
    ]);
    assert.equal(seen[1]!.type === 'registers' && seen[1]!.registers.PC, 0x8002);
  });
});
