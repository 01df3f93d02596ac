// The Ultimate Tool MCP adapter (`ultimate-tool-mcp`): the contract's 30 tools over the service's HTTP API,
// every answer in the schema-12 envelope; and the client of that API. Both are generated from the
// service's wire declaration, whose names are re-exported here.
export { createUltimateToolServer, UltimateToolServer, ULTIMATE_SERVER_NAME, type UltimateToolServerOptions } from './server.js';
export { createUltimateTools, ULTIMATE_TOOL_NAMES } from './tools.js';
export { UltimateServiceClient, type UltimateServiceClientOptions, type RequestOptions, type RouteAnswer } from './service-client.js';
export { parseServiceUrl, DEFAULT_SERVICE_PORT, type ServiceOrigin } from './service-url.js';
export {
  ENVELOPE_SCHEMA_VERSION,
  ERROR_LAYERS,
  UltimateToolError,
  ultimateEnvelope,
  type EnvelopeError,
  type ErrorLayer,
} from './envelope.js';
export { runUltimateToolMcpCli, ULTIMATE_MCP_HELP, DEFAULT_SERVICE_URL } from './cli.js';
export { API_SCHEMA_VERSION } from '../../services/ultimate-tool/api/schemas.js';
export { ROUTES, type RouteSpec } from '../../services/ultimate-tool/api/routes.js';
export { TOOLS, type ToolName, type ToolSpec } from '../../services/ultimate-tool/api/tools.js';
