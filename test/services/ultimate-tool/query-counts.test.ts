// An inconsistency found by review: `limit=0x10` was accepted on some routes (z.coerce.number takes
// hex, exponents, signs, spaces and "" as 0) and refused on others (the timeline and diagnostic
// items parse their limit themselves, decimal digits only). Now every route decides the same way:
// decimal digits only, and a refusal names the parameter and what was expected. The walk goes over
// every route of the table, so a new route with a numeric query parameter is covered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { pathParamNames, requestTarget } from '../../../services/ultimate-tool/api/paths.js';
import { ROUTE_LIST } from '../../../services/ultimate-tool/api/routes.js';
import { RunAnalyses } from '../../../services/ultimate-tool/analysis/run-analyses.js';
import { ServiceError } from '../../../services/ultimate-tool/http/service-error.js';
import { type Harness, startHarness } from './harness.js';

/** Not decimal digits, though Number() reads most of them as a number. */
const NOT_DECIMAL = ['0x10', '0X10', '0b11', '0o7', '1e1', ' 16', '16 ', '+16', '-1', '16.0', '1_0', '', 'Infinity'];

type Json = Record<string, unknown>;

/** Every numeric query parameter of the route table: [route, parameter, maximum]. */
function numericQueryParams(): Array<{ route: (typeof ROUTE_LIST)[number]; name: string; max: number; schema: z.ZodType }> {
  const out = [];
  for (const route of ROUTE_LIST) {
    if (!route.query) continue;
    const js = z.toJSONSchema(route.query, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Json> };
    for (const [name, p] of Object.entries(js.properties ?? {}))
      if (p.type === 'integer' || p.type === 'number') out.push({ route, name, max: p.maximum as number, schema: route.query });
  }
  return out;
}

describe('numeric query parameters take decimal digits only, on every route', () => {
  const params = numericQueryParams();

  it('the walk finds the coercing routes', () => {
    assert.deepEqual(params.map((p) => `${p.route.name}.${p.name}`).sort(), [
      'listCheckpointComparisons.limit',
      'listJobs.limit',
      'listNativeIntents.limit',
      'listRuns.limit',
    ]);
  });

  it('each query schema refuses what is not decimal digits, naming the parameter and the range', () => {
    for (const { route, name, max, schema } of params) {
      for (const bad of NOT_DECIMAL) {
        const r = schema.safeParse({ [name]: bad });
        assert.equal(r.success, false, `${route.name}: ${name}=${JSON.stringify(bad)} was accepted as ${JSON.stringify(r.data)}`);
        const issue = r.error!.issues[0]!;
        assert.deepEqual(issue.path, [name]);
        assert.equal(issue.message, `expected an integer 1..${max} in decimal digits, got ${JSON.stringify(bad)}`);
      }
      for (const out of ['0', String(max + 1)]) {
        const r = schema.safeParse({ [name]: out });
        assert.equal(r.success, false, `${route.name}: ${name}=${out}`);
        assert.equal(r.error!.issues[0]!.message, `expected an integer 1..${max} in decimal digits`);
      }
      assert.equal((schema.parse({ [name]: '16' }) as Json)[name], 16);
      assert.equal((schema.parse({ [name]: '0016' }) as Json)[name], 16, 'leading zeros are still decimal');
      assert.equal(typeof (schema.parse({}) as Json)[name], 'number', 'the default applies');
    }
  });

  it('the routes that parse their limit themselves (timeline, diagnostic items) refuse the same texts', async () => {
    const analyses = new RunAnalyses(null as never, null);
    const run = { run_id: 'r', evidence: [] } as never;
    for (const bad of NOT_DECIMAL.filter((b) => b !== '')) {
      await assert.rejects(analyses.timeline(run, { limit: bad }), (e: unknown) => {
        assert.ok(e instanceof ServiceError, String(e));
        assert.equal(e.code, 'timeline_failed');
        assert.match(e.message, /^limit .* is not an integer 1\.\.4096/);
        return true;
      });
      await assert.rejects(analyses.diagnosticItems(run, 'assertions', bad, undefined), (e: unknown) => {
        assert.ok(e instanceof ServiceError, String(e));
        assert.equal(e.code, 'diagnostic_report_failed');
        assert.match(e.message, /^limit .* is not an integer 1\.\.100/);
        return true;
      });
    }
  });
});

describe('over HTTP: limit=0x10 is a 400 invalid-request naming limit, on every coercing route', { timeout: 120_000 }, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h?.close());

  it('each route answers 0x10 (and the other non-decimal texts) with the parameter and what was expected', async () => {
    for (const { route, name, max } of numericQueryParams()) {
      assert.deepEqual(pathParamNames(route.path), [], `${route.name} needs no path parameters`);
      for (const bad of ['0x10', '1e1', '+16']) {
        const r = await h.get(requestTarget(route, { query: { [name]: bad } }));
        assert.equal(r.status, 400, `${route.name} ${name}=${bad}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, 'invalid-request');
        assert.ok(
          r.body.error.message.includes(`${name}: expected an integer 1..${max} in decimal digits, got ${JSON.stringify(bad)}`),
          r.body.error.message,
        );
      }
      const good = await h.get(requestTarget(route, { query: { [name]: '2' } }));
      assert.equal(good.status, 200, `${route.name} ${name}=2: ${JSON.stringify(good.body)}`);
    }
  });
});
