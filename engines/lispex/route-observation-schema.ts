// One route's observation as the tools and the external products report it (observation-result.v1
// projected: values, stdout, diagnostics, resource outcome, metrics, identities), in zod, so the
// built-in routes' mapping, the Topaz/AOT product validation and the MCP result schemas
// (adapters/lispex/result-schemas.ts) share one definition.

import { z } from 'zod';

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

export type RouteObservation = z.infer<typeof RouteObservationSchema>;
