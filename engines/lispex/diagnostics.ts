// Diagnostics: the catalog (derived from the byte-exact contract diagnostic-catalog.v1.json,
// never retyped), the error every stage throws, and the rendering rule
// `CODE {source}:{line}:{column} {message}{irritants}`.

import catalogJson from './contracts/diagnostic-catalog.v1.json' with { type: 'json' };
import type { Value } from './values.js';
import type { WarningCode } from './warning-codes.js';

/** A 1-based source position: line, and column counted in Unicode scalars. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/** A source span: start position plus the half-open UTF-8 byte range it covers. */
export interface Span extends SourcePosition {
  readonly startByte: number;
  readonly endByte: number;
}

export type Severity = 'error' | 'warning';
/** Catalog phase of a code. `reader-or-normalizer`/`reader-or-runtime` resolve per occurrence. */
export type CatalogPhase = 'reader' | 'normalizer' | 'reader-or-normalizer' | 'reader-or-runtime' | 'runtime' | 'resource';
/** Phase of one emitted diagnostic. */
export type Phase = 'reader' | 'normalizer' | 'runtime' | 'resource';

export interface CatalogRow {
  readonly code: string;
  readonly severity: Severity;
  readonly phase: CatalogPhase;
  readonly family: string;
  readonly render_template: string;
  readonly irritant_projection: string;
  readonly source_span: string;
  readonly exit_status: number;
}

function loadCatalog(): ReadonlyMap<string, CatalogRow> {
  const columns = catalogJson.columns as string[];
  const map = new Map<string, CatalogRow>();
  for (const raw of catalogJson.rows as unknown[][]) {
    const row = Object.fromEntries(columns.map((c, i) => [c, raw[i]])) as unknown as CatalogRow;
    map.set(row.code, row);
  }
  return map;
}

/** Every catalog row by code, in catalog order. */
export const DIAGNOSTIC_CATALOG: ReadonlyMap<string, CatalogRow> = loadCatalog();
export const CATALOG_SCHEMA: string = catalogJson.schema;

/** Catalog codes of errors (E-codes and recursion-limit) that the engine raises. */
export type ErrorCode =
  | 'E100'
  | 'E110'
  | 'E120'
  | 'E130'
  | 'E140'
  | 'E150'
  | 'E300'
  | 'E301'
  | 'E302'
  | 'E303'
  | 'E310'
  | 'E311'
  | 'E312'
  | 'E313'
  | 'E314'
  | 'E320'
  | 'E321'
  | 'E330'
  | 'E331'
  | 'E332'
  | 'E340'
  | 'recursion-limit';
export type { WarningCode } from './warning-codes.js';

/** Default message prose per code (prose is advisory per OBSERVATION-CONTRACT-1). */
export const DEFAULT_MESSAGES: Readonly<Record<ErrorCode | WarningCode, string>> = {
  E100: 'illegal token or structure',
  E110: 'cannot bind a reserved name',
  E120: 'forbidden extension',
  E130: 'malformed form',
  E140: 'malformed dotted list',
  E150: 'invalid string or character',
  E300: 'unbound variable',
  E301: 'attempt to apply a non-procedure',
  E302: 'wrong number of arguments',
  E303: 'set! of an unbound variable',
  E310: 'pair expected',
  E311: 'index out of range',
  E312: 'wrong argument type',
  E313: 'division by zero',
  E314: 'non-finite inexact number',
  E320: 'multiple values misuse',
  E321: 'letrec variable read before initialization',
  E330: 'error',
  E331: 'uncaught raised object',
  E332: 'handler returned from non-continuable raise',
  E340: 'escape continuation no longer active',
  'recursion-limit': 'non-tail call depth limit exceeded',
  W330: 'deprecated procedure % (use modulo)',
  W331: 'deprecated list alias (use car/cdr)',
};

/**
 * The one error type every stage throws for a guest-visible fault. `irritants` are Lispex
 * values, written with `write` when rendered. `span` is filled by the stage that knows the
 * source position (the evaluator fills it from the current call site when a primitive throws).
 */
export class LispexError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string = DEFAULT_MESSAGES[code],
    readonly irritants: Value[] = [],
    public span?: SourcePosition,
    /** The raised object when this error carries an uncaught `raise` (E331) or `error` (E330). */
    readonly payload?: Value,
  ) {
    super(message);
    this.name = 'LispexError';
  }
}

/**
 * Render one diagnostic line (without its terminating LF). Each irritant is preceded by one
 * space; `writtenIrritants` are the irritants already printed with `write`.
 */
export function renderDiagnostic(
  code: string,
  source: string,
  position: SourcePosition,
  message: string,
  writtenIrritants: readonly string[] = [],
): string {
  const irritants = writtenIrritants.map((w) => ` ${w}`).join('');
  return `${code} ${source}:${position.line}:${position.column} ${message}${irritants}`;
}

/** The exit status the catalog assigns to a code (1 for E-codes, 2 for recursion-limit, 0 warnings). */
export function exitStatusOf(code: string): number {
  return DIAGNOSTIC_CATALOG.get(code)?.exit_status ?? 1;
}
