// Jobs: one test, one or more targets, `repeat` runs on each. A job takes the target leases in a
// fixed order (vice, then ultimate) so jobs on a target never interleave and two jobs never wait
// for each other crosswise; then it checks the device identity again (ultimate), builds a clean
// candidate, and runs. Each run's record is composed completely and committed once.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CancelledError, LeaseTable, type Logger } from '../../common/index.js';
import { UltimateDevice, type UltimateDeviceOptions } from '../../engines/ultimate/device.js';
import {
  type Job,
  type JobRequest,
  RUN_RECORD_SCHEMA_VERSION,
  type RunRecord,
  type RunStatus,
  type SupportingArtifact,
  type TargetName,
} from './api/schemas.js';
import { type BuildResult, type BuiltArtifact, runCleanBuild } from './build.js';
import { EvidenceWriter } from './evidence.js';
import { type Manifest, type TestSpec, expectedPassValue } from './manifest.js';
import { readProjectFile } from './project-paths.js';
import { identityOf, sameIdentity } from './probes.js';
import { CHECKPOINT_COMPARISON_RECORD_SCHEMA_VERSION, type CheckpointPairRecord } from './checkpoint-pairs.js';
import { compareStoredRuns } from './checkpoint-service.js';
import { runTestOn } from './run-test.js';
import { ServiceError } from './service-error.js';
import type { ServiceStore, StoredProbe } from './store.js';
import type { SymbolAnalysis } from './symbol-analysis.js';
import type { TargetConnection } from './targets/connection.js';
import { UltimateConnection } from './targets/ultimate-target.js';
import { ViceConnection } from './targets/vice-target.js';

export interface ViceTargetConfig {
  /** Emulator argv; the service appends the binary-monitor flags. */
  command: string[];
  /** True when the configured emulator is known to be an emulation of an emulator (virtual-vice). */
  startTimeoutMs?: number;
}

export interface UltimateTargetConfig {
  device: UltimateDeviceOptions;
  /** Set when the service started the virtual Ultimate 64 itself (--virtual-device). */
  virtualDevice: boolean;
  /**
   * An IPv4 address of this machine the hardware can stream its debug stream to: test runs are then
   * observed from the bus trace (exact writes, cycles, crashes). Absent: REST polling. The virtual
   * device always streams to 127.0.0.1.
   */
  debugStreamReceiver?: string | null;
}

export interface JobContext {
  store: ServiceStore;
  projectRoot: string;
  loadManifest: () => Promise<Manifest>;
  vice: ViceTargetConfig | null;
  ultimate: UltimateTargetConfig | null;
  symbols: SymbolAnalysis | null;
  logger: Logger;
  now: () => number;
}

const TARGET_ORDER: TargetName[] = ['vice', 'ultimate'];

interface RunningJob {
  job: Job;
  abort: AbortController;
  done: Promise<void>;
}

export class JobRunner {
  readonly #leases = new LeaseTable();
  readonly #running = new Map<string, RunningJob>();

  constructor(readonly ctx: JobContext) {}

