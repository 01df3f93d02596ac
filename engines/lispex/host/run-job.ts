// One evaluation job on an evaluator: the job's fields as run options. Shared by the worker and
// the host's inline evaluator, so both run a job exactly the same way.

import type { LispexEvaluator } from '../evaluator.js';
import type { Observation } from '../observation.js';
import type { EvaluationJob } from './protocol.js';

export function runJob(evaluator: LispexEvaluator, job: EvaluationJob): Observation {
  return evaluator.run(job.source, {
    route: job.route,
    ...(job.input !== undefined ? { input: job.input } : {}),
    ...(job.sourceId !== undefined ? { sourceId: job.sourceId } : {}),
    ...(job.stdoutJsonLimit !== undefined ? { stdoutJsonLimit: job.stdoutJsonLimit } : {}),
  });
}
