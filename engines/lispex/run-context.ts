// What one run owns regardless of route: the meter, the global environment, the stdout buffer
// (charged per append), the warnings in occurrence order, and the call-depth high-water mark.

import { LispexError, type SourcePosition, type WarningCode } from './diagnostics.js';
import type { Globals } from './globals.js';
import { type Meter, ResourceExhausted } from './meter.js';

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

  /** Bytes of stdout escaped as a JSON string body so far (see RunOptions.stdoutJsonLimit). */
  private stdoutJson = 0;

  constructor(
    readonly meter: Meter,
    readonly globals: Globals,
    private readonly stdoutJsonLimit = Number.POSITIVE_INFINITY,
  ) {}

  /**
   * Charge the UTF-8 length, then append (a denied charge appends nothing). When stdout is
   * bounded as JSON too, an append that would take it past that bound is denied the same way,
   * before anything is charged: the run ends with the output-byte axis exhausted.
   */
  writeOut(text: string): void {
    if (this.stdoutJsonLimit !== Number.POSITIVE_INFINITY) {
      const escaped = jsonEscapedLength(text);
      if (this.stdoutJson + escaped > this.stdoutJsonLimit) throw new ResourceExhausted('output-byte');
      this.meter.chargeOutput(utf8Length(text));
      this.stdoutJson += escaped;
    } else {
      this.meter.chargeOutput(utf8Length(text));
    }
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

/**
 * UTF-8 bytes of `s` inside a JSON string as JSON.stringify writes it: `"` and `\\` and the
 * short-escaped controls (\b \t \n \f \r) take 2, other controls and lone surrogates 6
 * (\uXXXX), everything else its UTF-8 length.
 */
export function jsonEscapedLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x22 || c === 0x5c) n += 2;
      else if (c >= 0x20) n += 1;
      else n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    } else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
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
