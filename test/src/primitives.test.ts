// Every server primitive beside tools, in memory through McpClient: resources (list, read,
// templates, not-found codes per era, subscribe/updated, list_changed), prompts (arguments and
// their errors), completion, logging (setLevel in 2025, per-request _meta level in 2026),
// sampling and roots, and capabilities advertised from what is registered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  type Era,
  McpClient,
  McpServer,
  PromptRegistry,
  type RemoteError,
  ResourceRegistry,
  ToolRegistry,
  parseToolPayload,
  silentLogger,
} from '../../src/index.js';
import { InMemoryTransport } from '../../transports/index.js';

function build() {
  const resources = new ResourceRegistry()
    .resource({ uri: 'mem://hello', name: 'hello', description: 'a greeting', mimeType: 'text/plain', read: () => 'Hello.' })
    .resource({ uri: 'mem://blob', name: 'blob', read: (uri) => ({ uri, mimeType: 'application/octet-stream', blob: 'AAEC' }) })
    .template({
      uriTemplate: 'mem://users/{id}/profile',
      name: 'profile',
      mimeType: 'application/json',
      read: (_uri, { id }) => JSON.stringify({ id }),
      complete: { id: (v) => ['ada', 'alan', 'grace'].filter((n) => n.startsWith(v)) },
    });
  const prompts = new PromptRegistry().define({
    name: 'greet',
    description: 'greets someone',
    arguments: [{ name: 'who', required: true, complete: (v, { arguments: ctx }) => [`${v}!`, ctx.style ?? 'plain'] }, { name: 'style' }],
    get: ({ who, style }) => [{ role: 'user', content: { type: 'text', text: `Hello ${who}${style ? ` (${style})` : ''}` } }],
  });
  const tools = new ToolRegistry()
    .define({
      name: 'chatty',
      description: 'logs at three levels',
      input: z.object({}),
      handler: (_a, ctx) => {
        ctx.logMessage('debug', 'fine detail');
        ctx.logMessage('info', { step: 1 }, 'chatty');
        ctx.logMessage('error', 'bad news');
        return { ok: true };
      },
    })
    .define({
      name: 'ask_model_and_roots',
      description: 'samples and lists roots',
      input: z.object({}),
      handler: async (_a, ctx) => {
        const m = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: '2+2?' } }], maxTokens: 5 });
        const r = await ctx.listRoots();
        return { answer: (m.content as { text: string }).text, roots: r.roots.map((x) => x.uri) };
      },
    });
  const server = new McpServer({ name: 'prims', version: '1', tools, resources, prompts, logging: true, logger: silentLogger });
  return { server, resources, prompts };
}

async function connect(server: McpServer, era: Era, options: ConstructorParameters<typeof McpClient>[1] = {}) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new McpClient({ name: 'c', version: '1' }, { era, logger: silentLogger, ...options });
  await client.connect(b);
  return client;
}

test('capabilities follow what is registered', async () => {
  const { server } = build();
  assert.deepEqual(server.capabilities(), {
    tools: {},
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    logging: {},
    completions: {},
  });
  const bare = new McpServer({ name: 'b', version: '1', logger: silentLogger });
  assert.deepEqual(bare.capabilities(), { tools: {} });
  const client = await connect(bare, 'legacy');
  await assert.rejects(client.request('resources/list'), (e: RemoteError) => e.code === -32601);
  await client.close();
});

