// Runs R7RS corpus cases through the courts of `lispex_compare_routes` exactly as a client sees
// them: the real tool set (adapters/lispex) with a real worker host and the built products
// (dist/products, from scripts/build-products.mjs), reached by the official MCP SDK client over
// an in-memory transport. The court code compares the members; this file only checks every
// member's observation against the case's expectation.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parseStartupProducts } from '../../../../adapters/lispex/products.js';
import { ComparisonResultSchema } from '../../../../adapters/lispex/result-schemas.js';
import { LispexHost } from '../../../../engines/lispex/host/index.js';
import { PRODUCTS_DIR, requireTopaz } from '../external/harness.js';
import { connectInMemory } from '../../../adapters/lispex/helpers.js';
import { type ObservedOutcome, type R7rsCase, expectationDiffs } from './corpus.js';

const COMPARISON_WALL_CLOCK_MS = 660_000;

export const R7RS_COURTS = ['rust-topaz', 'all-four'] as const;
export type R7rsCourt = (typeof R7RS_COURTS)[number];

export interface CourtSession {
  readonly client: Client;
  close(): Promise<void>;
}

/** A Lispex MCP server with all three startup products and a real worker host. */
export async function openCourtSession(): Promise<CourtSession> {
  const rustc = readFileSync(join(PRODUCTS_DIR, 'topaz-runtime', 'RUSTC'), 'utf8').trim();
  const products = parseStartupProducts([
    '--topaz-vm',
    requireTopaz(),
    '--topaz-compiler',
    join(PRODUCTS_DIR, 'topaz-compiler'),
    '--rust-tools',
    rustc,
  ]);
  const host = new LispexHost({ warmWorkers: 2, maxConcurrent: 4 });
  const { client, close } = await connectInMemory(host, products);
  return {
    client,
    close: async () => {
      await close();
      await host.close();
    },
  };
}

export interface CaseVerdict {
  readonly court: R7rsCourt;
  readonly id: string;
  /** The court's own agreement across its members. */
  readonly agreement: boolean;
  readonly mismatchAxes: readonly string[];
  /** Per member, how its observation differs from the case's expectation. */
  readonly expectationDiffs: ReadonlyArray<{ member: string; diffs: string[] }>;
  /** The tool failed (no comparison delivered): its error text. */
  readonly toolError?: string;
}

export function verdictPasses(v: CaseVerdict): boolean {
  return v.toolError === undefined && v.agreement && v.expectationDiffs.every((m) => m.diffs.length === 0);
}

/** One case through one court. */
export async function runCase(session: CourtSession, court: R7rsCourt, c: R7rsCase): Promise<CaseVerdict> {
  // The SDK client's default 60 s request timeout is shorter than the court's own 660,000 ms
  // comparison wall clock (an all-four call builds a fresh AOT product, slow on a loaded machine).
  const result = await session.client.callTool({ name: 'lispex_compare_routes', arguments: { court, source: c.program } }, undefined, {
    timeout: COMPARISON_WALL_CLOCK_MS,
  });
  // The structured result as the client received it. (Not the text copy: JSON text cannot carry
  // the -0 of a -0.0 value projection, while in-memory structuredContent keeps it, so comparing
  // the two, as test/adapters/lispex/helpers.ts payload() does, fails on the corpus's -0.0 case.)
  const first = (result.content as Array<{ type: string; text?: string }>)[0];
  const r = result.structuredContent ?? JSON.parse(first?.text ?? 'null');
  if (result.isError) {
    return { court, id: c.id, agreement: false, mismatchAxes: [], expectationDiffs: [], toolError: JSON.stringify(r) };
  }
  const parsed = ComparisonResultSchema.parse(r);
  if (!parsed.court_available) throw new Error(`court ${court} unavailable: ${JSON.stringify(parsed.unavailable_reason)}`);
  return {
    court,
    id: c.id,
    agreement: parsed.agreement === true,
    mismatchAxes: parsed.mismatch_axes,
    expectationDiffs: parsed.observations.map((o) => ({
      member: o.member,
      diffs: expectationDiffs(c, o as ObservedOutcome),
    })),
  };
}

/** A one-paragraph account of a failing verdict (for a test message or the bench's listing). */
export function describeVerdict(c: R7rsCase, v: CaseVerdict): string {
  const lines = [
    `${v.court} ${c.id} (${c.file}:${c.line}, §${c.section} ${c.title})`,
    `  program: ${c.program.replace(/\n/g, '\n           ')}`,
  ];
  if (v.toolError !== undefined) lines.push(`  tool error: ${v.toolError.slice(0, 600)}`);
  if (!v.agreement && v.toolError === undefined) lines.push(`  members disagree on: ${v.mismatchAxes.join(', ')}`);
  for (const m of v.expectationDiffs) for (const d of m.diffs) lines.push(`  ${m.member}: ${d}`);
  return lines.join('\n');
}
