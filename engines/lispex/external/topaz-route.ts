// The Topaz VM member of a court: hand the derivation to the product, validate its answer
// strictly (protocol version, closed shape), and map it onto the route observation the built-in
// routes produce. Anything else — crash, garbage, an oversized answer, a timeout — is a product
// failure with a reason, never an observation.

import { z } from 'zod';
import { LANGUAGE_PROFILE, METER_ID, METER_MANIFEST_ID } from '../meter.js';
import type { RouteObservation } from '../route-observation-schema.js';
import { sha256Hex } from '../source.js';
import { EXTERNAL_PROTOCOL, type ExternalRequest } from './derivation.js';
import { runProduct, type ProductRunOutcome } from './product-process.js';

const DiagnosticWire = z.strictObject({
  code: z.string(),
  severity: z.enum(['error', 'warning']),
  phase: z.enum(['reader', 'normalizer', 'runtime', 'resource']),
  source: z.string(),
  line: z.number().int().min(0),
  column: z.number().int().min(0),
  message: z.string(),
  irritants: z.array(z.string()),
  rendered: z.string(),
});

const AXES = ['frontend-transition', 'token', 'normalization-step', 'machine-transition', 'output-byte', 'non-tail-call-depth'] as const;

const FastPathsWire = z.strictObject({
  quick_calls: z.number().int().min(0),
  compiled_calls: z.number().int().min(0),
  given_up: z.number().int().min(0),
});

const ProductObservationWire = z.strictObject({
  protocol: z.literal(EXTERNAL_PROTOCOL),
  status: z.enum(['ok', 'source-error', 'runtime-error', 'resource', 'infrastructure-error']),
  exit_status: z.number().int(),
  stdout: z.string(),
  values: z.array(z.strictObject({ portable: z.boolean(), value: z.looseObject({ kind: z.string() }), printed: z.string() })),
  diagnostics: z.array(DiagnosticWire),
  warnings: z.array(DiagnosticWire),
  resource_outcome: z.strictObject({
    status: z.enum(['within-limits', 'limit-exceeded']),
    limit: z.enum(AXES).nullable(),
    usage: z.strictObject({
      frontend_transitions: z.number().int().min(0),
      tokens: z.number().int().min(0),
      normalization_steps: z.number().int().min(0),
      machine_transitions: z.number().int().min(0),
      output_bytes: z.number().int().min(0),
    }),
  }),
  metrics: z.strictObject({
    max_call_depth: z.number().int().min(0),
    call_depth_limit: z.number().int().min(0),
    // Optional detail (never compared): calls completed on the product's fast paths.
    fast_paths: FastPathsWire.optional(),
    wall_ms: z.number().min(0),
  }),
  engine: z.strictObject({ implementation: z.string(), version: z.string() }),
});

/** Calls the product completed on its fast paths (`metrics.fast_paths`), as it reports them. */
export type FastPaths = Readonly<z.infer<typeof FastPathsWire>>;

export type ProductFailureReason = 'crashed' | 'garbage' | 'oversized' | 'wall-clock-exceeded' | 'cancelled' | 'spawn-failed';

export type MemberOutcome =
  | {
      readonly kind: 'completed';
      readonly observation: RouteObservation;
      readonly processesStarted: number;
      /** The product's own account of its fast paths, when it gives one (never compared). */
      readonly fastPaths?: FastPaths;
    }
  | { readonly kind: 'failed'; readonly reason: ProductFailureReason; readonly message: string; readonly processesStarted: number };

export interface TopazRunOptions {
  readonly executable: string;
  readonly request: ExternalRequest;
  readonly wallClockMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
}

