// THE declaration of HTTP API schema 13: every route with its method, path, path/query/body
// schemas, success status and response schema, and the error codes it may answer with. From this
// one table the service binds its handlers (service.ts, route families in routes/), the OpenAPI
// 3.1 document is generated (openapi.ts), the adapter's client sends `call(route, input)`
// (client.ts) and the adapter's tool inputs reuse the same field schemas (fields.ts), so no limit
// is written twice.
import { z } from 'zod';
import { ApiId, EvidenceName, JobId } from './fields.js';
import * as N from './native-schemas.js';
import { type HttpMethod, ROUTE_PATHS, type RouteName } from './paths.js';
import * as S from './schemas.js';

export interface RouteSpec {
  readonly name: RouteName;
  readonly method: HttpMethod;
  readonly path: string;
  readonly summary: string;
  /** Path parameters (`{param}` segments), as a closed object. */
  readonly params?: z.ZodObject;
  /** Query parameters, as a closed object (an unknown parameter is refused). */
  readonly query?: z.ZodObject;
  /** The JSON body, as a closed object. */
  readonly body?: z.ZodType;
  readonly status: 200 | 201;
  /** What the service answers on success. */
  readonly response: z.ZodType;
  /** The error codes this route answers with (their HTTP statuses: ERROR_STATUSES in errors.ts). */
  readonly errors: readonly S.ErrorCode[];
}

type Declared = Omit<RouteSpec, 'name' | 'method' | 'path'>;

const runId = z.strictObject({ run_id: ApiId });
const preparationId = z.strictObject({ preparation_id: ApiId });
const intentId = z.strictObject({ intent_id: ApiId });
const nativeRunId = z.strictObject({ native_run_id: ApiId });

// Error lists: what a route can answer besides success; every route may answer `invalid-request`
// (a malformed request) and `internal`.
const COMMON: Declared['errors'] = ['invalid-request', 'internal'];
const RUN: Declared['errors'] = [...COMMON, 'not-found'];
const ANALYSIS = (code: S.ErrorCode): Declared['errors'] => [...RUN, code];
const PROBE_USE: Declared['errors'] = [
  'probe_unknown',
  'probe_expired',
  'probe_consumed',
  'probe_strictness_mismatch',
  'target_unavailable',
];
// A capture start is a job: the request answers once it is queued; what goes wrong at the device
// is the job's error (GET /v13/jobs/{job_id}): capture_failed, capture_ambiguous, identity_changed, …
const CAPTURE_START: Declared['errors'] = [...RUN, 'preparation_settled', 'preparation_expired', 'confirmed_count_mismatch', 'queue_full'];

