// The MCP Inspector's CLI (the official inspector, run offline) as a client of our example
// server launched from source over stdio.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { binCommand, repoRoot } from '../helpers/bin.js';

const inspector = join(repoRoot, 'node_modules', '.bin', 'mcp-inspector');

function inspect(args: string[]) {
  const { command, args: serverArgs } = binCommand('mcp-engines', ['example']);
  const r = spawnSync(inspector, ['--cli', command, ...serverArgs, ...args, '--format', 'json', '-q'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('inspector: tools/list', () => {
  const r = inspect(['--method', 'tools/list']);
  assert.equal(r.status, 0, r.stderr);
  const names = JSON.parse(r.stdout).result.tools.map((t: { name: string }) => t.name);
  assert.deepEqual(names, ['echo', 'fail', 'slow']);
});

test('inspector: tools/call with arguments', () => {
  const r = inspect(['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'text=from inspector']);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout).result;
  assert.equal(out.isError, false);
  assert.equal(out.structuredContent.text, 'from inspector');
});

test('inspector: an isError result exits 5', () => {
  const r = inspect(['--method', 'tools/call', '--tool-name', 'fail', '--tool-arg', 'message=nope']);
  assert.equal(r.status, 5);
  assert.match(r.stdout, /nope/);
});
