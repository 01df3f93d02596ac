// subscriptions/listen (2026-07-28): the modern era's long-lived notification stream. In memory
// with our McpClient (acknowledgment first, resource updates and list changes tagged with the
// subscription id, only what the filter names, cancellation and connection close leave nothing
// behind, the server's graceful end), its errors (unknown kinds, unknown resources, nothing to
// send, the legacy era), and over Streamable HTTP with our client and the official v2 client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import {
  type Era,
  McpClient,
  McpServer,
  PromptRegistry,
  RemoteError,
  ResourceRegistry,
  type ServerSession,
  ToolRegistry,
  silentLogger,
} from '../../src/index.js';
import { InMemoryTransport, StreamableHttpClientTransport, serveStreamableHttp } from '../../transports/index.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';

function build(options: { toolsListChanged?: boolean; prompts?: boolean } = {}) {
  const resources = new ResourceRegistry()
    .resource({ uri: 'mem://a', name: 'a', read: () => 'A' })
    .resource({ uri: 'mem://b', name: 'b', read: () => 'B' })
    .template({ uriTemplate: 'mem://users/{id}', name: 'user', read: (_u, { id }) => `user ${id}` });
  const prompts = new PromptRegistry();
  const tools = new ToolRegistry().define({ name: 'echo', description: 'echo', input: z.object({}), handler: () => ({}) });
  const server = new McpServer({
    name: 'listen',
    version: '1',
    tools,
    resources,
    ...(options.prompts === false ? {} : { prompts }),
    ...(options.toolsListChanged ? { toolsListChanged: true } : {}),
    logger: silentLogger,
  });
  return { server, resources, prompts, tools };
}

async function connect(server: McpServer, era: Era = 'modern') {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const session = await server.connect(a);
  const client = new McpClient({ name: 'c', version: '1' }, { era, logger: silentLogger });
  await client.connect(b);
  return { client, session };
}

/** Notifications as they arrive, awaited one at a time (no timing involved). */
function inbox() {
  const items: Array<{ method: string; params: Record<string, unknown> }> = [];
  const waiters: Array<() => void> = [];
  return {
    push: (method: string, params: Record<string, unknown>) => {
      items.push({ method, params });
      waiters.shift()?.();
    },
    async next() {
      if (items.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
      return items.shift()!;
    },
    get pending() {
      return items.length;
    },
  };
}

/** Wait for a condition the server reaches on its own (e.g. after an HTTP connection closes). */
async function until(what: string, condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('in memory: acknowledged first, then updates of subscribed resources and list changes, tagged with the subscription id', async () => {
  const { server, resources, prompts } = build();
  const { client, session } = await connect(server);
  const box = inbox();
  const sub = await client.listen(
    { resourceSubscriptions: ['mem://a', 'mem://users/7'], promptsListChanged: true, resourcesListChanged: true },
    box.push,
  );
  assert.deepEqual(sub.honored, {
    resourceSubscriptions: ['mem://a', 'mem://users/7'],
    promptsListChanged: true,
    resourcesListChanged: true,
  });
  assert.equal(session.openSubscriptions, 1);
  resources.notifyUpdated('mem://b'); // not subscribed: nothing
  resources.notifyUpdated('mem://a');
  let n = await box.next();
  assert.equal(n.method, 'notifications/resources/updated');
  assert.deepEqual(n.params, { uri: 'mem://a', _meta: { [SUB]: sub.id } });
  resources.notifyUpdated('mem://users/7');
  assert.deepEqual((await box.next()).params.uri, 'mem://users/7');
  prompts.define({ name: 'p', get: () => [] });
  n = await box.next();
  assert.deepEqual(n, { method: 'notifications/prompts/list_changed', params: { _meta: { [SUB]: sub.id } } });
  resources.resource({ uri: 'mem://c', name: 'c', read: () => 'C' });
  assert.equal((await box.next()).method, 'notifications/resources/list_changed');
  assert.equal(box.pending, 0);

  // Cancelling stops it; once the server has seen the cancellation, nothing is left behind.
  sub.close();
  assert.equal(await sub.closed, 'local');
  await client.listTools(); // in memory is ordered: the cancellation was handled before this answer
  assert.equal(session.openSubscriptions, 0);
  resources.notifyUpdated('mem://a');
  await client.listTools();
  assert.equal(box.pending, 0);
  await client.close();
});

test('two subscriptions on one connection get only what each asked for; an ordinary notification handler also sees them', async () => {
  const { server, resources, prompts } = build();
  const { client } = await connect(server);
  const first = inbox();
  const second = inbox();
  const seen: string[] = [];
  client.onNotification('notifications/prompts/list_changed', () => seen.push('prompts'));
  const a = await client.listen({ resourceSubscriptions: ['mem://a'] }, first.push);
  const b = await client.listen({ promptsListChanged: true }, second.push);
  assert.notEqual(a.id, b.id);
  prompts.define({ name: 'p', get: () => [] });
  resources.notifyUpdated('mem://a');
  assert.deepEqual((await second.next()).params._meta, { [SUB]: b.id });
  assert.deepEqual((await first.next()).params, { uri: 'mem://a', _meta: { [SUB]: a.id } });
  assert.deepEqual(seen, ['prompts']);
  assert.equal(first.pending + second.pending, 0);
  a.close();
  b.close();
  await client.close();
});

test('tools: listChanged is advertised only when asked for; then tools added later reach listeners and 2025 sessions', async () => {
  const plain = build();
  assert.deepEqual(plain.server.capabilities().tools, {});
  const { client: c0 } = await connect(plain.server);
  // Not offered: left out of the acknowledgment (the spec), the rest is honored.
  const partial = await c0.listen({ toolsListChanged: true, promptsListChanged: true }, () => {});
  assert.deepEqual(partial.honored, { promptsListChanged: true });
  partial.close();
  await c0.close();

  const { server, tools } = build({ toolsListChanged: true });
  assert.deepEqual(server.capabilities().tools, { listChanged: true });
  const { client } = await connect(server);
  const { client: legacy } = await connect(server, 'legacy');
  const legacySeen = inbox();
  legacy.onNotification('notifications/tools/list_changed', (p) => legacySeen.push('notifications/tools/list_changed', p));
  const box = inbox();
  const sub = await client.listen({ toolsListChanged: true }, box.push);
  const extra = new ToolRegistry().define({ name: 'late', description: 'added later', input: z.object({}), handler: () => ({}) });
  tools.mount(extra);
  assert.deepEqual(await box.next(), { method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: sub.id } } });
  assert.deepEqual(await legacySeen.next(), { method: 'notifications/tools/list_changed', params: {} });
  assert.ok((await client.listTools()).some((t) => t.name === 'late'));
  sub.close();
  await client.close();
  await legacy.close();
});