for (const era of ['legacy', 'modern'] as const) {
  test(`resources (${era}): list, templates, read text/blob/template, not found`, async () => {
    const { server } = build();
    const client = await connect(server, era);
    const list = await client.request<{ resources: Array<{ uri: string }> }>('resources/list');
    assert.deepEqual(
      list.resources.map((r) => r.uri),
      ['mem://hello', 'mem://blob'],
    );
    const templates = await client.request<{ resourceTemplates: Array<{ uriTemplate: string }> }>('resources/templates/list');
    assert.deepEqual(templates.resourceTemplates, [
      { uriTemplate: 'mem://users/{id}/profile', name: 'profile', mimeType: 'application/json' },
    ]);
    const text = await client.request<{ contents: unknown[] }>('resources/read', { uri: 'mem://hello' });
    assert.deepEqual(text.contents, [{ uri: 'mem://hello', mimeType: 'text/plain', text: 'Hello.' }]);
    const blob = await client.request<{ contents: unknown[] }>('resources/read', { uri: 'mem://blob' });
    assert.deepEqual(blob.contents, [{ uri: 'mem://blob', mimeType: 'application/octet-stream', blob: 'AAEC' }]);
    const viaTemplate = await client.request<{ contents: unknown[] }>('resources/read', { uri: 'mem://users/a%20b/profile' });
    assert.deepEqual(viaTemplate.contents, [{ uri: 'mem://users/a%20b/profile', mimeType: 'application/json', text: '{"id":"a b"}' }]);
    await assert.rejects(
      client.request('resources/read', { uri: 'mem://nope' }),
      (e: RemoteError) => e.code === (era === 'modern' ? -32602 : -32002) && /mem:\/\/nope/.test(e.message),
    );
    await client.close();
  });

  test(`prompts and completion (${era})`, async () => {
    const { server } = build();
    const client = await connect(server, era);
    const list = await client.request<{ prompts: unknown[] }>('prompts/list');
    assert.deepEqual(list.prompts, [
      { name: 'greet', description: 'greets someone', arguments: [{ name: 'who', required: true }, { name: 'style' }] },
    ]);
    const got = await client.request<{ messages: unknown[] }>('prompts/get', { name: 'greet', arguments: { who: 'Ada', style: 'warm' } });
    assert.deepEqual(got.messages, [{ role: 'user', content: { type: 'text', text: 'Hello Ada (warm)' } }]);
    await assert.rejects(
      client.request('prompts/get', { name: 'greet', arguments: {} }),
      (e: RemoteError) => e.code === -32602 && /requires who/.test(e.message),
    );
    await assert.rejects(
      client.request('prompts/get', { name: 'greet', arguments: { who: 'x', mood: 'y' } }),
      (e: RemoteError) => e.code === -32602 && /no argument "mood"; its arguments: who, style/.test(e.message),
    );
    await assert.rejects(
      client.request('prompts/get', { name: 'nope' }),
      (e: RemoteError) => e.code === -32602 && /Unknown prompt: nope/.test(e.message),
    );
    const c1 = await client.request<{ completion: unknown }>('completion/complete', {
      ref: { type: 'ref/resource', uri: 'mem://users/{id}/profile' },
      argument: { name: 'id', value: 'a' },
    });
    assert.deepEqual(c1.completion, { values: ['ada', 'alan'], total: 2, hasMore: false });
    const c2 = await client.request<{ completion: unknown }>('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'Bo' },
      context: { arguments: { style: 'warm' } },
    });
    assert.deepEqual(c2.completion, { values: ['Bo!', 'warm'], total: 2, hasMore: false });
    await client.close();
  });

  test(`sampling and roots (${era})`, async () => {
    const { server } = build();
    const client = await connect(server, era, {
      onCreateMessage: (p) => ({ role: 'assistant', content: { type: 'text', text: `4 (${p.maxTokens})` }, model: 'm' }),
      roots: () => [{ uri: 'file:///work' }],
    });
    assert.deepEqual(parseToolPayload(await client.callTool('ask_model_and_roots')), { answer: '4 (5)', roots: ['file:///work'] });
    await client.close();
  });
}

test('logging, 2025: everything until logging/setLevel, then only that level and above', async () => {
  const { server } = build();
  const client = await connect(server, 'legacy');
  const seen: unknown[] = [];
  client.onNotification('notifications/message', (p) => seen.push(p));
  await client.callTool('chatty');
  assert.equal(seen.length, 3);
  seen.length = 0;
  await client.request('logging/setLevel', { level: 'info' });
  await client.callTool('chatty');
  assert.deepEqual(seen, [
    { level: 'info', logger: 'chatty', data: { step: 1 } },
    { level: 'error', data: 'bad news' },
  ]);
  await assert.rejects(client.request('logging/setLevel', { level: 'loud' }), (e: RemoteError) => e.code === -32602);
  await client.close();
});

test('logging, 2026: nothing without the _meta level; with it, that level and above; setLevel is gone', async () => {
  const { server } = build();
  const quiet = await connect(server, 'modern');
  const seen: unknown[] = [];
  quiet.onNotification('notifications/message', (p) => seen.push(p));
  await quiet.callTool('chatty');
  assert.equal(seen.length, 0);
  await assert.rejects(quiet.request('logging/setLevel', { level: 'debug' }), (e: RemoteError) => e.code === -32601);
  await quiet.close();
  const loud = await connect(server, 'modern', { logLevel: 'error' });
  loud.onNotification('notifications/message', (p) => seen.push(p));
  await loud.callTool('chatty');
  assert.deepEqual(seen, [{ level: 'error', data: 'bad news' }]);
  await loud.close();
});

test('2025: resources/subscribe brings notifications/resources/updated; list changes are announced', async () => {
  const { server, resources, prompts } = build();
  const client = await connect(server, 'legacy');
  const events: string[] = [];
  client.onNotification('notifications/resources/updated', (p) => events.push(`updated ${p.uri}`));
  client.onNotification('notifications/resources/list_changed', () => events.push('resources changed'));
  client.onNotification('notifications/prompts/list_changed', () => events.push('prompts changed'));
  resources.notifyUpdated('mem://hello'); // not subscribed: nothing
  await client.request('resources/subscribe', { uri: 'mem://hello' });
  resources.notifyUpdated('mem://hello');
  await client.request('resources/unsubscribe', { uri: 'mem://hello' });
  resources.notifyUpdated('mem://hello');
  resources.resource({ uri: 'mem://new', name: 'new', read: () => '' });
  prompts.define({ name: 'p2', get: () => [] });
  await client.request('resources/list'); // a round trip: every notification sent before it has arrived
  assert.deepEqual(events, ['updated mem://hello', 'resources changed', 'prompts changed']);
  await client.close();
});

test('2026: resources/subscribe does not exist in a modern request', async () => {
  const { server } = build();
  const client = await connect(server, 'modern');
  await assert.rejects(client.request('resources/subscribe', { uri: 'mem://hello' }), (e: RemoteError) => e.code === -32601);
  await client.close();
});
