// What the router forwards to: a connected MCP client of another topup (a named local subprocess or
// a remote daemon), plus whether it is still alive and, if not, why — so a call to a dead peer gets a
// clear error at once instead of hanging.
import { type McpClient, ToolError, RemoteError } from '../../../src/index.js';
import type { CallToolResult } from '../../../src/index.js';

/** Receives the forwarded call's progress notifications. */
export type ProgressListener = (progress: { progress: number; total?: number; message?: string }) => void;

export abstract class RoutedPeer {
  protected lostReason: string | undefined;

  protected constructor(protected readonly client: McpClient) {
    client.onClose(() => this.markLost(this.closeReason()));
  }

  /** "host \"x\"" / "session \"x\"" — used in messages. */
  abstract get label(): string;
  /** The tool call that brings this peer back, for error messages. */
  abstract get restartHint(): string;
  /** Why the connection closed on its own (child exit code, SSH disconnect…). */
  protected abstract closeReason(): string;
  /** Tear down whatever the peer owns (child process, SSH connection). */
  protected abstract release(): Promise<void>;

  get alive(): boolean {
    return this.lostReason === undefined && !this.client.isClosed;
  }

  get deathReason(): string | undefined {
    return this.lostReason;
  }

  protected markLost(reason: string): void {
    this.lostReason ??= reason;
  }

  private notAlive(): ToolError {
    return new ToolError(`${this.label} is not running: ${this.lostReason ?? 'its connection closed'}; ${this.restartHint}`, {
      phase: 'route',
    });
  }

  /** Forward a tool call; the peer's result comes back unchanged, its progress to `onProgress`. */
  async call(tool: string, args: Record<string, unknown>, signal?: AbortSignal, onProgress?: ProgressListener): Promise<CallToolResult> {
    if (!this.alive) throw this.notAlive();
    try {
      return await this.client.callTool(tool, args, { ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}) });
    } catch (err) {
      if (signal?.aborted) throw err;
      if (!this.alive) throw this.notAlive();
      if (err instanceof RemoteError)
        throw new ToolError(`${this.label} answered ${tool} with an error: ${err.message}`, { phase: 'route', code: err.code });
      throw new ToolError(`${this.label}: ${tool} failed: ${(err as Error).message}; ${this.restartHint}`, { phase: 'route' });
    }
  }

  async stop(reason = 'it was stopped'): Promise<void> {
    this.markLost(reason);
    try {
      await this.client.close();
    } finally {
      await this.release();
    }
  }
}