test('the server ends subscriptions gracefully: the listen request is answered with its subscription id', async () => {
  const { server } = build();
  const { client, session } = await connect(server);
  const sub = await client.listen({ resourcesListChanged: true }, () => {});
  session.endSubscriptions();
  assert.equal(await sub.closed, 'graceful');
  assert.equal(session.openSubscriptions, 0);
  assert.equal((await client.listTools()).length, 1); // still serving

  // Closing the server answers open listens before the connection goes.
  const again = await client.listen({ resourcesListChanged: true }, () => {});
  await server.close();
  assert.equal(await again.closed, 'graceful');
});

test('the connection closing ends its subscriptions on the server', async () => {
  const { server, resources } = build();
  const { client, session } = await connect(server);
  const sub = await client.listen({ resourceSubscriptions: ['mem://a'] }, () => {});
  const closed = new Promise<void>((resolve) => session.onClose(resolve));
  await client.close();
  await closed;
  assert.equal(session.openSubscriptions, 0);
  assert.equal(await sub.closed, 'remote');
  resources.notifyUpdated('mem://a'); // no session to send to, and no error
});

test('bad filters get -32602 naming what is wrong; the legacy era has no subscriptions/listen (-32601); the server keeps serving', async () => {
  const { server } = build({ prompts: false });
  const { client } = await connect(server);
  const refused = async (filter: unknown, pattern: RegExp) => {
    await assert.rejects(
      client.listen(filter as never, () => {}),
      (e: RemoteError) => {
        assert.equal(e.code, -32602);
        assert.match(e.message, pattern);
        return true;
      },
    );
  };
  await refused(
    { toolListChanged: true },
    /unknown subscription kind "toolListChanged".*known kinds: toolsListChanged, promptsListChanged, resourcesListChanged, resourceSubscriptions/,
  );
  await refused({ resourceSubscriptions: ['mem://nope', 'mem://a'] }, /no resource "mem:\/\/nope" on this server/);
  await refused({ resourceSubscriptions: 'mem://a' }, /resourceSubscriptions must be an array of resource URIs/);
  await refused({ resourcesListChanged: 'yes' }, /notifications.resourcesListChanged must be a boolean/);
  await refused({ promptsListChanged: true }, /asks for nothing this server sends; it offers resourcesListChanged, resourceSubscriptions/);
  await refused({}, /asks for nothing this server sends/);
  await assert.rejects(
    client.request('subscriptions/listen', {}),
    (e: RemoteError) => e.code === -32602 && /needs "notifications"/.test(e.message),
  );

  const { client: legacy } = await connect(server, 'legacy');
  await assert.rejects(
    legacy.listen({ resourcesListChanged: true }, () => {}),
    /needs the 2026-07-28 era/,
  );
  await assert.rejects(legacy.request('subscriptions/listen', { notifications: { resourcesListChanged: true } }), (e: RemoteError) => {
    assert.ok(e instanceof RemoteError);
    return e.code === -32601;
  });
  assert.equal((await client.listTools()).length, 1);
  await client.close();
  await legacy.close();
});

