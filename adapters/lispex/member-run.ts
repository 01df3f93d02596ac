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
