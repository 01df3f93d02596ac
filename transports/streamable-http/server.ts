import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../common/logger.js';
import { DEFAULT_MAX_LINE_BYTES } from '../ndjson.js';
import type { JsonRpcMessage, MessageExtraInfo } from '../transport.js';
import { HttpErrorCode } from './http-errors.js';
import { StreamableHttpServerTransport, writeJsonError } from './server-transport.js';
import { checkHost, checkOrigin, isLoopbackHost, loopbackHostnames, type BearerAuth } from './guards.js';
import { decodeHeaderValue } from './header-encoding.js';
import { HTTP_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION, isModernVersion } from './versions.js';

export interface StreamableHttpServerOptions {
  /**
   * Called for every new transport: one per 2025-era session (at its `initialize`) and one, once,
   * for every stateless 2026-07-28 request. Connect it to your server, e.g.
   * `connect: (transport) => server.connect(transport)`. A rejection answers that request 500.
   */
  connect: (transport: StreamableHttpServerTransport) => unknown;
  /** Interface to bind (default 127.0.0.1). A non-loopback address needs `auth` or `allowUnauthenticatedRemote`. */
  host?: string;
  /** Port (default 0: any free port; the listener tells which). */
  port?: number;
  /** The MCP endpoint's path (default /mcp). */
  path?: string;
  /**
   * Host header names accepted (no port), against DNS rebinding. Default when bound to loopback:
   * localhost, 127.0.0.1, [::1]; bound elsewhere: any (authentication protects it).
   */
  allowedHosts?: readonly string[];
  /** Origins accepted when a request carries Origin (exact, e.g. "https://app.example"). Loopback origins always are. */
  allowedOrigins?: readonly string[];
  /** Bearer-token check for every request (401 with WWW-Authenticate otherwise). */
  auth?: BearerAuth;
  /** Serve a non-loopback address without `auth`. Off by default: anyone who can reach the port could use the server. */
  allowUnauthenticatedRemote?: boolean;
  /** Largest POST body accepted (default 32 MiB, the stdio line cap): beyond it, 413. */
  maxBodyBytes?: number;
  /** Versions accepted in MCP-Protocol-Version (default: every version this library knows). */
  protocolVersions?: readonly string[];
  /** At most this many 2025-era sessions at once (default 1000): beyond it, new sessions get 503. */
  maxSessions?: number;
  /** A session with no request and no open stream for this long is closed (default 30 min). */
  sessionIdleMs?: number;
  /** SSE `retry` sent on resumable streams, in ms (default 1000). */
  retryMs?: number;
  /** Events a session keeps for Last-Event-ID resumption (default 1000). */
  maxBufferedEvents?: number;
  /**
   * An SSE comment on each open subscriptions/listen stream this often, in ms (default 15000; 0:
   * never), so idle listens outlive proxies' and clients' idle timeouts (Node's fetch gives up on
   * a body silent for 5 minutes).
   */
  keepAliveMs?: number;
  logger?: Logger;
}

export interface StreamableHttpHandler {
  /** Answer one HTTP request (mount it in your own server for the endpoint's path). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Open 2025-era sessions. */
  readonly sessionCount: number;
  /** Close every session and the stateless transport. */
  close(): Promise<void>;
}

