// The seam to routing: createTopupServer with a fake router, over the in-memory transport. Checks
// that routed calls are forwarded without host/session and answered unchanged, that cancellations
// reach the right place, and that instructions are recomputed at each initialize.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpClient, ToolRegistry, parseToolPayload } from '../../../src/index.js';
import type { CallToolResult, ToolContext } from '../../../src/index.js';
import { InMemoryTransport } from '../../../transports/index.js';
import { createTopupServer, type RouteTarget, type TopupRouter, type TopupServer } from '../../../adapters/topup/index.js';
import { startedMarker, testEngine, topupVariants } from '../../engines/ocaml/helpers.js';

class FakeRouter implements TopupRouter {
  readonly tools = new ToolRegistry();
  readonly forwarded: Array<{ target: RouteTarget; tool: string; args: Record<string, unknown> }> = [];
  readonly cancels: Array<{ target: RouteTarget; params: Record<string, unknown> }> = [];
  hosts: string[] = [];
  closed = false;

  async forward(target: RouteTarget, tool: string, args: Record<string, unknown>, _ctx: ToolContext): Promise<CallToolResult> {
    this.forwarded.push({ target, tool, args });
    // A remote answer with an extra field the local server never produces: it must arrive as is.
    return { content: [{ type: 'text', text: JSON.stringify({ remote: true, tool }) }], isError: false, _meta: { via: 'fake' } };
  }
  async cancel(target: RouteTarget, params: Record<string, unknown>): Promise<void> {
    this.cancels.push({ target, params });
  }
  describe(): string {
    return this.hosts.map((h) => `- host ${h}: a test host`).join('\n');
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

async function connect(server: TopupServer): Promise<McpClient> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new McpClient({ name: 'routing-test', version: '1' }, { protocolVersion: '2024-11-05' });
  await client.connect(b);
  return client;
}

for (const variant of topupVariants()) {
  describe(`topup server with a router [${variant.bin}]`, () => {
    const router = new FakeRouter();
    let server: TopupServer;
    let client: McpClient;
    let dir: string;
    let closeEngine: () => Promise<void>;

    before(async () => {
      const t = testEngine({ driver: variant.driver });
      dir = t.dir;
      closeEngine = t.close;
      server = createTopupServer({ router, engine: t.engine });
      client = await connect(server);
    });
    after(async () => {
      await client.close();
      await server.shutdown();
      await closeEngine();
    });

    test('a routed call is forwarded without host/session and its result returned unchanged', async () => {
      const r = await client.callTool('eval', { source: '1 + 1', timeout: 5, host: 'box' });
      assert.deepEqual(r, { content: [{ type: 'text', text: '{"remote":true,"tool":"eval"}' }], isError: false, _meta: { via: 'fake' } });
      await client.callTool('checkpoint', { label: 'x', session: 'scratch' });
      assert.deepEqual(router.forwarded, [
        { target: { kind: 'host', host: 'box' }, tool: 'eval', args: { source: '1 + 1', timeout: 5 } },
        { target: { kind: 'session', session: 'scratch' }, tool: 'checkpoint', args: { label: 'x' } },
      ]);
    });

    test('initialize reports the protocol, identity and the router description, recomputed each time', async () => {
      assert.equal(client.protocolVersion, '2024-11-05');
      assert.deepEqual(client.serverInfo, { name: 'topup', version: '0.1.0' });
      assert.match(client.instructions ?? '', /No remote hosts or named local sessions are registered/);
      router.hosts = ['build-box'];
      const second = await connect(server);
      try {
        assert.match(second.instructions ?? '', /Registered routing targets:\n- host build-box: a test host/);
      } finally {
        await second.close();
        router.hosts = [];
      }
    });

    test('notifications/cancelled: host/session go to the router; bare ones interrupt the local eval', async () => {
      client.notify('notifications/cancelled', { requestId: 'elsewhere', host: 'box' });
      client.notify('notifications/cancelled', { requestId: 'elsewhere-2', session: 'scratch', reason: 'r' });
      const started = startedMarker(dir, 'server-routing-loop');
      const running = client.callTool('eval', { source: `${started.ocaml}; while true do () done`, timeout: 600 });
      await started.wait();
      client.notify('notifications/cancelled', { requestId: 'not-live' });
      const r = parseToolPayload(await running) as { error: string };
      assert.equal(r.error, 'evaluation timed out');
      assert.deepEqual(router.cancels, [
        { target: { kind: 'host', host: 'box' }, params: { requestId: 'elsewhere', host: 'box' } },
        { target: { kind: 'session', session: 'scratch' }, params: { requestId: 'elsewhere-2', session: 'scratch', reason: 'r' } },
      ]);
    });

    test('the router tools are mounted next to the local ones; shutdown closes the router', async () => {
      const own = new FakeRouter();
      own.tools.define({ name: 'start_session', description: 'fake', input: z.object({}), handler: () => ({ started: true }) });
      const t = testEngine({ driver: variant.driver });
      const other = createTopupServer({ router: own, engine: t.engine });
      const c = await connect(other);
      try {
        const names = (await c.listTools()).map((x) => x.name);
        assert.ok(names.includes('eval') && names.includes('compile_to_binary') && names.includes('start_session'));
        assert.deepEqual(parseToolPayload(await c.callTool('start_session', {})), { started: true });
      } finally {
        await c.close();
        await other.shutdown();
        await t.close();
      }
      assert.equal(own.closed, true);
    });
  });
}
