// What the adapter relies on in the service's answers (API schema 13, docs/ultimate/SERVICE-API.md).
// Loose objects: the service may add fields, and the adapter passes every field on unchanged; it
// only insists on the ones this contract names, so a wrong service is caught instead of relayed.
import { z } from 'zod';

export const API_SCHEMA_VERSION = 13;

const apiBody = <S extends z.ZodRawShape>(shape: S) => z.looseObject({ api_schema_version: z.literal(API_SCHEMA_VERSION), ...shape });

const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
export const TARGETS = ['vice', 'ultimate'] as const;
export const TargetSchema = z.enum(TARGETS);
export type Target = z.infer<typeof TargetSchema>;

export const JOB_STATES = ['queued', 'running', 'finished', 'failed', 'cancelled'] as const;

export const JobSchema = z.looseObject({
  job_id: z.string(),
  state: z.enum(JOB_STATES),
  test: z.string(),
  targets: z.array(TargetSchema),
  repeat: z.number().int(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  progress: z.looseObject({ completed_runs: z.number().int(), total_runs: z.number().int(), phase: z.string() }),
  run_ids: z.array(Uuid),
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
});
export type Job = z.infer<typeof JobSchema>;

export const RUN_STATUSES = ['passed', 'failed', 'crashed', 'timed_out', 'error'] as const;

export const RunRecordSchema = z.looseObject({
  run_record_schema_version: z.literal(9),
  run_id: Uuid,
  job_id: z.string(),
  test: z.string(),
  target: TargetSchema,
  emulation: z.boolean(),
  status: z.enum(RUN_STATUSES),
  supporting_artifacts: z.array(
    z.looseObject({ role: z.string(), format: z.string(), name: z.string(), size: z.number(), sha256: z.string() }),
  ),
  evidence: z.array(z.looseObject({ name: z.string(), media_type: z.string(), size: z.number(), sha256: z.string() })),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

export const RunSummarySchema = z.looseObject({ run_id: Uuid });

export const ProjectBodySchema = apiBody({
  project: z.looseObject({
    root: z.string(),
    manifest: z.looseObject({}),
    tests: z.array(z.unknown()),
    ultimate_reu_image: z.string().nullable(),
  }),
});
export const TargetsBodySchema = apiBody({
  targets: z.array(
    z.looseObject({
      target: TargetSchema,
      available: z.boolean(),
      reason: z.string().nullable(),
      emulation: z.boolean(),
      description: z.string(),
    }),
  ),
});
export const RunsBodySchema = apiBody({ runs: z.array(RunSummarySchema), next_cursor: z.string().nullable() });
export const RunBodySchema = apiBody({ run: RunRecordSchema });
export const JobBodySchema = apiBody({ job: JobSchema });
export const ActiveJobBodySchema = apiBody({ job: JobSchema.nullable() });
export const ProbeBodySchema = apiBody({
  probe: z.looseObject({
    probe_id: z.string(),
    expires_at: z.string(),
    strict_gate: z.boolean(),
    identity: z.looseObject({}),
    firmware: z.unknown(),
    core: z.unknown(),
    capabilities: z.array(z.unknown()),
    emulation: z.boolean(),
  }),
});
export const EVIDENCE_KINDS = ['text', 'image', 'binary'] as const;
export const EvidenceBodySchema = apiBody({
  evidence: z.looseObject({
    name: z.string(),
    media_type: z.string(),
    size: z.number().int().nonnegative(),
    sha256: z.string(),
    kind: z.enum(EVIDENCE_KINDS),
    text: z.string().optional(),
    base64: z.string().optional(),
  }),
});
export const ResolveBodySchema = apiBody({
  resolver_schema_version: z.literal(2),
  result: z.enum(['resolved', 'ambiguous', 'unmapped', 'unavailable']),
  address: z.number().int(),
  address_hex: z.string(),
  symbols: z.array(z.unknown()),
});
export const ComparisonBodySchema = apiBody({
  comparison_schema_version: z.literal(1),
  result: z.enum(['compared', 'unavailable', 'incompatible']),
});

export type ProjectBody = z.infer<typeof ProjectBodySchema>;
export type TargetsBody = z.infer<typeof TargetsBodySchema>;
export type RunsBody = z.infer<typeof RunsBodySchema>;
export type RunBody = z.infer<typeof RunBodySchema>;
export type JobBody = z.infer<typeof JobBodySchema>;
export type ActiveJobBody = z.infer<typeof ActiveJobBodySchema>;
export type ProbeBody = z.infer<typeof ProbeBodySchema>;
export type EvidenceBody = z.infer<typeof EvidenceBodySchema>;
export type ResolveBody = z.infer<typeof ResolveBodySchema>;
export type ComparisonBody = z.infer<typeof ComparisonBodySchema>;

// Memory checkpoints (docs/ultimate/CHECKPOINT_COMPARISON.md).
export const CHECKPOINT_RESULTS = ['matched', 'diverged', 'incompatible', 'unavailable'] as const;
export const CheckpointComparisonBodySchema = apiBody({
  checkpoint_comparison_schema_version: z.literal(1),
  provisional: z.literal(true),
  result: z.enum(CHECKPOINT_RESULTS),
});
const CheckpointPairSummarySchema = z.looseObject({
  comparison_id: Uuid,
  checkpoint_comparison_record_schema_version: z.literal(1).optional(),
});
export const CheckpointComparisonsBodySchema = apiBody({
  checkpoint_comparison_record_schema_version: z.literal(1),
  checkpoint_comparisons: z.array(CheckpointPairSummarySchema),
});
export const CheckpointComparisonRecordBodySchema = apiBody({
  checkpoint_comparison_record_schema_version: z.literal(1),
  checkpoint_comparison: z.looseObject({
    checkpoint_comparison_record_schema_version: z.literal(1),
    comparison_id: Uuid,
    result: z.enum(CHECKPOINT_RESULTS),
    comparison: z.looseObject({ checkpoint_comparison_schema_version: z.literal(1), result: z.enum(CHECKPOINT_RESULTS) }),
  }),
});
export type CheckpointComparisonBody = z.infer<typeof CheckpointComparisonBodySchema>;
export type CheckpointComparisonsBody = z.infer<typeof CheckpointComparisonsBodySchema>;
export type CheckpointComparisonRecordBody = z.infer<typeof CheckpointComparisonRecordBodySchema>;

/** The service's failure body. */
export const ServiceErrorBodySchema = z.looseObject({
  api_schema_version: z.literal(API_SCHEMA_VERSION),
  error: z.looseObject({ code: z.string().min(1), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});

/** The body of POST /v13/jobs. */
export interface StartJobRequest {
  test: string;
  targets: Target[];
  repeat?: number;
  baseline_run_id?: string;
  strict_gate?: boolean;
  probe_id?: string;
  confirmed_reset_count?: number;
  confirmed_reu_write_count?: number;
  compare_checkpoints?: boolean;
}

/** The body of POST /v13/suite-jobs. */
export interface StartSuiteJobRequest {
  tests?: string[];
  targets: Target[];
  repeat?: number;
  strict_gate?: boolean;
  probe_id?: string;
  confirmed_reset_count?: number;
  confirmed_reu_write_count?: number;
}

export type ListRunsQuery = {
  limit?: number;
  cursor?: string;
  test?: string;
  target?: Target;
};

// ---- debug-stream captures and run analyses (docs/ultimate/CAPTURES.md) ----

export const PreparationBodySchema = apiBody({
  preparation: z.looseObject({ preparation_id: Uuid, kind: z.enum(['debug_stream', 'source_linked']), state: z.string() }),
});
export const CaptureStartBodySchema = apiBody({
  capture: z.looseObject({ preparation_id: Uuid, run_id: Uuid }),
  run: RunRecordSchema,
});
export const TimelineBodySchema = apiBody({
  mode: z.enum(['bus_only', 'source_linked']),
  rows: z.array(z.looseObject({ kind: z.enum(['bus', 'gap', 'uncertain']), cursor: z.string() })),
  next_cursor: z.string().nullable(),
});
export const DiagnosticReportBodySchema = apiBody({
  diagnostic_report_schema_version: z.literal(1),
  status: z.enum(['finalized', 'provisional']),
});
export const DiagnosticItemsBodySchema = apiBody({
  diagnostic_report_schema_version: z.literal(1),
  section: z.string(),
  items: z.array(z.unknown()),
  next_cursor: z.string().nullable(),
});
export const CrashReportBodySchema = apiBody({ crash_analysis_schema_version: z.literal(2) });

export type PreparationBody = z.infer<typeof PreparationBodySchema>;
export type CaptureStartBody = z.infer<typeof CaptureStartBodySchema>;
export type TimelineBody = z.infer<typeof TimelineBodySchema>;
export type DiagnosticReportBody = z.infer<typeof DiagnosticReportBodySchema>;
export type DiagnosticItemsBody = z.infer<typeof DiagnosticItemsBodySchema>;
export type CrashReportBody = z.infer<typeof CrashReportBodySchema>;