export interface StreamableHttpListener extends StreamableHttpHandler {
  /** The endpoint's URL, e.g. http://127.0.0.1:8123/mcp. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly server: Server;
}

interface Session {
  readonly transport: StreamableHttpServerTransport;
  timer?: NodeJS.Timeout;
}

const SESSION_HEADER = 'mcp-session-id';
const VERSION_HEADER = 'mcp-protocol-version';
const NAMED_METHODS: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/**
 * The Streamable HTTP endpoint as a request handler: validation (Host, Origin, auth, method,
 * Accept, Content-Type, size, JSON, protocol version, the 2026 era's mirrored headers), then
 * routing to the session's transport (2025 era) or the stateless one (2026-07-28).
 */
export function createStreamableHttpHandler(options: StreamableHttpServerOptions): StreamableHttpHandler {
  const path = options.path ?? '/mcp';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_LINE_BYTES;
  const versions = options.protocolVersions ?? HTTP_PROTOCOL_VERSIONS;
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const retryMs = options.retryMs ?? 1000;
  const maxBufferedEvents = options.maxBufferedEvents ?? 1000;
  const log = options.logger;
  const onDebug = log ? (m: string) => log.debug(m) : undefined;
  const allowedHosts = options.allowedHosts ?? (isLoopbackHost(options.host ?? '127.0.0.1') ? loopbackHostnames(options.host) : undefined);
  const sessions = new Map<string, Session>();
  let stateless: Promise<StreamableHttpServerTransport> | undefined;
  let closed = false;

  const armIdle = (id: string, session: Session) => {
    if (session.timer) clearTimeout(session.timer);
    session.timer = setTimeout(() => {
      if (session.transport.openConnections > 0) return armIdle(id, session);
      log?.debug(`http: session ${id} idle for ${idleMs} ms; closed`);
      void session.transport.close();
    }, idleMs);
    session.timer.unref();
  };

  const statelessTransport = () => {
    stateless ??= (async () => {
      const transport = new StreamableHttpServerTransport({
        mode: 'stateless',
        retryMs,
        maxBufferedEvents,
        keepAliveMs: options.keepAliveMs ?? 15_000,
        onDebug,
      });
      transport.whenClosed(() => {
        stateless = undefined;
      });
      await options.connect(transport);
      return transport;
    })();
    stateless.catch(() => {
      stateless = undefined;
    });
    return stateless;
  };

  const openSession = async (): Promise<Session> => {
    const id = randomUUID();
    const transport = new StreamableHttpServerTransport({ mode: 'session', sessionId: id, retryMs, maxBufferedEvents, onDebug });
    const session: Session = { transport };
    sessions.set(id, session);
    transport.whenClosed(() => {
      if (session.timer) clearTimeout(session.timer);
      sessions.delete(id);
    });
    try {
      await options.connect(transport);
    } catch (err) {
      sessions.delete(id);
      throw err;
    }
    armIdle(id, session);
    return session;
  };

  const supportedError = (res: ServerResponse, requested: string, id: unknown = null) =>
    writeJsonError(
      res,
      400,
      jsonId(id),
      HttpErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${requested} (supported: ${versions.join(', ')})`,
      { supported: [...versions], requested },
    );

  async function handlePost(req: IncomingMessage, res: ServerResponse, extra: MessageExtraInfo, version: string | undefined) {
    if (!accepts(req.headers.accept, 'application/json') || !accepts(req.headers.accept, 'text/event-stream')) {
      return writeJsonError(
        res,
        406,
        null,
        HttpErrorCode.ServerError,
        'Not Acceptable: the Accept header must list both application/json and text/event-stream',
      );
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      return writeJsonError(
        res,
        415,
        null,
        HttpErrorCode.ServerError,
        `Unsupported Media Type: Content-Type must be application/json, got ${type ? JSON.stringify(type) : 'none'}`,
      );
    }
    const body = await readBody(req, res, maxBodyBytes);
    if (body === undefined) return;
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch (err) {
      return writeJsonError(res, 400, null, HttpErrorCode.ParseError, `Parse error: ${(err as Error).message}`);
    }
    if (Array.isArray(message)) {
      return writeJsonError(
        res,
        400,
        null,
        HttpErrorCode.InvalidRequest,
        'Invalid Request: JSON-RPC batches are not supported; POST one message per request',
      );
    }
    if (message === null || typeof message !== 'object') {
      return writeJsonError(
        res,
        400,
        null,
        HttpErrorCode.InvalidRequest,
        'Invalid Request: the body must be one JSON-RPC message (a JSON object)',
      );
    }
    const m = message as JsonRpcMessage;
    const isRequest = typeof m.method === 'string' && m.id !== undefined;
    const isNotification = typeof m.method === 'string' && m.id === undefined;
    const isResponse = m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);
    if (!isRequest && !isNotification && !isResponse) {
      return writeJsonError(
        res,
        400,
        jsonId(m.id),
        HttpErrorCode.InvalidRequest,
        'Invalid Request: expected a JSON-RPC request, notification or response',
      );
    }
    if (isRequest && typeof m.id !== 'string' && !(typeof m.id === 'number' && Number.isFinite(m.id))) {
      return writeJsonError(res, 400, null, HttpErrorCode.InvalidRequest, 'Invalid Request: "id" must be a string or a number');
    }

    const sessionId = header(req, SESSION_HEADER);
    // 2026-07-28: no sessions; a session id on a modern request is ignored, as the spec says.
    if (version !== undefined && isModernVersion(version)) {
      if (isResponse) {
        return writeJsonError(
          res,
          400,
          null,
          HttpErrorCode.InvalidRequest,
          `Invalid Request: a ${version} client sends no JSON-RPC responses`,
        );
      }
      if (isRequest) {
        const mismatch = checkMirroredHeaders(req, m, version);
        if (mismatch) return writeJsonError(res, 400, jsonId(m.id), HttpErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
      }
      return dispatch(await statelessTransport(), m, res, extra, isRequest);
    }
    if (sessionId === undefined) {
      if (m.method === 'initialize') {
        if (sessions.size >= maxSessions) {
          return writeJsonError(
            res,
            503,
            jsonId(m.id),
            HttpErrorCode.ServerError,
            `Service Unavailable: the server holds its maximum of ${maxSessions} sessions; retry later`,
            undefined,
            { 'retry-after': '5' },
          );
        }
        if (!isRequest)
          return writeJsonError(res, 400, null, HttpErrorCode.InvalidRequest, 'Invalid Request: initialize is a request and needs an "id"');
        const session = await openSession();
        return dispatch(session.transport, m, res, extra, true);
      }
      return writeJsonError(
        res,
        400,
        jsonId(m.id),
        HttpErrorCode.ServerError,
        `Bad Request: no Mcp-Session-Id header. Start a session with an initialize request, or send MCP-Protocol-Version: ${MODERN_PROTOCOL_VERSION} (with the request's _meta) to be served statelessly`,
      );
    }
    const session = sessions.get(sessionId);
    if (!session) return sessionNotFound(res, sessionId, m.id);
    if (m.method === 'initialize') {
      return writeJsonError(
        res,
        400,
        jsonId(m.id),
        HttpErrorCode.InvalidRequest,
        'Invalid Request: this session is already initialized; send initialize without Mcp-Session-Id to start a new one',
      );
    }
    armIdle(sessionId, session);
    return dispatch(session.transport, m, res, extra, isRequest);
  }

