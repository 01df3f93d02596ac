// UltimateToolService: the project service behind `ultimate-tool serve`, as a class a Node app can
// start in-process. This file is only the assembly: the store, the one JobRunner, the captures,
// analyses and native stores, the route families (routes/*.ts, jobs/native/native-routes.ts) bound
// to the route table (api/routes.ts), and the HTTP front (http/http-front.ts). It knows nothing
// about MCP. Secrets (the device password) arrive as options and are never written to a response,
// a log line or a run record.
import http from 'node:http';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { LOOPBACK, closeServer, listenLoopback, type Logger, silentLogger } from '../../common/index.js';
import { type CaptureLimits, CaptureService, DEFAULT_CAPTURE_LIMITS } from './jobs/captures.js';
import { HttpFront } from './http/http-front.js';
import type { UltimateTargetConfig, ViceTargetConfig } from './jobs/job-context.js';
import { JobRunner } from './jobs/job-runner.js';
import { TestJobs } from './jobs/test-job.js';
import { type Manifest, ManifestError, loadManifest } from './project/manifest.js';
import { LabBench } from './jobs/native/lab-bench.js';
import { nativeRoutes } from './jobs/native/native-routes.js';
import { NativeStore } from './jobs/native/native-store.js';
import { bindRoutes } from './http/route-binding.js';
import { analysisRoutes } from './routes/analysis-routes.js';
import { captureRoutes } from './routes/capture-routes.js';
import { jobRoutes } from './routes/job-routes.js';
import { probeRoutes } from './routes/probe-routes.js';
import { projectRoutes } from './routes/project-routes.js';
import { type RouteContext, ok } from './routes/route-context.js';
import { runRoutes } from './routes/run-routes.js';
import { targetInfo } from './routes/target-info.js';
import { RunAnalyses } from './analysis/run-analyses.js';
import { ServiceError } from './http/service-error.js';
import { ServiceStore } from './store/store.js';
import { StoreLock } from './store/store-lock.js';
import { sweepDeadOwnersTemp } from './jobs/owned-temp.js';
import type { SymbolAnalysis } from './analysis/symbol-analysis.js';
import { labelMapAnalysis } from './symbols/label-map-analysis.js';
import { VicePool } from './targets/vice-pool.js';

export const DEFAULT_PORT = 6464;
export const DEFAULT_VICE_COMMAND = ['x64sc', '-default', '+sound'];

export interface UltimateToolServiceOptions {
  /** The C64 project folder (holds ultimate-tool.json). */
  projectDir: string;
  /** Where runs, jobs, probes and evidence live (default `<projectDir>/.ultimate-tool`). */
  storeDir?: string;
  /** TCP port on 127.0.0.1 (default 6464; 0 = any free port, see `port` after start). */
  port?: number;
  /** The vice target: emulator argv (default x64sc); null disables the target. */
  vice?: ViceTargetConfig | null;
  /** The ultimate target (device options incl. password); null/absent: not configured. */
  ultimate?: UltimateTargetConfig | null;
  /** The label/map analysis for /resolve and /comparisons/runs (default: ./symbols/); null: those answer "unavailable". */
  symbolAnalysis?: SymbolAnalysis | null;
  logger?: Logger;
  /** Clock (ms since epoch) for probe expiry and timestamps; tests move it. */
  now?: () => number;
  /** Bounds of every debug-stream capture (default 90,000 datagrams / 30 s). */
  captureLimits?: CaptureLimits;
  /**
   * The lab bench beside a device under native test (its serial console and power outlet, not a
   * device interface): where native-run output is read. Absent: native output is not collected.
   */
  benchUrl?: string | null;
  /** How long a native run's output is awaited on the lab bench (default 30 s). */
  nativeOutputTimeoutMs?: number;
  /** Jobs queued or running per target, at most (default 16); one more is refused with queue_full (429). */
  maxJobsPerTarget?: number;
  /**
   * Start even though the database is missing, empty or younger than the evidence beside it,
   * moving that evidence to orphaned/ (store/lost-database.ts); without it such a store stops the start.
   */
  adoptOrphanedEvidence?: boolean;
  /** How long a request body may take to arrive whole before 408 (default http/http-front.ts BODY_DEADLINE_MS; tests shorten it). */
  bodyDeadlineMs?: number;
}

export class UltimateToolService {
  readonly projectRoot: string;
  readonly store: ServiceStore;
  readonly #server: http.Server;
  readonly #jobs: JobRunner;
  readonly #captures: CaptureService;
  readonly #native: NativeStore;
  /** One service per store: held from before recovery until stop (store/store-lock.ts). */
  readonly #lock: StoreLock;
  readonly #vicePool: VicePool | null;
  #port = 0;

