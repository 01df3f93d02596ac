// McpServer, ToolRegistry and McpClient in one process over the in-memory pair, plus
// interoperability with the official SDK in both directions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport as SdkInMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  JsonRpcPeer,
  McpClient,
  McpServer,
  type RemoteError,
  ToolError,
  ToolRegistry,
  createLogger,
  parseToolPayload,
  rawResult,
  toolResult,
  type ToolContext,
} from '../../src/index.js';
import { InMemoryTransport } from '../../transports/index.js';

const quiet = createLogger('test', 'error');

async function pair(server: McpServer, protocolVersion?: string) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new McpClient({ name: 'c', version: '1' }, { protocolVersion, logger: quiet });
  await client.connect(a);
  return client;
}

const echoTools = () =>
  new ToolRegistry().define({
    name: 'echo',
    description: 'echo',
    input: z.object({ text: z.string() }),
    output: z.object({ text: z.string() }),
    handler: ({ text }) => ({ text }),
  });

test('duplicate tool names are refused at definition time, also across mounted registries', () => {
  const a = echoTools();
  assert.throws(
    () => a.define({ name: 'echo', description: 'again', input: z.object({}), handler: () => ({}) }),
    /duplicate tool name: echo/,
  );
  const parent = new ToolRegistry().mount(a);
  const b = new ToolRegistry().define({ name: 'echo', description: 'clash', input: z.object({}), handler: () => ({}) });
  assert.throws(() => parent.mount(b), /duplicate tool name: echo/);
  // A tool defined later in a mounted registry appears in the parent, and clashes are still caught.
  a.define({ name: 'later', description: 'later', input: z.object({}), handler: () => ({}) });
  assert.ok(parent.has('later'));
  const c = new ToolRegistry().define({ name: 'other', description: 'x', input: z.object({}), handler: () => ({}) });
  parent.mount(c);
  assert.throws(
    () => c.define({ name: 'later', description: 'x', input: z.object({}), handler: () => ({}) }),
    /duplicate tool name: later/,
  );
});

test('tool names and input schemas are checked at definition time', () => {
  const r = new ToolRegistry();
  assert.throws(() => r.define({ name: 'bad name', description: '', input: z.object({}), handler: () => ({}) }), /invalid tool name/);
  assert.throws(() => r.define({ name: 'x', description: '', input: z.string(), handler: () => ({}) }), /must describe an object/);
});

test('hidden tools are callable but not listed', async () => {
  const tools = echoTools().define({
    name: '_secret',
    description: 'hidden',
    input: z.object({}),
    hidden: true,
    handler: () => ({ ok: true }),
  });
  const client = await pair(new McpServer({ name: 's', version: '1', tools, logger: quiet }));
  assert.deepEqual(
    (await client.listTools()).map((t) => t.name),
    ['echo'],
  );
  assert.deepEqual(parseToolPayload(await client.callTool('_secret', {})), { ok: true });
  await client.close();
});

test('closed request objects reject extra fields, naming them', async () => {
  const tools = new ToolRegistry().define({
    name: 'closed',
    description: '',
    input: z.strictObject({ a: z.number() }),
    handler: ({ a }) => ({ a }),
  });
  const client = await pair(new McpServer({ name: 's', version: '1', tools, logger: quiet }));
  const list = await client.listTools();
  assert.equal(list[0]!.inputSchema.additionalProperties, false);
  const r = await client.callTool('closed', { a: 1, extra: 2 });
  assert.equal(r.isError, true);
  assert.match((parseToolPayload(r) as any).error, /Unrecognized key: "extra"/);
  await client.close();
});

test('version negotiation: a supported request is echoed, anything else gets the preferred version', async () => {
  const make = () =>
    new McpServer({ name: 's', version: '1', tools: echoTools(), protocolVersions: ['2024-11-05', '2025-06-18'], logger: quiet });
  assert.equal((await pair(make(), '2025-06-18')).protocolVersion, '2025-06-18');
  assert.equal((await pair(make(), '2024-11-05')).protocolVersion, '2024-11-05');
  assert.equal((await pair(make(), '2025-11-25')).protocolVersion, '2024-11-05');
});

test('structuredContent and outputSchema only from 2025-06-18 on', async () => {
  const make = () => new McpServer({ name: 's', version: '1', tools: echoTools(), logger: quiet });
  const old = await pair(make(), '2024-11-05');
  assert.equal((await old.listTools())[0]!.outputSchema, undefined);
  assert.equal((await old.callTool('echo', { text: 'a' })).structuredContent, undefined);
  const now = await pair(make(), '2025-06-18');
  assert.equal((await now.listTools())[0]!.outputSchema?.type, 'object');
  assert.deepEqual((await now.callTool('echo', { text: 'a' })).structuredContent, { text: 'a' });
});

test('a result outside the declared output schema becomes an isError result', async () => {
  const tools = new ToolRegistry().define({
    name: 'liar',
    description: '',
    input: z.object({}),
    output: z.object({ n: z.number() }),
    // The compiler refuses this handler (see tool-envelope.test.ts); the cast stands for a tool
    // whose data escaped the type system, which the runtime check must still catch.
    handler: () => ({ n: 'x' }) as unknown as { n: number },
  });
  const client = await pair(new McpServer({ name: 's', version: '1', tools, logger: quiet }));
  const r = await client.callTool('liar', {});
  assert.equal(r.isError, true);
  assert.match((parseToolPayload(r) as any).error, /does not match its output schema/);
});

test('instructions are computed at each initialize', async () => {
  let n = 0;
  const server = new McpServer({ name: 's', version: '1', tools: echoTools(), instructions: () => `call ${++n}`, logger: quiet });
  assert.equal((await pair(server)).instructions, 'call 1');
  assert.equal((await pair(server)).instructions, 'call 2');
});

