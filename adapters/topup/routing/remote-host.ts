// A remote toplevel: an SSH connection (resolved like OpenSSH, host key verified), a topup daemon
// listening on a Unix socket on the host (started with `topup --socket <path>` when nothing listens
// there), and an MCP client over a stream-local channel to that socket — no local TCP port.
// Every failure of bringing one up is `phase: "connect"` (the contract's word for start_session
// failures) with the finer cause in `reason` (see StartFailureReason).
import { hostname } from 'node:os';
import { McpClient, ToolError } from '../../../src/index.js';
import { SshConnection, SshError, type SshConnectOptions } from '../../../transports/ssh.js';
import type { Transport } from '../../../transports/index.js';
import { RoutedPeer } from './routed-peer.js';
import { rotateDaemonLog, startDaemon, stopDaemon, type StartOutcome, type StopOutcome } from './remote-daemon.js';

export const DEFAULT_REMOTE_SOCKET = '~/.topup/sockets/topup.sock';

/** How long a "server busy" answer (another client still attached) is retried. */
const BUSY_RETRY_MS = 5_000;

/**
 * Why bringing up a host failed; the `reason` field of a `phase: "connect"` error.
 * - `name`: the host name is not valid; `unknown-host`: restart_session on a host never started
 * - `config`: ~/.ssh/config or remote_socket is unusable (names the directive or value)
 * - `network`: TCP connect, SSH handshake, timeouts, the connection dropped
 * - `host-key`: unknown or changed host key; `auth`: no key was accepted
 * - `spawn`: the remote home, the start command, the daemon died or did not listen, channel refused
 * - `handshake`: MCP initialize failed; `busy`: another client holds the daemon (`held_by` names it)
 * - `cancelled`: the caller cancelled the start (the connection and any daemon it started are gone)
 * - `shutting-down`: the server is closing
 */
export type StartFailureReason =
  | 'name'
  | 'unknown-host'
  | 'config'
  | 'network'
  | 'host-key'
  | 'auth'
  | 'spawn'
  | 'handshake'
  | 'busy'
  | 'cancelled'
  | 'shutting-down';

/** What to do with the daemon when bringing a host up. */
export type DaemonMode = 'reuse' | 'fresh';

export interface RemoteHostOptions {
  ssh: SshConnectOptions;
  /** Remote socket path (absolute or ~/…); default ~/.topup/sockets/topup.sock. */
  remoteSocket: string;
  /** Shell command that runs topup on the host (default `topup`). */
  remoteCommand: string;
  /** `reuse` (default) connects to a live daemon; `fresh` stops it first and starts a new one. */
  daemon?: DaemonMode;
  /** How long to wait for a freshly started daemon to listen (default 60 s). */
  spawnTimeoutMs?: number;
  handshakeTimeoutMs?: number;
  /** The caller's cancellation: aborts the start and cleans up what it created. */
  signal?: AbortSignal;
  log: (message: string) => void;
}

export function startFailure(host: string, reason: StartFailureReason, message: string, extra: Record<string, unknown> = {}): ToolError {
  return new ToolError(`host "${host}": ${message}`, { phase: 'connect', reason, host, ...extra });
}

const SSH_REASON: Record<SshError['phase'], StartFailureReason> = {
  config: 'config',
  connect: 'network',
  'host-key': 'host-key',
  auth: 'auth',
  cancelled: 'cancelled',
};

/** Our clientInfo: what a daemon's "server busy" answer names as the holder. */
function clientName(host: string): string {
  return `topup routing on ${hostname()} (pid ${process.pid}) for host "${host}"`;
}

