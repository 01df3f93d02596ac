// The four closed Lispex tools: lispex_reference, lispex_eval, lispex_diagnostic,
// lispex_compare_routes. Every request object is closed (z.strictObject: an extra field is an
// error, not ignored); bounds are checked before any evaluation starts; evaluation happens in
// worker threads through the host; submitted source is never logged, kept or echoed.

import { z } from 'zod';
import { type CallToolResult, TEXT_COPY_MAX_BYTES, ToolError, ToolRegistry, packageVersion, rawResult } from '../../src/index.js';
import type { EvaluateOptions, EvaluationJob, HostOutcome } from '../../engines/lispex/host/index.js';
import type { Observation } from '../../engines/lispex/observation.js';
import { FIXED_BOUNDS, STDOUT_JSON_BYTES, checkTextField, utf8Length } from './bounds.js';
import { compareObservations } from './comparison.js';
import { courtAvailability, courtDefinition } from './courts.js';
import { DIAGNOSTIC_CODE_PATTERN, diagnosticAnswer } from './diagnostic-reference.js';
import type { StartupProducts } from './products.js';
import { REFERENCE_TOPICS, profileIdentity, referenceAnswer } from './reference.js';
import {
  COMPARISON_RESULT_SCHEMA_ID,
  CourtSchema,
  EVAL_RESULT_SCHEMA_ID,
  type ComparisonResult,
  type CourtMember,
  type EvalResult,
} from './result-schemas.js';
import { ROUTE_ROLE, routeObservation, sha256Hex } from './route-observation.js';
import { ComparisonResultOutput, EvalResultOutput } from './result-wire-schemas.js';
import { buildExternalRequest } from '../../engines/lispex/external/derivation.js';
import { externalFailure, failedMemberIndex, type MemberRun } from './member-run.js';
import { runFreshAotMember } from '../../engines/lispex/external/aot-route.js';
import { runTopazMember, type MemberOutcome } from '../../engines/lispex/external/topaz-route.js';

/** What the tools need from the evaluation host (LispexHost, or a test double). */
export interface EvaluationHost {
  evaluate(job: EvaluationJob, options?: EvaluateOptions): Promise<HostOutcome>;
}

export interface LispexToolsOptions {
  readonly host: EvaluationHost;
  readonly products: StartupProducts;
  /**
   * Whole-comparison wall clock. Fixed by the contract at 660,000 ms; only a shorter value is
   * honoured (tests use one to reach the bound).
   */
  readonly comparisonWallClockMs?: number;
}

/** Logical source id of submitted source in rendered diagnostics (never a path). */
export const MCP_SOURCE_ID = 'source';

const FALLBACK_COUNTS = { backend: 0, route: 0, profile: 0, retry: 0 } as const;
const FLAGS = { source_retained: false, semantic_equivalence_proved: false, vouch_authority: false } as const;

function product(): EvalResult['product'] {
  return { name: 'mcp-engines', version: packageVersion(), server: 'lispex mcp serve' };
}

/**
 * How much observation a worker may send back. The final result bound is checked exactly on the
 * built result; this cap only keeps an absurd observation from crossing threads at all (the
 * observation also carries the interactive rendering, so it may be up to about twice the result).
 */
const EVAL_TRANSFER = { maxRecords: FIXED_BOUNDS.diagnosticsAndWarnings, maxObservationBytes: 3 * FIXED_BOUNDS.evalResultBytes };
const COMPARISON_TRANSFER = {
  maxRecords: FIXED_BOUNDS.diagnosticsAndWarnings,
  maxObservationBytes: 2 * FIXED_BOUNDS.comparisonResultBytes,
};

const sourceField = z.string().describe(`Lispex program text (UTF-8, at most ${FIXED_BOUNDS.sourceBytes} bytes)`);
const inputField = z
  .string()
  .optional()
  .describe(`text of one Lispex datum, bound as the variable input (at most ${FIXED_BOUNDS.inputDatumBytes} bytes)`);

