import type { Transport } from '../../transports/transport.js';
import { JsonRpcPeer, type RequestContext } from '../jsonrpc/peer.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { createLogger, type Logger } from '../logger.js';
import type { ToolContext, ToolRegistry } from '../tool-registry.js';
import { PROTOCOL_VERSIONS, negotiateVersion } from './protocol-version.js';

export interface ClientInfo {
  name?: string;
  version?: string;
  [key: string]: unknown;
}

export interface McpServerOptions {
  name: string;
  version: string;
  title?: string;
  /** Versions this server speaks; the first is its preferred one. Default: all known, newest first. */
  protocolVersions?: readonly string[];
  /** Sent in the initialize result; a function is called at each initialize (live state). */
  instructions?: string | ((session: ServerSession) => string | undefined);
  tools: ToolRegistry;
  /**
   * Sees every notifications/cancelled, with all its fields (e.g. topup's host/session), after
   * the named request (if it is in flight on this session) has been aborted.
   */
  onCancelled?: (params: Record<string, unknown>, session: ServerSession) => void;
  logger?: Logger;
}

/**
 * An MCP server: the tools and identity, shared by every connection. Each `connect` creates a
 * ServerSession; the server (and whatever engines its tools hold) outlives them.
 */
export class McpServer {
  readonly sessions = new Set<ServerSession>();
  readonly log: Logger;
  readonly protocolVersions: readonly string[];

  constructor(readonly options: McpServerOptions) {
    this.log = options.logger ?? createLogger(options.name);
    this.protocolVersions = options.protocolVersions?.length ? options.protocolVersions : PROTOCOL_VERSIONS;
  }

  /** Serve one connection. Resolves once the transport has started. */
  async connect(transport: Transport): Promise<ServerSession> {
    const session = new ServerSession(this, transport);
    this.sessions.add(session);
    session.onClose(() => this.sessions.delete(session));
    await session.start();
    return session;
  }

  /** Close every open session. */
  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((s) => s.close()));
  }
}

/** One client's connection to an McpServer. */
export class ServerSession {
  private readonly peer: JsonRpcPeer;
  /** Until initialize says otherwise, the server's preferred version. */
  protocolVersion: string;
  clientInfo?: ClientInfo;
  clientCapabilities?: Record<string, unknown>;
  initialized = false;

  constructor(
    readonly server: McpServer,
    transport: Transport,
  ) {
    this.protocolVersion = server.protocolVersions[0]!;
    this.peer = new JsonRpcPeer(transport, server.log);
    const { options } = server;

    this.peer.onRequest('initialize', (params) => {
      this.protocolVersion = negotiateVersion(params.protocolVersion, server.protocolVersions);
      this.clientInfo = isObject(params.clientInfo) ? (params.clientInfo as ClientInfo) : undefined;
      this.clientCapabilities = isObject(params.capabilities) ? (params.capabilities as Record<string, unknown>) : {};
      const instructions = typeof options.instructions === 'function' ? options.instructions(this) : options.instructions;
      return {
        protocolVersion: this.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: options.name, version: options.version, ...(options.title ? { title: options.title } : {}) },
        ...(instructions ? { instructions } : {}),
      };
    });
    this.peer.onNotification('notifications/initialized', () => {
      this.initialized = true;
    });
    this.peer.onRequest('ping', () => ({}));
    this.peer.onRequest('tools/list', () => ({ tools: options.tools.list(this.protocolVersion) }));
    this.peer.onRequest('tools/call', (params, ctx) => {
      const name = params.name;
      if (typeof name !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a string naming a tool');
      if (!options.tools.has(name)) throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const args = params.arguments;
      if (args !== undefined && !isObject(args)) {
        throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "arguments" must be an object');
      }
      const meta = isObject(params._meta) ? (params._meta as Record<string, unknown>) : undefined;
      return options.tools.call(name, args ?? {}, this.toolContext(ctx, meta?.progressToken));
    });
    // The peer aborts the named request itself; the hook sees the full notification afterwards.
    this.peer.onNotification('notifications/cancelled', (params) => options.onCancelled?.(params, this));
  }

  start(): Promise<void> {
    return this.peer.start();
  }

  private toolContext(request: RequestContext, progressToken: unknown): ToolContext {
    return new CallContext(
      this,
      request,
      typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
    );
  }

  /** A request to the client (e.g. ping). */
  request<T = unknown>(
    method: string,
    params?: Record<string, unknown>,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<T> {
    return this.peer.request<T>(method, params, options);
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.peer.notify(method, params);
  }

  onClose(listener: () => void): void {
    this.peer.onClose(listener);
  }

  close(): Promise<void> {
    return this.peer.close();
  }
}

function isObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The ToolContext of one tools/call. A class (not closures) because one is made per call. */
class CallContext implements ToolContext {
  constructor(
    private readonly session: ServerSession,
    private readonly request: RequestContext,
    private readonly progressToken: string | number | undefined,
  ) {}

  /** Created on first use: most tools never look at it. */
  get signal(): AbortSignal {
    return this.request.signal;
  }
  get requestId() {
    return this.request.id;
  }
  get protocolVersion() {
    return this.session.protocolVersion;
  }
  get clientInfo() {
    return this.session.clientInfo;
  }
  get log() {
    return this.session.server.log;
  }

  progress(progress: number, total?: number, message?: string): void {
    if (this.progressToken === undefined || this.request.signal.aborted) return;
    this.progressPending = true;
    this.session.notify('notifications/progress', {
      progressToken: this.progressToken,
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    });
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.session.notify(method, params);
  }

  private progressPending = false;

  /**
   * A client answers a ping after it has dispatched every message it read before it, so once the
   * answer is here the progress sent before it has reached the client's handler. A client that
   * does not answer (or refuses ping) costs at most PROGRESS_PING_MS; the call answers anyway.
   */
  async progressDelivered(): Promise<void> {
    if (!this.progressPending || this.request.signal.aborted) return;
    this.progressPending = false;
    await this.session.request('ping', {}, { signal: this.request.signal, timeoutMs: PROGRESS_PING_MS }).catch(() => undefined);
  }
}

/** How long a tool waits for the client's answer to the ping after a progress report. */
const PROGRESS_PING_MS = 5_000;
