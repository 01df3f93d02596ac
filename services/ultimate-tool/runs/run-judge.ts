// THE judge (issue 35): one function, judgeRun, decides a run's status from everything the target
// observed (the seam's DebugWait, the screen and memory read at the end state) and the test's
// expectations — the same for every target; targets only observe. A run passes only when its
// verdict (or, observed by the screen, its screen_match) and every expectation hold: the $D7FF
// write sequence, the cycle budget, screen_match, memory. The status reason names the first that
// failed; observations.judgement lists every one (docs/ultimate/SERVICE.md, "Judging a run").
import type { RunStatus } from '../api/schemas.js';
import { addressHex } from '../api/address.js';
import { type TestSpec, expectedPassValue } from '../project/manifest.js';
import { type DebugWait, HANDOFF } from '../targets/connection.js';

export function hex8(n: number): string {
  return `$${n.toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * The $D7FF value that ended a run: its verdict or result value, or the harness's crash value for
 * a crash hand-off; null when the run ended otherwise (a crash the tool saw, a timeout, the budget).
 */
export function endingValue(w: DebugWait | null): number | null {
  if (w?.outcome === 'ended') return w.value;
  if (w?.outcome === 'crashed' && w.crash.kind === 'harness') return HANDOFF.crash;
  return null;
}

/**
 * observations.debug_register_writes and how exact they are; `inexactNote` says why when they are
 * not (a live run: polling; a capture run says what its trace lacks).
 */
export function writesObservation(
  w: Pick<DebugWait, 'writes' | 'writesExact' | 'cycleSource' | 'crashHook'>,
  inexactNote = 'observed by polling the debug register: writes between two polls may have been missed',
): Record<string, unknown> {
  const cycles = w.cycleSource !== null;
  return {
    debug_register_writes: w.writes.map((x) => ({ value: x.value, value_hex: hex8(x.value), cycle: cycles ? x.cycle : null })),
    debug_register_writes_exact: w.writesExact,
    ...(w.writesExact ? {} : { debug_register_writes_note: inexactNote }),
    cycle_source: w.cycleSource,
    ...(w.crashHook
      ? {
          crash_hook: {
            installed_by: 'dma',
            footprint: { start: addressHex(w.crashHook.footprint.start), end: addressHex(w.crashHook.footprint.end) },
            vector: addressHex(w.crashHook.vector),
            context_block: addressHex(w.crashHook.block),
            signal: hex8(w.crashHook.signal),
            detects: ['brk'],
          },
        }
      : {}),
  };
}

export function judgeDebugWait(
  test: TestSpec,
  w: DebugWait,
  range: { start: number; end: number } | null = null,
): { status: RunStatus; reason: string } {
  if (test.expect.timeout) {
    const expected = expectedTimeout(test, w, range);
    if (expected) return expected;
  }
  if (w.outcome === 'ended') {
    const v = hex8(w.value);
    const expected = expectedPassValue(test);
    const conv = test.verdict ? 'the verdict' : 'the harness convention';
    if (w.verdict === 'fail') return { status: 'failed', reason: `the program reported ${v}, a fail value of ${conv}` };
    if (expected !== null && w.value !== expected)
      return {
        status: 'failed',
        reason: `the program reported ${v}, a pass value of ${conv}, but expect.debug_register is ${hex8(expected)}`,
      };
    return {
      status: 'passed',
      reason: `the program reported ${v}, ${test.verdict ? 'a pass value of the verdict' : 'the expected pass value'}`,
    };
  }
  if (w.outcome === 'crashed') {
    const c = w.crash;
    const at = c.cycle === null ? '' : ` at cycle ${c.cycle}`;
    switch (c.kind) {
      case 'harness':
        return { status: 'crashed', reason: 'the program reported a crash ($C0 in $D7FF) through the harness crash hand-off' };
      case 'brk':
        return {
          status: 'crashed',
          reason: `BRK at ${addressHex(c.pc)}${at}, ${test.crash.brk === 'any' ? 'a crash by crash.brk "any"' : 'unhandled: it reached the KERNAL\'s own BRK handling (crash.brk "unhandled")'}`,
        };
      case 'jam':
        return { status: 'crashed', reason: `the CPU jammed at ${addressHex(c.pc)}${at} before reporting a result` };
      case 'outside-code':
        return { status: 'crashed', reason: `an opcode fetch at ${addressHex(c.pc)}${at}, outside crash.outside_code's ranges` };
    }
  }
  if (w.outcome === 'over_budget')
    return {
      status: 'failed',
      reason: `over the budget of ${test.budget.cycles} cycles: the program had not ended by then (budget.cycles stopped it at ${w.cycle === null ? 'an unknown cycle' : `cycle ${w.cycle}`})`,
    };
  return { status: 'timed_out', reason: timeoutReason(test, w, range) };
}

