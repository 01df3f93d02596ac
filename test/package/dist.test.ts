// The package as a user installs it: the built dist/ (npm test builds it first), its exports
// map in both module systems, its bins, and the files npm would publish.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot } from '../helpers/bin.js';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
const dist = join(repoRoot, 'dist');

test('dist/ is built (npm test builds it; run `npm run build` when running files directly)', () => {
  assert.ok(existsSync(join(dist, 'index.js')), 'dist/index.js missing');
});

test('every exports entry and bin points at a built file', () => {
  for (const [subpath, target] of Object.entries<any>(pkg.exports)) {
    if (typeof target === 'string') continue;
    for (const file of [target.import.default, target.import.types, target.require.default, target.require.types]) {
      assert.ok(existsSync(join(repoRoot, file)), `${subpath}: ${file} is not built`);
    }
  }
  for (const [name, file] of Object.entries<string>(pkg.bin)) {
    assert.ok(existsSync(join(repoRoot, file)), `bin ${name}: ${file} is not built`);
  }
});

test('the root entry loads as ESM and as CommonJS with the same API', async () => {
  const esm = await import(join(dist, 'index.js'));
  const cjs = createRequire(import.meta.url)(join(dist, 'index.cjs'));
  for (const name of ['McpServer', 'McpClient', 'ToolRegistry', 'ToolError']) {
    assert.equal(typeof esm[name], 'function', `ESM ${name}`);
    assert.equal(typeof cjs[name], 'function', `CJS ${name}`);
  }
});

test('mcp-engines --version and --help from dist', () => {
  const bin = join(repoRoot, pkg.bin['mcp-engines']);
  assert.equal(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).trim(), pkg.version);
  assert.match(execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' }), /Usage:/);
});

test('the official SDK client talks to the built bin over stdio', async () => {
  const client = new Client({ name: 'pkg-test', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(repoRoot, pkg.bin['mcp-engines']), 'example'] }));
  const r = await client.callTool({ name: 'echo', arguments: { text: 'from dist' } });
  assert.deepEqual(r.structuredContent, { text: 'from dist', calls: 1 });
  await client.close();
});

test('each server answers the official SDK client from the built bins', async () => {
  const call = async (bin: string, args: string[], tool: string, toolArgs: Record<string, unknown>) => {
    const client = new Client({ name: 'pkg-test', version: '1' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [join(repoRoot, pkg.bin[bin]), ...args], stderr: 'pipe' }),
    );
    try {
      return await client.callTool({ name: tool, arguments: toolArgs });
    } finally {
      await client.close();
    }
  };
  // topup through `mcp-engines topup`: the OCaml agent source must ship and build from dist.
  const topup = await call('mcp-engines', ['topup'], 'eval', { source: 'let answer = 6 * 7' });
  assert.equal(topup.isError, false, JSON.stringify(topup));
  assert.match((topup.content as any)[0].text, /42/);
  // lispex: the worker entry must be found next to the built adapter.
  const lispex = await call('lispex', ['mcp', 'serve'], 'lispex_eval', { source: '(* 6 7)' });
  assert.equal(lispex.isError, false, JSON.stringify(lispex));
  assert.match((lispex.content as any)[0].text, /42/);
});

test('ultimate-tool virtual-device starts from dist and reports its ports', async () => {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [join(repoRoot, pkg.bin['ultimate-tool']), 'virtual-device', '--exit-on-stdin-close'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const ports = JSON.parse(line);
    assert.equal(typeof ports.http, 'number');
    const info = await (await fetch(`http://127.0.0.1:${ports.http}/v1/info`)).json();
    assert.match(JSON.stringify(info), /virtual/i);
  } finally {
    child.stdin.end();
    child.kill();
  }
});

test('npm would publish dist and the shipped non-TypeScript assets, not tests', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8' });
  const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
  assert.ok(files.includes('dist/index.js'));
  assert.ok(files.includes('package.json'));
  assert.ok(!files.some((f) => f.startsWith('test/') || f.startsWith('src/')), 'no sources or tests in the package');
});
