// UltimateToolService: the project service behind `ultimate-tool serve`, as a class a Node app can
// start in-process. HTTP is node:http with a small route table; every request and query is parsed
// with the zod schemas of api-schemas.ts (the same ones the OpenAPI document is generated from).
// It knows nothing about MCP. Secrets (the device password) arrive as options and are never
// written to a response, a log line or a run record.
import { labelMapAnalysis } from './symbols/label-map-analysis.js';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { z } from 'zod';
import { LOOPBACK, closeServer, listenLoopback, type Logger, packageVersion, silentLogger } from '../../common/index.js';
import { UltimateDevice } from '../../engines/ultimate/device.js';
import {
  API_SCHEMA_VERSION,
  CheckpointCompareQuerySchema,
  CheckpointComparisonsQuerySchema,
  CompareQuerySchema,
  type Job,
  JobRequestSchema,
  ProbeRequestSchema,
  ResolveQuerySchema,
  RunsQuerySchema,
  type TargetInfo,
  UuidSchema,
} from './api/schemas.js';
import { parseAddress } from './address.js';
import { readEvidence } from './evidence.js';
import type { UltimateTargetConfig, ViceTargetConfig } from './jobs/job-context.js';
import { JobRunner } from './jobs/job-runner.js';
import { TestJobs } from './jobs/test-job.js';
import { type Manifest, ManifestError, loadManifest } from './manifest.js';
import { openApiDocument } from './api/openapi.js';
import { ROUTES } from './api/routes.js';
import { type BoundRoute, type Reply, type RouteHandlers, bindRoutes } from './route-binding.js';
import { checkProbe, identityOf, newProbe, probeView } from './probes.js';
import { describeIssues } from './manifest.js';
import { ServiceError } from './service-error.js';
import { CorruptRowError, ServiceStore } from './store.js';
import { compareStoredRuns, listPairs, rejectCheckpointMatrix, storedPair } from './checkpoint-service.js';
import type { SymbolAnalysis } from './symbol-analysis.js';
import { type CaptureLimits, CaptureService, DEFAULT_CAPTURE_LIMITS } from './captures.js';
import { EvidenceIntegrityError } from './analysis/registered-evidence.js';
import { RunAnalyses } from './run-analyses.js';
import { DashboardAssets, isDashboardPath } from './dashboard/dashboard-assets.js';
import { checkHost, checkJsonBody, expectedHost } from './dashboard/request-guard.js';
import { API_CSP, DASHBOARD_CSP, commonSecurityHeaders } from './dashboard/security-headers.js';
import { LabBench } from './native-jobs/lab-bench.js';
import type { NativeContext } from './native-jobs/native-context.js';
import { type NativeRoutes, nativeRoutes } from './native-jobs/native-routes.js';
import { NativeStore } from './native-jobs/native-store.js';
import { EmptyBodySchema } from './api/native-schemas.js';
import {
  CapturePrepareRequestSchema,
  CaptureStartRequestSchema,
  CrashReportQuerySchema,
  DiagnosticItemsQuerySchema,
  SourceLinkedPrepareRequestSchema,
  SourceLinkedStartRequestSchema,
  TimelineQuerySchema,
  NoQuerySchema,
  JobsQuerySchema,
} from './api/schemas.js';

export const DEFAULT_PORT = 6464;
export const DEFAULT_VICE_COMMAND = ['x64sc', '-default', '+sound'];
const MAX_BODY_BYTES = 64 * 1024;

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
}

function ok(body: Record<string, unknown>, status = 200): Reply {
  return { status, body: { api_schema_version: API_SCHEMA_VERSION, ...body } };
}

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ServiceError('invalid-request', `invalid ${what}: ${describeIssues(r.error)}`, 400);
  return r.data;
}

function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) {
    if (k in out) throw new ServiceError('invalid-request', `query parameter ${k} given twice; expected it at most once`, 400);
    out[k] = v;
  }
  return out;
}

