/** JSON-RPC and MCP error codes used on the wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: the request was cancelled (used locally only: a cancelled request gets no response). */
  RequestCancelled: -32800,
  RequestTimeout: -32001,
  ConnectionClosed: -32000,
} as const;

/**
 * An error meant for the wire: its code and message are sent as they are. Anything else thrown by
 * a method handler becomes -32603 "Internal error" with no message, stack or detail.
 */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  // (json-rpc-2.0's JSONRPCErrorException is compiled to ES5, so subclasses of it fail instanceof.)
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** What a caller of a remote method receives when the peer answered with an error. */
export class RemoteError extends Error {
  override readonly name = 'RemoteError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
