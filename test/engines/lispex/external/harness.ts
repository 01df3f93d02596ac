// Shared by the external-route tests and benchmarks: the built products' paths (built once by
// scripts/build-products.mjs, never here), and one observation through the Topaz VM next to the
// built-in VM's, compared on the court's axes.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compareObservations } from '../../../../adapters/lispex/comparison.js';
import { buildExternalRequest } from '../../../../engines/lispex/external/derivation.js';
import { type FastPaths, runTopazMember } from '../../../../engines/lispex/external/topaz-route.js';
import type { ComparisonAxis, RouteObservation } from '../../../../adapters/lispex/result-schemas.js';
import { routeObservation } from '../../../../adapters/lispex/route-observation.js';
import { packageRoot } from '../../../../common/index.js';
import { LispexEvaluator } from '../../../../engines/lispex/index.js';

export const PRODUCTS_DIR = join(packageRoot(), 'dist', 'products');
export const TOPAZ_VM = join(PRODUCTS_DIR, 'topaz-vm');

/** Fail loudly (never skip) when setup did not build the products. */
export function requireTopaz(): string {
  if (!existsSync(TOPAZ_VM)) throw new Error(`${TOPAZ_VM} is missing: run \`node scripts/build-products.mjs\` (setup.sh does)`);
  return TOPAZ_VM;
}

const evaluator = new LispexEvaluator();

export function builtinObservation(source: string, route: 'tree' | 'vm', input?: string): RouteObservation {
  const o = evaluator.run(source, { route, sourceId: 'source', ...(input !== undefined ? { input } : {}) });
  return routeObservation(o, 0);
}

export async function topazObservation(source: string, input?: string, executable = requireTopaz()): Promise<RouteObservation> {
  return (await topazRun(source, input, executable)).observation;
}

/** One Topaz VM run: the observation and the product's account of its fast paths. */
export async function topazRun(
  source: string,
  input?: string,
  executable = requireTopaz(),
): Promise<{ observation: RouteObservation; fastPaths: FastPaths }> {
  const request = buildExternalRequest(source, input, 'source');
  const outcome = await runTopazMember({ executable, request, wallClockMs: 30_000, maxOutputBytes: 8 * 1024 * 1024 });
  if (outcome.kind !== 'completed') throw new Error(`topaz-vm failed on ${JSON.stringify(source)}: ${outcome.message}`);
  if (!outcome.fastPaths) throw new Error('topaz-vm reported no metrics.fast_paths');
  return { observation: outcome.observation, fastPaths: outcome.fastPaths };
}

/** The axes on which two observations disagree. */
export function mismatchAxes(a: RouteObservation, b: RouteObservation): ComparisonAxis[] {
  return compareObservations([a, b])
    .filter((x) => !x.agreement)
    .map((x) => x.axis);
}

/** Run `task` over `items` with at most `width` at a time (the machine has 2 cores). */
export async function pool<T, R>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}
