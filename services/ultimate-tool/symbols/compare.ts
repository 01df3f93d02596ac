// compareRuns: what changed between a baseline run and a candidate run of the same test on the
// same target (comparison schema 1): the outcome, timings and budgets from the run records, and
// section (ld65 segment), object (module) and symbol sizes from their snapshotted map and label
// files. `compared`, `unavailable` and `incompatible` are all results, never exceptions; a file
// that cannot be read or parsed is an exception (readArtifact's, or SymbolFileError).
import { type BehaviourComparison, compareBehaviour } from './behaviour-compare.js';
import { parseSymbolFile } from './parse.js';
import { isSymbolFormat } from './parse.js';
import type { SegmentEntry, SymbolTable } from './symbol-table.js';

export const COMPARISON_SCHEMA_VERSION = 1;

/** The part of a run record (schema 9) a comparison reads. */
export interface ComparableRun {
  readonly run_id: string;
  readonly test: string;
  readonly target: string;
  readonly status: string;
  readonly candidate?: { readonly artifact_sha256?: string | null; readonly artifact_name?: string };
  /** `object`, not a record type: a service's own interface (no index signature) must fit. */
  readonly timings?: object | null;
  readonly expectations?: object | null;
  readonly supporting_artifacts: readonly { readonly role: string; readonly format: string; readonly name: string }[];
  readonly observations?: object | null;
  readonly crash_state?: object | null;
}

/** Reads one registered supporting artifact of a run (the service checks size and checksum). */
export type ReadArtifact<R extends ComparableRun> = (run: R, name: string) => Promise<string>;

export interface SizeDifference {
  readonly name: string;
  /** null: absent from that run. */
  readonly baseline_size: number | null;
  readonly candidate_size: number | null;
  /** candidate − baseline, with an absent side counted as 0. */
  readonly delta: number;
}

export interface SymbolDifference extends SizeDifference {
  readonly baseline_address: number | null;
  readonly candidate_address: number | null;
}

export interface NumberDifference {
  readonly field: string;
  readonly baseline: number | null;
  readonly candidate: number | null;
  readonly delta: number | null;
}

export interface RunComparison {
  readonly comparison_schema_version: 1;
  readonly result: 'compared' | 'unavailable' | 'incompatible';
  readonly baseline_run_id: string;
  readonly candidate_run_id: string;
  readonly context: string | null;
  /** Why the result is not `compared` (null when it is). */
  readonly reason: string | null;
  readonly outcome: { readonly baseline: string; readonly candidate: string; readonly changed: boolean };
  readonly artifact: { readonly baseline_sha256: string | null; readonly candidate_sha256: string | null; readonly identical: boolean };
  /** Every numeric field of `timings`, side by side (null when incompatible). */
  readonly timing: readonly NumberDifference[] | null;
  /** Every numeric expectation whose name contains "budget" (null when incompatible). */
  readonly budget: readonly NumberDifference[] | null;
  /** Where the sizes come from: both runs' ld65 maps, or label files only (no sections/objects). */
  readonly sizes_from: 'ld65-map' | 'labels' | null;
  /** Every segment of either run (null without maps). */
  readonly sections: readonly SizeDifference[] | null;
  /** Every object file of either run (null without maps). */
  readonly objects: readonly SizeDifference[] | null;
  /** Only the symbols whose size or address changed, or that appear in one run only. */
  readonly symbols: readonly SymbolDifference[] | null;
  readonly unchanged_symbols: number | null;
  /** What the two runs did, field by field (also across targets). */
  readonly behaviour: BehaviourComparison;
}

interface RunTables {
  readonly tables: SymbolTable[];
  readonly hasMap: boolean;
}

async function tablesOf<R extends ComparableRun>(run: R, readArtifact: ReadArtifact<R>): Promise<RunTables> {
  const tables: SymbolTable[] = [];
  for (const artifact of run.supporting_artifacts) {
    if ((artifact.role !== 'map' && artifact.role !== 'labels') || !isSymbolFormat(artifact.format)) continue;
    tables.push(parseSymbolFile(artifact.format, await readArtifact(run, artifact.name), artifact.name));
  }
  return { tables, hasMap: tables.some((t) => t.format === 'ld65-map') };
}

