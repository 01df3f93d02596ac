// The wire contract is declared once (services/ultimate-tool/api/routes.ts). This test walks every
// route of that table and checks that the three things built from it agree: the OpenAPI document
// the service publishes, the adapter's client (the request target it sends lands on that very
// route in the service's matcher) and the adapter's tool inputs (every limit a tool input shares
// with its route — length, range, item count, pattern — is the route's own).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { openApiDocument } from '../../../services/ultimate-tool/api/openapi.js';
import { pathMatcher, pathParamNames, requestTarget } from '../../../services/ultimate-tool/api/paths.js';
import { ROUTE_LIST, ROUTES } from '../../../services/ultimate-tool/api/routes.js';
import * as A from '../../../services/ultimate-tool/api/tool-inputs.js';
import { TOOLS, type ToolName, type ToolSpec, toolRequest } from '../../../services/ultimate-tool/api/tools.js';

type Json = Record<string, unknown>;

/** Each tool of the declaration, with the route it calls and its argument renames. */
const TOOL_SPECS = Object.entries(TOOLS) as Array<[ToolName, ToolSpec]>;

/**
 * Fields typed differently on the two sides on purpose: the query string carries text that the
 * route parses itself (same bound, stated in its description and checked by the route), while the
 * tool takes a number, an enum or an address union. Any other type difference fails the test.
 */
const TYPED_DIFFERENTLY = new Set([
  'getRunTimeline.limit',
  'getRunTimeline.address_from',
  'getRunTimeline.address_to',
  'getRunTimeline.access',
  'getDiagnosticItems.section',
  'getDiagnosticItems.limit',
  'resolveAddress.address',
  'startRiscvSmokeJob.confirmed_run_update_count',
]);

const LIMIT_KEYS = ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const;

function jsonSchema(t: z.ZodType): Json {
  return z.toJSONSchema(t, { io: 'input', unrepresentable: 'any' }) as Json;
}

/** A route's fields as the OpenAPI document publishes them: path and query parameters and body properties. */
function openApiFields(doc: Json, route: (typeof ROUTE_LIST)[number]): Map<string, Json> {
  const op = ((doc.paths as Json)[route.path] as Json)[route.method.toLowerCase()] as Json;
  const fields = new Map<string, Json>();
  for (const p of (op.parameters as Array<{ name: string; schema: Json }> | undefined) ?? []) fields.set(p.name, p.schema);
  const body = (op.requestBody as { content: { 'application/json': { schema: Json } } } | undefined)?.content['application/json'].schema;
  for (const [k, v] of Object.entries((body?.properties as Record<string, Json> | undefined) ?? {})) fields.set(k, v);
  return fields;
}

/** UUIDs: the tool accepts either case (and sends lower case); the route's pattern is the lower-case one. */
const normalizePattern = (p: unknown) => (typeof p === 'string' ? p.replaceAll('a-fA-F', 'a-f').replaceAll('[89abAB]', '[89ab]') : p);

test('every tool maps to a route of the table, and every argument to a field that route declares', () => {
  for (const [tool, spec] of TOOL_SPECS) {
    const route = ROUTES[spec.route];
    assert.ok(route, `${tool} → ${spec.route}`);
    const props = (jsonSchema(spec.input).properties as Record<string, Json> | undefined) ?? {};
    const declared = openApiFields(openApiDocument('test'), route);
    // Every argument at once: each lands on a path parameter, a query parameter or a body field of its route.
    const args = Object.fromEntries(Object.keys(props).map((k) => [k, 'x']));
    const input = toolRequest(tool, args);
    const sent = [...Object.keys(input.params ?? {}), ...Object.keys(input.query ?? {}), ...Object.keys((input.body as Json) ?? {})];
    assert.deepEqual(
      sent.sort(),
      Object.keys(props)
        .map((k) => spec.rename?.[k] ?? k)
        .sort(),
      tool,
    );
    for (const field of sent) assert.ok(declared.has(field), `${tool}: ${field} is a field of ${route.method} ${route.path}`);
  }
});

