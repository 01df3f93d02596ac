import type { Transport } from '../../transports/transport.js';
import { ErrorCode, RemoteError, RpcError } from '../jsonrpc/errors.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import { createLogger, type Logger } from '../logger.js';
import type { ToolDescriptor } from '../tool-registry.js';
import type { CallToolResult } from '../tool-result.js';
import { LATEST_LEGACY_PROTOCOL_VERSION, META, PROTOCOL_VERSIONS, isModernVersion } from './protocol-version.js';
import { type LoggingLevel, UNSUPPORTED_PROTOCOL_VERSION, isObject } from './request-scope.js';
import type { SubscriptionFilter } from './subscriptions.js';
import type { CreateMessageParams, CreateMessageResult, ElicitRequestParams, ElicitResult, Root } from './server-context.js';

/** What a server answers to `initialize` (the fields this client reads). */
interface InitializeResult {
  protocolVersion: string;
  serverInfo: { name: string; version: string; [key: string]: unknown };
  capabilities: Record<string, unknown>;
  instructions?: string;
}

interface DiscoverResult {
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
  instructions?: string;
  _meta?: Record<string, unknown>;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Abandon (and cancel on the server) after this long. */
  timeoutMs?: number;
  /** Asks the server for progress notifications about this call. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/** Notifications a subscriptions/listen stream can carry (besides its acknowledgment). */
const SUBSCRIPTION_NOTIFICATIONS = [
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
] as const;
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/** An open subscriptions/listen (see McpClient.listen). */
export interface Subscription {
  /** The listen request's id, which every notification of it carries in `_meta`. */
  readonly id: number;
  /** What the server agreed to send (its acknowledgment): a subset of what was asked. */
  readonly honored: SubscriptionFilter;
  /**
   * Settles once it is over: 'local' (close() or the caller's signal), 'graceful' (the server
   * ended it by answering the request), 'remote' (the connection or stream went away, or an error).
   */
  readonly closed: Promise<'local' | 'graceful' | 'remote'>;
  /** Stop listening: cancels the request (on Streamable HTTP, closes its stream). Idempotent. */
  close(): void;
}

interface ListenState {
  acknowledged: (filter: SubscriptionFilter) => void;
  onNotification: (method: string, params: Record<string, unknown>) => void;
  acked: boolean;
}

/** How the client picks the server's era. */
export type Era = 'legacy' | 'modern' | 'auto';

export interface McpClientOptions {
  /**
   * 'legacy' (default): the initialize handshake. 'modern': stateless 2026-07-28 requests after
   * server/discover. 'auto': probe with server/discover and fall back to initialize on a server
   * that does not know it (the spec's stdio backward-compatibility rule).
   */
  era?: Era;
  /** The version asked for: in initialize (legacy), or preferred among the server's (modern). */
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  /** Answers elicitation/create (legacy request or modern input request); declares `elicitation`. */
  onElicit?: (params: ElicitRequestParams) => ElicitResult | Promise<ElicitResult>;
  /** Answers sampling/createMessage; declares `sampling`. */
  onCreateMessage?: (params: CreateMessageParams) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Answers roots/list; declares `roots`. */
  roots?: () => Root[] | Promise<Root[]>;
  /** Modern era: the log level asked for on every request (none by default). */
  logLevel?: LoggingLevel;
  /** Modern era: how many input_required rounds one request may take before giving up; default 8. */
  maxInputRounds?: number;
  logger?: Logger;
}

/** How long a dual-era client waits for the server/discover probe before assuming a legacy server. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * An MCP client over any transport, in either era: the legacy handshake (initialize) or modern
 * stateless requests (per-request `_meta`, server/discover, multi-round-trip input). Lists and
 * calls tools, cancels, receives notifications, and answers the server's requests for input.
 * topup's routing to other toplevels is built on it.
 */
export class McpClient {
  private peer?: JsonRpcPeer;
  private readonly log: Logger;
  private nextProgressToken = 0;
  private readonly progressHandlers = new Map<string | number, NonNullable<CallOptions['onProgress']>>();
  private readonly notificationHandlers: Array<[string, (params: Record<string, unknown>) => void]> = [];
  private closeListeners: Array<() => void> = [];
  /** Open subscriptions/listen requests, by request id. */
  private readonly listens = new Map<number, ListenState>();

  serverInfo?: { name: string; version: string; [key: string]: unknown };
  serverCapabilities?: Record<string, unknown>;
  instructions?: string;
  protocolVersion?: string;
  /** Versions the server announced (modern era). */
  supportedVersions?: string[];

