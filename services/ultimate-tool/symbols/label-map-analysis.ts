// The service's default SymbolAnalysis: the label/map parsers, resolver and comparison of this
// folder behind the seam the service's /resolve and /comparisons/runs routes call.
import type { SymbolAnalysis } from '../analysis/symbol-analysis.js';
import { compareRuns } from './compare.js';
import { parseSymbolFile } from './parse.js';
import { resolveAddress } from './resolve.js';

export const labelMapAnalysis: SymbolAnalysis = {
  parseSymbolFile: (format, text) => parseSymbolFile(format, text),
  resolveAddress: (tables, address, context) => resolveAddress(tables, address, context),
  compareRuns: (baseline, candidate, readArtifact, context) => compareRuns(baseline, candidate, readArtifact, context),
};
