// The tools of ultimate-tool-mcp. Each validates its input locally (closed zod schemas),
// forwards to one route of the service and returns the service's answer as the envelope's data.
// Nothing is computed here: no builds, no device access, no evidence reading of the adapter's own.
import { type SchemaAdvertiser, ToolRegistry, type ToolAnnotations, toolResult } from '../../src/index.js';
import {
  ActiveJobBodySchema,
  CheckpointComparisonBodySchema,
  CheckpointComparisonRecordBodySchema,
  CheckpointComparisonsBodySchema,
  ComparisonBodySchema,
  type EvidenceBody,
  EvidenceBodySchema,
  JobBodySchema,
  ProbeBodySchema,
  ProjectBodySchema,
  ResolveBodySchema,
  RunBodySchema,
  RunsBodySchema,
  TargetsBodySchema,
  CaptureStartBodySchema,
  CrashReportBodySchema,
  DiagnosticItemsBodySchema,
  DiagnosticReportBodySchema,
  PreparationBodySchema,
  TimelineBodySchema,
} from './api-schemas.js';
import { ultimateEnvelope } from './envelope.js';
import { reportJobRuns } from './job-progress.js';
import {
  CompareRunCheckpointsArgs,
  GetCheckpointComparisonArgs,
  ListCheckpointComparisonsArgs,
  CompareRunsArgs,
  GetJobArgs,
  GetRunArgs,
  ListRunsArgs,
  NoArgs,
  ProbeArgs,
  ReadEvidenceArgs,
  ResolveAddressArgs,
  StartSuiteJobArgs,
  StartTestJobArgs,
  CancelPreparationArgs,
  GetCrashReportArgs,
  GetDiagnosticItemsArgs,
  GetDiagnosticReportArgs,
  GetRunTimelineArgs,
  PrepareDebugStreamCaptureArgs,
  PrepareSourceLinkedCaptureArgs,
  StartDebugStreamCaptureArgs,
  StartSourceLinkedCaptureArgs,
} from './input-schemas.js';
import { NATIVE_TOOL_NAMES, defineNativeTools } from './native-tools.js';
import { ultimateSchemaAdvertiser } from './advertised-schemas.js';
import type { CaptureProgress, UltimateServiceClient } from './service-client.js';

/** The tool names of this issue, exactly as the contract spells them. */
export const ULTIMATE_TOOL_NAMES = [
  'get_project',
  'list_targets',
  'list_runs',
  'get_run',
  'get_job',
  'get_active_job',
  'probe_ultimate',
  'start_test_job',
  'start_suite_job',
  'read_evidence',
  'compare_runs',
  'resolve_address',
  'compare_run_checkpoints',
  'list_checkpoint_comparisons',
  'get_checkpoint_comparison',
  'get_run_timeline',
  'get_run_diagnostic_report',
  'get_run_diagnostic_items',
  'get_crash_report',
  'prepare_debug_stream_capture',
  'cancel_debug_stream_capture_preparation',
  'start_debug_stream_capture',
  'prepare_source_linked_capture',
  'start_source_linked_capture',
  ...NATIVE_TOOL_NAMES,
] as const;