/** The server's stateless HTTP session (every 2026-07-28 request goes through it). */
function statelessSession(server: McpServer): ServerSession {
  const [session] = server.sessions;
  assert.ok(session, 'the stateless transport is connected');
  return session;
}

test("Streamable HTTP, our client: notifications on the listen stream carry the client's own id; closing the stream cancels; a graceful end", async () => {
  const { server, resources, prompts } = build();
  const listener = await serveStreamableHttp({ connect: (t) => server.connect(t), logger: silentLogger });
  const client = new McpClient({ name: 'http', version: '1' }, { era: 'modern', logger: silentLogger });
  try {
    await client.connect(new StreamableHttpClientTransport(listener.url));
    const box = inbox();
    const sub = await client.listen({ resourceSubscriptions: ['mem://a'], promptsListChanged: true }, box.push);
    assert.deepEqual(sub.honored, { resourceSubscriptions: ['mem://a'], promptsListChanged: true });
    resources.notifyUpdated('mem://a');
    assert.deepEqual(await box.next(), { method: 'notifications/resources/updated', params: { uri: 'mem://a', _meta: { [SUB]: sub.id } } });
    prompts.define({ name: 'p', get: () => [] });
    assert.equal((await box.next()).method, 'notifications/prompts/list_changed');
    const session = statelessSession(server);
    assert.equal(session.openSubscriptions, 1);
    sub.close();
    assert.equal(await sub.closed, 'local');
    await until('the server to see the closed stream', () => session.openSubscriptions === 0);

    const ending = await client.listen({ resourcesListChanged: true }, () => {});
    session.endSubscriptions();
    assert.equal(await ending.closed, 'graceful');
    assert.equal((await client.listTools()).length, 1);
  } finally {
    await client.close();
    await listener.close();
  }
});

test('Streamable HTTP, the official v2 client pinned to 2026-07-28: listen, a resource update, close', async () => {
  const { server, resources } = build();
  const listener = await serveStreamableHttp({ connect: (t) => server.connect(t), logger: silentLogger });
  const client = new Client({ name: 'v2-listen', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    const updates = inbox();
    client.setNotificationHandler('notifications/resources/updated', (n) => updates.push(n.method, n.params as Record<string, unknown>));
    const sub = await client.listen({ resourceSubscriptions: ['mem://a'] });
    assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: ['mem://a'] });
    resources.notifyUpdated('mem://a');
    const n = await updates.next();
    assert.equal(n.params.uri, 'mem://a');
    await sub.close();
    assert.equal(await sub.closed, 'local');
    const session = statelessSession(server);
    await until('the server to see the closed stream', () => session.openSubscriptions === 0);
  } finally {
    await client.close();
    await listener.close();
  }
});

test('Streamable HTTP: an idle listen stream gets SSE keep-alive comments after its acknowledgment; nothing after it is closed', async () => {
  const { server } = build();
  const listener = await serveStreamableHttp({ connect: (t) => server.connect(t), logger: silentLogger, keepAliveMs: 10 });
  const abort = new AbortController();
  try {
    const res = await fetch(listener.url, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
          notifications: { resourcesListChanged: true },
        },
      }),
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes('\n:\n')) break;
    }
    const [first] = text.split('\n\n');
    assert.deepEqual(JSON.parse(first!.replace(/^data: /, '')), {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourcesListChanged: true }, _meta: { [SUB]: 'listen-1' } },
    });
    abort.abort();
    const session = statelessSession(server);
    await until('the server to see the closed stream', () => session.openSubscriptions === 0);
  } finally {
    abort.abort();
    await listener.close();
  }
});

test('Streamable HTTP: a POSTed notifications/cancelled cannot end a listen (ids are per client there; closing the stream cancels)', async () => {
  const { server } = build();
  const listener = await serveStreamableHttp({ connect: (t) => server.connect(t), logger: silentLogger });
  const abort = new AbortController();
  const headers = (method: string) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  });
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  try {
    const res = await fetch(listener.url, {
      method: 'POST',
      signal: abort.signal,
      headers: headers('subscriptions/listen'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: { _meta, notifications: { resourcesListChanged: true } },
      }),
    });
    assert.equal(res.status, 200);
    const session = statelessSession(server);
    assert.equal(session.openSubscriptions, 1);
    // Another client's cancellation naming id 1 (the first request's id on both sides).
    for (const requestId of [1, 0, 2]) {
      const cancel = await fetch(listener.url, {
        method: 'POST',
        headers: headers('notifications/cancelled'),
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta, requestId } }),
      });
      assert.equal(cancel.status, 202);
    }
    assert.equal(session.openSubscriptions, 1);
    abort.abort();
    await until('the server to see the closed stream', () => session.openSubscriptions === 0);
  } finally {
    abort.abort();
    await listener.close();
  }
});
