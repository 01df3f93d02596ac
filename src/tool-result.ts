/** MCP content and results, as they appear on the wire. */
export type TextContent = { type: 'text'; text: string };
export type ImageContent = { type: 'image'; data: string; mimeType: string };
export type ContentBlock = TextContent | ImageContent | { type: string; [key: string]: unknown };

export interface CallToolResult {
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * An error a tool reports to its caller: becomes an `isError: true` result whose JSON payload is
 * `{ error: message, ...details }` (or whatever the registry's envelope makes of it). The server
 * keeps serving.
 */
export class ToolError extends Error {
  override readonly name: string = 'ToolError';
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toPayload(): Record<string, unknown> {
    return { error: this.message, ...this.details };
  }
}

/**
 * A handler's explicit result: a JSON payload, whether it is an error, and content blocks to send
 * after the JSON text (an image, say). `T` is the payload type, checked against the tool's output
 * schema when the result is a success.
 */
export class ToolResult<T = unknown> {
  constructor(
    readonly payload: T,
    readonly isError: boolean,
    readonly extraContent: readonly ContentBlock[] = [],
  ) {}
}

/** A result passed through untouched, e.g. one that a routed peer already produced. */
export class RawToolResult {
  constructor(readonly result: CallToolResult) {}
}

export function toolResult<T>(payload: T, options: { isError?: boolean; extraContent?: readonly ContentBlock[] } = {}): ToolResult<T> {
  return new ToolResult(payload, options.isError ?? false, options.extraContent ?? []);
}

export function rawResult(result: CallToolResult): RawToolResult {
  return new RawToolResult(result);
}

/** Read the JSON payload out of a result produced by this library (structuredContent, else the first text block). */
export function parseToolPayload(result: CallToolResult): unknown {
  // structuredContent is the whole payload; a large result's text is only a note (TEXT_COPY_MAX_BYTES).
  if (result.structuredContent !== undefined) return result.structuredContent;
  const first = result.content?.[0];
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined;
  try {
    return JSON.parse(first.text);
  } catch {
    return first.text;
  }
}
