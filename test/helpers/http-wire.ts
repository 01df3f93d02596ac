// Raw HTTP for the Streamable HTTP tests: a POST with any headers (Host included, which fetch
// cannot set), a raw request line for what no client library sends (two Host headers), and SSE
// bodies split into events.
import http from 'node:http';
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
  /** The body's SSE events' data, parsed (SSE responses only; empty priming events left out). */
  events: any[];
}

export const ACCEPT_BOTH = 'application/json, text/event-stream';

function parseEvents(body: string): any[] {
  const out: any[] = [];
  for (const block of body.split(/\n\n/)) {
    const data = block
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data) out.push(JSON.parse(data));
  }
  return out;
}

export function request(url: string, method: string, headers: Record<string, string>, body?: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        const sse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
        resolve({ status: res.statusCode!, headers: res.headers, body: text, json, events: sse ? parseEvents(text) : [] });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** POST one JSON-RPC message (an object, or a raw string for malformed input). */
export function post(url: string, message: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const body = typeof message === 'string' ? message : JSON.stringify(message);
  return request(url, 'POST', { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body);
}

/** initialize + initialized over raw HTTP; returns the session id. */
export async function openSession(url: string, protocolVersion = '2025-11-25'): Promise<string> {
  const init = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-http', version: '1' } },
  });
  const sessionId = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sessionId !== 'string') throw new Error(`initialize failed: ${init.status} ${init.body}`);
  await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion },
  );
  return sessionId;
}

/** Send raw bytes as one HTTP request and return the status line's code (the server closes or answers). */
export function rawStatus(port: number, raw: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let data = '';
    socket.on('data', (c) => {
      data += c.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) {
        resolve(Number(m[1]));
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed without a status line: ${JSON.stringify(data)}`)));
  });
}
