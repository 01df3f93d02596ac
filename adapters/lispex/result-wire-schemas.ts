// The output schemas the Lispex tools advertise in tools/list: every top-level field of the two
// result schemas, with the contract's literals and enums, but the nested observation records only
// to the depth a model needs to read them (their keys and kinds). The full structure is in
// docs/lispex/MCP.md and in result-schemas.ts, which every result is still checked against first
// (`strict.pipe(wire)`): a result that passes is valid under both, so what is advertised is a true
// (looser) description of what is sent. Why: the full schemas made tools/list 26.8 KB — context a
// model pays on every connection — for detail no model needs to choose or call a tool.

import { z } from 'zod';
import {
  COMPARISON_AXES,
  COMPARISON_RESULT_SCHEMA_ID,
  ComparisonResultSchema,
  CourtMemberSchema,
  CourtSchema,
  EVAL_RESULT_SCHEMA_ID,
  EvalResultSchema,
  type ComparisonResult,
  type EvalResult,
} from './result-schemas.js';

const ROUTES = ['tree', 'vm', 'topaz-vm', 'fresh-aot'] as const;
// Loose on purpose: z.number().int() would advertise JavaScript's safe-integer bounds on every counter.
const count = z.number().min(0);

const observationShape = {
  engine: z
    .looseObject({ role: z.enum(['rust-tree', 'rust-vm', 'topaz-vm', 'fresh-aot']), route: z.enum(ROUTES) })
    .describe('also implementation, version'),
  identity: z
    .looseObject({ source_sha256: z.string(), input_sha256: z.string().nullable() })
    .describe('also profile_id, meter_id, meter_manifest_id, language_profile, route, engine, engine_version'),
  status: z.enum(['ok', 'source-error', 'runtime-error', 'resource', 'infrastructure-error']),
  exit_status: z.number(),
  values: z
    .array(z.looseObject({ portable: z.boolean(), value: z.looseObject({ kind: z.string() }), printed: z.string() }))
    .describe('values of the last top-level form (value: see docs/lispex/MCP.md)'),
  stdout: z.looseObject({ text: z.string(), byte_length: count, sha256: z.string() }),
  diagnostics: z
    .array(z.looseObject({ code: z.string(), rendered: z.string() }))
    .describe('each also has severity, phase, source, line, column, message, irritants'),
  warnings: z.array(z.looseObject({ code: z.string(), rendered: z.string() })),
  resource_outcome: z
    .looseObject({ status: z.enum(['within-limits', 'limit-exceeded']), limit: z.string().nullable() })
    .describe('limit: the exhausted axis or null; also profile_id, purpose, limits (five *-limit counts), usage (five counts)'),
  metrics: z.record(z.string(), z.number()).describe('max_call_depth, call_depth_limit, forms, wall_ms, host_wall_ms'),
};

const commonShape = {
  product: z.looseObject({ name: z.literal('mcp-engines'), version: z.string(), server: z.literal('lispex mcp serve') }),
  profile: z.looseObject({ id: z.string() }).describe('also product_version, language_contract, resource_profile, resource_purpose'),
  forbidden_fallback_counts: z.strictObject({ backend: z.literal(0), route: z.literal(0), profile: z.literal(0), retry: z.literal(0) }),
  source_retained: z.literal(false),
  semantic_equivalence_proved: z.literal(false),
  vouch_authority: z.literal(false),
};

const EvalResultWireSchema = z.strictObject({
  schema: z.literal(EVAL_RESULT_SCHEMA_ID),
  ...commonShape,
  ...observationShape,
});

const ComparisonResultWireSchema = z.strictObject({
  schema: z.literal(COMPARISON_RESULT_SCHEMA_ID),
  ...commonShape,
  court: CourtSchema,
  court_available: z.boolean(),
  unavailable_reason: z.looseObject({ code: z.string(), message: z.string(), missing_startup_options: z.array(z.string()) }).nullable(),
  members: z.array(
    z.looseObject({
      member: CourtMemberSchema,
      available: z.boolean(),
      route: z.enum(ROUTES).nullable(),
      implementation: z.string().nullable(),
    }),
  ),
  request: z.looseObject({ source_sha256: z.string(), input_sha256: z.string().nullable() }),
  attempted_routes: z.array(CourtMemberSchema),
  observations: z.array(z.looseObject({ member: CourtMemberSchema, ...observationShape })),
  axes: z.array(z.looseObject({ axis: z.enum(COMPARISON_AXES), agreement: z.boolean() })),
  mismatch_axes: z.array(z.string()).describe('the axes (as in axes) on which the members disagree'),
  agreement: z.boolean().nullable().describe('null when no comparison ran (court unavailable)'),
  answer_selected: z.literal(false),
  partial_comparison: z.literal(false),
  cleanup: z.looseObject({
    workspace_created: z.boolean(),
    workers_terminated: count,
    processes_started: count,
    complete: z.literal(true),
  }),
});

/**
 * The wire schema typed as the full one: it accepts every full result (the pipe checks the full
 * schema first), and the handlers stay typed by the full result types.
 */
function advertisedAs<T>(wire: z.ZodType): z.ZodType<T, T> {
  return wire as unknown as z.ZodType<T, T>;
}

/** What lispex_eval checks every result against (the full schema, then the advertised one). */
export const EvalResultOutput = EvalResultSchema.pipe(advertisedAs<EvalResult>(EvalResultWireSchema));
/** What lispex_compare_routes checks every result against (the full schema, then the advertised one). */
export const ComparisonResultOutput = ComparisonResultSchema.pipe(advertisedAs<ComparisonResult>(ComparisonResultWireSchema));
