/**
 * MCP protocol versions this library knows, newest first. Two eras:
 * - legacy (2024-11-05 … 2025-11-25): an `initialize` handshake fixes the version, capabilities
 *   and client identity for the connection (stdio process or HTTP session);
 * - modern (2026-07-28 on): stateless — every request carries its version, the client's
 *   capabilities and identity in `_meta`, and `server/discover` answers what the server speaks.
 */
export const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = PROTOCOL_VERSIONS[0];

/** The first version without the initialize handshake. */
export const FIRST_MODERN_VERSION = '2026-07-28';

/** Versions negotiated with `initialize`, newest first. */
export const LEGACY_PROTOCOL_VERSIONS = PROTOCOL_VERSIONS.filter((v) => v < FIRST_MODERN_VERSION);
/** The newest version a client asks for in `initialize`. */
export const LATEST_LEGACY_PROTOCOL_VERSION = LEGACY_PROTOCOL_VERSIONS[0]!;

/** The `_meta` keys of the modern era. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** Versions are ISO dates, so string order is time order. */
export function atLeast(version: string, minimum: ProtocolVersion): boolean {
  return version >= minimum;
}

/** Whether a version belongs to the stateless era (no initialize; per-request `_meta`). */
export function isModernVersion(version: string): boolean {
  return version >= FIRST_MODERN_VERSION;
}

/**
 * The answer to `initialize`: the requested version when the server supports it, otherwise the
 * server's preferred (first) version. Never an error — the client decides whether it can go on.
 * Only legacy versions are candidates: initialize does not exist in the modern era.
 */
export function negotiateVersion(requested: unknown, supported: readonly string[]): string {
  const legacy = supported.filter((v) => !isModernVersion(v));
  if (typeof requested === 'string' && legacy.includes(requested)) return requested;
  return legacy[0] ?? supported[0]!;
}
