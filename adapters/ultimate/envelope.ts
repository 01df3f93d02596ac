// The adapter envelope (schema 12): every tool of ultimate-tool-mcp answers
//   { schema_version: 12, operation, data }                                   on success
//   { schema_version: 12, operation, error: { code, layer, message, http_status? } }  on failure
// as structuredContent and as the same JSON text, on every path through the registry.
import { z } from 'zod';
import { API_SCHEMA_VERSION } from '../../services/ultimate-tool/api/schemas.js';
import { type ResultEnvelope, ToolError, type ToolFailure } from '../../src/index.js';

export const ENVELOPE_SCHEMA_VERSION = 12;

/** Where a call failed: input validation here, the HTTP hop, the service, or the device behind it. */
export const ERROR_LAYERS = ['adapter', 'transport', 'service', 'device'] as const;
export type ErrorLayer = (typeof ERROR_LAYERS)[number];

export interface EnvelopeError {
  readonly code: string;
  readonly layer: ErrorLayer;
  readonly message: string;
  readonly http_status?: number;
  /** Finer detail the service gave (its `details`), passed on unchanged. */
  readonly details?: Record<string, unknown>;
}

/** A failure with its envelope fields; thrown by the client and the tools. */
export class UltimateToolError extends ToolError {
  override readonly name = 'UltimateToolError';
  constructor(readonly error: EnvelopeError) {
    super(error.message, { code: error.code, layer: error.layer });
  }
}

export const EnvelopeErrorSchema = z.strictObject({
  code: z.string().min(1),
  layer: z.enum(ERROR_LAYERS),
  message: z.string(),
  http_status: z.number().int().min(100).max(599).optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/**
 * One object schema for both forms (an output schema must describe an object): exactly one of
 * `data` and `error` is present, which the refinement enforces.
 */
function envelopeSchema(data: z.ZodType | undefined): z.ZodType {
  return z
    .strictObject({
      schema_version: z.literal(ENVELOPE_SCHEMA_VERSION),
      operation: z.string(),
      data: (data ?? z.unknown()).optional(),
      error: EnvelopeErrorSchema.optional(),
    })
    .refine((e) => (e.data === undefined) !== (e.error === undefined), { message: 'exactly one of data and error' });
}

function failureError(operation: string, failure: ToolFailure): EnvelopeError {
  switch (failure.kind) {
    case 'invalid-arguments':
      return { code: 'invalid_arguments', layer: 'adapter', message: `invalid arguments for ${operation}: ${failure.message}` };
    case 'tool-error':
      return failure.error instanceof UltimateToolError
        ? failure.error.error
        : { code: 'adapter_error', layer: 'adapter', message: failure.error.message };
    case 'error-result':
      return { code: 'adapter_error', layer: 'adapter', message: `${operation} failed` };
    case 'invalid-output':
      return {
        code: 'invalid_service_response',
        layer: 'service',
        message: `the service's answer to ${operation} is not what API schema ${API_SCHEMA_VERSION} promises: ${failure.message}`,
      };
    case 'cancelled':
      return { code: 'cancelled', layer: 'adapter', message: `${operation} was cancelled by the client` };
    case 'internal':
      return { code: 'internal', layer: 'adapter', message: `internal error in the adapter while running ${operation}` };
  }
}

export const ultimateEnvelope: ResultEnvelope = {
  outputSchema: envelopeSchema,
  success: (operation, data) => ({ schema_version: ENVELOPE_SCHEMA_VERSION, operation, data }),
  failure: (operation, failure) => ({ schema_version: ENVELOPE_SCHEMA_VERSION, operation, error: failureError(operation, failure) }),
  structuredFailures: true,
};
