/** MCP protocol versions this library knows, newest first. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = PROTOCOL_VERSIONS[0];

/** Versions are ISO dates, so string order is time order. */
export function atLeast(version: string, minimum: ProtocolVersion): boolean {
  return version >= minimum;
}

/**
 * The answer to `initialize`: the requested version when the server supports it, otherwise the
 * server's preferred (first) version. Never an error — the client decides whether it can go on.
 */
export function negotiateVersion(requested: unknown, supported: readonly string[]): string {
  if (typeof requested === 'string' && supported.includes(requested)) return requested;
  return supported[0]!;
}