function onPath(cmd: string): boolean {
  if (cmd.includes('/')) {
    try {
      accessSync(cmd, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      /* next */
    }
  }
  return false;
}

export class UltimateToolService {
  readonly projectRoot: string;
  readonly store: ServiceStore;
  readonly #server: http.Server;
  readonly #opts: UltimateToolServiceOptions;
  readonly #jobs: JobRunner;
  readonly #testJobs: TestJobs;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #routes: BoundRoute[];
  readonly #captures: CaptureService;
  readonly #analyses: RunAnalyses;
  readonly #assets = new DashboardAssets();
  readonly #native: NativeStore;
  #port = 0;

  private constructor(opts: UltimateToolServiceOptions, manifest: Manifest) {
    void manifest;
    this.#opts = { ...opts, symbolAnalysis: opts.symbolAnalysis === undefined ? labelMapAnalysis : opts.symbolAnalysis };
    this.projectRoot = resolve(opts.projectDir);
    this.#log = opts.logger ?? silentLogger;
    this.#now = opts.now ?? Date.now;
    this.store = new ServiceStore(resolve(opts.storeDir ?? join(this.projectRoot, '.ultimate-tool')));
    const recovered = this.store.recover(new Date(this.#now()).toISOString());
    if (recovered.interruptedJobs.length)
      this.#log.warn(`marked ${recovered.interruptedJobs.length} interrupted job(s) failed: ${recovered.interruptedJobs.join(', ')}`);
    if (recovered.corruptJobs.length)
      this.#log.warn(
        `store ${this.store.dir}: ${recovered.corruptJobs.length} job row(s) are not readable jobs; marked failed: ${recovered.corruptJobs.join(', ')}`,
      );
    if (recovered.orphanedEvidenceDirs.length)
      this.#log.warn(
        `store ${this.store.dir}: moved ${recovered.orphanedEvidenceDirs.length} evidence folder(s) that no committed run registers aside (kept, not deleted): ${recovered.orphanedEvidenceDirs.join(', ')}`,
      );
    this.#jobs = new JobRunner(
      {
        store: this.store,
        projectRoot: this.projectRoot,
        loadManifest: () => loadManifest(this.projectRoot),
        vice: opts.vice === undefined ? { command: DEFAULT_VICE_COMMAND } : opts.vice,
        ultimate: opts.ultimate ?? null,
        symbols: this.#opts.symbolAnalysis ?? null,
        logger: this.#log,
        now: this.#now,
      },
      { maxJobsPerTarget: opts.maxJobsPerTarget },
    );
    this.#testJobs = new TestJobs(this.#jobs);
    this.#captures = new CaptureService({
      jobs: this.#jobs,
      loadManifest: () => this.#manifest(),
      limits: opts.captureLimits ?? DEFAULT_CAPTURE_LIMITS,
      now: this.#now,
    });
    this.#analyses = new RunAnalyses(this.store, this.#opts.symbolAnalysis ?? null);
    this.#native = new NativeStore(this.store.dir);
    const uncertain = this.#native.recover(new Date(this.#now()).toISOString());
    if (uncertain.length)
      this.#log.warn(`marked ${uncertain.length} unfinished native run(s) uncertain and their intents suspended: ${uncertain.join(', ')}`);
    this.#routes = bindRoutes({
      ...this.#nativeRoutes(),
      ...this.#captureRoutes(),
      ...this.#analysisRoutes(),
      getProject: () => this.#project(),
      listTargets: () => this.#targets(),
      listRuns: (_m, url) => this.#listRuns(url),
      getRun: (m) => ok({ run: this.#run(m[1]!) }),
      readEvidence: (m) => this.#evidence(m[1]!, m[2]!),
      resolveAddress: (m, url) => this.#resolve(m[1]!, url),
      compareRuns: (_m, url) => this.#compare(url),
      compareRunCheckpoints: (_m, url) => this.#compareCheckpoints(url),
      listCheckpointComparisons: (_m, url) => this.#checkpointComparisons(url),
      getCheckpointComparison: (m) => this.#checkpointComparison(m[1]!),
      listJobs: (_m, url) => this.#listJobs(url),
      getActiveJob: () => ok({ job: this.#activeJob() }),
      getJob: (m) => this.#job(m[1]!),
      cancelJob: (m, _u, body) => this.#cancelJob(m[1]!, body),
      probeUltimate: (_m, _u, body) => this.#probe(body),
      startTestJob: (_m, _u, body) => this.#startJob(body),
      openApi: () => ({ status: 200, body: openApiDocument(packageVersion()) }),
    });
    this.#server = http.createServer((req, res) => void this.#serve(req, res));
    this.#server.keepAliveTimeout = 5000;
  }

  /** Validates the project, opens the store (recovering interrupted jobs) and listens on 127.0.0.1. */
  static async start(opts: UltimateToolServiceOptions): Promise<UltimateToolService> {
    const manifest = await loadManifest(resolve(opts.projectDir));
    const s = new UltimateToolService(opts, manifest);
    await s.#captures.sweep();
    try {
      s.#port = await listenLoopback(s.#server, opts.port ?? DEFAULT_PORT, LOOPBACK);
    } catch (e) {
      s.#native.close();
      s.store.close();
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

  /** Stops accepting requests, cancels queued jobs, lets running runs end, closes the store. */
  async stop(): Promise<void> {
    this.#server.closeIdleConnections();
    const closing = closeServer(this.#server);
    await this.#jobs.stop();
    this.#server.closeAllConnections();
    await closing;
    this.#native.close();
    this.store.close();
  }

  async #serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let reply: Reply;
    try {
      checkHost(req.headers.host, expectedHost(LOOPBACK, this.#port));
      if (this.#serveDashboard(req, res)) return;
      reply = await this.#dispatch(req);
    } catch (e) {
      req.resume(); // a request refused before its body was read must not stall the connection
      if (e instanceof ServiceError) {
        reply = {
          status: e.status,
          body: {
            api_schema_version: API_SCHEMA_VERSION,
            error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) },
          },
        };
      } else if (e instanceof CorruptRowError) {
        this.#log.error(`${req.method} ${req.url}: ${e.message}`);
        reply = { status: 500, body: { api_schema_version: API_SCHEMA_VERSION, error: { code: 'internal', message: e.message } } };
      } else {
        this.#log.error(`internal error on ${req.method} ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
        reply = {
          status: 500,
          body: {
            api_schema_version: API_SCHEMA_VERSION,
            error: { code: 'internal', message: 'internal error in the service (logged on its stderr)' },
          },
        };
      }
    }
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...commonSecurityHeaders(API_CSP),
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  /** GET `/` and `/dashboard/*`: the dashboard's static files (true when answered here). */
  #serveDashboard(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (!isDashboardPath(path)) return false;
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD')
      throw new ServiceError('method_not_allowed', `${method} is not allowed on ${path}: the dashboard is read-only`, 405);
    const asset = this.#assets.get(path);
    if (asset === undefined) throw new ServiceError('not-found', `no dashboard file ${path}`, 404);
    if (asset === 'not-built')
      throw new ServiceError('not-found', 'the dashboard assets are not built (run `npm run build`; they live in dist/dashboard/)', 404);
    req.resume();
    res.writeHead(200, {
      ...commonSecurityHeaders(DASHBOARD_CSP),
      'content-type': asset.contentType,
      'content-length': asset.body.length,
    });
    res.end(method === 'HEAD' ? undefined : asset.body);
    return true;
  }

  async #dispatch(req: http.IncomingMessage): Promise<Reply> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // Routes match the path as sent: URL parsing would resolve "..", and an evidence name of ".."
    // must reach the evidence route to be refused there as unregistered.
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    const route = this.#routes.find((r) => r.re.test(path) && r.method === method);
    if (!route) {
      req.resume();
      const other = this.#routes.some((r) => r.re.test(path));
      if (other) throw new ServiceError('method_not_allowed', `${method} is not allowed on ${url.pathname}`, 405);
      throw new ServiceError('not-found', `no route ${method} ${url.pathname}; the routes are listed in ${ROUTES.openApi.path}`, 404);
    }
    // A route without query parameters in the table takes none: an unknown one is refused, not ignored.
    if (!route.spec.query && url.searchParams.size > 0) {
      req.resume();
      throw new ServiceError(
        'invalid-request',
        `${method} ${route.spec.path} takes no query parameters; got ${[...url.searchParams.keys()].join(', ')}`,
        400,
      );
    }
    let body: unknown;
    if (method === 'POST') {
      checkJsonBody(method, req.headers['content-type']);
      body = await this.#readBody(req);
    } else req.resume();
    return route.handler(route.re.exec(path)!, url, body);
  }

  async #readBody(req: http.IncomingMessage): Promise<unknown> {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      throw new ServiceError('body_too_large', `request body of ${declared} bytes; at most ${MAX_BODY_BYTES} accepted`, 413);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > MAX_BODY_BYTES) throw new ServiceError('body_too_large', `request body larger than ${MAX_BODY_BYTES} bytes`, 413);
      chunks.push(c);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() === '') return {};
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new ServiceError('invalid-request', `request body is not JSON: ${(e as Error).message}`, 400);
    }
  }

  async #manifest(): Promise<Manifest> {
    try {
      return await loadManifest(this.projectRoot);
    } catch (e) {
      if (e instanceof ManifestError) throw new ServiceError('manifest_invalid', e.message, 409);
      throw e;
    }
  }

  async #project(): Promise<Reply> {
    const m = await this.#manifest();
    return ok({ project: { root: this.projectRoot, manifest: m, tests: m.tests, ultimate_reu_image: m.ultimate_reu_image } });
  }

  #viceInfo(): TargetInfo {
    const v = this.#jobs.ctx.vice;
    if (!v)
      return {
        target: 'vice',
        available: false,
        reason: 'the vice target is disabled in this service',
        emulation: true,
        description: 'VICE binary monitor',
      };
    const cmd = v.command[0] ?? '';
    const found = isAbsolute(cmd) || cmd.includes('/') ? onPath(cmd) : onPath(cmd);
    return {
      target: 'vice',
      available: found,
      reason: found ? null : `the emulator command ${JSON.stringify(cmd)} was not found on PATH; start the service with --vice-command`,
      emulation: true,
      description: `an emulator driven through the VICE binary monitor: ${v.command.join(' ')}`,
    };
  }

  #ultimateInfo(): TargetInfo {
    const u = this.#jobs.ctx.ultimate;
    if (!u)
      return {
        target: 'ultimate',
        available: false,
        reason: 'no device configured: set C64U_HOST (and C64U_PASSWORD) or start the service with --virtual-device',
        emulation: false,
        description: 'Ultimate 64 / Ultimate-II+',
      };
    const where = u.device.baseUrl ?? u.device.host ?? '';
    return {
      target: 'ultimate',
      available: true,
      reason: null,
      emulation: u.virtualDevice,
      description: u.virtualDevice
        ? `a virtual Ultimate 64 started by this service (an EMULATION, not hardware) at ${where}`
        : `Ultimate 64 / Ultimate-II+ at ${where}`,
    };
  }

  #targets(): Reply {
    return ok({ targets: [this.#viceInfo(), this.#ultimateInfo()] });
  }

  #listRuns(url: URL): Reply {
    const q = parse(RunsQuerySchema, queryObject(url), `query for GET ${ROUTES.listRuns.path}`);
    const page = this.store.listRuns(q);
    if (page === 'bad-cursor')
      throw new ServiceError('invalid-request', 'cursor is not one this service issued (use next_cursor as given)', 400);
    return ok({ runs: page.runs, next_cursor: page.nextCursor });
  }

  #run(id: string) {
    if (!UuidSchema.safeParse(id).success)
      throw new ServiceError('invalid-request', `run id ${JSON.stringify(id)} is not a lower-case UUID v4`, 400);
    const r = this.store.getRun(id);
    if (!r) throw new ServiceError('not-found', `no run ${id}`, 404);
    return r;
  }

  async #evidence(runId: string, rawName: string): Promise<Reply> {
    const run = this.#run(runId);
    let name: string;
    try {
      name = decodeURIComponent(rawName);
    } catch {
      throw new ServiceError('evidence_not_registered', 'evidence name is not valid percent-encoding', 404);
    }
    return ok({ evidence: await readEvidence(run, this.store.runDir(run.run_id), name) });
  }

  async #resolve(runId: string, url: URL): Promise<Reply> {
    const q = parse(ResolveQuerySchema, queryObject(url), 'query for resolve');
    const address = parseAddress(q.address);
    if (address === undefined)
      throw new ServiceError(
        'invalid-request',
        `address ${JSON.stringify(q.address)} is not decimal, $ABCD or 0xABCD within 0..65535`,
        400,
      );
    const run = this.#run(runId);
    let resolve: Awaited<ReturnType<RunAnalyses['resolverFor']>>;
    try {
      resolve = await this.#analyses.resolverFor(run, q.context);
    } catch (e) {
      if (e instanceof EvidenceIntegrityError)
        throw new ServiceError('evidence_checksum_mismatch', e.message, 409, { evidence: e.evidenceName });
      throw e;
    }
    return ok(resolve(address));
  }

  async #compare(url: URL): Promise<Reply> {
    const q = parse(CompareQuerySchema, queryObject(url), `query for GET ${ROUTES.compareRuns.path}`);
    const baseline = this.#run(q.baseline);
    const candidate = this.#run(q.candidate);
    const sa = this.#opts.symbolAnalysis;
    if (!sa)
      return ok({ comparison_schema_version: 1, result: 'unavailable', reason: 'label/map analysis is not wired into this service' });
    const { readFile } = await import('node:fs/promises');
    const read = async (run: typeof baseline, name: string) => {
      if (!run.evidence.some((e) => e.name === name))
        throw new ServiceError('evidence_not_registered', `run ${run.run_id} has no ${name}`, 404);
      return readFile(join(this.store.runDir(run.run_id), name), 'utf8');
    };
    return ok({ ...(await sa.compareRuns(baseline, candidate, read, q.context)) });
  }

  async #compareCheckpoints(url: URL): Promise<Reply> {
    const q = parse(CheckpointCompareQuerySchema, queryObject(url), `query for GET ${ROUTES.compareRunCheckpoints.path}`);
    return ok(await compareStoredRuns(this.store, this.#run(q.baseline), this.#run(q.candidate)));
  }

  #checkpointComparisons(url: URL): Reply {
    const q = parse(CheckpointComparisonsQuerySchema, queryObject(url), `query for GET ${ROUTES.listCheckpointComparisons.path}`);
    return ok(listPairs(this.store, q.limit));
  }

  #checkpointComparison(id: string): Reply {
    if (!UuidSchema.safeParse(id).success)
      throw new ServiceError('invalid-request', `comparison id ${JSON.stringify(id)} is not a lower-case UUID v4`, 400);
    return ok(storedPair(this.store, id));
  }

  /** Recent jobs, newest first; a job still held by the runner is shown with its live progress. */
  #listJobs(url: URL): Reply {
    const q = parse(JobsQuerySchema, queryObject(url), `query for GET ${ROUTES.listJobs.path}`);
    const jobs = this.store.listJobs(q.limit, q.state).map((j) => this.#jobs.liveJob(j.job_id) ?? j);
    return ok({ jobs });
  }

  /** Cancels a queued job outright, a running one at its next safe step; a settled job is refused. */
  #cancelJob(id: string, body: unknown): Reply {
    if (id.length > 100) throw new ServiceError('invalid-request', 'job id longer than 100 characters', 400);
    parse(EmptyBodySchema, body, `body for POST ${ROUTES.cancelJob.path} (expected {})`);
    const live = this.#jobs.cancel(id);
    if (live) return ok({ job: live });
    const stored = this.store.getJob(id);
    if (!stored) throw new ServiceError('not-found', `no job ${JSON.stringify(id)}`, 404);
    throw new ServiceError('job_settled', `job ${id} already ended (${stored.state}); there is nothing to cancel`, 409, {
      state: stored.state,
    });
  }

  #job(id: string): Reply {
    if (id.length > 100) throw new ServiceError('invalid-request', 'job id longer than 100 characters', 400);
    const job = this.#jobs.liveJob(id) ?? this.store.getJob(id);
    if (!job) throw new ServiceError('not-found', `no job ${JSON.stringify(id)}`, 404);
    return ok({ job });
  }

  async #probe(body: unknown): Promise<Reply> {
    const req = parse(ProbeRequestSchema, body, `body for POST ${ROUTES.probeUltimate.path}`);
    const u = this.#jobs.ctx.ultimate;
    if (!u) throw new ServiceError('target_unavailable', this.#ultimateInfo().reason ?? 'not configured', 503);
    const device = new UltimateDevice(u.device);
    try {
      let snap: Awaited<ReturnType<UltimateDevice['probe']>> | undefined;
      let lastErr: unknown;
      for (let attempt = 0; attempt < (req.strict_gate ? 1 : 3) && !snap; attempt++) {
        try {
          snap = await device.probe();
        } catch (e) {
          lastErr = e;
        }
      }
      if (!snap) throw new ServiceError('target_unavailable', `the device did not answer the probe: ${(lastErr as Error)?.message}`, 503);
      const p = newProbe(snap, req.strict_gate, this.#now());
      if (u.virtualDevice) p.snapshot.virtual = true;
      this.store.putProbe(p);
      void identityOf;
      return ok({ probe: probeView(p) }, 201);
    } finally {
      await device.close();
    }
  }

  // ---- trusted-native flow (native/, docs/ultimate/NATIVE.md "The service flow") ----

  /** The running job that started first, of any kind. */
  #activeJob(): Job | null {
    return this.#jobs.activeJob();
  }

  #nativeRoutes(): NativeRoutes {
    const ctx: NativeContext = {
      store: this.store,
      native: this.#native,
      projectRoot: this.projectRoot,
      ultimate: () => this.#jobs.ctx.ultimate,
      jobs: this.#jobs,
      bench: this.#opts.benchUrl ? new LabBench(this.#opts.benchUrl) : null,
      logger: this.#log,
      now: this.#now,
      outputTimeoutMs: this.#opts.nativeOutputTimeoutMs ?? 30_000,
    };
    return nativeRoutes(ctx, () => this.#manifest(), ok);
  }

  // ---- debug-stream captures (captures.ts) ----

  #captureRoutes(): RouteHandlers<
    | 'prepareDebugStreamCapture'
    | 'prepareSourceLinkedCapture'
    | 'cancelDebugStreamPreparation'
    | 'cancelSourceLinkedPreparation'
    | 'startDebugStreamCapture'
    | 'startSourceLinkedCapture'
  > {
    const id = (raw: string) => {
      if (!UuidSchema.safeParse(raw).success)
        throw new ServiceError('invalid-request', `preparation id ${JSON.stringify(raw)} is not a lower-case UUID v4`, 400);
      return raw;
    };
    const c = this.#captures;
    return {
      prepareDebugStreamCapture: async (_m, _u, body) =>
        ok(
          { preparation: await c.prepareDebugStream(parse(CapturePrepareRequestSchema, body, 'body of a debug-stream preparation')) },
          201,
        ),
      prepareSourceLinkedCapture: async (_m, _u, body) =>
        ok(
          {
            preparation: await c.prepareSourceLinked(parse(SourceLinkedPrepareRequestSchema, body, 'body of a source-linked preparation')),
          },
          201,
        ),
      cancelDebugStreamPreparation: async (m) => ok({ preparation: await c.cancel(id(m[1]!)) }),
      cancelSourceLinkedPreparation: async (m) => ok({ preparation: await c.cancel(id(m[1]!)) }),
      startDebugStreamCapture: async (m, _u, body) =>
        ok(
          { job: await c.startDebugStream(id(m[1]!), parse(CaptureStartRequestSchema, body, 'body of a debug-stream capture start')) },
          201,
        ),
      startSourceLinkedCapture: async (m, _u, body) =>
        ok(
          {
            job: await c.startSourceLinked(id(m[1]!), parse(SourceLinkedStartRequestSchema, body, 'body of a source-linked capture start')),
          },
          201,
        ),
    };
  }

  // ---- run analyses (run-analyses.ts) ----

  #analysisRoutes(): RouteHandlers<'getRunTimeline' | 'getDiagnosticReport' | 'getDiagnosticItems' | 'getCrashReport'> {
    const a = this.#analyses;
    return {
      getRunTimeline: async (m, url) => {
        const q = parse(TimelineQuerySchema, queryObject(url), 'query for a run timeline');
        return ok(await a.timeline(this.#run(m[1]!), q));
      },
      getDiagnosticReport: async (m, url) => {
        parse(NoQuerySchema, queryObject(url), 'query for a diagnostic report');
        return ok(await a.diagnosticReport(this.#run(m[1]!)));
      },
      getDiagnosticItems: async (m, url) => {
        const run = this.#run(m[1]!);
        const q = parse(DiagnosticItemsQuerySchema, queryObject(url), 'query for diagnostic items');
        return ok(await a.diagnosticItems(run, q.section, q.limit, q.cursor));
      },
      getCrashReport: async (m, url) => {
        const q = parse(CrashReportQuerySchema, queryObject(url), 'query for a crash report');
        return ok(await a.crashReport(this.#run(m[1]!), q.context));
      },
    };
  }

  async #startJob(body: unknown): Promise<Reply> {
    const req = parse(JobRequestSchema, body, `body for POST ${ROUTES.startTestJob.path}`);
    const manifest = await this.#manifest();
    const test = manifest.tests.find((t) => t.name === req.test);
    if (!test)
      throw new ServiceError(
        'invalid-request',
        `no test ${JSON.stringify(req.test)} in the project; tests: ${manifest.tests.map((t) => t.name).join(', ')}`,
        400,
      );
    rejectCheckpointMatrix(req, test);
    if (req.baseline_run_id && !this.store.getRun(req.baseline_run_id))
      throw new ServiceError('not-found', `baseline run ${req.baseline_run_id} is not stored`, 404);
    const wantsUltimate = req.targets.includes('ultimate');
    if (
      !wantsUltimate &&
      (req.probe_id !== undefined || req.confirmed_reset_count !== undefined || req.confirmed_reu_write_count !== undefined)
    )
      throw new ServiceError('invalid-request', 'probe_id and confirmed counts apply only to a job with the ultimate target', 400);
    for (const t of req.targets) {
      const info = t === 'vice' ? this.#viceInfo() : this.#ultimateInfo();
      if (!info.available) throw new ServiceError('target_unavailable', `target ${t} is unavailable: ${info.reason}`, 503);
    }
    const jobId = randomUUID();
    let probe = null;
    if (wantsUltimate) {
      const now = this.#now();
      probe = checkProbe(this.store, req.probe_id, req.strict_gate, now);
      if (req.confirmed_reset_count !== req.repeat)
        throw new ServiceError(
          'confirmed_count_mismatch',
          `confirmed_reset_count must equal repeat (${req.repeat}): this job resets the device ${req.repeat} time(s); got ${req.confirmed_reset_count ?? 'nothing'}`,
          422,
          { expected_reset_count: req.repeat },
        );
      const reu = manifest.ultimate_reu_image ? req.repeat : 0;
      if ((req.confirmed_reu_write_count ?? 0) !== reu || (reu > 0 && req.confirmed_reu_write_count === undefined))
        throw new ServiceError(
          'confirmed_count_mismatch',
          manifest.ultimate_reu_image
            ? `confirmed_reu_write_count must equal repeat (${reu}): the project declares the REU image ${manifest.ultimate_reu_image}, written once per run`
            : `confirmed_reu_write_count must be 0: the project declares no REU image; got ${req.confirmed_reu_write_count}`,
          422,
          { expected_reu_write_count: reu },
        );
    }
    const consume = probe
      ? () => {
          if (!this.store.consumeProbe(probe.probe_id, jobId, this.#now()))
            throw new ServiceError('probe_consumed', `probe ${probe.probe_id} was just used by another job`, 422);
        }
      : undefined;
    return ok({ job: await this.#testJobs.submit(req, test, probe, jobId, consume) }, 201);
  }
}
