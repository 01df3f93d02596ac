// The trusted-native routes' bodies (SERVICE-API.md "Native"): the closed request schemas the
// service parses with and, for the answers, the fields the contract names (records carry more
// fields than listed: loose objects). The route table (routes.ts) names them per route.
import { z } from 'zod';
import { ApiId, DeviceHost, MAX_RUNS_MAX, NativeProgramName, ProbeId, queryCount } from './fields.js';
import { API_SCHEMA_VERSION } from './schemas.js';

export const NATIVE_INTENTS_LIMIT_MAX = 200;

export const INTENT_STATES = ['active', 'suspended', 'revoked', 'expired', 'exhausted', 'consumed'] as const;
export type IntentState = (typeof INTENT_STATES)[number];
export const HEALTH_GATES = ['none', 'pending', 'passed'] as const;
export type HealthGate = (typeof HEALTH_GATES)[number];
export const NATIVE_RUN_STATES = ['latched', 'uploaded', 'triggered', 'completed', 'uncertain', 'failed', 'refused'] as const;
export type NativeRunState = (typeof NATIVE_RUN_STATES)[number];

// ---- request bodies ----

export const NativePreparationRequestSchema = z.strictObject({
  program: NativeProgramName.describe('a name from the manifest\'s "native_programs"'),
});

export const NativeIntentRequestSchema = z
  .strictObject({
    preparation_id: ApiId,
    probe_id: ProbeId,
    mode: z.enum(['one-shot', 'standing']),
    confirmed_standing_authorization: z.boolean().optional(),
    expires_at: z.iso.datetime({ offset: true }).optional(),
    max_runs: z.number().int().min(1).max(MAX_RUNS_MAX).optional(),
  })
  .superRefine((r, ctx) => {
    if (r.mode === 'standing' && r.confirmed_standing_authorization !== true)
      ctx.addIssue({
        code: 'custom',
        path: ['confirmed_standing_authorization'],
        message: 'a standing intent needs confirmed_standing_authorization: true (the user confirmed standing permission)',
      });
    if (r.mode === 'one-shot') {
      for (const k of ['confirmed_standing_authorization', 'max_runs'] as const)
        if (r[k] !== undefined)
          ctx.addIssue({ code: 'custom', path: [k], message: `${k} applies only to a standing intent; a one-shot intent runs once` });
    }
  });
export type NativeIntentRequest = z.infer<typeof NativeIntentRequestSchema>;

export const NativeIntentsQuerySchema = z.strictObject({
  limit: queryCount(NATIVE_INTENTS_LIMIT_MAX, 50),
  cursor: z.string().max(100).optional(),
  state: z.enum(INTENT_STATES).optional(),
});

export const NativeRunRequestSchema = z.strictObject({ intent_id: ApiId, device_host: DeviceHost });

export const NativeHealthCheckRequestSchema = z.strictObject({ intent_id: ApiId, run_id: ApiId, device_host: DeviceHost });

export const NativeSmokeJobRequestSchema = z.strictObject({
  probe_id: ProbeId,
  device_host: DeviceHost,
  confirmed_run_update_count: z.number().int(),
});

export const EmptyBodySchema = z.strictObject({});

// ---- answers ----

const body = <T extends z.ZodRawShape>(shape: T) => z.object({ api_schema_version: z.literal(API_SCHEMA_VERSION), ...shape });
const Job = z.looseObject({ job_id: z.string(), state: z.string(), test: z.string() });

export const NativePreparationSchema = z.looseObject({
  preparation_id: z.string(),
  program: z.string(),
  ue2_sha256: z.string(),
  ue2_size: z.number().int(),
  entry: z.string(),
  records: z.number().int(),
  elf_sha256: z.string().nullable(),
  created_at: z.string(),
  build: z.looseObject({ toolchain: z.string(), flags: z.array(z.string()), duration_ms: z.number() }),
});
export const NativeIntentSchema = z.looseObject({
  intent_id: z.string(),
  preparation_id: z.string(),
  program: z.string(),
  ue2_sha256: z.string(),
  mode: z.enum(['one-shot', 'standing']),
  state: z.enum(INTENT_STATES),
  state_reason: z.string().nullable(),
  health_gate: z.enum(HEALTH_GATES),
  identity: z.looseObject({ device_host: z.string(), product: z.string(), firmware: z.string(), api_version: z.string() }),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  max_runs: z.number().int().nullable(),
  runs_started: z.number().int(),
  last_run_id: z.string().nullable(),
});
export const NativeRunSchema = z.looseObject({
  native_run_id: z.string(),
  intent_id: z.string(),
  utr2_token: z.string(),
  state: z.enum(NATIVE_RUN_STATES),
  steps: z.array(z.looseObject({ step: z.string(), at: z.string() })),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  outcome: z.looseObject({}).nullable(),
  evidence: z.array(z.looseObject({ name: z.string(), sha256: z.string() })),
});

export const NativePreparationPayloadSchema = body({ preparation: NativePreparationSchema });
export const NativeIntentPayloadSchema = body({ intent: NativeIntentSchema });
export const NativeIntentsPayloadSchema = body({ intents: z.array(NativeIntentSchema), next_cursor: z.string().nullable() });
export const NativeRunStartPayloadSchema = body({ native_run: NativeRunSchema, job: Job });
export const NativeRunPayloadSchema = body({ native_run: NativeRunSchema });
export const NativeEvidencePayloadSchema = body({ evidence: z.looseObject({ name: z.string(), sha256: z.string() }) });
export const NativeJobPayloadSchema = body({ job: Job });
