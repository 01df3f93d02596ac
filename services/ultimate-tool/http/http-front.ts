// The HTTP front of the service: the request guard every request passes (Host, JSON POSTs), the
// dashboard's static files, matching a request to a route of the table, reading the body (64 KiB
// at most), and turning what a handler returned or threw into the JSON answer — a ServiceError
// with its code's one status (api/errors.ts), anything else `internal` (logged, never shown).
import type http from 'node:http';
import { LOOPBACK, type Logger } from '../../../common/index.js';
import { API_SCHEMA_VERSION } from '../api/schemas.js';
import { ROUTES } from '../api/routes.js';
import { DashboardAssets, isDashboardPath } from '../dashboard/dashboard-assets.js';
import { checkHost, checkJsonBody, expectedHost } from '../dashboard/request-guard.js';
import { API_CSP, DASHBOARD_CSP, commonSecurityHeaders } from '../dashboard/security-headers.js';
import type { BoundRoute, Reply } from './route-binding.js';
import { ServiceError } from './service-error.js';
import { CorruptRowError } from '../store/store.js';

const MAX_BODY_BYTES = 64 * 1024;
/**
 * How long a request body may take to arrive whole (64 KiB at most over loopback). A client that
 * stops mid-body gets 408 and the connection is closed, instead of holding it until Node's own
 * request timeout (5 minutes) tears it down and the read fails as an "internal" error.
 */
export const BODY_DEADLINE_MS = 10_000;

/**
 * The `Retry-After` header of an error answer (RFC 9110 §10.2.3: delay-seconds, a non-negative
 * integer), from the one figure the error carries in its body, `details.retry_after_ms`, rounded
 * up so a client that waits the header's seconds is never early; at least 1. Set here, for every
 * error, so every answer with a retry figure has the header and header and body cannot disagree.
 *
 * Today `probe_rate_limited` (429) carries the figure (probes.ts: when the token bucket admits the
 * next probe — exact). `queue_full` (429) carries none, on purpose: the queue frees when a job
 * ends, and how long the jobs ahead take (builds, repeats, a capture's limits, a device that does
 * not answer) is not known when one is refused; any number would be a guess that sends clients
 * back on a fixed beat. Its answer says to try again when jobs have ended (GET /v13/jobs shows them).
 */
export function retryAfterHeader(e: ServiceError): string | undefined {
  const ms = e.details?.retry_after_ms;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return undefined;
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

export class HttpFront {
  readonly #routes: BoundRoute[];
  readonly #port: () => number;
  readonly #log: Logger;
  readonly #assets = new DashboardAssets();
  readonly #bodyDeadlineMs: number;

  constructor(routes: BoundRoute[], port: () => number, log: Logger, opts: { bodyDeadlineMs?: number } = {}) {
    this.#routes = routes;
    this.#port = port;
    this.#log = log;
    this.#bodyDeadlineMs = opts.bodyDeadlineMs ?? BODY_DEADLINE_MS;
  }

  async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let reply: Reply;
    let retryAfter: string | undefined;
    let closeConnection = false;
    try {
      // Node keeps the first of several Host headers; RFC 9112 §3.2 says such a request gets 400.
      const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === 'host').length;
      if (hosts > 1)
        throw new ServiceError('invalid-request', `the request has ${hosts} Host headers; exactly one is expected (RFC 9112 §3.2)`, 400);
      checkHost(req.headers.host, expectedHost(LOOPBACK, this.#port()));
      if (this.#serveDashboard(req, res)) return;
      reply = await this.#dispatch(req);
    } catch (e) {
      req.resume(); // a request refused before its body was read must not stall the connection
      if (e instanceof ServiceError) {
        retryAfter = retryAfterHeader(e);
        // The rest of a late body would be read as the next request: the connection ends with this answer.
        closeConnection = e.code === 'request_timeout';
        reply = {
          status: e.status,
          body: {
            api_schema_version: API_SCHEMA_VERSION,
            error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) },
          },
        };
      } else if (e instanceof ClientGoneError) {
        this.#log.info(`${req.method} ${req.url}: ${e.message}`);
        reply = { status: 400, body: { api_schema_version: API_SCHEMA_VERSION, error: { code: 'invalid-request', message: e.message } } };
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
      ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
      ...(closeConnection ? { connection: 'close' } : {}),
    });
    res.end(text, closeConnection ? () => req.socket.destroy() : undefined);
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
    const text = (await this.#bodyBytes(req)).toString('utf8');
    if (text.trim() === '') return {};
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new ServiceError('invalid-request', `request body is not JSON: ${(e as Error).message}`, 400);
    }
  }

  /** The body, whole within the deadline (else request_timeout), at most MAX_BODY_BYTES (else body_too_large). */
  #bodyBytes(req: http.IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted);
        fn();
      };
      const onData = (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES)
          settle(() => reject(new ServiceError('body_too_large', `request body larger than ${MAX_BODY_BYTES} bytes`, 413)));
        else chunks.push(c);
      };
      const onEnd = () => settle(() => resolve(Buffer.concat(chunks)));
      const onError = (e: Error) => settle(() => reject(new ClientGoneError(e.message)));
      const onAborted = () => settle(() => reject(new ClientGoneError('the client closed the connection mid-body')));
      const timer = setTimeout(
        () =>
          settle(() =>
            reject(
              new ServiceError(
                'request_timeout',
                `the request body did not arrive whole within ${this.#bodyDeadlineMs} ms (${size} byte(s) received` +
                  `${req.headers['content-length'] ? ` of ${req.headers['content-length']} declared` : ''}); send the whole body at once`,
                408,
              ),
            ),
          ),
        this.#bodyDeadlineMs,
      );
      req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted);
    });
  }
}

/** The client went away while its body was being read: nobody waits for an answer; not a service fault. */
class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
}
