// The records of the trusted-native flow (docs/ultimate/NATIVE.md "The service flow",
// SERVICE-API.md "Native"): preparations, intents, native runs, and the request bodies of the
// native routes. Requests are closed zod objects: an unknown field (say, a health check asking to
// upload a file) is refused before anything runs.

import type { HealthGate, IntentState, NativeRunState } from '../../api/native-schemas.js';

// The request bodies and states are part of the API's one declaration (api/native-schemas.ts).
export {
  EmptyBodySchema,
  HEALTH_GATES,
  type HealthGate,
  INTENT_STATES,
  type IntentState,
  NATIVE_RUN_STATES,
  NativeHealthCheckRequestSchema,
  type NativeIntentRequest,
  NativeIntentRequestSchema,
  NativeIntentsQuerySchema,
  NativePreparationRequestSchema,
  NativeRunRequestSchema,
  type NativeRunState,
  NativeSmokeJobRequestSchema,
} from '../../api/native-schemas.js';
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