/** The error payload of an evaluation that produced no observation (or one past a bound). */
function failureError(outcome: Exclude<HostOutcome, { kind: 'completed' }>, what: string): ToolError {
  const common = { decision: null, retried: false, source_retained: false };
  switch (outcome.kind) {
    case 'wall-clock-exceeded':
      return new ToolError(`${what} stopped: the ${outcome.limitMs} ms wall clock ran out and the worker was terminated`, {
        failure: 'wall-clock-exceeded',
        status: 'infrastructure-error',
        limit_ms: outcome.limitMs,
        ...common,
      });
    case 'cancelled':
      return new ToolError(`${what} cancelled; the worker was terminated`, {
        failure: 'cancelled',
        status: 'infrastructure-error',
        ...common,
      });
    case 'worker-failure':
      return new ToolError(`${what} failed: ${outcome.message}`, {
        failure: `worker-${outcome.reason}`,
        status: 'infrastructure-error',
        ...common,
      });
    case 'over-bound': {
      const { excess } = outcome;
      const unit = excess.bound === 'diagnostics-and-warnings' ? 'diagnostics and warnings' : 'bytes of observation';
      return new ToolError(`${what} result not delivered: ${excess.actual} ${unit} exceed the fixed bound of ${excess.limit}`, {
        failure: 'bound-exceeded',
        bound: excess.bound === 'diagnostics-and-warnings' ? 'diagnostics-and-warnings' : 'evaluation-result',
        limit: excess.limit,
        actual: excess.actual,
        status: excess.status,
        exit_status: excess.exit_status,
        ...common,
      });
    }
  }
}

function resultTooLarge(
  bound: 'evaluation-result' | 'comparison-result',
  bytes: number,
  limit: number,
  detail: Record<string, unknown>,
): ToolError {
  return new ToolError(`result not delivered: it would be ${bytes} bytes, over the fixed bound of ${limit} bytes`, {
    failure: 'bound-exceeded',
    bound,
    limit,
    actual: bytes,
    ...detail,
    decision: null,
    retried: false,
    source_retained: false,
  });
}

function requestIdentity(source: string, input: string | undefined): ComparisonResult['request'] {
  return { source_sha256: sha256Hex(source), input_sha256: input === undefined ? null : sha256Hex(input) };
}

function job(source: string, input: string | undefined, route: 'tree' | 'vm'): EvaluationJob {
  return { source, route, sourceId: MCP_SOURCE_ID, stdoutJsonLimit: STDOUT_JSON_BYTES, ...(input !== undefined ? { input } : {}) };
}

/** Link a parent signal into a new controller (aborting either aborts the child). */
function childController(parent: AbortSignal): { controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  return { controller, dispose: () => parent.removeEventListener('abort', onAbort) };
}

const ReferenceResultSchema = z.looseObject({
  schema: z.literal('lispex.mcp-reference-result/v1'),
  topic: z.enum(REFERENCE_TOPICS).nullable(),
  name: z.string().nullable(),
  known: z.boolean(),
});

const DiagnosticResultSchema = z.strictObject({
  code: z.string(),
  known: z.boolean(),
  catalog: z.string(),
  row: z
    .strictObject({
      code: z.string(),
      severity: z.enum(['error', 'warning']),
      phase: z.string(),
      family: z.string(),
      render_template: z.string(),
      irritant_projection: z.string(),
      source_span: z.string(),
      exit_status: z.number().int(),
    })
    .nullable(),
  raising_condition: z.string().nullable(),
});

/** The fields of every lispex.mcp-eval-result/v1 that do not depend on the run (built once). */
interface EvalResultConstants {
  readonly product: EvalResult['product'];
  readonly profile: EvalResult['profile'];
}

function evalResultConstants(): EvalResultConstants {
  return { product: product(), profile: profileIdentity() };
}

/** One lispex.mcp-eval-result/v1, its keys in the contract's order. */
export function evalResult(constants: EvalResultConstants, observation: Observation, hostMs: number): EvalResult {
  return {
    schema: EVAL_RESULT_SCHEMA_ID,
    product: constants.product,
    profile: constants.profile,
    ...routeObservation(observation, hostMs),
    forbidden_fallback_counts: FALLBACK_COUNTS,
    ...FLAGS,
  };
}

// The registry shortens a text copy only above TEXT_COPY_MAX_BYTES; successResult relies on an
// evaluation result never being that large.
if (FIXED_BOUNDS.evalResultBytes > TEXT_COPY_MAX_BYTES) throw new Error('the evaluation result bound exceeds the text copy limit');

/**
 * The success result the registry would build for `result` (whose JSON is `text`): the JSON as
 * the text block, and the same object as structuredContent from protocol 2025-06-18 on. The
 * registry shortens the text copy only above 1 MiB, which an evaluation result never is (its
 * bound is 1 MiB, checked before).
 */
function successResult(result: EvalResult, text: string, protocolVersion: string): CallToolResult {
  const answer: CallToolResult = { content: [{ type: 'text', text }], isError: false };
  // Protocol versions are ISO dates: string order is time order.
  if (protocolVersion >= '2025-06-18') answer.structuredContent = result as unknown as Record<string, unknown>;
  return answer;
}