  constructor(
    readonly clientInfo: { name: string; version: string },
    private readonly options: McpClientOptions = {},
  ) {
    this.log = options.logger ?? createLogger(`${clientInfo.name}-client`);
  }

  /** True once connected to a server in the stateless era. */
  get modern(): boolean {
    return this.protocolVersion !== undefined && isModernVersion(this.protocolVersion);
  }

  /** The capabilities declared to the server: the given ones plus those of the handlers set. */
  get capabilities(): Record<string, unknown> {
    const caps: Record<string, unknown> = { ...this.options.capabilities };
    if (this.options.onElicit) caps.elicitation ??= { form: {} };
    if (this.options.onCreateMessage) caps.sampling ??= {};
    if (this.options.roots) caps.roots ??= {};
    return caps;
  }

  /** Start the transport and open the era: initialize (legacy), server/discover (modern), or probe (auto). */
  async connect(transport: Transport, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    const peer = new JsonRpcPeer(transport, this.log);
    this.peer = peer;
    peer.onRequest('ping', () => ({}));
    peer.onRequest('elicitation/create', (p) => this.answerInput('elicitation/create', p));
    peer.onRequest('sampling/createMessage', (p) => this.answerInput('sampling/createMessage', p));
    peer.onRequest('roots/list', (p) => this.answerInput('roots/list', p));
    peer.onNotification('notifications/progress', (p) => {
      const handler = this.progressHandlers.get(p.progressToken as string | number);
      if (handler && typeof p.progress === 'number') {
        handler({
          progress: p.progress,
          ...(typeof p.total === 'number' ? { total: p.total } : {}),
          ...(typeof p.message === 'string' ? { message: p.message } : {}),
        });
      }
    });
    for (const method of [ACKNOWLEDGED, ...SUBSCRIPTION_NOTIFICATIONS]) {
      peer.onNotification(method, (p) => this.routeToSubscription(method, p));
    }
    for (const [method, handler] of this.notificationHandlers) peer.onNotification(method, handler);
    peer.onClose(() => {
      const listeners = this.closeListeners;
      this.closeListeners = [];
      for (const l of listeners) l();
    });
    await peer.start();
    const era = this.options.era ?? 'legacy';
    if (era !== 'legacy') {
      const found = await this.discover(peer, era === 'auto', options);
      if (found) return;
    }
    await this.initialize(peer, options);
  }

  private async initialize(peer: JsonRpcPeer, options: { signal?: AbortSignal; timeoutMs?: number }): Promise<void> {
    const requested =
      this.options.protocolVersion && !isModernVersion(this.options.protocolVersion) ? this.options.protocolVersion : undefined;
    const result = await peer.request<InitializeResult>(
      'initialize',
      { protocolVersion: requested ?? LATEST_LEGACY_PROTOCOL_VERSION, capabilities: this.capabilities, clientInfo: this.clientInfo },
      options,
    );
    if (!(PROTOCOL_VERSIONS as readonly string[]).includes(result.protocolVersion) || isModernVersion(result.protocolVersion)) {
      await peer.close();
      throw new Error(`server answered protocol version ${JSON.stringify(result.protocolVersion)}, which this client does not support`);
    }
    this.protocolVersion = result.protocolVersion;
    this.serverInfo = result.serverInfo;
    this.serverCapabilities = result.capabilities;
    this.instructions = result.instructions;
    peer.notify('notifications/initialized');
  }

