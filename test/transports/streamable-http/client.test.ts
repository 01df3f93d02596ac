// The Streamable HTTP client transport: our McpClient through it against our server and against
// the official SDK's server, the 2026-07-28 mirrored headers, HTTP failures answered as JSON-RPC
// errors, and SSE resumption (the server closes a stream mid-call; the client waits the server's
// `retry` and resumes with Last-Event-ID).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { createEchoServer } from '../../../examples/echo-server.js';
import { McpClient, parseToolPayload } from '../../../src/index.js';
import {
  createStreamableHttpHandler,
  serveStreamableHttp,
  staticBearerToken,
  StreamableHttpClientTransport,
  type HttpMessageExtra,
  type JsonRpcMessage,
  type StreamableHttpHandler,
  type StreamableHttpListener,
} from '../../../transports/index.js';

describe('McpClient over StreamableHttpClientTransport, our server', () => {
  let listener: StreamableHttpListener;
  before(async () => {
    const server = createEchoServer();
    listener = await serveStreamableHttp({ connect: (t) => server.connect(t) });
  });
  after(() => listener.close());

  test('initialize keeps the session and the negotiated version; calls, progress, DELETE', async () => {
    const transport = new StreamableHttpClientTransport(listener.url);
    const client = new McpClient({ name: 'http-client', version: '1' });
    await client.connect(transport);
    assert.match(transport.sessionId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(transport.protocolVersion, client.protocolVersion);
    assert.deepEqual(
      (await client.listTools()).map((t) => t.name),
      ['echo', 'fail', 'slow'],
    );
    const r = await client.callTool('echo', { text: 'over http' });
    assert.equal((parseToolPayload(r) as { text: string }).text, 'over http');
    const seen: number[] = [];
    await client.callTool('slow', { steps: 3, interval_ms: 1 }, { onProgress: (p) => seen.push(p.progress) });
    assert.deepEqual(seen, [1, 2, 3]);
    assert.equal(listener.sessionCount, 1);
    await transport.terminateSession();
    assert.equal(listener.sessionCount, 0);
    await client.close();
  });

  test('a refused request is answered as a JSON-RPC error naming the HTTP failure, not left hanging', async () => {
    const server = createEchoServer();
    const guarded = await serveStreamableHttp({ connect: (t) => server.connect(t), auth: staticBearerToken('0123456789abcdef-secret') });
    try {
      const client = new McpClient({ name: 'http-client', version: '1' });
      await assert.rejects(client.connect(new StreamableHttpClientTransport(guarded.url)), /Unauthorized: a bearer token is required/);
      const ok = new McpClient({ name: 'http-client', version: '1' });
      await ok.connect(new StreamableHttpClientTransport(guarded.url, { headers: { authorization: 'Bearer 0123456789abcdef-secret' } }));
      assert.equal(ok.serverInfo?.name, 'echo-example');
      await ok.close();
    } finally {
      await guarded.close();
    }
  });

  test('a 2026-07-28 request carries MCP-Protocol-Version, Mcp-Method and Mcp-Name from its body', async () => {
    const transport = new StreamableHttpClientTransport(listener.url);
    const received: JsonRpcMessage[] = [];
    transport.onmessage = (m) => received.push(m);
    await transport.start();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    // A name outside plain ASCII travels base64-encoded; the server decodes it before comparing.
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'échø', arguments: {}, _meta: meta } });
    await transport.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'modern' }, _meta: meta },
    });
    // The server checked the mirrored headers (a mismatch is 400 -32020): both got the core's answer.
    assert.equal((received[0]!.error as { message: string }).message, 'Unknown tool: échø');
    assert.equal((received[1]!.result as { structuredContent: { text: string } }).structuredContent.text, 'modern');
    assert.equal(transport.sessionId, undefined);
    await transport.close();
  });
});

