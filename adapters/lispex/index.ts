// The Lispex MCP tool set and server (`lispex mcp serve`), and the `lispex` command line.
export { createLispexTools, MCP_SOURCE_ID, type EvaluationHost, type LispexToolsOptions } from './tools.js';
export {
  createLispexServer,
  LispexServer,
  serveLispexMcp,
  LISPEX_PROTOCOL_VERSIONS,
  LISPEX_SERVER_NAME,
  type LispexServerOptions,
} from './server.js';
export { runLispexCli, LISPEX_HELP } from './cli.js';
export {
  parseStartupProducts,
  StartupOptionError,
  NO_PRODUCTS,
  PRODUCT_FLAGS,
  type StartupProducts,
  type Product,
  type ProductFlag,
} from './products.js';
export { FIXED_BOUNDS, type BoundName } from './bounds.js';
export { COURTS, courtAvailability } from './courts.js';
export {
  EVAL_RESULT_SCHEMA_ID,
  COMPARISON_RESULT_SCHEMA_ID,
  EvalResultSchema,
  ComparisonResultSchema,
  COMPARISON_AXES,
  type EvalResult,
  type ComparisonResult,
  type RouteObservation,
} from './result-schemas.js';
export { compareObservations } from './comparison.js';