export function createLispexTools(options: LispexToolsOptions): ToolRegistry {
  const { host, products } = options;
  const comparisonWallClockMs = Math.min(
    options.comparisonWallClockMs ?? FIXED_BOUNDS.comparisonWallClockMs,
    FIXED_BOUNDS.comparisonWallClockMs,
  );
  const tools = new ToolRegistry();
  const evalConstants = evalResultConstants();

  tools.define({
    name: 'lispex_reference',
    title: 'Lispex reference',
    description:
      'The installed Lispex profile and registry. Without arguments: an overview. With a topic (forms, procedures, ' +
      'reader, resources, routes): its entries. With a topic and an exact name: that one entry, or known:false.',
    input: z
      .strictObject({
        topic: z.enum(REFERENCE_TOPICS).optional().describe('one of forms, procedures, reader, resources, routes'),
        name: z.string().optional().describe('an exact entry name within the topic (requires topic)'),
      })
      .refine((args) => args.name === undefined || args.topic !== undefined, {
        message: 'name requires topic',
        path: ['name'],
      })
      // The same rule in the published input schema (JSON Schema 2020-12), so clients see it too.
      .meta({ dependentRequired: { name: ['topic'] } }),
    output: ReferenceResultSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    // Built from the contract's JSON tables, so typed loosely; the registry checks the shape on every call.
    handler: ({ topic, name }) => referenceAnswer(topic, name, { products }) as z.output<typeof ReferenceResultSchema>,
  });

  tools.define({
    name: 'lispex_diagnostic',
    title: 'Lispex diagnostic',
    description:
      'The exact diagnostic-catalog row of a code (E100…E340, W330, W331) and the condition that raises it; unknown codes answer known:false.',
    input: z.strictObject({
      code: z.string().regex(DIAGNOSTIC_CODE_PATTERN, 'code must match ^[EW][0-9]{3}$').describe('e.g. E300 or W330'),
    }),
    output: DiagnosticResultSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    // The catalog row comes from the contract's JSON; the registry checks its shape on every call.
    handler: ({ code }) => diagnosticAnswer(code) as z.output<typeof DiagnosticResultSchema>,
  });

  tools.define({
    name: 'lispex_eval',
    title: 'Evaluate Lispex',
    description:
      'Evaluate a Lispex program on the tree route (profile lispex-mcp-local-authoring/v1, 5,000 ms wall clock) and ' +
      'return lispex.mcp-eval-result/v1: values of the last top-level form, stdout, diagnostics, warnings, status, ' +
      'exit status, resource outcome, metrics and identities. Trusted source only: this is not a sandbox.',
    input: z.strictObject({ source: sourceField, input: inputField }),
    output: EvalResultOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    // The answer is sent as built here (rawResult): its constant fields are made once, it is
    // JSON-encoded once (the same text is the bound check and the text copy), and the registry's
    // per-call check against EvalResultOutput is skipped — our own answer is checked by the tests
    // instead (test/adapters/lispex/eval-answer-bytes.test.ts: the same bytes as the checked path, and
    // every answer inside the schema). That check was the largest cost of a small evaluation.
    handler: async ({ source, input }, ctx) => {
      checkTextField('source', source);
      if (input !== undefined) checkTextField('input', input);
      const outcome = await host.evaluate(job(source, input, 'tree'), {
        signal: ctx.signal,
        wallClockMs: FIXED_BOUNDS.evalWallClockMs,
        bounds: EVAL_TRANSFER,
      });
      if (outcome.kind !== 'completed') throw failureError(outcome, 'evaluation');
      const result = evalResult(evalConstants, outcome.observation, outcome.hostMs);
      const text = JSON.stringify(result);
      // One UTF-16 unit is at most 3 UTF-8 bytes: most answers need no byte count at all.
      const within = text.length * 3 <= FIXED_BOUNDS.evalResultBytes || utf8Length(text) <= FIXED_BOUNDS.evalResultBytes;
      if (!within) {
        throw resultTooLarge('evaluation-result', utf8Length(text), FIXED_BOUNDS.evalResultBytes, {
          status: result.status,
          exit_status: result.exit_status,
        });
      }
      return rawResult(successResult(result, text, ctx.protocolVersion));
    },
  });

  tools.define({
    name: 'lispex_compare_routes',
    title: 'Compare Lispex routes',
    description:
      'Run one closed comparison court on the same source and input and report each member observation, the ' +
      'mismatch axes and agreement, without selecting an answer. tree-rust runs the built-in tree and the built-in ' +
      "bytecode VM (which fills the court's Rust VM member). rust-topaz and all-four need startup products and " +
      'answer court_available:false here.',
    input: z.strictObject({
      court: CourtSchema.describe('tree-rust, rust-topaz or all-four'),
      source: sourceField,
      input: inputField,
    }),
    output: ComparisonResultOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: async ({ court, source, input }, ctx): Promise<ComparisonResult> => {
      checkTextField('source', source);
      if (input !== undefined) checkTextField('input', input);
      const definition = courtDefinition(court);
      const availability = courtAvailability(court, products);
      const members = definition.members.map((member) => memberDescription(member, availability.available));
      const base = {
        schema: COMPARISON_RESULT_SCHEMA_ID,
        product: product(),
        profile: profileIdentity(),
        court,
        members,
        request: requestIdentity(source, input),
        answer_selected: false,
        partial_comparison: false,
        forbidden_fallback_counts: { ...FALLBACK_COUNTS },
        ...FLAGS,
      } as const;
      if (!availability.available) {
        return {
          ...base,
          court_available: false,
          unavailable_reason: availability.reason,
          attempted_routes: [],
          observations: [],
          axes: [],
          mismatch_axes: [],
          agreement: null,
          cleanup: { workspace_created: false, workers_terminated: 0, processes_started: 0, complete: true },
        };
      }

      // tree-rust: both routes at once, each in its own worker with the evaluation wall clock,
      // the whole court under the comparison wall clock. A member that fails stops the other:
      // a comparison is complete or it is not given at all (partial_comparison stays false).
      const { controller, dispose } = childController(ctx.signal);
      let courtExpired = false;
      const courtTimer = setTimeout(() => {
        courtExpired = true;
        controller.abort();
      }, comparisonWallClockMs);
      const run = (route: 'tree' | 'vm'): Promise<HostOutcome> =>
        host
          .evaluate(job(source, input, route), {
            signal: controller.signal,
            wallClockMs: FIXED_BOUNDS.evalWallClockMs,
            bounds: COMPARISON_TRANSFER,
          })
          .then((outcome) => {
            if (outcome.kind !== 'completed') controller.abort();
            return outcome;
          });
      // External members get the same derivation the built-in VM compiles (built once here).
      const request = definition.prerequisite.length > 0 ? buildExternalRequest(source, input, MCP_SOURCE_ID, STDOUT_JSON_BYTES) : null;
      const runMember = (member: CourtMember, onBuilt: (buildMs: number) => void): Promise<MemberRun> => {
        if (member === 'tree' || member === 'rust-vm') return run(member === 'tree' ? 'tree' : 'vm').then((host) => ({ host }));
        if (member === 'fresh-aot') {
          return runFreshAotMember({
            compiler: products.topazCompiler!.path,
            rustc: products.rustTools!.path,
            request: request!,
            wallClockMs: FIXED_BOUNDS.evalWallClockMs,
            maxOutputBytes: COMPARISON_TRANSFER.maxObservationBytes,
            signal: controller.signal,
            onBuilt,
          }).then((aot) => {
            if (aot.outcome.kind !== 'completed') controller.abort();
            return { external: aot.outcome, aot };
          });
        }
        return runTopazMember({
          executable: products.topazVm!.path,
          request: request!,
          wallClockMs: FIXED_BOUNDS.evalWallClockMs,
          maxOutputBytes: COMPARISON_TRANSFER.maxObservationBytes,
          signal: controller.signal,
        }).then((external) => {
          if (external.kind !== 'completed') controller.abort();
          return { external };
        });
      };
      const routeMembers: CourtMember[] = [...definition.members];
      // Progress (only when the caller sent a progressToken): each member as it finishes, and the
      // fresh AOT build, which alone may take seconds.
      const steps = routeMembers.length + (routeMembers.includes('fresh-aot') ? 1 : 0);
      let done = 0;
      const step = (message: string): void => ctx.progress(++done, steps, message);
      const reportBuilt = (buildMs: number): void => step(`fresh AOT product built in ${Math.round(buildMs)} ms`);
      const reported = (member: CourtMember) => (run: MemberRun) => {
        const outcome = run.host !== undefined ? run.host.kind : run.external!.kind === 'completed' ? 'completed' : run.external!.reason;
        step(`member ${member} finished: ${outcome}`);
        return run;
      };
      let runs: MemberRun[];
      try {
        runs = await Promise.all(routeMembers.map((member) => runMember(member, reportBuilt).then(reported(member))));
      } finally {
        clearTimeout(courtTimer);
        dispose();
      }
      const processesStarted = runs.reduce((n, r) => n + (r.external?.processesStarted ?? 0), 0);
      const workersTerminated = runs.filter((r) => r.host !== undefined).length;
      const aot = runs.find((r) => r.aot !== undefined)?.aot;
      const workspaceCreated = aot?.workspaceCreated ?? false;
      // A request workspace that could not be removed fails the tool result closed.
      if (aot !== undefined && !aot.workspaceRemoved) {
        throw new ToolError('comparison not delivered: the fresh AOT request workspace could not be removed', {
          failure: 'workspace-cleanup-failed',
          status: 'infrastructure-error',
          court,
          decision: null,
          retried: false,
          source_retained: false,
          agreement: null,
          answer_selected: false,
          partial_comparison: false,
        });
      }
      const memberOutcomes = runs.map((r, i) => ({
        member: routeMembers[i],
        outcome: r.host !== undefined ? r.host.kind : r.external!.kind === 'completed' ? 'completed' : r.external!.reason,
      }));
      if (courtExpired && !ctx.signal.aborted) {
        throw new ToolError(`comparison stopped: the ${comparisonWallClockMs} ms comparison wall clock ran out`, {
          failure: 'comparison-wall-clock-exceeded',
          status: 'infrastructure-error',
          limit_ms: comparisonWallClockMs,
          court,
          members: memberOutcomes,
          decision: null,
          retried: false,
          source_retained: false,
          agreement: null,
          answer_selected: false,
          partial_comparison: false,
          cleanup: {
            workspace_created: workspaceCreated,
            workspace_removed: true,
            processes_started: processesStarted,
            process_groups_killed: true,
            complete: true,
          },
        });
      }
      const failed = failedMemberIndex(runs);
      if (failed >= 0) {
        const r = runs[failed]!;
        const error =
          r.host !== undefined
            ? failureError(r.host as Exclude<HostOutcome, { kind: 'completed' }>, `comparison member ${routeMembers[failed]}`)
            : externalFailure(r.external as Extract<MemberOutcome, { kind: 'failed' }>, routeMembers[failed]!);
        throw new ToolError(error.message, {
          ...error.details,
          court,
          members: memberOutcomes,
          agreement: null,
          answer_selected: false,
          partial_comparison: false,
          cleanup: {
            workspace_created: workspaceCreated,
            workspace_removed: true,
            processes_started: processesStarted,
            process_groups_killed: true,
            complete: true,
          },
        });
      }
      const observations = runs.map((r, i) => {
        if (r.host !== undefined) {
          const completed = r.host as Extract<HostOutcome, { kind: 'completed' }>;
          return { member: routeMembers[i]!, ...routeObservation(completed.observation, completed.hostMs) };
        }
        return { member: routeMembers[i]!, ...(r.external as Extract<MemberOutcome, { kind: 'completed' }>).observation };
      });
      const axes = compareObservations(observations);
      const mismatch = axes.filter((a) => !a.agreement).map((a) => a.axis);
      const result: ComparisonResult = {
        ...base,
        court_available: true,
        unavailable_reason: null,
        attempted_routes: routeMembers,
        observations,
        axes,
        mismatch_axes: mismatch,
        agreement: mismatch.length === 0,
        cleanup: {
          workspace_created: workspaceCreated,
          workers_terminated: workersTerminated,
          processes_started: processesStarted,
          complete: true,
        },
      };
      const bytes = utf8Length(JSON.stringify(result));
      if (bytes > FIXED_BOUNDS.comparisonResultBytes) {
        throw resultTooLarge('comparison-result', bytes, FIXED_BOUNDS.comparisonResultBytes, {
          court,
          agreement: result.agreement,
          mismatch_axes: mismatch,
        });
      }
      return result;
    },
  });

  return tools;
}

function memberDescription(member: CourtMember, available: boolean): ComparisonResult['members'][number] {
  switch (member) {
    case 'tree':
      return { member, available: true, route: 'tree', implementation: `mcp-engines built-in tree evaluator (${ROUTE_ROLE.tree} role)` };
    case 'rust-vm':
      return {
        member,
        available: true,
        route: 'vm',
        implementation: "mcp-engines built-in bytecode VM (fills the court's Rust VM member; not a Rust program)",
      };
    case 'topaz-vm':
      return {
        member,
        available,
        route: available ? 'topaz-vm' : null,
        implementation: available ? 'Topaz VM product (--topaz-vm, Rust)' : null,
      };
    case 'fresh-aot':
      return {
        member,
        available,
        route: available ? 'fresh-aot' : null,
        implementation: available ? 'fresh AOT product (--topaz-compiler with --rust-tools, one build per request)' : null,
      };
  }
}
