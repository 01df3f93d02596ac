// One table maps every error code of API schema 13 to exactly one HTTP status
// (services/ultimate-tool/api/errors.ts). This walks the table: every code has one status, every
// code a route declares is in it and the OpenAPI document states that status, every status a
// throwing site in the service's sources names agrees with it, and the service answers with it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import ts from 'typescript';
import { ERROR_STATUSES } from '../../../services/ultimate-tool/api/errors.js';
import { openApiDocument } from '../../../services/ultimate-tool/api/openapi.js';
import { ROUTE_LIST } from '../../../services/ultimate-tool/api/routes.js';
import { ErrorCodeSchema } from '../../../services/ultimate-tool/api/schemas.js';
import { type Harness, startHarness } from './harness.js';

const serviceDir = join(import.meta.dirname, '..', '..', '..', 'services', 'ultimate-tool');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'client' ? [] : sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

test('every code has exactly one status, and the route table and OpenAPI document use the table', () => {
  assert.deepEqual(Object.keys(ERROR_STATUSES).sort(), [...ErrorCodeSchema.options].sort());
  for (const [code, status] of Object.entries(ERROR_STATUSES)) {
    assert.equal(typeof status, 'number', code);
    assert.ok(status >= 400 && status <= 599, `${code}: ${status}`);
  }
  assert.equal(ERROR_STATUSES['invalid-request'], 400);
  assert.equal(ERROR_STATUSES['not-found'], 404);
  const doc = openApiDocument('test') as { paths: Record<string, Record<string, { 'x-error-codes': { code: string; status: number }[] }>> };
  for (const route of ROUTE_LIST) {
    const op = doc.paths[route.path]![route.method.toLowerCase()]!;
    assert.deepEqual(
      op['x-error-codes'],
      route.errors.map((code) => ({ code, status: ERROR_STATUSES[code] })),
      route.name,
    );
  }
});

test('every status a throwing site names is its code’s status in the table', () => {
  // Parsed, not grepped: every `new ServiceError(code, message, status?, details?)` in the sources
  // must name a literal code, and a status (when given) must be the literal of the table.
  const wrong: string[] = [];
  let sites = 0;
  for (const file of sources(serviceDir)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText(sf) === 'ServiceError') {
        sites++;
        const [code, , status] = node.arguments ?? [];
        const where = `${file.slice(serviceDir.length)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
        if (!code || !ts.isStringLiteral(code)) wrong.push(`${where}: the code is not a literal`);
        else if (status !== undefined) {
          const expected = ERROR_STATUSES[code.text as keyof typeof ERROR_STATUSES];
          if (!ts.isNumericLiteral(status) || Number(status.text) !== expected)
            wrong.push(`${where}: ${code.text} ${status.getText(sf)} (table: ${expected})`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  assert.ok(sites > 100, `found ${sites} sites`);
  assert.deepEqual(wrong, []);
});

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

test('the service answers each former invalid-request variant with its own code and the table’s status', async () => {
  const expect = async (r: { status: number; body: any }, code: keyof typeof ERROR_STATUSES) => {
    assert.equal(r.body.error.code, code, JSON.stringify(r.body));
    assert.equal(r.status, ERROR_STATUSES[code], JSON.stringify(r.body));
  };
  await expect(await h.post('/v13/runs', {}), 'method_not_allowed');
  await expect(await h.get('/v13/runs?limit=0'), 'invalid-request');
  await expect(await h.get('/v13/nothing-here'), 'not-found');
  const wrongType = await fetch(`${h.svc.url}/v13/jobs`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
  await expect({ status: wrongType.status, body: await wrongType.json() }, 'unsupported_content_type');
  const big = await fetch(`${h.svc.url}/v13/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ test: 'x'.repeat(70 * 1024) }),
  });
  await expect({ status: big.status, body: await big.json() }, 'body_too_large');
});