export async function runTopazMember(options: TopazRunOptions): Promise<MemberOutcome> {
  const started = performance.now();
  const outcome = await runProduct({
    executable: options.executable,
    args: ['--run'],
    stdin: JSON.stringify(options.request),
    wallClockMs: options.wallClockMs,
    maxOutputBytes: options.maxOutputBytes,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  return toMemberOutcome(outcome, options.request, performance.now() - started, 'topaz-vm');
}

/** Shared by the external members: validate a finished product run into an observation. */
export function toMemberOutcome(
  outcome: ProductRunOutcome,
  request: ExternalRequest,
  hostMs: number,
  role: 'topaz-vm' | 'fresh-aot',
): MemberOutcome {
  const processesStarted = outcome.kind === 'spawn-failed' || outcome.kind === 'cancelled' ? 0 : 1;
  switch (outcome.kind) {
    case 'crashed':
      return {
        kind: 'failed',
        reason: 'crashed',
        message: `${role} exited with ${outcome.signal ?? `status ${outcome.exitCode}`}${outcome.stderr ? `: ${outcome.stderr.trim().slice(-400)}` : ''}`,
        processesStarted,
      };
    case 'oversized':
      return { kind: 'failed', reason: 'oversized', message: `${role} answered more than ${outcome.limitBytes} bytes`, processesStarted };
    case 'wall-clock-exceeded':
      return {
        kind: 'failed',
        reason: 'wall-clock-exceeded',
        message: `${role} ran past the ${outcome.limitMs} ms wall clock; its process group was killed`,
        processesStarted,
      };
    case 'cancelled':
      return { kind: 'failed', reason: 'cancelled', message: `${role} cancelled; its process group was killed`, processesStarted: 1 };
    case 'spawn-failed':
      return { kind: 'failed', reason: 'spawn-failed', message: `${role} could not be started: ${outcome.message}`, processesStarted };
    case 'exited':
      break;
  }
  let parsed: z.infer<typeof ProductObservationWire>;
  try {
    const result = ProductObservationWire.safeParse(JSON.parse(outcome.stdout));
    if (!result.success) {
      return {
        kind: 'failed',
        reason: 'garbage',
        message: `${role} answered an observation of the wrong shape: ${result.error.issues[0]?.message ?? 'invalid'}`,
        processesStarted,
      };
    }
    parsed = result.data;
  } catch {
    return { kind: 'failed', reason: 'garbage', message: `${role} answered something that is not JSON`, processesStarted };
  }
  const profile = request.resource_request;
  const observation: RouteObservation = {
    engine: { role, route: role, implementation: parsed.engine.implementation, version: parsed.engine.version },
    identity: {
      source_sha256: request.source_sha256,
      input_sha256: request.input_sha256,
      profile_id: profile.profile_id,
      meter_id: METER_ID,
      meter_manifest_id: METER_MANIFEST_ID,
      language_profile: LANGUAGE_PROFILE,
      route: role,
      engine: parsed.engine.implementation,
      engine_version: parsed.engine.version,
    },
    status: parsed.status,
    exit_status: parsed.exit_status,
    values: parsed.values as RouteObservation['values'],
    stdout: {
      text: parsed.stdout,
      byte_length: Buffer.byteLength(parsed.stdout, 'utf8'),
      sha256: sha256Hex(Buffer.from(parsed.stdout, 'utf8')),
    },
    diagnostics: parsed.diagnostics,
    warnings: parsed.warnings,
    resource_outcome: {
      status: parsed.resource_outcome.status,
      limit: parsed.resource_outcome.limit,
      profile_id: profile.profile_id,
      purpose: profile.purpose,
      limits: { ...profile.limits },
      usage: parsed.resource_outcome.usage,
    },
    metrics: {
      max_call_depth: parsed.metrics.max_call_depth,
      call_depth_limit: parsed.metrics.call_depth_limit,
      forms: request.derivation.forms.length,
      wall_ms: parsed.metrics.wall_ms,
      host_wall_ms: hostMs,
    },
  };
  return {
    kind: 'completed',
    observation,
    processesStarted,
    ...(parsed.metrics.fast_paths ? { fastPaths: parsed.metrics.fast_paths } : {}),
  };
}
