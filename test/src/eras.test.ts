// Both protocol eras in one server, in memory: the 2026-07-28 stateless requests (server/discover,
// per-request _meta, resultType, serverInfo, cache hints, the -32022 version error, removed methods,
// multi-round-trip input) beside the 2025 handshake; legacy-only and modern-only servers; McpClient
// in each mode; strict tool arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpClient, McpServer, RemoteError, ToolRegistry, parseToolPayload, silentLogger } from '../../src/index.js';
import { JsonRpcPeer } from '../../src/jsonrpc/peer.js';
import { InMemoryTransport } from '../../transports/index.js';

const MODERN = '2026-07-28';
const meta = (extra: Record<string, unknown> = {}, version = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  ...extra,
});

function tools(): ToolRegistry {
  return new ToolRegistry()
    .define({ name: 'echo', description: 'echo', input: z.object({ text: z.string() }), handler: ({ text }) => ({ text }) })
    .define({
      name: 'loose',
      description: 'takes anything',
      input: z.object({ a: z.number() }),
      allowExtraArguments: true,
      handler: (args) => args,
    })
    .define({ name: 'catchall', description: 'loose object', input: z.looseObject({ a: z.number() }), handler: (args) => args })
    .define({
      name: 'ask_twice',
      description: 'elicits a name, then a colour',
      input: z.object({}),
      handler: async (_a, ctx) => {
        const first = await ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
        const second = await ctx.elicit({
          message: 'colour?',
          requestedSchema: { type: 'object', properties: { colour: { type: 'string', default: 'blue' } } },
        });
        return { name: first.content?.name, colour: second.content?.colour, modern: ctx.modern };
      },
    });
}

function server(protocolVersions?: string[]): McpServer {
  return new McpServer({
    name: 'eras',
    version: '1.2.3',
    tools: tools(),
    logger: silentLogger,
    ...(protocolVersions ? { protocolVersions } : {}),
  });
}

/** A raw peer on a fresh connection to `s`. */
async function rawPeer(s: McpServer): Promise<JsonRpcPeer> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await s.connect(a);
  const peer = new JsonRpcPeer(b, silentLogger);
  await peer.start();
  return peer;
}

async function rejects(p: Promise<unknown>, code: number, message?: RegExp): Promise<RemoteError> {
  const err = await p.then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RemoteError, String(err));
  assert.equal(err.code, code, err.message);
  if (message) assert.match(err.message, message);
  return err;
}

