// The typed results of OcamlToplevel. Field names are the topup contract's wire names, so the
// MCP adapter can pass them through unchanged.

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
}

/** Why an eval failed: the compiler (syntax/compile), user code (exception), an interrupt, etc. */
export type EvalErrorKind = 'syntax' | 'compile' | 'exception' | 'timeout' | 'directive' | 'crash' | 'cancelled';

/** The agent was replaced during this call (crash, exit, unresponsive to an interrupt). */
export interface ToplevelRestart {
  reason: string;
  /** Phrases of the log replayed into the new toplevel. */
  replayed_phrases: number;
  /** Set when replay itself failed: the environment holds only the phrases before it. */
  replay_error: string | null;
}

export interface EvalResult {
  /** The last successful phrase's value (an expression) or signature (a definition); null on error. */
  value_repr: string | null;
  /** Type of that value (for a definition: of the last value it binds); null on error or none. */
  type: string | null;
  stdout: string;
  stderr: string;
  /** Each warning as the compiler prints it, with its location. */
  warnings: string[];
  /** The compiler's message with location, the exception, or "evaluation timed out"; null on success. */
  error: string | null;
  /** Present when error is non-null. */
  error_kind?: EvalErrorKind;
  /** Present when error is non-null: where in `source` the error is, when the compiler says. */
  error_location?: SourceLocation | null;
  value_repr_overflow?: string;
  stdout_overflow?: string;
  stderr_overflow?: string;
  /** Bytes of output discarded past the capture cap (engine option captureCap, default 16 MiB). */
  stdout_discarded_bytes?: number;
  stderr_discarded_bytes?: number;
  toplevel_restarted?: ToplevelRestart;
}

export interface EvalBatchResult {
  results: EvalResult[];
  stopped_on_error: boolean;
}

export interface Binding {
  name: string;
  type: string;
  /** false for stdlib/library bindings (only listed with `all`). */
  user: boolean;
}

export interface LookupResult {
  name: string;
  type: string;
  location: SourceLocation | null;
  /** A small, bounded rendering of the value; null when it cannot be shown. */
  preview: string | null;
}

export interface CheckpointResult {
  label: string;
  path: string;
  phrases: number;
  bytes: number;
}

export interface CompileResult {
  ok: boolean;
  binary_path: string | null;
  build_log: string;
}

export interface EvalOptions {
  /** Seconds before the evaluation is interrupted. */
  timeout?: number;
  signal?: AbortSignal;
}

export interface EvalBatchOptions extends EvalOptions {
  /** Called as each element finishes: `done` of `total` elements evaluated (for progress reports). */
  onElement?: (done: number, total: number) => void;
}
