// The protocol of one test's program: which $D7FF values end its run and how (docs/ultimate/SERVICE.md,
// "Judging a run"). Without `verdict` in the manifest it is the harness convention: $80.. end a
// run, the expected debug_register (default $80) passes, $C0 is the harness crash hand-off, any
// other value ≥ $80 fails, $01-$7F are progress markers.
import type { TestSpec } from './manifest.js';
import type { CheckpointRecorder } from './targets/checkpoint-recorder.js';
import { HANDOFF, type RunProtocol } from './targets/connection.js';

export function harnessClassify(expected: number): RunProtocol['classify'] {
  return (v) => {
    if (v === HANDOFF.crash) return 'crash';
    if (v < HANDOFF.terminalFrom) return null;
    return v === expected ? 'pass' : 'fail';
  };
}

export function runProtocolFor(
  test: TestSpec,
  codeRanges: ReadonlyArray<{ start: number; end: number }>,
  checkpoints?: CheckpointRecorder,
): RunProtocol {
  return { classify: harnessClassify(test.expect.debug_register), codeRanges, ...(checkpoints ? { checkpoints } : {}) };
}