test('server/discover: versions, capabilities, identity in _meta, resultType and cache hints', async () => {
  const peer = await rawPeer(server());
  const r = await peer.request<Record<string, any>>('server/discover', { _meta: meta() });
  assert.deepEqual(r.supportedVersions, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  assert.deepEqual(r.capabilities, { tools: {} });
  assert.equal(r.resultType, 'complete');
  assert.deepEqual(r._meta['io.modelcontextprotocol/serverInfo'], { name: 'eras', version: '1.2.3' });
  assert.equal(r.ttlMs, 0);
  assert.equal(r.cacheScope, 'private');
  await peer.close();
});

test('a modern request is served without initialize; a legacy one on the same connection keeps its shape', async () => {
  const peer = await rawPeer(server());
  const list = await peer.request<Record<string, any>>('tools/list', { _meta: meta() });
  assert.equal(list.resultType, 'complete');
  assert.equal(typeof list.ttlMs, 'number');
  assert.ok(list.tools.some((t: { name: string }) => t.name === 'echo'));
  const call = await peer.request<Record<string, any>>('tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: meta() });
  assert.equal(call.resultType, 'complete');
  assert.equal(call.ttlMs, undefined, 'tools/call results carry no cache hints');
  assert.deepEqual(parseToolPayload(call as never), { text: 'hi' });
  const init = await peer.request<Record<string, any>>('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'old', version: '1' },
  });
  assert.equal(init.protocolVersion, '2025-06-18');
  const legacy = await peer.request<Record<string, any>>('tools/list', {});
  assert.equal(legacy.resultType, undefined);
  assert.equal(legacy.ttlMs, undefined);
  await peer.close();
});

test('an unsupported version is -32022 with the supported versions and the requested one', async () => {
  const peer = await rawPeer(server());
  const err = await rejects(peer.request('tools/list', { _meta: meta({}, '2099-01-01') }), -32022, /2099-01-01/);
  assert.deepEqual(err.data, {
    supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
    requested: '2099-01-01',
  });
  // A legacy version cannot be used statelessly either.
  await rejects(peer.request('tools/list', { _meta: meta({}, '2025-11-25') }), -32022);
  await rejects(peer.request('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } }), -32602, /clientCapabilities/);
  // …and the connection still serves.
  assert.equal((await peer.request<Record<string, any>>('tools/list', { _meta: meta() })).resultType, 'complete');
  await peer.close();
});

test('methods the 2026-07-28 revision removed are unknown to a modern request', async () => {
  const peer = await rawPeer(server());
  for (const method of ['ping', 'initialize']) {
    await rejects(peer.request(method, { _meta: meta() }), -32601, new RegExp(`${method} does not exist in protocol version 2026-07-28`));
  }
  await peer.close();
});

test('a legacy-only server does not know server/discover; McpClient auto falls back to initialize', async () => {
  const s = server(['2024-11-05']);
  const peer = await rawPeer(s);
  await rejects(peer.request('server/discover', { _meta: meta() }), -32601);
  await peer.close();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await s.connect(a);
  const client = new McpClient({ name: 'c', version: '1' }, { era: 'auto', logger: silentLogger });
  await client.connect(b);
  assert.equal(client.protocolVersion, '2024-11-05');
  assert.equal(client.modern, false);
  assert.ok((await client.listTools()).length > 0);
  await client.close();
});

test('a modern-only server refuses initialize naming its versions; McpClient auto stays modern', async () => {
  const s = server([MODERN]);
  const peer = await rawPeer(s);
  const err = await rejects(
    peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }),
    -32022,
  );
  assert.deepEqual((err.data as { supported: string[] }).supported, [MODERN]);
  await peer.close();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await s.connect(a);
  const client = new McpClient({ name: 'c', version: '1' }, { era: 'auto', logger: silentLogger });
  await client.connect(b);
  assert.equal(client.protocolVersion, MODERN);
  assert.equal(client.serverInfo?.name, 'eras');
  assert.deepEqual(parseToolPayload(await client.callTool('echo', { text: 'x' })), { text: 'x' });
  await client.close();
});

test('MRTR: ask_twice takes two input_required rounds; the answers of round one travel in requestState', async () => {
  const s = server();
  const peer = await rawPeer(s);
  const caps = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } });
  const first = await peer.request<Record<string, any>>('tools/call', { name: 'ask_twice', arguments: {}, _meta: caps });
  assert.equal(first.resultType, 'input_required');
  assert.deepEqual(Object.keys(first.inputRequests), ['elicitation-0']);
  assert.equal(first.inputRequests['elicitation-0'].method, 'elicitation/create');
  assert.equal(first.inputRequests['elicitation-0'].params.message, 'name?');
  assert.equal(first.ttlMs, undefined, 'an interim result carries no cache hints');
  const second = await peer.request<Record<string, any>>('tools/call', {
    name: 'ask_twice',
    arguments: {},
    _meta: caps,
    inputResponses: { 'elicitation-0': { action: 'accept', content: { name: 'Ada' } } },
    requestState: first.requestState,
  });
  assert.equal(second.resultType, 'input_required');
  assert.deepEqual(Object.keys(second.inputRequests), ['elicitation-1']);
  // A forged state is ignored: round one is asked again.
  const forged = await peer.request<Record<string, any>>('tools/call', {
    name: 'ask_twice',
    arguments: {},
    _meta: caps,
    inputResponses: { 'elicitation-1': { action: 'accept', content: { colour: 'red' } } },
    requestState: `${second.requestState.split('.')[0]}.AAAA`,
  });
  assert.deepEqual(Object.keys(forged.inputRequests), ['elicitation-0']);
  const done = await peer.request<Record<string, any>>('tools/call', {
    name: 'ask_twice',
    arguments: {},
    _meta: caps,
    inputResponses: { 'elicitation-1': { action: 'accept', content: { colour: 'red' } } },
    requestState: second.requestState,
  });
  assert.equal(done.resultType, 'complete');
  assert.deepEqual(parseToolPayload(done as never), { name: 'Ada', colour: 'red', modern: true });
  // Without the elicitation capability the server must not ask: -32021.
  const err = await rejects(peer.request('tools/call', { name: 'ask_twice', arguments: {}, _meta: meta() }), -32021);
  assert.deepEqual(err.data, { requiredCapabilities: { elicitation: {} } });
  await peer.close();
});

test('McpClient answers elicitation in both eras the same way, applying form defaults', async () => {
  for (const era of ['modern', 'legacy'] as const) {
    const s = server();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await s.connect(a);
    const asked: string[] = [];
    const client = new McpClient(
      { name: 'c', version: '1' },
      {
        era,
        logger: silentLogger,
        onElicit: (p) => {
          asked.push(p.message);
          return { action: 'accept', content: p.message === 'name?' ? { name: 'Grace' } : {} };
        },
      },
    );
    await client.connect(b);
    assert.equal(client.modern, era === 'modern');
    const r = await client.callTool('ask_twice', {});
    assert.deepEqual(parseToolPayload(r), { name: 'Grace', colour: 'blue', modern: era === 'modern' }, era);
    // The modern handler ran three times (two interim rounds); the client was asked once per question.
    assert.deepEqual(asked, ['name?', 'colour?'], era);
    await client.close();
  }
});

test('strict arguments: an unknown one is named with the known ones; explicit opt-outs accept extras', async () => {
  const s = server();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await s.connect(a);
  const client = new McpClient({ name: 'c', version: '1' }, { logger: silentLogger });
  await client.connect(b);
  const bad = await client.callTool('echo', { text: 'x', txet: 'y', more: 1 });
  assert.equal(bad.isError, true);
  assert.equal(
    (parseToolPayload(bad) as { error: string }).error,
    'invalid arguments for tool echo: Unrecognized keys: "txet", "more"; known arguments: text',
  );
  assert.deepEqual(parseToolPayload(await client.callTool('loose', { a: 1, b: 2 })), { a: 1 });
  assert.deepEqual(parseToolPayload(await client.callTool('catchall', { a: 1, b: 2 })), { a: 1, b: 2 });
  await client.close();
});