/**
 * A test with expect.timeout: the program must not end the run. It passes when the run ran out its
 * budget (budget.cycles stopped it; without a cycle budget, budget.time_ms ran out with the program
 * started) or halted in a JAM crash.jam calls no crash; it fails when the program ended the run
 * with a value. A crash and a program that never started are judged as without it (null).
 */
function expectedTimeout(
  test: TestSpec,
  w: DebugWait,
  range: { start: number; end: number } | null,
): { status: RunStatus; reason: string } | null {
  if (w.outcome === 'ended')
    return {
      status: 'failed',
      reason: `the program reported ${hex8(w.value)}, but expect.timeout says it must run out its budget without ending the run`,
    };
  if (w.outcome === 'over_budget')
    return {
      status: 'passed',
      reason: `the program ran out its budget of ${test.budget.cycles} cycles without ending the run, as expect.timeout asks`,
    };
  if (w.outcome === 'timeout' && (w.started || w.writes.length > 0)) {
    const seen = timeoutReason(test, w, range);
    // With a cycle budget that budget is the one to run out: the wall clock stopping the run first
    // says nothing about the cycles the program would have gone on for (unless it halted).
    if (test.budget.cycles !== undefined && !w.halted)
      return {
        status: 'timed_out',
        reason: `${seen}: the time budget ran out before budget.cycles (${test.budget.cycles}), so expect.timeout cannot be judged`,
      };
    return { status: 'passed', reason: `${seen}, as expect.timeout asks` };
  }
  return null;
}

/** What was seen when the time budget ran out: never started, never wrote $D7FF, halted, or the last write. */
function timeoutReason(test: TestSpec, w: DebugWait & { outcome: 'timeout' }, range: { start: number; end: number } | null): string {
  const budget = `within the ${test.budget.time_ms} ms budget`;
  const how = test.start === 'run' ? 'after RUN' : `after SYS ${addressHex(test.start.sys)}`;
  if (!w.started && w.writes.length === 0)
    return range
      ? `the program never started: no opcode fetch inside ${addressHex(range.start)}–${addressHex(range.end)} ${how}${test.start === 'run' ? ', and BASIC began no line there' : ''} ${budget}`
      : `the program never started ${budget}`;
  if (w.halted)
    return `the CPU jammed at ${addressHex(w.halted.pc)}${w.halted.cycle === null ? '' : ` at cycle ${w.halted.cycle}`} (crash.jam is false, so not a crash) before ${test.verdict ? 'a verdict value' : 'a result'} in $D7FF`;
  const last = w.writes.at(-1);
  if (!last) return `the program never wrote $D7FF ${budget}`;
  return `no ${test.verdict ? 'verdict value' : 'result'} in $D7FF ${budget} (${w.writes.length} write${w.writes.length === 1 ? '' : 's'}, the last ${hex8(last.value)})`;
}

export interface SequenceCheck {
  matched: boolean;
  status: RunStatus;
  reason: string;
  rows: Array<{
    index: number;
    expected_hex: string | null;
    observed_hex: string | null;
    cycles_after_previous: number | null;
    expected_cycles: unknown;
    matched: boolean;
  }>;
}

