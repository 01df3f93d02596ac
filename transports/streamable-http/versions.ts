/**
 * The protocol versions the HTTP binding accepts in MCP-Protocol-Version by default: every
 * revision that defines Streamable HTTP or its predecessor, newest first. (transports/ may not
 * import the core, so this is its own list; test/transports/streamable-http/server.test.ts checks it covers the
 * core's.) A server that speaks fewer still answers a version it does not speak with the core's
 * own error; this list is what the transport lets through.
 */
export const HTTP_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** The first stateless revision: from it on there are no sessions, no GET stream, and mirrored headers. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** Versions are ISO dates, so string order is time order. */
export function isModernVersion(version: string): boolean {
  return version >= MODERN_PROTOCOL_VERSION;
}
