import type { JsonRpcId } from '../transport.js';

/** JSON-RPC error codes the Streamable HTTP binding uses (2026-07-28 schema). */
export const HttpErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  /** Session missing/unknown, Host/Origin refused, unauthorized: the SDKs' convention for transport errors. */
  ServerError: -32000,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

export function jsonRpcErrorBody(id: JsonRpcId | null, code: number, message: string, data?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });
}

/**
 * 2026-07-28 puts some JSON-RPC errors on the HTTP status too: an unknown method is 404, a
 * version the server does not speak, a header that disagrees with the body and a missing client
 * capability are 400. Everything else (tool failures are results, not errors) stays 200.
 */
export function httpStatusForModernError(code: unknown): number {
  switch (code) {
    case HttpErrorCode.MethodNotFound:
      return 404;
    case HttpErrorCode.HeaderMismatch:
    case HttpErrorCode.MissingRequiredClientCapability:
    case HttpErrorCode.UnsupportedProtocolVersion:
    case HttpErrorCode.ParseError:
    case HttpErrorCode.InvalidRequest:
      return 400;
    default:
      return 200;
  }
}