export async function compareRuns<R extends ComparableRun>(
  baseline: R,
  candidate: R,
  readArtifact: ReadArtifact<R>,
  context?: string | null,
): Promise<RunComparison> {
  const ctx = context ?? null;
  const baseSha = baseline.candidate?.artifact_sha256 ?? null;
  const candSha = candidate.candidate?.artifact_sha256 ?? null;
  const common = {
    comparison_schema_version: COMPARISON_SCHEMA_VERSION,
    baseline_run_id: baseline.run_id,
    candidate_run_id: candidate.run_id,
    context: ctx,
    outcome: { baseline: baseline.status, candidate: candidate.status, changed: baseline.status !== candidate.status },
    artifact: { baseline_sha256: baseSha, candidate_sha256: candSha, identical: baseSha !== null && baseSha === candSha },
    // What the runs did, field by field — across targets too (a vice run against an ultimate run).
    behaviour: compareBehaviour(baseline, candidate),
  } as const;
  const none = { sizes_from: null, sections: null, objects: null, symbols: null, unchanged_symbols: null } as const;

  const mismatch = [baseline.test !== candidate.test ? `tests differ (${baseline.test} vs ${candidate.test})` : null].filter(
    (m): m is string => m !== null,
  );
  if (mismatch.length > 0) {
    return {
      ...common,
      ...none,
      result: 'incompatible',
      reason: `${mismatch.join('; ')}: only runs of one test compare (on one target or two)`,
      timing: null,
      budget: null,
    };
  }

  const timing = numberDifferences(baseline.timings, candidate.timings, () => true);
  const budget = numberDifferences(baseline.expectations, candidate.expectations, (key) => key.includes('budget'));
  const [b, c] = [await tablesOf(baseline, readArtifact), await tablesOf(candidate, readArtifact)];
  const missing = [b.tables.length === 0 ? 'baseline' : null, c.tables.length === 0 ? 'candidate' : null].filter((m) => m !== null);
  if (missing.length > 0) {
    return {
      ...common,
      ...none,
      result: 'unavailable',
      reason: `the ${missing.join(' and ')} run${missing.length > 1 ? 's have' : ' has'} no snapshotted label or map file`,
      timing,
      budget,
    };
  }
  const withMaps = b.hasMap && c.hasMap;
  const bSegments = b.tables.flatMap((t) => t.segments);
  const cSegments = c.tables.flatMap((t) => t.segments);
  const bSymbols = symbolSizes(b.tables, withMaps ? bSegments : null, ctx);
  const cSymbols = symbolSizes(c.tables, withMaps ? cSegments : null, ctx);
  const contextKnown =
    ctx === null ||
    [...bSegments, ...cSegments].some((s) => s.name === ctx) ||
    bSymbols.size > 0 ||
    cSymbols.size > 0 ||
    [...b.tables, ...c.tables].some((t) => t.file === ctx);
  if (!contextKnown) {
    return {
      ...common,
      ...none,
      result: 'unavailable',
      reason: `neither run's symbol files know context ${JSON.stringify(ctx)}`,
      timing,
      budget,
    };
  }

  const symbols: SymbolDifference[] = [];
  let unchanged = 0;
  for (const name of sortedUnion(bSymbols.keys(), cSymbols.keys())) {
    const bs = bSymbols.get(name);
    const cs = cSymbols.get(name);
    if (bs && cs && bs.size === cs.size && bs.address === cs.address) {
      unchanged++;
      continue;
    }
    symbols.push({
      name,
      baseline_size: bs?.size ?? null,
      candidate_size: cs?.size ?? null,
      delta: (cs?.size ?? 0) - (bs?.size ?? 0),
      baseline_address: bs?.address ?? null,
      candidate_address: cs?.address ?? null,
    });
  }
  return {
    ...common,
    result: 'compared',
    reason: null,
    timing,
    budget,
    sizes_from: withMaps ? 'ld65-map' : 'labels',
    sections: withMaps ? sizeDifferences(sectionSizes(bSegments, ctx), sectionSizes(cSegments, ctx)) : null,
    objects: withMaps ? sizeDifferences(objectSizes(b.tables, ctx), objectSizes(c.tables, ctx)) : null,
    symbols,
    unchanged_symbols: unchanged,
  };
}

