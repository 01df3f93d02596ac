// The test job: one test, one or more targets, `repeat` runs on each, run by the JobRunner under
// its targets' leases. It checks the device identity again (ultimate), builds a clean candidate,
// and runs; each run's record is composed completely and committed once. Between runs is its safe
// step: a cancel (or a stop) ends it there, keeping every run already committed.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UltimateDevice } from '../../../engines/ultimate/index.js';
import type { Job, JobRequest, RunRecord, RunStatus, SupportingArtifact, TargetName } from '../api/schemas.js';
import { type BuildResult, type BuiltArtifact, buildFailureMessage, runCleanBuild } from '../builds/build.js';
import { EvidenceWriter } from '../runs/evidence.js';
import type { TestSpec } from '../project/manifest.js';
import { readProjectFile } from '../project/project-paths.js';
import { identityOf, sameIdentity } from '../safety/probes.js';
import { CHECKPOINT_COMPARISON_RECORD_SCHEMA_VERSION, type CheckpointPairRecord } from '../store/checkpoint-pairs.js';
import { compareStoredRuns } from './checkpoint-job.js';
import { runTestOn } from '../runs/run-test.js';
import { ServiceError } from '../http/service-error.js';
import type { StoredProbe } from '../store/store.js';
import type { TargetConnection } from '../targets/connection.js';
import { UltimateConnection } from '../targets/ultimate-target.js';
import type { ViceLease } from '../targets/vice-pool.js';
import { type MachineRecord, fullMachine, viceMachineFlags } from '../targets/machine-options.js';
import type { JobContext } from './job-context.js';
import { type JobHandle, type JobRecord, type JobRunner, newJobRecord } from './job-runner.js';
import { expectationsOf, newRunRecord, summarizeBuild } from './run-record.js';

const TARGET_ORDER: TargetName[] = ['vice', 'ultimate'];

/** The `test` of a job that runs several tests (a suite job: its `tests` names them). */
export const SUITE_TEST_LABEL = '*suite*';

/** What every run of a job shares: the build, the REU image, the timings, the one comparison. */
interface RunEnv {
  build: Extract<BuildResult, { ok: true }>;
  buildInfo: Record<string, unknown>;
  reuImage: Uint8Array | null;
  jobTimings: Record<string, number>;
  comparison: Promise<Record<string, unknown> | null> | undefined;
}

