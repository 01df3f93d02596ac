// The OpenAPI 3.1 document of API schema 13, generated from the zod schemas the routes use.
import { z } from 'zod';
import * as S from './api-schemas.js';
import { NATIVE_OPS } from './native-jobs/native-openapi.js';

type Op = {
  method: 'get' | 'post' | 'delete';
  path: string;
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  status: 200 | 201;
  response: z.ZodType;
  pathParams?: string[];
};

const OPS: Op[] = [
  { method: 'get', path: '/v13/project', summary: 'the project and its validated manifest', status: 200, response: S.ProjectPayloadSchema },
  { method: 'get', path: '/v13/targets', summary: 'targets with availability and why not', status: 200, response: S.TargetsPayloadSchema },
  { method: 'get', path: '/v13/runs', summary: 'runs, newest first', query: S.RunsQuerySchema, status: 200, response: S.RunsPayloadSchema },
  {
    method: 'get',
    path: '/v13/runs/{run_id}',
    summary: 'one complete run record (schema 9)',
    pathParams: ['run_id'],
    status: 200,
    response: S.RunPayloadSchema,
  },
  {
    method: 'get',
    path: '/v13/runs/{run_id}/evidence/{name}',
    summary: 'one registered evidence file of a run',
    pathParams: ['run_id', 'name'],
    status: 200,
    response: S.EvidencePayloadSchema,
  },
  {
    method: 'get',
    path: '/v13/runs/{run_id}/resolve',
    summary: "resolve an address with the run's own labels (resolver schema 2)",
    pathParams: ['run_id'],
    query: S.ResolveQuerySchema,
    status: 200,
    response: S.ResolvePayloadSchema,
  },
  {
    method: 'get',
    path: '/v13/comparisons/runs',
    summary: 'compare two runs (comparison schema 1)',
    query: S.CompareQuerySchema,
    status: 200,
    response: S.ComparisonPayloadSchema,
  },
  {
    method: 'get',
    path: '/v13/jobs',
    summary: 'recent jobs, newest first (live progress for jobs still running)',
    query: S.JobsQuerySchema,
    status: 200,
    response: S.JobsPayloadSchema,
  },
  { method: 'get', path: '/v13/jobs/active', summary: 'the running job, or null', status: 200, response: S.ActiveJobPayloadSchema },
  { method: 'get', path: '/v13/jobs/{job_id}', summary: 'one job', pathParams: ['job_id'], status: 200, response: S.JobPayloadSchema },
  {
    method: 'post',
    path: '/v13/probes',
    summary: 'a five-minute single-use probe of the Ultimate',
    body: S.ProbeRequestSchema,
    status: 201,
    response: S.ProbePayloadSchema,
  },
  { method: 'post', path: '/v13/jobs', summary: 'start a test job', body: S.JobRequestSchema, status: 201, response: S.JobPayloadSchema },
  {
    method: 'get',
    path: '/v13/comparisons/checkpoints',
    summary: 'provisional, read-only memory-checkpoint comparison of two runs (checkpoint comparison schema 1); stores nothing',
    query: S.CheckpointCompareQuerySchema,
    status: 200,
    response: S.CheckpointComparisonPayloadSchema,
  },
  {
    method: 'get',
    path: '/v13/checkpoint-comparisons',
    summary: 'stored checkpoint pair records, newest first',
    query: S.CheckpointComparisonsQuerySchema,
    status: 200,
    response: S.CheckpointComparisonsPayloadSchema,
  },
  {
    method: 'get',
    path: '/v13/checkpoint-comparisons/{comparison_id}',
    summary: 'one stored checkpoint pair record with its full comparison',
    pathParams: ['comparison_id'],
    status: 200,
    response: S.CheckpointComparisonRecordPayloadSchema,
  },
  { method: 'get', path: '/v13/openapi.json', summary: 'this document', status: 200, response: z.record(z.string(), z.unknown()) },
  ...captureOps(),
];

/** Debug-stream captures and run analyses (docs/ultimate/CAPTURES.md). */
function captureOps(): Op[] {
  const prep = (kind: string) => `/v13/captures/${kind}/preparations`;
  const analysis = (tail: string, summary: string, query: z.ZodObject, response: z.ZodType): Op => ({
    method: 'get',
    path: `/v13/runs/{run_id}/${tail}`,
    summary,
    pathParams: ['run_id'],
    query,
    status: 200,
    response,
  });
  return [
    {
      method: 'post',
      path: prep('debug-stream'),
      summary: 'prepare a debug-stream capture (consumes the probe; no device access)',
      body: S.CapturePrepareRequestSchema,
      status: 201,
      response: S.PreparationPayloadSchema,
    },
    {
      method: 'post',
      path: prep('source-linked'),
      summary: 'prepare a source-linked capture (clean build, snapshot, analysis validation; no device access)',
      body: S.SourceLinkedPrepareRequestSchema,
      status: 201,
      response: S.PreparationPayloadSchema,
    },
    ...['debug-stream', 'source-linked'].map(
      (kind): Op => ({
        method: 'delete',
        path: `${prep(kind)}/{preparation_id}`,
        summary: 'cancel a capture preparation (no hardware access)',
        pathParams: ['preparation_id'],
        status: 200,
        response: S.PreparationPayloadSchema,
      }),
    ),
    {
      method: 'post',
      path: `${prep('debug-stream')}/{preparation_id}/start`,
      summary: 'start, capture, stop; records one immutable run',
      pathParams: ['preparation_id'],
      body: S.CaptureStartRequestSchema,
      status: 201,
      response: S.CaptureStartPayloadSchema,
    },
    {
      method: 'post',
      path: `${prep('source-linked')}/{preparation_id}/start`,
      summary: 'start, reset and run the test while capturing, stop; records one source-linked run',
      pathParams: ['preparation_id'],
      body: S.SourceLinkedStartRequestSchema,
      status: 201,
      response: S.CaptureStartPayloadSchema,
    },
    analysis('timeline', "one page of the run's debug-stream timeline", S.TimelineQuerySchema, S.TimelinePayloadSchema),
    analysis('diagnostic-report', 'the diagnostic report (schema 1)', S.NoQuerySchema, S.DiagnosticReportPayloadSchema),
    analysis('diagnostic-items', 'one page of a diagnostic report section', S.DiagnosticItemsQuerySchema, S.DiagnosticReportPayloadSchema),
    analysis('crash-report', 'the crash report of a crashed run (schema 2)', S.CrashReportQuerySchema, S.CrashReportPayloadSchema),
    ...NATIVE_OPS,
  ];
}

function schema(t: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(t, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

let cached: Record<string, unknown> | undefined;

export function openApiDocument(version: string): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  const errorResponse = { description: 'error', content: { 'application/json': { schema: schema(S.ErrorBodySchema, 'output') } } };
  for (const op of OPS) {
    const parameters: unknown[] = [];
    for (const p of op.pathParams ?? []) parameters.push({ name: p, in: 'path', required: true, schema: { type: 'string' } });
    if (op.query) {
      const js = schema(op.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, s] of Object.entries(js.properties ?? {}))
        parameters.push({ name, in: 'query', required: (js.required ?? []).includes(name), schema: s });
    }
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      summary: op.summary,
      ...(parameters.length ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: false, content: { 'application/json': { schema: schema(op.body, 'input') } } } } : {}),
      responses: {
        [String(op.status)]: { description: 'success', content: { 'application/json': { schema: schema(op.response, 'output') } } },
        '4XX': errorResponse,
        '5XX': errorResponse,
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
