// The seam to the label/map analysis (parseSymbolFile, resolveAddress, compareRuns), written as
// pure functions in ./symbols/ by the adapter side. The service's /resolve and /comparisons/runs
// routes call this interface; the real module is injected where the service is composed.
import type { RunRecord } from './api-schemas.js';
import type { SymbolFormat } from './manifest.js';

/** One parsed symbol file (the concrete shape belongs to ./symbols/). */
export type SymbolTable = unknown;

/** A resolver result (schema 2): `resolver_schema_version: 2`, result, address, address_hex, symbols, … */
export type ResolverResult = { resolver_schema_version: 2; result: 'resolved' | 'ambiguous' | 'unmapped' | 'unavailable' } & Record<
  string,
  unknown
>;

/** A comparison (schema 1): `comparison_schema_version: 1`, result, … */
export type RunComparison = { comparison_schema_version: 1; result: 'compared' | 'unavailable' | 'incompatible' } & Record<string, unknown>;

export interface SymbolAnalysis {
  /** Label and map formats (an ld65 debug info file is read by the timeline, not here). */
  parseSymbolFile(format: Exclude<SymbolFormat, 'ld65-dbg'>, text: string): SymbolTable;
  resolveAddress(tables: SymbolTable[], address: number, context?: string): ResolverResult;
  compareRuns(
    baseline: RunRecord,
    candidate: RunRecord,
    readArtifact: (run: RunRecord, name: string) => Promise<string>,
    context?: string,
  ): Promise<RunComparison> | RunComparison;
}
