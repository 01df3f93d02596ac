// A real `ultimate-tool-mcp` process driven over its raw stdio wire (one JSON message a line), for
// tests that must see every notification in its place before an answer: the official SDK client
// dispatches notifications a microtask late and can drop the last ones (test/adapters/topup/progress.test.ts).
import { spawn } from 'node:child_process';
import { distBin } from './ultimate-stack.js';

export type WireMessage = Record<string, any>;

export interface RawAdapterWire {
  /** Every message the adapter wrote, in order. */
  readonly lines: WireMessage[];
  /** Sends a request and waits for its answer; `at` is the answer's index in `lines`. */
  request(method: string, params: Record<string, unknown>): Promise<{ at: number; message: WireMessage }>;
  close(): void;
}

/** Starts the adapter against `serviceUrl` and completes the MCP initialization. */
export async function openRawAdapterWire(serviceUrl: string): Promise<RawAdapterWire> {
  const child = spawn(process.execPath, [distBin('ultimate-tool-mcp'), '--service-url', serviceUrl], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines: WireMessage[] = [];
  const send = (m: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  let buf = '';
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let i = buf.indexOf('\n');
    while (i >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (line) {
        const m = JSON.parse(line) as WireMessage;
        lines.push(m);
        // A client answers the server's pings (the adapter pings after a progress report, so the
        // report is handled before the answer: adapters/ultimate/job-progress.ts).
        if (m.method === 'ping' && m.id !== undefined) send({ id: m.id, result: {} });
      }
      i = buf.indexOf('\n');
    }
    for (const w of waiters.splice(0)) w();
  });
  let nextId = 1;
  const request = async (method: string, params: Record<string, unknown>) => {
    const id = nextId++;
    send({ id, method, params });
    for (;;) {
      const at = lines.findIndex((m) => m.id === id && m.method === undefined);
      if (at >= 0) return { at, message: lines[at]! };
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const wire: RawAdapterWire = { lines, request, close: () => child.kill() };
  try {
    await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'wire', version: '1' } });
    send({ method: 'notifications/initialized' });
  } catch (e) {
    wire.close();
    throw e;
  }
  return wire;
}
