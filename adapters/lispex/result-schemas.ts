// Zod schemas of the tool results. They are the tools' MCP output schemas (clients validate
// structuredContent against them) and, through z.infer, the types the result builders produce,
// so a builder cannot drift from what tools/list advertises.

import { z } from 'zod';

export const EVAL_RESULT_SCHEMA_ID = 'lispex.mcp-eval-result/v1';
export const COMPARISON_RESULT_SCHEMA_ID = 'lispex.mcp-route-comparison-result/v1';

const integerText = z.string().describe('decimal text of an exact integer (big integers survive JSON)');

/**
 * The structured projection of one value (engine ProjectedValue). The three kinds that nest
 * (proper-list, improper-list, vector) share ONE alternative: clients validate with JSON Schema
 * `oneOf`, which tries every alternative (with all-errors validators even past a mismatched
 * `kind`), so one recursive alternative per kind would cost 3^depth at the 500 levels a value may
 * nest; one shared alternative keeps validation linear. `tail` is present exactly for
 * improper-list (checked here; JSON Schema readers see it as optional).
 */
export const ProjectedValueSchema: z.ZodType<unknown> = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('nil') }),
    z.strictObject({ kind: z.literal('boolean'), value: z.boolean() }),
    z.strictObject({ kind: z.literal('integer'), value: integerText }),
    z.strictObject({ kind: z.literal('rational'), numerator: integerText, denominator: integerText }),
    z.strictObject({ kind: z.literal('finite-real'), value: z.number() }),
    z.strictObject({ kind: z.literal('character'), value: z.string(), code_point: z.number().int() }),
    z.strictObject({ kind: z.literal('symbol'), name: z.string() }),
    z.strictObject({ kind: z.literal('string'), value: z.string() }),
    z
      .strictObject({
        kind: z.enum(['proper-list', 'improper-list', 'vector']),
        items: z.array(ProjectedValueSchema),
        tail: ProjectedValueSchema.optional().describe('the final cdr; present exactly when kind is improper-list'),
      })
      .refine((v) => (v.kind === 'improper-list') === (v.tail !== undefined), {
        message: 'tail is present exactly when kind is improper-list',
      }),
    z.strictObject({ kind: z.literal('bytevector'), bytes: z.array(z.number().int().min(0).max(255)) }),
    z.strictObject({ kind: z.enum(['procedure', 'continuation', 'error-object', 'unspecified', 'cyclic', 'too-deep']) }),
  ]),
);

export const ValueRecordSchema = z.strictObject({
  portable: z.boolean().describe('one of the portable result kinds of the profile'),
  value: ProjectedValueSchema,
  printed: z.string().describe('the one fixed printed form (write)'),
});

export const DiagnosticSchema = z.strictObject({
  code: z.string(),
  severity: z.enum(['error', 'warning']),
  phase: z.enum(['reader', 'normalizer', 'runtime', 'resource']),
  source: z.string().describe('logical source id (never a host path)'),
  line: z.number().int(),
  column: z.number().int().describe('1-based, in Unicode scalars'),
  message: z.string().describe('advisory prose'),
  irritants: z.array(z.string()).describe('each irritant written with write, in order'),
  rendered: z.string().describe('CODE {source}:{line}:{column} {message}{irritants}'),
});

const u64 = z.number().int().min(0);

export const ResourceOutcomeSchema = z.strictObject({
  status: z.enum(['within-limits', 'limit-exceeded']),
  limit: z
    .enum(['frontend-transition', 'token', 'normalization-step', 'machine-transition', 'output-byte', 'non-tail-call-depth'])
    .nullable()
    .describe('the exhausted axis id, non-tail-call-depth for recursion-limit, null within limits'),
  profile_id: z.string(),
  purpose: z.string(),
  limits: z.strictObject({
    'frontend-transition-limit': u64,
    'token-limit': u64,
    'normalization-step-limit': u64,
    'machine-transition-limit': u64,
    'output-byte-limit': u64,
  }),
  usage: z.strictObject({
    frontend_transitions: u64,
    tokens: u64,
    normalization_steps: u64,
    machine_transitions: u64,
    output_bytes: u64,
  }),
});

export const StdoutSchema = z.strictObject({
  text: z.string().describe('captured stdout, decoded as UTF-8 (explicit output only)'),
  byte_length: u64,
  sha256: z.string(),
});

export const MetricsSchema = z.strictObject({
  max_call_depth: u64,
  call_depth_limit: u64.describe("this route's recursion-limit threshold (HOST-SAFETY-RESOURCE-1)"),
  forms: u64,
  wall_ms: z.number().min(0).describe('engine wall time (not semantic)'),
  host_wall_ms: z.number().min(0).describe('wall time including the worker hand-off (not semantic)'),
});

