// mcp-engines/services/ultimate-tool: the Ultimate Tool project service (HTTP API schema 13).
// Knows nothing about MCP.
export { UltimateToolService, type UltimateToolServiceOptions, DEFAULT_PORT, DEFAULT_VICE_COMMAND } from './service.js';
export type { ViceTargetConfig, UltimateTargetConfig } from './jobs/job-context.js';
export type { SymbolAnalysis, SymbolTable, ResolverResult, RunComparison } from './analysis/symbol-analysis.js';
export * from './api/schemas.js';
export {
  ManifestSchema,
  MANIFEST_FILE,
  MANIFEST_SCHEMA_VERSION,
  loadManifest,
  manifestJsonSchema,
  type Manifest,
  type TestSpec,
  type SymbolFormat,
} from './project/manifest.js';
// The names this entry has always exported, from the one address parser (api/address.ts).
export { addressValue as parseAddress, addressHex as hex16 } from './api/address.js';
export { runServeCli, parseServeArgs, SERVE_USAGE, type ServeEnv } from './cli.js';
export {
  runVirtualViceCli,
  startVirtualVice,
  parseVirtualViceArgs,
  VIRTUAL_VICE_USAGE,
} from '../../engines/ultimate/virtual/index.js';
export { openApiDocument } from './api/openapi.js';
export { ROUTES, ROUTE_LIST, type RouteSpec } from './api/routes.js';
export { ROUTE_PATHS, type RouteName } from './api/paths.js';
