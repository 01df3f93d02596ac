import type { JsonRpcId, Transport } from '../../transports/transport.js';
import { JsonRpcPeer, type RequestContext } from '../jsonrpc/peer.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { createLogger, type Logger } from '../logger.js';
import { ToolRegistry } from '../tool-registry.js';
import { ResourceNotFound, type ResourceRegistry } from '../resource-registry.js';
import type { PromptRegistry } from '../prompt-registry.js';
import { InputRequiredSignal, InputRound, RequestStateCodec } from './input-required.js';
import { META, PROTOCOL_VERSIONS, isModernVersion, negotiateVersion } from './protocol-version.js';
import { TASKS_EXTENSION, type Task, type TaskOptions, TaskStore } from './tasks.js';
import { Listen, honoredFilter } from './subscriptions.js';
import {
  type ClientInfo,
  type LoggingLevel,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  type RequestScope,
  isLoggingLevel,
  isObject,
  logLevelAdmits,
  LOG_LEVELS,
  modernScope,
  unsupportedVersion,
} from './request-scope.js';
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  InputOptions,
  Root,
  ServerRequestContext,
} from './server-context.js';

export type { ClientInfo } from './request-scope.js';

/** The modern era's cache hints on list and read results. */
export interface CacheHints {
  /** How long (ms) a client may consider the result fresh; default 0. */
  ttlMs: number;
  /** Whether shared intermediaries may cache it; default 'private'. */
  cacheScope: 'public' | 'private';
}

export interface McpServerOptions {
  name: string;
  version: string;
  title?: string;
  /**
   * Versions this server speaks, preferred first. Default: all known, newest first — the
   * 2026-07-28 stateless requests and the 2025 handshake side by side. A list without a modern
   * version makes a legacy-only server (server/discover is then an unknown method, which is how a
   * dual-era client recognises one); a list without a legacy version refuses `initialize`.
   */
  protocolVersions?: readonly string[];
  /** Sent in the initialize and discover results; a function is called each time (live state). */
  instructions?: string | ((session: ServerSession) => string | undefined);
  tools?: ToolRegistry;
  resources?: ResourceRegistry;
  prompts?: PromptRegistry;
  /**
   * Advertise `tools.listChanged` and announce tools added after start (2025 sessions get
   * notifications/tools/list_changed, 2026 clients on subscriptions/listen with toolsListChanged).
   * Off by default: the shipped servers' tool lists are fixed, and their contracts say `tools: {}`.
   */
  toolsListChanged?: boolean;
  /** Advertise `logging` (handlers log with ctx.logMessage). */
  logging?: boolean;
  /** Cache hints for tools/list, prompts/list, resources/list, resources/templates/list, resources/read, server/discover. */
  cache?: Partial<CacheHints>;
  /** Extensions advertised in capabilities.extensions. */
  extensions?: Record<string, Record<string, unknown>>;
  /**
   * Run tools declared with `taskSupport` as tasks (the io.modelcontextprotocol/tasks extension,
   * 2026-07-28) for clients that declare the extension. `true` takes the defaults.
   */
  tasks?: TaskOptions | boolean;
  /**
   * Sees every notifications/cancelled, with all its fields (e.g. topup's host/session), after
   * the named request (if it is in flight on this session) has been aborted.
   */
  onCancelled?: (params: Record<string, unknown>, session: ServerSession) => void;
  logger?: Logger;
}

/** Methods whose complete modern results carry cache hints. */
const CACHEABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);
/** Methods that may answer `input_required` (MRTR). */
const MAY_REQUIRE_INPUT = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** Resource not found before 2026-07-28 (the modern era uses -32602). */
const LEGACY_RESOURCE_NOT_FOUND = -32002;

/**
 * An MCP server: the registries and identity, shared by every connection. Each `connect` creates a
 * ServerSession; the server (and whatever engines its tools hold) outlives them.
 */
export class McpServer {
  readonly sessions = new Set<ServerSession>();
  readonly log: Logger;
  readonly protocolVersions: readonly string[];
  readonly modernVersions: readonly string[];
  readonly legacyVersions: readonly string[];
  readonly tools: ToolRegistry;
  readonly cacheHints: CacheHints;
  /** Signs the answers carried across MRTR rounds. */
  readonly requestState = new RequestStateCodec();
  /** The tasks of every connection (the Tasks extension), when enabled. */
  readonly tasks?: TaskStore;

