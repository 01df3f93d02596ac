// A failure the HTTP layer turns into `{ api_schema_version, error: { code, message, details } }`.
import type { ErrorCode } from './api-schemas.js';

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}
