// The bins' command lines (topup, topup-opt, mcp-engines topup-opt) and both without OCaml on PATH.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { binCommand } from '../helpers/bin.js';
import { connectTopup, payload, tempDir, testEnv, topupVariants } from './helpers.js';

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
    assert.equal(r.code, 2);
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
    assert.equal(bad.code, 2);
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
