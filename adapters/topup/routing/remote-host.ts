// A remote toplevel: an SSH connection (resolved like OpenSSH, host key verified), a topup daemon
// listening on a Unix socket on the host (started with `topup --socket <path>` when nothing listens
// there), and an MCP client over a stream-local channel to that socket — no local TCP port.
// Every failure names its phase: config, connect, host-key, auth, spawn, handshake.
import { McpClient, ToolError } from '../../../src/index.js';
import { SshConnection, SshError, shellQuote, type SshConnectOptions } from '../../../transports/ssh.js';
import { RoutedPeer } from './routed-peer.js';

export const DEFAULT_REMOTE_SOCKET = '~/.topup/sockets/topup.sock';

/** How long a "server busy" answer (another client still attached) is retried. */
const BUSY_RETRY_MS = 5_000;

export type RemotePhase = 'config' | 'connect' | 'host-key' | 'auth' | 'spawn' | 'handshake';

export interface RemoteHostOptions {
  ssh: SshConnectOptions;
  /** Remote socket path (absolute or ~/…); default ~/.topup/sockets/topup.sock. */
  remoteSocket: string;
  /** Shell command that runs topup on the host (default `topup`). */
  remoteCommand: string;
  /** How long to wait for a freshly started daemon to listen (default 60 s). */
  spawnTimeoutMs?: number;
  handshakeTimeoutMs?: number;
  log: (message: string) => void;
}

function remoteError(host: string, phase: RemotePhase, message: string): ToolError {
  return new ToolError(`start_session ${host}: ${message}`, { phase, host });
}

/**
 * Started on the host through `sh -c`: starts the daemon detached (nohup, setsid when available)
 * with its log and pid next to the socket, then waits until the socket exists or the daemon dies.
 */
function spawnScript(remoteCommand: string, socket: string, timeoutMs: number): string {
  const polls = Math.max(1, Math.ceil(timeoutMs / 100));
  const q = shellQuote(socket);
  return [
    `sock=${q}`,
    `mkdir -p -m 700 "$(dirname "$sock")" || exit 10`,
    `if [ -S "$sock" ]; then rm -f "$sock"; fi`,
    `if command -v setsid >/dev/null 2>&1; then detach=setsid; else detach=; fi`,
    `nohup $detach ${remoteCommand} --socket "$sock" </dev/null >"$sock.log" 2>&1 &`,
    `pid=$!`,
    `echo "$pid" >"$sock.pid"`,
    `i=0`,
    `while [ "$i" -lt ${polls} ]; do`,
    `  if [ -S "$sock" ]; then echo READY; exit 0; fi`,
    `  if ! kill -0 "$pid" 2>/dev/null; then echo DIED; tail -c 4000 "$sock.log"; exit 11; fi`,
    `  sleep 0.1; i=$((i+1))`,
    `done`,
    `echo TIMEOUT; tail -c 4000 "$sock.log"; exit 12`,
  ].join('\n');
}

export class RemoteHost extends RoutedPeer {
  private constructor(
    readonly name: string,
    readonly remoteSocket: string,
    client: McpClient,
    private readonly ssh: SshConnection,
  ) {
    super(client);
    ssh.onClose((reason) => this.markLost(reason));
  }

