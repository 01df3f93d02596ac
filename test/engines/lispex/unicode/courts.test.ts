// The Unicode answers through both external courts of `lispex mcp serve` with the real products
// and the official MCP SDK client: `rust-topaz` (built-in VM + Topaz VM) and `all-four` (tree,
// built-in VM, Topaz VM, fresh AOT) must agree, and the agreed stdout must be the contract's
// answers. Also a few generated programs that hold non-ASCII text.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ComparisonResultSchema } from '../../../../adapters/lispex/result-schemas.js';
import { binCommand } from '../../../helpers/bin.js';
import { ProgramGenerator, UNICODE_CHARS, UNICODE_STRINGS } from '../differential/generator.js';
import { PRODUCTS_DIR, requireTopaz } from '../external/harness.js';
import { payload } from '../../../adapters/lispex/helpers.js';
import { SPECIAL_ANSWERS, specialAnswersProgram } from './sweep.js';

async function connect(): Promise<Client> {
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
  const client = new Client({ name: 'lispex-unicode-courts-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  return client;
}

/** The first generated programs (differential corpus seeds) that hold non-ASCII literals. */
function nonAsciiPrograms(count: number): string[] {
  const literals = [...UNICODE_STRINGS, ...UNICODE_CHARS];
  const out: string[] = [];
  for (let seed = 20261130; out.length < count; seed++) {
    const source = new ProgramGenerator(seed).program();
    if (literals.some((l) => source.includes(l))) out.push(source);
  }
  return out;
}

const COURTS = [
  ['rust-topaz', ['rust-vm', 'topaz-vm']],
  ['all-four', ['tree', 'rust-vm', 'topaz-vm', 'fresh-aot']],
] as const;

describe('Unicode answers agree on the rust-topaz and all-four courts', { timeout: 600_000 }, () => {
  let client: Client;
  before(async () => {
    client = await connect();
  });
  after(() => client.close());

  const compare = async (court: string, source: string) => {
    const r = payload(await client.callTool({ name: 'lispex_compare_routes', arguments: { court, source } }));
    assert.ok(ComparisonResultSchema.safeParse(r).success, `schema: ${court}`);
    assert.equal(r.court_available, true);
    return r as {
      attempted_routes: string[];
      observations: Array<{ stdout: { text: string } }>;
      mismatch_axes: string[];
      agreement: boolean;
    };
  };

  for (const [court, routes] of COURTS) {
    test(`${court}: the special mappings`, async () => {
      const r = await compare(court, specialAnswersProgram());
      assert.deepEqual(r.attempted_routes, [...routes]);
      assert.deepEqual(r.mismatch_axes, []);
      assert.equal(r.agreement, true);
      for (const o of r.observations) {
        assert.deepEqual(
          o.stdout.text.split('\n').slice(0, -1),
          SPECIAL_ANSWERS.map(([, answer]) => answer),
        );
      }
    });
  }

  test('all-four: generated programs with non-ASCII text', async () => {
    for (const source of nonAsciiPrograms(4)) {
      const r = await compare('all-four', source);
      assert.deepEqual(r.mismatch_axes, [], source);
      assert.equal(r.agreement, true, source);
    }
  });
});
