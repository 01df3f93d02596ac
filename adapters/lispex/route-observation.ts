// Maps the engine's Observation onto the wire shape shared by both results. Where the MCP
// contract is silent the shape follows observation-result.v1 (README §9): status, stdout,
// diagnostics, warnings, exit status, values, resource outcome, metrics, identity.

import { createHash } from 'node:crypto';
import type { Observation } from '../../engines/lispex/observation.js';
import type { RouteObservation } from './result-schemas.js';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 of empty text: most programs print nothing, and hashing costs a crypto object per call. */
const EMPTY_SHA256 = sha256Hex('');

/** The contract role each built-in route fills: our tree is the court's "tree", our VM its "Rust VM". */
export const ROUTE_ROLE = { tree: 'rust-tree', vm: 'rust-vm' } as const;

export function routeObservation(observation: Observation, hostMs: number): RouteObservation {
  const { identity } = observation;
  return {
    engine: {
      role: ROUTE_ROLE[identity.route],
      route: identity.route,
      implementation: identity.engine,
      version: identity.engine_version,
    },
    identity: {
      source_sha256: identity.source_sha256,
      input_sha256: identity.input_sha256 ?? null,
      profile_id: identity.profile_id,
      meter_id: identity.meter_id,
      meter_manifest_id: identity.meter_manifest_id,
      language_profile: identity.language_profile,
      route: identity.route,
      engine: identity.engine,
      engine_version: identity.engine_version,
    },
    status: observation.status,
    exit_status: observation.exit_status,
    values: observation.values.map((v) => ({ portable: v.portable, value: v.value, printed: v.printed })),
    stdout: {
      text: observation.stdout,
      byte_length: observation.stdout_bytes,
      sha256: observation.stdout === '' ? EMPTY_SHA256 : sha256Hex(observation.stdout),
    },
    diagnostics: observation.diagnostics.map(diagnostic),
    warnings: observation.warnings.map(diagnostic),
    resource_outcome: {
      status: observation.resource_outcome.status,
      limit: observation.resource_outcome.limit ?? null,
      profile_id: observation.resource_outcome.profile_id,
      purpose: observation.resource_outcome.purpose,
      limits: { ...observation.resource_outcome.limits },
      usage: { ...observation.resource_outcome.usage },
    },
    metrics: {
      max_call_depth: observation.metrics.max_call_depth,
      call_depth_limit: observation.metrics.call_depth_limit,
      forms: observation.metrics.forms,
      wall_ms: observation.metrics.wall_ms,
      host_wall_ms: hostMs,
    },
  };
}

function diagnostic(d: Observation['diagnostics'][number]): RouteObservation['diagnostics'][number] {
  return {
    code: d.code,
    severity: d.severity,
    phase: d.phase,
    source: d.source,
    line: d.line,
    column: d.column,
    message: d.message,
    irritants: [...d.irritants],
    rendered: d.rendered,
  };
}
