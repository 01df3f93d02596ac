// What a handler (tool, resource reader, prompt) can do while it serves one request, the same way
// in both eras: report progress, log to the client, and ask the client for input (elicitation,
// sampling, roots). Asking is a server-to-client request in the legacy era, and a multi-round-trip
// `input_required` result in the modern one (see input-required.ts).
import type { ToolContext } from '../tool-registry.js';
import type { LoggingLevel } from './request-scope.js';

export interface ElicitRequestParams {
  /** 'form' (default) or 'url'. */
  mode?: 'form' | 'url';
  message: string;
  /** A flat object schema of primitive properties (form mode). */
  requestedSchema?: Record<string, unknown>;
  url?: string;
  elicitationId?: string;
  [key: string]: unknown;
}

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface CreateMessageParams {
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  maxTokens: number;
  systemPrompt?: string;
  [key: string]: unknown;
}

export interface CreateMessageResult {
  role: 'user' | 'assistant';
  content: unknown;
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

export interface Root {
  uri: string;
  name?: string;
}

export interface InputOptions {
  /**
   * The key of this input request in the modern era's `inputRequests` map. Default: the method and
   * the request's position among this handler's requests (`elicitation-0`, …), which is stable
   * because the handler runs again from the start on the client's retry.
   */
  key?: string;
  signal?: AbortSignal;
}

export interface ServerRequestContext extends ToolContext {
  /** True for a stateless (2026-07-28 on) request. */
  readonly modern: boolean;
  readonly clientCapabilities: Record<string, unknown>;
  /**
   * A log message for the client (notifications/message), sent only if the client asked for this
   * level: logging/setLevel (legacy) or `_meta` io.modelcontextprotocol/logLevel (modern).
   */
  logMessage(level: LoggingLevel, data: unknown, logger?: string): void;
  /** Ask the user through the client (needs the client's `elicitation` capability). */
  elicit(params: ElicitRequestParams, options?: InputOptions): Promise<ElicitResult>;
  /** Ask the client's model (needs the client's `sampling` capability). */
  createMessage(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult>;
  /** The client's roots (needs the client's `roots` capability). */
  listRoots(options?: InputOptions): Promise<{ roots: Root[] }>;
}
