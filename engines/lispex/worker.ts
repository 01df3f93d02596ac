// Entry point of one evaluation worker thread (started by engines/lispex/host). It loads the
// engine once, then serves the single job the host gives it; the host terminates it afterwards.
// tsup builds this file as dist/engines/lispex/worker.js.

import { LispexEvaluator } from './index.js';
import { serveEvaluations } from './host/worker-loop.js';

const evaluator = new LispexEvaluator();

serveEvaluations((job) =>
  evaluator.run(job.source, {
    route: job.route,
    ...(job.input !== undefined ? { input: job.input } : {}),
    ...(job.sourceId !== undefined ? { sourceId: job.sourceId } : {}),
  }),
);
