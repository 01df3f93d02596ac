import { JSONRPCClient, JSONRPCServer, createJSONRPCErrorResponse, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0';
import type { JsonRpcId, JsonRpcMessage, MessageExtraInfo, Transport, TransportSendOptions } from '../../transports/transport.js';
import { JsonParseError, MessageTooLargeError } from '../../transports/transport.js';
import { ErrorCode, RemoteError, RpcError } from './errors.js';
import type { Logger } from '../logger.js';

/** What a method handler learns about the request it serves. */
export interface RequestContext {
  readonly id: JsonRpcId;
  readonly signal: AbortSignal;
  /** What the transport said about the message (HTTP headers, auth), if anything. */
  readonly extra?: MessageExtraInfo;
}

export type MethodHandler = (params: Record<string, unknown>, ctx: RequestContext) => unknown;
export type NotificationHandler = (params: Record<string, unknown>) => void;

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Called once the id is assigned (before sending), e.g. to set a progress token. */
  onId?: (id: number) => void;
  /** The incoming request this one is made for (see Transport.send). */
  relatedRequestId?: JsonRpcId;
}

/** Requests are cancelled with this method (MCP). */
const CANCELLED = 'notifications/cancelled';

/**
 * A request being served. Its AbortSignal is created only when a handler asks for it: most
 * requests finish without anyone looking, and an AbortController per request is the single
 * largest cost of a trivial call.
 */
class IncomingRequest implements RequestContext {
  private controller?: AbortController;
  private abortReason?: unknown;
  aborted = false;
  /** Called once the request is over (answered, or not because it was cancelled). */
  onSettled?: () => void;

  constructor(
    readonly id: JsonRpcId,
    readonly extra?: MessageExtraInfo,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}

/** Key for the in-flight table: 0 and "0" are different ids, and both must work. */
const key = (id: JsonRpcId) => (typeof id === 'number' ? `n${id}` : `s${id}`);

/**
 * One bidirectional JSON-RPC 2.0 session over one transport, built on json-rpc-2.0's server and
 * client. Either side may send requests and notifications. This layer closes json-rpc-2.0's gaps
 * (see docs/ARCHITECTURE.md): strict validation of every incoming message (no batches, no null
 * ids, params must be objects), -32700 for malformed JSON with the connection kept, results always
 * objects, plain Errors reduced to -32603 without detail, cancellation by id (0 included) with no
 * response for a cancelled request, and outgoing cancellation/timeouts that clean up after
 * themselves. Sending never waits on the peer.
 */
export class JsonRpcPeer {
  private readonly server: JSONRPCServer<RequestContext>;
  private readonly client: JSONRPCClient<TransportSendOptions | undefined>;
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  private readonly knownNotifications = new Set<string>();
  private readonly inFlight = new Map<string, IncomingRequest>();
  private nextId = 0;
  private closed = false;
  private lastPeerError?: string;
  private closeListeners: Array<() => void> = [];

