import type { JsonRpcId, JsonRpcMessage, Transport, TransportSendOptions } from '../transport.js';
import { encodeHeaderValue } from './header-encoding.js';
import { SseParser } from './sse.js';
import { isModernVersion } from './versions.js';

export interface StreamableHttpClientOptions {
  /** Sent with every request, e.g. `{ authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
  /** MCP-Protocol-Version before initialize has settled one (then the negotiated version is sent). */
  protocolVersion?: string;
  /** Resume a 2025-era session the server already knows. */
  sessionId?: string;
  /** Open the session's GET stream once initialized (default true); the server may answer 405. */
  openGetStream?: boolean;
  /** Reconnection of a dropped SSE stream: the server's `retry` when it sent one, else this backoff. */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number; growth?: number; maxRetries?: number };
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

const NAMED_METHODS: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
const VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** An HTTP answer that is neither a message nor 202 (the message could not be delivered). */
export class StreamableHttpError extends Error {
  override readonly name = 'StreamableHttpError';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status} from the MCP endpoint${body ? `: ${body.slice(0, 500)}` : ''}`);
  }
}

const isRequest = (m: JsonRpcMessage) => typeof m.method === 'string' && m.id !== undefined && m.id !== null;
const isResponse = (m: JsonRpcMessage) => m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);

/**
 * The client side of Streamable HTTP: every message is its own POST; the answer is read as one
 * JSON body or as an SSE stream. The 2025 era's session id and negotiated version are kept and
 * sent back; its GET stream is opened once the session is initialized. A message that carries
 * the 2026-07-28 `_meta` version is sent with that MCP-Protocol-Version and the mirrored
 * Mcp-Method / Mcp-Name headers, and its cancellation closes its stream instead of POSTing
 * notifications/cancelled (that era's rule).
 *
 * A stream that drops before its response (or the GET stream, any time) is resumed with GET +
 * Last-Event-ID when the server gave its events ids, waiting the server's `retry` if it sent one
 * (the spec: the client MUST respect it), else a growing backoff.
 *
 * A request whose POST fails at the HTTP level is answered locally with a JSON-RPC error (the
 * server's own error body when it sent one), so no caller waits for an answer that cannot come.
 */
export class StreamableHttpClientTransport implements Transport {
  onmessage?: (message: JsonRpcMessage, extra?: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;
  /** The version sent in MCP-Protocol-Version (set by initialize's result, or by the caller). */
  protocolVersion?: string;

  private readonly controller = new AbortController();
  private readonly fetch: typeof fetch;
  /** Modern requests in flight: aborting one is its cancellation. */
  private readonly inFlight = new Map<JsonRpcId, AbortController>();
  private closed = false;
  private getStreamOpen = false;
  private initializeId?: JsonRpcId;

  constructor(
    readonly url: URL | string,
    private readonly options: StreamableHttpClientOptions = {},
  ) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sessionId = options.sessionId;
    this.protocolVersion = options.protocolVersion;
  }

  async start(): Promise<void> {}

  async send(message: JsonRpcMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.closed) throw new Error('transport is closed');
    const version = messageVersion(message);
    if (message.method === 'notifications/cancelled') {
      const target = (message.params as { requestId?: JsonRpcId } | undefined)?.requestId;
      const inFlight = target !== undefined ? this.inFlight.get(target) : undefined;
      if (inFlight) {
        // 2026-07-28: closing the request's stream is its cancellation; nothing is POSTed.
        inFlight.abort();
        return;
      }
    }
    if (message.method === 'initialize') this.initializeId = message.id as JsonRpcId;
    const headers = this.headers(version ?? this.protocolVersion, 'application/json, text/event-stream');
    headers['content-type'] = 'application/json';
    if (version !== undefined && isModernVersion(version) && typeof message.method === 'string') {
      headers['mcp-method'] = message.method;
      const field = NAMED_METHODS[message.method];
      const value = field ? (message.params as Record<string, unknown> | undefined)?.[field] : undefined;
      if (typeof value === 'string') headers['mcp-name'] = encodeHeaderValue(value);
    }
    const request = isRequest(message);
    const id = message.id as JsonRpcId;
    const abort = new AbortController();
    const signal = AbortSignal.any([this.controller.signal, abort.signal]);
    if (request && version !== undefined && isModernVersion(version)) this.inFlight.set(id, abort);
    let res: Response;
    try {
      res = await this.fetch(this.url, { method: 'POST', headers, body: JSON.stringify(message), signal });
    } catch (err) {
      this.inFlight.delete(id);
      if (this.closed || abort.signal.aborted) return;
      const error = new Error(`POST to ${String(this.url)} failed: ${(err as Error).message}`);
      if (request) this.answerLocally(id, -32000, error.message);
      throw error;
    }
    const session = res.headers.get('mcp-session-id');
    if (session) this.sessionId = session;
    if (res.status === 202) {
      await res.body?.cancel();
      // The session is initialized once notifications/initialized is accepted: open its GET stream.
      if (message.method === 'notifications/initialized' && this.sessionId && this.options.openGetStream !== false) this.openGetStream();
      return;
    }
    const type = res.headers.get('content-type') ?? '';
    if (res.ok && type.startsWith('text/event-stream')) {
      // Read in the background: send resolves once the stream is open.
      void this.readStream(res, request ? id : undefined, abort).finally(() => this.inFlight.delete(id));
      return;
    }
    const text = await res.text().catch(() => '');
    this.inFlight.delete(id);
    if (res.ok && type.startsWith('application/json')) {
      const parsed = safeParse(text);
      if (parsed && typeof parsed === 'object') return this.receive(parsed as JsonRpcMessage);
      if (request) this.answerLocally(id, -32700, `the server answered with malformed JSON: ${text.slice(0, 200)}`);
      return;
    }
    if (res.status === 404 && this.sessionId && headers['mcp-session-id']) {
      // The session ended on the server: a new one must be started with initialize.
      this.sessionId = undefined;
    }
    const body = safeParse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined;
    if (request) {
      if (body?.error && typeof body.error.code === 'number') {
        this.receive({ jsonrpc: '2.0', id, error: body.error });
      } else this.answerLocally(id, -32000, new StreamableHttpError(res.status, text).message);
      return;
    }
    const error = new StreamableHttpError(res.status, text);
    this.onerror?.(error);
    throw error;
  }

  /** End the session on the server (DELETE); a server that does not allow it (405) is fine. */
  async terminateSession(): Promise<void> {
    if (!this.sessionId) return;
    const res = await this.fetch(this.url, { method: 'DELETE', headers: this.headers(this.protocolVersion) });
    await res.body?.cancel();
    if (!res.ok && res.status !== 405 && res.status !== 404) throw new StreamableHttpError(res.status, '');
    this.sessionId = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.controller.abort();
    this.onclose?.();
  }

  private headers(version: string | undefined, accept?: string): Record<string, string> {
    const headers: Record<string, string> = { ...this.options.headers };
    if (accept) headers.accept = accept;
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (version) headers['mcp-protocol-version'] = version;
    return headers;
  }

  private receive(message: JsonRpcMessage): void {
    if (this.initializeId !== undefined && isResponse(message) && message.id === this.initializeId) {
      const version = (message.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      if (typeof version === 'string') this.protocolVersion = version;
      this.initializeId = undefined;
    }
    this.onmessage?.(message);
  }

  private answerLocally(id: JsonRpcId, code: number, message: string): void {
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code, message } });
  }

  /**
   * Read one SSE response. `requestId`: the request whose response ends it (a POST stream); a
   * GET stream has none and is resumed whenever it drops. Returns once the stream is finished.
   */
  private async readStream(res: Response, requestId: JsonRpcId | undefined, abort: AbortController): Promise<void> {
    let answered = false;
    let retryMs: number | undefined;
    let lastEventId: string | undefined;
    let attempt = 0;
    const onEvent = (data: string) => {
      if (!data) return; // a priming event or a keep-alive
      const message = safeParse(data);
      if (!message || typeof message !== 'object') {
        this.onerror?.(new Error(`malformed JSON in an SSE event: ${data.slice(0, 200)}`));
        return;
      }
      const m = message as JsonRpcMessage;
      if (requestId !== undefined && isResponse(m) && m.id === requestId) answered = true;
      this.receive(m);
    };
    let current: Response | undefined = res;
    for (;;) {
      if (current) {
        const parser = new SseParser(
          (e) => onEvent(e.data),
          (ms) => {
            retryMs = ms;
          },
        );
        try {
          const decoder = new TextDecoder();
          for await (const chunk of current.body as unknown as AsyncIterable<Uint8Array>) {
            parser.push(decoder.decode(chunk, { stream: true }));
            if (answered) break;
          }
        } catch (err) {
          if (this.closed || abort.signal.aborted) return;
          this.onerror?.(new Error(`SSE stream interrupted: ${(err as Error).message}`));
        }
        if (parser.lastEventId !== undefined) {
          lastEventId = parser.lastEventId;
          attempt = 0;
        }
      }
      if (answered || this.closed || abort.signal.aborted) {
        if (answered) await current?.body?.cancel().catch(() => {});
        return;
      }
      // A POST stream without event ids cannot be resumed; a GET stream is reopened regardless.
      if (requestId !== undefined && lastEventId === undefined) {
        this.answerLocally(requestId, -32000, 'the server closed the response stream before answering, and it cannot be resumed');
        return;
      }
      const { maxRetries = 2, initialDelayMs = 1000, maxDelayMs = 30_000, growth = 1.5 } = this.options.reconnect ?? {};
      if (attempt >= maxRetries) {
        const why = `the SSE stream dropped and ${maxRetries} reconnection attempts failed`;
        if (requestId !== undefined) this.answerLocally(requestId, -32000, why);
        else this.onerror?.(new Error(why));
        if (requestId === undefined) this.getStreamOpen = false;
        return;
      }
      const delay = retryMs ?? Math.min(initialDelayMs * growth ** attempt, maxDelayMs);
      attempt++;
      await sleep(delay, this.controller.signal);
      if (this.closed) return;
      const next = await this.get(lastEventId).catch((err: Error) => {
        this.onerror?.(err);
        return undefined;
      });
      current = next ?? undefined;
      if (next === null) {
        if (requestId !== undefined) this.answerLocally(requestId, -32000, 'the server does not allow resuming the stream (GET refused)');
        if (requestId === undefined) this.getStreamOpen = false;
        return;
      }
    }
  }

  /** GET the session's stream (resuming after `lastEventId`). null: the server refuses GET for good. */
  private async get(lastEventId: string | undefined): Promise<Response | undefined | null> {
    const headers = this.headers(this.protocolVersion, 'text/event-stream');
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const res = await this.fetch(this.url, { method: 'GET', headers, signal: this.controller.signal });
    if (res.ok && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res;
    await res.body?.cancel();
    if (res.status === 405 || res.status === 404 || res.status === 400) {
      if (res.status === 404) this.sessionId = undefined;
      return null;
    }
    throw new StreamableHttpError(res.status, '');
  }

  private openGetStream(): void {
    if (this.getStreamOpen) return;
    this.getStreamOpen = true;
    void (async () => {
      const res = await this.get(undefined).catch((err: Error) => {
        if (!this.closed) this.onerror?.(err);
        return null;
      });
      if (!res) {
        this.getStreamOpen = false;
        return;
      }
      await this.readStream(res, undefined, new AbortController());
    })();
  }
}

/** The 2026-07-28 `_meta` protocol version a message carries, if any. */
function messageVersion(message: JsonRpcMessage): string | undefined {
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const v = meta?.[VERSION_META];
  return typeof v === 'string' ? v : undefined;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