// destructiveHint and idempotentHint are left out: MCP gives them meaning only when readOnlyHint is false.
const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** `advertise`: how tools/list shows the schemas (default: the short forms; `{}` shows them whole). */
export function createUltimateTools(client: UltimateServiceClient, advertise: SchemaAdvertiser = ultimateSchemaAdvertiser): ToolRegistry {
  const tools = new ToolRegistry({ envelope: ultimateEnvelope, advertise });

  tools.define({
    name: 'get_project',
    title: 'Get the project',
    description:
      'The C64 project: its manifest (build, artifact, symbol files, tests, native_programs) and ' +
      'ultimate_reu_image (a path or null). Read it first.',
    input: NoArgs,
    output: ProjectBodySchema,
    annotations: READ,
    handler: (_args, ctx) => client.getProject({ signal: ctx.signal }),
  });

  tools.define({
    name: 'list_targets',
    title: 'List targets',
    description: 'The targets vice and ultimate: available or why not, emulation or not, identity.',
    input: NoArgs,
    output: TargetsBodySchema,
    annotations: READ,
    handler: (_args, ctx) => client.listTargets({ signal: ctx.signal }),
  });

  tools.define({
    name: 'list_runs',
    title: 'List runs',
    description: 'Immutable runs, newest first, optionally of one test or target; page with cursor = next_cursor.',
    input: ListRunsArgs,
    output: RunsBodySchema,
    annotations: READ,
    handler: (args, ctx) => client.listRuns(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_run',
    title: 'Get a run',
    description:
      "One run's immutable record (schema 9): identity, artifact, timings, expectations, observations, " +
      'status, evidence names, crash_state, comparison.',
    input: GetRunArgs,
    output: RunBodySchema,
    annotations: READ,
    handler: ({ run_id }, ctx) => client.getRun(run_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_job',
    title: 'Get a job',
    description:
      "A job's state (queued, running, finished, failed, cancelled), progress and, once finished, its " +
      'run_ids. Poll it after a start_* tool.',
    input: GetJobArgs,
    output: JobBodySchema,
    annotations: { ...READ, idempotentHint: false },
    // With a progressToken: one progress notification, runs finished out of planned (job-progress.ts).
    handler: async ({ job_id }, ctx) => {
      const body = await client.getJob(job_id, { signal: ctx.signal });
      reportJobRuns(ctx, body.job);
      return body;
    },
  });

  tools.define({
    name: 'get_active_job',
    title: 'Get the active job',
    description: 'The job running now, or null.',
    input: NoArgs,
    output: ActiveJobBodySchema,
    annotations: { ...READ, idempotentHint: false },
    handler: async (_args, ctx) => {
      const body = await client.getActiveJob({ signal: ctx.signal });
      reportJobRuns(ctx, body.job);
      return body;
    },
  });

  tools.define({
    name: 'probe_ultimate',
    title: 'Probe the Ultimate',
    description:
      "Reads the Ultimate's identity, firmware, core and capabilities; returns a single-use probe_id valid " +
      '5 minutes; touches nothing. Safety: show the identity to the user and get their explicit ' +
      'confirmation of the reset count (and REU write count if get_project has an ultimate_reu_image) ' +
      'before start_test_job.',
    input: ProbeArgs,
    output: ProbeBodySchema,
    annotations: { destructiveHint: false, openWorldHint: false },
    handler: (args, ctx) => client.probeUltimate(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_test_job',
    title: 'Start a test job',
    description:
      'Builds cleanly and runs one test repeat times per target; returns the queued job (poll get_job, then ' +
      'get_run each run_id). Safety: the ultimate target resets the device: pass probe_id and the ' +
      'user-confirmed confirmed_reset_count (= repeat) and confirmed_reu_write_count (= repeat with an REU ' +
      'image, else 0).',
    input: StartTestJobArgs,
    output: JobBodySchema,
    annotations: { destructiveHint: true, openWorldHint: false },
    handler: (args, ctx) => client.startTestJob(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_suite_job',
    title: 'Start a suite job',
    description:
      'Every test of the project (or those named) in one job: one build, then each test repeat times per ' +
      'target, side by side on the vice pool; poll get_job (progress.statuses counts the runs by status). ' +
      'Safety: with the ultimate target pass probe_id and confirmed_reset_count = tests × repeat.',
    input: StartSuiteJobArgs,
    output: JobBodySchema,
    annotations: { destructiveHint: true, openWorldHint: false },
    handler: (args, ctx) => client.startSuiteJob(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'read_evidence',
    title: 'Read evidence',
    description:
      'One evidence file of a run by name: text up to 128 KiB, a PNG up to 4 MiB as an image, other ' + 'binaries as size and SHA-256.',
    input: ReadEvidenceArgs,
    output: EvidenceBodySchema,
    annotations: READ,
    handler: async ({ run_id, name }, ctx) => asEvidenceResult(await client.readEvidence(run_id, name, { signal: ctx.signal })),
  });

  tools.define({
    name: 'compare_runs',
    title: 'Compare runs',
    description:
      "Compares two runs' outcome, timing/budget and map-file sizes (comparison schema 1); compared, " +
      'unavailable and incompatible are successful results.',
    input: CompareRunsArgs,
    output: ComparisonBodySchema,
    annotations: READ,
    handler: ({ baseline_run_id, candidate_run_id, context }, ctx) =>
      client.compareRuns(baseline_run_id, candidate_run_id, context, { signal: ctx.signal }),
  });

  tools.define({
    name: 'resolve_address',
    title: 'Resolve an address',
    description:
      "Resolves a C64 address against a run's own labels (resolver schema 2); resolved, ambiguous, " +
      'unmapped and unavailable are successful results.',
    input: ResolveAddressArgs,
    output: ResolveBodySchema,
    annotations: READ,
    handler: ({ run_id, address, context }, ctx) => client.resolveAddress(run_id, String(address), context, { signal: ctx.signal }),
  });

  tools.define({
    name: 'compare_run_checkpoints',
    title: 'Compare run checkpoints',
    description: "Compares two runs' memory checkpoints (checkpoint_comparison_schema_version 1, provisional, stores " + 'nothing).',
    input: CompareRunCheckpointsArgs,
    output: CheckpointComparisonBodySchema,
    annotations: READ,
    handler: ({ baseline_run_id, candidate_run_id }, ctx) =>
      client.compareRunCheckpoints(baseline_run_id, candidate_run_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'list_checkpoint_comparisons',
    title: 'List checkpoint comparisons',
    description:
      'Stored checkpoint pair records of compare_checkpoints jobs ' + '(checkpoint_comparison_record_schema_version 1), newest first.',
    input: ListCheckpointComparisonsArgs,
    output: CheckpointComparisonsBodySchema,
    annotations: { ...READ, idempotentHint: false },
    handler: ({ limit }, ctx) => client.listCheckpointComparisons(limit, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_checkpoint_comparison',
    title: 'Get a checkpoint comparison',
    description: 'One stored checkpoint pair record by comparison_id: its VICE and Ultimate runs and the full ' + 'comparison.',
    input: GetCheckpointComparisonArgs,
    output: CheckpointComparisonRecordBodySchema,
    annotations: READ,
    handler: ({ comparison_id }, ctx) => client.getCheckpointComparison(comparison_id, { signal: ctx.signal }),
  });

  defineAnalysisTools(tools, client);
  defineCaptureTools(tools, client);
  defineNativeTools(tools, client);
  return tools;
}

/** Timeline, diagnostic report and items, crash report: forwarded without local decoding. */
function defineAnalysisTools(tools: ToolRegistry, client: UltimateServiceClient): void {
  tools.define({
    name: 'get_run_timeline',
    title: 'Get a run timeline',
    description:
      "One page of a run's captured 6510 bus trace (accesses, gap and uncertainty rows; source_linked runs " +
      'resolve rows to source). Page with cursor = next_cursor.',
    input: GetRunTimelineArgs,
    output: TimelineBodySchema,
    annotations: READ,
    handler: ({ run_id, ...query }, ctx) => client.getRunTimeline(run_id, query, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_run_diagnostic_report',
    title: 'Get a run diagnostic report',
    description:
      "A run's diagnostic report (diagnostic_report_schema_version 1): status, expected versus observed, " +
      'evidence integrity, summaries, row counts per section.',
    input: GetDiagnosticReportArgs,
    output: DiagnosticReportBodySchema,
    annotations: READ,
    handler: ({ run_id }, ctx) => client.getDiagnosticReport(run_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_run_diagnostic_items',
    title: 'Get run diagnostic items',
    description: 'One page of rows of a diagnostic report section; page with cursor = next_cursor.',
    input: GetDiagnosticItemsArgs,
    output: DiagnosticItemsBodySchema,
    annotations: READ,
    handler: ({ run_id, ...query }, ctx) => client.getDiagnosticItems(run_id, query, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_crash_report',
    title: 'Get a crash report',
    description:
      "A crashed run's crash report (crash_analysis_schema_version 2): registers, crash site and stack " +
      "return addresses resolved against the run's labels, zero page, globals.",
    input: GetCrashReportArgs,
    output: CrashReportBodySchema,
    annotations: READ,
    handler: ({ run_id, context }, ctx) => client.getCrashReport(run_id, context, { signal: ctx.signal }),
  });
}

// readOnlyHint: false and idempotentHint: false are MCP's defaults, so they are not sent.
const PREPARE: ToolAnnotations = { destructiveHint: false, openWorldHint: false };
const START: ToolAnnotations = { destructiveHint: true, openWorldHint: false };

/**
 * MCP progress of a capture (when the caller sent a progressToken): datagrams received out of the
 * bound, reported only when the count grew (progress must increase).
 */
function datagramProgress(ctx: { progress(progress: number, total?: number, message?: string): void }): (p: CaptureProgress) => void {
  let last = -1;
  return (p) => {
    if (p.datagrams <= last) return;
    last = p.datagrams;
    ctx.progress(p.datagrams, p.max_datagrams ?? undefined, `${p.datagrams} debug-stream datagrams received`);
  };
}

/** The two-step local-receiver captures: the service receives the UDP stream, never the adapter. */
function defineCaptureTools(tools: ToolRegistry, client: UltimateServiceClient): void {
  tools.define({
    name: 'prepare_debug_stream_capture',
    title: 'Prepare a debug-stream capture',
    description:
      'Step 1 of a debug-stream capture: consumes a probe_id, returns the pinned identity, stream ' +
      'configuration and limits; touches nothing. Safety: show it to the user, then ' +
      'start_debug_stream_capture with the counts they confirmed, or cancel.',
    input: PrepareDebugStreamCaptureArgs,
    output: PreparationBodySchema,
    annotations: PREPARE,
    handler: (args, ctx) => client.prepareCapture('debug-stream', args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'cancel_debug_stream_capture_preparation',
    title: 'Cancel a capture preparation',
    description: 'Cancels a debug-stream or source-linked capture preparation; no hardware access.',
    input: CancelPreparationArgs,
    output: PreparationBodySchema,
    annotations: PREPARE,
    handler: ({ preparation_id }, ctx) => client.cancelCapturePreparation('debug-stream', preparation_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_debug_stream_capture',
    title: 'Start a debug-stream capture',
    description:
      'Step 2: streams the bus to the service until a limit and records a run with the capture. Safety: ' +
      'both counts 1, as the user confirmed; an ambiguous failure is never retried.',
    input: StartDebugStreamCaptureArgs,
    output: CaptureStartBodySchema,
    annotations: START,
    handler: ({ preparation_id, ...counts }, ctx) =>
      client.startCapture('debug-stream', preparation_id, counts, { signal: ctx.signal, onProgress: datagramProgress(ctx) }),
  });

  tools.define({
    name: 'prepare_source_linked_capture',
    title: 'Prepare a source-linked capture',
    description:
      'Step 1 of a source-linked capture: consumes a probe_id, builds the test, checks its debug info, ' +
      'returns identity, stream configuration, limits and prerequisites; touches nothing. Show it to the ' +
      'user.',
    input: PrepareSourceLinkedCaptureArgs,
    output: PreparationBodySchema,
    annotations: PREPARE,
    handler: (args, ctx) => client.prepareCapture('source-linked', args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_source_linked_capture',
    title: 'Start a source-linked capture',
    description:
      'Step 2: resets, runs the test while streaming, verifies the evidence and records a run whose ' +
      'timeline resolves to source. Safety: all three counts 1, as the user confirmed; never retried.',
    input: StartSourceLinkedCaptureArgs,
    output: CaptureStartBodySchema,
    annotations: START,
    handler: ({ preparation_id, ...counts }, ctx) =>
      client.startCapture('source-linked', preparation_id, counts, { signal: ctx.signal, onProgress: datagramProgress(ctx) }),
  });
}

/**
 * A PNG travels as MCP image content (and not a second time as base64 inside the JSON); text
 * stays inline; any other binary is size and SHA-256 only, whatever the service sent.
 */
function asEvidenceResult(body: EvidenceBody) {
  const { base64, ...evidence } = body.evidence;
  const data: EvidenceBody = { ...body, evidence };
  if (evidence.kind === 'image' && base64 !== undefined) {
    return toolResult(data, { extraContent: [{ type: 'image', data: base64, mimeType: evidence.media_type }] });
  }
  return toolResult(data);
}
