// Judging a debug-register run from what the target observed (the seam's DebugWait): the verdict,
// the expected pass value, the exact write sequence with its cycle distances, the cycle budget.
// Pure functions of the test and the observation, so every target is judged the same way
// (docs/ultimate/SERVICE.md, "Judging a run").
import type { RunStatus } from '../api/schemas.js';
import { addressHex } from '../api/address.js';
import { type TestSpec, expectedPassValue } from '../project/manifest.js';
import type { DebugWait } from '../targets/connection.js';

export function hex8(n: number): string {
  return `$${n.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** The range the PRG occupies in memory (load address to its last byte); empty for a PRG without data. */
export function codeRangesOf(prg: Uint8Array): Array<{ start: number; end: number }> {
  if (prg.length < 3) return [];
  const load = (prg[0] ?? 0) | ((prg[1] ?? 0) << 8);
  return [{ start: load, end: Math.min(0xffff, load + prg.length - 3) }];
}

/** observations.debug_register_writes and how exact they are. */
export function writesObservation(w: DebugWait): Record<string, unknown> {
  const cycles = w.cycleSource !== null;
  return {
    debug_register_writes: w.writes.map((x) => ({ value: x.value, value_hex: hex8(x.value), cycle: cycles ? x.cycle : null })),
    debug_register_writes_exact: w.writesExact,
    ...(w.writesExact
      ? {}
      : { debug_register_writes_note: 'observed by polling the debug register: writes between two polls may have been missed' }),
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

export function judgeDebugWait(test: TestSpec, w: DebugWait): { status: RunStatus; reason: string } {
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
          reason: `BRK at ${addressHex(c.pc)}${at}, seen in the bus trace (the vector fetch at $FFFE/$FFFF with the B flag pushed)`,
        };
      case 'jam':
        return { status: 'crashed', reason: `the CPU jammed at ${addressHex(c.pc)}${at} before reporting a result` };
      case 'outside-code':
        return { status: 'crashed', reason: `execution left the program's code ranges at ${addressHex(c.pc)}${at}` };
    }
  }
  const last = w.writes.at(-1);
  return {
    status: 'timed_out',
    reason: `no ${test.verdict ? 'verdict value' : 'result'} in $D7FF within the ${test.budget.time_ms} ms budget${last ? ` (last write ${hex8(last.value)})` : ''}`,
  };
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
      : `${used} cycles from the first instruction to ${to}, over the budget of ${cycles}`,
  };
}
