import type { ServerResponse } from 'node:http';
import type { JsonRpcId, JsonRpcMessage, MessageExtraInfo, Transport, TransportSendOptions } from '../transport.js';
import { encodeSseEvent } from './sse.js';
import { httpStatusForModernError, jsonRpcErrorBody } from './http-errors.js';

/** What the HTTP transport adds to MessageExtraInfo for a request it received. */
export interface HttpMessageExtra extends MessageExtraInfo {
  /**
   * End the HTTP connection carrying this request's SSE stream now, without ending the stream:
   * the client reconnects after the server's `retry` (with Last-Event-ID) and receives what was
   * sent in between, the response included. Present only where the stream can be resumed (a
   * 2025-era session whose client speaks 2025-11-25 or later).
   */
  closeSSEStream?: () => void;
}

export interface HttpServerTransportOptions {
  /** 'session': one 2025-era client (Mcp-Session-Id). 'stateless': every 2026-era request, from any client. */
  mode: 'session' | 'stateless';
  sessionId?: string;
  /** Milliseconds a client should wait before reconnecting a stream the server closed (SSE `retry`). */
  retryMs: number;
  /** Events kept per session for clients that reconnect with Last-Event-ID. */
  maxBufferedEvents: number;
  /** Stateless: an SSE comment on each subscriptions/listen stream this often (ms; 0 or absent: never). */
  keepAliveMs?: number;
  onDebug?: (message: string) => void;
}

/** A message of one stream, as kept for replay. */
interface StoredEvent {
  readonly seq: number;
  readonly data: string;
}

/**
 * One response stream: the answer to one POSTed request, or (seq 0) the session's GET stream.
 * A request is answered as a single JSON body unless something related to it is sent before its
 * response (progress, a log message, a server-to-client request) or it is asked to close its
 * stream: then the answer becomes an SSE stream that ends with the response.
 */
class ResponseStream {
  /** The connection currently carrying this stream (null once it is gone). */
  res: ServerResponse | null;
  sse = false;
  done = false;
  /** Events sent on this stream, kept while it may be resumed. */
  readonly events: StoredEvent[] = [];
  nextSeq = 1;
  /** A subscriptions/listen stream's keep-alive comments. */
  keepAlive?: NodeJS.Timeout;

  constructor(
    readonly streamNo: number,
    readonly clientId: JsonRpcId | null,
    res: ServerResponse,
    readonly progressToken: unknown,
    readonly isInitialize: boolean,
    readonly isListen = false,
  ) {
    this.res = res;
  }
}

const isResponse = (m: JsonRpcMessage) => m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);
const idKey = (id: unknown) => (typeof id === 'number' ? `n${id}` : `s${String(id)}`);
const live = (res: ServerResponse) => !res.writableEnded && !res.destroyed;
/** Names the subscriptions/listen request a message belongs to (2026-07-28); it holds a request id. */
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/**
 * Stateless: the core knows a request by its transport-wide id, so the subscription id it puts in
 * `_meta` (the listen request's id) is turned back into the client's own, like the response's id.
 */
function withClientSubscriptionId(body: unknown, internalId: JsonRpcId, clientId: JsonRpcId | null): unknown {
  const meta = (body as { _meta?: Record<string, unknown> } | undefined)?._meta;
  if (!meta || meta[SUBSCRIPTION_ID] !== internalId) return body;
  return { ...(body as object), _meta: { ...meta, [SUBSCRIPTION_ID]: clientId } };
}

/**
 * The Transport the core sees for Streamable HTTP: either one 2025-era session or the one
 * transport that serves every stateless (2026-07-28) request. The HTTP server (server.ts) hands
 * it validated messages with the response to answer on; the core's `send` is routed back to the
 * right response: a response to its request's POST, a related message (Transport.send's
 * `relatedRequestId`) to that request's stream, anything else to the session's GET stream.
 *
 * Stateless: requests from different HTTP clients share this one transport, so their JSON-RPC
 * ids may collide; each request gets a transport-wide id on the way in and its own back on the
 * way out. Closing the HTTP response cancels the request (2026-07-28: "closing the SSE response
 * stream MUST be treated as cancellation"), delivered to the core as notifications/cancelled.
 *
 * Session: ids are the client's own (unique within a session). Disconnection is not
 * cancellation (2025-11-25); a stream whose client negotiated 2025-11-25 or later starts with a
 * priming event (an id, the `retry`, empty data) and is kept (bounded) so the client can resume
 * it with GET + Last-Event-ID.
 */