function sectionSizes(segments: readonly SegmentEntry[], ctx: string | null): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const s of segments) if (ctx === null || s.name === ctx) sizes.set(s.name, (sizes.get(s.name) ?? 0) + s.size);
  return sizes;
}

/** An object's size: its shares of every segment (or of the context segment only). */
function objectSizes(tables: readonly SymbolTable[], ctx: string | null): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const m of tables.flatMap((t) => t.modules)) {
    const shares = m.segments.filter((s) => ctx === null || s.segment === ctx);
    if (ctx !== null && shares.length === 0) continue;
    sizes.set(m.name, (sizes.get(m.name) ?? 0) + shares.reduce((sum, s) => sum + s.size, 0));
  }
  return sizes;
}

/**
 * A symbol's size is the distance to the next symbol address in its segment (or to the segment's
 * end); with labels only, to the next label (the last label's size is unknown and left out).
 * Symbols outside every segment (constants, zero-page equates) have no size and are left out.
 */
function symbolSizes(tables: readonly SymbolTable[], segments: readonly SegmentEntry[] | null, ctx: string | null) {
  const byName = new Map<string, { address: number; scope: string | null; file: string | null }>();
  for (const t of tables)
    for (const s of t.symbols) if (!byName.has(s.name)) byName.set(s.name, { address: s.address, scope: s.scope, file: t.file });
  const segmentOf = (a: number) => segments?.find((s) => s.size > 0 && a >= s.start && a <= s.end);
  const addresses = [...new Set([...byName.values()].map((s) => s.address))].sort((x, y) => x - y);
  const sizes = new Map<string, { address: number; size: number }>();
  for (const [name, s] of byName) {
    const seg = segmentOf(s.address);
    if (segments && !seg) continue;
    if (ctx !== null && s.scope !== ctx && seg?.name !== ctx && s.file !== ctx) continue;
    const next = addresses.find((a) => a > s.address && (!seg || a <= seg.end));
    const end = next ?? (seg ? seg.end + 1 : undefined);
    if (end === undefined) continue;
    sizes.set(name, { address: s.address, size: end - s.address });
  }
  return sizes;
}

function sizeDifferences(b: Map<string, number>, c: Map<string, number>): SizeDifference[] {
  return sortedUnion(b.keys(), c.keys()).map((name) => ({
    name,
    baseline_size: b.get(name) ?? null,
    candidate_size: c.get(name) ?? null,
    delta: (c.get(name) ?? 0) - (b.get(name) ?? 0),
  }));
}

function numberDifferences(
  bObject: object | null | undefined,
  cObject: object | null | undefined,
  keep: (key: string) => boolean,
): NumberDifference[] {
  const b = (bObject ?? undefined) as Readonly<Record<string, unknown>> | undefined;
  const c = (cObject ?? undefined) as Readonly<Record<string, unknown>> | undefined;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const keys = sortedUnion(Object.keys(b ?? {}), Object.keys(c ?? {})).filter(
    (k) => keep(k) && (num(b?.[k]) !== null || num(c?.[k]) !== null),
  );
  return keys.map((field) => {
    const bv = num(b?.[field]);
    const cv = num(c?.[field]);
    return { field, baseline: bv, candidate: cv, delta: bv !== null && cv !== null ? cv - bv : null };
  });
}

function sortedUnion(a: Iterable<string>, b: Iterable<string>): string[] {
  return [...new Set([...a, ...b])].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}
