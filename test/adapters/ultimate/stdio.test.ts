// The ultimate-tool-mcp bin, spawned: the official SDK client over its stdio, MCP bytes only on
// stdout, startup refusals on stderr with exit 64 before serving, --help and --version, and the
// MCP Inspector CLI as a second real client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ULTIMATE_TOOL_NAMES } from '../../../adapters/ultimate/index.js';
import { binCommand, repoRoot } from '../../helpers/bin.js';
import { type FakeService, IDS, startFakeService } from './helpers/fake-service.js';

let service: FakeService;
before(async () => {
  service = await startFakeService();
});
after(() => service.close());

describe('the official SDK client over the spawned bin', { timeout: 60_000 }, () => {
  test('lists the tools and forwards a call; bad input is refused without a request', async () => {
    const { command, args } = binCommand('ultimate-tool-mcp', ['--service-url', service.url]);
    const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
    const client = new Client({ name: 'sdk-stdio', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion()?.name, 'ultimate-tool-mcp');
      const { tools } = await client.listTools();
      assert.equal(tools.length, ULTIMATE_TOOL_NAMES.length);
      const before = service.requests.length;
      const run = (await client.callTool({ name: 'get_run', arguments: { run_id: IDS.run } })) as unknown as {
        structuredContent: { schema_version: number; operation: string; data: { run: { run_id: string } } };
        content: Array<{ type: string; text: string }>;
      };
      assert.equal(run.structuredContent.schema_version, 12);
      assert.equal(run.structuredContent.data.run.run_id, IDS.run);
      assert.deepEqual(JSON.parse(run.content[0]!.text), run.structuredContent);
      const bad = (await client.callTool({ name: 'list_runs', arguments: { limit: 1000 } })) as unknown as {
        isError: boolean;
        structuredContent: { error: { layer: string; code: string } };
      };
      assert.equal(bad.isError, true);
      assert.equal(bad.structuredContent.error.layer, 'adapter');
      assert.equal(service.requests.length, before + 1, 'only the valid call reached the service');
    } finally {
      await client.close();
    }
  });

  test('stdout carries MCP messages only', async () => {
    const { command, args } = binCommand('ultimate-tool-mcp', ['--service-url', service.url]);
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buffered = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      let nl = buffered.indexOf('\n');
      while (nl >= 0) {
        lines.push(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf('\n');
      }
    });
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_project', arguments: {} } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_run', arguments: { run_id: 'bad' } } });
    while (lines.length < 3) await new Promise((r) => child.stdout.once('data', r));
    child.stdin.end();
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    assert.equal(code, 0, 'exits 0 when the client disconnects');
    assert.equal(buffered, '');
    for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0', line);
    type Reply = { id: number; result: { structuredContent: { operation: string; error?: { code: string } } } };
    const byId = new Map(lines.map((l) => JSON.parse(l) as Reply).map((m) => [m.id, m]));
    assert.equal(byId.get(2)?.result.structuredContent.operation, 'get_project');
    assert.equal(byId.get(3)?.result.structuredContent.error?.code, 'invalid_arguments');
  });
});

describe('startup', { timeout: 60_000 }, () => {
  const refused = [
    ['--service-url', 'http://localhost:6464'],
    ['--service-url', 'http://user:pw@127.0.0.1:6464'],
    ['--service-url', 'http://127.0.0.1:6464/api'],
    ['--service-url', 'http://127.0.0.1:6464?x=1'],
    ['--service-url', 'http://127.0.0.1:6464#f'],
    ['--service-url'],
    ['--bogus'],
  ];
  for (const argv of refused) {
    test(`refuses ${JSON.stringify(argv)} with exit 64 before serving`, () => {
      const { command, args } = binCommand('ultimate-tool-mcp', argv);
      const r = spawnSync(command, args, { encoding: 'utf8', input: '', timeout: 30_000 });
      assert.equal(r.status, 64, r.stderr);
      assert.equal(r.stdout, '', 'nothing on stdout');
      assert.match(r.stderr, /^ultimate-tool-mcp: .+\nRun "ultimate-tool-mcp --help" for usage\.\n$/);
    });
  }

  test('--help and --version', () => {
    const help = spawnSync(binCommand('ultimate-tool-mcp', ['--help']).command, binCommand('ultimate-tool-mcp', ['--help']).args, {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--service-url/);
    const version = spawnSync(binCommand('ultimate-tool-mcp', ['--version']).command, binCommand('ultimate-tool-mcp', ['--version']).args, {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  });
});

test('the MCP Inspector CLI calls a tool', { timeout: 90_000 }, async () => {
  // Spawned asynchronously: the stand-in service lives in this process and must keep answering.
  const inspector = join(repoRoot, 'node_modules', '.bin', 'mcp-inspector');
  const { command, args } = binCommand('ultimate-tool-mcp', ['--service-url', service.url]);
  const child = spawn(
    inspector,
    ['--cli', command, ...args, '--method', 'tools/call', '--tool-name', 'list_targets', '--format', 'json', '-q'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const status = await new Promise<number | null>((r) => child.once('close', r));
  assert.equal(status, 0, stderr + stdout);
  const out = JSON.parse(stdout).result;
  assert.equal(out.structuredContent.schema_version, 12);
  assert.equal(out.structuredContent.data.targets.length, 2);
});
