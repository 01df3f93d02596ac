// The host's inline evaluator: runs, on the calling thread, the jobs the inline gate admits
// (programs that provably end within microseconds, see inline-gate.ts), so they skip the trip to
// a worker thread and back. It is the same engine as a worker's, warmed with the same program, and
// a job runs through the same code (runJob, answerJob: the same transfer bounds, an engine defect
// caught the same way), so the answer is the one a worker would give. Loaded on demand by the
// host (the engine is then in the calling thread too).

import { engineState, resetEngineTo } from '../baseline.js';
import { LispexEvaluator } from '../evaluator.js';
import { warmUp } from '../warm-up.js';
import type { EvaluationJob, TransferBounds } from './protocol.js';
import { runJob } from './run-job.js';
import { type Answer, answerJob } from './worker-loop.js';

export class InlineEvaluator {
  private readonly evaluator = new LispexEvaluator();
  /** False once a reset failed: the host then sends every job to a worker. */
  usable = true;

  constructor() {
    // Like a worker, the warm-up's own symbols stay interned: a worker's baseline includes them.
    warmUp(this.evaluator);
  }

  /**
   * Run one admitted job. The calling thread's engine state (interned symbols, normalizer
   * temporaries) is put back as it was after the run — the run is synchronous, so nothing else
   * interleaves, and nothing the run made is reachable after it: its observation is plain data.
   */
  run(id: number, job: EvaluationJob, bounds: TransferBounds): Answer {
    const before = engineState();
    try {
      return answerJob((j) => runJob(this.evaluator, j), { type: 'job', id, job, bounds });
    } finally {
      try {
        resetEngineTo(before);
      } catch {
        this.usable = false;
      }
    }
  }
}
