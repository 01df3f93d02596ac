// Where every route of HTTP API schema 13 lives: the one place a `/v13/…` path is spelled out.
// Kept free of zod so the dashboard's browser bundle can use it; the route table (routes.ts) adds
// the schemas to these same names, and the service, the OpenAPI document, the adapter's client and
// the dashboard all build or match paths from here.

/** Route name → method and path template (`{param}` is one path segment). Order matters for matching: `/v13/jobs/active` precedes `/v13/jobs/{job_id}`. */
export const ROUTE_PATHS = {
  getProject: { method: 'GET', path: '/v13/project' },
  listTargets: { method: 'GET', path: '/v13/targets' },
  listRuns: { method: 'GET', path: '/v13/runs' },
  getRun: { method: 'GET', path: '/v13/runs/{run_id}' },
  readEvidence: { method: 'GET', path: '/v13/runs/{run_id}/evidence/{name}' },
  resolveAddress: { method: 'GET', path: '/v13/runs/{run_id}/resolve' },
  getRunTimeline: { method: 'GET', path: '/v13/runs/{run_id}/timeline' },
  getDiagnosticReport: { method: 'GET', path: '/v13/runs/{run_id}/diagnostic-report' },
  getDiagnosticItems: { method: 'GET', path: '/v13/runs/{run_id}/diagnostic-items' },
  getCrashReport: { method: 'GET', path: '/v13/runs/{run_id}/crash-report' },
  compareRuns: { method: 'GET', path: '/v13/comparisons/runs' },
  compareRunCheckpoints: { method: 'GET', path: '/v13/comparisons/checkpoints' },
  listCheckpointComparisons: { method: 'GET', path: '/v13/checkpoint-comparisons' },
  getCheckpointComparison: { method: 'GET', path: '/v13/checkpoint-comparisons/{comparison_id}' },
  listJobs: { method: 'GET', path: '/v13/jobs' },
  getActiveJob: { method: 'GET', path: '/v13/jobs/active' },
  getJob: { method: 'GET', path: '/v13/jobs/{job_id}' },
  cancelJob: { method: 'POST', path: '/v13/jobs/{job_id}/cancel' },
  probeUltimate: { method: 'POST', path: '/v13/probes' },
  startTestJob: { method: 'POST', path: '/v13/jobs' },
  startSuiteJob: { method: 'POST', path: '/v13/suite-jobs' },
  openApi: { method: 'GET', path: '/v13/openapi.json' },
  prepareDebugStreamCapture: { method: 'POST', path: '/v13/captures/debug-stream/preparations' },
  prepareSourceLinkedCapture: { method: 'POST', path: '/v13/captures/source-linked/preparations' },
  cancelDebugStreamPreparation: { method: 'DELETE', path: '/v13/captures/debug-stream/preparations/{preparation_id}' },
  cancelSourceLinkedPreparation: { method: 'DELETE', path: '/v13/captures/source-linked/preparations/{preparation_id}' },
  startDebugStreamCapture: { method: 'POST', path: '/v13/captures/debug-stream/preparations/{preparation_id}/start' },
  startSourceLinkedCapture: { method: 'POST', path: '/v13/captures/source-linked/preparations/{preparation_id}/start' },
  createNativePreparation: { method: 'POST', path: '/v13/native/preparations' },
  getNativePreparation: { method: 'GET', path: '/v13/native/preparations/{preparation_id}' },
  createNativeIntent: { method: 'POST', path: '/v13/native/intents' },
  listNativeIntents: { method: 'GET', path: '/v13/native/intents' },
  getNativeIntent: { method: 'GET', path: '/v13/native/intents/{intent_id}' },
  revokeNativeIntent: { method: 'POST', path: '/v13/native/intents/{intent_id}/revoke' },
  startNativeRun: { method: 'POST', path: '/v13/native/runs' },
  getNativeRun: { method: 'GET', path: '/v13/native/runs/{native_run_id}' },
  readNativeEvidence: { method: 'GET', path: '/v13/native/runs/{native_run_id}/evidence/{name}' },
  startNativeHealthCheck: { method: 'POST', path: '/v13/native/health-checks' },
  startRiscvSmokeJob: { method: 'POST', path: '/v13/native/smoke-jobs' },
} as const satisfies Record<string, { method: 'GET' | 'POST' | 'DELETE'; path: string }>;

export type RouteName = keyof typeof ROUTE_PATHS;
export type HttpMethod = (typeof ROUTE_PATHS)[RouteName]['method'];

/** The path parameters a template names, in order. */
export function pathParamNames(template: string): string[] {
  return [...template.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
}

/** The concrete path: each `{param}` replaced by its value, percent-encoded as one segment. */
export function fillPath(template: string, params: Readonly<Record<string, string>> = {}): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`path ${template} needs the parameter ${name}`);
    return encodeURIComponent(v);
  });
}

/**
 * The matcher of a template against a path as sent (not URL-normalized: an evidence name ".."
 * must reach its route to be refused there). A `{name}` segment (an evidence file name) may be
 * empty so that the route, not the router, says what is wrong with it.
 */
export function pathMatcher(template: string): RegExp {
  const body = template
    .split(/(\{[a-z_]+\})/)
    .map((part) => (part.startsWith('{') ? (part === '{name}' ? '([^/]*)' : '([^/]+)') : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

/** The path with its query string (undefined values left out). */
export function withQuery(path: string, query: Readonly<Record<string, string | number | boolean | undefined>> = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

/** What a client sends on one route: the path parameters, the query and the JSON body. */
export interface RouteInput {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
}

/** The request target (path and query) of one call of a route. */
export function requestTarget(route: { readonly path: string }, input: RouteInput = {}): string {
  return withQuery(fillPath(route.path, input.params), input.query);
}
