// What one run owns regardless of route: the meter, the global environment, the stdout buffer
// (charged per append), the warnings in occurrence order, and the call-depth high-water mark.

import { LispexError, type SourcePosition, type WarningCode } from './diagnostics.js';
import type { Globals } from './globals.js';
import type { Meter } from './meter.js';

export interface RecordedWarning {
  readonly code: WarningCode;
  readonly at: SourcePosition;
}

/**
 * Bytes the sized constructors of one run may allocate in total (estimated: 1 per bytevector
 * element, 8 per vector slot, 2 per string code unit): half the worker's 512 MB heap bound. A
 * bytevector's bytes live outside the V8 heap, where the worker's resourceLimits do not see
 * them, so without this budget a loop of make-bytevector grows the process unbounded. Charged
 * cumulatively (deterministic, the same on both routes), never released within a run.
 */
export const ALLOCATION_BUDGET_BYTES = 268_435_456;

export class RunContext {
  private readonly out: string[] = [];
  /** Estimated bytes allocated by sized constructors so far (see ALLOCATION_BUDGET_BYTES). */
  allocated = 0;
  readonly warnings: RecordedWarning[] = [];
  maxDepth = 0;

  constructor(
    readonly meter: Meter,
    readonly globals: Globals,
  ) {}

  /** Charge the UTF-8 length, then append (a denied charge appends nothing). */
  writeOut(text: string): void {
    this.meter.chargeOutput(utf8Length(text));
    this.out.push(text);
  }

  /** Reserve `bytes` of the allocation budget; E311 (nothing reserved) when it would overflow. */
  allocate(bytes: number, who: string): void {
    if (this.allocated + bytes > ALLOCATION_BUDGET_BYTES) {
      throw new LispexError(
        'E311',
        `${who}: allocation beyond the run's memory budget (${this.allocated} of ${ALLOCATION_BUDGET_BYTES} bytes already used)`,
        [bytes],
      );
    }
    this.allocated += bytes;
  }

  stdout(): string {
    return this.out.join('');
  }

  warn(code: WarningCode, at: SourcePosition): void {
    this.warnings.push({ code, at });
  }
}

export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
