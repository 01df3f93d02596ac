// The engine's warm baseline: the process-wide state a run can change, recorded once the engine
// is warm so a reused worker can return to it exactly. Everything else a run touches (meter,
// globals, stdout, warnings) is made fresh per run by LispexEvaluator.run; the primitive table
// holds no guest-mutable state. What remains process-wide is the symbol table (interning) and the
// numbering of normalizer temporaries — both restored here.

import { Temp } from './core-ir.js';
import { Sym } from './values.js';

/** The process-wide engine state, as counts (equal counts mean equal state: both only grow). */
export interface EngineState {
  /** Interned symbols. */
  readonly symbols: number;
  /** Normalizer temporaries numbered so far. */
  readonly temporaries: number;
}

export function engineState(): EngineState {
  return { symbols: Sym.internedCount(), temporaries: Temp.madeCount() };
}

/**
 * Return the engine to `baseline` (taken with `engineState()` when the engine was warm). Call it
 * only between runs, when nothing a run made is reachable any more.
 */
export function resetEngineTo(baseline: EngineState): void {
  Sym.forgetSince(baseline.symbols);
  Temp.restartAt(baseline.temporaries);
  const now = engineState();
  if (now.symbols !== baseline.symbols || now.temporaries !== baseline.temporaries) {
    throw new Error(`the engine did not return to its baseline (${JSON.stringify(now)} vs ${JSON.stringify(baseline)})`);
  }
}
