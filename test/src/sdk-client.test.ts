// The official MCP SDK Client against our example server, over each of our transports:
// stdio (a spawned bin), the Unix socket, and the in-memory pair.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createEchoServer } from '../../examples/echo-server.js';
import { InMemoryTransport, connectUnixSocket, serveUnixSocket, type UnixSocketListener } from '../../transports/index.js';
import { binCommand } from '../helpers/bin.js';

type Connect = () => Promise<{ client: Client; cleanup: () => Promise<void> }>;

const newClient = () => new Client({ name: 'sdk-test', version: '1.0.0' });

function suite(name: string, connect: Connect) {
  describe(`official SDK client over ${name}`, () => {
    let client: Client;
    let cleanup: () => Promise<void>;
    before(async () => ({ client, cleanup } = await connect()));
    after(() => cleanup());

    test('initialize negotiates the newest version and reports the server', () => {
      assert.deepEqual(client.getServerVersion(), { name: 'echo-example', version: '0.1.0' });
      assert.deepEqual(client.getServerCapabilities(), { tools: {} });
      assert.equal(client.getInstructions(), 'An example server: echo, fail, slow.');
    });

    test('tools/list describes every tool with a JSON Schema', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['echo', 'fail', 'slow'],
      );
      const echo = tools[0]!;
      assert.equal(echo.inputSchema.type, 'object');
      assert.deepEqual(echo.inputSchema.required, ['text']);
      assert.equal(echo.title, 'Echo');
      assert.equal(echo.outputSchema?.type, 'object');
    });

    test('tools/call returns JSON text and structuredContent', async () => {
      const r = await client.callTool({ name: 'echo', arguments: { text: 'héllo' } });
      assert.equal(r.isError, false);
      const payload = JSON.parse((r.content as any)[0].text);
      assert.equal(payload.text, 'héllo');
      assert.deepEqual(r.structuredContent, payload);
    });

    test('a failing tool gives an isError result and the server keeps serving', async () => {
      const r = await client.callTool({ name: 'fail', arguments: { message: 'boom' } });
      assert.equal(r.isError, true);
      assert.deepEqual(JSON.parse((r.content as any)[0].text), { error: 'boom', kind: 'requested' });
      const again = await client.callTool({ name: 'echo', arguments: { text: 'ok' } });
      assert.equal(again.isError, false);
    });

    test('invalid arguments name the field and what was expected', async () => {
      const r = await client.callTool({ name: 'echo', arguments: { text: 7 } });
      assert.equal(r.isError, true);
      assert.match((r.content as any)[0].text, /text: Invalid input: expected string, received number/);
    });

    test('an unknown tool is a JSON-RPC -32602 error', async () => {
      await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (e: any) => e.code === -32602);
    });

    test('progress notifications reach the caller, in order', async () => {
      const seen: Array<{ progress: number; total?: number }> = [];
      const r = await client.callTool({ name: 'slow', arguments: { steps: 3, interval_ms: 30 } }, undefined, {
        onprogress: (p) => seen.push({ progress: p.progress, total: p.total }),
      });
      assert.equal(r.isError, false);
      // The SDK client handles notifications a microtask later than responses, so a progress
      // notification that arrives in the same read as the result is dropped by the SDK itself;
      // the exact sequence on the wire is checked in wire.test.ts.
      assert.ok(seen.length >= 1, 'at least one progress notification');
      assert.deepEqual(
        seen,
        [1, 2, 3].slice(0, seen.length).map((progress) => ({ progress, total: 3 })),
      );
    });

    test('cancellation: an aborted call is abandoned and the server goes on', async () => {
      const controller = new AbortController();
      const call = client.callTool({ name: 'slow', arguments: { steps: 10_000, interval_ms: 5 } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort('enough'),
      });
      await assert.rejects(call);
      await client.ping();
      const r = await client.callTool({ name: 'echo', arguments: { text: 'after cancel' } });
      assert.equal(JSON.parse((r.content as any)[0].text).text, 'after cancel');
    });

    test('ping', async () => {
      assert.deepEqual(await client.ping(), {});
    });
  });
}

suite('stdio (spawned bin)', async () => {
  const { command, args } = binCommand('mcp-engines', ['example']);
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  const client = newClient();
  await client.connect(transport);
  return { client, cleanup: () => client.close() };
});

let dir: string;
let listener: UnixSocketListener;
suite('the Unix socket', async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-sock-'));
  const server = createEchoServer();
  listener = await serveUnixSocket(join(dir, 's.sock'), (t) => server.connect(t));
  const client = newClient();
  await client.connect(await connectUnixSocket(join(dir, 's.sock')));
  return {
    client,
    cleanup: async () => {
      await client.close();
      await listener.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

suite('the in-memory pair', async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createEchoServer();
  await server.connect(serverSide);
  const client = newClient();
  await client.connect(clientSide);
  return { client, cleanup: () => client.close() };
});