  constructor(
    readonly transport: Transport,
    private readonly log: Logger,
  ) {
    this.server = new JSONRPCServer<RequestContext>({ errorListener: () => {} });
    this.server.mapErrorToJSONRPCErrorResponse = (id, error) => {
      if (error instanceof RpcError) return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
      this.log.error(`internal error while handling a request: ${(error as Error)?.stack ?? String(error)}`);
      return createJSONRPCErrorResponse(id, ErrorCode.InternalError, 'Internal error');
    };
    this.client = new JSONRPCClient<TransportSendOptions | undefined>(
      (payload, options) => {
        this.sendRaw(payload, options);
      },
      () => this.nextId++,
    );
    transport.onmessage = (m, extra) => this.receive(m, extra);
    transport.onerror = (e) => this.onTransportError(e);
    transport.onclose = () => this.onTransportClose();
    // Cancellation is part of the session itself, not of any one method.
    this.onNotification(CANCELLED, (p) => this.cancelIncoming(p));
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Register a request method. The handler's return value must be an object (undefined → {}). */
  onRequest(method: string, handler: MethodHandler): void {
    this.server.addMethod(method, async (params, ctx) => {
      const result = await handler(params ?? {}, ctx);
      if (result === undefined || result === null) return {};
      if (typeof result !== 'object' || Array.isArray(result)) {
        throw new Error(`method ${method} produced a non-object result`);
      }
      return result;
    });
  }

  /** Register a notification handler. A request that uses a notification's name is refused. */
  onNotification(method: string, handler: NotificationHandler): void {
    this.knownNotifications.add(method);
    const previous = this.notificationHandlers.get(method);
    this.notificationHandlers.set(
      method,
      previous
        ? (p) => {
            previous(p);
            handler(p);
          }
        : handler,
    );
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /** Send a request and await its result. Abort or timeout sends notifications/cancelled. */
  async request<T = unknown>(method: string, params: Record<string, unknown> | undefined, options: RequestOptions = {}): Promise<T> {
    if (this.closed) throw new RemoteError(ErrorCode.ConnectionClosed, this.closedMessage());
    const { signal, timeoutMs } = options;
    signal?.throwIfAborted();
    const id = this.nextId++;
    options.onId?.(id);
    const request: JSONRPCRequest = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    let timer: NodeJS.Timeout | undefined;
    let abandon: ((reason: string) => void) | undefined;
    const abandoned = new Promise<never>((_, reject) => {
      abandon = (reason: string) => {
        // Tell the peer, then settle json-rpc-2.0's pending entry so nothing leaks.
        this.notify(CANCELLED, { requestId: id, reason });
        this.client.receive(createJSONRPCErrorResponse(id, ErrorCode.RequestCancelled, reason));
        reject(
          signal?.aborted ? (signal.reason ?? new DOMException(reason, 'AbortError')) : new RemoteError(ErrorCode.RequestTimeout, reason),
        );
      };
    });
    abandoned.catch(() => {});
    const onAbort = () => abandon!(signal?.reason instanceof Error ? signal.reason.message : 'request aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) timer = setTimeout(() => abandon!(`request timed out after ${timeoutMs} ms`), timeoutMs);
    try {
      const sendOptions = options.relatedRequestId !== undefined ? { relatedRequestId: options.relatedRequestId } : undefined;
      const response = await Promise.race([this.client.requestAdvanced(request, sendOptions), abandoned]);
      if (response.error) {
        // json-rpc-2.0 settles pending requests with code 0 when the connection goes away.
        const code = response.error.code === 0 ? ErrorCode.ConnectionClosed : response.error.code;
        throw new RemoteError(code, response.error.message, response.error.data);
      }
      return response.result;
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Fire-and-forget notification; `options.relatedRequestId` names the incoming request it belongs to. */
  notify(method: string, params?: Record<string, unknown>, options?: TransportSendOptions): void {
    if (this.closed) return;
    this.sendRaw(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }, options);
  }

  async close(): Promise<void> {
    await this.transport.close();
    this.onTransportClose();
  }

  // ---- incoming ----

  private receive(message: unknown, extra?: MessageExtraInfo): void {
    if (Array.isArray(message)) {
      this.replyError(null, ErrorCode.InvalidRequest, 'Invalid Request: JSON-RPC batches are not supported; send one message per line');
      return;
    }
    if (message === null || typeof message !== 'object') {
      this.replyError(null, ErrorCode.InvalidRequest, 'Invalid Request: a message must be a JSON object');
      return;
    }
    const m = message as JsonRpcMessage;
    const hasId = Object.hasOwn(m, 'id');
    const idOk = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id));
    const replyId = idOk ? (m.id as JsonRpcId) : null;
    if (m.jsonrpc !== '2.0') {
      this.replyError(replyId, ErrorCode.InvalidRequest, 'Invalid Request: "jsonrpc" must be the string "2.0"');
      return;
    }
    if (m.method === undefined) {
      if (hasId && ('result' in m || 'error' in m)) {
        this.receiveResponse(m);
        return;
      }
      this.replyError(
        replyId,
        ErrorCode.InvalidRequest,
        'Invalid Request: expected "method" (a request or notification) or "result"/"error" (a response)',
      );
      return;
    }
    if (typeof m.method !== 'string' || m.method === '') {
      this.replyError(replyId, ErrorCode.InvalidRequest, 'Invalid Request: "method" must be a non-empty string');
      return;
    }
    if (hasId && !idOk) {
      this.replyError(
        null,
        ErrorCode.InvalidRequest,
        `Invalid Request: "id" must be a string or a number${m.id === null ? ', not null' : ''}`,
      );
      return;
    }
    const params = m.params;
    const paramsOk = params === undefined || (params !== null && typeof params === 'object' && !Array.isArray(params));
    if (!hasId) {
      if (!paramsOk) {
        this.log.warn(`ignored notification ${m.method}: params must be an object`);
        return;
      }
      this.dispatchNotification(m.method, (params ?? {}) as Record<string, unknown>);
      return;
    }
    const id = m.id as JsonRpcId;
    if (this.knownNotifications.has(m.method)) {
      this.replyError(id, ErrorCode.InvalidRequest, `Invalid Request: ${m.method} is a notification and must not carry an "id"`);
      return;
    }
    if (!paramsOk) {
      this.replyError(id, ErrorCode.InvalidParams, `Invalid params: "params" of ${m.method} must be an object`);
      return;
    }
    void this.dispatchRequest({ jsonrpc: '2.0', id, method: m.method, params: params ?? {} }, extra);
  }

  private async dispatchRequest(request: JSONRPCRequest, extra?: MessageExtraInfo): Promise<void> {
    const id = request.id as JsonRpcId;
    const k = key(id);
    if (this.inFlight.has(k)) {
      this.replyError(id, ErrorCode.InvalidRequest, `Invalid Request: id ${JSON.stringify(id)} is already in use by a request in progress`);
      return;
    }
    const incoming = new IncomingRequest(id, extra);
    this.inFlight.set(k, incoming);
    let response: JSONRPCResponse | null;
    try {
      response = await this.server.receive(request, incoming);
    } finally {
      this.inFlight.delete(k);
    }
    // A cancelled request gets no response at all (MCP), and a closed session cannot answer.
    if (!incoming.aborted && !this.closed && response) this.sendRaw(response);
    incoming.onSettled?.();
  }

  /**
   * Resolves once the incoming request `id` is over and its response (if any) handed to the
   * transport; at once when no such request is in flight.
   */
  settled(id: JsonRpcId): Promise<void> {
    const incoming = this.inFlight.get(key(id));
    if (!incoming) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = incoming.onSettled;
      incoming.onSettled = () => {
        previous?.();
        resolve();
      };
    });
  }

