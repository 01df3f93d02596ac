// The protocol of one test's program: which $D7FF values end its run and how (docs/ultimate/SERVICE.md,
// "Judging a run"). With `verdict` in the manifest the program's own values decide (e.g. $00 pass,
// $FF fail) and every other value is a marker. Without it, the harness convention: $80.. end a
// run, the expected debug_register (default $80) passes, $C0 is the harness crash hand-off, any
// other value ≥ $80 fails, $01-$7F are progress markers.
import { type TestSpec, expectedPassValue } from '../project/manifest.js';
import type { CheckpointRecorder } from '../targets/checkpoint-recorder.js';
import { type CrashPolicy, HANDOFF, type RunProtocol } from '../targets/connection.js';

export function harnessClassify(expected: number): RunProtocol['classify'] {
  return (v) => {
    if (v === HANDOFF.crash) return 'crash';
    if (v < HANDOFF.terminalFrom) return null;
    return v === expected ? 'pass' : 'fail';
  };
}

export function verdictClassify(verdict: { pass: readonly number[]; fail: readonly number[] }): RunProtocol['classify'] {
  const pass = new Set(verdict.pass);
  const fail = new Set(verdict.fail);
  return (v) => (pass.has(v) ? 'pass' : fail.has(v) ? 'fail' : null);
}

/** Whether markers are acknowledged through the harness's checkpoint routine ($03FE): only without verdict. */
export function usesHarnessHandshake(test: TestSpec): boolean {
  return test.verdict === undefined;
}

/** The test's crash options as the targets apply them (tests[].crash; defaults: JAM and unhandled BRK). */
export function crashPolicyOf(test: TestSpec): CrashPolicy {
  return { jam: test.crash.jam, brk: test.crash.brk, outsideCode: test.crash.outside_code?.ranges ?? [] };
}

export function runProtocolFor(test: TestSpec, checkpoints?: CheckpointRecorder): RunProtocol {
  const classify = test.verdict ? verdictClassify(test.verdict) : harnessClassify(expectedPassValue(test) ?? HANDOFF.pass);
  const exactObservation =
    test.verdict !== undefined ||
    test.budget.cycles !== undefined ||
    test.expect.debug_register_writes !== undefined ||
    test.crash.outside_code !== undefined ||
    test.crash.brk === 'any';
  return {
    classify,
    crash: crashPolicyOf(test),
    exactObservation,
    ...(test.budget.cycles !== undefined ? { cycleBudget: test.budget.cycles } : {}),
    ...(checkpoints ? { checkpoints } : {}),
  };
}