/** expect.debug_register_writes against the observed writes; null when the test has none. */
export function judgeWriteSequence(test: TestSpec, w: DebugWait): SequenceCheck | null {
  const want = test.expect.debug_register_writes;
  if (!want) return null;
  const cycles = w.cycleSource !== null;
  const needsCycles = want.some((x) => x.cycles_after_previous !== undefined);
  const rows: SequenceCheck['rows'] = [];
  let firstBad: string | null = null;
  const n = Math.max(want.length, w.writes.length);
  for (let i = 0; i < n; i++) {
    const e = want[i];
    const o = w.writes[i];
    const prev = w.writes[i - 1];
    const distance = cycles && o && prev ? o.cycle - prev.cycle : null;
    let ok = e !== undefined && o !== undefined && e.value === o.value;
    const range = e?.cycles_after_previous;
    if (ok && range !== undefined && i > 0) {
      if (distance === null) ok = false;
      else if (typeof range === 'number') ok = distance === range;
      else ok = distance >= range.min && distance <= range.max;
    }
    rows.push({
      index: i,
      expected_hex: e ? hex8(e.value) : null,
      observed_hex: o ? hex8(o.value) : null,
      cycles_after_previous: distance,
      expected_cycles: range ?? null,
      matched: ok,
    });
    if (!ok && firstBad === null) {
      if (!e) firstBad = `write ${i + 1} (${hex8(o!.value)}) was not expected: the sequence has ${want.length} writes`;
      else if (!o) firstBad = `write ${i + 1} (${hex8(e.value)}) was never observed (${w.writes.length} writes seen)`;
      else if (e.value !== o.value) firstBad = `write ${i + 1} is ${hex8(o.value)}, expected ${hex8(e.value)}`;
      else if (distance === null) firstBad = `write ${i + 1} has no cycle count on this target`;
      else
        firstBad = `write ${i + 1} (${hex8(o.value)}) came ${distance} cycles after the previous one, expected ${typeof range === 'number' ? range : `${range?.min}-${range?.max}`}`;
    }
  }
  if (firstBad === null) return { matched: true, status: 'passed', reason: 'the $D7FF write sequence matched', rows };
  // Without cycles (or with writes possibly missed) the target cannot tell: that is not the program's failure.
  const cannotTell = (!cycles && needsCycles) || !w.writesExact;
  return {
    matched: false,
    status: cannotTell ? 'error' : 'failed',
    reason: cannotTell
      ? `the $D7FF write sequence could not be judged on this target (${!w.writesExact ? 'writes may have been missed' : 'no cycle counts'}): ${firstBad}`
      : `the $D7FF write sequence differs: ${firstBad}`,
    rows,
  };
}

export interface CycleBudget {
  cycles: number;
  used: number | null;
  within: boolean | null;
  /** What `used` counts up to. */
  measured_to: string;
  reason: string;
}

/** budget.cycles against the cycle of the write (or crash) that ended the run; null without budget.cycles. */
export function judgeCycleBudget(test: TestSpec, w: DebugWait): CycleBudget | null {
  const cycles = test.budget.cycles;
  if (cycles === undefined) return null;
  if (w.cycleSource === null)
    return {
      cycles,
      used: null,
      within: null,
      measured_to: 'nothing: this target observed no cycles',
      reason: `budget.cycles is ${cycles}, but this target observed no cycles, so the budget could not be judged`,
    };
  let used: number | null = null;
  let to = '';
  if (w.outcome === 'ended') {
    used = w.writes.at(-1)?.cycle ?? null;
    to = `the write of ${hex8(w.value)} that ended the run`;
  } else if (w.outcome === 'crashed' && w.crash.cycle !== null) {
    used = w.crash.cycle;
    to = 'the crash';
  } else if (w.outcome === 'over_budget') {
    return {
      cycles,
      used: null,
      within: false,
      measured_to: `the run was stopped at cycle ${w.cycle ?? '(unknown)'}, past the budget, before it ended`,
      reason: `the program had not ended within ${cycles} cycles`,
    };
  }
  if (used === null) {
    // A run that never ended used more than any budget it had: it ran until the time budget.
    return {
      cycles,
      used: null,
      within: false,
      measured_to: 'nothing: the run did not end',
      reason: `the run did not end, so it did not end within ${cycles} cycles`,
    };
  }
  const within = used <= cycles;
  return {
    cycles,
    used,
    within,
    measured_to: to,
    reason: within
      ? `${used} cycles, within the budget of ${cycles}`
      : `${used} cycles from the program's start to ${to}, over the budget of ${cycles}`,
  };
}

