import type { Transport } from '../../transports/transport.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import { createLogger, type Logger } from '../logger.js';
import type { CallToolResult } from '../tool-result.js';
import type { ToolDescriptor } from '../tool-registry.js';
import { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS } from './protocol-version.js';

/** What a server answers to `initialize` (the fields this client reads). */
interface InitializeResult {
  protocolVersion: string;
  serverInfo: { name: string; version: string; [key: string]: unknown };
  capabilities: Record<string, unknown>;
  instructions?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Abandon (and cancel on the server) after this long. */
  timeoutMs?: number;
  /** Asks the server for progress notifications about this call. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export interface McpClientOptions {
  /** The version asked for in initialize (default: the newest known). */
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  logger?: Logger;
}

/**
 * An MCP client over any transport: initialize, list and call tools, cancel, receive
 * notifications. topup's routing to other toplevels is built on it.
 */
export class McpClient {
  private peer?: JsonRpcPeer;
  private readonly log: Logger;
  private nextProgressToken = 0;
  private readonly progressHandlers = new Map<string | number, NonNullable<CallOptions['onProgress']>>();
  private readonly notificationHandlers: Array<[string, (params: Record<string, unknown>) => void]> = [];
  private closeListeners: Array<() => void> = [];

  serverInfo?: { name: string; version: string; [key: string]: unknown };
  serverCapabilities?: Record<string, unknown>;
  instructions?: string;
  protocolVersion?: string;

  constructor(
    readonly clientInfo: { name: string; version: string },
    private readonly options: McpClientOptions = {},
  ) {
    this.log = options.logger ?? createLogger(`${clientInfo.name}-client`);
  }

  /** Start the transport, initialize, and send notifications/initialized. */
  async connect(transport: Transport, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    const peer = new JsonRpcPeer(transport, this.log);
    this.peer = peer;
    peer.onRequest('ping', () => ({}));
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
    for (const [method, handler] of this.notificationHandlers) peer.onNotification(method, handler);
    peer.onClose(() => {
      const listeners = this.closeListeners;
      this.closeListeners = [];
      for (const l of listeners) l();
    });
    await peer.start();
    const result = await peer.request<InitializeResult>(
      'initialize',
      {
        protocolVersion: this.options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
        capabilities: this.options.capabilities ?? {},
        clientInfo: this.clientInfo,
      },
      options,
    );
    if (!(PROTOCOL_VERSIONS as readonly string[]).includes(result.protocolVersion)) {
      await peer.close();
      throw new Error(`server answered protocol version ${JSON.stringify(result.protocolVersion)}, which this client does not support`);
    }
    this.protocolVersion = result.protocolVersion;
    this.serverInfo = result.serverInfo;
    this.serverCapabilities = result.capabilities;
    this.instructions = result.instructions;
    peer.notify('notifications/initialized');
  }

  private get connected(): JsonRpcPeer {
    if (!this.peer) throw new Error('McpClient is not connected: call connect(transport) first');
    return this.peer;
  }

  get isClosed(): boolean {
    return this.peer?.isClosed ?? true;
  }

  /** Any request; progress and cancellation as for callTool. */
  async request<T = unknown>(method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<T> {
    const peer = this.connected;
    if (!options.onProgress) return peer.request<T>(method, params, options);
    const token = `p${this.nextProgressToken++}`;
    this.progressHandlers.set(token, options.onProgress);
    try {
      return await peer.request<T>(method, { ...params, _meta: { ...(params._meta as object), progressToken: token } }, options);
    } finally {
      this.progressHandlers.delete(token);
    }
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.connected.notify(method, params);
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