  /**
   * server/discover with our preferred modern version. Returns false when `fallback` allows a
   * legacy server and the answer is not a modern one (any other error, or no answer in time).
   */
  private async discover(peer: JsonRpcPeer, fallback: boolean, options: { signal?: AbortSignal; timeoutMs?: number }): Promise<boolean> {
    const ours = PROTOCOL_VERSIONS.filter(isModernVersion) as string[];
    let version = this.options.protocolVersion && isModernVersion(this.options.protocolVersion) ? this.options.protocolVersion : ours[0]!;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const result = await peer.request<DiscoverResult>(
          'server/discover',
          { _meta: this.meta(version) },
          {
            ...options,
            ...(fallback && options.timeoutMs === undefined ? { timeoutMs: PROBE_TIMEOUT_MS } : {}),
          },
        );
        if (!Array.isArray(result.supportedVersions)) throw new Error('server/discover answered without supportedVersions');
        const chosen = result.supportedVersions.includes(version) ? version : result.supportedVersions.find((v) => ours.includes(v));
        if (!chosen) {
          if (fallback && result.supportedVersions.some((v) => !isModernVersion(v))) return false;
          throw new Error(`the server supports ${result.supportedVersions.join(', ')}; this client speaks ${PROTOCOL_VERSIONS.join(', ')}`);
        }
        this.protocolVersion = chosen;
        this.supportedVersions = result.supportedVersions;
        this.serverCapabilities = result.capabilities;
        this.instructions = result.instructions;
        const info = result._meta?.[META.serverInfo];
        if (isObject(info)) this.serverInfo = info as McpClient['serverInfo'];
        return true;
      } catch (err) {
        if (err instanceof RemoteError && err.code === UNSUPPORTED_PROTOCOL_VERSION) {
          const supported = isObject(err.data) && Array.isArray(err.data.supported) ? (err.data.supported as string[]) : [];
          const retry = supported.find((v) => ours.includes(v));
          if (retry && retry !== version) {
            version = retry;
            continue;
          }
          if (fallback && supported.some((v) => !isModernVersion(v))) return false;
          throw new Error(
            `the server supports ${supported.join(', ') || 'no version we know'}; this client speaks ${PROTOCOL_VERSIONS.join(', ')}`,
          );
        }
        if (!fallback || err instanceof DOMException || (err instanceof RemoteError && err.code === ErrorCode.ConnectionClosed)) throw err;
        return false;
      }
    }
    throw new Error('server/discover did not settle on a version');
  }

  /** The modern era's per-request `_meta`. */
  private meta(version: string): Record<string, unknown> {
    return {
      [META.protocolVersion]: version,
      [META.clientCapabilities]: this.capabilities,
      [META.clientInfo]: this.clientInfo,
      ...(this.options.logLevel ? { [META.logLevel]: this.options.logLevel } : {}),
    };
  }

  /** Answer one request for input (a legacy server-to-client request, or a modern input request). */
  private async answerInput(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { onElicit, onCreateMessage, roots } = this.options;
    if (method === 'elicitation/create' && onElicit) {
      const answer = await onElicit(params as ElicitRequestParams);
      return withDefaults(answer, params.requestedSchema);
    }
    if (method === 'sampling/createMessage' && onCreateMessage) return onCreateMessage(params as CreateMessageParams);
    if (method === 'roots/list' && roots) return { roots: await roots() };
    throw new RpcError(ErrorCode.MethodNotFound, `Method not found: this client does not answer ${method}`);
  }

  private get connected(): JsonRpcPeer {
    if (!this.peer) throw new Error('McpClient is not connected: call connect(transport) first');
    return this.peer;
  }

  get isClosed(): boolean {
    return this.peer?.isClosed ?? true;
  }

  /**
   * Any request; progress and cancellation as for callTool. In the modern era the request carries
   * its `_meta`, and an `input_required` result is answered and retried until it completes.
   */
  async request<T = unknown>(method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<T> {
    const peer = this.connected;
    let token: string | undefined;
    if (options.onProgress) {
      token = `p${this.nextProgressToken++}`;
      this.progressHandlers.set(token, options.onProgress);
    }
    try {
      let current = params;
      const rounds = this.options.maxInputRounds ?? 8;
      for (let round = 0; ; round++) {
        const meta = {
          ...(current._meta as object),
          ...(this.modern ? this.meta(this.protocolVersion!) : {}),
          ...(token ? { progressToken: token } : {}),
        };
        const sent = Object.keys(meta).length ? { ...current, _meta: meta } : current;
        const result = await peer.request<Record<string, unknown>>(method, sent, options);
        if (!this.modern || result?.resultType !== 'input_required') return result as T;
        if (round + 1 >= rounds) throw new Error(`${method}: still input_required after ${rounds} rounds`);
        current = await this.retryWithInputs(params, result);
      }
    } finally {
      if (token) this.progressHandlers.delete(token);
    }
  }

  /** The retry of `params` that answers an InputRequiredResult. */
  private async retryWithInputs(params: Record<string, unknown>, result: Record<string, unknown>): Promise<Record<string, unknown>> {
    const inputResponses: Record<string, unknown> = {};
    const requests = isObject(result.inputRequests) ? result.inputRequests : {};
    for (const [key, request] of Object.entries(requests)) {
      if (!isObject(request) || typeof request.method !== 'string') continue;
      inputResponses[key] = await this.answerInput(request.method, isObject(request.params) ? request.params : {});
    }
    const { inputResponses: _r, requestState: _s, ...rest } = params;
    return {
      ...rest,
      ...(Object.keys(inputResponses).length ? { inputResponses } : {}),
      ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
    };
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.connected.notify(method, params);
  }

  /**
   * subscriptions/listen (2026-07-28): open a stream of the change notifications `filter` names;
   * each one reaches `onNotification` (as well as any onNotification handler of its method).
   * Resolves once the server acknowledged it, with what it agreed to send; rejects with the
   * server's error (e.g. -32602 for a filter it cannot serve). A 2025 connection has no listen:
   * there resources/subscribe and unsolicited list_changed notifications do that job.
   */
  async listen(
    filter: SubscriptionFilter,
    onNotification: (method: string, params: Record<string, unknown>) => void,
    options: { signal?: AbortSignal } = {},
  ): Promise<Subscription> {
    const peer = this.connected;
    if (!this.modern) {
      throw new Error(
        `subscriptions/listen needs the 2026-07-28 era; this connection speaks ${this.protocolVersion ?? 'nothing yet'} (use resources/subscribe and the list_changed notifications there)`,
      );
    }
    const controller = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    let id = -1;
    let acknowledge!: (filter: SubscriptionFilter) => void;
    const acked = new Promise<SubscriptionFilter>((resolve) => {
      acknowledge = resolve;
    });
    const state: ListenState = { acknowledged: (f) => acknowledge(f), onNotification, acked: false };
    const pending = peer.request<Record<string, unknown>>(
      'subscriptions/listen',
      { notifications: filter, _meta: this.meta(this.protocolVersion!) },
      {
        signal,
        onId: (assigned) => {
          id = assigned;
          this.listens.set(assigned, state);
        },
      },
    );
    const closed = pending.then(
      () => 'graceful' as const,
      () => (signal.aborted ? ('local' as const) : ('remote' as const)),
    );
    void closed.finally(() => this.listens.delete(id));
    // Before the acknowledgment, the request failing is the answer: the server refused the filter.
    const honored = await Promise.race([
      acked,
      pending.then(() => {
        throw new Error('subscriptions/listen ended before the server acknowledged it');
      }),
    ]);
    return { id, honored, closed, close: () => controller.abort(new DOMException('subscription closed by the client', 'AbortError')) };
  }

  /** A notification that names a subscription of ours goes to that subscription's handler. */
  private routeToSubscription(method: string, params: Record<string, unknown>): void {
    const meta = params._meta;
    const id = isObject(meta) ? meta[META.subscriptionId] : undefined;
    const state = typeof id === 'number' ? this.listens.get(id) : undefined;
    if (!state) return;
    if (method === ACKNOWLEDGED) {
      if (state.acked) return;
      state.acked = true;
      state.acknowledged(isObject(params.notifications) ? (params.notifications as SubscriptionFilter) : {});
      return;
    }
    // The spec: nothing arrives before the acknowledgment; a server that sends it anyway is ignored.
    if (state.acked) state.onNotification(method, params);
  }

  /** Handle a server notification (registered before or after connect). */
  onNotification(method: string, handler: (params: Record<string, unknown>) => void): void {
    this.notificationHandlers.push([method, handler]);
    this.peer?.onNotification(method, handler);
  }

  onClose(listener: () => void): void {
    if (this.peer?.isClosed) listener();
    else this.closeListeners.push(listener);
  }

  /** ping (legacy era only: the modern era removed it). */
  async ping(options: CallOptions = {}): Promise<void> {
    await this.request('ping', {}, options);
  }

  /** Every tool, following pagination cursors. */
  async listTools(options: CallOptions = {}): Promise<ToolDescriptor[]> {
    const tools: ToolDescriptor[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request<{ tools?: ToolDescriptor[]; nextCursor?: string }>('tools/list', cursor ? { cursor } : {}, options);
      tools.push(...(page.tools ?? []));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  callTool(name: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<CallToolResult> {
    return this.request('tools/call', { name, arguments: args }, options);
  }

  async close(): Promise<void> {
    await this.peer?.close();
  }
}

/**
 * An accepted form answer with the schema's defaults filled in for the fields the user left out
 * (SEP-1034): the server then sees the values the form showed.
 */
export function withDefaults(answer: ElicitResult, schema: unknown): ElicitResult {
  if (answer.action !== 'accept' || !isObject(schema) || !isObject(schema.properties)) return answer;
  const content: Record<string, unknown> = { ...answer.content };
  for (const [name, prop] of Object.entries(schema.properties)) {
    if (content[name] === undefined && isObject(prop) && prop.default !== undefined) content[name] = prop.default;
  }
  return { ...answer, content };
}
