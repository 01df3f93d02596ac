// How a tool's results are shaped on the wire. A registry built with an envelope applies it to
// every path of every tool it defines: a success, a ToolError, an error result, arguments that do
// not parse, a result outside the output schema, a cancellation and an unexpected exception. The
// default (`plainEnvelope`) is the shape topup and lispex have always answered with.
import type { z } from 'zod';
import type { ToolError } from './tool-result.js';

/** Why a call failed; each kind is a path through ToolRegistry.call. */
export type ToolFailure =
  /** The arguments did not parse; `issues` are zod's, `message` names each field and what was expected. */
  | { readonly kind: 'invalid-arguments'; readonly message: string; readonly issues: readonly z.core.$ZodIssue[] }
  /** The handler threw a ToolError. */
  | { readonly kind: 'tool-error'; readonly error: ToolError }
  /** The handler returned toolResult(payload, { isError: true }). */
  | { readonly kind: 'error-result'; readonly payload: unknown }
  /** The handler's success value is outside its declared output schema (a bug in the tool). */
  | { readonly kind: 'invalid-output'; readonly message: string }
  /** The caller cancelled while the handler ran. */
  | { readonly kind: 'cancelled' }
  /** Any other exception; its detail stays on stderr, never on the wire. */
  | { readonly kind: 'internal' };

export type JsonObject = Record<string, unknown>;

export interface ResultEnvelope {
  /**
   * The schema announced as outputSchema (and enforced on every success) for a tool whose own
   * result schema is `data`; undefined announces none.
   */
  outputSchema(data: z.ZodType | undefined): z.ZodType | undefined;
  /** The wire payload of a success. */
  success(operation: string, data: unknown): unknown;
  /** The wire payload of a failure. */
  failure(operation: string, failure: ToolFailure): JsonObject;
  /**
   * Whether failures travel as structuredContent too (only where the protocol version has it).
   * The output schema must then admit them.
   */
  readonly structuredFailures: boolean;
}

/** The classic shape: the handler's value as is; failures as `{error, ...details}`, text only. */
export const plainEnvelope: ResultEnvelope = {
  outputSchema: (data) => data,
  success: (_operation, data) => data,
  failure(operation, failure) {
    switch (failure.kind) {
      case 'invalid-arguments':
        return { error: `invalid arguments for tool ${operation}: ${failure.message}` };
      case 'tool-error':
        return failure.error.toPayload();
      case 'error-result':
        return failure.payload as JsonObject;
      case 'invalid-output':
        return { error: `tool ${operation} produced a result that does not match its output schema` };
      case 'cancelled':
        return { error: 'cancelled' };
      case 'internal':
        return { error: `internal error in tool ${operation}` };
    }
  },
  structuredFailures: false,
};