  private constructor(opts: UltimateToolServiceOptions) {
    const symbolAnalysis = opts.symbolAnalysis === undefined ? labelMapAnalysis : opts.symbolAnalysis;
    this.projectRoot = resolve(opts.projectDir);
    const log = opts.logger ?? silentLogger;
    const now = opts.now ?? Date.now;
    const storeDir = resolve(opts.storeDir ?? join(this.projectRoot, '.ultimate-tool'));
    // The lock comes before anything reads or recovers the store: a second service must not
    // mark the first one's running job interrupted or move its evidence.
    this.#lock = StoreLock.acquire(storeDir);
    let recovered: ReturnType<ServiceStore['recover']>;
    try {
      this.store = new ServiceStore(storeDir, { logger: log, adoptOrphanedEvidence: opts.adoptOrphanedEvidence });
      try {
        recovered = this.store.recover(new Date(now()).toISOString());
      } catch (e) {
        this.store.close();
        throw e;
      }
    } catch (e) {
      this.#lock.release();
      throw e;
    }
    const sweptTemp = sweepDeadOwnersTemp();
    if (sweptTemp.length) log.warn(`removed ${sweptTemp.length} temp folder(s) a killed service left behind: ${sweptTemp.join(', ')}`);
    if (recovered.interruptedJobs.length)
      log.warn(`marked ${recovered.interruptedJobs.length} interrupted job(s) failed: ${recovered.interruptedJobs.join(', ')}`);
    if (recovered.corruptJobs.length)
      log.warn(
        `store ${this.store.dir}: ${recovered.corruptJobs.length} job row(s) are not readable jobs; marked failed: ${recovered.corruptJobs.join(', ')}`,
      );
    if (recovered.orphanedEvidenceDirs.length)
      log.warn(
        `store ${this.store.dir}: moved ${recovered.orphanedEvidenceDirs.length} evidence folder(s) that no committed run registers aside (kept, not deleted): ${recovered.orphanedEvidenceDirs.join(', ')}`,
      );
    const manifest = async (): Promise<Manifest> => {
      try {
        return await loadManifest(this.projectRoot);
      } catch (e) {
        if (e instanceof ManifestError) throw new ServiceError('manifest_invalid', e.message, 409);
        throw e;
      }
    };
    const vice = opts.vice === undefined ? { command: DEFAULT_VICE_COMMAND } : opts.vice;
    this.#vicePool = vice
      ? new VicePool({
          command: vice.command,
          instances: vice.instances ?? availableParallelism(),
          warp: vice.warp ?? true,
          startTimeoutMs: vice.startTimeoutMs,
          logger: log,
        })
      : null;
    this.#jobs = new JobRunner(
      {
        store: this.store,
        projectRoot: this.projectRoot,
        loadManifest: () => loadManifest(this.projectRoot),
        vice,
        vicePool: this.#vicePool,
        ultimate: opts.ultimate ?? null,
        symbols: symbolAnalysis ?? null,
        logger: log,
        now,
      },
      { maxJobsPerTarget: opts.maxJobsPerTarget },
    );
    this.#captures = new CaptureService({
      jobs: this.#jobs,
      loadManifest: manifest,
      limits: opts.captureLimits ?? DEFAULT_CAPTURE_LIMITS,
      now,
    });
    this.#native = new NativeStore(this.store.dir, { logger: log });
    const uncertain = this.#native.recover(new Date(now()).toISOString());
    if (uncertain.length)
      log.warn(`marked ${uncertain.length} unfinished native run(s) uncertain and their intents suspended: ${uncertain.join(', ')}`);

    const ctx: RouteContext = {
      projectRoot: this.projectRoot,
      store: this.store,
      jobs: this.#jobs,
      testJobs: new TestJobs(this.#jobs),
      captures: this.#captures,
      analyses: new RunAnalyses(this.store, symbolAnalysis ?? null),
      symbolAnalysis: symbolAnalysis ?? null,
      log,
      now,
      manifest,
      targetInfo: (t) => targetInfo(this.#jobs.ctx, t),
    };
    const native = nativeRoutes(
      {
        store: this.store,
        native: this.#native,
        projectRoot: this.projectRoot,
        ultimate: () => this.#jobs.ctx.ultimate,
        jobs: this.#jobs,
        bench: opts.benchUrl ? new LabBench(opts.benchUrl) : null,
        logger: log,
        now,
        outputTimeoutMs: opts.nativeOutputTimeoutMs ?? 30_000,
      },
      manifest,
      ok,
    );
    const routes = bindRoutes({
      ...projectRoutes(ctx),
      ...runRoutes(ctx),
      ...analysisRoutes(ctx),
      ...jobRoutes(ctx),
      ...probeRoutes(ctx),
      ...captureRoutes(ctx),
      ...native,
    });
    const front = new HttpFront(routes, () => this.#port, log, { bodyDeadlineMs: opts.bodyDeadlineMs });
    this.#server = http.createServer((req, res) => void front.serve(req, res));
    this.#server.keepAliveTimeout = 5000;
  }

  /** Validates the project, opens the store (recovering interrupted jobs) and listens on 127.0.0.1. */
  static async start(opts: UltimateToolServiceOptions): Promise<UltimateToolService> {
    await loadManifest(resolve(opts.projectDir));
    const s = new UltimateToolService(opts);
    try {
      await s.#captures.sweep();
      s.#port = await listenLoopback(s.#server, opts.port ?? DEFAULT_PORT, LOOPBACK);
    } catch (e) {
      s.#native.close();
      s.store.close();
      s.#lock.release();
      throw e;
    }
    return s;
  }

  get port(): number {
    return this.#port;
  }
  get url(): string {
    return `http://${LOOPBACK}:${this.#port}`;
  }

  /** Stops accepting requests, cancels queued jobs, lets running jobs stop at a safe step, closes the store. */
  async stop(): Promise<void> {
    this.#server.closeIdleConnections();
    const closing = closeServer(this.#server);
    await this.#jobs.stop();
    await this.#vicePool?.close();
    this.#server.closeAllConnections();
    await closing;
    this.#native.close();
    this.store.close();
    this.#lock.release();
  }
}
