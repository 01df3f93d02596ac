// mcp-engines core: compose MCP servers from engines, tool sets and transports.
export { McpServer, ServerSession, type McpServerOptions, type ClientInfo, type CacheHints } from './mcp/server.js';
export { McpClient, withDefaults, type CallOptions, type McpClientOptions, type Era, type Subscription } from './mcp/client.js';
export type { SubscriptionFilter } from './mcp/subscriptions.js';
export type {
  ServerRequestContext,
  ElicitRequestParams,
  ElicitResult,
  CreateMessageParams,
  CreateMessageResult,
  Root,
  InputOptions,
} from './mcp/server-context.js';
export { TaskStore, Task, TASKS_EXTENSION, type TaskOptions, type TaskStatus } from './mcp/tasks.js';
export {
  LOG_LEVELS,
  UNSUPPORTED_PROTOCOL_VERSION,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  type LoggingLevel,
  type RequestScope,
} from './mcp/request-scope.js';
export {
  ResourceRegistry,
  ResourceNotFound,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type ResourceDescriptor,
  type ResourceTemplateDescriptor,
  type ResourceContents,
  type TextResourceContents,
  type BlobResourceContents,
  type ReadResult,
  type Completer,
  type Annotations,
  type Icon,
} from './resource-registry.js';
export {
  PromptRegistry,
  type PromptDefinition,
  type PromptDescriptor,
  type PromptArgument,
  type PromptMessage,
  type GetPromptResult,
} from './prompt-registry.js';
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
  LEGACY_PROTOCOL_VERSIONS,
  LATEST_LEGACY_PROTOCOL_VERSION,
  META,
  isModernVersion,
  negotiateVersion,
  type ProtocolVersion,
} from './mcp/protocol-version.js';
export { createLogger, silentLogger, type Logger, type LogLevel } from './logger.js';
export type { Transport, JsonRpcMessage, JsonRpcId, TransportSendOptions, MessageExtraInfo } from '../transports/transport.js';
export { packageRoot, packageVersion } from './package-info.js';
export { UsageError, EXIT_USAGE } from '../common/usage-error.js';
export { EngineError, isEngineError } from '../common/engine-error.js';
export { toolErrorFromEngineError, asToolError } from './engine-errors.js';