  constructor(readonly options: McpServerOptions) {
    this.log = options.logger ?? createLogger(options.name);
    this.protocolVersions = options.protocolVersions?.length ? options.protocolVersions : PROTOCOL_VERSIONS;
    this.modernVersions = this.protocolVersions.filter(isModernVersion);
    this.legacyVersions = this.protocolVersions.filter((v) => !isModernVersion(v));
    this.tools = options.tools ?? new ToolRegistry();
    if (options.tasks) this.tasks = new TaskStore(options.tasks === true ? {} : options.tasks);
    this.cacheHints = { ttlMs: options.cache?.ttlMs ?? 0, cacheScope: options.cache?.cacheScope ?? 'private' };
    if (this.cacheHints.ttlMs < 0 || !Number.isInteger(this.cacheHints.ttlMs)) {
      throw new Error(`cache.ttlMs must be an integer >= 0, got ${this.cacheHints.ttlMs}`);
    }
  }

  get serverInfo(): { name: string; version: string; title?: string } {
    const { name, version, title } = this.options;
    return { name, version, ...(title ? { title } : {}) };
  }

  /** What this server offers, from what is registered. */
  capabilities(): Record<string, unknown> {
    const { resources, prompts, logging, extensions, toolsListChanged } = this.options;
    const caps: Record<string, unknown> = { tools: toolsListChanged ? { listChanged: true } : {} };
    if (resources) caps.resources = { subscribe: true, listChanged: true };
    if (prompts) caps.prompts = { listChanged: true };
    if (logging) caps.logging = {};
    if (resources?.hasCompletions || prompts?.hasCompletions) caps.completions = {};
    const ext = { ...extensions, ...(this.tasks ? { [TASKS_EXTENSION]: {} } : {}) };
    if (Object.keys(ext).length) caps.extensions = ext;
    return caps;
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

type Handler = (params: Record<string, unknown>, req: ServerRequest) => unknown;

interface MethodSpec {
  /** Served to legacy (handshake) clients; default true. */
  legacy?: boolean;
  /** Served to modern (per-request `_meta`) clients; default true. */
  modern?: boolean;
}

/** One request as a handler sees it. */
interface ServerRequest {
  readonly rpc: RequestContext;
  readonly scope: RequestScope;
  readonly method: string;
  readonly round?: InputRound;
  /** The task this handler runs as (Tasks extension). */
  readonly task?: Task;
}

/**
 * One connection to an McpServer. It answers the legacy handshake (state on the session) and
 * modern stateless requests (state in each request) side by side: a request's era is decided by
 * whether it carries `_meta["io.modelcontextprotocol/protocolVersion"]`.
 */
export class ServerSession {
  private readonly peer: JsonRpcPeer;
  /** The legacy era's negotiated version; until initialize, the server's preferred legacy version. */
  protocolVersion: string;
  clientInfo?: ClientInfo;
  clientCapabilities?: Record<string, unknown>;
  initialized = false;
  /** logging/setLevel (legacy era). */
  logLevel?: LoggingLevel;
  /** resources/subscribe (legacy era). */
  readonly subscriptions = new Set<string>();
  /** Open subscriptions/listen requests (modern era), by request id. */
  private readonly listens = new Set<Listen>();
  private readonly unlisten: Array<() => void> = [];

  constructor(
    readonly server: McpServer,
    transport: Transport,
  ) {
    this.protocolVersion = server.legacyVersions[0] ?? server.protocolVersions[0]!;
    this.peer = new JsonRpcPeer(transport, server.log);
    const { options } = server;

    this.handle(
      'initialize',
      (params) => {
        if (server.legacyVersions.length === 0) throw unsupportedVersion(params.protocolVersion, server.protocolVersions);
        this.protocolVersion = negotiateVersion(params.protocolVersion, server.protocolVersions);
        this.clientInfo = isObject(params.clientInfo) ? (params.clientInfo as ClientInfo) : undefined;
        this.clientCapabilities = isObject(params.capabilities) ? params.capabilities : {};
        const instructions = this.instructions();
        return {
          protocolVersion: this.protocolVersion,
          capabilities: server.capabilities(),
          serverInfo: server.serverInfo,
          ...(instructions ? { instructions } : {}),
        };
      },
      { modern: false },
    );
    this.peer.onNotification('notifications/initialized', () => {
      this.initialized = true;
    });
    this.handle('ping', () => ({}), { modern: false });
    if (server.modernVersions.length > 0) {
      this.handle('server/discover', () => {
        const instructions = this.instructions();
        return {
          supportedVersions: [...server.protocolVersions],
          capabilities: server.capabilities(),
          ...(instructions ? { instructions } : {}),
        };
      });
    }

    const tools = server.tools;
    if (options.toolsListChanged) {
      this.unlisten.push(
        tools.onChange(() => {
          if (this.initialized) this.peer.notify('notifications/tools/list_changed');
          for (const l of this.listens) l.listChanged('toolsListChanged');
        }),
      );
    }
    if (server.modernVersions.length > 0) {
      this.handle('subscriptions/listen', (params, req) => this.listen(params, req), { legacy: false });
    }
    this.handle('tools/list', (_p, req) => ({ tools: tools.list(req.scope.protocolVersion) }));
    this.handle('tools/call', (params, req) => {
      const name = params.name;
      if (typeof name !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a string naming a tool');
      if (!tools.has(name)) throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const args = params.arguments;
      if (args !== undefined && !isObject(args)) {
        throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: "arguments" must be an object');
      }
      const support = tools.taskSupport(name);
      const taskStore = server.tasks;
      if (req.scope.modern && taskStore && support) {
        const ext = req.scope.clientCapabilities.extensions;
        const clientHasTasks = isObject(ext) && isObject(ext[TASKS_EXTENSION]);
        if (clientHasTasks) {
          const task = taskStore.start((t) =>
            tools.call(
              name,
              args ?? {},
              new CallContext(this, { ...req, rpc: { id: t.taskId, signal: t.controller.signal }, task: t }, undefined),
            ),
          );
          return { ...task.describe(), resultType: 'task' };
        }
        if (support === 'required') {
          throw new RpcError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            `tool ${name} runs only as a task: declare the ${TASKS_EXTENSION} extension`,
            {
              requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
            },
          );
        }
      }
      return tools.call(name, args ?? {}, this.context(req, params));
    });
    const taskStore = server.tasks;
    if (taskStore) {
      this.handle('tasks/get', (params) => taskStore.get(params).describe(), { legacy: false });
      this.handle('tasks/update', (params) => taskStore.update(params), { legacy: false });
      this.handle('tasks/cancel', (params) => taskStore.cancel(params), { legacy: false });
    }

    const { resources, prompts } = options;
    if (resources) {
      this.handle('resources/list', () => ({ resources: resources.list() }));
      this.handle('resources/templates/list', () => ({ resourceTemplates: resources.listTemplates() }));
      this.handle('resources/read', async (params, req) => {
        const uri = requireString(params, 'uri', 'the URI of a resource');
        try {
          return { contents: await resources.read(uri, this.context(req, params)) };
        } catch (err) {
          if (!(err instanceof ResourceNotFound)) throw err;
          throw new RpcError(req.scope.modern ? ErrorCode.InvalidParams : LEGACY_RESOURCE_NOT_FOUND, err.message, { uri });
        }
      });
      this.handle(
        'resources/subscribe',
        (params) => {
          this.subscriptions.add(requireString(params, 'uri', 'the URI of a resource'));
          return {};
        },
        { modern: false },
      );
      this.handle(
        'resources/unsubscribe',
        (params) => {
          this.subscriptions.delete(requireString(params, 'uri', 'the URI of a resource'));
          return {};
        },
        { modern: false },
      );
      this.unlisten.push(
        resources.onChange((change) => {
          for (const l of this.listens) {
            if (change.kind === 'list') l.listChanged('resourcesListChanged');
            else l.resourceUpdated(change.uri);
          }
          if (!this.initialized) return;
          if (change.kind === 'list') this.peer.notify('notifications/resources/list_changed');
          else if (this.subscriptions.has(change.uri)) this.peer.notify('notifications/resources/updated', { uri: change.uri });
        }),
      );
    }
    if (prompts) {
      this.handle('prompts/list', () => ({ prompts: prompts.list() }));
      this.handle('prompts/get', (params, req) =>
        prompts.get(requireString(params, 'name', 'the name of a prompt'), params.arguments, this.context(req, params)),
      );
      this.unlisten.push(
        prompts.onChange(() => {
          for (const l of this.listens) l.listChanged('promptsListChanged');
          if (this.initialized) this.peer.notify('notifications/prompts/list_changed');
        }),
      );
    }
    if (resources?.hasCompletions || prompts?.hasCompletions) {
      this.handle('completion/complete', (params) => this.complete(params));
    }
    if (options.logging) {
      this.handle(
        'logging/setLevel',
        (params) => {
          if (!isLoggingLevel(params.level)) {
            throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "level" must be one of ${LOG_LEVELS.join(', ')}`);
          }
          this.logLevel = params.level;
          return {};
        },
        { modern: false },
      );
    }
    // The peer aborts the named request itself; the hook sees the full notification afterwards.
    this.peer.onNotification('notifications/cancelled', (params) => options.onCancelled?.(params, this));
    this.peer.onClose(() => {
      for (const u of this.unlisten) u();
    });
  }

  start(): Promise<void> {
    return this.peer.start();
  }

  /**
   * subscriptions/listen: acknowledge, then stay in flight delivering what the filter names until
   * the client cancels (no answer), the connection closes, or the server ends it (answered).
   */
  private async listen(params: Record<string, unknown>, req: ServerRequest): Promise<Record<string, unknown>> {
    const { options } = this.server;
    const filter = honoredFilter(params, {
      toolsListChanged: options.toolsListChanged === true,
      promptsListChanged: options.prompts !== undefined,
      resourcesListChanged: options.resources !== undefined,
      ...(options.resources ? { resources: options.resources } : {}),
    });
    const id = req.rpc.id;
    const listen = new Listen(id, filter, (method, p) => this.peer.notify(method, p, { relatedRequestId: id }));
    const signal = req.rpc.signal;
    if (signal.aborted) return {};
    listen.acknowledge();
    this.listens.add(listen);
    const onAbort = () => listen.end(false);
    signal.addEventListener('abort', onAbort, { once: true });
    listen.onEnd(() => {
      this.listens.delete(listen);
      signal.removeEventListener('abort', onAbort);
    });
    return (await listen.done) ?? {};
  }

  /** How many subscriptions/listen requests are open on this session. */
  get openSubscriptions(): number {
    return this.listens.size;
  }

  /**
   * End every open subscriptions/listen gracefully: each request is answered (resultType
   * complete, its id in `_meta`), which tells the client the server closed it on purpose.
   */
  endSubscriptions(): void {
    for (const l of [...this.listens]) l.end(true);
  }

  private instructions(): string | undefined {
    const { instructions } = this.server.options;
    return typeof instructions === 'function' ? instructions(this) : instructions;
  }

  /** The scope of a legacy request: the session's. */
  private legacyScope(): RequestScope {
    return {
      modern: false,
      protocolVersion: this.protocolVersion,
      clientCapabilities: this.clientCapabilities ?? {},
      ...(this.clientInfo ? { clientInfo: this.clientInfo } : {}),
      ...(this.logLevel ? { logLevel: this.logLevel } : {}),
    };
  }

  /**
   * Register a method for the eras it exists in. A modern request is checked (version, required
   * `_meta`), its result gets `resultType`, the server's identity and, where the spec asks, cache
   * hints; a handler that asks for input on a modern request ends the round with `input_required`.
   */
  private handle(method: string, handler: Handler, spec: MethodSpec = {}): void {
    const { server } = this;
    this.peer.onRequest(method, async (params, rpc) => {
      const scope = server.modernVersions.length ? modernScope(params, server.protocolVersions) : undefined;
      if (scope === undefined) {
        if (spec.legacy === false) {
          throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${method} needs _meta["${META.protocolVersion}"]`);
        }
        if (server.legacyVersions.length === 0 && method !== 'server/discover' && method !== 'initialize') {
          throw new RpcError(
            ErrorCode.InvalidParams,
            `Invalid params: _meta["${META.protocolVersion}"] is required; this server supports ${server.protocolVersions.join(', ')}`,
          );
        }
        return handler(params, { rpc, scope: this.legacyScope(), method });
      }
      if (spec.modern === false) {
        throw new RpcError(
          ErrorCode.MethodNotFound,
          `Method not found: ${method} does not exist in protocol version ${scope.protocolVersion}` +
            (server.legacyVersions.length ? ` (it belongs to ${server.legacyVersions.join(', ')}, after initialize)` : ''),
        );
      }
      const round = MAY_REQUIRE_INPUT.has(method) ? InputRound.from(params, method, server.requestState) : undefined;
      let result: Record<string, unknown>;
      try {
        result = ((await handler(params, { rpc, scope, method, ...(round ? { round } : {}) })) ?? {}) as Record<string, unknown>;
      } catch (err) {
        if (!(err instanceof InputRequiredSignal) || !round) throw err;
        return {
          resultType: 'input_required',
          inputRequests: { [err.key]: err.request },
          requestState: server.requestState.encode(method, round.answers),
          _meta: { [META.serverInfo]: server.serverInfo },
        };
      }
      const out: Record<string, unknown> = {
        ...result,
        resultType: result.resultType ?? 'complete',
        _meta: { ...(isObject(result._meta) ? result._meta : {}), [META.serverInfo]: server.serverInfo },
      };
      const retried = params.inputResponses !== undefined || params.requestState !== undefined;
      if (CACHEABLE.has(method) && out.resultType === 'complete' && !retried) {
        out.ttlMs ??= server.cacheHints.ttlMs;
        out.cacheScope ??= server.cacheHints.cacheScope;
      }
      return out;
    });
  }

  private async complete(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const ref = params.ref;
    const arg = params.argument;
    if (!isObject(ref) || !isObject(arg) || typeof arg.name !== 'string' || typeof arg.value !== 'string') {
      throw new RpcError(
        ErrorCode.InvalidParams,
        'Invalid params: completion/complete needs "ref" ({type: "ref/prompt", name} or {type: "ref/resource", uri}) and "argument" ({name, value})',
      );
    }
    const context =
      isObject(params.context) && isObject(params.context.arguments) ? (params.context.arguments as Record<string, string>) : {};
    const { resources, prompts } = this.server.options;
    let values: string[] | undefined;
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      values = await prompts?.complete(ref.name, arg.name, arg.value, context);
      if (values === undefined)
        throw new RpcError(ErrorCode.InvalidParams, `Invalid params: no prompt ${ref.name} with an argument ${arg.name}`);
    } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      values = await resources?.complete(ref.uri, arg.name, arg.value, context);
      if (values === undefined) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: no resource template ${ref.uri}`);
    } else {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Invalid params: unknown ref type ${JSON.stringify(ref.type)}; expected ref/prompt or ref/resource`,
      );
    }
    const total = values.length;
    return { completion: { values: values.slice(0, 100), total, hasMore: total > 100 } };
  }

  private context(req: ServerRequest, params: Record<string, unknown>): ServerRequestContext {
    const meta = isObject(params._meta) ? params._meta : undefined;
    const token = meta?.progressToken;
    return new CallContext(this, req, typeof token === 'string' || typeof token === 'number' ? token : undefined);
  }

  /** A request to the client (legacy era), e.g. ping; `relatedRequestId` names the request it serves. */
  request<T = unknown>(
    method: string,
    params?: Record<string, unknown>,
    options?: { signal?: AbortSignal; timeoutMs?: number; relatedRequestId?: JsonRpcId },
  ): Promise<T> {
    return this.peer.request<T>(method, params, options);
  }

  notify(method: string, params?: Record<string, unknown>, options?: { relatedRequestId?: JsonRpcId }): void {
    this.peer.notify(method, params, options);
  }

  onClose(listener: () => void): void {
    this.peer.onClose(listener);
  }

  /** Close the connection, ending its subscriptions gracefully first. */
  async close(): Promise<void> {
    if (this.listens.size > 0 && !this.peer.isClosed) {
      const ids = [...this.listens].map((l) => l.id);
      this.endSubscriptions();
      // The answers must reach the transport before it closes.
      await Promise.all(ids.map((id) => this.peer.settled(id)));
    }
    return this.peer.close();
  }
}