function cancelledError(host: string, cleanup: string): ToolError {
  return startFailure(host, 'cancelled', `start cancelled by the caller; ${cleanup}`);
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
    const { signal } = options;
    if (signal?.aborted) throw cancelledError(name, 'nothing was started');
    const ssh = await RemoteHost.connectSsh(name, options);
    /** pid of a daemon this start launched: stopped again if the start does not complete. */
    let launched: number | undefined;
    let launching = false;
    let socket: string | undefined;
    try {
      socket = await RemoteHost.resolveSocket(ssh, name, options.remoteSocket, signal);
      let transport: Transport | undefined;
      if (options.daemon !== 'fresh') {
        try {
          transport = await ssh.streamLocalTransport(socket);
        } catch (firstErr) {
          options.log(
            `topup routing: nothing listens on ${name}:${socket} (${(firstErr as Error).message}); starting ${options.remoteCommand}`,
          );
        }
      }
      if (transport) {
        await rotateDaemonLog(ssh, socket).catch((err: Error) => options.log(`topup routing: log rotation on ${name}: ${err.message}`));
      } else {
        launching = true;
        launched = await RemoteHost.spawnDaemon(ssh, name, socket, options);
        transport = await RemoteHost.openAfterSpawn(ssh, name, socket, signal);
      }
      const client = await RemoteHost.handshake(ssh, name, socket, transport, options);
      return new RemoteHost(name, socket, client, ssh);
    } catch (err) {
      const cancelled = signal?.aborted === true;
      let cleanup = 'the SSH connection was closed';
      if (launching && socket !== undefined && !ssh.isClosed) {
        // A daemon this start launched (or was launching) must not outlive a failed start.
        const stopped = await stopDaemon(ssh, socket)
          .then((o) => describeStop(o))
          .catch((e: Error) => `stopping the half-started daemon${launched ? ` (pid ${launched})` : ''} failed: ${e.message}`);
        cleanup += `; ${stopped}`;
      }
      ssh.close();
      if (cancelled) throw cancelledError(name, cleanup);
      throw err;
    }
  }

  /**
   * Stop the daemon serving `remoteSocket` on the host (a fresh SSH connection is opened for it).
   * Used by restart_session {daemon: "stop"}.
   */
  static async stopRemote(name: string, options: Omit<RemoteHostOptions, 'daemon'>): Promise<{ socket: string; outcome: StopOutcome }> {
    const ssh = await RemoteHost.connectSsh(name, options);
    try {
      const socket = await RemoteHost.resolveSocket(ssh, name, options.remoteSocket, options.signal);
      try {
        return { socket, outcome: await stopDaemon(ssh, socket) };
      } catch (err) {
        throw startFailure(name, 'spawn', `cannot stop the daemon on ${socket}: ${(err as Error).message}`);
      }
    } finally {
      ssh.close();
    }
  }

  private static async connectSsh(name: string, options: Pick<RemoteHostOptions, 'ssh' | 'signal'>): Promise<SshConnection> {
    try {
      return await SshConnection.connect(name, { ...options.ssh, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (err) {
      if (options.signal?.aborted) throw cancelledError(name, 'the SSH connection attempt was abandoned');
      if (err instanceof SshError) throw startFailure(name, SSH_REASON[err.phase], err.message, { ssh_phase: err.phase });
      throw startFailure(name, 'network', (err as Error).message);
    }
  }

  /**
   * MCP initialize over the channel. The daemon serves one client at a time; right after a restart
   * it may not have seen the old connection go away yet and answer "server busy": retried briefly,
   * then a `busy` failure naming the holder the daemon reported.
   */
  private static async handshake(
    ssh: SshConnection,
    name: string,
    socket: string,
    first: Transport,
    options: RemoteHostOptions,
  ): Promise<McpClient> {
    const busyDeadline = Date.now() + BUSY_RETRY_MS;
    let transport = first;
    for (let attempt = 0; ; attempt++) {
      const client = new McpClient({ name: clientName(name), version: '0.1.0' });
      try {
        await client.connect(transport, {
          timeoutMs: options.handshakeTimeoutMs ?? 30_000,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        return client;
      } catch (err) {
        await transport.close();
        const message = (err as Error).message;
        if (options.signal?.aborted) throw err;
        if (!/server busy/.test(message)) {
          throw startFailure(
            name,
            'handshake',
            `initialize over ${socket} failed: ${message} (a wedged daemon can be replaced with restart_session {"host": "${name}", "daemon": "restart"})`,
          );
        }
        if (Date.now() > busyDeadline) {
          const held = /held by (.*) since (\S+?)\)?;/.exec(message);
          throw startFailure(
            name,
            'busy',
            `the daemon on ${socket} already serves another client and serves one at a time: ${message}. Wait for it to disconnect, use another remote_socket, or take the daemon over with restart_session {"host": "${name}", "daemon": "restart"} (its toplevel state is lost)`,
            held ? { held_by: held[1], since: held[2] } : {},
          );
        }
        await new Promise((r) => setTimeout(r, 50 * 2 ** Math.min(attempt, 4)));
        try {
          transport = await ssh.streamLocalTransport(socket);
        } catch (reopenErr) {
          throw startFailure(name, 'handshake', `reconnecting to ${socket} failed: ${(reopenErr as Error).message}`);
        }
      }
    }
  }

  /**
   * The socket file appears at bind(); the daemon accepts only after listen(), a moment later (a
   * busy host can preempt it in between). Retry the channel briefly before calling it a failure.
   */
  private static async openAfterSpawn(ssh: SshConnection, name: string, socket: string, signal?: AbortSignal): Promise<Transport> {
    const deadline = Date.now() + 3_000;
    for (;;) {
      try {
        return await ssh.streamLocalTransport(socket);
      } catch (err) {
        if (signal?.aborted) throw err;
        if (Date.now() > deadline || ssh.isClosed) {
          throw startFailure(
            name,
            'spawn',
            `the daemon is listening on ${socket}, but the forwarded connection to it failed: ${(err as Error).message} (the host's sshd must allow stream-local forwarding: AllowStreamLocalForwarding yes, and AllowTcpForwarding not "no", which OpenSSH also applies to Unix sockets)`,
          );
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** `~/…` means the remote user's home, which only the host knows. */
  private static async resolveSocket(ssh: SshConnection, name: string, path: string, signal?: AbortSignal): Promise<string> {
    if (path.startsWith('/')) return path;
    if (path !== '~' && !path.startsWith('~/')) {
      throw startFailure(name, 'config', `remote_socket "${path}" must be absolute or start with ~/`);
    }
    const res = await ssh.exec('printf %s "$HOME"', { timeoutMs: 15_000, ...(signal ? { signal } : {}) }).catch((err: Error) => {
      throw startFailure(name, 'spawn', `cannot ask the host for its home directory: ${err.message}`);
    });
    const home = res.stdout.trim();
    if (res.code !== 0 || !home.startsWith('/')) {
      throw startFailure(
        name,
        'spawn',
        `cannot determine the remote home directory (exit ${res.code}): ${res.stderr.trim() || res.stdout.trim()}`,
      );
    }
    return path === '~' ? home : `${home.replace(/\/$/, '')}/${path.slice(2)}`;
  }

  /** Start the daemon; returns its pid once it listens. */
  private static async spawnDaemon(ssh: SshConnection, name: string, socket: string, options: RemoteHostOptions): Promise<number> {
    const timeoutMs = options.spawnTimeoutMs ?? 60_000;
    let outcome: StartOutcome;
    try {
      outcome = await startDaemon(ssh, options.remoteCommand, socket, timeoutMs, options.signal);
    } catch (err) {
      throw startFailure(name, 'spawn', `cannot run the start command: ${(err as Error).message}`);
    }
    if (outcome.kind === 'ready') return outcome.pid;
    const command = `\`${options.remoteCommand} --socket ${socket}\``;
    let why: string;
    if (outcome.kind === 'failed') why = `the start command failed (exit ${outcome.code})`;
    else if (outcome.kind === 'died') why = `${command} exited before listening`;
    else why = `${command} did not listen within ${timeoutMs} ms`;
    throw startFailure(name, 'spawn', `${why}${outcome.output ? `; its output:\n${outcome.output}` : ''}`);
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

export function describeStop(outcome: StopOutcome): string {
  switch (outcome.kind) {
    case 'stopped':
      return `the daemon (pid ${outcome.pid}) was stopped`;
    case 'killed':
      return `the daemon (pid ${outcome.pid}) did not stop on SIGTERM and was killed`;
    case 'not-running':
      return 'no daemon was running';
  }
}