const DECLARED = {
  getProject: { summary: 'the project and its validated manifest', status: 200, response: S.ProjectPayloadSchema, errors: COMMON },
  listTargets: { summary: 'targets with availability and why not', status: 200, response: S.TargetsPayloadSchema, errors: COMMON },
  listRuns: { summary: 'runs, newest first', query: S.RunsQuerySchema, status: 200, response: S.RunsPayloadSchema, errors: COMMON },
  getRun: { summary: 'one complete run record (schema 9)', params: runId, status: 200, response: S.RunPayloadSchema, errors: RUN },
  readEvidence: {
    summary: 'one registered evidence file of a run',
    params: z.strictObject({ run_id: ApiId, name: EvidenceName }),
    status: 200,
    response: S.EvidencePayloadSchema,
    errors: [...RUN, 'evidence_not_registered', 'evidence_checksum_mismatch', 'evidence_too_large'],
  },
  resolveAddress: {
    summary: "resolve an address with the run's own labels (resolver schema 2)",
    params: runId,
    query: S.ResolveQuerySchema,
    status: 200,
    response: S.ResolvePayloadSchema,
    errors: [...RUN, 'evidence_checksum_mismatch'],
  },
  getRunTimeline: {
    summary: "one page of the run's debug-stream timeline",
    params: runId,
    query: S.TimelineQuerySchema,
    status: 200,
    response: S.TimelinePayloadSchema,
    errors: ANALYSIS('timeline_failed'),
  },
  getDiagnosticReport: {
    summary: 'the diagnostic report (schema 1)',
    params: runId,
    query: S.NoQuerySchema,
    status: 200,
    response: S.DiagnosticReportPayloadSchema,
    errors: ANALYSIS('diagnostic_report_failed'),
  },
  getDiagnosticItems: {
    summary: 'one page of a diagnostic report section',
    params: runId,
    query: S.DiagnosticItemsQuerySchema,
    status: 200,
    response: S.DiagnosticItemsPayloadSchema,
    errors: ANALYSIS('diagnostic_report_failed'),
  },
  getCrashReport: {
    summary: 'the crash report of a crashed run (schema 2)',
    params: runId,
    query: S.CrashReportQuerySchema,
    status: 200,
    response: S.CrashReportPayloadSchema,
    errors: ANALYSIS('crash_analysis_failed'),
  },
  compareRuns: {
    summary: 'compare two runs (comparison schema 1)',
    query: S.CompareQuerySchema,
    status: 200,
    response: S.ComparisonPayloadSchema,
    errors: [...RUN, 'evidence_not_registered'],
  },
  compareRunCheckpoints: {
    summary: 'provisional, read-only memory-checkpoint comparison of two runs (checkpoint comparison schema 1); stores nothing',
    query: S.CheckpointCompareQuerySchema,
    status: 200,
    response: S.CheckpointComparisonPayloadSchema,
    errors: [...RUN, 'checkpoint_comparison_failed'],
  },
  listCheckpointComparisons: {
    summary: 'stored checkpoint pair records, newest first',
    query: S.CheckpointComparisonsQuerySchema,
    status: 200,
    response: S.CheckpointComparisonsPayloadSchema,
    errors: [...COMMON, 'checkpoint_comparison_failed'],
  },
  getCheckpointComparison: {
    summary: 'one stored checkpoint pair record with its full comparison',
    params: z.strictObject({ comparison_id: ApiId }),
    status: 200,
    response: S.CheckpointComparisonRecordPayloadSchema,
    errors: [...RUN, 'checkpoint_comparison_failed'],
  },
  listJobs: {
    summary: 'recent jobs, newest first (live progress for jobs still running)',
    query: S.JobsQuerySchema,
    status: 200,
    response: S.JobsPayloadSchema,
    errors: COMMON,
  },
  getActiveJob: { summary: 'the running job, or null', status: 200, response: S.ActiveJobPayloadSchema, errors: COMMON },
  getJob: { summary: 'one job', params: z.strictObject({ job_id: JobId }), status: 200, response: S.JobPayloadSchema, errors: RUN },
  cancelJob: {
    summary: 'cancel a job: a queued one never runs; a running one stops at its next safe step, keeping its committed runs',
    params: z.strictObject({ job_id: JobId }),
    body: N.EmptyBodySchema,
    status: 200,
    response: S.JobPayloadSchema,
    errors: [...RUN, 'job_settled'],
  },
  probeUltimate: {
    summary: 'a five-minute single-use probe of the Ultimate',
    body: S.ProbeRequestSchema,
    status: 201,
    response: S.ProbePayloadSchema,
    errors: [...COMMON, 'target_unavailable', 'probe_rate_limited'],
  },
  startTestJob: {
    summary: 'start a test job',
    body: S.JobRequestSchema,
    status: 201,
    response: S.JobPayloadSchema,
    errors: [...RUN, ...PROBE_USE, 'invalid-request', 'target_unavailable', 'confirmed_count_mismatch', 'queue_full'],
  },
  startSuiteJob: {
    summary: 'start a suite job: every test of the project (or those named) in one job, one build, runs side by side on the vice pool',
    body: S.SuiteJobRequestSchema,
    status: 201,
    response: S.JobPayloadSchema,
    errors: [...RUN, ...PROBE_USE, 'invalid-request', 'target_unavailable', 'confirmed_count_mismatch', 'queue_full'],
  },
  openApi: { summary: 'this document', status: 200, response: z.record(z.string(), z.unknown()), errors: COMMON },
  prepareDebugStreamCapture: {
    summary: 'prepare a debug-stream capture (consumes the probe; no device access)',
    body: S.CapturePrepareRequestSchema,
    status: 201,
    response: S.PreparationPayloadSchema,
    errors: [...COMMON, ...PROBE_USE, 'receiver_unavailable'],
  },
  prepareSourceLinkedCapture: {
    summary: 'prepare a source-linked capture (clean build, snapshot, analysis validation; no device access)',
    body: S.SourceLinkedPrepareRequestSchema,
    status: 201,
    response: S.PreparationPayloadSchema,
    errors: [...COMMON, ...PROBE_USE, 'receiver_unavailable', 'build_failed', 'analysis_inputs_invalid'],
  },
  cancelDebugStreamPreparation: {
    summary: 'cancel a capture preparation (no hardware access)',
    params: preparationId,
    status: 200,
    response: S.PreparationPayloadSchema,
    errors: [...RUN, 'preparation_settled'],
  },
  cancelSourceLinkedPreparation: {
    summary: 'cancel a capture preparation (no hardware access)',
    params: preparationId,
    status: 200,
    response: S.PreparationPayloadSchema,
    errors: [...RUN, 'preparation_settled'],
  },
  startDebugStreamCapture: {
    summary: "queue the capture job (start, capture, stop; records one immutable run and the job's `capture`)",
    params: preparationId,
    body: S.CaptureStartRequestSchema,
    status: 201,
    response: S.JobPayloadSchema,
    errors: CAPTURE_START,
  },
  startSourceLinkedCapture: {
    summary: 'queue the source-linked capture job (start, reset and run the test while capturing, stop; records one run)',
    params: preparationId,
    body: S.SourceLinkedStartRequestSchema,
    status: 201,
    response: S.JobPayloadSchema,
    errors: CAPTURE_START,
  },
  createNativePreparation: {
    summary: 'build or take a manifest native program and store its UE2 (no hardware access)',
    body: N.NativePreparationRequestSchema,
    status: 201,
    response: N.NativePreparationPayloadSchema,
    errors: [...COMMON, 'native_preparation_failed'],
  },
  getNativePreparation: {
    summary: 'one native preparation',
    params: preparationId,
    status: 200,
    response: N.NativePreparationPayloadSchema,
    errors: RUN,
  },
  createNativeIntent: {
    summary: 'a one-shot or standing native intent bound to the probed identity and the UE2 hash (consumes the probe)',
    body: N.NativeIntentRequestSchema,
    status: 201,
    response: N.NativeIntentPayloadSchema,
    errors: [...RUN, ...PROBE_USE, 'not_elite2'],
  },
  listNativeIntents: {
    summary: 'native intents, newest first',
    query: N.NativeIntentsQuerySchema,
    status: 200,
    response: N.NativeIntentsPayloadSchema,
    errors: COMMON,
  },
  getNativeIntent: {
    summary: 'one native intent with its runs (newest first, at most 50)',
    params: intentId,
    status: 200,
    response: N.NativeIntentPayloadSchema,
    errors: RUN,
  },
  revokeNativeIntent: {
    summary: 'revoke a native intent (idempotent)',
    params: intentId,
    body: N.EmptyBodySchema,
    status: 200,
    response: N.NativeIntentPayloadSchema,
    errors: RUN,
  },
  startNativeRun: {
    summary: 'run the intent-bound program once (re-probe, latch, FTP creation, UTR2 token, Run Update)',
    body: N.NativeRunRequestSchema,
    status: 201,
    response: N.NativeRunStartPayloadSchema,
    errors: [
      ...RUN,
      'intent_not_active',
      'host_mismatch',
      'identity_changed',
      'ue2_changed',
      'target_unavailable',
      'queue_full',
      'cancelled',
    ],
  },
  getNativeRun: { summary: 'one native run', params: nativeRunId, status: 200, response: N.NativeRunPayloadSchema, errors: RUN },
  readNativeEvidence: {
    summary: 'one registered evidence file of a native run (re-hashed before it is returned)',
    params: z.strictObject({ native_run_id: ApiId, name: EvidenceName }),
    status: 200,
    response: N.NativeEvidencePayloadSchema,
    errors: [...RUN, 'evidence_not_registered', 'evidence_checksum_mismatch'],
  },
  startNativeHealthCheck: {
    summary: 'the post-recovery C64 health gate of a standing intent (no FTP, no Run Update)',
    body: N.NativeHealthCheckRequestSchema,
    status: 201,
    response: N.NativeJobPayloadSchema,
    errors: [
      ...RUN,
      'health_check_not_applicable',
      'health_gate_not_pending',
      'run_not_eligible',
      'host_mismatch',
      'identity_changed',
      'target_unavailable',
      'queue_full',
      'cancelled',
    ],
  },
  startRiscvSmokeJob: {
    summary: 'the legacy bounded RISC-V smoke job (probe + confirmed_run_update_count 1)',
    body: N.NativeSmokeJobRequestSchema,
    status: 201,
    response: N.NativeJobPayloadSchema,
    errors: [...COMMON, ...PROBE_USE, 'not_elite2', 'confirmed_count_mismatch', 'queue_full'],
  },
} as const satisfies { readonly [K in RouteName]: Declared };

/** Every route of API schema 13, by name, in matching order (each with its own schemas' types). */
export const ROUTES = Object.fromEntries(
  (Object.keys(ROUTE_PATHS) as RouteName[]).map((name) => {
    const d = DECLARED[name];
    return [name, { name, ...ROUTE_PATHS[name], ...d, errors: [...new Set(d.errors)] }];
  }),
) as unknown as { readonly [K in RouteName]: RouteSpec & (typeof DECLARED)[K] & { readonly name: K } };

export const ROUTE_LIST: readonly RouteSpec[] = Object.values(ROUTES);
