// UltimateDevice.captureDebugStream against a small scripted REST device on a real socket: on a
// U64 a running video stream is stopped before the debug stream starts (REST debug:start does not
// do it on the firmware), not on an Ultimate-II+; and a failed stop of the debug stream is
// reported, never swallowed — the capture file is still finished.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeServer, listenLoopback } from '../../../common/loopback.js';
import { UltimateDevice, UltimateError } from '../../../engines/ultimate/index.js';

interface Scripted {
  port: number;
  calls: string[];
  close(): Promise<void>;
}

/** Answers /v1/info with `product`, stream calls with 200 — except debug:stop with `stopStatus`. */
async function scriptedDevice(product: string, stopStatus: number): Promise<Scripted> {
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    calls.push(`${req.method} ${path}`);
    const json = (status: number, body: Record<string, unknown>) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (path === '/v1/info') {
      return json(200, { product, firmware_version: '3.15', fpga_version: '121', hostname: 'scripted', errors: [] });
    }
    if (path === '/v1/streams/debug:stop' && stopStatus !== 200) return json(stopStatus, { errors: ['Stream stop failed'] });
    if (path.startsWith('/v1/streams/')) return json(200, { errors: [] });
    res.writeHead(404, { 'Content-Length': 0 });
    res.end();
  });
  const port = await listenLoopback(server);
  return { port, calls, close: () => closeServer(server) };
}

describe('captureDebugStream against a scripted device', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  async function capture(product: string, stopStatus: number) {
    const dev = await scriptedDevice(product, stopStatus);
    const dir = await mkdtemp(join(tmpdir(), 'u2-devcap-'));
    dirs.push(dir);
    const device = new UltimateDevice({ host: '127.0.0.1', httpPort: dev.port, timeoutMs: 5000 });
    const file = join(dir, 'c.u64cap');
    const result = device
      .captureDebugStream({ file, receiverHost: '127.0.0.1', bindAddress: '127.0.0.1', port: 0, maxDatagrams: 10, maxDurationMs: 200 })
      .finally(() => dev.close());
    return { result, calls: dev.calls, file };
  }

  test('on a U64 the video stream is stopped before the debug stream starts', async () => {
    const { result, calls } = await capture('Ultimate 64 Elite', 200);
    const summary = await result;
    assert.equal(summary.truncation, 'max-duration');
    const streams = calls.filter((c) => c.includes('/streams/'));
    assert.deepEqual(streams, ['PUT /v1/streams/video:stop', 'PUT /v1/streams/debug:start', 'PUT /v1/streams/debug:stop']);
  });

  test('on an Ultimate-II+ there is no video stream to stop', async () => {
    const { result, calls } = await capture('Ultimate-II+', 200);
    await result;
    assert.deepEqual(
      calls.filter((c) => c.includes('/streams/')),
      ['PUT /v1/streams/debug:start', 'PUT /v1/streams/debug:stop'],
    );
  });

  test('a failed stop is reported, and the capture file is still complete', async () => {
    const { result, file } = await capture('Ultimate 64', 503);
    await assert.rejects(result, (e: unknown) => {
      assert.ok(e instanceof UltimateError);
      assert.equal(e.kind, 'device');
      assert.equal(e.status, 503);
      assert.match(e.message, /may still be streaming/);
      return true;
    });
    assert.ok((await stat(file)).size > 0, 'the capture file was finished');
  });
});
