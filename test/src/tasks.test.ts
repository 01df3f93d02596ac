// The Tasks extension (io.modelcontextprotocol/tasks) on 2026-07-28 requests, in memory: a tool
// run as a task (resultType "task"), polled with tasks/get to its result, asking for input through
// tasks/get + tasks/update, cancelled with tasks/cancel; clients without the extension get the
// ordinary result, or -32021 for a task-only tool; an unknown task is -32602.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer, type RemoteError, ToolRegistry, parseToolPayload, silentLogger } from '../../src/index.js';
import { JsonRpcPeer } from '../../src/jsonrpc/peer.js';
import { InMemoryTransport } from '../../transports/index.js';

const meta = (caps: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': caps,
});
const WITH_TASKS = meta({ extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } });
const WITHOUT = meta({});

function setup() {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let aborted = false;
  const tools = new ToolRegistry()
    .define({
      name: 'slow',
      description: 'waits for the test',
      input: z.object({ n: z.number() }),
      taskSupport: 'optional',
      handler: async ({ n }, ctx) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
        });
        ctx.progress(1, 2, 'half way');
        await gate;
        return { doubled: n * 2 };
      },
    })
    .define({
      name: 'asks',
      description: 'elicits inside a task',
      input: z.object({}),
      taskSupport: 'required',
      handler: async (_a, ctx) => {
        const r = await ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
        return { name: r.content?.name };
      },
    });
  const server = new McpServer({ name: 't', version: '1', tools, tasks: { ttlMs: 60_000, pollIntervalMs: 10 }, logger: silentLogger });
  return { server, release: () => release(), wasAborted: () => aborted };
}

async function peerOf(server: McpServer): Promise<JsonRpcPeer> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const peer = new JsonRpcPeer(b, silentLogger);
  await peer.start();
  return peer;
}

/** tasks/get until the status leaves `from` (each poll is a full round trip; bounded). */
async function pollUntilNot(peer: JsonRpcPeer, taskId: string, from: string): Promise<Record<string, any>> {
  for (let i = 0; i < 1000; i++) {
    const t = await peer.request<Record<string, any>>('tasks/get', { taskId, _meta: WITH_TASKS });
    if (t.status !== from) return t;
  }
  throw new Error(`task ${taskId} stayed ${from}`);
}

test('discover advertises the extension; a task runs, is polled, and keeps its result', async () => {
  const { server, release } = setup();
  const peer = await peerOf(server);
  const d = await peer.request<Record<string, any>>('server/discover', { _meta: WITHOUT });
  assert.deepEqual(d.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} });
  const created = await peer.request<Record<string, any>>('tools/call', { name: 'slow', arguments: { n: 21 }, _meta: WITH_TASKS });
  assert.equal(created.resultType, 'task');
  assert.equal(created.status, 'working');
  assert.equal(created.ttlMs, 60_000);
  assert.equal(created.pollIntervalMs, 10);
  const working = await peer.request<Record<string, any>>('tasks/get', { taskId: created.taskId, _meta: WITH_TASKS });
  assert.equal(working.resultType, 'complete');
  assert.equal(working.status, 'working');
  assert.equal(working.statusMessage, 'half way');
  release();
  const done = await pollUntilNot(peer, created.taskId, 'working');
  assert.equal(done.status, 'completed');
  assert.deepEqual(parseToolPayload(done.result), { doubled: 42 });
  // Kept: asked again, the same result.
  const again = await peer.request<Record<string, any>>('tasks/get', { taskId: created.taskId, _meta: WITH_TASKS });
  assert.deepEqual(again.result, done.result);
  await peer.close();
});

test('input inside a task: tasks/get shows the request, tasks/update answers it', async () => {
  const { server } = setup();
  const peer = await peerOf(server);
  const created = await peer.request<Record<string, any>>('tools/call', { name: 'asks', arguments: {}, _meta: WITH_TASKS });
  const waiting = await pollUntilNot(peer, created.taskId, 'working');
  assert.equal(waiting.status, 'input_required');
  assert.equal(waiting.inputRequests['elicitation-0'].method, 'elicitation/create');
  const ack = await peer.request<Record<string, any>>('tasks/update', {
    taskId: created.taskId,
    inputResponses: { 'elicitation-0': { action: 'accept', content: { name: 'Ada' } }, 'no-such-key': {} },
    _meta: WITH_TASKS,
  });
  assert.equal(ack.resultType, 'complete');
  const done = await pollUntilNot(peer, created.taskId, 'working');
  assert.equal(done.status, 'completed');
  assert.deepEqual(parseToolPayload(done.result), { name: 'Ada' });
  await peer.close();
});

test('tasks/cancel aborts the tool and the task stays cancelled', async () => {
  const { server, release, wasAborted } = setup();
  const peer = await peerOf(server);
  const created = await peer.request<Record<string, any>>('tools/call', { name: 'slow', arguments: { n: 1 }, _meta: WITH_TASKS });
  await peer.request('tasks/cancel', { taskId: created.taskId, _meta: WITH_TASKS });
  assert.equal(wasAborted(), true);
  release();
  const t = await peer.request<Record<string, any>>('tasks/get', { taskId: created.taskId, _meta: WITH_TASKS });
  assert.equal(t.status, 'cancelled');
  assert.equal(t.result, undefined);
  await peer.close();
});

test('without the extension: the ordinary result, -32021 for a task-only tool, -32602 for an unknown task', async () => {
  const { server, release } = setup();
  const peer = await peerOf(server);
  release();
  const plain = await peer.request<Record<string, any>>('tools/call', { name: 'slow', arguments: { n: 2 }, _meta: WITHOUT });
  assert.equal(plain.resultType, 'complete');
  assert.deepEqual(parseToolPayload(plain as never), { doubled: 4 });
  await assert.rejects(
    peer.request('tools/call', { name: 'asks', arguments: {}, _meta: WITHOUT }),
    (e: RemoteError) =>
      e.code === -32021 && JSON.stringify(e.data) === '{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}',
  );
  await assert.rejects(
    peer.request('tasks/get', { taskId: 'nope', _meta: WITH_TASKS }),
    (e: RemoteError) => e.code === -32602 && /Unknown task: nope/.test(e.message),
  );
  // The tasks methods do not exist for a legacy request.
  await assert.rejects(peer.request('tasks/get', { taskId: 'nope' }), (e: RemoteError) => e.code === -32601);
  await peer.close();
});
