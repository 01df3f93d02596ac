// The Ultimate Tool MCP adapter (`ultimate-tool-mcp`): the contract's 30 tools over the service's HTTP API,
// every answer in the schema-12 envelope; and the typed client of that API.
export { createUltimateToolServer, UltimateToolServer, ULTIMATE_SERVER_NAME, type UltimateToolServerOptions } from './server.js';
export { createUltimateTools, ULTIMATE_TOOL_NAMES } from './tools.js';
export { UltimateServiceClient, type UltimateServiceClientOptions, type RequestOptions } from './service-client.js';
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
export * from './api-schemas.js';
