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

/** A capture start holds the request open for the whole capture (at most its duration bound). */
export const CAPTURE_START_TIMEOUT_MS = 10 * 60 * 1000;

export type CaptureKind = 'debug-stream' | 'source-linked';

/**
 * One method per route of ULTIMATE-API.md. Connections are kept alive, so a call costs one
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
    return this.request('GET', '/v13/project', ProjectBodySchema, undefined, opts);
  }

  listTargets(opts?: RequestOptions): Promise<TargetsBody> {
    return this.request('GET', '/v13/targets', TargetsBodySchema, undefined, opts);
  }

  listRuns(query: ListRunsQuery = {}, opts?: RequestOptions): Promise<RunsBody> {
    return this.request('GET', `/v13/runs${queryString(query)}`, RunsBodySchema, undefined, opts);
  }

  getRun(runId: string, opts?: RequestOptions): Promise<RunBody> {
    return this.request('GET', `/v13/runs/${enc(runId)}`, RunBodySchema, undefined, opts);
  }

  readEvidence(runId: string, name: string, opts?: RequestOptions): Promise<EvidenceBody> {
    return this.request('GET', `/v13/runs/${enc(runId)}/evidence/${enc(name)}`, EvidenceBodySchema, undefined, opts);
  }

  resolveAddress(runId: string, address: string, context?: string, opts?: RequestOptions): Promise<ResolveBody> {
    const path = `/v13/runs/${enc(runId)}/resolve${queryString({ address, context })}`;
    return this.request('GET', path, ResolveBodySchema, undefined, opts);
  }

  compareRuns(baseline: string, candidate: string, context?: string, opts?: RequestOptions): Promise<ComparisonBody> {
    const path = `/v13/comparisons/runs${queryString({ baseline, candidate, context })}`;
    return this.request('GET', path, ComparisonBodySchema, undefined, opts);
  }

  compareRunCheckpoints(baseline: string, candidate: string, opts?: RequestOptions): Promise<CheckpointComparisonBody> {
    const path = `/v13/comparisons/checkpoints${queryString({ baseline, candidate })}`;
    return this.request('GET', path, CheckpointComparisonBodySchema, undefined, opts);
  }

  listCheckpointComparisons(limit?: number, opts?: RequestOptions): Promise<CheckpointComparisonsBody> {
    return this.request('GET', `/v13/checkpoint-comparisons${queryString({ limit })}`, CheckpointComparisonsBodySchema, undefined, opts);
  }

  getCheckpointComparison(comparisonId: string, opts?: RequestOptions): Promise<CheckpointComparisonRecordBody> {
    return this.request('GET', `/v13/checkpoint-comparisons/${enc(comparisonId)}`, CheckpointComparisonRecordBodySchema, undefined, opts);
  }

  getJob(jobId: string, opts?: RequestOptions): Promise<JobBody> {
    return this.request('GET', `/v13/jobs/${enc(jobId)}`, JobBodySchema, undefined, opts);
  }

  getActiveJob(opts?: RequestOptions): Promise<ActiveJobBody> {
    return this.request('GET', '/v13/jobs/active', ActiveJobBodySchema, undefined, opts);
  }

  probeUltimate(body: { strict_gate?: boolean } = {}, opts?: RequestOptions): Promise<ProbeBody> {
    return this.request('POST', '/v13/probes', ProbeBodySchema, body, opts);
  }

  startTestJob(body: StartJobRequest, opts?: RequestOptions): Promise<JobBody> {
    return this.request('POST', '/v13/jobs', JobBodySchema, body, opts);
  }

  // ---- the trusted-native flow (SERVICE-API.md "Native") ----

  createNativePreparation(body: { program: string }, opts?: RequestOptions): Promise<NativePreparationBody> {
    // A preparation may build the program with the RISC-V toolchain.
    return this.request('POST', '/v13/native/preparations', NativePreparationBodySchema, body, { timeoutMs: 660_000, ...opts });
  }

  createNativeIntent(body: Record<string, unknown>, opts?: RequestOptions): Promise<NativeIntentBody> {
    return this.request('POST', '/v13/native/intents', NativeIntentBodySchema, body, opts);
  }

  getNativeIntent(intentId: string, opts?: RequestOptions): Promise<NativeIntentBody> {
    return this.request('GET', `/v13/native/intents/${enc(intentId)}`, NativeIntentBodySchema, undefined, opts);
  }

  revokeNativeIntent(intentId: string, opts?: RequestOptions): Promise<NativeIntentBody> {
    return this.request('POST', `/v13/native/intents/${enc(intentId)}/revoke`, NativeIntentBodySchema, {}, opts);
  }

  startNativeRun(body: { intent_id: string; device_host: string }, opts?: RequestOptions): Promise<NativeRunStartBody> {
    return this.request('POST', '/v13/native/runs', NativeRunStartBodySchema, body, { timeoutMs: 120_000, ...opts });
  }

  startNativeHealthCheck(body: { intent_id: string; run_id: string; device_host: string }, opts?: RequestOptions): Promise<NativeJobBody> {
    return this.request('POST', '/v13/native/health-checks', NativeJobBodySchema, body, { timeoutMs: 120_000, ...opts });
  }

  startRiscvSmokeJob(body: Record<string, unknown>, opts?: RequestOptions): Promise<NativeJobBody> {
    return this.request('POST', '/v13/native/smoke-jobs', NativeJobBodySchema, body, { timeoutMs: 660_000, ...opts });
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
    return this.request('GET', `/v13/runs/${enc(runId)}/timeline${queryString(query)}`, TimelineBodySchema, undefined, opts);
  }

  getDiagnosticReport(runId: string, opts?: RequestOptions): Promise<DiagnosticReportBody> {
    return this.request('GET', `/v13/runs/${enc(runId)}/diagnostic-report`, DiagnosticReportBodySchema, undefined, opts);
  }

  getDiagnosticItems(
    runId: string,
    query: { section: string; limit?: number; cursor?: string },
    opts?: RequestOptions,
  ): Promise<DiagnosticItemsBody> {
    return this.request('GET', `/v13/runs/${enc(runId)}/diagnostic-items${queryString(query)}`, DiagnosticItemsBodySchema, undefined, opts);
  }

  getCrashReport(runId: string, context?: string, opts?: RequestOptions): Promise<CrashReportBody> {
    return this.request('GET', `/v13/runs/${enc(runId)}/crash-report${queryString({ context })}`, CrashReportBodySchema, undefined, opts);
  }

  // ---- debug-stream captures ----

  prepareCapture(kind: CaptureKind, body: Record<string, unknown>, opts?: RequestOptions): Promise<PreparationBody> {
    // A source-linked preparation runs a clean build first.
    return this.request('POST', `/v13/captures/${kind}/preparations`, PreparationBodySchema, body, { timeoutMs: 120_000, ...opts });
  }

  cancelCapturePreparation(kind: CaptureKind, preparationId: string, opts?: RequestOptions): Promise<PreparationBody> {
    return this.request('DELETE', `/v13/captures/${kind}/preparations/${enc(preparationId)}`, PreparationBodySchema, undefined, opts);
  }

  startCapture(kind: CaptureKind, preparationId: string, body: Record<string, unknown>, opts?: RequestOptions): Promise<CaptureStartBody> {
    return this.request('POST', `/v13/captures/${kind}/preparations/${enc(preparationId)}/start`, CaptureStartBodySchema, body, {
      timeoutMs: CAPTURE_START_TIMEOUT_MS,
      ...opts,
    });
  }

  /** Close the kept-alive connections. */
  close(): void {
    this.agent.destroy();
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

/** A 4xx/5xx answer: the service's own code and message, in the service or device layer. */
function serviceError(method: string, path: string, status: number, json: unknown): UltimateToolError {
  const checked = ServiceErrorBodySchema.safeParse(json);
  if (!checked.success) {
    return failure('invalid_service_response', 'service', `${method} ${path} answered HTTP ${status} without an API error body`, status);
  }
  const { code, message, details } = checked.data.error;
  const layerHint = details?.layer;
  const layer: ErrorLayer = layerHint === 'device' || DEVICE_ERROR_CODES.has(code) || code.startsWith('device_') ? 'device' : 'service';
  return new UltimateToolError({ code, layer, message, http_status: status, ...(details ? { details } : {}) });
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

function queryString(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
