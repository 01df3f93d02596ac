// The path a user takes to the rust-topaz and all-four courts, from the packed tarball: the
// package ships the crate sources and no executables; `lispex build-products` builds them with the
// local cargo and prints the serve line; that server runs the all-four court. Without cargo the
// command says what to install.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findCargo } from '../../adapters/lispex/build-products.js';
import { type ConsumerProject, createConsumerProject } from './consumer.js';

let project: ConsumerProject;
let lispexBin: string;

before(() => {
  project = createConsumerProject();
  lispexBin = join(project.dir, 'node_modules', 'mcp-engines', 'dist', 'bin', 'lispex.js');
});
after(() => project?.remove());

function cargoOrSkipReason(): string | undefined {
  try {
    findCargo({ PATH: process.env.PATH, HOME: homedir() });
    return undefined;
  } catch (error) {
    return `no cargo on this machine (${(error as Error).message})`;
  }
}

test('the installed package holds the product sources and no product executable', () => {
  const pkg = join(project.dir, 'node_modules', 'mcp-engines');
  assert.ok(existsSync(join(pkg, 'products', 'topaz-vm', 'Cargo.toml')));
  assert.ok(existsSync(join(pkg, 'products', 'topaz-aot', 'src', 'main.rs')));
  assert.ok(!existsSync(join(pkg, 'dist', 'products')), 'dist/products was packed');
});

test('without cargo, lispex build-products fails and names what to install', () => {
  const empty = join(project.dir, 'no-tools');
  mkdirSync(empty, { recursive: true });
  const r = spawnSync(process.execPath, [lispexBin, 'build-products', '--out', join(project.dir, 'never')], {
    encoding: 'utf8',
    env: { PATH: empty, HOME: empty },
  });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /no cargo found/);
  assert.match(r.stderr, /install Rust: .*apt install cargo rustc.*rustup/);
  assert.equal(r.stdout, '');
});

test('lispex build-products with an unknown option is a usage error', () => {
  const r = spawnSync(process.execPath, [lispexBin, 'build-products', '--fast'], { encoding: 'utf8' });
  assert.equal(r.status, 64);
  assert.match(r.stderr, /unknown option "--fast" for lispex build-products; expected --out DIR/);
});

test('lispex build-products builds with the local cargo; the printed serve line runs the all-four court', {
  skip: cargoOrSkipReason(),
  timeout: 900_000,
}, async () => {
  const out = join(project.dir, 'my-products');
  const r = spawnSync(process.execPath, [lispexBin, 'build-products', '--out', out], { encoding: 'utf8', timeout: 880_000 });
  assert.equal(r.status, 0, r.stderr);
  const line = r.stdout.trim();
  const m = /^lispex mcp serve --topaz-vm (\S+) --topaz-compiler (\S+) --rust-tools (\S+)$/.exec(line);
  assert.ok(m, `unexpected output: ${line}`);
  assert.equal(m[1], join(out, 'topaz-vm'));
  assert.equal(m[2], join(out, 'topaz-compiler'));
  const client = new Client({ name: 'products-test', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [lispexBin, ...line.split(' ').slice(1)], stderr: 'pipe' }),
  );
  try {
    const result = await client.callTool({
      name: 'lispex_compare_routes',
      arguments: { court: 'all-four', source: '(define (f n) (if (= n 0) 1 (* n (f (- n 1))))) (f 10)' },
    });
    assert.equal(result.isError, false, JSON.stringify(result.content));
    const data = result.structuredContent as { court_available: boolean; agreement: boolean; attempted_routes: string[] };
    assert.equal(data.court_available, true);
    assert.deepEqual(data.attempted_routes, ['tree', 'rust-vm', 'topaz-vm', 'fresh-aot']);
    assert.equal(data.agreement, true);
  } finally {
    await client.close();
  }
});
