// THE declaration of the MCP tools over HTTP API schema 13: per tool, the route it forwards to
// (routes.ts: path, method, request and response schemas), its title and description as the
// contract's tool list shows them, its hints, and its closed input (tool-inputs.ts). The adapter
// (adapters/ultimate/) generates its tools and its one generic request from this table, and the
// tables of docs/ultimate/MCP.md and SERVICE-API.md are checked against it
// (test/adapters/ultimate/doc-tables.test.ts). Pure data and schemas: an adapter may import it, and it
// imports nothing of the service (test/architecture/layering.test.ts).
//
// A new tool is one entry here (and its route in paths.ts + routes.ts, its handler in routes/):
// the adapter needs no code unless the tool does more than forward (a `follow` below).
import type { z } from 'zod';
import { pathParamNames, type RouteInput, type RouteName } from './paths.js';
import { ROUTES } from './routes.js';
import * as S from './schemas.js';
import * as T from './tool-inputs.js';

/** MCP tool hints, as plain data (this folder knows no MCP library). */
export interface ToolHints {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** What the adapter does beyond one request, by name (its code for each lives in the adapter). */
export type ToolFollow =
  /** the answer's job, if live, is reported as MCP progress (runs finished of planned) */
  | 'job-progress'
  /** a PNG goes out as MCP image content, other binaries as size and SHA-256 only */
  | 'evidence-content'
  /** the route queues a capture job; the tool follows it and answers `{capture, run}` */
  | 'capture-job';

export interface ToolSpec {
  readonly route: RouteName;
  readonly title: string;
  readonly description: string;
  readonly hints: ToolHints;
  /** The tool's closed input: its fields go to the route's path, query or body by name. */
  readonly input: z.ZodType;
  /** Tool argument → route field, where the names differ. */
  readonly rename?: Readonly<Record<string, string>>;
  /** The tool's data when it is not the route's response (a followed job's outcome). */
  readonly response?: z.ZodType;
  readonly follow?: ToolFollow;
  /** How long the route may take to answer when longer than the client's default (it builds, or re-probes). */
  readonly answerWithinMs?: number;
}

// destructiveHint and idempotentHint are left out of reads: MCP gives them meaning only when
// readOnlyHint is false; readOnlyHint: false and idempotentHint: false are MCP's defaults.
const READ: ToolHints = { readOnlyHint: true, openWorldHint: false };
/** A read whose answer changes while jobs move. */
const LIVE: ToolHints = { ...READ, idempotentHint: false };
/** Writes the service's own state (or only reads the device): nothing is destroyed. */
const LOCAL: ToolHints = { destructiveHint: false, openWorldHint: false };
/** Resets, streams or replaces what runs on the device. */
const DEVICE: ToolHints = { destructiveHint: true, openWorldHint: false };

const BASELINE_CANDIDATE = { baseline_run_id: 'baseline', candidate_run_id: 'candidate' } as const;

/** Every tool, in the order tools/list shows them. Names exactly as the contract spells them. */
export const TOOLS = {
  get_project: {
    route: 'getProject',
    title: 'Get the project',
    description:
      'The C64 project: its manifest (build, artifact, symbol files, tests, native_programs) and ' +
      'ultimate_reu_image (a path or null). Read it first.',
    hints: READ,
    input: T.NoArgs,
  },
  list_targets: {
    route: 'listTargets',
    title: 'List targets',
    description: 'The targets vice and ultimate: available or why not, emulation or not, identity.',
    hints: READ,
    input: T.NoArgs,
  },
  list_runs: {
    route: 'listRuns',
    title: 'List runs',
    description: 'Immutable runs, newest first, optionally of one test or target; page with cursor = next_cursor.',
    hints: READ,
    input: T.ListRunsArgs,
  },
  get_run: {
    route: 'getRun',
    title: 'Get a run',
    description:
      "One run's immutable record (schema 9): identity, artifact, timings, expectations, observations, " +
      'status, evidence names, crash_state, comparison.',
    hints: READ,
    input: T.GetRunArgs,
  },
  get_job: {
    route: 'getJob',
    title: 'Get a job',
    description:
      "A job's state (queued, running, finished, failed, cancelled), progress and, once finished, its " +
      'run_ids. Poll it after a start_* tool.',
    hints: LIVE,
    input: T.GetJobArgs,
    follow: 'job-progress',
  },
  get_active_job: {
    route: 'getActiveJob',
    title: 'Get the active job',
    description: 'The job running now, or null.',
    hints: LIVE,
    input: T.NoArgs,
    follow: 'job-progress',
  },
  probe_ultimate: {
    route: 'probeUltimate',
    title: 'Probe the Ultimate',
    description:
      "Reads the Ultimate's identity, firmware, core and capabilities; returns a single-use probe_id valid " +
      '5 minutes; touches nothing. Safety: show the identity to the user and get their explicit ' +
      'confirmation of the reset count (and REU write count if get_project has an ultimate_reu_image) ' +
      'before start_test_job.',
    hints: LOCAL,
    input: T.ProbeArgs,
  },
  start_test_job: {
    route: 'startTestJob',
    title: 'Start a test job',
    description:
      'Builds cleanly and runs one test repeat times per target; returns the queued job (poll get_job, then ' +
      'get_run each run_id). Safety: the ultimate target resets the device: pass probe_id and the ' +
      'user-confirmed confirmed_reset_count (= repeat) and confirmed_reu_write_count (= repeat with an REU ' +
      'image, else 0).',
    hints: DEVICE,
    input: T.StartTestJobArgs,
  },
  start_suite_job: {
    route: 'startSuiteJob',
    title: 'Start a suite job',
    description:
      'Every test of the project (or those named) in one job: one build, then each test repeat times per ' +
      'target, side by side on the vice pool; poll get_job (progress.statuses counts the runs by status). ' +
      'Safety: with the ultimate target pass probe_id and confirmed_reset_count = tests × repeat.',
    hints: DEVICE,
    input: T.StartSuiteJobArgs,
  },
  read_evidence: {
    route: 'readEvidence',
    title: 'Read evidence',
    description:
      'One evidence file of a run by name: text up to 128 KiB, a PNG up to 4 MiB as an image, other binaries as size and SHA-256.',
    hints: READ,
    input: T.ReadEvidenceArgs,
    follow: 'evidence-content',
  },
  compare_runs: {
    route: 'compareRuns',
    title: 'Compare runs',
    description:
      "Compares two runs' outcome, timing/budget and map-file sizes (comparison schema 1); compared, " +
      'unavailable and incompatible are successful results.',
    hints: READ,
    input: T.CompareRunsArgs,
    rename: BASELINE_CANDIDATE,
  },
  resolve_address: {
    route: 'resolveAddress',
    title: 'Resolve an address',
    description:
      "Resolves a C64 address against a run's own labels (resolver schema 2); resolved, ambiguous, " +
      'unmapped and unavailable are successful results.',
    hints: READ,
    input: T.ResolveAddressArgs,
  },
  compare_run_checkpoints: {
    route: 'compareRunCheckpoints',
    title: 'Compare run checkpoints',
    description: "Compares two runs' memory checkpoints (checkpoint_comparison_schema_version 1, provisional, stores nothing).",
    hints: READ,
    input: T.CompareRunCheckpointsArgs,
    rename: BASELINE_CANDIDATE,
  },
  list_checkpoint_comparisons: {
    route: 'listCheckpointComparisons',
    title: 'List checkpoint comparisons',
    description:
      'Stored checkpoint pair records of compare_checkpoints jobs (checkpoint_comparison_record_schema_version 1), newest first.',
    hints: LIVE,
    input: T.ListCheckpointComparisonsArgs,
  },
  get_checkpoint_comparison: {
    route: 'getCheckpointComparison',
    title: 'Get a checkpoint comparison',
    description: 'One stored checkpoint pair record by comparison_id: its VICE and Ultimate runs and the full comparison.',
    hints: READ,
    input: T.GetCheckpointComparisonArgs,
  },
  get_run_timeline: {
    route: 'getRunTimeline',
    title: 'Get a run timeline',
    description:
      "One page of a run's captured 6510 bus trace: CPU reads and writes, VIC half-cycles and cycles the CPU " +
      "did not drive (access 'vic'), gap and uncertainty rows; source_linked runs resolve rows to source. " +
      'Cycles count from the program start. Page with cursor = next_cursor.',
    hints: READ,
    input: T.GetRunTimelineArgs,
  },
  get_run_diagnostic_report: {
    route: 'getDiagnosticReport',
    title: 'Get a run diagnostic report',
    description:
      "A run's diagnostic report (diagnostic_report_schema_version 1): status, expected versus observed, " +
      'evidence integrity, summaries, row counts per section.',
    hints: READ,
    input: T.GetDiagnosticReportArgs,
  },
  get_run_diagnostic_items: {
    route: 'getDiagnosticItems',
    title: 'Get run diagnostic items',
    description: 'One page of rows of a diagnostic report section; page with cursor = next_cursor.',
    hints: READ,
    input: T.GetDiagnosticItemsArgs,
  },
  get_crash_report: {
    route: 'getCrashReport',
    title: 'Get a crash report',
    description:
      "A crashed run's crash report (crash_analysis_schema_version 2): registers, crash site and stack " +
      "return addresses resolved against the run's labels, zero page, globals.",
    hints: READ,
    input: T.GetCrashReportArgs,
  },
  prepare_debug_stream_capture: {
    route: 'prepareDebugStreamCapture',
    title: 'Prepare a debug-stream capture',
    description:
      'Step 1 of a debug-stream capture: consumes a probe_id, returns the pinned identity, stream ' +
      'configuration and limits; touches nothing. Safety: show it to the user, then ' +
      'start_debug_stream_capture with the counts they confirmed, or cancel.',
    hints: LOCAL,
    input: T.PrepareDebugStreamCaptureArgs,
    answerWithinMs: 120_000,
  },
  cancel_debug_stream_capture_preparation: {
    route: 'cancelDebugStreamPreparation',
    title: 'Cancel a capture preparation',
    description: 'Cancels a debug-stream or source-linked capture preparation; no hardware access.',
    hints: LOCAL,
    input: T.CancelPreparationArgs,
  },
  start_debug_stream_capture: {
    route: 'startDebugStreamCapture',
    title: 'Start a debug-stream capture',
    description:
      'Step 2: streams the bus to the service until a limit and records a run with the capture. Safety: ' +
      'both counts 1, as the user confirmed; an ambiguous failure is never retried.',
    hints: DEVICE,
    input: T.StartDebugStreamCaptureArgs,
    response: S.CaptureStartPayloadSchema,
    follow: 'capture-job',
  },
  prepare_source_linked_capture: {
    route: 'prepareSourceLinkedCapture',
    title: 'Prepare a source-linked capture',
    description:
      'Step 1 of a source-linked capture: consumes a probe_id, builds the test, checks its debug info, ' +
      'returns identity, stream configuration, limits and prerequisites; touches nothing. Show it to the user.',
    hints: LOCAL,
    input: T.PrepareSourceLinkedCaptureArgs,
    // It runs a clean build first.
    answerWithinMs: 120_000,
  },
  start_source_linked_capture: {
    route: 'startSourceLinkedCapture',
    title: 'Start a source-linked capture',
    description:
      'Step 2: resets, runs the test while streaming, verifies the evidence and records a run whose ' +
      'timeline resolves to source. Safety: all three counts 1, as the user confirmed; never retried.',
    hints: DEVICE,
    input: T.StartSourceLinkedCaptureArgs,
    response: S.CaptureStartPayloadSchema,
    follow: 'capture-job',
  },
  create_native_preparation: {
    route: 'createNativePreparation',
    title: 'Prepare a native program',
    description:
      "Builds a manifest native program for the Elite II's RISC-V core as a .UE2 file with its SHA-256; no " +
      'hardware access. Next: probe_ultimate, show the user the identity, create_native_intent.',
    hints: LOCAL,
    input: T.CreateNativePreparationArgs,
    // It may build the program with the RISC-V toolchain.
    answerWithinMs: 660_000,
  },
  create_native_intent: {
    route: 'createNativeIntent',
    title: 'Authorize a native program',
    description:
      'Authorizes a prepared program on the probed Elite II: consumes the probe_id, binds the exact ' +
      'identity and UE2 hash. Safety: standing mode needs confirmed_standing_authorization: true from the ' +
      'user; native code replaces the firmware until a power cycle.',
    hints: LOCAL,
    input: T.CreateNativeIntentArgs,
  },
  get_native_intent: {
    route: 'getNativeIntent',
    title: 'Get a native intent',
    description: 'A native intent: state, reason, health gate, bound identity and its runs.',
    hints: READ,
    input: T.IntentIdArgs,
  },
  revoke_native_intent: {
    route: 'revokeNativeIntent',
    title: 'Revoke a native intent',
    description: 'Revokes a native intent for good (idempotent); a run past its last latch is not stopped.',
    hints: { ...LOCAL, idempotentHint: true },
    input: T.IntentIdArgs,
  },
  start_native_run: {
    route: 'startNativeRun',
    title: 'Run the authorized native program',
    description:
      "Runs the intent's program once: re-probes, requires the bound identity and UE2 hash, latches, " +
      'uploads, triggers Run Update; returns a job (poll get_job). Safety: an uncertain step suspends the ' +
      'intent, nothing is retried; the device stays native until power-cycled.',
    hints: DEVICE,
    input: T.StartNativeRunArgs,
    answerWithinMs: 120_000,
  },
  start_native_health_check: {
    route: 'startNativeHealthCheck',
    title: 'Complete the post-recovery health gate',
    description:
      "After a power cycle, completes a standing intent's pending health gate: rechecks the identity, runs " +
      'a C64 health program (no FTP, no Run Update); the intent is active again only if the job passes.',
    hints: { ...DEVICE, destructiveHint: false },
    input: T.StartNativeHealthCheckArgs,
    answerWithinMs: 120_000,
  },
  start_riscv_smoke_job: {
    route: 'startRiscvSmokeJob',
    title: 'RISC-V smoke job (legacy bounded smoke)',
    description:
      'Legacy bounded smoke: runs the built-in RISC-V smoke program once on an Elite II. Safety: needs a ' +
      'fresh probe_id and confirmed_run_update_count: 1; the device stays native until power-cycled.',
    hints: DEVICE,
    input: T.StartRiscvSmokeJobArgs,
    answerWithinMs: 660_000,
  },
} as const satisfies Record<string, ToolSpec>;

export type ToolName = keyof typeof TOOLS;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

/** The data a tool answers with: its own response, else its route's. */
export function toolResponse(name: ToolName): z.ZodType {
  const spec: ToolSpec = TOOLS[name];
  return spec.response ?? ROUTES[spec.route].response;
}

/** Route name → the tool that calls it (routes no tool calls are absent: the dashboard's, OpenAPI). */
export const TOOL_OF_ROUTE: Readonly<Partial<Record<RouteName, ToolName>>> = Object.fromEntries(
  TOOL_NAMES.map((name) => [TOOLS[name].route, name]),
);

type QueryValue = string | number | boolean | undefined;

/**
 * The request of one call of a tool: each parsed argument, under its route field's name, goes to
 * the path when the route's template names it, to the query when the route's query schema has it,
 * else to the JSON body (a route with a body always gets one, `{}` at least). Absent arguments are
 * not sent. test/adapters/ultimate/limits.test.ts checks that every argument lands on a field its route
 * declares.
 */
export function toolRequest(name: ToolName, args: Readonly<Record<string, unknown>>): RouteInput {
  const spec: ToolSpec = TOOLS[name];
  const route = ROUTES[spec.route];
  const inPath = new Set(pathParamNames(route.path));
  const inQuery = new Set(Object.keys(route.query?.shape ?? {}));
  const params: Record<string, string> = {};
  const query: Record<string, QueryValue> = {};
  const body: Record<string, unknown> = {};
  for (const [arg, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const field = spec.rename?.[arg] ?? arg;
    if (inPath.has(field)) params[field] = String(value);
    else if (inQuery.has(field)) query[field] = value as QueryValue;
    else body[field] = value;
  }
  if (!route.body && Object.keys(body).length)
    throw new Error(`tool ${name}: ${Object.keys(body).join(', ')} has no place in ${route.method} ${route.path}`);
  return { params, query, ...(route.body ? { body } : {}) };
}