test('OpenAPI, client and adapter agree on every route and every limit', () => {
  const doc = openApiDocument('test');
  const mismatches: string[] = [];
  let compared = 0;
  for (const route of ROUTE_LIST) {
    // OpenAPI: the route is published with its method, and its path parameters are declared.
    const op = ((doc.paths as Json)[route.path] as Json | undefined)?.[route.method.toLowerCase()] as Json | undefined;
    assert.ok(op, `OpenAPI has ${route.method} ${route.path}`);
    assert.equal(op.operationId, route.name);
    const fields = openApiFields(doc, route);
    for (const p of pathParamNames(route.path)) assert.ok(fields.has(p), `${route.name}: path parameter ${p} in OpenAPI`);

    // Client: the request target it builds for this route is matched by this route first in the
    // service's table order (so /v13/jobs/active never lands on /v13/jobs/{job_id}, and back).
    const params = Object.fromEntries(pathParamNames(route.path).map((p) => [p, `x-${p}`]));
    const target = requestTarget(route, { params, query: { probe: 1 } }).split('?')[0]!;
    const first = ROUTE_LIST.find((r) => r.method === route.method && pathMatcher(r.path).test(target));
    assert.equal(first?.name, route.name, `${route.name}: the client's ${target} reaches ${first?.name}`);

    // Adapter: every tool input field the route also has carries the route's limits.
    for (const [tool, spec] of TOOL_SPECS) {
      if (spec.route !== route.name) continue;
      const props = (jsonSchema(spec.input).properties as Record<string, Json> | undefined) ?? {};
      for (const [arg, adapterField] of Object.entries(props)) {
        const name = spec.rename?.[arg] ?? arg;
        const apiField = fields.get(name);
        if (!apiField) continue; // an adapter-only argument (none today carries a limit the service lacks)
        if (TYPED_DIFFERENTLY.has(`${route.name}.${name}`)) continue;
        assert.equal(adapterField.type, apiField.type, `${tool}.${arg} vs ${route.name}.${name}: type`);
        for (const key of LIMIT_KEYS) {
          compared++;
          if (adapterField[key] !== apiField[key])
            mismatches.push(`${tool}.${arg} ${key} ${adapterField[key]} ≠ ${route.name}.${name} ${key} ${apiField[key]}`);
        }
        if (
          apiField.pattern !== undefined &&
          normalizePattern(adapterField.pattern) !== apiField.pattern &&
          adapterField.pattern !== undefined
        )
          mismatches.push(`${tool}.${arg} pattern ${adapterField.pattern} ≠ ${route.name}.${name} pattern ${apiField.pattern}`);
        const items = [adapterField.items as Json | undefined, apiField.items as Json | undefined];
        if (items[0] && items[1])
          for (const key of LIMIT_KEYS) if (items[0][key] !== items[1][key]) mismatches.push(`${tool}.${arg}[] ${key}`);
      }
    }
  }
  assert.deepEqual(mismatches, []);
  assert.ok(compared > 100, `compared ${compared} limits`);
});

test('the disagreements issue 21 found are resolved to the service values', () => {
  const props = (t: z.ZodType) => jsonSchema(t).properties as Record<string, Json>;
  assert.equal(props(A.StartTestJobArgs).repeat!.maximum, 100);
  assert.equal(props(A.StartTestJobArgs).test!.maxLength, 64);
  assert.equal(props(A.ListRunsArgs).cursor!.maxLength, 200);
  // A UUID of another version is refused by the adapter as by the service.
  assert.equal(A.GetRunArgs.safeParse({ run_id: '123e4567-e89b-12d3-a456-426614174000' }).success, false);
  assert.equal(A.GetRunArgs.safeParse({ run_id: '123E4567-E89B-42D3-A456-426614174000' }).success, true);
});