/** Awaits every promise, then throws the first failure: no work of the job outlives its body. */
async function settleAll(work: ReadonlyArray<Promise<void> | undefined | null>): Promise<void> {
  const results = await Promise.allSettled(work.filter((w): w is Promise<void> => !!w));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

export class TestJobs {
  constructor(readonly runner: JobRunner) {}

  get ctx(): JobContext {
    return this.runner.ctx;
  }

  #iso(): string {
    return new Date(this.ctx.now()).toISOString();
  }

  /**
   * Queues the job (state queued) and answers with it; `consume` runs after the queue bound and
   * before anything is stored (it consumes the probe handle).
   */
  async submit(req: JobRequest, test: TestSpec | TestSpec[], probe: StoredProbe | null, jobId: string, consume?: () => void): Promise<Job> {
    const tests = Array.isArray(test) ? test : [test];
    const suite = Array.isArray(test);
    const job = newJobRecord(jobId, this.#iso(), {
      test: suite ? SUITE_TEST_LABEL : req.test,
      targets: req.targets,
      repeat: req.repeat,
      strict_gate: req.strict_gate,
      baseline_run_id: req.baseline_run_id ?? null,
      total_runs: req.targets.length * req.repeat * tests.length,
      extra: {
        ...(req.compare_checkpoints ? { compare_checkpoints: true, checkpoint_comparison_id: null } : {}),
        ...(suite ? { tests: tests.map((t) => t.name) } : {}),
      },
    });
    const { job: answer } = await this.runner.submit({
      kind: 'test',
      job,
      targets: req.targets,
      precheck: consume,
      body: (h) => this.#execute(h, tests, probe),
    });
    return answer;
  }

  async #execute(h: JobHandle, tests: TestSpec[], probe: StoredProbe | null): Promise<void> {
    const job = h.job;
    const jobTimings: Record<string, number> = {};
    h.phase('starting', true);
    const manifest = await this.ctx.loadManifest();

    // Ultimate: the identity must be what the probe saw, before anything touches the device.
    let device: UltimateDevice | undefined;
    try {
      if (job.targets.includes('ultimate')) {
        const u = this.ctx.ultimate;
        if (!u) throw new ServiceError('target_unavailable', 'the ultimate target is not configured', 503);
        h.phase('ultimate: checking the device identity against the probe');
        device = new UltimateDevice(u.device);
        let now: Record<string, unknown>;
        const tProbe = performance.now();
        try {
          now = identityOf(await this.#probeWithPolicy(device, job.strict_gate));
          jobTimings.identity_probe_ms = performance.now() - tProbe;
        } catch (e) {
          throw new ServiceError('target_unavailable', `the device did not answer the identity re-probe: ${(e as Error).message}`, 503);
        }
        const changed = sameIdentity(probe?.snapshot ?? {}, now);
        if (changed.length)
          throw new ServiceError(
            'identity_changed',
            `the device identity changed since the probe (${changed.join(', ')}); nothing was written to it — probe again and review`,
            409,
            { changed },
          );
      }
      h.safePoint();

      h.phase('build: clean candidate build');
      const build = await runCleanBuild(this.ctx.projectRoot, manifest, {
        storeDir: this.ctx.store.dir,
        artifacts: new Set(tests.map((t) => t.artifact)),
      });
      const buildInfo = summarizeBuild(build);
      if (!build.ok) {
        for (const test of tests)
          for (const target of TARGET_ORDER.filter((t) => job.targets.includes(t)))
            await this.#recordBuildFailure(h, test, target, build, buildInfo);
        h.phase('finished: build failed');
        h.end({ ok: true, error: { code: 'build_failed', message: buildFailureMessage(build) } });
        return;
      }
      for (const test of tests)
        if (!build.artifacts.get(test.artifact)) throw new ServiceError('build_failed', `the build has no artifact ${test.artifact}`, 409);
      let reuImage: Uint8Array | null = null;
      if (manifest.ultimate_reu_image && job.targets.includes('ultimate'))
        reuImage = await readProjectFile(this.ctx.projectRoot, manifest.ultimate_reu_image);

      // Every run of the job, in order: each test `repeat` times.
      const plan = tests.flatMap((t) => Array.from({ length: job.repeat }, () => t));
      const env: RunEnv = { build, buildInfo, reuImage, jobTimings, comparison: undefined };
      const vice = job.targets.includes('vice') ? () => this.#runVice(h, plan, env) : null;
      const ultimate = job.targets.includes('ultimate') ? () => this.#runUltimate(h, plan, env, device!, probe) : null;
      if (job.compare_checkpoints) {
        // The checkpoint matrix compares the vice run (first) with the ultimate run.
        await vice?.();
        await ultimate?.();
      } else await settleAll([vice?.(), ultimate?.()]);
      if (job.compare_checkpoints) await this.#storeCheckpointPair(h);
      h.phase('finished');
    } finally {
      await device?.close().catch(() => undefined);
    }
  }

  /**
   * The vice runs, spread over the pool: as many workers as instances, each taking the next run of
   * the plan, an instance (fresh, with the run's machine flags), the run, and giving it back.
   */
  async #runVice(h: JobHandle, plan: TestSpec[], env: RunEnv): Promise<void> {
    const pool = this.ctx.vicePool;
    let next = 0;
    let failedClosed: Error | undefined;
    const worker = async () => {
      for (;;) {
        if (failedClosed) throw failedClosed;
        h.safePoint();
        const runNo = ++next;
        const test = plan[runNo - 1];
        if (!test) return;
        const artifact = env.build.artifacts.get(test.artifact)!;
        let flags: { flags: string[]; notes: string[] };
        try {
          flags = viceMachineFlags(test.machine);
        } catch (e) {
          await this.#recordError(
            h,
            test,
            'vice',
            artifact,
            env.build,
            env.buildInfo,
            `the machine cannot run on vice: ${(e as Error).message}`,
          );
          continue;
        }
        if (!pool) {
          await this.#recordError(
            h,
            test,
            'vice',
            artifact,
            env.build,
            env.buildInfo,
            'vice could not be started: the vice target is not configured',
          );
          continue;
        }
        let lease: ViceLease;
        try {
          h.phase(`vice: ${pool.busy} of ${pool.instances} instance(s) busy; starting ${test.name}`);
          lease = await pool.acquire(flags.flags, h.signal);
        } catch (e) {
          h.safePoint();
          await this.#recordError(
            h,
            test,
            'vice',
            artifact,
            env.build,
            env.buildInfo,
            `vice could not be started: ${(e as Error).message}`,
          );
          if (h.job.strict_gate)
            failedClosed = new ServiceError('target_unavailable', `strict_gate: vice failed: ${(e as Error).message}`, 503);
          continue;
        }
        // Which run is going, as the ultimate target says it (a client polling get_job sees it).
        h.phase(
          `vice: run ${runNo} of ${plan.length}${plan.length > h.job.repeat ? ` (${test.name})` : ''}; ${pool.busy} of ${pool.instances} instance(s) busy`,
        );
        try {
          const machine: MachineRecord = {
            ...fullMachine(test.machine),
            applied_as: lease.argv,
            speed: this.ctx.vice?.warp === false ? 'real-time' : 'warp',
            ...(flags.notes.length ? { notes: flags.notes } : {}),
          };
          const r = await this.#runOnce(h, test, 'vice', lease.conn, artifact, env, machine);
          if (r.status === 'error' && h.job.strict_gate)
            failedClosed ??= new ServiceError(
              'target_unavailable',
              `strict_gate: the run failed closed on the first error: ${r.reason}`,
              503,
            );
        } finally {
          await pool.release(lease).catch(() => undefined);
        }
      }
    };
    await settleAll(Array.from({ length: Math.max(1, Math.min(pool?.instances ?? 1, plan.length)) }, () => worker()));
  }

  /** The ultimate runs, one after the other on the one device (the job holds its lease). */
  async #runUltimate(h: JobHandle, plan: TestSpec[], env: RunEnv, device: UltimateDevice, probe: StoredProbe | null): Promise<void> {
    const job = h.job;
    let conn: UltimateConnection;
    try {
      h.phase('ultimate: connecting');
      conn = this.#openUltimate(device, probe, job.strict_gate);
    } catch (e) {
      // The target could not be reached: every planned run on it is an error run.
      for (const test of plan)
        await this.#recordError(
          h,
          test,
          'ultimate',
          env.build.artifacts.get(test.artifact)!,
          env.build,
          env.buildInfo,
          `ultimate could not be started: ${(e as Error).message}`,
        );
      if (job.strict_gate) throw new ServiceError('target_unavailable', `strict_gate: ultimate failed: ${(e as Error).message}`, 503);
      return;
    }
    try {
      for (const [i, test] of plan.entries()) {
        h.safePoint();
        h.phase(`ultimate: run ${i + 1} of ${plan.length}${plan.length > job.repeat ? ` (${test.name})` : ''}`);
        const r = await this.#runOnce(h, test, 'ultimate', conn, env.build.artifacts.get(test.artifact)!, env, null);
        if (r.status === 'error' && job.strict_gate)
          throw new ServiceError('target_unavailable', `strict_gate: the run failed closed on the first error: ${r.reason}`, 503);
      }
    } finally {
      await conn.close().catch(() => undefined);
    }
  }

  /**
   * The end of a compare_checkpoints job: compare its VICE run (baseline) with its Ultimate run
   * (candidate) and store the pair record once; the job snapshot then names it.
   */
  async #storeCheckpointPair(h: JobHandle): Promise<void> {
    const job = h.job;
    h.phase('comparing the checkpoints of the vice and ultimate runs');
    const [viceId, ultimateId] = job.run_ids;
    const vice = viceId ? this.ctx.store.getRun(viceId) : undefined;
    const ultimate = ultimateId ? this.ctx.store.getRun(ultimateId) : undefined;
    if (!vice || !ultimate || vice.target !== 'vice' || ultimate.target !== 'ultimate')
      throw new ServiceError('checkpoint_comparison_failed', 'the matrix did not leave one vice run and one ultimate run to compare', 422);
    const comparison = await compareStoredRuns(this.ctx.store, vice, ultimate);
    const result = comparison.result as CheckpointPairRecord['result'];
    const record: CheckpointPairRecord = {
      checkpoint_comparison_record_schema_version: CHECKPOINT_COMPARISON_RECORD_SCHEMA_VERSION,
      comparison_id: randomUUID(),
      job_id: job.job_id,
      test: job.test,
      created_at: this.#iso(),
      baseline: { run_id: vice.run_id, target: 'vice' },
      candidate: { run_id: ultimate.run_id, target: 'ultimate' },
      result,
      first_divergence: typeof comparison.first_divergence === 'string' ? comparison.first_divergence : null,
      comparison: comparison as CheckpointPairRecord['comparison'],
    };
    this.ctx.store.checkpointPairs.insert(record);
    job.checkpoint_comparison_id = record.comparison_id;
  }

  async #probeWithPolicy(device: UltimateDevice, strict: boolean) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await device.probe();
      } catch (e) {
        if (strict || attempt >= 2) throw e;
      }
    }
  }

  #openUltimate(device: UltimateDevice, probe: StoredProbe | null, strict: boolean): UltimateConnection {
    const identity = probe?.snapshot ?? {};
    return new UltimateConnection({
      device,
      identity,
      emulation: identity.virtual === true || this.ctx.ultimate?.virtualDevice === true,
      strictGate: strict,
      // The virtual device always streams to this machine; hardware streams when a receiver is configured.
      debugStreamReceiver: this.ctx.ultimate?.virtualDevice === true ? '127.0.0.1' : (this.ctx.ultimate?.debugStreamReceiver ?? null),
      streamCredit: this.ctx.ultimate?.streamCredit,
      speed:
        this.ctx.ultimate?.virtualDevice === true
          ? (this.ctx.ultimate.speed ?? 'max')
          : identity.virtual === true
            ? 'real-time'
            : 'hardware',
    });
  }

  async #snapshot(ev: EvidenceWriter, artifact: BuiltArtifact, build: BuildResult): Promise<SupportingArtifact[]> {
    const out: SupportingArtifact[] = [];
    const base = (p: string) => p.split('/').pop() ?? p;
    const prg = await ev.add(base(artifact.prg.path), 'application/x-c64-prg', artifact.prg.bytes);
    out.push({ role: 'prg', format: 'c64-prg', name: prg.name, size: prg.size, sha256: prg.sha256 });
    for (const s of artifact.symbols) {
      const e = await ev.add(base(s.path), 'text/plain; charset=utf-8', s.bytes);
      const role = s.format === 'ld65-map' || s.format === '64tass-map' ? 'map' : s.format === 'ld65-dbg' ? 'dbg' : 'labels';
      out.push({ role, format: s.format, name: e.name, size: e.size, sha256: e.sha256 });
    }
    await ev.add('build-stdout.txt', 'text/plain; charset=utf-8', build.stdout);
    await ev.add('build-stderr.txt', 'text/plain; charset=utf-8', build.stderr);
    return out;
  }

  async #runOnce(
    h: JobHandle,
    test: TestSpec,
    target: TargetName,
    conn: TargetConnection,
    artifact: BuiltArtifact,
    env: RunEnv,
    viceMachine: MachineRecord | null,
  ): Promise<{ status: RunStatus; reason: string }> {
    const { build, buildInfo, reuImage, jobTimings } = env;
    const runId = randomUUID();
    const started = this.#iso();
    const t0 = performance.now();
    const ev = new EvidenceWriter(this.ctx.store.runDir(runId));
    const supporting = await this.#snapshot(ev, artifact, build);
    const deviceBefore = conn.deviceMs;
    let status: RunStatus;
    let reason: string;
    let observations: Record<string, unknown> = {};
    let screenMatch: RunRecord['screen_match'] = null;
    let crashState: Record<string, unknown> | null = null;
    let phases = { load_ms: 0, execute_ms: 0, observe_ms: 0 };
    let machine: MachineRecord | null = viceMachine;
    try {
      // The machine first: an option the device cannot take is refused before anything is written.
      if (conn instanceof UltimateConnection) machine = await conn.configureMachine(test.machine);
      if (reuImage && conn instanceof UltimateConnection) await conn.writeReu(reuImage);
      const out = await runTestOn(conn, test, artifact.prg.bytes, ev);
      ({ status, statusReason: reason, observations, screenMatch, crashState, timings: phases } = out);
    } catch (e) {
      status = 'error';
      reason = `the run failed on ${target}: ${(e as Error).message}`;
      observations = { error: (e as Error).message };
    }
    const tRecord = performance.now();
    const record = newRunRecord({
      runId,
      jobId: h.job.job_id,
      test: test.name,
      target,
      identity: conn.identity,
      emulation: conn.emulation,
      candidate: { artifact_sha256: artifact.prg.sha256, artifact_name: artifact.name, build: buildInfo },
      startedAt: started,
      finishedAt: started,
      expectations: expectationsOf(test),
      observations,
      status,
      statusReason: reason,
      screenMatch: screenMatch as RunRecord['screen_match'],
      supporting,
      evidence: ev.entries,
      crashState: crashState as RunRecord['crash_state'],
      machine: machine as Record<string, unknown> | null,
    });
    // Computed once per job (after its first run), the same object in every run.
    env.comparison ??= this.#compare(h.job, record);
    record.comparison = await env.comparison;
    await ev.sync();
    const total = performance.now() - t0;
    const deviceMs = conn.deviceMs - deviceBefore;
    record.timings = {
      ...jobTimings,
      build_ms: Number(buildInfo.duration_ms ?? 0),
      build_command_ms: Number(buildInfo.command_ms ?? 0),
      ...phases,
      record_ms: performance.now() - tRecord,
      run_total_ms: total,
      device_ms: deviceMs,
      service_ms: Math.max(0, total - deviceMs),
    };
    record.finished_at = this.#iso();
    h.commitRun(record);
    return { status, reason };
  }

  async #compare(job: Job, candidate: RunRecord): Promise<Record<string, unknown> | null> {
    if (!job.baseline_run_id) return null;
    const baseline = this.ctx.store.getRun(job.baseline_run_id);
    if (!baseline)
      return { comparison_schema_version: 1, result: 'unavailable', reason: `baseline run ${job.baseline_run_id} is not stored` };
    if (!this.ctx.symbols)
      return {
        comparison_schema_version: 1,
        result: 'unavailable',
        reason: 'the label/map analysis module is not wired into this service',
      };
    const readArtifact = async (run: RunRecord, name: string): Promise<string> => {
      if (!run.evidence.some((e) => e.name === name)) throw new Error(`run ${run.run_id} has no artifact ${name}`);
      return readFile(join(this.ctx.store.runDir(run.run_id), name), 'utf8');
    };
    try {
      return { ...(await this.ctx.symbols.compareRuns(baseline, candidate, readArtifact)) };
    } catch (e) {
      return { comparison_schema_version: 1, result: 'unavailable', reason: `comparison failed: ${(e as Error).message}` };
    }
  }

  async #recordError(
    h: JobHandle,
    test: TestSpec,
    target: TargetName,
    artifact: BuiltArtifact,
    build: BuildResult,
    buildInfo: Record<string, unknown>,
    reason: string,
  ): Promise<void> {
    const runId = randomUUID();
    const ev = new EvidenceWriter(this.ctx.store.runDir(runId));
    const supporting = await this.#snapshot(ev, artifact, build);
    await ev.sync();
    h.commitRun(
      this.#errorRun(h.job, test, target, runId, {
        candidate: { artifact_sha256: artifact.prg.sha256, artifact_name: artifact.name, build: buildInfo },
        reason,
        supporting,
        evidence: ev.entries,
      }),
    );
  }

  async #recordBuildFailure(
    h: JobHandle,
    test: TestSpec,
    target: TargetName,
    build: BuildResult,
    buildInfo: Record<string, unknown>,
  ): Promise<void> {
    const runId = randomUUID();
    const ev = new EvidenceWriter(this.ctx.store.runDir(runId));
    await ev.add('build-stdout.txt', 'text/plain; charset=utf-8', build.stdout);
    await ev.add('build-stderr.txt', 'text/plain; charset=utf-8', build.stderr);
    await ev.sync();
    h.commitRun(
      this.#errorRun(h.job, test, target, runId, {
        candidate: { artifact_sha256: null, artifact_name: test.artifact, build: buildInfo },
        reason: `build failed: ${build.ok ? '' : build.reason}; nothing was run`,
        supporting: [],
        evidence: ev.entries,
      }),
    );
  }

  /** A run that never reached the program: status error, the reason, and what evidence there is. */
  #errorRun(
    job: JobRecord,
    test: TestSpec,
    target: TargetName,
    runId: string,
    f: { candidate: RunRecord['candidate']; reason: string; supporting: SupportingArtifact[]; evidence: RunRecord['evidence'] },
  ): RunRecord {
    const emulation = target === 'vice' || this.ctx.ultimate?.virtualDevice === true;
    const now = this.#iso();
    return newRunRecord({
      runId,
      jobId: job.job_id,
      test: test.name,
      target,
      identity: {},
      emulation,
      candidate: f.candidate,
      startedAt: now,
      finishedAt: now,
      expectations: expectationsOf(test),
      status: 'error',
      statusReason: f.reason,
      supporting: f.supporting,
      evidence: f.evidence,
    });
  }
}
