// The messages exchanged between the host (main thread) and an evaluation worker. Plain data
// only, so structured clone carries them unchanged. The worker sees one job at a time and nothing
// but the job (no paths, no capabilities).

import type { Observation, Route } from '../observation.js';

/** One evaluation: what `LispexEvaluator.run` needs, nothing else (no paths, no capabilities). */
export interface EvaluationJob {
  /** Program text, or raw bytes (decoded by the engine with strict UTF-8, E100 on bad bytes). */
  readonly source: string | Uint8Array;
  readonly route: Route;
  /** Text of one Lispex datum, bound as `input`. */
  readonly input?: string;
  /** Logical source id used in rendered diagnostics (never a host path). */
  readonly sourceId?: string;
  /** Bound on stdout as a JSON string body (see RunOptions.stdoutJsonLimit). */
  readonly stdoutJsonLimit?: number;
}

/**
 * Bounds the worker checks before sending an observation back, so an oversized observation is
 * never copied across threads: it answers with the measured size instead.
 */
export interface TransferBounds {
  /** Most diagnostics plus warnings one observation may carry. */
  readonly maxRecords: number;
  /** Most UTF-8 bytes the observation may take as JSON. */
  readonly maxObservationBytes: number;
}

export interface JobMessage {
  readonly type: 'job';
  readonly id: number;
  readonly job: EvaluationJob;
  readonly bounds: TransferBounds;
}

/** Which transfer bound an observation exceeded, with the measured and the allowed amount. */
export interface BoundExcess {
  readonly bound: 'diagnostics-and-warnings' | 'observation-bytes';
  readonly actual: number;
  readonly limit: number;
  /** Status of the observation that was too large (it is not transferred). */
  readonly status: Observation['status'];
  readonly exit_status: number;
}

/**
 * What the worker did after the job, before answering: `baseline` — the engine is back at its
 * warm baseline and the worker may take another job; `failed` — the reset failed, so the host
 * must terminate the worker.
 */
export type ResetState = 'baseline' | 'failed';

export type WorkerReply =
  /** The worker loaded the engine and waits for a job. */
  | { readonly type: 'ready' }
  | { readonly type: 'observation'; readonly id: number; readonly reset: ResetState; readonly observation: Observation }
  | { readonly type: 'over-bound'; readonly id: number; readonly reset: ResetState; readonly excess: BoundExcess }
  /** The engine threw instead of returning an observation: an engine defect, not a guest fault. */
  | { readonly type: 'engine-failure'; readonly id: number; readonly reset: ResetState; readonly message: string };