export const EngineSchema = z.strictObject({
  role: z.enum(['rust-tree', 'rust-vm', 'topaz-vm', 'fresh-aot']).describe('the contract role this route fills'),
  route: z.enum(['tree', 'vm', 'topaz-vm', 'fresh-aot']),
  implementation: z.string().describe('names this implementation truthfully'),
  version: z.string(),
});

export const IdentitySchema = z.strictObject({
  source_sha256: z.string(),
  input_sha256: z.string().nullable(),
  profile_id: z.string(),
  meter_id: z.string(),
  meter_manifest_id: z.string(),
  language_profile: z.string(),
  route: z.enum(['tree', 'vm', 'topaz-vm', 'fresh-aot']),
  engine: z.string(),
  engine_version: z.string(),
});

/** One route's complete observation. */
export const RouteObservationSchema = z.strictObject({
  engine: EngineSchema,
  identity: IdentitySchema,
  status: z.enum(['ok', 'source-error', 'runtime-error', 'resource', 'infrastructure-error']),
  exit_status: z.number().int(),
  values: z.array(ValueRecordSchema).describe('result values of the last top-level form'),
  stdout: StdoutSchema,
  diagnostics: z.array(DiagnosticSchema),
  warnings: z.array(DiagnosticSchema),
  resource_outcome: ResourceOutcomeSchema,
  metrics: MetricsSchema,
});

export const ProductSchema = z.strictObject({
  name: z.literal('mcp-engines'),
  version: z.string(),
  server: z.literal('lispex mcp serve'),
});

export const ProfileIdentitySchema = z.strictObject({
  id: z.string(),
  product_version: z.string(),
  language_contract: z.string(),
  resource_profile: z.string(),
  resource_purpose: z.string(),
});

export const FallbackCountsSchema = z.strictObject({
  backend: z.literal(0),
  route: z.literal(0),
  profile: z.literal(0),
  retry: z.literal(0),
});

const Flags = {
  source_retained: z.literal(false),
  semantic_equivalence_proved: z.literal(false),
  vouch_authority: z.literal(false),
};

export const EvalResultSchema = z.strictObject({
  schema: z.literal(EVAL_RESULT_SCHEMA_ID),
  product: ProductSchema,
  profile: ProfileIdentitySchema,
  ...RouteObservationSchema.shape,
  forbidden_fallback_counts: FallbackCountsSchema,
  ...Flags,
});
export type EvalResult = z.infer<typeof EvalResultSchema>;
export type RouteObservation = z.infer<typeof RouteObservationSchema>;

export const COMPARISON_AXES = [
  'status',
  'stdout-bytes',
  'diagnostic-code-message-irritants-span-bytes',
  'warning-order-and-bytes',
  'exit-status',
  'value-projection',
  'resource-outcome',
] as const;
export type ComparisonAxis = (typeof COMPARISON_AXES)[number];

export const CourtSchema = z.enum(['tree-rust', 'rust-topaz', 'all-four']);
export type Court = z.infer<typeof CourtSchema>;
export const CourtMemberSchema = z.enum(['tree', 'rust-vm', 'topaz-vm', 'fresh-aot']);
export type CourtMember = z.infer<typeof CourtMemberSchema>;

export const ComparisonResultSchema = z.strictObject({
  schema: z.literal(COMPARISON_RESULT_SCHEMA_ID),
  product: ProductSchema,
  profile: ProfileIdentitySchema,
  court: CourtSchema,
  court_available: z.boolean(),
  unavailable_reason: z
    .strictObject({
      code: z.enum(['missing-startup-product', 'external-route-not-implemented']),
      message: z.string(),
      missing_startup_options: z.array(z.string()),
    })
    .nullable(),
  members: z.array(
    z.strictObject({
      member: CourtMemberSchema,
      available: z.boolean(),
      route: z.enum(['tree', 'vm', 'topaz-vm', 'fresh-aot']).nullable(),
      implementation: z.string().nullable(),
    }),
  ),
  request: z.strictObject({ source_sha256: z.string(), input_sha256: z.string().nullable() }),
  attempted_routes: z.array(CourtMemberSchema),
  observations: z.array(z.strictObject({ member: CourtMemberSchema, ...RouteObservationSchema.shape })),
  axes: z.array(z.strictObject({ axis: z.enum(COMPARISON_AXES), agreement: z.boolean() })),
  mismatch_axes: z.array(z.enum(COMPARISON_AXES)),
  agreement: z.boolean().nullable().describe('null when no comparison ran (court unavailable)'),
  answer_selected: z.literal(false),
  partial_comparison: z.literal(false),
  cleanup: z.strictObject({
    workspace_created: z.boolean(),
    workers_terminated: u64,
    processes_started: u64,
    complete: z.literal(true),
  }),
  forbidden_fallback_counts: FallbackCountsSchema,
  ...Flags,
});
export type ComparisonResult = z.infer<typeof ComparisonResultSchema>;
