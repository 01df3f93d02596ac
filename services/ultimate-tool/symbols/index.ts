// Label and map files of C64 assemblers, address resolution and run comparison: pure functions,
// no I/O and no MCP. The service's resolve and compare routes call them.
export { parseAddress, addressHex, type AddressParse } from './address.js';
export {
  SYMBOL_FORMATS,
  SymbolFileError,
  type SymbolFormat,
  type SymbolTable,
  type SymbolEntry,
  type SegmentEntry,
  type ModuleEntry,
} from './symbol-table.js';
export { parseSymbolFile, isSymbolFormat } from './parse.js';
export { parseViceLabels } from './vice-labels.js';
export { parseLd65Map } from './ld65-map.js';
export {
  resolveAddress,
  AddressError,
  RESOLVER_SCHEMA_VERSION,
  MAX_UNSEGMENTED_OFFSET,
  type ResolverResult,
  type ResolvedSymbol,
} from './resolve.js';
export {
  compareRuns,
  COMPARISON_SCHEMA_VERSION,
  type ComparableRun,
  type ReadArtifact,
  type RunComparison,
  type SizeDifference,
  type SymbolDifference,
  type NumberDifference,
} from './compare.js';
export { ResolverResultSchema, ResolvedSymbolSchema, RunComparisonSchema } from './schemas.js';
