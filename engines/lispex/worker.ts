// Entry point of one evaluation worker thread (started by engines/lispex/host). It loads the
// engine once, warms it, records the warm baseline, then serves jobs one at a time, returning to
// that baseline after each (the host replaces the worker only when it had to terminate it).
// tsup builds this file as dist/engines/lispex/worker.js.

import { engineState, resetEngineTo } from './baseline.js';
import { LispexEvaluator } from './index.js';
import { serveEvaluations } from './host/worker-loop.js';

const evaluator = new LispexEvaluator();

// Warm the engine before announcing readiness (workers are started ahead of need, so this costs
// no request time): the first run in a fresh thread otherwise pays for cold code paths. A fixed
// program, exercising the reader, normalizer, both routes, primitives and the printer.
const WARM_UP = `
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define v (vector 1 2 3))
(display (list (fib 12) (map (lambda (x) (* x x)) '(1 2 3)) (string-append "a" "b") v 1/2 2.5 #\\a))
(let loop ((i 0) (acc '())) (if (< i 50) (loop (+ i 1) (cons i acc)) (reverse acc)))
`;
for (const route of ['tree', 'vm'] as const) {
  try {
    evaluator.run(WARM_UP, { route, sourceId: 'warm-up' });
  } catch {
    // Only a speed-up: a defect here shows up again, and is reported, on the real job.
  }
}

// The warm-up's own symbols and temporaries are part of the baseline: the state every job sees.
const baseline = engineState();

serveEvaluations(
  (job) =>
    evaluator.run(job.source, {
      route: job.route,
      ...(job.input !== undefined ? { input: job.input } : {}),
      ...(job.sourceId !== undefined ? { sourceId: job.sourceId } : {}),
      ...(job.stdoutJsonLimit !== undefined ? { stdoutJsonLimit: job.stdoutJsonLimit } : {}),
    }),
  () => resetEngineTo(baseline),
);
