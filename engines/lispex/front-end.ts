// The front end every route shares, and the external derivation too: read the source (and the
// optional input datum), normalize to Core IR, and enforce the form-depth bound. `progress` says how
// far it got, so a caller that catches a fault reports it in the right phase and against the right
// source id (`input` while the input datum is being read).
import { type CoreProgram, coreDepth } from './core-ir.js';
import { LispexError } from './diagnostics.js';
import { MAX_FORM_DEPTH, type Meter } from './meter.js';
import { type IntrinsicName, normalizeProgram } from './normalizer.js';
import { readAll, syntaxToValue } from './reader.js';
import type { Primitive, Value } from './values.js';

export interface FrontEndProgress {
  phase: 'reader' | 'normalizer';
  diagnosticSource: string;
}

export interface FrontEndResult {
  program: CoreProgram;
  /** The input datum as a value, when one was given (bound as the global `input`). */
  inputValue: Value | undefined;
}

export function runFrontEnd(
  bytes: Uint8Array,
  inputBytes: Uint8Array | undefined,
  sourceId: string,
  meter: Meter,
  intrinsic: (name: IntrinsicName) => Primitive,
  progress: FrontEndProgress,
): FrontEndResult {
  progress.phase = 'reader';
  progress.diagnosticSource = sourceId;
  const roots = readAll(bytes, meter);
  let inputValue: Value | undefined;
  if (inputBytes !== undefined) {
    // Faults in the input datum are reported against the logical id `input`.
    progress.diagnosticSource = 'input';
    const data = readAll(inputBytes, meter);
    if (data.length !== 1) {
      throw new LispexError('E100', `input must be exactly one datum (got ${data.length})`, [], { line: 1, column: 1 });
    }
    inputValue = syntaxToValue(data[0]!);
    progress.diagnosticSource = sourceId;
  }
  progress.phase = 'normalizer';
  const program = normalizeProgram(roots, meter, intrinsic);
  for (const form of program.forms) {
    if (coreDepth(form) > MAX_FORM_DEPTH) {
      throw new LispexError('recursion-limit', `form nested deeper than ${MAX_FORM_DEPTH} after normalization`, [], form.span);
    }
  }
  return { program, inputValue };
}
