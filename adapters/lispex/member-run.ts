// What one court member produced: a built-in route's host outcome or an external product's
// member outcome, and the tool error an external failure becomes.

import { ToolError } from '../../src/index.js';
import type { HostOutcome } from '../../engines/lispex/host/index.js';
import type { CourtMember } from './result-schemas.js';
import type { AotMemberResult } from '../../engines/lispex/external/aot-route.js';
import type { MemberOutcome } from '../../engines/lispex/external/topaz-route.js';

export interface MemberRun {
  readonly host?: HostOutcome;
  readonly external?: MemberOutcome;
  /** The fresh AOT member's workspace and build facts. */
  readonly aot?: AotMemberResult;
}

export function externalFailure(outcome: Extract<MemberOutcome, { kind: 'failed' }>, member: CourtMember): ToolError {
  return new ToolError(`comparison member ${member} failed: ${outcome.message}`, {
    failure: `product-${outcome.reason}`,
    status: 'infrastructure-error',
    member,
    decision: null,
    retried: false,
    source_retained: false,
  });
}

const completed = (run: MemberRun): boolean =>
  run.host !== undefined ? run.host.kind === 'completed' : run.external?.kind === 'completed';
const cancelled = (run: MemberRun): boolean =>
  run.host?.kind === 'cancelled' || (run.external?.kind === 'failed' && run.external.reason === 'cancelled');

/**
 * The member whose failure ended a comparison, or -1 when every member completed. When one member
 * fails the court cancels the others, so a member listed first that was only cancelled (a slow
 * worker on a loaded machine) must not stand in for the one that failed: the first failure that
 * is not a cancellation is the cause; only when every failure is a cancellation is the first one.
 */
export function failedMemberIndex(runs: readonly MemberRun[]): number {
  const cause = runs.findIndex((r) => !completed(r) && !cancelled(r));
  return cause >= 0 ? cause : runs.findIndex((r) => !completed(r));
}
