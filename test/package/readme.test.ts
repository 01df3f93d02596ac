// The README's code, run as written in a fresh project with the packed package installed: each
// snippet marked `<!-- snippet: NAME -->` is type-checked strictly against the published types and
// run, and its output checked. A README change that breaks a newcomer's first try fails here.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../helpers/bin.js';
import { type ConsumerProject, createConsumerProject, markedSnippets } from './consumer.js';
import { validateAgainstOwnSchema } from './example-schema.js';

const snippets = markedSnippets(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
let project: ConsumerProject;

/** Every code entry point of package.json's exports, as a consumer imports it ("mcp-engines/…"). */
const entryPoints = Object.entries(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).exports as Record<string, unknown>)
  .filter(([, target]) => typeof target === 'object')
  .map(([subpath]) => (subpath === '.' ? 'mcp-engines' : `mcp-engines/${subpath.slice(2)}`));

/**
 * A strict Node 20 consumer of every entry point: ESM (types of the "import" condition) beside
 * Node 20 APIs whose types an older @types/node lacks, and CommonJS ("require" condition).
 */
function entryPointConsumers(): { mts: string; cts: string } {
  const names = entryPoints.map((_, i) => `e${i}`);
  const mts = [
    "import { styleText } from 'node:util';",
    ...entryPoints.map((spec, i) => `import * as e${i} from '${spec}';`),
    `const loaded: object[] = [${names.join(', ')}];`,
    'const here: string = import.meta.dirname;',
    'const count: number = loaded.filter((m) => Object.keys(m).length > 0).length;',
    "console.log(styleText('bold', String(count) + ' entry points'), here.length > 0);",
    '',
  ].join('\n');
  const cts = [
    ...entryPoints.map((spec, i) => `import e${i} = require('${spec}');`),
    `export const loaded: object[] = [${names.join(', ')}];`,
    '',
  ].join('\n');
  return { mts, cts };
}

before(() => {
  project = createConsumerProject();
  for (const [name, code] of snippets) writeFileSync(join(project.dir, `${name}.mts`), code);
  const consumers = entryPointConsumers();
  writeFileSync(join(project.dir, 'entry-points.mts'), consumers.mts);
  writeFileSync(join(project.dir, 'entry-points-cjs.cts'), consumers.cts);
});
after(() => project?.remove());

function runSnippet(name: string, input?: string): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', `${name}.mts`], {
    cwd: project.dir,
    encoding: 'utf8',
    input: input ?? '',
    timeout: 120_000,
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

test('the README marks the snippets a newcomer copies', () => {
  for (const name of ['compose-server', 'engines', 'in-memory-test', 'mcp-client', 'ssh-types'])
    assert.ok(snippets.has(name), `README snippet ${name}`);
});

test('every README snippet and a consumer of every entry point (ESM and CommonJS, beside util.styleText and import.meta.dirname) type-check strictly on Node 20 types, skipLibCheck false', {
  timeout: 180_000,
}, () => {
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', project.dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('compose-server: the stdio server answers a tools/call', { timeout: 120_000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'compose-server.mts'], { cwd: project.dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const answered = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"id":2')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before answering: ${out}`)));
  });
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shout', arguments: { text: 'hello' } } });
  await answered;
  child.stdin.end();
  await new Promise((r) => child.once('close', r));
  const reply = out.split('\n').find((l) => l.includes('"id":2')) ?? '';
  assert.deepEqual(JSON.parse(reply).result.structuredContent, { text: 'HELLO' });
});

test('engines: the OCaml toplevel and Lispex answer as the README says', { timeout: 120_000 }, () => {
  const r = runSnippet('engines');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /val x : int = 42/);
  assert.match(r.stdout, /printed: '3'/);
});

test('in-memory-test: the official SDK client calls the server in memory', { timeout: 120_000 }, () => {
  const r = runSnippet('in-memory-test');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /HELLO/);
});

test('mcp-client: our McpClient calls the server in memory with the API the README describes', { timeout: 120_000 }, () => {
  const r = runSnippet('mcp-client');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\[ 'shout' \]/);
  assert.match(r.stdout, /HELLO/);
});

test('entry-points: every entry point of the exports map loads in the consumer', { timeout: 120_000 }, () => {
  assert.ok(entryPoints.length >= 11, `only ${entryPoints.length} entry points found in package.json exports`);
  const r = runSnippet('entry-points');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`${entryPoints.length} entry points`));
  assert.match(r.stdout, /true/);
});

test('the example copied out of the installed package validates against the schema its $schema names', () => {
  const copy = join(project.dir, 'c64-project');
  cpSync(join(project.dir, 'node_modules', 'mcp-engines', 'examples', 'c64-project'), copy, { recursive: true });
  const { schemaPath, errors } = validateAgainstOwnSchema(copy);
  assert.ok(schemaPath.startsWith(copy), schemaPath);
  assert.deepEqual(errors, []);
});
