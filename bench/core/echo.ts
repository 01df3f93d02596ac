/**
 * Round-trip tools/call of a trivial echo tool: our McpServer against the official SDK's
 * McpServer, in one run, in memory and over stdio. The client side is the same minimal raw
 * JSON-RPC driver for both, so the difference measured is the servers'.
 *
 *   node --import tsx bench/core/echo.ts [--calls N] [--concurrency C]
 */
import { spawn } from 'node:child_process';
import { InMemoryTransport as SdkInMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { InMemoryTransport } from '../../transports/index.js';
import { ourEchoServer, sdkEchoServer } from './servers.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const CALLS = arg('--calls', 20_000);
const CONCURRENCY = arg('--concurrency', 32);

/** A minimal driver: send(message), and a callback per response. */
interface Wire {
  send(m: any): void;
  onResponse(cb: (m: any) => void): void;
  close(): Promise<void>;
}

async function inMemoryWire(kind: 'ours' | 'sdk'): Promise<Wire> {
  let cb: (m: any) => void = () => {};
  if (kind === 'ours') {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await ourEchoServer().connect(b);
    a.onmessage = (m) => cb(m);
    await a.start();
    return { send: (m) => void a.send(m), onResponse: (f) => (cb = f), close: () => a.close() };
  }
  const [a, b] = SdkInMemoryTransport.createLinkedPair();
  await sdkEchoServer().connect(b);
  a.onmessage = (m) => cb(m);
  await a.start();
  return { send: (m) => void a.send(m), onResponse: (f) => (cb = f), close: () => a.close() };
}

async function stdioWire(kind: 'ours' | 'sdk'): Promise<Wire> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./servers.ts', import.meta.url).pathname, kind], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let cb: (m: any) => void = () => {};
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      cb(JSON.parse(line));
    }
  });
  return {
    send: (m) => child.stdin.write(`${JSON.stringify(m)}\n`),
    onResponse: (f) => (cb = f),
    close: async () => {
      child.stdin.end();
      child.kill();
    },
  };
}

async function initialize(wire: Wire): Promise<void> {
  await new Promise<void>((resolve) => {
    wire.onResponse(() => resolve());
    wire.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    });
  });
  wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

/** Sequential calls: latency distribution. */
async function sequential(wire: Wire, calls: number): Promise<{ perSec: number; p50: number; p99: number }> {
  const lat: number[] = [];
  let id = 0;
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    let sentAt = 0;
    const next = () => {
      if (id === calls) return resolve();
      sentAt = performance.now();
      wire.send({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
    };
    wire.onResponse((m) => {
      if (m.error || m.result?.isError) throw new Error(`bad response ${JSON.stringify(m)}`);
      lat.push(performance.now() - sentAt);
      next();
    });
    next();
  });
  const elapsed = performance.now() - t0;
  lat.sort((a, b) => a - b);
  return { perSec: (calls / elapsed) * 1000, p50: lat[Math.floor(lat.length * 0.5)]!, p99: lat[Math.floor(lat.length * 0.99)]! };
}

/** Up to `concurrency` calls in flight: throughput. */
async function pipelined(wire: Wire, calls: number, concurrency: number): Promise<number> {
  let sent = 0;
  let done = 0;
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    const send = () =>
      wire.send({ jsonrpc: '2.0', id: sent++, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
    wire.onResponse((m) => {
      if (m.error || m.result?.isError) throw new Error(`bad response ${JSON.stringify(m)}`);
      if (++done === calls) return resolve();
      if (sent < calls) send();
    });
    for (let i = 0; i < concurrency && sent < calls; i++) send();
  });
  return (calls / (performance.now() - t0)) * 1000;
}

async function measure(path: 'in-memory' | 'stdio', kind: 'ours' | 'sdk') {
  const wire = path === 'in-memory' ? await inMemoryWire(kind) : await stdioWire(kind);
  await initialize(wire);
  await sequential(wire, Math.min(2000, CALLS)); // warm-up (JIT, caches)
  const seq = await sequential(wire, CALLS);
  const thr = await pipelined(wire, CALLS, CONCURRENCY);
  await wire.close();
  return { ...seq, pipelinedPerSec: thr };
}

const fmt = (n: number) => n.toFixed(n < 10 ? 3 : 0);
console.log(
  `echo tools/call round trip — ${CALLS} calls per measurement, pipelined with ${CONCURRENCY} in flight; node ${process.version}`,
);
console.log('| path | server | sequential calls/s | p50 ms | p99 ms | pipelined calls/s |');
console.log('|---|---|---|---|---|---|');
for (const path of ['in-memory', 'stdio'] as const) {
  const ours = await measure(path, 'ours');
  const sdk = await measure(path, 'sdk');
  for (const [name, r] of [
    ['mcp-engines', ours],
    ['official SDK 1.x', sdk],
  ] as const) {
    console.log(`| ${path} | ${name} | ${fmt(r.perSec)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.pipelinedPerSec)} |`);
  }
  console.log(
    `| ${path} | **ratio ours/SDK** | **${(ours.perSec / sdk.perSec).toFixed(2)}×** | ${(ours.p50 / sdk.p50).toFixed(2)}× | ${(ours.p99 / sdk.p99).toFixed(2)}× | **${(ours.pipelinedPerSec / sdk.pipelinedPerSec).toFixed(2)}×** |`,
  );
}
process.exit(0);
