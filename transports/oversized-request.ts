// A message longer than the line cap is dropped as it streams in, never buffered whole, so it
// cannot be parsed; answering it with `id: null` leaves a client waiting on its request's id
// for ever. The id of a request usually comes first (`{"jsonrpc":"2.0","id":7,"method":…`), so
// it is read from the message's first bytes: the top level of the object is walked, nested
// values skipped, until the bytes run out.
import { MessageTooLargeError, type JsonRpcId } from './transport.js';

/** How much of an oversized message is kept to look for its id. */
export const ID_SCAN_BYTES = 1024;

const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

/**
 * The id of the JSON-RPC request that `head` (the first bytes of a message) begins, when a
 * top-level `"id"` with a string or number value lies whole within it. Undefined when there is
 * none, when the id is cut by the end of `head` or is not a string or number, or when a
 * top-level `"result"` or `"error"` shows the message is a response (which is never answered).
 */
export function requestIdOf(head: string): JsonRpcId | undefined {
  const n = head.length;
  let i = 0;
  const ws = () => {
    while (i < n && WHITESPACE.has(head[i]!)) i++;
  };
  /** Index just past the string starting at `from` (a quote), or -1 when `head` ends inside it. */
  const stringEnd = (from: number): number => {
    for (let j = from + 1; j < n; ) {
      if (head[j] === '\\') j += 2;
      else if (head[j] === '"') return j + 1;
      else j++;
    }
    return -1;
  };
  /** Moves `i` past one value; false when `head` ends inside it (it may go on beyond). */
  const skipValue = (): boolean => {
    if (i >= n) return false;
    const c = head[i];
    if (c === '"') {
      const end = stringEnd(i);
      if (end < 0) return false;
      i = end;
      return true;
    }
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < n) {
        const d = head[i];
        if (d === '"') {
          const end = stringEnd(i);
          if (end < 0) return false;
          i = end;
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) {
            i++;
            return true;
          }
        }
        i++;
      }
      return false;
    }
    // A number or literal: it ends at a delimiter, which must be within `head` (12 of 123…).
    let j = i;
    while (j < n && !WHITESPACE.has(head[j]!) && head[j] !== ',' && head[j] !== '}' && head[j] !== ']') j++;
    if (j === i || j >= n) return false;
    i = j;
    return true;
  };

  ws();
  if (head[i] !== '{') return undefined;
  i++;
  let id: JsonRpcId | undefined;
  for (;;) {
    ws();
    if (head[i] !== '"') break;
    const keyEnd = stringEnd(i);
    if (keyEnd < 0) break;
    let key: unknown;
    try {
      key = JSON.parse(head.slice(i, keyEnd));
    } catch {
      break;
    }
    i = keyEnd;
    ws();
    if (head[i] !== ':') break;
    i++;
    ws();
    if (key === 'result' || key === 'error') return undefined;
    const valueStart = i;
    if (!skipValue()) break;
    if (key === 'id') {
      let value: unknown;
      try {
        value = JSON.parse(head.slice(valueStart, i));
      } catch {
        value = undefined;
      }
      // The last id wins, as in JSON.parse.
      id = typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : undefined;
    }
    ws();
    if (head[i] !== ',') break;
    i++;
  }
  return id;
}

/** An oversized message whose request id was read from its first bytes: it gets an answer with that id. */
export class OversizedRequestError extends MessageTooLargeError {
  constructor(
    limitBytes: number,
    readonly requestId: JsonRpcId,
  ) {
    super(limitBytes);
  }
}

/** What the transport reports once it has answered an oversized request itself (nothing left to answer). */
export class OversizedRequestAnswered extends Error {
  override readonly name = 'OversizedRequestAnswered';
  constructor(
    readonly requestId: JsonRpcId,
    readonly limitBytes: number,
  ) {
    super(
      `request ${JSON.stringify(requestId)} exceeded the maximum line size of ${limitBytes} bytes; it was discarded and answered with an error`,
    );
  }
}

/** The JSON-RPC error answer to an oversized request, naming the limit. */
export function oversizedAnswer(id: JsonRpcId, limitBytes: number) {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32600,
      message: `Invalid Request: message exceeds the maximum line size of ${limitBytes} bytes${inUnits(limitBytes)} and was discarded`,
      data: { limitBytes },
    },
  };
}

/** " (32 MiB)" for a whole number of MiB or KiB, else nothing. */
function inUnits(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return ` (${bytes / (1024 * 1024)} MiB)`;
  return bytes % 1024 === 0 ? ` (${bytes / 1024} KiB)` : '';
}
