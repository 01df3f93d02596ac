// A typed client for the Ultimate Tool service's HTTP API (API schema 13). It is all the adapter
// knows of the service: one method per route, answers checked against the schemas the adapter
// relies on, and every failure an UltimateToolError that says in which layer it happened.
import http from 'node:http';
import type { z } from 'zod';
import { describeZodError } from '../../src/index.js';
import {
  type ActiveJobBody,
  ActiveJobBodySchema,
  API_SCHEMA_VERSION,
  type CheckpointComparisonBody,
  CheckpointComparisonBodySchema,
  type CheckpointComparisonRecordBody,
  CheckpointComparisonRecordBodySchema,
  type CheckpointComparisonsBody,
  CheckpointComparisonsBodySchema,
  type ComparisonBody,
  ComparisonBodySchema,
  type EvidenceBody,
  EvidenceBodySchema,
  type JobBody,
  JobBodySchema,
  type ListRunsQuery,
  type ProbeBody,
  ProbeBodySchema,
  type ProjectBody,
  ProjectBodySchema,
  type ResolveBody,
  ResolveBodySchema,
  type RunBody,
  RunBodySchema,
  type RunsBody,
  RunsBodySchema,
  ServiceErrorBodySchema,
  type StartJobRequest,
  type StartSuiteJobRequest,
  type TargetsBody,
  TargetsBodySchema,
  type CaptureStartBody,
  CaptureStartBodySchema,
  type CrashReportBody,
  CrashReportBodySchema,
  type DiagnosticItemsBody,
  DiagnosticItemsBodySchema,
  type DiagnosticReportBody,
  DiagnosticReportBodySchema,
  type PreparationBody,
  PreparationBodySchema,
  type TimelineBody,
  TimelineBodySchema,
} from './api-schemas.js';
import { type ErrorLayer, UltimateToolError } from './envelope.js';
import {
  type NativeIntentBody,
  NativeIntentBodySchema,
  type NativeJobBody,
  NativeJobBodySchema,
  type NativePreparationBody,
  NativePreparationBodySchema,
  type NativeRunStartBody,
  NativeRunStartBodySchema,
} from './native-schemas.js';
import { parseServiceUrl } from './service-url.js';
import { type RouteInput, requestTarget } from '../../services/ultimate-tool/api/paths.js';
import { ROUTES, type RouteSpec } from '../../services/ultimate-tool/api/routes.js';
import { httpStatusOf } from '../../services/ultimate-tool/api/errors.js';

/** Service codes that report the device (not the service) as the failing party. */
const DEVICE_ERROR_CODES: ReadonlySet<string> = new Set(['identity_changed', 'target_unavailable']);

/** Bigger than any answer the API gives (a 4 MiB PNG is ~5.6 MB of base64). */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface UltimateServiceClientOptions {
  /** `http://127.0.0.1[:port]`; anything else is refused (see parseServiceUrl). */
  serviceUrl: string;
  /** Per-request limit; default 30 s. */
  timeoutMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-request limit (a capture start waits for the capture). */
  timeoutMs?: number;
}

/** How long the adapter follows a capture job (queued behind other jobs, then at most its duration bound). */
export const CAPTURE_START_TIMEOUT_MS = 10 * 60 * 1000;
/** How often a job the adapter waits for is read again. */
const JOB_POLL_MS = 100;

/** What a capture job reports while it runs (MCP progress: datagrams received of the bound). */
export interface CaptureProgress {
  datagrams: number;
  max_datagrams: number | null;
  phase: string;
}

export type CaptureKind = 'debug-stream' | 'source-linked';

/**
 * The service's HTTP API as the route table (services/ultimate-tool/api/routes.ts) declares it,
 * wire agreement docs/ultimate/SERVICE-API.md. Connections are kept alive, so a call costs one
 * request on an open socket.
 */
export class UltimateServiceClient {
  readonly origin: string;
  private readonly host: string;
  private readonly port: number;
  private readonly timeoutMs: number;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

