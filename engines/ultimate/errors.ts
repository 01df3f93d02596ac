// Structured errors for everything that talks to an Ultimate device (or the VICE monitor).
// A caller branches on `kind`, never on message text: the service maps each kind to its own wire
// error, and a retry policy needs to tell "the device said no" from "nobody answered". As an
// EngineError (common/) it also reaches an MCP tool's wire form through the one mapping in src/.
import { EngineError } from '../../common/engine-error.js';

/** What went wrong, as a closed set. */
export type UltimateErrorKind =
  /** The device answered with an error status and (usually) its own `errors` array. */
  | 'device'
  /** A bare 404 with no body: the firmware does not know this route, command or method. */
  | 'unknown-route'
  /** 403 from the password check (REST) or a failed FF1F authentication (DMA port). */
  | 'forbidden'
  /** No answer within the configured time. */
  | 'timeout'
  /** Nothing listens on the port (ECONNREFUSED). */
  | 'connection-refused'
  /** The connection broke or could not be made for another network reason. */
  | 'network'
  /** The peer answered something that does not fit the protocol. */
  | 'protocol'
  /** The caller's input was rejected before anything was sent. */
  | 'bad-input'
  /** The firmware cannot do this (for example a zero-byte FTP upload, which creates no file). */
  | 'unsupported'
  /** An FTP command failed with the server's reply code. */
  | 'ftp'
  /** A VICE binary monitor command answered with a non-zero error byte. */
  | 'vice'
  /** A local file (a capture) could not be written. */
  | 'io';

export interface UltimateErrorDetails {
  /** HTTP status for `device`, `unknown-route` and `forbidden` from REST. */
  status?: number;
  /** The device's own `errors` array, verbatim. */
  deviceErrors?: string[];
  /** Which operation failed, e.g. `GET /v1/machine:readmem`. */
  operation?: string;
  /** FTP reply code or VICE error byte. */
  code?: number;
  /** The underlying error, when there is one. */
  cause?: unknown;
}

export class UltimateError extends EngineError {
  override readonly name = 'UltimateError';
  readonly engine = 'ultimate';
  readonly kind: UltimateErrorKind;
  readonly status?: number;
  readonly deviceErrors: string[];
  readonly operation?: string;
  readonly code?: number;

  constructor(kind: UltimateErrorKind, message: string, details: UltimateErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.status = details.status;
    this.deviceErrors = details.deviceErrors ?? [];
    this.operation = details.operation;
    this.code = details.code;
  }

  get errorCode(): UltimateErrorKind {
    return this.kind;
  }

  override wireDetails(): Record<string, unknown> {
    return {
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.operation === undefined ? {} : { operation: this.operation }),
      ...(this.deviceErrors.length ? { device_errors: this.deviceErrors } : {}),
    };
  }

  /** A plain object for logs and JSON payloads (no stack, no cause chain). */
  toJSON(): Record<string, unknown> {
    return {
      kind: this.kind,
      message: this.message,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.deviceErrors.length ? { deviceErrors: this.deviceErrors } : {}),
      ...(this.operation === undefined ? {} : { operation: this.operation }),
      ...(this.code === undefined ? {} : { code: this.code }),
    };
  }
}

/** Maps a socket-level failure (from fetch, net or basic-ftp) to a structured error. */
export function networkError(err: unknown, operation: string, timeoutMs?: number): UltimateError {
  if (err instanceof UltimateError) return err;
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string }; message?: string };
  const code = e?.code ?? e?.cause?.code;
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new UltimateError('timeout', `${operation}: no answer within ${timeoutMs ?? '?'} ms`, { operation, cause: err });
  }
  if (code === 'ECONNREFUSED') {
    return new UltimateError('connection-refused', `${operation}: connection refused (is the device on and the service enabled?)`, {
      operation,
      cause: err,
    });
  }
  return new UltimateError(
    'network',
    `${operation}: ${e?.cause && (e.cause as Error).message ? (e.cause as Error).message : (e?.message ?? String(err))}`,
    { operation, cause: err },
  );
}