/** One expectation as the judge saw it: held, failed, or could not be judged on this target (null). */
export interface JudgedExpectation {
  expectation: string;
  held: boolean | null;
  reason: string;
}

/** One memory expectation read at the end state. */
export interface MemoryCheck {
  address: number;
  matched: boolean;
  reason: string;
}

export interface RunObservationsForJudge {
  /** The debug-register wait (observe "debug_register"); null when observed by the screen. */
  wait: DebugWait | null;
  /** The PRG's load range (for a timeout's reason). */
  range: { start: number; end: number } | null;
  /** screen_match at the end state; null without screen_match. */
  screen: { matched: boolean; reason: string } | null;
  memory: MemoryCheck[];
  /**
   * Checks of the run's own kind, judged last (a capture run's post-stop pass marker): each fails
   * the run as an expectation does. `held: null` makes it an error (cannot be judged).
   */
  extra?: JudgedExpectation[];
}

export interface Judgement {
  status: RunStatus;
  reason: string;
  /** Every expectation, in the order judged: the first that failed gave the reason. */
  judged: JudgedExpectation[];
  sequence: SequenceCheck | null;
  budget: CycleBudget | null;
}

/**
 * THE judge: the run's end (verdict, crash, timeout, over budget), then — only a run that ended
 * passing can still fail — each expectation in a fixed order: debug_register_writes, budget.cycles,
 * screen_match, memory, then the run's own extra checks (a capture run's pass marker). The first that does not hold decides (failed, or error when this target
 * cannot judge it), and names itself in the reason.
 */
export function judgeRun(test: TestSpec, o: RunObservationsForJudge): Judgement {
  const judged: JudgedExpectation[] = [];
  let status: RunStatus;
  let reason: string;
  let sequence: SequenceCheck | null = null;
  let budget: CycleBudget | null = null;
  if (o.wait) {
    const end = judgeDebugWait(test, o.wait, o.range);
    status = end.status;
    reason = end.reason;
    judged.push({ expectation: test.verdict ? 'verdict' : 'debug_register', held: end.status === 'passed', reason: end.reason });
    sequence = judgeWriteSequence(test, o.wait);
    budget = judgeCycleBudget(test, o.wait);
  } else {
    // Observed by the screen: screen_match is the run's verdict.
    const s = o.screen ?? { matched: false, reason: 'no screen_match to observe' };
    status = s.matched ? 'passed' : 'failed';
    reason = s.reason;
  }
  const fail = (expectation: string, held: boolean | null, why: string, cannotTell = false) => {
    judged.push({ expectation, held, reason: why });
    if (held !== true && status === 'passed') {
      status = cannotTell || held === null ? 'error' : 'failed';
      reason = `${expectation}: ${why}`;
    }
  };
  if (sequence) fail('expect.debug_register_writes', sequence.matched ? true : sequence.status === 'error' ? null : false, sequence.reason);
  // With expect.timeout the cycle budget is the limit to run out, judged above, not one to end within.
  if (budget && o.wait?.outcome !== 'over_budget' && !test.expect.timeout) fail('budget.cycles', budget.within, budget.reason);
  if (o.screen) fail('expect.screen_match', o.screen.matched, o.screen.reason);
  o.memory.forEach((m, i) => {
    fail(`expect.memory[${i}]`, m.matched, m.reason);
  });
  for (const x of o.extra ?? []) fail(x.expectation, x.held, x.reason);
  return { status, reason, judged, sequence, budget };
}

/** What every judged run records of its judgement (observations.judgement and the checks' details). */
export function judgementObservations(j: Judgement): Record<string, unknown> {
  return {
    judgement: j.judged,
    ...(j.sequence ? { debug_register_writes_check: j.sequence } : {}),
    ...(j.budget ? { cycles: j.budget.used, cycle_budget: j.budget } : {}),
  };
}