  static async start(name: string, options: RemoteHostOptions): Promise<RemoteHost> {
    let ssh: SshConnection;
    try {
      ssh = await SshConnection.connect(name, options.ssh);
    } catch (err) {
      if (err instanceof SshError) throw remoteError(name, err.phase, err.message);
      throw remoteError(name, 'connect', (err as Error).message);
    }
    try {
      const socket = await RemoteHost.resolveSocket(ssh, name, options.remoteSocket);
      let transport;
      try {
        transport = await ssh.streamLocalTransport(socket);
      } catch (firstErr) {
        options.log(
          `topup routing: nothing listens on ${name}:${socket} (${(firstErr as Error).message}); starting ${options.remoteCommand}`,
        );
        await RemoteHost.spawnDaemon(ssh, name, socket, options);
        try {
          transport = await RemoteHost.openAfterSpawn(ssh, socket);
        } catch (err) {
          throw remoteError(
            name,
            'spawn',
            `the daemon is listening on ${socket}, but the forwarded connection to it failed: ${(err as Error).message} (the host's sshd must allow stream-local forwarding: AllowStreamLocalForwarding yes, and AllowTcpForwarding not "no", which OpenSSH also applies to Unix sockets)`,
          );
        }
      }
      // The daemon serves one client at a time. Right after a restart it may not have seen the old
      // connection go away yet and answer "server busy": retry briefly before calling it a failure.
      const busyDeadline = Date.now() + BUSY_RETRY_MS;
      for (let attempt = 0; ; attempt++) {
        const client = new McpClient({ name: `topup-host-${name}`, version: '0.1.0' });
        try {
          await client.connect(transport, { timeoutMs: options.handshakeTimeoutMs ?? 30_000 });
          return new RemoteHost(name, socket, client, ssh);
        } catch (err) {
          await transport.close();
          const message = (err as Error).message;
          if (!/server busy/.test(message) || Date.now() > busyDeadline) {
            throw remoteError(name, 'handshake', `initialize over ${socket} failed: ${message}`);
          }
          await new Promise((r) => setTimeout(r, 50 * 2 ** Math.min(attempt, 4)));
          try {
            transport = await ssh.streamLocalTransport(socket);
          } catch (reopenErr) {
            throw remoteError(name, 'handshake', `reconnecting to ${socket} failed: ${(reopenErr as Error).message}`);
          }
        }
      }
    } catch (err) {
      ssh.close();
      throw err;
    }
  }

  /**
   * The socket file appears at bind(); the daemon accepts only after listen(), a moment later (a
   * busy host can preempt it in between). Retry the channel briefly before calling it a failure.
   */
  private static async openAfterSpawn(ssh: SshConnection, socket: string) {
    const deadline = Date.now() + 3_000;
    for (;;) {
      try {
        return await ssh.streamLocalTransport(socket);
      } catch (err) {
        if (Date.now() > deadline || ssh.isClosed) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** `~/…` means the remote user's home, which only the host knows. */
  private static async resolveSocket(ssh: SshConnection, name: string, path: string): Promise<string> {
    if (path.startsWith('/')) return path;
    if (path !== '~' && !path.startsWith('~/')) {
      throw remoteError(name, 'config', `remote_socket "${path}" must be absolute or start with ~/`);
    }
    const res = await ssh.exec('printf %s "$HOME"', { timeoutMs: 15_000 }).catch((err: Error) => {
      throw remoteError(name, 'spawn', `cannot ask the host for its home directory: ${err.message}`);
    });
    const home = res.stdout.trim();
    if (res.code !== 0 || !home.startsWith('/')) {
      throw remoteError(
        name,
        'spawn',
        `cannot determine the remote home directory (exit ${res.code}): ${res.stderr.trim() || res.stdout.trim()}`,
      );
    }
    return path === '~' ? home : `${home.replace(/\/$/, '')}/${path.slice(2)}`;
  }

  private static async spawnDaemon(ssh: SshConnection, name: string, socket: string, options: RemoteHostOptions): Promise<void> {
    const timeoutMs = options.spawnTimeoutMs ?? 60_000;
    let res;
    try {
      res = await ssh.exec(spawnScript(options.remoteCommand, socket, timeoutMs), { timeoutMs: timeoutMs + 15_000 });
    } catch (err) {
      throw remoteError(name, 'spawn', `cannot run the start command: ${(err as Error).message}`);
    }
    if (res.code === 0 && res.stdout.startsWith('READY')) return;
    const output = (res.stdout.replace(/^(DIED|TIMEOUT)\n?/, '') + res.stderr).trim();
    const why = res.stdout.startsWith('DIED')
      ? `\`${options.remoteCommand} --socket ${socket}\` exited before listening`
      : res.stdout.startsWith('TIMEOUT')
        ? `\`${options.remoteCommand} --socket ${socket}\` did not listen within ${timeoutMs} ms`
        : `the start command failed (exit ${res.code})`;
    throw remoteError(name, 'spawn', `${why}${output ? `; its output:\n${output}` : ''}`);
  }

  get label(): string {
    return `host "${this.name}"`;
  }

  get restartHint(): string {
    return `bring it back with restart_session {"host": "${this.name}"}`;
  }

  protected closeReason(): string {
    return this.ssh.isClosed
      ? 'the SSH connection closed'
      : `the remote topup on ${this.remoteSocket} closed the connection (did the daemon exit?)`;
  }

  protected async release(): Promise<void> {
    this.ssh.close();
  }
}
