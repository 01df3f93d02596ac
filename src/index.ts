// mcp-engines core: compose MCP servers from engines, tool sets and transports.
export { McpServer, ServerSession, type McpServerOptions, type ClientInfo } from './mcp/server.js';
export { McpClient, type CallOptions, type McpClientOptions } from './mcp/client.js';
export {
  ToolRegistry,
  TEXT_COPY_MAX_BYTES,
  describeZodError,
  type ToolDefinition,
  type ToolHandlerResult,
  type ToolRegistryOptions,
  type SchemaAdvertiser,
  type ToolContext,
  type ToolDescriptor,
  type ToolAnnotations,
} from './tool-registry.js';
export {
  ToolError,
  ToolResult,
  RawToolResult,
  toolResult,
  rawResult,
  parseToolPayload,
  type CallToolResult,
  type ContentBlock,
  type TextContent,
  type ImageContent,
} from './tool-result.js';
export { plainEnvelope, type ResultEnvelope, type ToolFailure, type JsonObject } from './tool-envelope.js';
export { compactJsonSchema, outlineJsonSchema } from './json-schema-trim.js';
export { JsonRpcPeer, type RequestContext, type RequestOptions } from './jsonrpc/peer.js';
export { ErrorCode, RpcError, RemoteError } from './jsonrpc/errors.js';
export {
  PROTOCOL_VERSIONS,
  LATEST_PROTOCOL_VERSION,
  negotiateVersion,
  type ProtocolVersion,
} from './mcp/protocol-version.js';
export { createLogger, silentLogger, type Logger, type LogLevel } from './logger.js';
export type { Transport, JsonRpcMessage, JsonRpcId } from '../transports/transport.js';
export { packageRoot, packageVersion } from './package-info.js';
export { UsageError, EXIT_USAGE } from '../common/usage-error.js';
export { EngineError, isEngineError } from '../common/engine-error.js';
export { toolErrorFromEngineError, asToolError } from './engine-errors.js';
