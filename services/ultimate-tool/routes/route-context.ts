// What every route family needs from the service: its parts, built once by service.ts, and the few
// helpers each family shares (the success envelope, strict parsing of bodies and queries). A family
// is a function of this context that returns its handlers by route name (route-binding.ts).
import type { z } from 'zod';
import type { Logger } from '../../../common/index.js';
import { API_SCHEMA_VERSION, type TargetInfo, UuidSchema } from '../api/schemas.js';
import type { CaptureService } from '../jobs/captures.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { TestJobs } from '../jobs/test-job.js';
import { type Manifest, describeIssues } from '../project/manifest.js';
import type { Reply } from '../http/route-binding.js';
import type { RunAnalyses } from '../analysis/run-analyses.js';
import { ServiceError } from '../http/service-error.js';
import type { ServiceStore } from '../store/store.js';
import type { SymbolAnalysis } from '../analysis/symbol-analysis.js';

export interface RouteContext {
  readonly projectRoot: string;
  readonly store: ServiceStore;
  readonly jobs: JobRunner;
  readonly testJobs: TestJobs;
  readonly captures: CaptureService;
  readonly analyses: RunAnalyses;
  readonly symbolAnalysis: SymbolAnalysis | null;
  readonly log: Logger;
  readonly now: () => number;
  /** The project's manifest, loaded now (a manifest that does not validate is manifest_invalid). */
  manifest(): Promise<Manifest>;
  /** Whether a target can serve, and why not. */
  targetInfo(target: 'vice' | 'ultimate'): TargetInfo;
}

/** A success answer: the payload with the API schema version. */
export function ok(body: Record<string, unknown>, status = 200): Reply {
  return { status, body: { api_schema_version: API_SCHEMA_VERSION, ...body } };
}

/** Strict parsing of a body or query: a failure is invalid-request naming each field. */
export function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ServiceError('invalid-request', `invalid ${what}: ${describeIssues(r.error)}`, 400);
  return r.data;
}

/** The query as an object; a parameter given twice is refused (not silently the last one). */
export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) {
    if (k in out) throw new ServiceError('invalid-request', `query parameter ${k} given twice; expected it at most once`, 400);
    out[k] = v;
  }
  return out;
}

/** A path segment that must be a lower-case UUID v4. */
export function uuidParam(raw: string, what: string): string {
  if (!UuidSchema.safeParse(raw).success)
    throw new ServiceError('invalid-request', `${what} ${JSON.stringify(raw)} is not a lower-case UUID v4`, 400);
  return raw;
}

/** A stored run by id (400 for a malformed id, 404 for an unknown one). */
export function storedRun(ctx: RouteContext, id: string) {
  uuidParam(id, 'run id');
  const r = ctx.store.getRun(id);
  if (!r) throw new ServiceError('not-found', `no run ${id}`, 404);
  return r;
}
