// The MCP contract's fixed bounds, and the checks applied to a request before any work is done.

import { ToolError } from '../../src/index.js';

export const FIXED_BOUNDS = {
  /** UTF-8 bytes of `source`. */
  sourceBytes: 65_536,
  /** UTF-8 bytes of the `input` datum text. */
  inputDatumBytes: 16_384,
  /** UTF-8 bytes of one lispex.mcp-eval-result/v1 as JSON. */
  evalResultBytes: 1_048_576,
  /** UTF-8 bytes of one lispex.mcp-route-comparison-result/v1 as JSON. */
  comparisonResultBytes: 4_194_304,
  /** Diagnostics plus warnings in one observation. */
  diagnosticsAndWarnings: 256,
  evalWallClockMs: 5_000,
  /** Upper bound of a whole comparison; each member still has the evaluation wall clock. */
  comparisonWallClockMs: 660_000,
} as const;

/**
 * Bytes a run's stdout may take as a JSON string inside one evaluation result: the 1 MiB result
 * bound less 64 KiB for everything else the result carries (values, up to 256 diagnostics and
 * warnings, identities). The profile's output-byte limit counts UTF-8 bytes, so output within it
 * (600,000 `"`, or control characters at 6 bytes each) could still make the result refused;
 * bounding the escaped size as well turns that into the contract's output-limit outcome.
 */
export const STDOUT_JSON_BYTES = FIXED_BOUNDS.evalResultBytes - 65_536;

/** Bound names as they appear in error payloads and in lispex_reference (topic resources). */
export type BoundName =
  | 'source'
  | 'input-datum'
  | 'evaluation-result'
  | 'comparison-result'
  | 'diagnostics-and-warnings'
  | 'evaluation-wall-clock'
  | 'comparison-wall-clock';

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Check one request text field: it must be well-formed Unicode (a lone surrogate has no UTF-8
 * encoding, so it cannot be "UTF-8 source") and fit its byte bound. Throws a ToolError naming
 * the field, the bound and the measured size.
 */
export function checkTextField(field: 'source' | 'input', text: string): void {
  const bound: BoundName = field === 'source' ? 'source' : 'input-datum';
  const limit = field === 'source' ? FIXED_BOUNDS.sourceBytes : FIXED_BOUNDS.inputDatumBytes;
  // Cheap upper bound first: a UTF-16 unit is at most 3 UTF-8 bytes, and at least 1.
  if (text.length > limit) {
    throw new ToolError(`${field} exceeds the fixed bound of ${limit} bytes (it has at least ${text.length} bytes)`, {
      bound,
      limit_bytes: limit,
      actual_bytes: utf8Length(text),
    });
  }
  const at = firstLoneSurrogate(text);
  if (at >= 0) {
    throw new ToolError(`${field} is not valid UTF-8 text: it contains a lone UTF-16 surrogate at code unit ${at}`, {
      field,
      expected: 'a string of Unicode scalar values (UTF-8 encodable)',
    });
  }
  const bytes = utf8Length(text);
  if (bytes > limit) {
    throw new ToolError(`${field} exceeds the fixed bound of ${limit} bytes (it has ${bytes} bytes)`, {
      bound,
      limit_bytes: limit,
      actual_bytes: bytes,
    });
  }
}

function firstLoneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}
