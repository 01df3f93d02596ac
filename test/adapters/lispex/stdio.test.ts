// `lispex mcp serve` as a spawned bin over stdio, driven by the official MCP SDK client: the
// protocol, the real worker threads from source, a runaway program stopped by the 5,000 ms wall
// clock while the server keeps answering, and startup product validation.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpClient, packageVersion } from '../../../src/index.js';
import { spawnStdio } from '../../../transports/index.js';
import { binCommand } from '../../helpers/bin.js';
import { payload } from './helpers.js';

async function connectBin(args: string[] = []): Promise<Client> {
  const { command, args: binArgs } = binCommand('lispex', ['mcp', 'serve', ...args]);
  const transport = new StdioClientTransport({ command, args: binArgs, stderr: 'pipe' });
  const client = new Client({ name: 'lispex-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('lispex mcp serve over stdio', () => {
  let client: Client;
  before(async () => {
    client = await connectBin();
  });
  after(() => client.close());

  test('initialize: serverInfo names the product, tools only', () => {
    assert.deepEqual(client.getServerVersion(), {
      name: 'mcp-engines-lispex',
      title: 'mcp-engines Lispex',
      version: packageVersion(),
    });
    assert.deepEqual(client.getServerCapabilities(), { tools: {} });
  });

  test('lispex_eval runs in a worker thread started from source', async () => {
    const result = payload(await client.callTool({ name: 'lispex_eval', arguments: { source: '(string-append "a" "b")' } }));
    assert.equal(result.status, 'ok');
    assert.equal(result.values[0].printed, '"ab"');
  });

  test('a runaway program is stopped at the 5,000 ms wall clock while the server keeps answering', async () => {
    const finished: string[] = [];
    // A loop that never exhausts a meter within 5 s: each step multiplies a growing bignum.
    const runaway = client
      .callTool({ name: 'lispex_eval', arguments: { source: '(let loop ((x (expt 7 300000))) (loop (* x 7)))' } })
      .finally(() => finished.push('runaway'));
    // One enormous bignum operation, stopped mid-operation.
    const bignum = client
      .callTool({ name: 'lispex_eval', arguments: { source: '(define x (expt 7 300000000)) x' } })
      .finally(() => finished.push('bignum'));
    // The server thread stays responsive while both evaluations run: these need no worker.
    const reference = await client.callTool({ name: 'lispex_reference', arguments: { topic: 'routes', name: 'tree' } });
    finished.push('reference');
    assert.equal(payload(reference).known, true);
    await client.ping();
    finished.push('ping');
    // Another evaluation runs meanwhile in a third worker.
    const quick = await client.callTool({ name: 'lispex_eval', arguments: { source: '(+ 40 2)' } });
    assert.equal(payload(quick).values[0].printed, '42');

    for (const pending of [runaway, bignum]) {
      const r = await pending;
      assert.equal(r.isError, true);
      const p = payload(r);
      assert.equal(p.failure, 'wall-clock-exceeded');
      assert.equal(p.status, 'infrastructure-error');
      assert.equal(p.limit_ms, 5_000);
      assert.equal(p.decision, null);
      assert.equal(p.retried, false);
    }
    assert.deepEqual(finished.slice(0, 2), ['reference', 'ping']);
    const after = payload(await client.callTool({ name: 'lispex_eval', arguments: { source: '(* 6 7)' } }));
    assert.equal(after.values[0].printed, '42');
  });

  test('a cancelled evaluation stops its worker and the server goes on', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'lispex_eval', arguments: { source: '(let loop () (loop))' } }, undefined, {
      signal: controller.signal,
    });
    // Cancel once the server has answered a later request, i.e. the eval is surely in flight.
    await client.ping();
    controller.abort();
    await assert.rejects(call);
    const r = payload(await client.callTool({ name: 'lispex_eval', arguments: { source: '"still here"' } }));
    assert.equal(r.values[0].printed, '"still here"');
  });
});

describe('protocol version', () => {
  test('2025-11-25 only: a client asking for 2024-11-05 is answered 2025-11-25', async () => {
    const { command, args } = binCommand('lispex', ['mcp', 'serve']);
    const { transport } = spawnStdio(command, args);
    const client = new McpClient({ name: 'old-client', version: '1' }, { protocolVersion: '2024-11-05' });
    try {
      await client.connect(transport);
      assert.equal(client.protocolVersion, '2025-11-25');
    } finally {
      await client.close();
    }
  });
});

/** Run the bin to completion; the server must refuse to start, so it exits on its own. */
function runBin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { command, args: binArgs } = binCommand('lispex', args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, binArgs, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('startup product options are validated before the server starts', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lispex-flags-'));
    // A product stand-in that answers the startup version handshake.
    await writeFile(
      join(dir, 'tool'),
      `#!/bin/sh\necho '{"protocol":"lispex.external-backend-protocol/v1","product":"stand-in","version":"0"}'\n`,
    );
    await chmod(join(dir, 'tool'), 0o755);
    await writeFile(join(dir, 'plain'), 'not executable');
    await chmod(join(dir, 'plain'), 0o644);
    await mkdir(join(dir, 'folder'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('a relative path, and --topaz-compiler without --rust-tools, are refused with exit 64', async () => {
    const relative = await runBin(['mcp', 'serve', '--topaz-vm', 'bin/topaz-vm']);
    assert.equal(relative.code, 64);
    assert.equal(relative.stdout, '', 'nothing on the protocol channel');
    assert.match(relative.stderr, /--topaz-vm must be an absolute path; got "bin\/topaz-vm"/);
    const alone = await runBin(['mcp', 'serve', '--topaz-compiler', join(dir, 'tool')]);
    assert.equal(alone.code, 64);
    assert.match(alone.stderr, /--topaz-compiler must appear together with --rust-tools/);
  });

  test('valid products (answering the handshake) start the server', async () => {
    const tool = join(dir, 'tool');
    const client = await connectBin(['--topaz-vm', tool, '--topaz-compiler', tool, '--rust-tools', tool]);
    try {
      // The courts with these stand-ins are exercised in test/engines/lispex/external/.
      const result = payload(await client.callTool({ name: 'lispex_eval', arguments: { source: '(+ 1 2)' } }));
      assert.equal(result.values[0].printed, '3');
    } finally {
      await client.close();
    }
  });
});
