// The seven native tools' inputs (closed, validated before any request) and what the adapter
// relies on in the service's native answers (SERVICE-API.md "Native"; loose objects, passed on
// unchanged).
import { z } from 'zod';
import { HOST, MAX_RUNS_MAX, NativeProgramName, ProbeId } from '../../services/ultimate-tool/api/fields.js';
import { API_SCHEMA_VERSION, JobSchema } from './api-schemas.js';
import { uuidField } from './input-schemas.js';

const apiBody = <S extends z.ZodRawShape>(shape: S) => z.looseObject({ api_schema_version: z.literal(API_SCHEMA_VERSION), ...shape });
const OPAQUE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const host = z
  .string()
  .min(1)
  .max(253)
  .regex(HOST, 'device_host must be a host name or address (the one the probe showed)')
  .describe('as the intent’s identity shows it');

export const INTENT_STATES = ['active', 'suspended', 'revoked', 'expired', 'exhausted', 'consumed'] as const;

// ---- inputs ----

export const CreateNativePreparationArgs = z.strictObject({
  program: NativeProgramName.regex(
    /^[a-z0-9][a-z0-9_-]*$/,
    'program must be a native program name from get_project (native_programs)',
  ).describe('a name from the manifest native_programs (see get_project)'),
});

export const CreateNativeIntentArgs = z
  .strictObject({
    preparation_id: uuidField('preparation_id'),
    probe_id: ProbeId.regex(OPAQUE_ID, 'probe_id must be the id probe_ultimate returned').describe('from probe_ultimate; consumed'),
    mode: z.enum(['one-shot', 'standing']),
    confirmed_standing_authorization: z.boolean().optional().describe('required true for mode standing'),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('standing: ISO-8601 expiry'),
    max_runs: z.number().int().min(1).max(MAX_RUNS_MAX).optional().describe('standing: the most runs it allows'),
  })
  .superRefine((r, ctx) => {
    if (r.mode === 'standing' && r.confirmed_standing_authorization !== true)
      ctx.addIssue({
        code: 'custom',
        path: ['confirmed_standing_authorization'],
        message: 'a standing intent needs confirmed_standing_authorization: true',
      });
    if (r.mode === 'one-shot' && (r.max_runs !== undefined || r.confirmed_standing_authorization !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['mode'],
        message: 'max_runs and confirmed_standing_authorization apply only to mode standing',
      });
  });

export const IntentIdArgs = z.strictObject({ intent_id: uuidField('intent_id') });

export const StartNativeRunArgs = z.strictObject({ intent_id: uuidField('intent_id'), device_host: host });

export const StartNativeHealthCheckArgs = z.strictObject({
  intent_id: uuidField('intent_id'),
  run_id: uuidField('run_id').describe('the native_run_id of the intent’s latest run'),
  device_host: host,
});

export const StartRiscvSmokeJobArgs = z.strictObject({
  probe_id: ProbeId.regex(OPAQUE_ID, 'probe_id must be the id probe_ultimate returned'),
  device_host: host,
  confirmed_run_update_count: z.literal(1).describe('must be 1 (one Run Update)'),
});

// ---- answers ----

const Preparation = z.looseObject({ preparation_id: z.string(), program: z.string(), ue2_sha256: z.string() });
const Intent = z.looseObject({
  intent_id: z.string(),
  mode: z.enum(['one-shot', 'standing']),
  state: z.enum(INTENT_STATES),
  health_gate: z.enum(['none', 'pending', 'passed']),
  identity: z.looseObject({}),
});
const NativeRun = z.looseObject({ native_run_id: z.string(), intent_id: z.string(), utr2_token: z.string(), state: z.string() });

export const NativePreparationBodySchema = apiBody({ preparation: Preparation });
export const NativeIntentBodySchema = apiBody({ intent: Intent });
export const NativeRunStartBodySchema = apiBody({ native_run: NativeRun, job: JobSchema });
export const NativeJobBodySchema = apiBody({ job: JobSchema });
export type NativePreparationBody = z.infer<typeof NativePreparationBodySchema>;
export type NativeIntentBody = z.infer<typeof NativeIntentBodySchema>;
export type NativeRunStartBody = z.infer<typeof NativeRunStartBodySchema>;
export type NativeJobBody = z.infer<typeof NativeJobBodySchema>;
