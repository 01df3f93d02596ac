// A failure the HTTP layer turns into `{ api_schema_version, error: { code, message, details } }`,
// answered with its code's one status (api/errors.ts).
import { ERROR_STATUSES } from '../api/errors.js';
import type { ErrorCode } from '../api/schemas.js';

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  /**
   * `_status` is what the throwing site expects its code to be answered with; the answer always
   * takes the code's status from the table (test/services/ultimate-tool/error-statuses.test.ts checks
   * that every site in the sources says the same).
   */
  constructor(
    readonly code: ErrorCode,
    message: string,
    _status?: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUSES[this.code];
  }
}
