// Entry point of one evaluation worker thread (started by engines/lispex/host). It loads the
// engine once, warms it, records the warm baseline, then serves jobs one at a time, returning to
// that baseline after each (the host replaces the worker only when it had to terminate it).
// tsup builds this file as dist/engines/lispex/worker.js.

import { engineState, resetEngineTo } from './baseline.js';
import { LispexEvaluator } from './index.js';
import { serveEvaluations } from './host/worker-loop.js';
import { runJob } from './host/run-job.js';
import { warmUp } from './warm-up.js';

const evaluator = new LispexEvaluator();

// Warm the engine before announcing readiness (workers are started ahead of need, so this costs
// no request time).
warmUp(evaluator);

// The warm-up's own symbols and temporaries are part of the baseline: the state every job sees.
const baseline = engineState();

serveEvaluations(
  (job) => runJob(evaluator, job),
  () => resetEngineTo(baseline),
);