describe('McpClient over StreamableHttpClientTransport, the official SDK server', () => {
  let http: Server;
  let url: string;
  before(async () => {
    // The SDK's own stateful server answers with SSE streams by default: our client reads them.
    const transports = new Map<string, StreamableHTTPServerTransport>();
    http = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
      const id = req.headers['mcp-session-id'] as string | undefined;
      let transport = id ? transports.get(id) : undefined;
      if (!transport) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sid) => void transports.set(sid, transport!),
        });
        const sdk = new SdkMcpServer({ name: 'sdk-server', version: '1.0.0' }, { capabilities: { logging: {} } });
        sdk.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }, extra) => {
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'adding' } });
          return { content: [{ type: 'text', text: String(a + b) }] };
        });
        await sdk.connect(transport);
      }
      await transport.handleRequest(req, res, body);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  after(() => {
    http.closeAllConnections();
    http.close();
  });

  test('initialize and a tool call whose answer is an SSE stream with a log message first', async () => {
    const client = new McpClient({ name: 'http-client', version: '1' });
    const logs: unknown[] = [];
    client.onNotification('notifications/message', (p) => logs.push(p.data));
    const transport = new StreamableHttpClientTransport(url);
    await client.connect(transport);
    assert.equal(client.serverInfo?.name, 'sdk-server');
    assert.ok(transport.sessionId);
    const r = await client.callTool('add', { a: 2, b: 40 });
    assert.deepEqual(r.content, [{ type: 'text', text: '42' }]);
    assert.deepEqual(logs, ['adding']);
    await transport.terminateSession();
    await client.close();
  });
});

describe('SSE resumption: the server closes a stream mid-call, the client resumes it', () => {
  let http: Server;
  let handler: StreamableHttpHandler;
  let url: string;
  const gets: Array<{ lastEventId?: string; at: number }> = [];
  let closedAt = 0;
  before(async () => {
    // A hand-written server on the transport (the core need not know about streams): its
    // tools/call sends a progress note, closes the request's stream, and answers a moment later.
    handler = createStreamableHttpHandler({
      retryMs: 200,
      connect: (transport) => {
        transport.onmessage = (m: JsonRpcMessage, extra?: HttpMessageExtra) => {
          if (m.method === 'initialize') {
            void transport.send({
              jsonrpc: '2.0',
              id: m.id,
              result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'resumer', version: '1' } },
            });
          } else if (m.method === 'tools/call') {
            void transport.send(
              { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'before the break' } },
              { relatedRequestId: m.id as number },
            );
            extra?.closeSSEStream?.();
            closedAt = performance.now();
            void transport.send(
              { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'during the break' } },
              { relatedRequestId: m.id as number },
            );
            setTimeout(
              () => void transport.send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'resumed' }] } }),
              20,
            );
          }
        };
      },
    });
    http = createServer((req, res) => {
      if (req.method === 'GET') gets.push({ lastEventId: req.headers['last-event-id'] as string | undefined, at: performance.now() });
      handler.handle(req, res);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  after(async () => {
    await handler.close();
    http.closeAllConnections();
    http.close();
  });

  test('the response and what was sent during the break arrive after a GET with Last-Event-ID, no earlier than retry', async () => {
    const client = new McpClient({ name: 'http-client', version: '1' });
    const logs: unknown[] = [];
    client.onNotification('notifications/message', (p) => logs.push(p.data));
    await client.connect(new StreamableHttpClientTransport(url, { openGetStream: false }));
    const r = await client.callTool('anything', {});
    assert.deepEqual(r.content, [{ type: 'text', text: 'resumed' }]);
    assert.deepEqual(logs, ['before the break', 'during the break']);
    // The stream's events are numbered <stream>.<seq>: the client had seen the priming event (.0)
    // and the first note (.1), so it resumed after .1.
    assert.equal(gets.length, 1);
    assert.match(gets[0]!.lastEventId ?? '', /^\d+\.1$/);
    assert.ok(gets[0]!.at - closedAt >= 200, `reconnected after ${gets[0]!.at - closedAt} ms, before the server's retry of 200 ms`);
    await client.close();
  });
});
