// Shared helpers for the Lispex core tests: run a program on one route or on both (asserting
// the routes agree on every semantic axis) and read the interesting parts of the observation.

import assert from 'node:assert/strict';
import { LispexEvaluator, type Observation, type ResourceLimits, type Route } from '../../../engines/lispex/index.js';

export const evaluator = new LispexEvaluator();
export const ROUTES: readonly Route[] = ['tree', 'vm'];

export interface RunOpts {
  input?: string;
  limits?: Partial<ResourceLimits>;
  sourceId?: string;
}

const BASE_LIMITS: ResourceLimits = {
  'frontend-transition-limit': 20_000_000,
  'token-limit': 2_000_000,
  'normalization-step-limit': 20_000_000,
  'machine-transition-limit': 100_000_000,
  'output-byte-limit': 1_048_576,
};

export function run(source: string | Uint8Array, route: Route, opts: RunOpts = {}): Observation {
  return evaluator.run(source, {
    route,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.sourceId !== undefined ? { sourceId: opts.sourceId } : {}),
    ...(opts.limits !== undefined ? { limits: { ...BASE_LIMITS, ...opts.limits } } : {}),
  });
}

/** The semantic part of an observation (what the routes must agree on). */
export function semantic(o: Observation): unknown {
  const { metrics: _m, identity, resource_outcome, ...rest } = o;
  const { usage: _u, ...outcome } = resource_outcome;
  return { ...rest, outcome, source: identity.source_sha256 };
}

/** Run on both routes, assert they agree, return the tree's observation. */
export function both(source: string | Uint8Array, opts: RunOpts = {}): Observation {
  const tree = run(source, 'tree', opts);
  const vm = run(source, 'vm', opts);
  assert.deepEqual(semantic(vm), semantic(tree), `routes disagree on:\n${typeof source === 'string' ? source : '<bytes>'}`);
  return tree;
}

/** The printed values of a successful run (asserts status ok). */
export function values(o: Observation): string[] {
  assert.equal(o.status, 'ok', `expected ok, got ${o.status}: ${o.diagnostics.map((d) => d.rendered).join('; ')}`);
  return o.values.map((v) => v.printed);
}

/** Value of a one-value program on both routes. */
export function value(source: string, opts: RunOpts = {}): string {
  const vs = values(both(source, opts));
  assert.equal(vs.length, 1, `expected one value, got ${vs.length}`);
  return vs[0]!;
}

/** The single error diagnostic of a failed run on both routes. */
export function failure(
  source: string | Uint8Array,
  opts: RunOpts = {},
): { code: string; rendered: string; line: number; column: number; status: string; phase: string } {
  const o = both(source, opts);
  assert.notEqual(o.status, 'ok', 'expected a failure');
  assert.equal(o.diagnostics.length, 1);
  const d = o.diagnostics[0]!;
  return { code: d.code, rendered: d.rendered, line: d.line, column: d.column, status: o.status, phase: d.phase };
}
