// The native routes in the OpenAPI document (openapi.ts spreads NATIVE_OPS into its list).
// Response shapes are described by the fields the contract names (NATIVE-API agreement); records
// carry more fields than listed (loose objects).
import { z } from 'zod';
import {
  HEALTH_GATES,
  INTENT_STATES,
  NATIVE_RUN_STATES,
  NativeHealthCheckRequestSchema,
  NativeIntentRequestSchema,
  NativeIntentsQuerySchema,
  NativePreparationRequestSchema,
  NativeRunRequestSchema,
  NativeSmokeJobRequestSchema,
} from './native-records.js';

const body = <T extends z.ZodRawShape>(shape: T) => z.object({ api_schema_version: z.literal(13), ...shape });
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

export const NATIVE_OPS = [
  {
    method: 'post' as const,
    path: '/v13/native/preparations',
    summary: 'build or take a manifest native program and store its UE2 (no hardware access)',
    body: NativePreparationRequestSchema,
    status: 201 as const,
    response: body({ preparation: NativePreparationSchema }),
  },
  {
    method: 'get' as const,
    path: '/v13/native/preparations/{preparation_id}',
    summary: 'one native preparation',
    pathParams: ['preparation_id'],
    status: 200 as const,
    response: body({ preparation: NativePreparationSchema }),
  },
  {
    method: 'post' as const,
    path: '/v13/native/intents',
    summary: 'a one-shot or standing native intent bound to the probed identity and the UE2 hash (consumes the probe)',
    body: NativeIntentRequestSchema,
    status: 201 as const,
    response: body({ intent: NativeIntentSchema }),
  },
  {
    method: 'get' as const,
    path: '/v13/native/intents',
    summary: 'native intents, newest first',
    query: NativeIntentsQuerySchema,
    status: 200 as const,
    response: body({ intents: z.array(NativeIntentSchema), next_cursor: z.string().nullable() }),
  },
  {
    method: 'get' as const,
    path: '/v13/native/intents/{intent_id}',
    summary: 'one native intent with its runs (newest first, at most 50)',
    pathParams: ['intent_id'],
    status: 200 as const,
    response: body({ intent: NativeIntentSchema }),
  },
  {
    method: 'post' as const,
    path: '/v13/native/intents/{intent_id}/revoke',
    summary: 'revoke a native intent (idempotent)',
    pathParams: ['intent_id'],
    status: 200 as const,
    response: body({ intent: NativeIntentSchema }),
  },
  {
    method: 'post' as const,
    path: '/v13/native/runs',
    summary: 'run the intent-bound program once (re-probe, latch, FTP creation, UTR2 token, Run Update)',
    body: NativeRunRequestSchema,
    status: 201 as const,
    response: body({ native_run: NativeRunSchema, job: Job }),
  },
  {
    method: 'get' as const,
    path: '/v13/native/runs/{native_run_id}',
    summary: 'one native run',
    pathParams: ['native_run_id'],
    status: 200 as const,
    response: body({ native_run: NativeRunSchema }),
  },
  {
    method: 'get' as const,
    path: '/v13/native/runs/{native_run_id}/evidence/{name}',
    summary: 'one registered evidence file of a native run (re-hashed before it is returned)',
    pathParams: ['native_run_id', 'name'],
    status: 200 as const,
    response: body({ evidence: z.looseObject({ name: z.string(), sha256: z.string() }) }),
  },
  {
    method: 'post' as const,
    path: '/v13/native/health-checks',
    summary: 'the post-recovery C64 health gate of a standing intent (no FTP, no Run Update)',
    body: NativeHealthCheckRequestSchema,
    status: 201 as const,
    response: body({ job: Job }),
  },
  {
    method: 'post' as const,
    path: '/v13/native/smoke-jobs',
    summary: 'the legacy bounded RISC-V smoke job (probe + confirmed_run_update_count 1)',
    body: NativeSmokeJobRequestSchema,
    status: 201 as const,
    response: body({ job: Job }),
  },
];