test('ToolError, toolResult, rawResult and an unexpected exception', async () => {
  const tools = new ToolRegistry()
    .define({
      name: 'te',
      description: '',
      input: z.object({}),
      handler: () => {
        throw new ToolError('nope', { phase: 'connect' });
      },
    })
    .define({ name: 'tr', description: '', input: z.object({}), handler: () => toolResult({ partial: true }, { isError: true }) })
    .define({
      name: 'raw',
      description: '',
      input: z.object({}),
      handler: () => rawResult({ content: [{ type: 'text', text: 'as is' }], isError: false }),
    })
    .define({
      name: 'bug',
      description: '',
      input: z.object({}),
      handler: () => {
        throw new Error('secret detail /etc/passwd');
      },
    });
  const client = await pair(new McpServer({ name: 's', version: '1', tools, logger: quiet }));
  assert.deepEqual(await client.callTool('te', {}), {
    content: [{ type: 'text', text: '{"error":"nope","phase":"connect"}' }],
    isError: true,
  });
  assert.deepEqual(parseToolPayload(await client.callTool('tr', {})), { partial: true });
  assert.deepEqual(await client.callTool('raw', {}), { content: [{ type: 'text', text: 'as is' }], isError: false });
  const bug = await client.callTool('bug', {});
  assert.equal(bug.isError, true);
  assert.doesNotMatch(JSON.stringify(bug), /secret|passwd|at /);
});

test('a plain Error in a JSON-RPC method becomes -32603 with no detail on the wire', async () => {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const server = new JsonRpcPeer(b, quiet);
  server.onRequest('boom', () => {
    throw new Error('secret stack detail');
  });
  server.onRequest('nothing', () => undefined);
  await server.start();
  const seen: any[] = [];
  a.onmessage = (m) => seen.push(m);
  await a.start();
  await a.send({ jsonrpc: '2.0', id: 1, method: 'boom' });
  await a.send({ jsonrpc: '2.0', id: 2, method: 'nothing' });
  while (seen.length < 2) await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen[0], { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
  assert.deepEqual(seen[1], { jsonrpc: '2.0', id: 2, result: {} }, 'results are always objects');
});

test('cancellation: the handler sees the abort, onCancelled sees extra fields, no response is sent', async () => {
  let seenCtx: ToolContext | undefined;
  let aborted!: () => void;
  const abortedP = new Promise<void>((r) => (aborted = r));
  const cancelled: Record<string, unknown>[] = [];
  const tools = new ToolRegistry().define({
    name: 'wait',
    description: '',
    input: z.object({}),
    handler: (_a, ctx) =>
      new Promise((resolve) => {
        seenCtx = ctx;
        ctx.signal.addEventListener('abort', () => {
          aborted();
          resolve({ late: true });
        });
      }),
  });
  const server = new McpServer({ name: 's', version: '1', tools, logger: quiet, onCancelled: (p) => cancelled.push(p) });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const seen: any[] = [];
  a.onmessage = (m) => seen.push(m);
  await a.start();
  await a.send({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'wait', arguments: {} } });
  while (!seenCtx) await new Promise((r) => setImmediate(r));
  await a.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0, reason: 'r', host: 'box' } });
  await abortedP;
  await a.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  while (!seen.some((m) => m.id === 1)) await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    seen.map((m) => m.id),
    [1],
    'request 0 got no response',
  );
  assert.deepEqual(cancelled, [{ requestId: 0, reason: 'r', host: 'box' }]);
});

test('McpClient: abort and timeout send notifications/cancelled and reject', async () => {
  const cancelled: unknown[] = [];
  const tools = new ToolRegistry().define({
    name: 'hang',
    description: '',
    input: z.object({}),
    handler: (_a, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
  });
  const server = new McpServer({ name: 's', version: '1', tools, logger: quiet, onCancelled: (p) => cancelled.push(p.requestId) });
  const client = await pair(server);
  const controller = new AbortController();
  const call = client.callTool('hang', {}, { signal: controller.signal });
  controller.abort(new Error('user said stop'));
  await assert.rejects(call, /user said stop/);
  await assert.rejects(client.callTool('hang', {}, { timeoutMs: 20 }), (e: RemoteError) => /timed out after 20 ms/.test(e.message));
  await client.ping();
  assert.equal(cancelled.length, 2);
});

test('our McpClient against the official SDK McpServer', async () => {
  const sdk = new SdkMcpServer({ name: 'sdk-server', version: '9' });
  sdk.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  const [clientSide, serverSide] = SdkInMemoryTransport.createLinkedPair();
  await sdk.connect(serverSide);
  const client = new McpClient({ name: 'ours', version: '1' }, { logger: quiet });
  await client.connect(clientSide);
  assert.equal(client.serverInfo?.name, 'sdk-server');
  assert.deepEqual(
    (await client.listTools()).map((t) => t.name),
    ['add'],
  );
  assert.deepEqual((await client.callTool('add', { a: 2, b: 3 })).content, [{ type: 'text', text: '5' }]);
  await client.close();
});

test('the official SDK Client through the SDK in-memory transport against our McpServer', async () => {
  const [clientSide, serverSide] = SdkInMemoryTransport.createLinkedPair();
  await new McpServer({ name: 'ours', version: '1', tools: echoTools(), logger: quiet }).connect(serverSide);
  const client = new Client({ name: 'sdk', version: '1' });
  await client.connect(clientSide);
  const r = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
  assert.deepEqual(r.structuredContent, { text: 'x' });
  await client.close();
});
