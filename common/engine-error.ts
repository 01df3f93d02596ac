// One error convention for every engine: an engine throws a subclass of EngineError whose
// `errorCode` is a stable string from a closed set (callers branch on it, never on message text)
// and whose `wireDetails()` are the extra machine-readable fields that may be shown to a client.
// The MCP core maps any EngineError a tool handler throws to an isError result in one place
// (src/engine-errors.ts), so adapters need not catch and translate engine errors one by one.

export abstract class EngineError extends Error {
  /** Which engine raised it, e.g. 'ocaml', 'lispex', 'ultimate'. */
  abstract readonly engine: string;
  /** The stable code a caller branches on. */
  abstract get errorCode(): string;
  /** Extra fields for the wire (never secrets, never stacks). */
  wireDetails(): Record<string, unknown> {
    return {};
  }
}

export function isEngineError(value: unknown): value is EngineError {
  return value instanceof EngineError;
}