  function dispatch(
    transport: StreamableHttpServerTransport,
    m: JsonRpcMessage,
    res: ServerResponse,
    extra: MessageExtraInfo,
    isRequest: boolean,
  ) {
    if (!isRequest) {
      transport.handleOther(m, extra);
      res.writeHead(202).end();
      return;
    }
    if (!transport.handleRequest(m, res, extra)) {
      writeJsonError(
        res,
        409,
        jsonId(m.id),
        HttpErrorCode.InvalidRequest,
        `Invalid Request: id ${JSON.stringify(m.id)} is already in use by a request in progress`,
      );
    }
  }

  function handleGet(req: IncomingMessage, res: ServerResponse, version: string | undefined) {
    if (version !== undefined && isModernVersion(version)) {
      return writeJsonError(
        res,
        405,
        null,
        HttpErrorCode.ServerError,
        `Method Not Allowed: ${version} has no GET stream; use subscriptions/listen`,
        undefined,
        { allow: 'POST' },
      );
    }
    if (!accepts(req.headers.accept, 'text/event-stream')) {
      return writeJsonError(res, 406, null, HttpErrorCode.ServerError, 'Not Acceptable: the Accept header must list text/event-stream');
    }
    const sessionId = header(req, SESSION_HEADER);
    if (sessionId === undefined) {
      return writeJsonError(
        res,
        400,
        null,
        HttpErrorCode.ServerError,
        'Bad Request: a GET stream belongs to a session; send its Mcp-Session-Id header',
      );
    }
    const session = sessions.get(sessionId);
    if (!session) return sessionNotFound(res, sessionId, null);
    armIdle(sessionId, session);
    session.transport.handleGet(res, header(req, 'last-event-id'));
  }

  async function handleDelete(req: IncomingMessage, res: ServerResponse) {
    const sessionId = header(req, SESSION_HEADER);
    if (sessionId === undefined) {
      return writeJsonError(
        res,
        400,
        null,
        HttpErrorCode.ServerError,
        'Bad Request: DELETE ends a session; send its Mcp-Session-Id header',
      );
    }
    const session = sessions.get(sessionId);
    if (!session) return sessionNotFound(res, sessionId, null);
    await session.transport.close();
    res.writeHead(200).end();
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if ((q < 0 ? url : url.slice(0, q)) !== path) {
      return writeJsonError(res, 404, null, HttpErrorCode.ServerError, `Not Found: the MCP endpoint is ${path}`);
    }
    const hostProblem = checkHost(req, allowedHosts);
    if (hostProblem) return writeJsonError(res, hostProblem.status, null, HttpErrorCode.ServerError, hostProblem.message);
    const originProblem = checkOrigin(req.headers.origin, options.allowedOrigins);
    if (originProblem) return writeJsonError(res, 403, null, HttpErrorCode.ServerError, originProblem);
    let authInfo: unknown;
    if (options.auth) {
      const outcome = await options.auth.check(req);
      if (!outcome.ok) {
        return writeJsonError(res, 401, null, HttpErrorCode.ServerError, `Unauthorized: ${outcome.reason}`, undefined, {
          'www-authenticate': outcome.challenge,
        });
      }
      authInfo = outcome.authInfo;
    }
    const version = header(req, VERSION_HEADER);
    if (version !== undefined && !versions.includes(version)) return supportedError(res, version);
    const extra: MessageExtraInfo =
      authInfo === undefined ? { requestInfo: { headers: req.headers } } : { requestInfo: { headers: req.headers }, authInfo };
    switch (req.method) {
      case 'POST':
        return handlePost(req, res, extra, version);
      case 'GET':
        return handleGet(req, res, version);
      case 'DELETE':
        if (version !== undefined && isModernVersion(version)) {
          return writeJsonError(
            res,
            405,
            null,
            HttpErrorCode.ServerError,
            `Method Not Allowed: ${version} has no sessions to delete`,
            undefined,
            { allow: 'POST' },
          );
        }
        return handleDelete(req, res);
      default:
        return writeJsonError(
          res,
          405,
          null,
          HttpErrorCode.ServerError,
          `Method Not Allowed: the MCP endpoint takes POST, GET and DELETE, not ${req.method}`,
          undefined,
          {
            allow: 'POST, GET, DELETE',
          },
        );
    }
  }

