/**
 * The one interface every wire implements. It has the same shape as the official MCP SDK's
 * `Transport` (start/send/close + onmessage/onclose/onerror), so the SDK's Client and Server can
 * run over our transports and our McpServer/McpClient over the SDK's.
 */
export type JsonRpcId = string | number;

/** A JSON-RPC message as it travels. Transports do not validate it: the session does. */
export type JsonRpcMessage = { jsonrpc?: unknown; id?: unknown; method?: unknown; [key: string]: unknown };

export interface TransportSendOptions {
  relatedRequestId?: JsonRpcId;
}

/** What a transport knows about an incoming message besides the message (HTTP: its headers, its caller). */
export interface MessageExtraInfo {
  requestInfo?: { headers: Record<string, string | string[] | undefined> };
  authInfo?: unknown;
}

export interface Transport {
  /** Begin receiving. Handlers must be set before this is called. */
  start(): Promise<void>;
  /**
   * Hand one message to the wire. Resolves once handed off — never waits for the peer to process it.
   * `relatedRequestId`: the incoming request this message belongs to (a progress or log
   * notification, a server-to-client request made while handling it), so a transport with one
   * stream per request (Streamable HTTP) can deliver it there.
   */
  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void>;
  /** Close the wire; `onclose` fires once. */
  close(): Promise<void>;
  // Method syntax on purpose: parameters stay bivariant, so the SDK's transports (typed with its
  // own JSONRPCMessage) are assignable to this interface and ours to theirs.
  onmessage?(message: JsonRpcMessage, extra?: MessageExtraInfo): void;
  onclose?(): void;
  onerror?(error: Error): void;
  sessionId?: string;
}

/** A line that was not valid JSON (or not valid UTF-8). The session answers -32700. */
export class JsonParseError extends Error {
  override readonly name = 'JsonParseError';
  constructor(
    readonly line: string,
    cause?: unknown,
  ) {
    super(`malformed JSON: ${cause instanceof Error ? cause.message : String(cause ?? 'invalid')}`);
  }
}

/** A message longer than the transport's line limit. It was discarded without being buffered whole. */
export class MessageTooLargeError extends Error {
  override readonly name = 'MessageTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`message exceeds the maximum line size of ${limitBytes} bytes and was discarded`);
  }
}
