// MCP progress of lispex_compare_routes, seen by the official SDK client's onprogress: each court
// member as it finishes and, in all-four, the fresh AOT build; cancelling on a progress report
// still stops the court. Uses the real products (dist/products, built by scripts/build-products.mjs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { binCommand } from '../../../helpers/bin.js';
import { PRODUCTS_DIR, requireTopaz } from './harness.js';

const SOURCE = '(define (f n) (if (= n 0) 1 (* n (f (- n 1))))) (f 12)';

describe('lispex_compare_routes progress', { timeout: 300_000 }, () => {
  let client: Client;
  before(async () => {
    const rustc = readFileSync(join(PRODUCTS_DIR, 'topaz-runtime', 'RUSTC'), 'utf8').trim();
    const { command, args } = binCommand('lispex', [
      'mcp',
      'serve',
      '--topaz-vm',
      requireTopaz(),
      '--topaz-compiler',
      join(PRODUCTS_DIR, 'topaz-compiler'),
      '--rust-tools',
      rustc,
    ]);
    client = new Client({ name: 'lispex-progress-test', version: '1' });
    await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  });
  after(() => client.close());

  test('all-four reports the members as they finish and the fresh AOT build, k of 5', async () => {
    const seen: Progress[] = [];
    const r = await client.callTool(
      { name: 'lispex_compare_routes', arguments: { court: 'all-four', source: SOURCE } },
      CallToolResultSchema,
      {
        onprogress: (p) => seen.push(p),
      },
    );
    assert.equal((r.structuredContent as { agreement: boolean }).agreement, true);
    // Members finish in any order (the built-in routes wait for a worker thread, the AOT member for
    // its build). The last report travels with the answer and the SDK client may drop it (it
    // dispatches notifications a microtask late, the answer at once): at least four arrive.
    assert.ok(seen.length >= 4, JSON.stringify(seen));
    assert.deepEqual(
      seen.map((p) => [p.progress, p.total]),
      seen.map((_, i) => [i + 1, 5]),
    );
    const messages = seen.map((p) => (p.message ?? '').replace(/built in \d+ ms/, 'built in N ms'));
    const expected = [
      'fresh AOT product built in N ms',
      'member fresh-aot finished: completed',
      'member rust-vm finished: completed',
      'member topaz-vm finished: completed',
      'member tree finished: completed',
    ];
    assert.deepEqual([...new Set(messages)].sort(), [...messages].sort(), 'a report was repeated');
    assert.ok(
      messages.every((m) => expected.includes(m)),
      messages.join('\n'),
    );
    const built = messages.indexOf('fresh AOT product built in N ms');
    const aotDone = messages.indexOf('member fresh-aot finished: completed');
    assert.ok(built >= 0 || aotDone < 0, 'the AOT member finished without a build report');
    if (aotDone >= 0) assert.ok(built < aotDone, 'the AOT member was reported finished before it was built');
  });

  test('cancelling all-four on its first progress report stops the court; the server keeps answering', async () => {
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'lispex_compare_routes', arguments: { court: 'all-four', source: SOURCE } },
      CallToolResultSchema,
      {
        signal: controller.signal,
        onprogress: () => controller.abort(),
      },
    );
    await assert.rejects(call, /abort/i);
    const r = await client.callTool({ name: 'lispex_compare_routes', arguments: { court: 'tree-rust', source: '(+ 1 2)' } });
    assert.equal((r.structuredContent as { agreement: boolean }).agreement, true);
  });
});
