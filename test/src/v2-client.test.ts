// The official v2 client (@modelcontextprotocol/client) against the shipped servers over stdio:
// pinned to 2026-07-28 it must find that version in server/discover and list and call tools on the
// Ultimate adapter (every version); in 'auto' mode it must still reach Lispex (2025-11-25 only)
// and topup (2024-11-05 only), which answer server/discover as the legacy servers they are.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ULTIMATE_TOOL_NAMES } from '../../adapters/ultimate/index.js';
import { createEverythingServer } from '../../examples/everything-server/server.js';
import { serveStreamableHttp } from '../../transports/index.js';
import { binCommand } from '../helpers/bin.js';
import { type FakeService, IDS, startFakeService } from '../adapters/ultimate/helpers/fake-service.js';

function transportFor(name: string, args: string[]): StdioClientTransport {
  const { command, args: binArgs } = binCommand(name, args);
  return new StdioClientTransport({ command, args: binArgs, stderr: 'pipe' });
}

describe('the official v2 client over stdio', { timeout: 120_000 }, () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  test('pinned to 2026-07-28: lists and calls tools on the Ultimate adapter', async () => {
    const client = new Client({ name: 'v2-pinned', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transportFor('ultimate-tool-mcp', ['--service-url', service.url]));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.equal(client.getServerVersion()?.name, 'ultimate-tool-mcp');
      const { tools } = await client.listTools();
      assert.equal(tools.length, ULTIMATE_TOOL_NAMES.length);
      const run = (await client.callTool({ name: 'get_run', arguments: { run_id: IDS.run } })) as unknown as {
        structuredContent: { data: { run: { run_id: string } } };
      };
      assert.equal(run.structuredContent.data.run.run_id, IDS.run);
      const bad = (await client.callTool({ name: 'get_run', arguments: { run_id: IDS.run, extra: 1 } })) as unknown as {
        isError: boolean;
        structuredContent: { error: { message: string } };
      };
      assert.equal(bad.isError, true);
      assert.match(bad.structuredContent.error.message, /extra/);
    } finally {
      await client.close();
    }
  });

  test("'auto' reaches Lispex (2025-11-25 only) through the initialize fallback", async () => {
    const client = new Client({ name: 'v2-auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transportFor('lispex', ['mcp', 'serve']));
    try {
      assert.equal(client.getServerVersion()?.name, 'mcp-engines-lispex');
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'lispex_eval'));
      const r = (await client.callTool({ name: 'lispex_eval', arguments: { source: '(+ 1 2)' } })) as unknown as {
        structuredContent: { status: string };
      };
      assert.equal(r.structuredContent.status, 'ok');
    } finally {
      await client.close();
    }
  });

  test("'auto' reaches topup (2024-11-05 only) through the initialize fallback", async () => {
    const client = new Client({ name: 'v2-auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transportFor('topup', []));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'eval'));
      // topup refuses an unknown argument now, naming it and the known ones.
      const r = (await client.callTool({ name: 'eval', arguments: { source: '1 + 1', timeout_ms: 1500 } })) as unknown as {
        isError: boolean;
        content: Array<{ text: string }>;
      };
      assert.equal(r.isError, true);
      assert.match(JSON.parse(r.content[0]!.text).error, /Unrecognized key: "timeout_ms"; known arguments: source, timeout/);
    } finally {
      await client.close();
    }
  });
});

test('pinned to 2026-07-28 over Streamable HTTP: the everything server lists tools, calls one, reads a template', async () => {
  const server = createEverythingServer();
  const listener = await serveStreamableHttp({ connect: (t) => server.connect(t), logger: server.log });
  const client = new Client({ name: 'v2-pinned-http', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'test_simple_text'));
    const r = await client.callTool({ name: 'test_simple_text', arguments: {} });
    assert.deepEqual(r.content, [{ type: 'text', text: 'This is a simple text response for testing.' }]);
    const read = await client.readResource({ uri: 'test://template/7/data' });
    assert.deepEqual(JSON.parse((read.contents[0] as { text: string }).text), { id: '7', templateTest: true, data: 'Data for ID: 7' });
  } finally {
    await client.close();
    await listener.close();
    await server.close();
  }
});
