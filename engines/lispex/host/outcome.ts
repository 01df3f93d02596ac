// What the host answers for one evaluation. Exactly one of: the engine's observation; a transfer
// bound exceeded (the observation exists but is not delivered); the wall clock ran out or the
// caller cancelled (the worker was terminated mid-run); the worker itself failed. Only the first
// is a decision about the program: the others carry no observation and are never retried.

import type { Observation } from '../observation.js';
import type { BoundExcess } from './protocol.js';

export type WorkerFailureReason =
  /** V8 hit the worker's resourceLimits (heap or stack of the worker thread itself). */
  | 'out-of-memory'
  /** The worker exited or crashed while evaluating. */
  | 'exited'
  /** The worker could not load the engine. */
  | 'start-failed'
  /** The engine threw instead of returning an observation (an engine defect). */
  | 'engine-threw'
  /** The host was closed. */
  | 'host-closed';

interface Timed {
  /** Host-side wall time of the whole call in milliseconds (not semantic). */
  readonly hostMs: number;
}

export type HostOutcome =
  | (Timed & { readonly kind: 'completed'; readonly observation: Observation })
  | (Timed & { readonly kind: 'over-bound'; readonly excess: BoundExcess })
  | (Timed & { readonly kind: 'wall-clock-exceeded'; readonly limitMs: number })
  | (Timed & { readonly kind: 'cancelled' })
  | (Timed & { readonly kind: 'worker-failure'; readonly reason: WorkerFailureReason; readonly message: string });
