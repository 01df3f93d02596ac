// The observation of one run: what `LispexEvaluator.run` returns. Shaped after
// observation-result.v1 (status, stdout, diagnostics, warnings, exit status, value projection,
// resource outcome, metrics, identity) with plain JS types; the MCP adapter maps it onto the
// wire schemas. Everything here is data: no classes, JSON-serializable as is.

/** Outcome categories of observation-result.v1. */
export type ObservationStatus = 'ok' | 'source-error' | 'runtime-error' | 'resource' | 'infrastructure-error';

/** The two built-in routes. */
export type Route = 'tree' | 'vm';

/** Phase of an emitted diagnostic (the catalog's phase, resolved for this occurrence). */
export type DiagnosticPhase = 'reader' | 'normalizer' | 'runtime' | 'resource';

/** One diagnostic or warning, as raised. */
export interface DiagnosticRecord {
  /** Catalog code (E100…, W330, W331, recursion-limit) or a meter exhaustion code. */
  readonly code: string;
  readonly severity: 'error' | 'warning';
  readonly phase: DiagnosticPhase;
  /** Logical source id (never a host path). */
  readonly source: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column in Unicode scalars. */
  readonly column: number;
  /** Advisory prose. */
  readonly message: string;
  /** Irritants, each printed with `write`, in order (always empty for warnings). */
  readonly irritants: readonly string[];
  /** `CODE {source}:{line}:{column} {message}{irritants}` without the terminating LF. */
  readonly rendered: string;
}

/** Structured JSON for the portable result kinds; non-portable values only name their kind. */
export type ProjectedValue =
  | { readonly kind: 'nil' }
  | { readonly kind: 'boolean'; readonly value: boolean }
  /** Decimal text, so big integers survive JSON. */
  | { readonly kind: 'integer'; readonly value: string }
  | { readonly kind: 'rational'; readonly numerator: string; readonly denominator: string }
  | { readonly kind: 'finite-real'; readonly value: number }
  | { readonly kind: 'character'; readonly value: string; readonly code_point: number }
  | { readonly kind: 'symbol'; readonly name: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'proper-list'; readonly items: readonly ProjectedValue[] }
  | { readonly kind: 'improper-list'; readonly items: readonly ProjectedValue[]; readonly tail: ProjectedValue }
  | { readonly kind: 'vector'; readonly items: readonly ProjectedValue[] }
  | { readonly kind: 'bytevector'; readonly bytes: readonly number[] }
  /**
   * Not portable: closure, primitive, continuation, error object, unspecified, a cyclic vector,
   * or a part nested deeper than PROJECTION_DEPTH_LIMIT (its printed form is still complete).
   */
  | { readonly kind: 'procedure' | 'continuation' | 'error-object' | 'unspecified' | 'cyclic' | 'too-deep' };

/** Nesting depth beyond which a value's structured projection is cut (JSON consumers recurse). */
export const PROJECTION_DEPTH_LIMIT = 500;

export const PORTABLE_KINDS: ReadonlySet<string> = new Set([
  'nil',
  'boolean',
  'integer',
  'rational',
  'finite-real',
  'character',
  'symbol',
  'string',
  'proper-list',
  'improper-list',
  'vector',
  'bytevector',
]);

/** One result value: its structured projection, whether it is portable, and its `write` form. */
export interface ValueRecord {
  readonly portable: boolean;
  readonly value: ProjectedValue;
  /** The one fixed printed form (`write`). */
  readonly printed: string;
}

/** Meter axes in contract order (meter-manifest.v3 axis_order). */
export type MeterAxis = 'frontend-transition' | 'token' | 'normalization-step' | 'machine-transition' | 'output-byte';

export interface ResourceLimits {
  readonly 'frontend-transition-limit': number;
  readonly 'token-limit': number;
  readonly 'normalization-step-limit': number;
  readonly 'machine-transition-limit': number;
  readonly 'output-byte-limit': number;
}

export interface ResourceUsage {
  readonly frontend_transitions: number;
  readonly tokens: number;
  readonly normalization_steps: number;
  readonly machine_transitions: number;
  readonly output_bytes: number;
}

export interface ResourceOutcome {
  /** `within-limits` on every non-resource outcome. */
  readonly status: 'within-limits' | 'limit-exceeded';
  /** The exhausted axis id, or `non-tail-call-depth` for recursion-limit. */
  readonly limit?: MeterAxis | 'non-tail-call-depth';
  readonly profile_id: string;
  readonly purpose: string;
  readonly limits: ResourceLimits;
  /** Admitted work, always present (including work before a later fault). */
  readonly usage: ResourceUsage;
}

export interface Metrics {
  /** Deepest non-tail call nesting reached. */
  readonly max_call_depth: number;
  /** This route's recursion-limit threshold (backend-specific, HOST-SAFETY-RESOURCE-1). */
  readonly call_depth_limit: number;
  /** Number of top-level forms read. */
  readonly forms: number;
  /** Wall time of the run in milliseconds (not semantic). */
  readonly wall_ms: number;
}

export interface Identity {
  readonly source_sha256: string;
  readonly input_sha256?: string;
  readonly profile_id: string;
  readonly meter_id: string;
  readonly meter_manifest_id: string;
  readonly route: Route;
  /** Names this implementation truthfully, e.g. `mcp-engines/lispex-vm`. */
  readonly engine: string;
  readonly engine_version: string;
  readonly language_profile: string;
}

export interface Observation {
  readonly status: ObservationStatus;
  /** Explicit output (display/write/newline/println). Empty on `resource` and source errors. */
  readonly stdout: string;
  readonly stdout_bytes: number;
  /** At most one error diagnostic (the first error stops the run). */
  readonly diagnostics: readonly DiagnosticRecord[];
  /** Warnings in occurrence order. */
  readonly warnings: readonly DiagnosticRecord[];
  /** 0 ok, 1 source/runtime error, 2 resource. */
  readonly exit_status: number;
  /** Result values of the last top-level form (empty when it returned none or the run failed). */
  readonly values: readonly ValueRecord[];
  /**
   * INTERACTIVE-OUTPUT-1 rendering: per successful form, its explicit output then each result
   * written with `write` plus LF. Empty on source and resource faults; on a runtime fault it
   * keeps what was committed before the failing form. Not charged to the output meter.
   */
  readonly interactive_stdout: string;
  readonly resource_outcome: ResourceOutcome;
  readonly metrics: Metrics;
  readonly identity: Identity;
}