  return {
    handle(req, res) {
      if (closed) return writeJsonError(res, 503, null, HttpErrorCode.ServerError, 'Service Unavailable: the server is shutting down');
      route(req, res).catch((err: Error) => {
        log?.error(`http: ${req.method} ${req.url} failed: ${err.stack ?? err.message}`);
        writeJsonError(res, 500, null, -32603, 'Internal error');
      });
    },
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      closed = true;
      const all = [...sessions.values()].map((s) => s.transport.close());
      const s = stateless;
      stateless = undefined;
      await Promise.all([...all, s?.then((t) => t.close()).catch(() => {})]);
    },
  };
}

/**
 * Serve MCP over Streamable HTTP on `host:port` (default 127.0.0.1, any free port). Refuses a
 * non-loopback address unless `auth` is configured (or `allowUnauthenticatedRemote`).
 */
export async function serveStreamableHttp(options: StreamableHttpServerOptions): Promise<StreamableHttpListener> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.auth && !options.allowUnauthenticatedRemote) {
    throw new Error(
      `refusing to serve MCP on ${host} without authentication: anyone who can reach it could use the server. Configure a bearer token (auth), or bind a loopback address (127.0.0.1, ::1, localhost)`,
    );
  }
  const handler = createStreamableHttpHandler({ ...options, host });
  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => handler.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${options.path ?? '/mcp'}`,
    host,
    port,
    server,
    handle: handler.handle,
    get sessionCount() {
      return handler.sessionCount;
    },
    async close() {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      await handler.close();
      server.closeAllConnections();
      await closing;
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function jsonId(id: unknown): string | number | null {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function sessionNotFound(res: ServerResponse, sessionId: string, id: unknown) {
  writeJsonError(
    res,
    404,
    jsonId(id),
    HttpErrorCode.ServerError,
    `Not Found: no session ${JSON.stringify(sessionId)} (it ended or never existed); start a new one with initialize`,
  );
}

/** Does this Accept header admit `type`? Wildcards count; q=0 refuses. */
export function accepts(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  const [major] = type.split('/');
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    const r = range!.trim();
    if (r === type || r === '*/*' || r === `${major}/*`) return true;
  }
  return false;
}

/** Read the body up to `limit` bytes; past it (or a Content-Length above it) answer 413 and return undefined. */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer | undefined> {
  const tooLarge = () =>
    writeJsonError(
      res,
      413,
      null,
      HttpErrorCode.InvalidRequest,
      `Payload Too Large: the body exceeds the limit of ${limit} bytes`,
      undefined,
      { connection: 'close' },
    );
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    tooLarge();
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        tooLarge();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => {
      if (!over) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.once('error', reject);
  });
}

/**
 * 2026-07-28: MCP-Protocol-Version must equal the body's `_meta` version, Mcp-Method the method,
 * and Mcp-Name (base64-sentinel decoded) the tool/prompt name or resource URI. Returns what is
 * wrong, or undefined.
 */
function checkMirroredHeaders(req: IncomingMessage, m: JsonRpcMessage, version: string): string | undefined {
  const params = (m.params ?? {}) as Record<string, unknown>;
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  const bodyVersion = meta['io.modelcontextprotocol/protocolVersion'];
  if (bodyVersion !== undefined && bodyVersion !== version) {
    return `MCP-Protocol-Version header value '${version}' does not match body value '${String(bodyVersion)}' (params._meta["io.modelcontextprotocol/protocolVersion"])`;
  }
  const method = header(req, 'mcp-method');
  if (method === undefined) return `the Mcp-Method header is required (expected '${String(m.method)}')`;
  if (method !== m.method) return `Mcp-Method header value '${method}' does not match body value '${String(m.method)}'`;
  const field = NAMED_METHODS[m.method as string];
  if (field) {
    const raw = header(req, 'mcp-name');
    const expected = params[field];
    if (raw === undefined) return `the Mcp-Name header is required for ${m.method} (expected '${String(expected)}')`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `Mcp-Name header value '${raw}' is not valid (plain visible ASCII, or =?base64?…?=)`;
    if (decoded !== expected) return `Mcp-Name header value '${decoded}' does not match body value '${String(expected)}' (params.${field})`;
  }
  return undefined;
}
