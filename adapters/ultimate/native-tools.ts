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

// destructiveHint and idempotentHint are left out: MCP gives them meaning only when readOnlyHint is false.
const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
// readOnlyHint: false and idempotentHint: false are MCP's defaults, so they are not sent.
const LOCAL_WRITE: ToolAnnotations = { destructiveHint: false, openWorldHint: false };
const DEVICE: ToolAnnotations = { destructiveHint: true, openWorldHint: false };

export function defineNativeTools(tools: ToolRegistry, client: UltimateServiceClient): void {
  tools.define({
    name: 'create_native_preparation',
    title: 'Prepare a native program',
    description:
      "Builds a manifest native program for the Elite II's RISC-V core as a .UE2 file with its SHA-256; no " +
      'hardware access. Next: probe_ultimate, show the user the identity, create_native_intent.',
    input: CreateNativePreparationArgs,
    output: NativePreparationBodySchema,
    annotations: LOCAL_WRITE,
    handler: (args, ctx) => client.createNativePreparation(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'create_native_intent',
    title: 'Authorize a native program',
    description:
      'Authorizes a prepared program on the probed Elite II: consumes the probe_id, binds the exact ' +
      'identity and UE2 hash. Safety: standing mode needs confirmed_standing_authorization: true from the ' +
      'user; native code replaces the firmware until a power cycle.',
    input: CreateNativeIntentArgs,
    output: NativeIntentBodySchema,
    annotations: LOCAL_WRITE,
    handler: (args, ctx) => client.createNativeIntent(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'get_native_intent',
    title: 'Get a native intent',
    description: 'A native intent: state, reason, health gate, bound identity and its runs.',
    input: IntentIdArgs,
    output: NativeIntentBodySchema,
    annotations: READ,
    handler: ({ intent_id }, ctx) => client.getNativeIntent(intent_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'revoke_native_intent',
    title: 'Revoke a native intent',
    description: 'Revokes a native intent for good (idempotent); a run past its last latch is not stopped.',
    input: IntentIdArgs,
    output: NativeIntentBodySchema,
    annotations: { ...LOCAL_WRITE, idempotentHint: true },
    handler: ({ intent_id }, ctx) => client.revokeNativeIntent(intent_id, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_native_run',
    title: 'Run the authorized native program',
    description:
      "Runs the intent's program once: re-probes, requires the bound identity and UE2 hash, latches, " +
      'uploads, triggers Run Update; returns a job (poll get_job). Safety: an uncertain step suspends the ' +
      'intent, nothing is retried; the device stays native until power-cycled.',
    input: StartNativeRunArgs,
    output: NativeRunStartBodySchema,
    annotations: DEVICE,
    handler: (args, ctx) => client.startNativeRun(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_native_health_check',
    title: 'Complete the post-recovery health gate',
    description:
      "After a power cycle, completes a standing intent's pending health gate: rechecks the identity, runs " +
      'a C64 health program (no FTP, no Run Update); the intent is active again only if the job passes.',
    input: StartNativeHealthCheckArgs,
    output: NativeJobBodySchema,
    annotations: { ...DEVICE, destructiveHint: false },
    handler: (args, ctx) => client.startNativeHealthCheck(args, { signal: ctx.signal }),
  });

  tools.define({
    name: 'start_riscv_smoke_job',
    title: 'RISC-V smoke job (legacy bounded smoke)',
    description:
      'Legacy bounded smoke: runs the built-in RISC-V smoke program once on an Elite II. Safety: needs a ' +
      'fresh probe_id and confirmed_run_update_count: 1; the device stays native until power-cycled.',
    input: StartRiscvSmokeJobArgs,
    output: NativeJobBodySchema,
    annotations: DEVICE,
    handler: (args, ctx) => client.startRiscvSmokeJob(args, { signal: ctx.signal }),
  });
}