  constructor(options: UltimateServiceClientOptions) {
    const url = parseServiceUrl(options.serviceUrl);
    this.origin = url.origin;
    this.host = url.host;
    this.port = url.port;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  getProject(opts?: RequestOptions): Promise<ProjectBody> {
    return this.call(ROUTES.getProject, {}, ProjectBodySchema, opts);
  }

  listTargets(opts?: RequestOptions): Promise<TargetsBody> {
    return this.call(ROUTES.listTargets, {}, TargetsBodySchema, opts);
  }

  listRuns(query: ListRunsQuery = {}, opts?: RequestOptions): Promise<RunsBody> {
    return this.call(ROUTES.listRuns, { query }, RunsBodySchema, opts);
  }

  getRun(runId: string, opts?: RequestOptions): Promise<RunBody> {
    return this.call(ROUTES.getRun, { params: { run_id: runId } }, RunBodySchema, opts);
  }

  readEvidence(runId: string, name: string, opts?: RequestOptions): Promise<EvidenceBody> {
    return this.call(ROUTES.readEvidence, { params: { run_id: runId, name } }, EvidenceBodySchema, opts);
  }

  resolveAddress(runId: string, address: string, context?: string, opts?: RequestOptions): Promise<ResolveBody> {
    return this.call(ROUTES.resolveAddress, { params: { run_id: runId }, query: { address, context } }, ResolveBodySchema, opts);
  }

  compareRuns(baseline: string, candidate: string, context?: string, opts?: RequestOptions): Promise<ComparisonBody> {
    return this.call(ROUTES.compareRuns, { query: { baseline, candidate, context } }, ComparisonBodySchema, opts);
  }

  compareRunCheckpoints(baseline: string, candidate: string, opts?: RequestOptions): Promise<CheckpointComparisonBody> {
    return this.call(ROUTES.compareRunCheckpoints, { query: { baseline, candidate } }, CheckpointComparisonBodySchema, opts);
  }

  listCheckpointComparisons(limit?: number, opts?: RequestOptions): Promise<CheckpointComparisonsBody> {
    return this.call(ROUTES.listCheckpointComparisons, { query: { limit } }, CheckpointComparisonsBodySchema, opts);
  }

  getCheckpointComparison(comparisonId: string, opts?: RequestOptions): Promise<CheckpointComparisonRecordBody> {
    return this.call(
      ROUTES.getCheckpointComparison,
      { params: { comparison_id: comparisonId } },
      CheckpointComparisonRecordBodySchema,
      opts,
    );
  }

  getJob(jobId: string, opts?: RequestOptions): Promise<JobBody> {
    return this.call(ROUTES.getJob, { params: { job_id: jobId } }, JobBodySchema, opts);
  }

  getActiveJob(opts?: RequestOptions): Promise<ActiveJobBody> {
    return this.call(ROUTES.getActiveJob, {}, ActiveJobBodySchema, opts);
  }

  probeUltimate(body: { strict_gate?: boolean } = {}, opts?: RequestOptions): Promise<ProbeBody> {
    return this.call(ROUTES.probeUltimate, { body }, ProbeBodySchema, opts);
  }

  startTestJob(body: StartJobRequest, opts?: RequestOptions): Promise<JobBody> {
    return this.call(ROUTES.startTestJob, { body }, JobBodySchema, opts);
  }
  /** A whole suite in one job (POST /v13/suite-jobs). */
  startSuiteJob(body: StartSuiteJobRequest, opts?: RequestOptions): Promise<JobBody> {
    return this.call(ROUTES.startSuiteJob, { body }, JobBodySchema, opts);
  }

  // ---- the trusted-native flow (SERVICE-API.md "Native") ----

  createNativePreparation(body: { program: string }, opts?: RequestOptions): Promise<NativePreparationBody> {
    // A preparation may build the program with the RISC-V toolchain.
    return this.call(ROUTES.createNativePreparation, { body }, NativePreparationBodySchema, { timeoutMs: 660_000, ...opts });
  }

  createNativeIntent(body: Record<string, unknown>, opts?: RequestOptions): Promise<NativeIntentBody> {
    return this.call(ROUTES.createNativeIntent, { body }, NativeIntentBodySchema, opts);
  }

  getNativeIntent(intentId: string, opts?: RequestOptions): Promise<NativeIntentBody> {
    return this.call(ROUTES.getNativeIntent, { params: { intent_id: intentId } }, NativeIntentBodySchema, opts);
  }

  revokeNativeIntent(intentId: string, opts?: RequestOptions): Promise<NativeIntentBody> {
    return this.call(ROUTES.revokeNativeIntent, { params: { intent_id: intentId }, body: {} }, NativeIntentBodySchema, opts);
  }

  startNativeRun(body: { intent_id: string; device_host: string }, opts?: RequestOptions): Promise<NativeRunStartBody> {
    return this.call(ROUTES.startNativeRun, { body }, NativeRunStartBodySchema, { timeoutMs: 120_000, ...opts });
  }

  startNativeHealthCheck(body: { intent_id: string; run_id: string; device_host: string }, opts?: RequestOptions): Promise<NativeJobBody> {
    return this.call(ROUTES.startNativeHealthCheck, { body }, NativeJobBodySchema, { timeoutMs: 120_000, ...opts });
  }

  startRiscvSmokeJob(body: Record<string, unknown>, opts?: RequestOptions): Promise<NativeJobBody> {
    return this.call(ROUTES.startRiscvSmokeJob, { body }, NativeJobBodySchema, { timeoutMs: 660_000, ...opts });
  }

  // ---- run analyses ----

  getRunTimeline(
    runId: string,
    query: {
      cursor?: string;
      limit?: number;
      address_from?: string | number;
      address_to?: string | number;
      access?: string;
      context?: string;
    },
    opts?: RequestOptions,
  ): Promise<TimelineBody> {
    return this.call(ROUTES.getRunTimeline, { params: { run_id: runId }, query }, TimelineBodySchema, opts);
  }

  getDiagnosticReport(runId: string, opts?: RequestOptions): Promise<DiagnosticReportBody> {
    return this.call(ROUTES.getDiagnosticReport, { params: { run_id: runId } }, DiagnosticReportBodySchema, opts);
  }

  getDiagnosticItems(
    runId: string,
    query: { section: string; limit?: number; cursor?: string },
    opts?: RequestOptions,
  ): Promise<DiagnosticItemsBody> {
    return this.call(ROUTES.getDiagnosticItems, { params: { run_id: runId }, query }, DiagnosticItemsBodySchema, opts);
  }

  getCrashReport(runId: string, context?: string, opts?: RequestOptions): Promise<CrashReportBody> {
    return this.call(ROUTES.getCrashReport, { params: { run_id: runId }, query: { context } }, CrashReportBodySchema, opts);
  }

  // ---- debug-stream captures ----

  prepareCapture(kind: CaptureKind, body: Record<string, unknown>, opts?: RequestOptions): Promise<PreparationBody> {
    // A source-linked preparation runs a clean build first.
    const route = kind === 'debug-stream' ? ROUTES.prepareDebugStreamCapture : ROUTES.prepareSourceLinkedCapture;
    return this.call(route, { body }, PreparationBodySchema, { timeoutMs: 120_000, ...opts });
  }

  cancelCapturePreparation(kind: CaptureKind, preparationId: string, opts?: RequestOptions): Promise<PreparationBody> {
    const route = kind === 'debug-stream' ? ROUTES.cancelDebugStreamPreparation : ROUTES.cancelSourceLinkedPreparation;
    return this.call(route, { params: { preparation_id: preparationId } }, PreparationBodySchema, opts);
  }

  /**
   * A capture start as the contract's tools answer it: the service queues a capture job (the
   * request does not stay open for the capture); the adapter follows the job, reporting datagrams
   * received through `onProgress`, and answers `{capture, run}` when it has ended — or the job's
   * error, with the code and HTTP status the service declares for it. A cancelled call cancels the
   * job (it stops before the stream starts, or ends with the capture).
   */
  async startCapture(
    kind: CaptureKind,
    preparationId: string,
    body: Record<string, unknown>,
    opts: RequestOptions & { onProgress?: (p: CaptureProgress) => void } = {},
  ): Promise<CaptureStartBody> {
    const route = kind === 'debug-stream' ? ROUTES.startDebugStreamCapture : ROUTES.startSourceLinkedCapture;
    const { signal, onProgress } = opts;
    const { job } = await this.call(route, { params: { preparation_id: preparationId }, body }, JobBodySchema, { signal });
    const done = await this.waitForJob(job.job_id, {
      signal,
      timeoutMs: opts.timeoutMs ?? CAPTURE_START_TIMEOUT_MS,
      onJob: (j) => {
        const p = j.progress as { datagrams?: number; max_datagrams?: number; phase?: string } | undefined;
        if (typeof p?.datagrams === 'number')
          onProgress?.({ datagrams: p.datagrams, max_datagrams: p.max_datagrams ?? null, phase: String(p.phase ?? '') });
      },
    });
    if (done.state !== 'finished' || done.error) throw jobError(done);
    const runId = done.run_ids[0];
    if (!runId) throw failure('invalid_service_response', 'service', `capture job ${done.job_id} finished without a run`);
    const { run } = await this.getRun(runId, { signal });
    const answer = { api_schema_version: API_SCHEMA_VERSION, capture: done.capture, run };
    const checked = CaptureStartBodySchema.safeParse(answer);
    if (!checked.success)
      throw failure(
        'invalid_service_response',
        'service',
        `capture job ${done.job_id}: the answer is not what API schema ${API_SCHEMA_VERSION} promises: ${describeZodError(checked.error)}`,
      );
    return answer as CaptureStartBody;
  }

  /** Cancels a job (a queued one never runs; a running one stops at its next safe step). */
  cancelJob(jobId: string, opts?: RequestOptions): Promise<JobBody> {
    return this.call(ROUTES.cancelJob, { params: { job_id: jobId }, body: {} }, JobBodySchema, opts);
  }

  /**
   * Reads the job until it has ended (finished, failed or cancelled), calling `onJob` with every
   * reading. A cancelled wait (signal) asks the service to cancel the job, then gives up.
   */
  async waitForJob(
    jobId: string,
    opts: { signal?: AbortSignal; timeoutMs: number; onJob?: (job: JobBody['job']) => void },
  ): Promise<JobBody['job']> {
    const deadline = performance.now() + opts.timeoutMs;
    for (;;) {
      if (opts.signal?.aborted) {
        await this.cancelJob(jobId).catch(() => undefined);
        throw failure('cancelled', 'adapter', `waiting for job ${jobId} was cancelled by the client; the job was asked to cancel`);
      }
      const { job } = await this.getJob(jobId);
      opts.onJob?.(job);
      if (job.state !== 'queued' && job.state !== 'running') return job;
      if (performance.now() >= deadline)
        throw failure('service_timeout', 'transport', `job ${jobId} did not end within ${opts.timeoutMs} ms (it is still ${job.state})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, JOB_POLL_MS);
        function done() {
          clearTimeout(t);
          opts.signal?.removeEventListener('abort', done);
          resolve();
        }
        opts.signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Close the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * THE way to the service: one call of a route of the API's route table (path parameters, query,
   * body), its answer checked against what the adapter relies on and returned as the service sent it.
   */
  call<S extends z.ZodType>(route: RouteSpec, input: RouteInput, check: S, opts?: RequestOptions): Promise<z.output<S>> {
    return this.request(route.method, requestTarget(route, input), check, input.body, opts);
  }

  /** Send one request and check the answer; the body is returned as the service sent it. */
  async request<S extends z.ZodType>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    schema: S,
    body: unknown,
    opts: RequestOptions = {},
  ): Promise<z.output<S>> {
    const { status, text } = await this.send(method, path, body, opts.signal, opts.timeoutMs);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw failure(
        'invalid_service_response',
        'transport',
        `${method} ${path} answered HTTP ${status} with a body that is not JSON`,
        status,
      );
    }
    if (status >= 400) throw serviceError(method, path, status, json);
    if (!isObject(json) || json.api_schema_version !== API_SCHEMA_VERSION) {
      throw failure(
        'api_schema_mismatch',
        'service',
        `${method} ${path}: expected api_schema_version ${API_SCHEMA_VERSION}, got ${JSON.stringify(isObject(json) ? json.api_schema_version : json)}`,
        status,
      );
    }
    const checked = schema.safeParse(json);
    if (!checked.success) {
      throw failure(
        'invalid_service_response',
        'service',
        `${method} ${path}: the answer is not what API schema ${API_SCHEMA_VERSION} promises: ${describeZodError(checked.error)}`,
        status,
      );
    }
    // The checked value may reorder keys; the caller gets the service's own object.
    return json as z.output<S>;
  }

  private send(
    method: string,
    path: string,
    body: unknown,
    signal?: AbortSignal,
    timeoutMs = this.timeoutMs,
  ): Promise<{ status: number; text: string }> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(failure('cancelled', 'adapter', `${method} ${path} was cancelled by the client`));
      const req = http.request(
        {
          host: this.host,
          port: this.port,
          method,
          path,
          agent: this.agent,
          headers: {
            accept: 'application/json',
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              req.destroy(
                failure(
                  'response_too_large',
                  'transport',
                  `${method} ${path}: the answer exceeds ${MAX_RESPONSE_BYTES} bytes`,
                  res.statusCode,
                ),
              );
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (err) => reject(transportError(this.origin, method, path, err)));
        },
      );
      const onAbort = () => req.destroy(failure('cancelled', 'adapter', `${method} ${path} was cancelled by the client`));
      signal?.addEventListener('abort', onAbort, { once: true });
      req.setTimeout(timeoutMs, () =>
        req.destroy(failure('service_timeout', 'transport', `${method} ${path}: no answer from ${this.origin} within ${timeoutMs} ms`)),
      );
      req.on('error', (err) => reject(transportError(this.origin, method, path, err)));
      req.on('close', () => signal?.removeEventListener('abort', onAbort));
      req.end(payload);
    });
  }
}

function failure(code: string, layer: ErrorLayer, message: string, httpStatus?: number): UltimateToolError {
  return new UltimateToolError({ code, layer, message, ...(httpStatus !== undefined ? { http_status: httpStatus } : {}) });
}

function transportError(origin: string, method: string, path: string, err: Error): UltimateToolError {
  if (err instanceof UltimateToolError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') {
    return failure(
      'service_unreachable',
      'transport',
      `cannot reach the Ultimate Tool service at ${origin} (connection refused); start it with \`ultimate-tool serve\``,
    );
  }
  return failure('transport_error', 'transport', `${method} ${path} to ${origin} failed: ${code ?? err.message}`);
}

/** A job that ended without success: its code and message as the service's answer for that code would carry them. */
function jobError(job: JobBody['job']): UltimateToolError {
  const e = (job.error ?? null) as { code?: string; message?: string; details?: Record<string, unknown> } | null;
  const code = e?.code ?? (job.state === 'cancelled' ? 'cancelled' : 'internal');
  const message = e?.message ?? `job ${job.job_id} ended ${job.state}`;
  return toolError(code, message, e?.details, httpStatusOf(code));
}

function toolError(code: string, message: string, details: Record<string, unknown> | undefined, status: number | undefined) {
  const layer: ErrorLayer =
    details?.layer === 'device' || DEVICE_ERROR_CODES.has(code) || code.startsWith('device_') ? 'device' : 'service';
  return new UltimateToolError({
    code,
    layer,
    message,
    ...(status !== undefined ? { http_status: status } : {}),
    ...(details ? { details } : {}),
  });
}

/** A 4xx/5xx answer: the service's own code and message, in the service or device layer. */
function serviceError(method: string, path: string, status: number, json: unknown): UltimateToolError {
  const checked = ServiceErrorBodySchema.safeParse(json);
  if (!checked.success) {
    return failure('invalid_service_response', 'service', `${method} ${path} answered HTTP ${status} without an API error body`, status);
  }
  const { code, message, details } = checked.data.error;
  return toolError(code, message, details, status);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
