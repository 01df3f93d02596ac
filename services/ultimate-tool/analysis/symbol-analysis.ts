// The seam to the label/map analysis (parseSymbolFile, resolveAddress, compareRuns): the service's
// /resolve and /comparisons/runs routes and its jobs call this interface. The default is the
// pure module in ./symbols/ (labelMapAnalysis); tests inject a recording one.
import type { RunRecord } from '../api/schemas.js';
import type { SymbolFormat } from '../project/manifest.js';
import type { ResolverResult, RunComparison, SymbolTable } from '../symbols/index.js';

export type { ResolverResult, RunComparison, SymbolTable };

export interface SymbolAnalysis {
  /** Label and map formats (an ld65 debug info file is read by the timeline, not here). */
  parseSymbolFile(format: Exclude<SymbolFormat, 'ld65-dbg'>, text: string): SymbolTable;
  resolveAddress(tables: readonly SymbolTable[], address: number, context?: string): ResolverResult;
  compareRuns(
    baseline: RunRecord,
    candidate: RunRecord,
    readArtifact: (run: RunRecord, name: string) => Promise<string>,
    context?: string,
  ): Promise<RunComparison> | RunComparison;
}
