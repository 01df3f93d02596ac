// Zod schemas of the tool results. They are the tools' MCP output schemas (clients validate
// structuredContent against them) and, through z.infer, the types the result builders produce,
// so a builder cannot drift from what tools/list advertises.

import { z } from 'zod';
import { RouteObservationSchema } from '../../engines/lispex/route-observation-schema.js';

export const EVAL_RESULT_SCHEMA_ID = 'lispex.mcp-eval-result/v1';
export const COMPARISON_RESULT_SCHEMA_ID = 'lispex.mcp-route-comparison-result/v1';

export {
  DiagnosticSchema,
  EngineSchema,
  IdentitySchema,
  MetricsSchema,
  ProjectedValueSchema,
  ResourceOutcomeSchema,
  RouteObservationSchema,
  StdoutSchema,
  ValueRecordSchema,
  type RouteObservation,
} from '../../engines/lispex/route-observation-schema.js';

/** A non-negative integer count. */
const u64 = z.number().int().min(0);

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