function requireString(params: Record<string, unknown>, field: string, what: string): string {
  const v = params[field];
  if (typeof v !== 'string') throw new RpcError(ErrorCode.InvalidParams, `Invalid params: "${field}" must be a string (${what})`);
  return v;
}

const CAPABILITY_OF: Record<string, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The context of one request's handler. A class (not closures) because one is made per call. */
class CallContext implements ServerRequestContext {
  constructor(
    private readonly session: ServerSession,
    private readonly req: ServerRequest,
    private readonly progressToken: string | number | undefined,
  ) {}

  /** Created on first use: most tools never look at it. */
  get signal(): AbortSignal {
    return this.req.rpc.signal;
  }
  get requestId() {
    return this.req.rpc.id;
  }
  get protocolVersion() {
    return this.req.scope.protocolVersion;
  }
  get clientInfo() {
    return this.req.scope.clientInfo;
  }
  get clientCapabilities() {
    return this.req.scope.clientCapabilities;
  }
  get modern() {
    return this.req.scope.modern;
  }
  get log() {
    return this.session.server.log;
  }

  progress(progress: number, total?: number, message?: string): void {
    // A task has no request to report on: its progress is its status message (tasks/get).
    if (this.req.task) {
      this.req.task.statusMessage = message ?? `${progress}${total !== undefined ? ` of ${total}` : ''}`;
      return;
    }
    if (this.progressToken === undefined || this.req.rpc.signal.aborted) return;
    this.progressPending = true;
    this.notify('notifications/progress', {
      progressToken: this.progressToken,
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    });
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.session.notify(method, params, { relatedRequestId: this.req.rpc.id });
  }

