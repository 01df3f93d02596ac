// What a route offers the evaluator: evaluate one top-level form; the site to blame. Its own file
// so the routes (tree/machine.ts, vm/route.ts) and the evaluator that builds them do not import
// each other.
import type { Core } from './core-ir.js';
import type { SourcePosition } from './diagnostics.js';
import type { Value } from './values.js';

export interface RouteRunner {
  evalForm(form: Core): Value;
  currentSite(): SourcePosition;
}
