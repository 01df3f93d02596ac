// The OpenAPI 3.1 document of API schema 13, generated from the route table (routes.ts): the
// paths, parameters, bodies, responses and error codes are the very objects the service parses
// with, so the document cannot drift from what the routes accept and answer.
import { z } from 'zod';
import { ERROR_STATUSES } from './errors.js';
import { pathParamNames } from './paths.js';
import { ROUTE_LIST } from './routes.js';
import * as S from './schemas.js';

function schema(t: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(t, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/**
 * A route's 429 answer and its `Retry-After` header (set by the HTTP front from
 * `details.retry_after_ms`, rounded up to whole seconds): sent with `probe_rate_limited`, not with
 * `queue_full`, whose wait is not known when it is refused (http/http-front.ts says why).
 */
function tooManyResponse(codes: readonly string[]): Record<string, unknown> {
  return {
    description: `error: ${codes.join(', ')} (HTTP 429)`,
    headers: {
      'Retry-After': {
        description:
          'seconds to wait before trying again: details.retry_after_ms of the body rounded up (RFC 9110 delay-seconds). ' +
          'Sent with probe_rate_limited; not with queue_full (the queue frees when jobs end, which has no known time: try again when GET /v13/jobs shows fewer jobs queued or running).',
        required: false,
        schema: { type: 'integer', minimum: 1 },
      },
    },
    content: { 'application/json': { schema: schema(S.ErrorBodySchema, 'output') } },
  };
}

let cached: Record<string, unknown> | undefined;

export function openApiDocument(version: string): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  const errorResponse = { description: 'error', content: { 'application/json': { schema: schema(S.ErrorBodySchema, 'output') } } };
  for (const op of ROUTE_LIST) {
    const parameters: unknown[] = [];
    const params = op.params ? ((schema(op.params, 'input') as { properties?: Record<string, unknown> }).properties ?? {}) : {};
    for (const p of pathParamNames(op.path))
      parameters.push({ name: p, in: 'path', required: true, schema: params[p] ?? { type: 'string' } });
    if (op.query) {
      const js = schema(op.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, s] of Object.entries(js.properties ?? {}))
        parameters.push({ name, in: 'query', required: (js.required ?? []).includes(name), schema: s });
    }
    const errorCodes = op.errors.map((code) => `${code} (HTTP ${ERROR_STATUSES[code]})`).join(', ');
    const tooMany = op.errors.filter((code) => ERROR_STATUSES[code] === 429);
    paths[op.path] ??= {};
    paths[op.path]![op.method.toLowerCase()] = {
      operationId: op.name,
      summary: op.summary,
      'x-error-codes': op.errors.map((code) => ({ code, status: ERROR_STATUSES[code] })),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: false, content: { 'application/json': { schema: schema(op.body, 'input') } } } } : {}),
      responses: {
        [String(op.status)]: { description: 'success', content: { 'application/json': { schema: schema(op.response, 'output') } } },
        ...(tooMany.length ? { '429': tooManyResponse(tooMany) } : {}),
        '4XX': { ...errorResponse, description: `error: ${errorCodes}` },
        '5XX': { ...errorResponse, description: `error: ${errorCodes}` },
      },
    };
  }
  cached = {
    openapi: '3.1.0',
    // OpenAPI allows only x- extensions at the top level; this is the document's api_schema_version.
    'x-api-schema-version': S.API_SCHEMA_VERSION,
    info: { title: 'Ultimate Tool service', version, description: 'API schema 13: projects, builds, targets, jobs, runs, evidence.' },
    servers: [{ url: 'http://127.0.0.1:6464' }],
    paths,
  };
  return cached;
}
