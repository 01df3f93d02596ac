// Route comparison on the semantic axes of observation-result.v1. Usage counters are not
// compared (METER-USAGE-COMPARISON-1: backend-local admitted work); the resource outcome's
// status, limit, limits, profile and purpose are. Metrics, identity and wall time never are.

import { COMPARISON_AXES, type ComparisonAxis, type RouteObservation } from './result-schemas.js';

type AxisProjection = (o: RouteObservation) => unknown;

const AXIS_PROJECTIONS: Record<ComparisonAxis, AxisProjection> = {
  status: (o) => o.status,
  'stdout-bytes': (o) => o.stdout.text,
  'diagnostic-code-message-irritants-span-bytes': (o) =>
    o.diagnostics.map((d) => [d.code, d.phase, d.source, d.line, d.column, d.message, d.irritants, d.rendered]),
  'warning-order-and-bytes': (o) => o.warnings.map((w) => [w.code, w.line, w.column, w.rendered]),
  'exit-status': (o) => o.exit_status,
  'value-projection': (o) => o.values,
  'resource-outcome': (o) => {
    const r = o.resource_outcome;
    return [r.status, r.limit, r.profile_id, r.purpose, r.limits];
  },
};

export interface AxisAgreement {
  readonly axis: ComparisonAxis;
  readonly agreement: boolean;
}

/** Compare every member against the first, axis by axis (all members must agree on an axis). */
export function compareObservations(observations: readonly RouteObservation[]): AxisAgreement[] {
  return COMPARISON_AXES.map((axis) => {
    const project = AXIS_PROJECTIONS[axis];
    const reference = canonicalJson(project(observations[0]!));
    return { axis, agreement: observations.every((o) => canonicalJson(project(o)) === reference) };
  });
}

/** JSON with object keys sorted, so key order never decides a comparison. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v as Record<string, unknown>).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
