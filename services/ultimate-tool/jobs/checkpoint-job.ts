// The service side of memory-checkpoint comparison: the matrix rule of a compare_checkpoints job,
// the provisional comparison of two stored runs, and reading stored pair records. service.ts
// routes here; jobs.ts stores the pair when a matrix job ends.
import { readEvidenceFile } from '../runs/evidence-file.js';
import { join } from 'node:path';
import { CheckpointComparisonError, type CheckpointRun, compareRunCheckpoints } from '../analysis/checkpoint-comparison.js';
import type { JobRequest, RunRecord } from '../api/schemas.js';
import { CHECKPOINT_COMPARISON_RECORD_SCHEMA_VERSION } from '../store/checkpoint-pairs.js';
import type { TestSpec } from '../project/manifest.js';
import { ServiceError } from '../http/service-error.js';
import type { ServiceStore } from '../store/store.js';

export const CHECKPOINT_MATRIX_TARGETS = ['vice', 'ultimate'] as const;

/**
 * Why a compare_checkpoints request is not the VICE-then-Ultimate matrix (null when it is). Checked
 * before the probe handle is consumed and before anything touches a target.
 */
export function checkpointMatrixProblem(req: JobRequest, test: TestSpec): string | null {
  if (!req.compare_checkpoints) return null;
  if (req.targets.length !== 2 || req.targets[0] !== 'vice' || req.targets[1] !== 'ultimate')
    return `compare_checkpoints needs targets exactly ["vice","ultimate"] in that order (VICE is the baseline); got ${JSON.stringify(req.targets)}`;
  if (req.repeat !== 1) return `compare_checkpoints needs repeat 1 (one run on each target); got ${req.repeat}`;
  if (!test.memory_checkpoint_capture)
    return `test ${test.name} does not have memory_checkpoint_capture = true in the project; compare_checkpoints needs a test that captures checkpoints`;
  return null;
}

export function rejectCheckpointMatrix(req: JobRequest, test: TestSpec): void {
  const problem = checkpointMatrixProblem(req, test);
  if (problem)
    throw new ServiceError('invalid-request', problem, 400, {
      expected_targets: [...CHECKPOINT_MATRIX_TARGETS],
      expected_repeat: 1,
      memory_checkpoint_capture: test.memory_checkpoint_capture,
    });
}

function checkpointRun(r: RunRecord): CheckpointRun {
  return {
    run_id: r.run_id,
    test: r.test,
    target: r.target,
    candidate: { artifact_sha256: r.candidate.artifact_sha256 },
    evidence: r.evidence,
  };
}

/** compareRunCheckpoints over two stored runs, reading only their registered evidence. */
export async function compareStoredRuns(store: ServiceStore, baseline: RunRecord, candidate: RunRecord): Promise<Record<string, unknown>> {
  const reader = (run: RunRecord) => (name: string) => readEvidenceFile(join(store.runDir(run.run_id), name));
  try {
    return await compareRunCheckpoints(checkpointRun(baseline), checkpointRun(candidate), reader(baseline), reader(candidate));
  } catch (e) {
    if (e instanceof CheckpointComparisonError)
      throw new ServiceError('checkpoint_comparison_failed', e.message, 422, { reason: e.reason });
    throw e;
  }
}

/** GET /v13/checkpoint-comparisons/{id}: unknown or corrupt is `checkpoint_comparison_failed`. */
export function storedPair(store: ServiceStore, comparisonId: string): Record<string, unknown> {
  const r = store.checkpointPairs.get(comparisonId);
  if (!r.found)
    throw new ServiceError('checkpoint_comparison_failed', `no stored checkpoint comparison ${comparisonId}`, 422, { reason: 'unknown' });
  if ('corrupt' in r)
    throw new ServiceError('checkpoint_comparison_failed', `stored checkpoint comparison ${comparisonId} is corrupt: ${r.corrupt}`, 422, {
      reason: 'corrupt-record',
    });
  return { checkpoint_comparison_record_schema_version: CHECKPOINT_COMPARISON_RECORD_SCHEMA_VERSION, checkpoint_comparison: r.record };
}

export function listPairs(store: ServiceStore, limit: number): Record<string, unknown> {
  return {
    checkpoint_comparison_record_schema_version: CHECKPOINT_COMPARISON_RECORD_SCHEMA_VERSION,
    checkpoint_comparisons: store.checkpointPairs.list(limit),
  };
}
