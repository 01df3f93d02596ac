// The seven tools of the trusted-native flow (contract: "Physical-device safety"). Each validates
// its input locally (native-schemas.ts) and forwards to one native route of the service; the
// descriptions tell the model what to show the user and what needs the user's confirmation.
import type { ToolAnnotations, ToolRegistry } from '../../src/index.js';
import {
  CreateNativeIntentArgs,
  CreateNativePreparationArgs,
  IntentIdArgs,
  NativeIntentBodySchema,
  NativeJobBodySchema,
  NativePreparationBodySchema,
  NativeRunStartBodySchema,
  StartNativeHealthCheckArgs,
  StartNativeRunArgs,
  StartRiscvSmokeJobArgs,
} from './native-schemas.js';
import type { UltimateServiceClient } from './service-client.js';

export const NATIVE_TOOL_NAMES = [
  'create_native_preparation',
  'create_native_intent',
  'get_native_intent',
  'revoke_native_intent',
  'start_native_run',
  'start_native_health_check',
  'start_riscv_smoke_job',
] as const;

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const LOCAL_WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const DEVICE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

export function defineNativeTools(tools: ToolRegistry, client: UltimateServiceClient): void {
  tools.define({
    name: 'create_native_preparation',
    title: 'Prepare a native program',
    description:
      'No hardware access. Builds (or takes) a native program named in the project manifest (get_project: native_programs) for the ' +
      'Ultimate 64 Elite II’s RISC-V core, packs it as a .UE2 update file and records its SHA-256. Next: probe_ultimate, ' +
      'show the user the full identity, then create_native_intent.',
    input: CreateNativePreparationArgs,
    output: NativePreparationBodySchema,
    annotations: LOCAL_WRITE,
    handler: (args, ctx) => client.createNativePreparation(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'create_native_intent',
    title: 'Authorize a native program',
    description:
      'Consumes a probe_ultimate probe_id and binds the exact probed identity (device host, product, firmware, FPGA/core, API version) ' +
      'and the preparation’s UE2 hash. mode one-shot runs once; mode standing needs confirmed_standing_authorization: true (the user ' +
      'explicitly granted standing permission for this program on this device) and may carry expires_at and max_runs. ' +
      'Only an Ultimate 64 Elite II is accepted. Native code replaces the firmware until the device is power-cycled.',
    input: CreateNativeIntentArgs,
    output: NativeIntentBodySchema,
    annotations: LOCAL_WRITE,
    handler: (args, ctx) => client.createNativeIntent(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_native_intent',
    title: 'Get a native intent',
    description:
      'One native intent: state (active, suspended, revoked, expired, exhausted, consumed), reason, health gate, bound identity and its runs.',
    input: IntentIdArgs,
    output: NativeIntentBodySchema,
    annotations: READ,
    handler: ({ intent_id }, ctx) => client.getNativeIntent(intent_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'revoke_native_intent',
    title: 'Revoke a native intent',
    description: 'Revokes a native intent for good (idempotent). A run already past its last latch is not stopped by it.',
    input: IntentIdArgs,
    output: NativeIntentBodySchema,
    annotations: { ...LOCAL_WRITE, idempotentHint: true },
    handler: ({ intent_id }, ctx) => client.revokeNativeIntent(intent_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_native_run',
    title: 'Run the authorized native program',
    description:
      'Runs the intent’s program once on the bound device: the service re-probes and requires the exact bound identity and UE2 hash, ' +
      'gives the run a new native_run_id and UTR2 token, durably latches the authorization, uploads the update file and triggers ' +
      'Run Update. Returns at the latch; poll get_job (or get_native_intent) until finished. The token must come back in the ' +
      'program’s output. An uncertain step suspends the intent; nothing is retried. The device stays native until power-cycled.',
    input: StartNativeRunArgs,
    output: NativeRunStartBodySchema,
    annotations: DEVICE,
    handler: (args, ctx) => client.startNativeRun(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_native_health_check',
    title: 'Complete the post-recovery health gate',
    description:
      'For a standing intent whose latest run left the health gate pending, after the device was power-cycled: rechecks the exact ' +
      'identity and runs a small C64 health program through the ordinary run path (no FTP, no Run Update). The intent becomes ' +
      'active again only if the job passes. Poll get_job.',
    input: StartNativeHealthCheckArgs,
    output: NativeJobBodySchema,
    annotations: { ...DEVICE, destructiveHint: false },
    handler: (args, ctx) => client.startNativeHealthCheck(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_riscv_smoke_job',
    title: 'RISC-V smoke job (legacy bounded smoke)',
    description:
      'Legacy bounded smoke: runs the built-in RISC-V smoke program once on an Ultimate 64 Elite II (CRC32, a sieve, multiply/divide; ' +
      'expects "SMOKE crc=cbf43926 primes=00000234 OK") with a strict time bound. Needs a fresh probe_ultimate probe_id and ' +
      'confirmed_run_update_count: 1. The device stays native until power-cycled. Poll get_job.',
    input: StartRiscvSmokeJobArgs,
    output: NativeJobBodySchema,
    annotations: DEVICE,
    handler: (args, ctx) => client.startRiscvSmokeJob(args, { signal: ctx.signal }),
  });
}
