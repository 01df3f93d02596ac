// The client of the Ultimate Tool service's HTTP API (API schema 13), driven by the service's own
// wire declaration (services/ultimate-tool/api/): one `call(route, input)` for every route, its
// answer checked against the route's declared response schema, and every failure an
// UltimateToolError that says in which layer it happened.
import http from 'node:http';
import { z } from 'zod';
import { describeZodError } from '../../src/index.js';
import { httpStatusOf } from '../../services/ultimate-tool/api/errors.js';
import { type RouteInput, type RouteName, requestTarget } from '../../services/ultimate-tool/api/paths.js';
import { ROUTES } from '../../services/ultimate-tool/api/routes.js';
import { API_SCHEMA_VERSION, CaptureStartPayloadSchema, ErrorBodySchema, type Job } from '../../services/ultimate-tool/api/schemas.js';
import { TOOL_OF_ROUTE, TOOLS, type ToolSpec } from '../../services/ultimate-tool/api/tools.js';
import { type ErrorLayer, UltimateToolError } from './envelope.js';
import { inToolTerms } from './tool-terms.js';
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

/** What a route answers on success, as its response schema types it. */
export type RouteAnswer<N extends RouteName> = z.output<(typeof ROUTES)[N]['response']>;
type CaptureStartBody = z.output<typeof CaptureStartPayloadSchema>;

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

  /**
   * THE way to the service: one call of a route of the API's route table (path parameters, query,
   * body), its answer checked against the route's response schema and returned as the service sent
   * it. A route that may take long (a build, a re-probe) gets the time its tool declares.
   */
  call<N extends RouteName>(route: N, input: RouteInput = {}, opts: RequestOptions = {}): Promise<RouteAnswer<N>> {
    const spec = ROUTES[route];
    const tool = TOOL_OF_ROUTE[route];
    const timeoutMs = opts.timeoutMs ?? (tool && (TOOLS[tool] as ToolSpec).answerWithinMs);
    return this.request(spec.method, requestTarget(spec, input), spec.response, input.body, {
      ...opts,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    }) as Promise<RouteAnswer<N>>;
  }

  /**
   * A capture start as the contract's tools answer it: the service queues a capture job (the
   * request does not stay open for the capture); the adapter follows the job, reporting datagrams
   * received through `onProgress`, and answers `{capture, run}` when it has ended — or the job's
   * error, with the code and HTTP status the service declares for it. A cancelled call cancels the
   * job (it stops before the stream starts, or ends with the capture).
   */
  async startCapture(
    route: 'startDebugStreamCapture' | 'startSourceLinkedCapture',
    input: RouteInput,
    opts: RequestOptions & { onProgress?: (p: CaptureProgress) => void } = {},
  ): Promise<CaptureStartBody> {
    const { signal, onProgress } = opts;
    const { job } = await this.call(route, input, { signal });
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
    const { run } = await this.call('getRun', { params: { run_id: runId } }, { signal });
    const answer = { api_schema_version: API_SCHEMA_VERSION, capture: (done as { capture?: unknown }).capture, run };
    const checked = CaptureStartPayloadSchema.safeParse(answer);
    if (!checked.success)
      throw failure(
        'invalid_service_response',
        'service',
        `capture job ${done.job_id}: the answer is not what API schema ${API_SCHEMA_VERSION} promises: ${describeZodError(checked.error)}`,
      );
    return answer as CaptureStartBody;
  }

  /** Cancels a job (a queued one never runs; a running one stops at its next safe step). */
  cancelJob(jobId: string, opts?: RequestOptions): Promise<RouteAnswer<'cancelJob'>> {
    return this.call('cancelJob', { params: { job_id: jobId }, body: {} }, opts);
  }

  /**
   * Reads the job until it has ended (finished, failed or cancelled), calling `onJob` with every
   * reading. A cancelled wait (signal) asks the service to cancel the job, then gives up.
   */
  async waitForJob(jobId: string, opts: { signal?: AbortSignal; timeoutMs: number; onJob?: (job: Job) => void }): Promise<Job> {
    const deadline = performance.now() + opts.timeoutMs;
    for (;;) {
      if (opts.signal?.aborted) {
        await this.cancelJob(jobId).catch(() => undefined);
        throw failure('cancelled', 'adapter', `waiting for job ${jobId} was cancelled by the client; the job was asked to cancel`);
      }
      const { job } = await this.call('getJob', { params: { job_id: jobId } });
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
function jobError(job: Job): UltimateToolError {
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
    // Through MCP, the next step is a tool, not an HTTP route (tool-terms.ts).
    message: inToolTerms(message),
    ...(status !== undefined ? { http_status: status } : {}),
    ...(details ? { details } : {}),
  });
}

/** A 4xx/5xx answer: the service's own code and message, in the service or device layer. */
function serviceError(method: string, path: string, status: number, json: unknown): UltimateToolError {
  const checked = ServiceErrorBody.safeParse(json);
  if (!checked.success) {
    return failure('invalid_service_response', 'service', `${method} ${path} answered HTTP ${status} without an API error body`, status);
  }
  const { code, message, details } = checked.data.error;
  return toolError(code, message, details, status);
}

/**
 * The service's failure body, as loose as a failure may come: any code (a job-only one too), any
 * details; the version and the code, message and details fields as API schema 13 declares them.
 */
const ServiceErrorBody = ErrorBodySchema.extend({ error: ErrorBodySchema.shape.error.extend({ code: z.string().min(1) }) });

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
