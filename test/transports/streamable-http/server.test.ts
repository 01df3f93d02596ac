// The Streamable HTTP server (transports/streamable-http) with the core's McpServer: the official
// SDK client end to end, JSON vs SSE answers, both eras' routing, and every bad input the spec
// names, each followed by a good request (the server keeps serving).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createEchoServer } from '../../../examples/echo-server.js';
import { PROTOCOL_VERSIONS } from '../../../src/mcp/protocol-version.js';
import { HTTP_PROTOCOL_VERSIONS, serveStreamableHttp, staticBearerToken, type StreamableHttpListener } from '../../../transports/index.js';
import { ACCEPT_BOTH, openSession, post, rawStatus, request } from '../../helpers/http-wire.js';

const call = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

describe('Streamable HTTP with the official SDK client', () => {
  let listener: StreamableHttpListener;
  before(async () => {
    const server = createEchoServer();
    listener = await serveStreamableHttp({ connect: (t) => server.connect(t) });
  });
  after(() => listener.close());

  test('initialize, tools/list, tools/call, progress, and DELETE ends the session', async () => {
    const client = new Client({ name: 'sdk-http', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(listener.url));
    await client.connect(transport);
    assert.match(transport.sessionId ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(client.getServerVersion(), { name: 'echo-example', version: '0.1.0' });
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['echo', 'fail', 'slow'],
    );
    const r = await client.callTool({ name: 'echo', arguments: { text: 'héllo' } });
    assert.deepEqual(r.structuredContent, { text: 'héllo', calls: 1 });
    const progress: number[] = [];
    const slow = await client.callTool({ name: 'slow', arguments: { steps: 3, interval_ms: 1 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    assert.equal(slow.isError, false);
    assert.deepEqual(progress, [1, 2, 3]);
    assert.equal(listener.sessionCount, 1);
    const ended = transport.sessionId!;
    await transport.terminateSession();
    assert.equal(listener.sessionCount, 0);
    await client.close();
    // The ended session is gone for good: 404, as the spec says.
    const after = await post(listener.url, call(9, 'echo', { text: 'x' }), {
      'mcp-session-id': ended,
      'mcp-protocol-version': '2025-11-25',
    });
    assert.equal(after.status, 404);
    assert.match(after.json.error.message, /no session/);
  });

  test('two SDK clients get two sessions that do not see each other', async () => {
    const clients = await Promise.all(
      [1, 2].map(async (n) => {
        const client = new Client({ name: `sdk-http-${n}`, version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(listener.url));
        await client.connect(transport);
        return { client, transport };
      }),
    );
    assert.notEqual(clients[0]!.transport.sessionId, clients[1]!.transport.sessionId);
    const texts = await Promise.all(clients.map(({ client }, i) => client.callTool({ name: 'echo', arguments: { text: `c${i}` } })));
    assert.deepEqual(
      texts.map((t) => (t.structuredContent as { text: string }).text),
      ['c0', 'c1'],
    );
    for (const { client, transport } of clients) {
      await transport.terminateSession();
      await client.close();
    }
  });
});

describe('Streamable HTTP answers', () => {
  let listener: StreamableHttpListener;
  let session: string;
  const h = () => ({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
  before(async () => {
    const server = createEchoServer();
    listener = await serveStreamableHttp({ connect: (t) => server.connect(t), maxBodyBytes: 4096 });
    session = await openSession(listener.url);
  });
  after(() => listener.close());

  /** The server still serves: a good call on the session answers. */
  const stillServes = async () => {
    const r = await post(listener.url, call(1000, 'echo', { text: 'still here' }), h());
    assert.equal(r.status, 200);
    assert.equal(r.json.result.structuredContent.text, 'still here');
  };

  test('a plain call is answered with one JSON body; initialize carries Mcp-Session-Id', async () => {
    const r = await post(listener.url, call(1, 'echo', { text: 'a' }), h());
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(r.json.id, 1);
  });

  test('a call that reports progress becomes an SSE stream: the progress, then the response', async () => {
    const r = await post(listener.url, call(2, 'slow', { steps: 2, interval_ms: 1 }, { progressToken: 'p' }), h());
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/event-stream');
    assert.equal(r.headers['mcp-session-id'], session);
    assert.deepEqual(
      r.events.map((e) => e.method ?? `response ${e.id}`),
      ['notifications/progress', 'notifications/progress', 'response 2'],
    );
    // The session negotiated 2025-11-25: the stream starts with a priming event (id, retry, no data).
    assert.match(r.body, /^id: \d+\.0\nretry: 1000\ndata: \n\n/);
  });

  test('notifications are accepted with 202 and no body', async () => {
    const r = await post(listener.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 77 } }, h());
    assert.equal(r.status, 202);
    assert.equal(r.body, '');
  });

  test('a foreign Origin is refused with 403', async () => {
    const r = await post(listener.url, call(3, 'echo', { text: 'x' }), { ...h(), origin: 'http://evil.example.com' });
    assert.equal(r.status, 403);
    assert.match(r.json.error.message, /Origin "http:\/\/evil.example.com" is not allowed/);
    assert.equal(r.json.id, null);
    const local = await post(listener.url, call(4, 'echo', { text: 'x' }), { ...h(), origin: 'http://localhost:5173' });
    assert.equal(local.status, 200);
    await stillServes();
  });

  test('a foreign Host (DNS rebinding) is refused with 403, two Host headers with 400', async () => {
    const r = await post(listener.url, call(5, 'echo', { text: 'x' }), { ...h(), host: 'evil.example.com' });
    assert.equal(r.status, 403);
    assert.match(r.json.error.message, /Host "evil.example.com" is not one this server answers to/);
    const ok = await post(listener.url, call(6, 'echo', { text: 'x' }), { ...h(), host: `localhost:${listener.port}` });
    assert.equal(ok.status, 200);
    const body = JSON.stringify(call(7, 'echo', { text: 'x' }));
    const status = await rawStatus(
      listener.port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example.com\r\nContent-Type: application/json\r\nAccept: ${ACCEPT_BOTH}\r\nMcp-Session-Id: ${session}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    assert.equal(status, 400);
    await stillServes();
  });

  test('a body over the limit is refused with 413, whether declared or streamed', async () => {
    const big = JSON.stringify(call(8, 'echo', { text: 'x'.repeat(5000) }));
    const declared = await post(listener.url, big, h());
    assert.equal(declared.status, 413);
    assert.match(declared.json.error.message, /exceeds the limit of 4096 bytes/);
    const chunked = await request(
      listener.url,
      'POST',
      { ...h(), 'content-type': 'application/json', accept: ACCEPT_BOTH, 'transfer-encoding': 'chunked' },
      big,
    );
    assert.equal(chunked.status, 413);
    await stillServes();
  });

  test('a wrong Content-Type is refused with 415, a wrong Accept with 406', async () => {
    const body = JSON.stringify(call(9, 'echo', { text: 'x' }));
    const text = await request(listener.url, 'POST', { ...h(), 'content-type': 'text/plain', accept: ACCEPT_BOTH }, body);
    assert.equal(text.status, 415);
    assert.match(text.json.error.message, /Content-Type must be application\/json, got "text\/plain"/);
    const accept = await post(listener.url, body, { ...h(), accept: 'application/json' });
    assert.equal(accept.status, 406);
    assert.match(accept.json.error.message, /application\/json and text\/event-stream/);
    const getJson = await request(listener.url, 'GET', { ...h(), accept: 'application/json' });
    assert.equal(getJson.status, 406);
    await stillServes();
  });

  test('an unknown protocol version is refused with 400 naming the supported versions', async () => {
    const r = await post(listener.url, call(10, 'echo', { text: 'x' }), { ...h(), 'mcp-protocol-version': '1999-01-01' });
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32022);
    assert.deepEqual(r.json.error.data, { supported: [...HTTP_PROTOCOL_VERSIONS], requested: '1999-01-01' });
    assert.match(r.json.error.message, /Unsupported protocol version: 1999-01-01 \(supported: 2026-07-28, 2025-11-25/);
    await stillServes();
  });

  test('garbage JSON is answered 400 with a JSON-RPC parse error; a batch 400 too', async () => {
    const r = await post(listener.url, '{"jsonrpc": "2.0", "id": 1, "method": ', h());
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32700);
    assert.equal(r.json.id, null);
    const batch = await post(listener.url, [call(11, 'echo', { text: 'x' })], h());
    assert.equal(batch.status, 400);
    assert.equal(batch.json.error.code, -32600);
    assert.match(batch.json.error.message, /batches are not supported/);
    await stillServes();
  });

  test('a request for an unknown session is 404, one without a session 400, a second initialize on a session 400', async () => {
    const unknown = await post(listener.url, call(12, 'echo', { text: 'x' }), { ...h(), 'mcp-session-id': 'not-a-session' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.id, 12);
    const none = await post(listener.url, call(13, 'echo', { text: 'x' }), { 'mcp-protocol-version': '2025-11-25' });
    assert.equal(none.status, 400);
    assert.match(none.json.error.message, /no Mcp-Session-Id header/);
    const again = await post(listener.url, { jsonrpc: '2.0', id: 14, method: 'initialize', params: {} }, h());
    assert.equal(again.status, 400);
    await stillServes();
  });

  test('another client’s session is its own: ending it does not end ours', async () => {
    const other = await openSession(listener.url);
    assert.notEqual(other, session);
    const del = await request(listener.url, 'DELETE', { 'mcp-session-id': other });
    assert.equal(del.status, 200);
    const gone = await post(listener.url, call(15, 'echo', { text: 'x' }), { 'mcp-session-id': other });
    assert.equal(gone.status, 404);
    await stillServes();
  });

  test('a second GET stream on a session is 409; an unknown Last-Event-ID is 400; other methods 405', async () => {
    const controller = new AbortController();
    const first = await fetch(listener.url, { headers: { ...h(), accept: 'text/event-stream' }, signal: controller.signal });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('content-type'), 'text/event-stream');
    const second = await request(listener.url, 'GET', { ...h(), accept: 'text/event-stream' });
    assert.equal(second.status, 409);
    controller.abort();
    const resume = await request(listener.url, 'GET', { ...h(), accept: 'text/event-stream', 'last-event-id': '999.1' });
    assert.equal(resume.status, 400);
    const put = await request(listener.url, 'PUT', h(), '{}');
    assert.equal(put.status, 405);
    assert.equal(put.headers.allow, 'POST, GET, DELETE');
    await stillServes();
  });

  test('another path is 404', async () => {
    const r = await post(listener.url.replace('/mcp', '/other'), call(16, 'echo', { text: 'x' }), h());
    assert.equal(r.status, 404);
  });
});

describe('Streamable HTTP, 2026-07-28 (stateless)', () => {
  let listener: StreamableHttpListener;
  const modern = (method: string, name?: string) => ({
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name ? { 'mcp-name': name } : {}),
  });
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  before(async () => {
    const server = createEchoServer();
    listener = await serveStreamableHttp({ connect: (t) => server.connect(t) });
  });
  after(() => listener.close());

  test('requests without a session are served, each answered with its own id even when ids collide', async () => {
    const [a, b] = await Promise.all(
      ['one', 'two'].map((text) => post(listener.url, call(1, 'echo', { text }, meta), modern('tools/call', 'echo'))),
    );
    assert.equal(a!.status, 200);
    assert.equal(a!.json.id, 1);
    assert.equal(b!.json.id, 1);
    assert.deepEqual([a!.json.result.structuredContent.text, b!.json.result.structuredContent.text], ['one', 'two']);
    assert.equal(a!.headers['mcp-session-id'], undefined);
    assert.equal(listener.sessionCount, 0);
  });

  test('headers that disagree with the body are refused with 400 HeaderMismatch', async () => {
    const method = await post(listener.url, call(2, 'echo', { text: 'x' }, meta), modern('tools/list', 'echo'));
    assert.equal(method.status, 400);
    assert.equal(method.json.error.code, -32020);
    assert.equal(method.json.id, 2);
    assert.match(method.json.error.message, /Mcp-Method header value 'tools\/list' does not match body value 'tools\/call'/);
    const name = await post(listener.url, call(3, 'echo', { text: 'x' }, meta), modern('tools/call', 'fail'));
    assert.equal(name.status, 400);
    assert.match(name.json.error.message, /Mcp-Name header value 'fail' does not match body value 'echo'/);
    const missing = await post(listener.url, call(4, 'echo', { text: 'x' }, meta), modern('tools/call'));
    assert.match(missing.json.error.message, /Mcp-Name header is required for tools\/call/);
    const version = await post(
      listener.url,
      call(5, 'echo', { text: 'x' }, { ...meta, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }),
      modern('tools/call', 'echo'),
    );
    assert.match(version.json.error.message, /MCP-Protocol-Version header value '2026-07-28' does not match body value '2025-11-25'/);
    // A base64-sentinel Mcp-Name is decoded before the comparison.
    const encoded = await post(
      listener.url,
      call(6, 'echo', { text: 'x' }, meta),
      modern('tools/call', `=?base64?${Buffer.from('echo').toString('base64')}?=`),
    );
    assert.equal(encoded.status, 200);
  });

  test('GET and DELETE are 405 for a 2026-07-28 client', async () => {
    const get = await request(listener.url, 'GET', { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' });
    assert.equal(get.status, 405);
    const del = await request(listener.url, 'DELETE', { 'mcp-protocol-version': '2026-07-28' });
    assert.equal(del.status, 405);
  });

  test('an unknown method is 404 with -32601', async () => {
    const r = await post(listener.url, { jsonrpc: '2.0', id: 7, method: 'no/such', params: { _meta: meta } }, modern('no/such'));
    assert.equal(r.status, 404);
    assert.equal(r.json.error.code, -32601);
  });
});

describe('Streamable HTTP with a bearer token', () => {
  let listener: StreamableHttpListener;
  const token = 'a-long-enough-secret-token-0123456789';
  before(async () => {
    const server = createEchoServer();
    listener = await serveStreamableHttp({ connect: (t) => server.connect(t), auth: staticBearerToken(token) });
  });
  after(() => listener.close());

  test('no token: 401 with a Bearer challenge; a wrong one: 401 invalid_token; the right one: served', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const none = await post(listener.url, init);
    assert.equal(none.status, 401);
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="mcp"');
    const wrong = await post(listener.url, init, { authorization: 'Bearer not-the-token' });
    assert.equal(wrong.status, 401);
    assert.match(String(wrong.headers['www-authenticate']), /error="invalid_token"/);
    const right = await post(listener.url, init, { authorization: `Bearer ${token}` });
    assert.equal(right.status, 200);
    assert.equal(right.json.result.serverInfo.name, 'echo-example');
  });

  test('the SDK client passes its token in requestInit', async () => {
    const client = new Client({ name: 'sdk-http', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(listener.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    const r = await client.callTool({ name: 'echo', arguments: { text: 'authorized' } });
    assert.equal((r.structuredContent as { text: string }).text, 'authorized');
    await transport.terminateSession();
    await client.close();
  });
});

test('a non-loopback address without a token is refused before anything listens', async () => {
  await assert.rejects(
    serveStreamableHttp({ connect: () => {}, host: '0.0.0.0' }),
    /refusing to serve MCP on 0\.0\.0\.0 without authentication/,
  );
});

test("the transport's default versions cover every version the core speaks", () => {
  for (const v of PROTOCOL_VERSIONS) assert.ok(HTTP_PROTOCOL_VERSIONS.includes(v), `${v} missing from HTTP_PROTOCOL_VERSIONS`);
});
