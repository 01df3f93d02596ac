/**
 * 2026-07-28 mirrors body values into headers (Mcp-Name, Mcp-Param-*). A value that is not plain
 * visible ASCII — or that looks like the sentinel itself — travels as `=?base64?<UTF-8 base64>?=`.
 */
const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const PLAIN = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/** The header value for `value` (encoded when it must be). */
export function encodeHeaderValue(value: string): string {
  if (PLAIN.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The value a header carries, or undefined if it is neither plain nor a well-formed sentinel. */
export function decodeHeaderValue(raw: string): string | undefined {
  const m = SENTINEL.exec(raw);
  if (m) return Buffer.from(m[1]!, 'base64').toString('utf8');
  if (raw === '' || /[^\x20-\x7e\t]/.test(raw)) return undefined;
  return raw;
}
