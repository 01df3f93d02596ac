// A named local session: a child `topup` (our own bin) on stdio, driven with the core McpClient.
// The prewarm file is #use-d before start() returns; a failing prewarm kills the child and the
// error comes back. A child that exits is noticed through the closed transport.
import type { ChildProcess } from 'node:child_process';
import { McpClient, ToolError, parseToolPayload } from '../../../src/index.js';
import { spawnStdio } from '../../../transports/index.js';
import { RoutedPeer } from './routed-peer.js';

export interface ChildCommand {
  command: string;
  args: string[];
}

export interface LocalSessionOptions {
  command: ChildCommand;
  env: NodeJS.ProcessEnv;
  prewarm?: string;
  /** Deadline for the child's initialize (default 60 s: a cold OCaml toplevel on a busy machine). */
  startTimeoutMs?: number;
  /** The caller's cancellation: aborts the prewarm (and so stops the child). */
  signal?: AbortSignal;
}

/** An OCaml string literal for a path (#use "…";;). */
function ocamlString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

const STDIO_CLOSED = 'its stdio connection closed';

export class LocalSession extends RoutedPeer {
  private constructor(
    readonly name: string,
    readonly prewarm: string | undefined,
    client: McpClient,
    private readonly child: ChildProcess,
  ) {
    super(client);
    // stdout may close before the exit status is known; refine the reason once it is.
    child.once('exit', () => {
      if (this.lostReason === STDIO_CLOSED) this.lostReason = this.closeReason();
    });
  }

  static async start(name: string, options: LocalSessionOptions): Promise<LocalSession> {
    const { transport, child } = spawnStdio(options.command.command, options.command.args, { env: options.env, stderr: 'inherit' });
    const client = new McpClient({ name: `topup-session-${name}`, version: '0.1.0' });
    try {
      await client.connect(transport, { timeoutMs: options.startTimeoutMs ?? 60_000 });
    } catch (err) {
      await transport.close();
      const exit = child.exitCode !== null ? ` (the process exited with code ${child.exitCode})` : '';
      throw new ToolError(`session "${name}": the child topup did not start${exit}: ${(err as Error).message}`, {
        phase: 'spawn',
        session: name,
      });
    }
    const session = new LocalSession(name, options.prewarm, client, child);
    if (options.prewarm !== undefined) {
      try {
        await session.runPrewarm(options.prewarm, options.signal);
      } catch (err) {
        await session.stop('its prewarm failed');
        throw err;
      }
    }
    return session;
  }

  private async runPrewarm(path: string, signal?: AbortSignal): Promise<void> {
    const result = await this.client.callTool('eval', { source: `#use ${ocamlString(path)};;` }, signal ? { signal } : {});
    const payload = parseToolPayload(result) as Record<string, unknown> | undefined;
    const error = payload && typeof payload === 'object' ? payload.error : undefined;
    if (result.isError || (error !== undefined && error !== null)) {
      const detail = typeof error === 'string' ? error : JSON.stringify(error ?? payload);
      throw new ToolError(`session "${this.name}": prewarm ${path} failed, the session was stopped: ${detail}`, {
        phase: 'prewarm',
        session: this.name,
        ...(payload && typeof payload === 'object' ? { result: payload } : {}),
      });
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get label(): string {
    return `session "${this.name}"`;
  }

  get restartHint(): string {
    return `restart it with restart_local_session {"session": "${this.name}"}`;
  }

  protected closeReason(): string {
    const { exitCode, signalCode } = this.child;
    if (exitCode !== null) return `its process exited with code ${exitCode}`;
    if (signalCode !== null) return `its process was killed by ${signalCode}`;
    return STDIO_CLOSED;
  }

  protected async release(): Promise<void> {
    // spawnStdio's transport close already ended the child (SIGTERM, then SIGKILL); make sure.
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
