// The bins' `--http [HOST:]PORT`: the Ultimate adapter and Lispex served over Streamable HTTP and
// reached by the official clients (the v2 client pinned to 2026-07-28, the v1 client over the
// 2025 handshake), the token rules (topup never without one; a non-loopback host never without
// one; a token file others can read refused), and the token enforced once configured.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ULTIMATE_TOOL_NAMES } from '../../adapters/ultimate/index.js';
import { binCommand } from '../helpers/bin.js';
import { type FakeService, IDS, startFakeService } from '../adapters/ultimate/helpers/fake-service.js';

interface Served {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Start a bin with --http and wait for the "serving MCP on URL" line on stderr. */
async function serve(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const { command, args: binArgs } = binCommand(name, args);
  const child = spawn(command, binArgs, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /serving MCP on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before serving: ${stderr}`)));
  });
  return {
    child,
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Run a bin that must refuse to start; returns its exit code and stderr. */
async function refused(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  const { command, args: binArgs } = binCommand(name, args);
  const child = spawn(command, binArgs, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MCP_ENGINES_HTTP_TOKEN: '', ...env },
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const [code] = await once(child, 'exit');
  return { code, stderr };
}

describe('ultimate-tool-mcp --http', { timeout: 120_000 }, () => {
  let service: FakeService;
  let served: Served;
  before(async () => {
    service = await startFakeService();
    served = await serve('ultimate-tool-mcp', ['--service-url', service.url, '--http', '127.0.0.1:0'], { MCP_ENGINES_HTTP_TOKEN: '' });
  });
  after(async () => {
    await served.stop();
    await service.close();
  });

  test('the official v2 client pinned to 2026-07-28 lists and calls tools over Streamable HTTP', async () => {
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new V2Client({ name: 'v2-http', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new V2HttpTransport(new URL(served.url)));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const { tools } = await client.listTools();
      assert.equal(tools.length, ULTIMATE_TOOL_NAMES.length);
      const run = (await client.callTool({ name: 'get_run', arguments: { run_id: IDS.run } })) as unknown as {
        structuredContent: { data: { run: { run_id: string } } };
      };
      assert.equal(run.structuredContent.data.run.run_id, IDS.run);
    } finally {
      await client.close();
    }
  });

  test('the official v1 client reaches the same server over the 2025 handshake', async () => {
    const client = new Client({ name: 'v1-http', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(served.url));
    await client.connect(transport);
    assert.ok(transport.sessionId);
    const { tools } = await client.listTools();
    assert.equal(tools.length, ULTIMATE_TOOL_NAMES.length);
    await transport.terminateSession();
    await client.close();
  });
});

describe('lispex mcp serve --http with a token', { timeout: 120_000 }, () => {
  let dir: string;
  let served: Served;
  const token = 'lispex-http-token-0123456789';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-http-bin-'));
    const file = join(dir, 'token');
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    served = await serve('lispex', ['mcp', 'serve', '--http', '0', '--http-token-file', file]);
  });
  after(async () => {
    await served.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('without the token: 401; with it: Lispex evaluates', async () => {
    const anonymous = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer /);
    const client = new Client({ name: 'v1-http', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(served.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'mcp-engines-lispex');
    const r = (await client.callTool({ name: 'lispex_eval', arguments: { source: '(+ 1 2)' } })) as unknown as {
      structuredContent: { status: string };
    };
    assert.equal(r.structuredContent.status, 'ok');
    await transport.terminateSession();
    await client.close();
  });
});

describe('--http token rules', { timeout: 120_000 }, () => {
  test('topup refuses --http without a token, even on loopback', async () => {
    const { code, stderr } = await refused('topup', ['--http', '127.0.0.1:0']);
    assert.equal(code, 64);
    assert.match(stderr, /topup runs code, so --http needs a bearer token: --http-token-file PATH .* or MCP_ENGINES_HTTP_TOKEN/);
  });

  test('a non-loopback host without a token is refused', async () => {
    const { code, stderr } = await refused('ultimate-tool-mcp', ['--http', '0.0.0.0:0']);
    assert.equal(code, 64);
    assert.match(stderr, /--http 0\.0\.0\.0:0 is reachable from other machines; configure a bearer token/);
  });

  test('a token file others can read is refused; a bad address is a usage error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-http-bin-'));
    try {
      const file = join(dir, 'token');
      await writeFile(file, 'a-token-that-is-long-enough\n');
      await chmod(file, 0o644);
      const open = await refused('ultimate-tool-mcp', ['--http', '0', '--http-token-file', file]);
      assert.equal(open.code, 64);
      assert.match(open.stderr, /is readable by others \(mode 644\); chmod 600 it/);
      const bad = await refused('ultimate-tool-mcp', ['--http', 'localhost:99999']);
      assert.equal(bad.code, 64);
      assert.match(bad.stderr, /--http needs \[HOST:\]PORT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
