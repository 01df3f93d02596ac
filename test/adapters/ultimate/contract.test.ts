// What the symbols module computes (and the service returns with api_schema_version 13) is what the
// declared resolve/compare responses accept — the schemas the adapter checks those answers with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ComparisonPayloadSchema as ComparisonBodySchema,
  ResolvePayloadSchema as ResolveBodySchema,
} from '../../../services/ultimate-tool/api/schemas.js';
import { compareRuns, parseSymbolFile, resolveAddress } from '../../../services/ultimate-tool/symbols/index.js';

const labels = parseSymbolFile('acme-vicelabels', 'al C:080d .start\nal C:0812 .loop\n', 'main.labels');

test('every resolver result is a valid resolve answer', { timeout: 30_000 }, () => {
  for (const [address, context] of [
    ['$080D', undefined],
    ['$0813', undefined],
    ['$C000', undefined],
    ['$080D', 'nope'],
  ] as const) {
    const body = { api_schema_version: 13, ...resolveAddress([labels], address, context) };
    assert.ok(ResolveBodySchema.safeParse(body).success, JSON.stringify(body));
  }
  assert.ok(ResolveBodySchema.safeParse({ api_schema_version: 13, ...resolveAddress([], 0) }).success);
});

test('every comparison result is a valid comparison answer', { timeout: 30_000 }, async () => {
  const run = (id: string, test: string) => ({
    run_id: id,
    test,
    target: 'vice',
    status: 'passed',
    supporting_artifacts: [{ role: 'labels', format: 'acme-vicelabels', name: 'main.labels' }],
  });
  const read = async () => 'al C:080d .start\nal C:0812 .loop\n';
  for (const candidate of [run('b', 'passes'), run('b', 'other'), { ...run('b', 'passes'), supporting_artifacts: [] }]) {
    const body = { api_schema_version: 13, ...(await compareRuns(run('a', 'passes'), candidate, read)) };
    assert.ok(ComparisonBodySchema.safeParse(body).success, JSON.stringify(body));
  }
});
