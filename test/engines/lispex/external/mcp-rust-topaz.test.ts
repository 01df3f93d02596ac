// `lispex mcp serve --topaz-vm dist/products/topaz-vm` as a spawned bin, driven by the official
// MCP SDK client: the rust-topaz court runs the built-in VM and the Topaz VM product on the same
// derivation and agrees; the planted-bug copy of the product is caught on the value axis without
// an answer being selected; all-four stays unavailable (no fresh AOT member).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ComparisonResultSchema } from '../../../../adapters/lispex/result-schemas.js';
import { binCommand } from '../../../helpers/bin.js';
import { payload } from '../../../adapters/lispex/helpers.js';
import { PRODUCTS_DIR, requireTopaz } from './harness.js';

async function connect(topazVm: string, extra: string[] = [], env?: Record<string, string>): Promise<Client> {
  const { command, args } = binCommand('lispex', ['mcp', 'serve', '--topaz-vm', topazVm, ...extra]);
  const client = new Client({ name: 'lispex-external-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command, args, stderr: 'pipe', ...(env ? { env: { ...getDefaultEnvironment(), ...env } } : {}) }),
  );
  return client;
}

const compare = async (client: Client, source: string, input?: string) =>
  payload(
    await client.callTool({
      name: 'lispex_compare_routes',
      arguments: { court: 'rust-topaz', source, ...(input !== undefined ? { input } : {}) },
    }),
  );

describe('rust-topaz court through the MCP server', { timeout: 120_000 }, () => {
  let client: Client;
  before(async () => {
    client = await connect(requireTopaz());
  });
  after(() => client.close());

  test('members agree on values, output, warnings and faults', async () => {
    const programs: [string, string | undefined, string][] = [
      [
        '(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (display (fib 15)) (list (fib 20) (/ 1 3) 2.5 (expt 3 50))',
        undefined,
        'ok',
      ],
      ['(map (lambda (x) (* x x)) input)', '(1 2 3)', 'ok'],
      ['(% 7 -2)', undefined, 'ok'],
      ["(guard (e ((error-object? e) (error-object-message e))) (car '()))", undefined, 'ok'],
      ['(call/cc (lambda (k) (dynamic-wind (lambda () (display "[")) (lambda () (k 42)) (lambda () (display "]")))))', undefined, 'ok'],
      ['(vector-ref (vector 1 2) 5)', undefined, 'runtime-error'],
      ['(define (loop n) (+ 1 (loop n))) (loop 0)', undefined, 'resource'],
      ['(car', undefined, 'source-error'],
    ];
    for (const [source, input, status] of programs) {
      const r = await compare(client, source, input);
      assert.ok(ComparisonResultSchema.safeParse(r).success, `schema: ${source}`);
      assert.equal(r.court_available, true);
      assert.deepEqual(r.attempted_routes, ['rust-vm', 'topaz-vm']);
      assert.equal(r.observations[1].engine.implementation, 'topaz-vm');
      assert.equal(r.observations[0].status, status, source);
      assert.deepEqual(
        r.mismatch_axes,
        [],
        `${source}: ${JSON.stringify(r.observations.map((o: { diagnostics: unknown; values: unknown }) => [o.values, o.diagnostics]))}`,
      );
      assert.equal(r.agreement, true);
      assert.equal(r.answer_selected, false);
      assert.equal(r.partial_comparison, false);
      assert.equal(r.cleanup.processes_started, 1);
      assert.equal(r.cleanup.complete, true);
    }
  });

  test('all-four without --topaz-compiler/--rust-tools is unavailable and attempts nothing', async () => {
    const r = payload(await client.callTool({ name: 'lispex_compare_routes', arguments: { court: 'all-four', source: '1' } }));
    assert.equal(r.court_available, false);
    assert.equal(r.unavailable_reason.code, 'missing-startup-product');
    assert.deepEqual(r.unavailable_reason.missing_startup_options, ['--topaz-compiler', '--rust-tools']);
    assert.deepEqual(r.attempted_routes, []);
    assert.equal(r.agreement, null);
  });
});

describe('a planted bug in the Topaz VM is caught on the right axis', { timeout: 60_000 }, () => {
  let client: Client;
  before(async () => {
    requireTopaz();
    client = await connect(join(PRODUCTS_DIR, 'test', 'topaz-vm-planted-modulo'));
  });
  after(() => client.close());

  test('modulo truncating instead of flooring: value-projection mismatch, no answer selected', async () => {
    const r = await compare(client, '(modulo -7 2)');
    assert.equal(r.court_available, true);
    assert.equal(r.agreement, false);
    assert.deepEqual(r.mismatch_axes, ['value-projection']);
    assert.equal(r.observations[0].values[0].printed, '1');
    assert.equal(r.observations[1].values[0].printed, '-1');
    assert.equal(r.answer_selected, false);
    assert.equal(r.partial_comparison, false);
  });

  test('where the bug does not show, the members still agree', async () => {
    const r = await compare(client, '(modulo 7 2)');
    assert.equal(r.agreement, true);
  });

  test('bug reaching output shows on the stdout axis too', async () => {
    const r = await compare(client, '(display (modulo -7 2))');
    assert.deepEqual(r.mismatch_axes, ['stdout-bytes']);
  });
});

describe('all-four with the three startup options (real products)', { timeout: 300_000 }, () => {
  let client: Client;
  // The server gets a temp dir of its own: other test files build fresh AOT products at the same
  // time, and their workspaces must not be mistaken for one this server left behind.
  let serverTmp: string;
  before(async () => {
    serverTmp = mkdtempSync(join(tmpdir(), 'lispex-all-four-tmp-'));
    const rustc = readFileSync(join(PRODUCTS_DIR, 'topaz-runtime', 'RUSTC'), 'utf8').trim();
    client = await connect(requireTopaz(), ['--topaz-compiler', join(PRODUCTS_DIR, 'topaz-compiler'), '--rust-tools', rustc], {
      TMPDIR: serverTmp,
    });
  });
  after(async () => {
    await client.close();
    rmSync(serverTmp, { recursive: true, force: true });
  });

  test('tree, VM, Topaz VM and a fresh AOT product agree; the request workspace is gone', async () => {
    for (const source of [
      '(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (display (fib 15)) (list (fib 18) (/ 1 3) 2.5 (% -7 2))',
      "(guard (e ((error-object? e) (list 'caught (error-object-message e)))) (vector-ref (vector 1 2) 9))",
      '(call-with-values (lambda () (values 1 2)) (lambda (a b) (car b)))',
    ]) {
      const r = payload(await client.callTool({ name: 'lispex_compare_routes', arguments: { court: 'all-four', source } }));
      assert.ok(ComparisonResultSchema.safeParse(r).success);
      assert.equal(r.court_available, true);
      assert.deepEqual(r.attempted_routes, ['tree', 'rust-vm', 'topaz-vm', 'fresh-aot']);
      assert.deepEqual(
        r.observations.map((o: { engine: { implementation: string } }) => o.engine.implementation),
        ['mcp-engines/lispex-tree', 'mcp-engines/lispex-vm', 'topaz-vm', 'fresh-aot'],
      );
      assert.deepEqual(r.mismatch_axes, [], source);
      assert.equal(r.agreement, true);
      assert.equal(r.answer_selected, false);
      assert.equal(r.partial_comparison, false);
      assert.deepEqual(r.cleanup, { workspace_created: true, workers_terminated: 2, processes_started: 3, complete: true });
    }
    // (tsx, which runs the bin from source in tests, keeps its cache there too.)
    const left = readdirSync(serverTmp).filter((n) => n.startsWith('lispex-aot-'));
    assert.deepEqual(left, [], 'every request workspace was removed');
  });
});