export class StreamableHttpServerTransport implements Transport {
  onmessage?: (message: JsonRpcMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sessionId?: string;

  private readonly streams = new Map<string, ResponseStream>();
  private readonly byStreamNo = new Map<number, ResponseStream>();
  /** Stateless only: transport id → the client's id. */
  private nextInternalId = 1;
  private nextStreamNo = 1;
  /** The session's standalone GET stream (stream number 0). */
  private standalone: ResponseStream | null = null;
  /** Unrelated messages waiting for a GET stream (bounded). */
  private pending: string[] = [];
  private closed = false;
  private bufferedEvents = 0;
  private readonly closeListeners: Array<() => void> = [];
  /** The protocol version the session's initialize settled on (decides priming; see class doc). */
  protocolVersion?: string;

  constructor(private readonly options: HttpServerTransportOptions) {
    this.sessionId = options.sessionId;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async start(): Promise<void> {}

  /** HTTP connections this transport holds open (a session with any is not idle). */
  get openConnections(): number {
    let n = this.standalone?.res ? 1 : 0;
    for (const stream of this.streams.values()) if (stream.res) n++;
    return n;
  }

  private get resumable(): boolean {
    return this.options.mode === 'session' && this.protocolVersion !== undefined && this.protocolVersion >= '2025-11-25';
  }

  /**
   * A validated JSON-RPC request from a POST: remember where to answer, hand it to the core.
   * Returns false (and answers nothing) if the id is already in use by a request in flight.
   */
  handleRequest(message: JsonRpcMessage, res: ServerResponse, extra: MessageExtraInfo): boolean {
    const clientId = message.id as JsonRpcId;
    const stateless = this.options.mode === 'stateless';
    const id: JsonRpcId = stateless ? this.nextInternalId++ : clientId;
    const key = idKey(id);
    if (this.streams.has(key)) return false;
    const params = message.params as { _meta?: { progressToken?: unknown } } | undefined;
    const stream = new ResponseStream(
      this.nextStreamNo++,
      clientId,
      res,
      params?._meta?.progressToken,
      message.method === 'initialize',
      stateless && message.method === 'subscriptions/listen',
    );
    this.streams.set(key, stream);
    this.byStreamNo.set(stream.streamNo, stream);
    res.once('close', () => this.onConnectionClosed(key, stream, res));
    const info: HttpMessageExtra = { ...extra };
    if (this.options.mode === 'session') info.closeSSEStream = () => this.closeSseConnection(key);
    this.onmessage?.(stateless ? { ...message, id } : message, info);
    return true;
  }

  /** A notification or a response (to a server-to-client request) from a POST. */
  handleOther(message: JsonRpcMessage, extra: MessageExtraInfo): void {
    if (this.options.mode === 'stateless' && message.method === 'notifications/cancelled') {
      // Stateless requests of every client share this transport and the core knows them by
      // transport-wide ids: a POSTed cancellation could name another client's request. In this
      // era closing the response stream is the cancellation (the spec expects no notification).
      this.options.onDebug?.("notifications/cancelled POSTed to the stateless endpoint ignored: close the request's stream to cancel it");
      return;
    }
    this.onmessage?.(message, extra);
  }

  /**
   * GET: open the session's standalone stream, or resume a stream after `lastEventId`. Answers
   * 409 when a standalone stream is already open, 400 for an event id this session never issued.
   */
  handleGet(res: ServerResponse, lastEventId: string | undefined): void {
    if (lastEventId !== undefined) {
      const match = /^(\d+)\.(\d+)$/.exec(lastEventId);
      const streamNo = match ? Number(match[1]) : -1;
      const stream = streamNo === 0 ? this.standalone : this.byStreamNo.get(streamNo);
      if (!match || !stream) {
        writeJsonError(
          res,
          400,
          null,
          -32600,
          `Bad Request: Last-Event-ID ${JSON.stringify(lastEventId)} names no stream of this session that can be resumed`,
        );
        return;
      }
      if (stream.res && live(stream.res)) stream.res.end();
      this.attachSse(stream, res);
      this.detachOnClose(stream, res);
      const after = Number(match[2]);
      for (const e of stream.events) if (e.seq > after) res.write(encodeSseEvent(e.data, `${stream.streamNo}.${e.seq}`));
      if (stream.done) this.finish(stream);
      return;
    }
    if (this.standalone?.res) {
      writeJsonError(res, 409, null, -32600, 'Conflict: this session already has an open GET stream; only one is allowed');
      return;
    }
    const stream = this.standalone ?? new ResponseStream(0, null, res, undefined, false);
    this.standalone = stream;
    this.attachSse(stream, res);
    this.detachOnClose(stream, res);
    const queued = this.pending;
    this.pending = [];
    for (const data of queued) this.writeEvent(stream, data);
  }

  async send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    if (this.closed) throw new Error('transport is closed');
    if (isResponse(message)) {
      const key = idKey(message.id);
      const stream = this.streams.get(key);
      if (!stream) {
        this.options.onDebug?.(`response to ${String(message.id)} has no waiting HTTP request (its client went away); dropped`);
        return;
      }
      this.streams.delete(key);
      const out =
        this.options.mode === 'stateless'
          ? {
              ...message,
              id: stream.clientId,
              ...('result' in message
                ? { result: withClientSubscriptionId(message.result, message.id as JsonRpcId, stream.clientId) }
                : {}),
            }
          : message;
      if (stream.isInitialize && this.options.mode === 'session') {
        const version = (message.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
        if (typeof version === 'string') this.protocolVersion = version;
      }
      this.complete(stream, out);
      return;
    }
    const related =
      options?.relatedRequestId !== undefined ? this.streams.get(idKey(options.relatedRequestId)) : this.byProgressToken(message);
    if (related && !related.done) {
      const out =
        this.options.mode === 'stateless' && options?.relatedRequestId !== undefined && message.params
          ? { ...message, params: withClientSubscriptionId(message.params, options.relatedRequestId, related.clientId) }
          : message;
      this.writeEvent(related, JSON.stringify(out));
      return;
    }
    const data = JSON.stringify(message);
    if (this.options.mode === 'stateless') {
      this.options.onDebug?.(`${String(message.method)} relates to no request in flight; a stateless server has nowhere to send it`);
      return;
    }
    if (this.standalone) {
      this.writeEvent(this.standalone, data);
      return;
    }
    if (this.pending.length >= this.options.maxBufferedEvents) this.pending.shift();
    this.pending.push(data);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stream of [...this.streams.values(), ...(this.standalone ? [this.standalone] : [])]) {
      clearInterval(stream.keepAlive);
      if (stream.res && live(stream.res)) stream.res.end();
      stream.res = null;
    }
    this.streams.clear();
    this.byStreamNo.clear();
    this.standalone = null;
    this.pending = [];
    for (const listener of this.closeListeners) listener();
    this.onclose?.();
  }

  /** For the HTTP server's own bookkeeping: `onclose` belongs to whoever connected the transport. */
  whenClosed(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /** The core of main before relatedRequestId: a progress notification finds its request by token. */
  private byProgressToken(message: JsonRpcMessage): ResponseStream | undefined {
    if (message.method !== 'notifications/progress') return undefined;
    const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
    if (token === undefined) return undefined;
    for (const stream of this.streams.values()) if (stream.progressToken === token) return stream;
    return undefined;
  }

  private complete(stream: ResponseStream, message: JsonRpcMessage): void {
    const res = stream.res;
    if (!stream.sse) {
      stream.done = true;
      this.forget(stream);
      if (!res || !live(res)) return;
      const error = message.error as { code?: unknown } | undefined;
      const status = this.options.mode === 'stateless' && error ? httpStatusForModernError(error.code) : 200;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (stream.isInitialize && this.sessionId && !error) headers['mcp-session-id'] = this.sessionId;
      res.writeHead(status, headers).end(JSON.stringify(message));
      return;
    }
    this.writeEvent(stream, JSON.stringify(message));
    stream.done = true;
    if (res) this.finish(stream);
  }

  /** The response went out on a live connection: end it and forget the stream. */
  private finish(stream: ResponseStream): void {
    if (stream.res && live(stream.res)) stream.res.end();
    stream.res = null;
    this.forget(stream);
  }

  private forget(stream: ResponseStream): void {
    clearInterval(stream.keepAlive);
    this.byStreamNo.delete(stream.streamNo);
    this.bufferedEvents -= stream.events.length;
    stream.events.length = 0;
  }

  private writeEvent(stream: ResponseStream, data: string): void {
    if (!stream.sse) {
      if (!stream.res || !live(stream.res)) return;
      this.attachSse(stream, stream.res);
    }
    const seq = stream.nextSeq++;
    const keep = this.resumable;
    if (keep) {
      stream.events.push({ seq, data });
      this.bufferedEvents++;
      this.trimBuffers();
    }
    if (stream.res && live(stream.res)) stream.res.write(encodeSseEvent(data, keep ? `${stream.streamNo}.${seq}` : undefined));
  }

  /**
   * Make `res` carry `stream` as SSE: the headers, then, the first time the stream becomes SSE
   * and when it can be resumed, the priming event (its id, the `retry`, empty data) that lets the
   * client reconnect even before any message was sent. A reconnection gets no new priming event:
   * it would move the client's Last-Event-ID back to the stream's start.
   */
  private attachSse(stream: ResponseStream, res: ServerResponse): void {
    const first = !stream.sse;
    stream.sse = true;
    stream.res = res;
    if (!res.headersSent) {
      const headers: Record<string, string> = {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      };
      if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
      res.writeHead(200, headers);
      // Headers go now: a client waits for them before it reads any event.
      res.flushHeaders();
    }
    if (first && this.resumable) res.write(encodeSseEvent('', `${stream.streamNo}.0`, this.options.retryMs));
    const every = this.options.keepAliveMs;
    if (first && stream.isListen && every) {
      // An SSE comment: clients ignore it, idle timers along the way see traffic.
      stream.keepAlive = setInterval(() => {
        if (stream.res && live(stream.res)) stream.res.write(':\n\n');
      }, every);
      stream.keepAlive.unref();
    }
  }

  /** A GET connection (standalone or resumed) that goes away leaves its stream waiting for the next one. */
  private detachOnClose(stream: ResponseStream, res: ServerResponse): void {
    res.once('close', () => {
      if (stream.res === res) stream.res = null;
    });
  }

  /** closeSSEStream: end the connection, keep the stream for the client's reconnection. */
  private closeSseConnection(key: string): void {
    const stream = this.streams.get(key);
    if (!stream || stream.done || !this.resumable) return;
    if (!stream.sse && stream.res && live(stream.res)) this.attachSse(stream, stream.res);
    const res = stream.res;
    stream.res = null;
    res?.end();
  }

  private onConnectionClosed(key: string, stream: ResponseStream, res: ServerResponse): void {
    if (stream.res !== res) return; // replaced by a reconnection, or closed on purpose
    stream.res = null;
    if (stream.done) return;
    if (this.options.mode === 'stateless') {
      // 2026-07-28: the client closing the stream cancels the request.
      this.streams.delete(key);
      this.forget(stream);
      this.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: Number(key.slice(1)), reason: 'the client closed the HTTP response' },
      });
      return;
    }
    // 2025 era: not a cancellation. A resumable stream waits for its client; anything else
    // cannot be delivered any more.
    if (!(stream.sse && this.resumable)) {
      this.streams.delete(key);
      this.forget(stream);
      stream.done = true;
    }
  }

  /** Bound what a session keeps for resumption: the oldest streams' events go first. */
  private trimBuffers(): void {
    if (this.bufferedEvents <= this.options.maxBufferedEvents) return;
    for (const stream of [this.standalone, ...this.byStreamNo.values()]) {
      if (!stream) continue;
      while (stream.events.length > 0 && this.bufferedEvents > this.options.maxBufferedEvents) {
        stream.events.shift();
        this.bufferedEvents--;
      }
      if (this.bufferedEvents <= this.options.maxBufferedEvents) return;
    }
  }
}

/** An HTTP error answer with a JSON-RPC error body. */
export function writeJsonError(
  res: ServerResponse,
  status: number,
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(jsonRpcErrorBody(id, code, message, data));
}
