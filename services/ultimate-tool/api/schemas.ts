// Every body of the HTTP API (API schema 13) as a zod schema: requests are parsed with them, and
// the OpenAPI document (openapi.ts) is generated from the very same objects through the route
// table (routes.ts), so the published document cannot drift from what the routes accept and answer.
// Shared fields and their limits come from fields.ts.
import { z } from 'zod';
import {
  AddressText,
  ApiId,
  CHECKPOINT_COMPARISONS_LIMIT_MAX,
  ConfirmedCount,
  Context,
  DiagnosticCursor,
  DiagnosticSection,
  Ipv4,
  JOBS_LIMIT_MAX,
  ProbeId,
  Repeat,
  RUNS_LIMIT_MAX,
  RunsCursor,
  TestName,
  TimelineCursor,
  queryCount,
} from './fields.js';

export const API_SCHEMA_VERSION = 13;
export const RUN_RECORD_SCHEMA_VERSION = 9;

export const ErrorCodeSchema = z.enum([
  'not-found',
  'invalid-request',
  // the request guard and the HTTP plumbing (api/errors.ts: one status per code)
  'host_not_allowed',
  'method_not_allowed',
  'body_too_large',
  'request_timeout',
  'unsupported_content_type',
  'manifest_invalid',
  'probe_expired',
  'probe_consumed',
  'probe_unknown',
  'probe_strictness_mismatch',
  'probe_rate_limited',
  'confirmed_count_mismatch',
  'identity_changed',
  'target_unavailable',
  'evidence_not_registered',
  'evidence_checksum_mismatch',
  'evidence_too_large',
  'build_failed',
  'internal',
  'checkpoint_comparison_failed',
  // debug-stream captures and the run analyses (captures.ts, run-analyses.ts)
  'preparation_settled',
  'preparation_expired',
  'analysis_inputs_invalid',
  'receiver_unavailable',
  'capture_failed',
  'capture_ambiguous',
  'timeline_failed',
  'diagnostic_report_failed',
  'crash_analysis_failed',
  // the trusted-native flow (native/, docs/ultimate/NATIVE.md)
  'native_preparation_failed',
  'not_elite2',
  'ue2_changed',
  'intent_not_active',
  'host_mismatch',
  'health_check_not_applicable',
  'health_gate_not_pending',
  'run_not_eligible',
  // the job runner (jobs/job-runner.ts)
  'queue_full',
  'cancelled',
  'job_settled',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ErrorBodySchema = z.object({
  api_schema_version: z.literal(API_SCHEMA_VERSION),
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});

const Uuid = ApiId;
export const UuidSchema = Uuid;
export const TargetNameSchema = z.enum(['vice', 'ultimate']);
export type TargetName = z.infer<typeof TargetNameSchema>;
const Timestamp = z.string().describe('ISO 8601 UTC');
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

// ---- requests ----

export const ProbeRequestSchema = z.strictObject({ strict_gate: z.boolean().default(false) });

export const JobRequestSchema = z.strictObject({
  test: TestName,
  targets: z
    .array(TargetNameSchema)
    .min(1)
    .max(2)
    .refine((t) => new Set(t).size === t.length, 'targets must not repeat'),
  repeat: Repeat.default(1),
  baseline_run_id: Uuid.optional(),
  strict_gate: z.boolean().default(false),
  probe_id: ProbeId.optional(),
  confirmed_reset_count: ConfirmedCount.optional(),
  confirmed_reu_write_count: ConfirmedCount.optional(),
  compare_checkpoints: z
    .boolean()
    .default(false)
    .describe('run the VICE-then-Ultimate checkpoint matrix (targets exactly ["vice","ultimate"], repeat 1) and store a pair record'),
});
export type JobRequest = z.infer<typeof JobRequestSchema>;

/** A whole suite in one job (`start_suite_job`, `ultimate-tool test --all`): every test, or those named. */
export const SuiteJobRequestSchema = z.strictObject({
  tests: z
    .array(TestName)
    .min(1)
    .max(1024)
    .refine((t) => new Set(t).size === t.length, 'tests must not repeat')
    .optional()
    .describe('the tests to run, in this order; default: every test of the project'),
  targets: z
    .array(TargetNameSchema)
    .min(1)
    .max(2)
    .refine((t) => new Set(t).size === t.length, 'targets must not repeat'),
  repeat: Repeat.default(1),
  strict_gate: z.boolean().default(false),
  probe_id: ProbeId.optional(),
  confirmed_reset_count: ConfirmedCount.optional().describe('with the ultimate target: tests × repeat (each run resets the device)'),
  confirmed_reu_write_count: ConfirmedCount.optional(),
});
export type SuiteJobRequest = z.infer<typeof SuiteJobRequestSchema>;

export const RunsQuerySchema = z.strictObject({
  limit: queryCount(RUNS_LIMIT_MAX, 20),
  cursor: RunsCursor.optional(),
  test: TestName.optional(),
  target: TargetNameSchema.optional(),
  status: z.enum(['passed', 'failed', 'crashed', 'timed_out', 'error']).optional().describe('only runs with this status'),
});

export const ResolveQuerySchema = z.strictObject({
  address: AddressText.describe('decimal, $ABCD or 0xABCD'),
  context: Context.optional(),
});

export const CompareQuerySchema = z.strictObject({
  baseline: Uuid,
  candidate: Uuid,
  context: Context.optional(),
});

// ---- payloads ----

export const JobStateSchema = z.enum(['queued', 'running', 'finished', 'failed', 'cancelled']);
export const JobSchema = z.object({
  job_id: z.string(),
  state: JobStateSchema,
  test: z.string(),
  targets: z.array(TargetNameSchema),
  repeat: z.number().int(),
  strict_gate: z.boolean(),
  baseline_run_id: Uuid.nullable(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  progress: z.object({
    completed_runs: z.number().int(),
    total_runs: z.number().int(),
    phase: z.string(),
    datagrams: z.number().int().optional().describe('a capture job: debug-stream datagrams received so far'),
    max_datagrams: z.number().int().optional().describe('a capture job: the bound on datagrams'),
    statuses: z.record(z.string(), z.number().int()).optional().describe('runs committed so far by status (passed, failed, …)'),
  }),
  tests: z.array(z.string()).optional().describe('a suite job: the tests it runs (its `test` is "*suite*")'),
  run_ids: z.array(Uuid),
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }).nullable(),
  cancel_requested: z.boolean().optional().describe('a cancel was asked for while the job ran: it stops at its next safe step'),
  compare_checkpoints: z.boolean().optional(),
  checkpoint_comparison_id: Uuid.nullable().optional().describe('the stored pair record of a compare_checkpoints job, once written'),
});
export type Job = z.infer<typeof JobSchema>;

export const JobsQuerySchema = z.strictObject({
  limit: queryCount(JOBS_LIMIT_MAX, 20, `1-${JOBS_LIMIT_MAX}, default 20`),
  state: JobStateSchema.optional().describe('only jobs in this state'),
});

export const EvidenceEntrySchema = z.object({
  name: z.string(),
  media_type: z.string(),
  size: z.number().int(),
  sha256: Sha256,
});
export type EvidenceEntry = z.infer<typeof EvidenceEntrySchema>;

export const SupportingArtifactSchema = z.object({
  role: z.enum(['prg', 'labels', 'map', 'dbg', 'listing']),
  format: z.string(),
  name: z.string(),
  size: z.number().int(),
  sha256: Sha256,
});
export type SupportingArtifact = z.infer<typeof SupportingArtifactSchema>;

export const RunStatusSchema = z.enum(['passed', 'failed', 'crashed', 'timed_out', 'error']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const ScreenMatchResultSchema = z.object({
  text: z.string(),
  row: z.number().int().nullable(),
  matched: z.boolean(),
  found_at: z.object({ row: z.number().int(), column: z.number().int() }).nullable(),
});

export const CrashStateSchema = z.object({
  // harness-crash-area-v1: the program's harness wrote the area; bus-trace-v1: seen in the debug
  // stream; dma-crash-hook-v1: caught by the BRK hook the tool installed by DMA (no stream).
  handoff: z.enum(['harness-crash-area-v1', 'bus-trace-v1', 'dma-crash-hook-v1']),
  kind: z.enum(['brk', 'nmi', 'jam', 'outside-code', 'unknown']),
  cycle: z.number().int().nullable().optional(),
  registers: z.object({ a: z.number(), x: z.number(), y: z.number(), p: z.number(), sp: z.number(), pc: z.number() }),
  site: z.object({ address: z.number().int(), address_hex: z.string(), exact: z.boolean(), note: z.string() }).nullable(),
  evidence: z.object({ context: z.string(), stack: z.string(), zero_page: z.string(), globals: z.string().nullable() }),
});

export const RunRecordSchema = z.object({
  run_record_schema_version: z.literal(RUN_RECORD_SCHEMA_VERSION),
  run_id: Uuid,
  job_id: z.string(),
  test: z.string(),
  target: TargetNameSchema,
  target_identity: z.record(z.string(), z.unknown()),
  emulation: z.boolean(),
  candidate: z.object({
    artifact_sha256: Sha256.nullable(),
    artifact_name: z.string(),
    build: z.record(z.string(), z.unknown()),
  }),
  started_at: Timestamp,
  finished_at: Timestamp,
  timings: z.record(z.string(), z.number()),
  expectations: z.record(z.string(), z.unknown()),
  observations: z.record(z.string(), z.unknown()),
  status: RunStatusSchema,
  status_reason: z.string(),
  screen_match: ScreenMatchResultSchema.nullable(),
  supporting_artifacts: z.array(SupportingArtifactSchema),
  evidence: z.array(EvidenceEntrySchema),
  crash_state: CrashStateSchema.nullable(),
  comparison: z.record(z.string(), z.unknown()).nullable(),
  machine: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'the machine the run ran on: cia_model, video, vic_revision, reu_kb, how the target was told (applied_as: x64sc flags or configuration items), speed (max, real-time, warp or hardware)',
    ),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

export const RunSummarySchema = z.object({
  run_id: Uuid,
  job_id: z.string(),
  test: z.string(),
  target: TargetNameSchema,
  status: RunStatusSchema,
  emulation: z.boolean(),
  artifact_sha256: Sha256.nullable(),
  started_at: Timestamp,
  finished_at: Timestamp,
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const TargetInfoSchema = z.object({
  target: TargetNameSchema,
  available: z.boolean(),
  reason: z.string().nullable(),
  emulation: z.boolean(),
  description: z.string(),
  identity: z.record(z.string(), z.unknown()).optional(),
});
export type TargetInfo = z.infer<typeof TargetInfoSchema>;

export const ProbeSchema = z.object({
  probe_id: z.string(),
  expires_at: Timestamp,
  strict_gate: z.boolean(),
  identity: z.record(z.string(), z.unknown()),
  firmware: z.string(),
  core: z.string(),
  capabilities: z.array(z.string()),
  emulation: z.boolean(),
});
export type Probe = z.infer<typeof ProbeSchema>;

export const EvidenceReadSchema = z.object({
  name: z.string(),
  media_type: z.string(),
  size: z.number().int(),
  sha256: Sha256,
  kind: z.enum(['text', 'image', 'binary']),
  text: z.string().optional(),
  base64: z.string().optional(),
});

const envelope = <T extends z.ZodRawShape>(shape: T) => z.object({ api_schema_version: z.literal(API_SCHEMA_VERSION), ...shape });

export const ProjectPayloadSchema = envelope({
  project: z.object({
    root: z.string(),
    manifest: z.record(z.string(), z.unknown()),
    tests: z.array(z.record(z.string(), z.unknown())),
    ultimate_reu_image: z.string().nullable(),
  }),
});
export const TargetsPayloadSchema = envelope({ targets: z.array(TargetInfoSchema) });
export const RunsPayloadSchema = envelope({ runs: z.array(RunSummarySchema), next_cursor: z.string().nullable() });
export const RunPayloadSchema = envelope({ run: RunRecordSchema });
export const EvidencePayloadSchema = envelope({ evidence: EvidenceReadSchema });
export const JobPayloadSchema = envelope({ job: JobSchema });
export const JobsPayloadSchema = envelope({ jobs: z.array(JobSchema) });
export const ActiveJobPayloadSchema = envelope({ job: JobSchema.nullable() });
export const ProbePayloadSchema = envelope({ probe: ProbeSchema });
// The inner contracts' results as the MCP contract names them (resolver schema 2, comparison
// schema 1: every result a successful answer); their other fields are the symbols module's.
export const ResolvePayloadSchema = envelope({
  resolver_schema_version: z.literal(2),
  result: z.enum(['resolved', 'ambiguous', 'unmapped', 'unavailable']),
  address: z.number().int(),
  address_hex: z.string(),
  symbols: z.array(z.unknown()),
}).loose();
export const ComparisonPayloadSchema = envelope({
  comparison_schema_version: z.literal(1),
  result: z.enum(['compared', 'unavailable', 'incompatible']),
}).loose();

// ---- memory checkpoints (docs/ultimate/CHECKPOINT_COMPARISON.md) ----

export const CheckpointCompareQuerySchema = z.strictObject({ baseline: Uuid, candidate: Uuid });
export const CheckpointComparisonsQuerySchema = z.strictObject({
  limit: queryCount(CHECKPOINT_COMPARISONS_LIMIT_MAX, 50, `1-${CHECKPOINT_COMPARISONS_LIMIT_MAX}, default 50`),
});
export const CheckpointComparisonPayloadSchema = envelope({
  checkpoint_comparison_schema_version: z.literal(1),
  provisional: z.literal(true),
  result: z.enum(['matched', 'diverged', 'incompatible', 'unavailable']),
}).loose();
export const CheckpointComparisonsPayloadSchema = envelope({
  checkpoint_comparison_record_schema_version: z.literal(1),
  checkpoint_comparisons: z.array(z.record(z.string(), z.unknown())),
});
export const CheckpointComparisonRecordPayloadSchema = envelope({
  checkpoint_comparison_record_schema_version: z.literal(1),
  checkpoint_comparison: z.record(z.string(), z.unknown()),
});
// ---- debug-stream captures (captures.ts) ----

export const CapturePrepareRequestSchema = z.strictObject({
  probe_id: ProbeId,
  receiver_ipv4: Ipv4.describe('an IPv4 address of this machine the device can reach; the service receives the stream there'),
  strict_gate: z.boolean().default(false),
});
export const SourceLinkedPrepareRequestSchema = CapturePrepareRequestSchema.extend({
  test: TestName.describe('the project test to run while capturing (currently timeline-probe)'),
});
const Count = ConfirmedCount;
export const CaptureStartRequestSchema = z.strictObject({ confirmed_stream_start_count: Count, confirmed_stream_stop_count: Count });
export const SourceLinkedStartRequestSchema = CaptureStartRequestSchema.extend({ confirmed_reset_count: Count });

export const PreparationPayloadSchema = envelope({ preparation: z.record(z.string(), z.unknown()) });
export const CaptureStartPayloadSchema = envelope({ capture: z.record(z.string(), z.unknown()), run: RunRecordSchema });

// ---- run analyses (run-analyses.ts) ----

export const TimelineQuerySchema = z.strictObject({
  cursor: TimelineCursor.optional().describe('DATAGRAM_ORDINAL:ENTRY_INDEX'),
  limit: z.string().max(12).optional().describe('1-4096, default 256'),
  address_from: z.string().max(12).optional().describe('decimal, $ABCD or 0xABCD'),
  address_to: z.string().max(12).optional(),
  access: z.string().max(12).optional().describe('read or write'),
  context: Context.optional(),
});
export const DiagnosticItemsQuerySchema = z.strictObject({
  section: DiagnosticSection,
  limit: z.string().max(12).optional().describe('1-100, default 50'),
  cursor: DiagnosticCursor.optional(),
});
export const NoQuerySchema = z.strictObject({});
export const CrashReportQuerySchema = z.strictObject({ context: Context.optional() });

export const TimelinePayloadSchema = envelope({
  mode: z.enum(['bus_only', 'source_linked']),
  rows: z.array(z.record(z.string(), z.unknown())),
  next_cursor: z.string().nullable(),
}).loose();
export const DiagnosticReportPayloadSchema = envelope({
  diagnostic_report_schema_version: z.literal(1),
  status: z.enum(['finalized', 'provisional']),
}).loose();
/** One page of a diagnostic report section (GET /v13/runs/{run_id}/diagnostic-items). */
export const DiagnosticItemsPayloadSchema = envelope({
  diagnostic_report_schema_version: z.literal(1),
  section: z.string(),
  items: z.array(z.unknown()),
  next_cursor: z.string().nullable(),
}).loose();
export const CrashReportPayloadSchema = envelope({ crash_analysis_schema_version: z.literal(2) }).loose();
