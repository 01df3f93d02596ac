// What a bus trace's end (bus-trace-observer.ts TraceEnd) is as the judge's DebugWait — one reading
// for a run watched live on the debug stream (ultimate-target.ts) and for a capture run judged from
// its stored capture (timeline/capture-judge.ts, jobs/captures.ts), so both are judged alike.
import type { TraceEnd } from './bus-trace-observer.js';
import type { CrashState, DebugWait } from './connection.js';

type WaitBase = Omit<DebugWait, 'outcome'>;

/**
 * The DebugWait of a trace that ended with `end` (null: it holds no end — the time budget ran out).
 * `cycles`: the trace's cycles are exact clocks; without them a budget's or a halt's cycle is
 * unknown. A harness crash hand-off is read from the machine (`harnessCrash`): the trace holds only
 * the $C0 write, not the context the harness stored.
 */
export async function waitOfTraceEnd(
  base: WaitBase,
  end: TraceEnd | null,
  started: boolean,
  cycles: boolean,
  harnessCrash: (cycle: number | null) => Promise<CrashState>,
): Promise<DebugWait> {
  if (!end) return { ...base, outcome: 'timeout', started };
  switch (end.outcome) {
    case 'ended':
      return { ...base, ...end };
    case 'crashed':
      return { ...base, outcome: 'crashed', crash: end.crash };
    case 'over_budget':
      return { ...base, outcome: 'over_budget', cycle: cycles ? end.cycle : null };
    case 'halted':
      return { ...base, outcome: 'timeout', started: true, halted: { pc: end.pc, cycle: cycles ? end.cycle : null } };
    case 'harness-crash':
      return { ...base, outcome: 'crashed', crash: await harnessCrash(cycles ? end.cycle : null) };
  }
}
