// The tools of ultimate-tool-mcp. Each validates its input locally (closed zod schemas),
// forwards to one route of the service and returns the service's answer as the envelope's data.
// Nothing is computed here: no builds, no device access, no evidence reading of the adapter's own.
import { ToolRegistry, type ToolAnnotations, toolResult } from '../../src/index.js';
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

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export function createUltimateTools(client: UltimateServiceClient): ToolRegistry {
  const tools = new ToolRegistry({ envelope: ultimateEnvelope });

  tools.define({
    name: 'get_project',
    title: 'Get the project',
    description:
      'The C64 project the service serves: root, validated ultimate-tool.json manifest (build command, artifact, ' +
      'label/map files, tests with their expectations and budgets) and ultimate_reu_image (a path or null).',
    input: NoArgs,
    output: ProjectBodySchema,
    annotations: READ,
    handler: (_args, ctx) => client.getProject({ signal: ctx.signal }),
  });

  tools.define({
    name: 'list_targets',
    title: 'List targets',
    description: 'The targets (vice, ultimate), each with available, the reason when not, whether it is an emulation, and its identity.',
    input: NoArgs,
    output: TargetsBodySchema,
    annotations: READ,
    handler: (_args, ctx) => client.listTargets({ signal: ctx.signal }),
  });

  tools.define({
    name: 'list_runs',
    title: 'List runs',
    description:
      'Immutable runs, newest first: limit 1-100 (default 20), cursor = next_cursor of the previous page, optional test and target filters.',
    input: ListRunsArgs,
    output: RunsBodySchema,
    annotations: READ,
    handler: (args, ctx) => client.listRuns(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_run',
    title: 'Get a run',
    description:
      'The complete run record (schema 9) of one run: target and identity, candidate artifact, timings, expectations and ' +
      'observations, status, screen_match, supporting artifacts, registered evidence, crash_state and comparison.',
    input: GetRunArgs,
    output: RunBodySchema,
    annotations: READ,
    handler: ({ run_id }, ctx) => client.getRun(run_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_job',
    title: 'Get a job',
    description: 'A job by job_id: state (queued, running, finished, failed, cancelled), progress and, when finished, its run_ids.',
    input: GetJobArgs,
    output: JobBodySchema,
    annotations: { ...READ, idempotentHint: false },
    handler: ({ job_id }, ctx) => client.getJob(job_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_active_job',
    title: 'Get the active job',
    description: 'The job running now, or null.',
    input: NoArgs,
    output: ActiveJobBodySchema,
    annotations: { ...READ, idempotentHint: false },
    handler: (_args, ctx) => client.getActiveJob({ signal: ctx.signal }),
  });

  tools.define({
    name: 'probe_ultimate',
    title: 'Probe the Ultimate',
    description:
      'Read the Ultimate device identity, firmware, core and capabilities and get a five-minute, single-use probe_id. ' +
      'Does not reset or deploy anything. Present the identity for review and get explicit confirmation of the reset ' +
      'count (and of the REU write count when get_project has an ultimate_reu_image) before start_test_job. ' +
      'strict_gate: true requests a strict probe, required by a strict_gate job.',
    input: ProbeArgs,
    output: ProbeBodySchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: (args, ctx) => client.probeUltimate(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_test_job',
    title: 'Start a test job',
    description:
      'Build the project cleanly and run one test on the given targets (repeat times each); returns the queued job at once ' +
      '(poll get_job until finished, then read its run_ids). For the ultimate target pass probe_id, ' +
      'confirmed_reset_count (= repeat) and confirmed_reu_write_count (= repeat with an REU image, else 0). ' +
      'baseline_run_id compares the candidate build with that run; strict_gate fails closed on the first error. ' +
      'compare_checkpoints: true runs the VICE-then-Ultimate memory-checkpoint matrix (targets exactly vice then ultimate, ' +
      'repeat 1, a test with memory_checkpoint_capture) and stores a pair record named by the job’s checkpoint_comparison_id.',
    input: StartTestJobArgs,
    output: JobBodySchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handler: (args, ctx) => client.startTestJob(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'read_evidence',
    title: 'Read evidence',
    description:
      'One evidence file registered in a run: text up to 128 KiB inline, a PNG up to 4 MiB as image content, any other ' +
      'binary as size and SHA-256 only. Names only, never paths.',
    input: ReadEvidenceArgs,
    output: EvidenceBodySchema,
    annotations: READ,
    handler: async ({ run_id, name }, ctx) => asEvidenceResult(await client.readEvidence(run_id, name, { signal: ctx.signal })),
  });

  tools.define({
    name: 'compare_runs',
    title: 'Compare runs',
    description:
      'Compare two runs (comparison schema 1): outcome, timing/budget and section/object/symbol size differences from their ' +
      'snapshotted map files. compared, unavailable and incompatible are all successful results.',
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
      'Resolve a C64 address (decimal, $ABCD or 0xABCD) against the run’s own snapshotted labels (resolver schema 2): ' +
      'resolved, ambiguous, unmapped or unavailable, all successful results. context selects an exact scope.',
    input: ResolveAddressArgs,
    output: ResolveBodySchema,
    annotations: READ,
    handler: ({ run_id, address, context }, ctx) => client.resolveAddress(run_id, String(address), context, { signal: ctx.signal }),
  });

  tools.define({
    name: 'compare_run_checkpoints',
    title: 'Compare run checkpoints',
    description:
      'Provisional, read-only memory-checkpoint comparison of two runs (checkpoint_comparison_schema_version 1): ' +
      'matched, diverged (each differing address run with both sides’ bytes), incompatible and unavailable are all ' +
      'successful results. Stores nothing. An altered checkpoints.json is a checkpoint_comparison_failed error.',
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
      'Stored checkpoint pair records of compare_checkpoints jobs (checkpoint_comparison_record_schema_version 1), ' +
      'newest first, without the full comparison: limit 1-200, default 50.',
    input: ListCheckpointComparisonsArgs,
    output: CheckpointComparisonsBodySchema,
    annotations: { ...READ, idempotentHint: false },
    handler: ({ limit }, ctx) => client.listCheckpointComparisons(limit, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_checkpoint_comparison',
    title: 'Get a checkpoint comparison',
    description:
      'One stored checkpoint pair record by comparison_id, with its VICE and Ultimate runs and the full comparison. ' +
      'An unknown or corrupt pair is a checkpoint_comparison_failed error.',
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
      'One page of a run’s checksummed 6510 debug-stream capture: bus accesses (address, data, read/write, control lines), ' +
      'gap rows where datagrams were lost and uncertainty rows where the bus state cannot be trusted. Mode bus_only, or ' +
      'source_linked when the run carries its own analysis (each row then resolves to file, line and symbol). No instruction, ' +
      'call or return labels. cursor DATAGRAM_ORDINAL:ENTRY_INDEX (next_cursor), limit 1-4096 (default 256), inclusive ' +
      'address_from/address_to, access read|write, exact context. Tampered evidence is a timeline_failed error.',
    input: GetRunTimelineArgs,
    output: TimelineBodySchema,
    annotations: READ,
    handler: ({ run_id, ...query }, ctx) => client.getRunTimeline(run_id, query, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_run_diagnostic_report',
    title: 'Get a run diagnostic report',
    description:
      'The diagnostic report (diagnostic_report_schema_version 1) of one run: status finalized or provisional, expectations, ' +
      'expected-versus-observed results, artifact, evidence integrity (every registered file re-hashed), nullable budget / ' +
      'comparison / checkpoints summaries and per-section row counts. Page the rows with get_run_diagnostic_items.',
    input: GetDiagnosticReportArgs,
    output: DiagnosticReportBodySchema,
    annotations: READ,
    handler: ({ run_id }, ctx) => client.getDiagnosticReport(run_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_run_diagnostic_items',
    title: 'Get run diagnostic items',
    description:
      'One page of a diagnostic report section: checkpoints, budget, comparison_sections, comparison_objects, ' +
      'comparison_symbols or assertions; limit 1-100 (default 50); cursor = next_cursor of the previous page (opaque).',
    input: GetDiagnosticItemsArgs,
    output: DiagnosticItemsBodySchema,
    annotations: READ,
    handler: ({ run_id, ...query }, ctx) => client.getDiagnosticItems(run_id, query, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_crash_report',
    title: 'Get a crash report',
    description:
      'The crash report (crash_analysis_schema_version 2) of a crashed run: capture-entry registers, the crash site resolved ' +
      'against the run’s own labels, the bounded stack decoded into candidate return addresses (each resolved), zero page and ' +
      'selected globals. resolved, ambiguous, unmapped and unavailable are successful results; malformed or altered inputs ' +
      'are crash_analysis_failed errors.',
    input: GetCrashReportArgs,
    output: CrashReportBodySchema,
    annotations: READ,
    handler: ({ run_id, context }, ctx) => client.getCrashReport(run_id, context, { signal: ctx.signal }),
  });
}

const PREPARE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const START: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

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
      'Step one of a debug-stream capture: consumes the probe_ultimate probe_id and returns a preparation (pinned device ' +
      'identity, the stream configuration the start will set — debug stream mode, destination address:port on receiver_ipv4 — ' +
      'and the limits: maximum datagrams and duration). Nothing touches the device. Review it, then call ' +
      'start_debug_stream_capture with both counts set to 1, or cancel_debug_stream_capture_preparation.',
    input: PrepareDebugStreamCaptureArgs,
    output: PreparationBodySchema,
    annotations: PREPARE,
    handler: (args, ctx) => client.prepareCapture('debug-stream', args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'cancel_debug_stream_capture_preparation',
    title: 'Cancel a capture preparation',
    description: 'Cancel a debug-stream or source-linked capture preparation without any hardware access.',
    input: CancelPreparationArgs,
    output: PreparationBodySchema,
    annotations: PREPARE,
    handler: ({ preparation_id }, ctx) => client.cancelCapturePreparation('debug-stream', preparation_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_debug_stream_capture',
    title: 'Start a debug-stream capture',
    description:
      'Step two: starts the debug stream toward the service’s receiver, records a verified capture file until a limit, stops ' +
      'the stream and records an immutable run (capture + timeline index as evidence). confirmed_stream_start_count and ' +
      'confirmed_stream_stop_count must both be exactly 1 (other values are refused before the preparation is used). An ' +
      'ambiguous failure is never retried and is reported as capture_ambiguous.',
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
      'Step one of a source-linked capture: consumes the probe_id, runs a clean candidate build of the test (currently ' +
      'timeline-probe), snapshots the artifact and validates its analysis inputs (the ld65 --dbgfile debug info), and returns ' +
      'the pinned identity, stream configuration, limits and prerequisites. Nothing touches the device.',
    input: PrepareSourceLinkedCaptureArgs,
    output: PreparationBodySchema,
    annotations: PREPARE,
    handler: (args, ctx) => client.prepareCapture('source-linked', args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_source_linked_capture',
    title: 'Start a source-linked capture',
    description:
      'Step two: starts the stream, resets and runs the test while capturing, stops the stream, verifies and registers the ' +
      'post-stop evidence (pass marker, screen text) and records one run carrying the capture and its own analysis, so its ' +
      'timeline rows resolve to source. confirmed_reset_count, confirmed_stream_start_count and confirmed_stream_stop_count ' +
      'must all be exactly 1. Capture-bound truncation is explicit in the run.',
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