  #iso(): string {
    return new Date(this.ctx.now()).toISOString();
  }

  #save(job: Job): void {
    this.ctx.store.putJob(job);
  }

  /** The running job that started first (null when none runs). */
  activeJob(): Job | null {
    let best: Job | null = null;
    for (const { job } of this.#running.values()) {
      if (job.state !== 'running') continue;
      if (!best || (job.started_at ?? '') < (best.started_at ?? '')) best = job;
    }
    return best ? structuredClone(best) : null;
  }

  liveJob(jobId: string): Job | undefined {
    const r = this.#running.get(jobId);
    return r ? structuredClone(r.job) : undefined;
  }

  /** Creates the job (state queued), starts it in the background and returns it. */
  submit(req: JobRequest, test: TestSpec, probe: StoredProbe | null, jobId: string = randomUUID()): Job {
    const job: Job = {
      job_id: jobId,
      state: 'queued',
      test: req.test,
      targets: [...req.targets],
      repeat: req.repeat,
      strict_gate: req.strict_gate,
      baseline_run_id: req.baseline_run_id ?? null,
      created_at: this.#iso(),
      started_at: null,
      finished_at: null,
      progress: { completed_runs: 0, total_runs: req.targets.length * req.repeat, phase: 'queued: waiting for the target lease' },
      run_ids: [],
      error: null,
      ...(req.compare_checkpoints ? { compare_checkpoints: true, checkpoint_comparison_id: null } : {}),
    };
    this.#save(job);
    const abort = new AbortController();
    const entry: RunningJob = { job, abort, done: Promise.resolve() };
    this.#running.set(jobId, entry);
    const answer = structuredClone(job);
    entry.done = this.#execute(job, test, probe, abort.signal)
      .catch((e: unknown) => {
        if ((e instanceof CancelledError || abort.signal.aborted) && job.started_at !== null) {
          // Stopped while running (SIGTERM): the runs it committed stay, and the record says so.
          job.state = 'failed';
          job.error = {
            code: 'interrupted',
            message: `the service stopped while this job was running; its ${job.run_ids.length} committed run(s) are kept`,
          };
        } else if (e instanceof CancelledError || abort.signal.aborted) {
          job.state = 'cancelled';
          job.error = { code: 'cancelled', message: 'the service stopped before this job could run' };
        } else {
          job.state = 'failed';
          job.error =
            e instanceof ServiceError
              ? { code: e.code, message: e.message }
              : { code: 'internal', message: `the job failed unexpectedly: ${(e as Error)?.message ?? String(e)}` };
          if (!(e instanceof ServiceError)) this.ctx.logger.error(`job ${jobId}: ${(e as Error)?.stack ?? String(e)}`);
        }
        job.finished_at = this.#iso();
        job.progress.phase = job.error?.code === 'interrupted' ? 'interrupted' : job.state;
        this.#save(job);
      })
      .finally(() => this.#running.delete(jobId));
    return answer;
  }

  async #execute(job: Job, test: TestSpec, probe: StoredProbe | null, signal: AbortSignal): Promise<void> {
    const targets = TARGET_ORDER.filter((t) => job.targets.includes(t));
    const withLeases = async (i: number, fn: () => Promise<void>): Promise<void> => {
      const t = targets[i];
      if (t === undefined) return fn();
      return this.#leases.with(t, job.job_id, () => withLeases(i + 1, fn), signal);
    };
    const jobTimings: Record<string, number> = {};
    await withLeases(0, async () => {
      job.state = 'running';
      job.started_at = this.#iso();
      this.#setPhase(job, 'starting', true);
      const manifest = await this.ctx.loadManifest();

      // Ultimate: the identity must be what the probe saw, before anything touches the device.
      let device: UltimateDevice | undefined;
      if (job.targets.includes('ultimate')) {
        const u = this.ctx.ultimate;
        if (!u) throw new ServiceError('target_unavailable', 'the ultimate target is not configured', 503);
        this.#setPhase(job, 'ultimate: checking the device identity against the probe');
        device = new UltimateDevice(u.device);
        let now: Record<string, unknown>;
        const tProbe = performance.now();
        try {
          now = identityOf(await this.#probeWithPolicy(device, job.strict_gate));
          jobTimings.identity_probe_ms = performance.now() - tProbe;
        } catch (e) {
          await device.close();
          throw new ServiceError('target_unavailable', `the device did not answer the identity re-probe: ${(e as Error).message}`, 503);
        }
        const changed = sameIdentity(probe?.snapshot ?? {}, now);
        if (changed.length) {
          await device.close();
          throw new ServiceError(
            'identity_changed',
            `the device identity changed since the probe (${changed.join(', ')}); nothing was written to it — probe again and review`,
            409,
            { changed },
          );
        }
      }

      this.#setPhase(job, 'build: clean candidate build');
      const build = await runCleanBuild(this.ctx.projectRoot, manifest, { storeDir: this.ctx.store.dir });
      const buildInfo = summarizeBuild(build);
      if (!build.ok) {
        for (const target of targets) await this.#recordBuildFailure(job, test, target, build, buildInfo);
        await device?.close();
        job.state = 'finished';
        job.finished_at = this.#iso();
        job.error = { code: 'build_failed', message: build.reason };
        this.#setPhase(job, 'finished: build failed', true);
        return;
      }
      const artifact = build.artifacts.get(test.artifact);
      if (!artifact) throw new ServiceError('build_failed', `the build has no artifact ${test.artifact}`, 500);
      let reuImage: Uint8Array | null = null;
      if (manifest.ultimate_reu_image && job.targets.includes('ultimate'))
        reuImage = await readProjectFile(this.ctx.projectRoot, manifest.ultimate_reu_image);

      let comparison: Record<string, unknown> | null | undefined;
      for (const target of targets) {
        let conn: TargetConnection | undefined;
        try {
          this.#setPhase(job, `${target}: connecting`);
          conn = target === 'vice' ? await this.#openVice() : this.#openUltimate(device!, probe, job.strict_gate);
        } catch (e) {
          // The target could not be reached: every planned run on it is an error run.
          for (let i = 0; i < job.repeat; i++)
            await this.#recordError(
              job,
              test,
              target,
              artifact,
              build,
              buildInfo,
              `${target} could not be started: ${(e as Error).message}`,
            );
          if (job.strict_gate) throw new ServiceError('target_unavailable', `strict_gate: ${target} failed: ${(e as Error).message}`, 503);
          continue;
        }
        try {
          for (let i = 0; i < job.repeat; i++) {
            if (signal.aborted) throw new CancelledError('stopped');
            this.#setPhase(job, `${target}: run ${i + 1} of ${job.repeat}`);
            const r = await this.#runOnce(job, test, target, conn, artifact, build, buildInfo, reuImage, comparison, jobTimings);
            comparison = r.comparison;
            if (r.status === 'error' && job.strict_gate)
              throw new ServiceError('target_unavailable', `strict_gate: the run failed closed on the first error: ${r.reason}`, 503);
          }
        } finally {
          await conn.close().catch(() => undefined);
        }
      }
      if (job.compare_checkpoints) await this.#storeCheckpointPair(job);
      job.state = 'finished';
      job.finished_at = this.#iso();
      this.#setPhase(job, 'finished', true);
    });
  }

  /**
   * The end of a compare_checkpoints job: compare its VICE run (baseline) with its Ultimate run
   * (candidate) and store the pair record once; the job snapshot then names it.
   */
  async #storeCheckpointPair(job: Job): Promise<void> {
    this.#setPhase(job, 'comparing the checkpoints of the vice and ultimate runs');
    const [viceId, ultimateId] = job.run_ids;
    const vice = viceId ? this.ctx.store.getRun(viceId) : undefined;
    const ultimate = ultimateId ? this.ctx.store.getRun(ultimateId) : undefined;
    if (!vice || !ultimate || vice.target !== 'vice' || ultimate.target !== 'ultimate')
      throw new ServiceError('checkpoint_comparison_failed', 'the matrix did not leave one vice run and one ultimate run to compare', 500);
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

  /** Phases are served from memory (get_job reads the live job); only state changes hit the store. */
  #setPhase(job: Job, phase: string, persist = false): void {
    job.progress.phase = phase;
    if (persist) this.#save(job);
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

  async #openVice(): Promise<TargetConnection> {
    const v = this.ctx.vice;
    if (!v) throw new Error('the vice target is not configured');
    return ViceConnection.launch({ command: v.command, startTimeoutMs: v.startTimeoutMs, emulation: true });
  }

  #openUltimate(device: UltimateDevice, probe: StoredProbe | null, strict: boolean): TargetConnection {
    const identity = probe?.snapshot ?? {};
    return new UltimateConnection({
      device,
      identity,
      emulation: identity.virtual === true || this.ctx.ultimate?.virtualDevice === true,
      strictGate: strict,
      // The virtual device always streams to this machine; hardware streams when a receiver is configured.
      debugStreamReceiver: this.ctx.ultimate?.virtualDevice === true ? '127.0.0.1' : (this.ctx.ultimate?.debugStreamReceiver ?? null),
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
    job: Job,
    test: TestSpec,
    target: TargetName,
    conn: TargetConnection,
    artifact: BuiltArtifact,
    build: BuildResult,
    buildInfo: Record<string, unknown>,
    reuImage: Uint8Array | null,
    comparison: Record<string, unknown> | null | undefined,
    jobTimings: Record<string, number>,
  ): Promise<{ status: RunStatus; reason: string; comparison: Record<string, unknown> | null }> {
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
    try {
      if (reuImage && conn instanceof UltimateConnection) await conn.writeReu(reuImage);
      const out = await runTestOn(conn, test, artifact.prg.bytes, ev);
      ({ status, statusReason: reason, observations, screenMatch, crashState, timings: phases } = out);
    } catch (e) {
      status = 'error';
      reason = `the run failed on ${target}: ${(e as Error).message}`;
      observations = { error: (e as Error).message };
    }
    const tRecord = performance.now();
    const record: RunRecord = {
      run_record_schema_version: RUN_RECORD_SCHEMA_VERSION,
      run_id: runId,
      job_id: job.job_id,
      test: test.name,
      target,
      target_identity: { ...conn.identity, emulation: conn.emulation },
      emulation: conn.emulation,
      candidate: { artifact_sha256: artifact.prg.sha256, artifact_name: artifact.name, build: buildInfo },
      started_at: started,
      finished_at: started,
      timings: {},
      expectations: expectationsOf(test),
      observations,
      status,
      status_reason: reason,
      screen_match: screenMatch as RunRecord['screen_match'],
      supporting_artifacts: supporting,
      evidence: ev.entries,
      crash_state: crashState as RunRecord['crash_state'],
      comparison: null,
    };
    if (comparison === undefined) comparison = await this.#compare(job, record);
    record.comparison = comparison;
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
    this.ctx.store.insertRun(record);
    job.run_ids.push(runId);
    job.progress.completed_runs++;
    this.#save(job);
    return { status, reason, comparison };
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
    job: Job,
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
    const now = this.#iso();
    await ev.sync();
    this.#commit(job, {
      ...this.#blank(job, test, target, runId, now),
      candidate: { artifact_sha256: artifact.prg.sha256, artifact_name: artifact.name, build: buildInfo },
      status_reason: reason,
      supporting_artifacts: supporting,
      evidence: ev.entries,
    });
  }

  async #recordBuildFailure(
    job: Job,
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
    const now = this.#iso();
    this.#commit(job, {
      ...this.#blank(job, test, target, runId, now),
      status_reason: `build failed: ${build.ok ? '' : build.reason}; nothing was run`,
      candidate: { artifact_sha256: null, artifact_name: test.artifact, build: buildInfo },
      evidence: ev.entries,
    });
  }

  #blank(job: Job, test: TestSpec, target: TargetName, runId: string, now: string): RunRecord {
    const emulation = target === 'vice' || this.ctx.ultimate?.virtualDevice === true;
    return {
      run_record_schema_version: RUN_RECORD_SCHEMA_VERSION,
      run_id: runId,
      job_id: job.job_id,
      test: test.name,
      target,
      target_identity: { emulation },
      emulation,
      candidate: { artifact_sha256: null, artifact_name: test.artifact, build: {} },
      started_at: now,
      finished_at: now,
      timings: {},
      expectations: expectationsOf(test),
      observations: {},
      status: 'error',
      status_reason: '',
      screen_match: null,
      supporting_artifacts: [],
      evidence: [],
      crash_state: null,
      comparison: null,
    };
  }

  #commit(job: Job, record: RunRecord): void {
    this.ctx.store.insertRun(record);
    job.run_ids.push(record.run_id);
    job.progress.completed_runs++;
    this.#save(job);
  }

  /** Runs `fn` holding one target's lease: debug-stream captures queue behind test jobs (captures.ts). */
  withTargetLease<T>(target: TargetName, holder: string, fn: () => Promise<T>): Promise<T> {
    return this.#leases.with(target, holder, fn);
  }

  /** Cancels queued jobs and waits for running ones to end their current run. */
  async stop(): Promise<void> {
    const all = [...this.#running.values()];
    for (const r of all) r.abort.abort();
    await Promise.all(all.map((r) => r.done));
  }
}

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

function summarizeBuild(b: BuildResult): Record<string, unknown> {
  return {
    status: b.ok ? 'succeeded' : 'failed',
    command: b.command,
    exit_code: b.exitCode,
    duration_ms: Math.round(b.durationMs * 100) / 100,
    command_ms: Math.round(b.commandMs * 100) / 100,
    ...(b.ok ? {} : { reason: b.reason, timed_out: b.timedOut }),
    logs: ['build-stdout.txt', 'build-stderr.txt'],
    clean_copy: true,
  };
}
