// The error codes of API schema 13 and THE HTTP status each is answered with: one table, one
// status per code. The service answers a ServiceError with its code's status from here (whatever
// a caller might think), the OpenAPI document lists them, and the adapter gives a job's error the
// same status its code has on the wire. test/services/ultimate-tool/error-statuses.test.ts walks it.
import type { ErrorCode } from './schemas.js';

export const ERROR_STATUSES: { readonly [C in ErrorCode]: number } = {
  'not-found': 404,
  // a malformed request: a body, query or path parameter that does not parse
  'invalid-request': 400,
  // the request guard and the HTTP plumbing (each was `invalid-request` with its own status before)
  host_not_allowed: 403,
  method_not_allowed: 405,
  body_too_large: 413,
  // a request body that did not arrive whole within the body deadline (http/http-front.ts)
  request_timeout: 408,
  unsupported_content_type: 415,
  manifest_invalid: 409,
  probe_expired: 422,
  probe_consumed: 422,
  probe_unknown: 422,
  probe_strictness_mismatch: 422,
  // probes.ts: every probe touches the device; details.retry_after_ms says when to try again
  probe_rate_limited: 429,
  confirmed_count_mismatch: 422,
  identity_changed: 409,
  // the vice target too (it was 409 for vice): the target cannot serve now, the request was fine
  target_unavailable: 503,
  evidence_not_registered: 404,
  evidence_checksum_mismatch: 409,
  evidence_too_large: 413,
  build_failed: 409,
  internal: 500,
  // an unknown pair too (it was 404): the contract names this code for unknown and corrupt pairs
  checkpoint_comparison_failed: 422,
  preparation_settled: 409,
  preparation_expired: 422,
  analysis_inputs_invalid: 409,
  receiver_unavailable: 400,
  capture_failed: 502,
  capture_ambiguous: 502,
  // invalid cursors and sections too (they were 400): the contract names one code for all of them
  timeline_failed: 409,
  diagnostic_report_failed: 409,
  crash_analysis_failed: 409,
  native_preparation_failed: 409,
  not_elite2: 409,
  ue2_changed: 409,
  intent_not_active: 409,
  host_mismatch: 409,
  health_check_not_applicable: 409,
  health_gate_not_pending: 409,
  run_not_eligible: 409,
  queue_full: 429,
  cancelled: 409,
  job_settled: 409,
};

/**
 * The status of a code, also for a job's error read from the job (no HTTP answer carried it).
 * Undefined for a code outside the table (a job-only code such as `native_run_failed`).
 */
export function httpStatusOf(code: string): number | undefined {
  return (ERROR_STATUSES as Readonly<Record<string, number>>)[code];
}
