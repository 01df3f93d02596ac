// Warming an evaluator before it serves: the first run in a fresh thread otherwise pays for cold
// code paths. Shared by the evaluation worker and the host's inline evaluator, so both start their
// jobs from the same warm baseline. A fixed program, exercising the reader, normalizer, both
// routes, primitives and the printer.

import type { LispexEvaluator } from './evaluator.js';

export const WARM_UP_PROGRAM = `
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define v (vector 1 2 3))
(display (list (fib 12) (map (lambda (x) (* x x)) '(1 2 3)) (string-append "a" "b") v 1/2 2.5 #\\a))
(let loop ((i 0) (acc '())) (if (< i 50) (loop (+ i 1) (cons i acc)) (reverse acc)))
`;

/** Run the warm-up program on both routes; a defect here is reported again on the real job. */
export function warmUp(evaluator: LispexEvaluator): void {
  for (const route of ['tree', 'vm'] as const) {
    try {
      evaluator.run(WARM_UP_PROGRAM, { route, sourceId: 'warm-up' });
    } catch {
      // Only a speed-up.
    }
  }
}
