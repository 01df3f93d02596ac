// The one place a run record (schema 9) is composed, for every kind of job that commits runs (test
// jobs and captures): the same fields in the same order, whatever ran. A record is built whole,
// its evidence fsynced, then committed once (JobHandle.commitRun).
import { RUN_RECORD_SCHEMA_VERSION, type RunRecord, type RunStatus, type TargetName } from '../api/schemas.js';
import type { BuildResult } from '../builds/build.js';
import { type TestSpec, expectedPassValue } from '../project/manifest.js';

export interface RunRecordFields {
  runId: string;
  jobId: string;
  test: string;
  target: TargetName;
  /** What the target said it is (the probe snapshot on the ultimate target). */
  identity: Record<string, unknown>;
  emulation: boolean;
  candidate: RunRecord['candidate'];
  startedAt: string;
  finishedAt: string;
  expectations: Record<string, unknown>;
  status: RunStatus;
  statusReason: string;
  observations?: Record<string, unknown>;
  timings?: Record<string, number>;
  screenMatch?: RunRecord['screen_match'];
  supporting?: RunRecord['supporting_artifacts'];
  evidence?: RunRecord['evidence'];
  crashState?: RunRecord['crash_state'];
  comparison?: RunRecord['comparison'];
  /** The machine the run ran on (targets/machine-options.ts); absent for a run that never reached one. */
  machine?: RunRecord['machine'] | null;
}

export function newRunRecord(f: RunRecordFields): RunRecord {
  return {
    run_record_schema_version: RUN_RECORD_SCHEMA_VERSION,
    run_id: f.runId,
    job_id: f.jobId,
    test: f.test,
    target: f.target,
    target_identity: { ...f.identity, emulation: f.emulation },
    emulation: f.emulation,
    candidate: f.candidate,
    started_at: f.startedAt,
    finished_at: f.finishedAt,
    timings: f.timings ?? {},
    expectations: f.expectations,
    observations: f.observations ?? {},
    status: f.status,
    status_reason: f.statusReason,
    screen_match: f.screenMatch ?? null,
    supporting_artifacts: f.supporting ?? [],
    evidence: f.evidence ?? [],
    crash_state: f.crashState ?? null,
    comparison: f.comparison ?? null,
    ...(f.machine ? { machine: f.machine } : {}),
  };
}

/** What a test expects, as every run of it records it. */
export function expectationsOf(test: TestSpec): Record<string, unknown> {
  return {
    observe: test.observe,
    debug_register: test.observe === 'debug_register' ? expectedPassValue(test) : null,
    ...(test.verdict ? { verdict: test.verdict } : {}),
    ...(test.expect.debug_register_writes ? { debug_register_writes: test.expect.debug_register_writes } : {}),
    ...(test.prepare ? { prepare: test.prepare } : {}),
    screen_match: test.expect.screen_match ?? null,
    memory: test.expect.memory,
    budget: test.budget,
    memory_checkpoint_capture: test.memory_checkpoint_capture,
  };
}

/** The build as a run record's `candidate.build` states it. */
export function summarizeBuild(b: BuildResult): Record<string, unknown> {
  return {
    status: b.ok ? 'succeeded' : 'failed',
    command: b.command,
    exit_code: b.exitCode,
    duration_ms: Math.round(b.durationMs * 100) / 100,
    command_ms: Math.round(b.commandMs * 100) / 100,
    ...(b.ok ? {} : { reason: b.reason, timed_out: b.timedOut }),
    logs: ['build-stdout.txt', 'build-stderr.txt'],
    // build: null — nothing was built or copied; the prebuilt files were read from the project.
    clean_copy: b.command.length > 0,
    ...(b.command.length === 0 ? { prebuilt_only: true } : {}),
  };
}
