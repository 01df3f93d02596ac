// What one run owns regardless of route: the meter, the global environment, the stdout buffer
// (charged per append), the warnings in occurrence order, and the call-depth high-water mark.

import type { SourcePosition, WarningCode } from './diagnostics.js';
import type { Globals } from './globals.js';
import type { Meter } from './meter.js';

export interface RecordedWarning {
  readonly code: WarningCode;
  readonly at: SourcePosition;
}

export class RunContext {
  private readonly out: string[] = [];
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
