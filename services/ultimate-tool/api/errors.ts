// The error codes of API schema 13 and the HTTP statuses each is answered with: one table. The
// route table (routes.ts) names which codes a route can answer; the OpenAPI document lists them
// with these statuses. (Several codes come with more than one status today; the list says which.)
import type { ErrorCode } from './schemas.js';

export const ERROR_STATUSES: { readonly [C in ErrorCode]: readonly number[] } = {
  'not-found': [404],
  // 403/415: the request guard (Host, content type); 405: a method the path does not take;
  // 409: the project's manifest is invalid; 413: a body over 64 KiB.
  'invalid-request': [400, 403, 405, 409, 413, 415],
  probe_expired: [422],
  probe_consumed: [422],
  probe_unknown: [422],
  probe_strictness_mismatch: [422],
  confirmed_count_mismatch: [422],
  identity_changed: [409],
  target_unavailable: [409, 503],
  evidence_not_registered: [404],
  evidence_checksum_mismatch: [409],
  evidence_too_large: [413],
  build_failed: [409, 500],
  internal: [500],
  checkpoint_comparison_failed: [404, 422, 500],
  preparation_settled: [409],
  preparation_expired: [422],
  analysis_inputs_invalid: [409],
  receiver_unavailable: [400, 503],
  capture_failed: [502, 500],
  capture_ambiguous: [502],
  timeline_failed: [400, 409],
  diagnostic_report_failed: [400, 409, 500],
  crash_analysis_failed: [400, 409],
  native_preparation_failed: [409, 500],
  not_elite2: [409],
  ue2_changed: [409],
  intent_not_active: [409],
  host_mismatch: [409],
  health_check_not_applicable: [409],
  health_gate_not_pending: [409],
  run_not_eligible: [409],
  queue_full: [429],
  cancelled: [409],
  job_settled: [409],
};

/**
 * The status a code is answered with when no HTTP answer carried it (a job's error, read from the
 * job): the first of its statuses. Unknown codes (a job error code such as `build_failed` of a
 * finished job) give undefined.
 */
export function httpStatusOf(code: string): number | undefined {
  return (ERROR_STATUSES as Readonly<Record<string, readonly number[]>>)[code]?.[0];
}