  private dispatchNotification(method: string, params: Record<string, unknown>): void {
    const handler = this.notificationHandlers.get(method);
    if (!handler) return; // unknown notifications are ignored, as JSON-RPC requires
    try {
      handler(params);
    } catch (err) {
      this.log.error(`notification handler ${method} failed: ${(err as Error).message}`);
    }
  }

  private cancelIncoming(params: Record<string, unknown>): void {
    const id = params.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const incoming = this.inFlight.get(key(id));
    if (!incoming) return;
    const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by the client';
    incoming.abort(new DOMException(reason, 'AbortError'));
  }

  private receiveResponse(m: JsonRpcMessage): void {
    if (m.id === null) {
      // An error about something we sent that the peer could not attribute (e.g. "server busy").
      const err = m.error as { message?: unknown } | undefined;
      this.lastPeerError = typeof err?.message === 'string' ? err.message : 'peer reported an error';
      this.log.debug(`peer error: ${this.lastPeerError}`);
      return;
    }
    this.client.receive(m as unknown as JSONRPCResponse);
  }

  private replyError(id: JsonRpcId | null, code: number, message: string): void {
    this.sendRaw(createJSONRPCErrorResponse(id, code, message));
  }

  private onTransportError(error: Error): void {
    if (error instanceof JsonParseError) {
      this.replyError(null, ErrorCode.ParseError, `Parse error: ${error.message}`);
    } else if (error instanceof MessageTooLargeError) {
      this.replyError(null, ErrorCode.InvalidRequest, `Invalid Request: ${error.message}`);
    } else {
      this.log.debug(`transport error: ${error.message}`);
    }
  }

  private onTransportClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const incoming of this.inFlight.values()) incoming.abort(new DOMException('connection closed', 'AbortError'));
    this.client.rejectAllPendingRequests(this.closedMessage());
    const listeners = this.closeListeners;
    this.closeListeners = [];
    for (const l of listeners) l();
  }

  private closedMessage(): string {
    return this.lastPeerError ? `connection closed: ${this.lastPeerError}` : 'connection closed';
  }

  private sendRaw(message: unknown, options?: TransportSendOptions): void {
    if (this.closed) return;
    const sent = options ? this.transport.send(message as JsonRpcMessage, options) : this.transport.send(message as JsonRpcMessage);
    sent.catch((err: Error) => {
      this.log.debug(`send failed: ${err.message}`);
    });
  }
}
