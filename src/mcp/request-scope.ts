// What one request was made under. In the legacy era this is the session's (fixed by
// `initialize`); in the modern era (2026-07-28) it is read from the request's own `_meta`, so one
// connection can carry requests of different versions and clients side by side.
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { META, isModernVersion } from './protocol-version.js';

export interface ClientInfo {
  name?: string;
  version?: string;
  [key: string]: unknown;
}

/** The MCP log levels, least severe first (RFC 5424 order). */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LoggingLevel = (typeof LOG_LEVELS)[number];

export function isLoggingLevel(v: unknown): v is LoggingLevel {
  return typeof v === 'string' && (LOG_LEVELS as readonly string[]).includes(v);
}

export interface RequestScope {
  /** True for a stateless (2026-07-28 on) request. */
  readonly modern: boolean;
  readonly protocolVersion: string;
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo?: ClientInfo;
  /**
   * The lowest level the client wants as notifications/message: the session's (logging/setLevel)
   * in the legacy era, the request's `_meta` in the modern one. Undefined: send none (modern) or
   * every level (legacy, until setLevel).
   */
  readonly logLevel?: LoggingLevel;
}

/** The error the spec names for a version the server does not serve (-32022). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** A request needs a client capability it did not declare (-32021). */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

export function unsupportedVersion(requested: unknown, supported: readonly string[]): RpcError {
  return new RpcError(
    UNSUPPORTED_PROTOCOL_VERSION,
    `Unsupported protocol version: ${JSON.stringify(requested)}; this server supports ${supported.join(', ')}`,
    { supported: [...supported], requested },
  );
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The scope of a modern request, or undefined when the request carries no modern `_meta` (a
 * legacy request). Throws the spec's errors for an unsupported version or missing fields.
 */
export function modernScope(params: Record<string, unknown>, supported: readonly string[]): RequestScope | undefined {
  const meta = params._meta;
  if (!isObject(meta) || !Object.hasOwn(meta, META.protocolVersion)) return undefined;
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string' || !isModernVersion(version) || !supported.includes(version)) {
    throw unsupportedVersion(version, supported);
  }
  const caps = meta[META.clientCapabilities];
  if (!isObject(caps)) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: _meta["${META.clientCapabilities}"] must be an object (required on every ${version} request; {} declares none)`,
    );
  }
  const info = meta[META.clientInfo];
  const level = meta[META.logLevel];
  if (level !== undefined && !isLoggingLevel(level)) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: _meta["${META.logLevel}"] must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(level)}`,
    );
  }
  return {
    modern: true,
    protocolVersion: version,
    clientCapabilities: caps,
    ...(isObject(info) ? { clientInfo: info as ClientInfo } : {}),
    ...(level !== undefined ? { logLevel: level } : {}),
  };
}

/** Whether a message at `level` passes the client's threshold. */
export function logLevelAdmits(threshold: LoggingLevel | undefined, level: LoggingLevel, modern: boolean): boolean {
  if (threshold === undefined) return !modern;
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}