  logMessage(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!logLevelAdmits(this.req.scope.logLevel, level, this.req.scope.modern)) return;
    this.notify('notifications/message', { level, ...(logger !== undefined ? { logger } : {}), data });
  }

  elicit(params: ElicitRequestParams, options?: InputOptions): Promise<ElicitResult> {
    return this.ask('elicitation/create', { ...params, mode: params.mode ?? 'form' }, options);
  }

  createMessage(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult> {
    return this.ask('sampling/createMessage', params, options);
  }

  listRoots(options?: InputOptions): Promise<{ roots: Root[] }> {
    return this.ask('roots/list', {}, options);
  }

  /** A server-to-client request in the legacy era; an input request of this round in the modern one. */
  private async ask<T>(method: string, params: Record<string, unknown>, options: InputOptions = {}): Promise<T> {
    const capability = CAPABILITY_OF[method]!;
    if (!isObject(this.clientCapabilities[capability])) {
      throw new RpcError(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        `the client did not declare the "${capability}" capability, which ${method} needs`,
        {
          requiredCapabilities: { [capability]: {} },
        },
      );
    }
    const { round, task } = this.req;
    if (task) return (await task.ask(method, params)) as T;
    if (this.req.scope.modern) {
      if (!round) throw new Error(`${this.req.method} cannot ask the client for input (only tools/call, prompts/get, resources/read can)`);
      const key = round.nextKey(method, options.key);
      if (Object.hasOwn(round.answers, key)) return round.answers[key] as T;
      throw new InputRequiredSignal(key, { method, params });
    }
    return this.session.request<T>(method, params, {
      signal: options.signal ?? this.signal,
      relatedRequestId: this.req.rpc.id,
    });
  }

  private progressPending = false;

  /**
   * A client answers a ping after it has dispatched every message it read before it, so once the
   * answer is here the progress sent before it has reached the client's handler. A client that
   * does not answer (or refuses ping) costs at most PROGRESS_PING_MS; the call answers anyway.
   */
  async progressDelivered(): Promise<void> {
    // The 2026-07-28 era has no server-to-client ping (and a stateless request no channel back
    // after its answer): there the report simply goes before the answer on the request's stream.
    if (!this.progressPending || this.req.rpc.signal.aborted || this.req.scope.modern) return;
    this.progressPending = false;
    await this.session
      .request('ping', {}, { signal: this.req.rpc.signal, timeoutMs: PROGRESS_PING_MS, relatedRequestId: this.req.rpc.id })
      .catch(() => undefined);
  }
}

/** How long a tool waits for the client's answer to the ping after a progress report. */
const PROGRESS_PING_MS = 5_000;
