// The five-axis resource meter of meter-manifest.v3 (`lispex.product-resource-meter/v1`) and the
// limits of resource-profiles.v1. Every charge is reserved before its event and admitted only if
// current + amount <= limit; a denied charge changes no counter and throws `ResourceExhausted`.
// The evaluators keep the machine-transition counter in a local variable on their hot path and
// write it back through `machine` (see tree/machine.ts and vm/vm.ts); the rule is the same.

import profilesJson from './contracts/resource-profiles.v1.json' with { type: 'json' };
import meterJson from './contracts/meter-manifest.v3.json' with { type: 'json' };
import type { SourcePosition } from './diagnostics.js';
import type { MeterAxis, ResourceLimits, ResourceUsage } from './observation.js';

export const METER_ID: string = meterJson.meter_id;
export const METER_MANIFEST_ID: string = meterJson.manifest_id;
export const LANGUAGE_PROFILE: string = meterJson.semantic_profile_id;
/** The profile of this product (MCP local authoring). */
export const DEFAULT_PROFILE_ID = 'lispex-mcp-local-authoring/v1';

export interface ResourceProfile {
  readonly id: string;
  readonly purpose: string;
  readonly public_selectable: boolean;
  readonly limits: ResourceLimits;
}

const LIMIT_FIELDS = profilesJson.fields as (keyof ResourceLimits)[];

function limitsFromArray(values: number[]): ResourceLimits {
  return Object.fromEntries(LIMIT_FIELDS.map((f, i) => [f, values[i]])) as unknown as ResourceLimits;
}

/** Every profile of resource-profiles.v1, by id. */
export const RESOURCE_PROFILES: ReadonlyMap<string, ResourceProfile> = new Map(
  profilesJson.profiles.map((p) => [
    p.id,
    { id: p.id, purpose: p.purpose, public_selectable: p.public_selectable, limits: limitsFromArray(p.limits) },
  ]),
);

export function profileById(id: string): ResourceProfile {
  const p = RESOURCE_PROFILES.get(id);
  if (p === undefined) throw new Error(`unknown resource profile ${JSON.stringify(id)}`);
  return p;
}

/** Exhaustion code per axis (meter-manifest.v3 `exhaustion_code`). */
export const EXHAUSTION_CODES: Readonly<Record<MeterAxis, string>> = Object.fromEntries(
  meterJson.axes.map((a) => [a.axis_id, a.exhaustion_code]),
) as Record<MeterAxis, string>;

/** Thrown when a reservation is denied. Never caught by guest code (not a guest condition). */
export class ResourceExhausted extends Error {
  /** Source position of the denied event, filled by the stage that knows it. */
  at?: SourcePosition;
  constructor(readonly axis: MeterAxis) {
    super(`${EXHAUSTION_CODES[axis]}: ${axis} limit exceeded`);
    this.name = 'ResourceExhausted';
  }
}

export class Meter {
  frontend = 0;
  tokens = 0;
  normalization = 0;
  machine = 0;
  output = 0;
  readonly frontendLimit: number;
  readonly tokenLimit: number;
  readonly normalizationLimit: number;
  readonly machineLimit: number;
  readonly outputLimit: number;

  constructor(readonly limits: ResourceLimits) {
    this.frontendLimit = limits['frontend-transition-limit'];
    this.tokenLimit = limits['token-limit'];
    this.normalizationLimit = limits['normalization-step-limit'];
    this.machineLimit = limits['machine-transition-limit'];
    this.outputLimit = limits['output-byte-limit'];
  }

  chargeFrontend(): void {
    if (this.frontend + 1 > this.frontendLimit) throw new ResourceExhausted('frontend-transition');
    this.frontend++;
  }
  chargeToken(): void {
    if (this.tokens + 1 > this.tokenLimit) throw new ResourceExhausted('token');
    this.tokens++;
  }
  chargeNormalization(): void {
    if (this.normalization + 1 > this.normalizationLimit) throw new ResourceExhausted('normalization-step');
    this.normalization++;
  }
  chargeMachine(): void {
    if (this.machine + 1 > this.machineLimit) throw new ResourceExhausted('machine-transition');
    this.machine++;
  }
  chargeOutput(bytes: number): void {
    if (this.output + bytes > this.outputLimit) throw new ResourceExhausted('output-byte');
    this.output += bytes;
  }

  usage(): ResourceUsage {
    return {
      frontend_transitions: this.frontend,
      tokens: this.tokens,
      normalization_steps: this.normalization,
      machine_transitions: this.machine,
      output_bytes: this.output,
    };
  }
}

/**
 * The non-tail call depth limit (HOST-SAFETY-RESOURCE-1), the same on both routes so they agree
 * on which programs reach it. Frames live on the heap on both routes, so this bounds memory, not
 * the JS stack.
 */
export const CALL_DEPTH_LIMIT = 100_000;
/**
 * How many primitive→guest re-entries (hof primitives calling `rt.apply`) may nest. Each one
 * uses JS stack, so this is kept well below what the default JS stack holds. Reaching it is
 * also `recursion-limit`.
 */
export const REENTRY_LIMIT = 200;

/**
 * Host-safety bounds on program shape, checked before anything runs so both routes agree: datum
 * nesting in the reader, and the depth of each normalized form (the normalizer and the compiler
 * recurse over them on the JS stack). Exceeding either is `recursion-limit`.
 */
export const MAX_DATUM_NESTING = 512;
export const MAX_FORM_DEPTH = 600;
