// The stdout bound on its JSON-escaped size (STDOUT_JSON_BYTES, carried to the products as
// resource_request.stdout_json_limit) through `lispex mcp serve` with the real Topaz products and
// the official MCP SDK client: output whose UTF-8 size is within the profile's output-byte limit
// but whose JSON escaping is not (`"` takes 2 bytes, a control character 6) ends every member
// with the same output-limit outcome at the same append, so the courts agree; output within the
// bound is delivered whole by every member.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { STDOUT_JSON_BYTES } from '../../../../adapters/lispex/bounds.js';
import { ComparisonResultSchema } from '../../../../adapters/lispex/result-schemas.js';
import { binCommand } from '../../../helpers/bin.js';
import { payload } from '../../../adapters/lispex/helpers.js';
import { PRODUCTS_DIR, requireTopaz } from './harness.js';

interface Observation {
  status: string;
  stdout: { byte_length: number; text: string };
  engine: { implementation: string };
  resource_outcome: { status: string; limit: string | null };
}

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
  const client = new Client({ name: 'lispex-stdout-json-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  return client;
}

const COURTS = [
  ['rust-topaz', ['rust-vm', 'topaz-vm']],
  ['all-four', ['tree', 'rust-vm', 'topaz-vm', 'fresh-aot']],
] as const;

describe('stdout bounded on its JSON-escaped size, agreed by the external members', { timeout: 300_000 }, () => {
  let client: Client;
  before(async () => {
    client = await connect();
  });
  after(() => client.close());

  const compare = async (court: string, source: string) => {
    const r = payload(await client.callTool({ name: 'lispex_compare_routes', arguments: { court, source } }));
    assert.ok(ComparisonResultSchema.safeParse(r).success, `schema: ${court} ${source}`);
    assert.equal(r.court_available, true);
    return r as { attempted_routes: string[]; observations: Observation[]; mismatch_axes: string[]; agreement: boolean };
  };

  // Up to the bound in appends of 16 `"` (32 escaped bytes each), then the last ones one `"` per
  // append: the bound denies exactly the append that would pass it, so the last program that fits
  // and the first that does not are the same for every member. (Half a million one-character
  // appends reach the same place, but take the tree-walking member near the evaluation's wall
  // clock on a loaded machine, which makes that member an infrastructure error, not an answer.)
  const fitting = Math.floor(STDOUT_JSON_BYTES / 2);
  const chunk = 16;
  assert.equal(fitting % chunk, 0, 'the bound is a whole number of 16-quote appends');
  const loop = (n: number) => {
    const big = Math.min(fitting / chunk - 1, Math.floor(n / chunk));
    return `(define s (make-string ${chunk} #\\")) (define (big n) (if (> n 0) (begin (display s) (big (- n 1))))) (define (one n) (if (> n 0) (begin (display #\\") (one (- n 1))))) (big ${big}) (one ${n - big * chunk}) 7`;
  };
  const limitCases = [
    ['600,000 `"` in one append', '(display (make-string 600000 #\\"))'],
    ['300,000 control characters in one append', '(display (make-string 300000 (integer->char 1)))'],
    [`${fitting + 1} \`"\`, the last ${chunk + 1} one at a time (one past the bound)`, loop(fitting + 1)],
  ] as const;

  for (const [court, routes] of COURTS) {
    for (const [name, source] of limitCases) {
      test(`${court}: ${name} ends every member with the output limit`, async () => {
        const r = await compare(court, source);
        assert.deepEqual(r.attempted_routes, [...routes]);
        assert.deepEqual(r.mismatch_axes, [], JSON.stringify(r.observations.map((o) => [o.engine, o.status, o.resource_outcome])));
        assert.equal(r.agreement, true);
        for (const o of r.observations) {
          assert.equal(o.status, 'resource', o.engine.implementation);
          assert.equal(o.resource_outcome.status, 'limit-exceeded', o.engine.implementation);
          assert.equal(o.resource_outcome.limit, 'output-byte', o.engine.implementation);
        }
      });
    }

    // Exactly the bound on all-four: four observations of 983,040 escaped bytes each. Before the
    // registry omitted the text copy of results over TEXT_COPY_MAX_BYTES, this made an ~11.8 MB
    // response line, past the official SDK client's 10 MiB stdio read buffer (the client dropped
    // the connection).
    const fits: (readonly [string, string, number])[] = [['400,000 `"` in one append', '(display (make-string 400000 #\\")) 7', 400_000]];
    fits.push([`${fitting} \`"\`, the last ${chunk} one at a time (exactly the bound)`, loop(fitting), fitting]);
    for (const [name, source, length] of fits) {
      test(`${court}: ${name} stay within the bound and are delivered whole`, async () => {
        const r = await compare(court, source);
        assert.deepEqual(r.attempted_routes, [...routes]);
        assert.deepEqual(r.mismatch_axes, []);
        assert.equal(r.agreement, true);
        for (const o of r.observations) {
          assert.equal(o.status, 'ok', o.engine.implementation);
          // Compared as a boolean: a diff of half a megabyte of quotes helps nobody.
          assert.equal(o.stdout.byte_length, length, o.engine.implementation);
          assert.ok(o.stdout.text === '"'.repeat(length), `${o.engine.implementation}: stdout delivered whole`);
        }
      });
    }
  }
});
