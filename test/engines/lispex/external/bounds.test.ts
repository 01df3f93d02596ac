// Every bound and outcome of the external product boundary, with stand-in products (shell
// scripts that answer the handshake and then misbehave): a crash, garbage, an answer past the
// size cap, the wrong protocol version, a hang at startup (refused, exit 64), a hang in a run
// (stopped at the wall clock), and cancellation mid-run — each time the product's whole process
// group, grandchildren included, is checked gone.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildExternalRequest } from '../../../../engines/lispex/external/derivation.js';
import { processGroupAlive } from '../../../../engines/lispex/external/product-process.js';
import { runTopazMember } from '../../../../engines/lispex/external/topaz-route.js';
import { binCommand } from '../../../helpers/bin.js';

const HANDSHAKE = `{"protocol":"lispex.external-backend-protocol/v1","product":"stand-in","version":"0"}`;

async function waitFor(condition: () => boolean, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not reached before the deadline');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('external product boundary', { timeout: 120_000 }, () => {
  let dir: string;
  const product = async (name: string, run: string, handshake = `echo '${HANDSHAKE}'`): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, `#!/bin/sh\nif [ "$1" = "--handshake" ]; then ${handshake}; exit 0; fi\n${run}\n`);
    await chmod(path, 0o755);
    return path;
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lispex-external-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const request = () => buildExternalRequest('(+ 1 2)', undefined, 'source');
  const member = (executable: string, maxOutputBytes = 1 << 20) =>
    runTopazMember({ executable, request: request(), wallClockMs: 5_000, maxOutputBytes });

  test('a crashing product is a failure naming its exit, not an observation', async () => {
    const r = await member(await product('crash', 'echo "boom" >&2; kill -SEGV $$'));
    assert.equal(r.kind, 'failed');
    assert.equal(r.kind === 'failed' && r.reason, 'crashed');
    assert.match(r.kind === 'failed' ? r.message : '', /SIGSEGV/);
  });

  test('garbage on stdout is rejected', async () => {
    const r = await member(await product('garbage', '/bin/cat >/dev/null; echo "this is not JSON"'));
    assert.equal(r.kind === 'failed' && r.reason, 'garbage');
    const wrongShape = await member(
      await product('shape', `/bin/cat >/dev/null; echo '{"protocol":"lispex.external-backend-protocol/v1","status":"ok"}'`),
    );
    assert.equal(wrongShape.kind === 'failed' && wrongShape.reason, 'garbage');
  });

  test('an answer past the size cap is cut off and the product killed', async () => {
    const r = await member(await product('oversized', '/usr/bin/head -c 50000000 /dev/zero'), 1 << 20);
    assert.equal(r.kind === 'failed' && r.reason, 'oversized');
  });

  test('startup refuses a product that hangs in the handshake, or speaks another version (exit 64)', async () => {
    const hang = await product('hang', 'true', 'exec /bin/sleep 1000');
    const other = await product('other', 'true', `echo '{"protocol":"lispex.external-backend-protocol/v0"}'`);
    for (const [path, message] of [
      [hang, /--topaz-vm ".*hang" did not answer the version handshake within 5000 ms/],
      [other, /--topaz-vm ".*other" speaks protocol "lispex.external-backend-protocol\/v0", expected lispex.external-backend-protocol\/v1/],
    ] as const) {
      const { command, args } = binCommand('lispex', ['mcp', 'serve', '--topaz-vm', path]);
      const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 64, r.stderr);
      assert.match(r.stderr, message);
    }
  });

  describe('through the MCP server', () => {
    let client: Client;
    let pidFile: string;
    before(async () => {
      pidFile = join(dir, 'run.pid');
      // The run leaves a grandchild behind (a background sleep) and then hangs.
      const hanging = await product('hanging', `echo $$ > ${pidFile}; /bin/sleep 1000 & /bin/sleep 1000`);
      const { command, args } = binCommand('lispex', ['mcp', 'serve', '--topaz-vm', hanging]);
      client = new Client({ name: 'lispex-external-bounds', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
    });
    after(() => client.close());

    const started = async (): Promise<number> => {
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
      return Number(readFileSync(pidFile, 'utf8').trim());
    };

    test('a product hanging in a run is stopped at the 5,000 ms wall clock, whole group killed', async () => {
      await rm(pidFile, { force: true });
      const call = client.callTool({ name: 'lispex_compare_routes', arguments: { court: 'rust-topaz', source: '(+ 1 2)' } });
      const pgid = await started();
      assert.equal(processGroupAlive(pgid), true);
      const r = await call;
      assert.equal(r.isError, true);
      const text = (r.content as { text: string }[])[0]!.text;
      assert.match(text, /topaz-vm ran past the 5000 ms wall clock/);
      // SIGKILL went to the whole group; the orphaned grandchild is reaped by init shortly after.
      await waitFor(() => !processGroupAlive(pgid));
    });

    test('cancellation mid-run kills the whole process group; the server keeps serving', async () => {
      await rm(pidFile, { force: true });
      const controller = new AbortController();
      const call = client
        .callTool({ name: 'lispex_compare_routes', arguments: { court: 'rust-topaz', source: '(+ 1 2)' } }, undefined, {
          signal: controller.signal,
        })
        .then(
          () => 'answered',
          () => 'rejected',
        );
      const pgid = await started();
      controller.abort();
      assert.equal(await call, 'rejected');
      await waitFor(() => !processGroupAlive(pgid));
      const next = await client.callTool({ name: 'lispex_eval', arguments: { source: '(+ 40 2)' } });
      assert.equal(next.isError, false);
    });
  });
});
