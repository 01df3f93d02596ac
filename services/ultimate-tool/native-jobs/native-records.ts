// The records of the trusted-native flow (docs/ultimate/NATIVE.md "The service flow",
// SERVICE-API.md "Native"): preparations, intents, native runs, and the request bodies of the
// native routes. Requests are closed zod objects: an unknown field (say, a health check asking to
// upload a file) is refused before anything runs.
import { z } from 'zod';

const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'expected a lower-case UUID v4');
const Host = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:_-]+$/, 'expected a host name or address');

export const INTENT_STATES = ['active', 'suspended', 'revoked', 'expired', 'exhausted', 'consumed'] as const;
export type IntentState = (typeof INTENT_STATES)[number];
export const HEALTH_GATES = ['none', 'pending', 'passed'] as const;
export type HealthGate = (typeof HEALTH_GATES)[number];
export const NATIVE_RUN_STATES = ['latched', 'uploaded', 'triggered', 'completed', 'uncertain', 'failed', 'refused'] as const;
export type NativeRunState = (typeof NATIVE_RUN_STATES)[number];
/** Run states a restarted service finds unfinished: each becomes `uncertain`, never re-run. */
export const UNFINISHED_RUN_STATES: readonly NativeRunState[] = ['latched', 'uploaded', 'triggered'];

export interface NativePreparation {
  preparation_id: string;
  program: string;
  ue2_sha256: string;
  ue2_size: number;
  entry: string;
  records: number;
  elf_sha256: string | null;
  created_at: string;
  build: { toolchain: string; flags: string[]; duration_ms: number; source: 'sources' | 'prebuilt-elf' | 'prebuilt-ue2' };
}

/** Exactly what the probe saw, bound to an intent and compared field by field before every run. */
export interface BoundIdentity {
  device_host: string;
  product: string;
  unique_id: string | null;
  hostname: string;
  firmware: string;
  fpga: string;
  core: string | null;
  api_version: string;
  virtual: boolean;
}

export interface NativeIntent {
  intent_id: string;
  preparation_id: string;
  program: string;
  ue2_sha256: string;
  mode: 'one-shot' | 'standing';
  state: IntentState;
  state_reason: string | null;
  health_gate: HealthGate;
  identity: BoundIdentity;
  probe_id: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  max_runs: number | null;
  runs_started: number;
  last_run_id: string | null;
}

export interface NativeRunStep {
  step: 'latched' | 'uploaded' | 'token-placed' | 'trigger-latched' | 'triggered' | 'output-collected' | 'finished' | 'recovered';
  at: string;
  detail?: string;
}

export interface NativeEvidence {
  name: string;
  media_type: string;
  size: number;
  sha256: string;
}

export interface NativeRun {
  native_run_id: string;
  intent_id: string;
  job_id: string;
  program: string;
  ue2_sha256: string;
  utr2_token: string;
  device_file: string;
  state: NativeRunState;
  steps: NativeRunStep[];
  started_at: string;
  finished_at: string | null;
  outcome: Record<string, unknown> | null;
  evidence: NativeEvidence[];
}

export type NativeRunSummary = Pick<NativeRun, 'native_run_id' | 'state' | 'started_at' | 'finished_at' | 'utr2_token'>;

// ---- request bodies ----

export const NativePreparationRequestSchema = z.strictObject({
  program: z.string().min(1).max(64).describe('a name from the manifest\'s "native_programs"'),
});

export const NativeIntentRequestSchema = z
  .strictObject({
    preparation_id: Uuid,
    probe_id: z.string().min(1).max(100),
    mode: z.enum(['one-shot', 'standing']),
    confirmed_standing_authorization: z.boolean().optional(),
    expires_at: z.iso.datetime({ offset: true }).optional(),
    max_runs: z.number().int().min(1).max(1_000_000).optional(),
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
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(100).optional(),
  state: z.enum(INTENT_STATES).optional(),
});

export const NativeRunRequestSchema = z.strictObject({ intent_id: Uuid, device_host: Host });

export const NativeHealthCheckRequestSchema = z.strictObject({ intent_id: Uuid, run_id: Uuid, device_host: Host });

export const NativeSmokeJobRequestSchema = z.strictObject({
  probe_id: z.string().min(1).max(100),
  device_host: Host,
  confirmed_run_update_count: z.number().int(),
});

export const EmptyBodySchema = z.strictObject({});
