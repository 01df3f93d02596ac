// The bins' command lines (topup, topup-opt, mcp-engines topup-opt) and both without OCaml on PATH.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { binCommand } from '../../helpers/bin.js';
import { connectTopup, payload, tempDir, testEnv, topupVariants } from '../../engines/ocaml/helpers.js';

/** `mcp-engines topup-opt` on stdio, driven by the official MCP SDK client. */
async function connectUmbrella(env: Record<string, string>): Promise<{ client: Client; close: () => Promise<void> }> {
  const { command, args } = binCommand('mcp-engines', ['topup-opt']);
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'umbrella-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

function run(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { command, args: full } = binCommand(bin, args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, full, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('mcp-engines topup-opt serving', () => {
  const home = tempDir();
  after(() => home.remove());

  test('evaluates natively, and its named local sessions are topup-opt children too', { timeout: 240_000 }, async () => {
    const { client, close } = await connectUmbrella(testEnv(home.path));
    try {
      const r = payload(
        await client.callTool({ name: 'eval', arguments: { source: 'let rec f n = if n = 0 then 0 else 1 + f (n - 1);; f 1000' } }),
      );
      assert.equal(r.error, null, JSON.stringify(r));
      assert.equal(r.value_repr, '1000');
      const started = await client.callTool({ name: 'start_local_session', arguments: { session: 'child' } });
      assert.equal(started.isError, false, JSON.stringify(started));
      // Only the native driver refuses a bytecode archive with this wording: the child is topup-opt.
      const cma = join(home.path, 'x.cma');
      writeFileSync(cma, '');
      const load = await client.callTool({ name: 'load', arguments: { path: cma, session: 'child' } });
      assert.equal(load.isError, true);
      assert.match(payload(load).error, /native plugin \(\.cmxs\)/);
    } finally {
      await close();
    }
  });
});

describe('topup command line', () => {
  test('--help and --version', async () => {
    const help = await run('topup', ['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--socket <path>/);
    assert.match(help.stdout, /TOPUP_CHECKPOINT_DIR/);
    const version = await run('topup', ['--version']);
    assert.equal(version.stdout, '0.1.0\n');
  });

  test('an unknown argument is a usage error naming what is expected', async () => {
    const r = await run('topup', ['--sockets', 'x']);
    assert.equal(r.code, 64);
    assert.match(r.stderr, /Usage/i);
    assert.match(r.stderr, /unknown argument "--sockets"; expected --socket <path>/);
    assert.equal(r.stdout, '');
  });

  test('topup-opt takes the same command line, and mcp-engines reaches it', async () => {
    const help = await run('topup-opt', ['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^topup-opt 0\.1\.0 — topup with a native-code OCaml toplevel/);
    assert.match(help.stdout, /topup-opt --socket <path>/);
    assert.equal((await run('topup-opt', ['--version'])).stdout, '0.1.0\n');
    const bad = await run('topup-opt', ['--sockets', 'x']);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /^topup-opt: unknown argument "--sockets"/);
    const umbrella = await run('mcp-engines', ['topup-opt', '--help']);
    assert.equal(umbrella.code, 0);
    assert.match(umbrella.stdout, /^topup-opt 0\.1\.0/);
    assert.match((await run('mcp-engines', ['--help'])).stdout, /topup-opt/);
  });
});

for (const variant of topupVariants()) {
  describe(`topup without OCaml installed [${variant.bin}]`, () => {
    const home = tempDir();
    after(() => home.remove());

    test('every toplevel tool answers an error naming the packages to install; the server stays up', async () => {
      const emptyBin = join(home.path, 'empty-bin');
      mkdirSync(emptyBin);
      const { client, close } = await connectTopup(
        { ...testEnv(home.path), PATH: emptyBin, XDG_CACHE_HOME: join(home.path, 'cache') },
        [],
        variant.bin,
      );
      try {
        for (const [name, args] of [
          ['eval', { source: '1 + 1' }],
          ['eval_batch', { sources: ['1'] }],
          ['env', {}],
          ['lookup', { name: 'x' }],
          ['reset', {}],
        ] as const) {
          const r = await client.callTool({ name, arguments: args });
          assert.equal(r.isError, true, name);
          assert.match(payload(r).error, /apt-get install ocaml-nox ocaml-dune ocaml-findlib libfindlib-ocaml-dev/, name);
        }
        assert.deepEqual(payload(await client.callTool({ name: 'cancel', arguments: {} })), { cancelled: false });
      } finally {
        await close();
      }
    });
  });
}
