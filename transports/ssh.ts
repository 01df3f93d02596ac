// An SSH connection (ssh2) that behaves like the user's OpenSSH client: the host is resolved from
// ~/.ssh/config, authentication uses the SSH agent (SSH_AUTH_SOCK) and the identity files, and the
// server's host key must be listed in known_hosts (unknown or changed keys are refused, never
// accepted). On top of it: running a remote command, and opening an OpenSSH stream-local channel
// to a Unix socket on the remote host, exposed as an MCP Transport with NDJSON framing — the bytes
// go through the SSH connection itself, no local TCP port is opened.
import { readFileSync, existsSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import type { AgentAuthMethod, PublicKeyAuthMethod, ClientChannel, ConnectConfig, Client as Ssh2Client } from 'ssh2';
import { resolveSshHost, type ResolvedSshHost } from './ssh/config.js';
import { KnownHosts, knownHostsName, algorithmsForKeyType, type HostKeyVerdict } from './ssh/known-hosts.js';
import { StreamTransport } from './stream.js';
import type { Transport } from './transport.js';

export { resolveSshHost, parseProxyJump, type ResolvedSshHost, type JumpHost } from './ssh/config.js';
export { KnownHosts, knownHostsName, fingerprint } from './ssh/known-hosts.js';

/** Where an SSH connection attempt failed. */
export type SshPhase = 'config' | 'connect' | 'host-key' | 'auth' | 'cancelled';

export class SshError extends Error {
  override readonly name = 'SshError';
  constructor(
    message: string,
    readonly phase: SshPhase,
  ) {
    super(message);
  }
}

export interface SshConnectOptions {
  /** Local home whose .ssh/ is used (config, identities, known_hosts). */
  home: string;
  /** ssh config file (default <home>/.ssh/config). */
  configPath?: string;
  /** Agent socket (default: $SSH_AUTH_SOCK; empty string disables the agent). */
  agentSocket?: string;
  /** Replaces the known_hosts files from the config (tests, or callers with their own trust store). */
  knownHostsFiles?: readonly string[];
  /** Handshake deadline in ms (default: ConnectTimeout from the config, else 20 s). */
  readyTimeoutMs?: number;
  /** Diagnostics sink (stderr in the server); never receives key material. */
  log?: (message: string) => void;
  /** Aborting closes the connection attempt at once (phase `cancelled`). */
  signal?: AbortSignal;
}

export interface ExecResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

const EXEC_OUTPUT_CAP = 256 * 1024;
/** Nested ProxyJump hops followed before the chain is called a loop. */
const MAX_JUMP_DEPTH = 8;

/** Single-quote a string for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

interface Identity {
  method: AgentAuthMethod | PublicKeyAuthMethod;
  label: string;
}

function identitiesFor(host: ResolvedSshHost, agentSocket: string | undefined, log: (m: string) => void): Identity[] {
  const out: Identity[] = [];
  if (agentSocket && !host.identitiesOnly) {
    out.push({ method: { type: 'agent', username: host.user, agent: agentSocket }, label: `agent (${agentSocket})` });
  }
  for (const file of host.identityFiles) {
    if (!existsSync(file)) continue;
    let data: Buffer;
    try {
      data = readFileSync(file);
    } catch (err) {
      log(`ssh: cannot read identity ${file}: ${(err as Error).message}`);
      continue;
    }
    const parsed = utils.parseKey(data);
    if (parsed instanceof Error) {
      // Encrypted keys need a passphrase we do not have; the agent is the way to use them.
      log(`ssh: skipping identity ${file}: ${parsed.message}`);
      continue;
    }
    out.push({ method: { type: 'publickey', username: host.user, key: data }, label: file });
  }
  return out;
}

// ssh2 is CommonJS: take its members off the default export (named ESM imports are not detected).
const { Client, utils } = ssh2;
type Client = Ssh2Client;

export class SshConnection {
  private closed = false;
  private readonly closeListeners = new Set<(reason: string) => void>();

  private constructor(
    private readonly client: Client,
    readonly host: ResolvedSshHost,
    /** ProxyJump connections this one runs through (closed with it, last hop first). */
    private readonly via: readonly SshConnection[] = [],
  ) {
    const onEnd = (reason: string) => {
      if (this.closed) return;
      this.closed = true;
      this.closeVia();
      for (const l of this.closeListeners) l(reason);
    };
    client.on('close', () => onEnd('the SSH connection closed'));
    client.on('error', (err) => onEnd(`the SSH connection failed: ${err.message}`));
  }

  /**
   * Resolve `alias` like OpenSSH, connect (through its ProxyJump hosts, if any), verify the host
   * key, authenticate.
   */
  static connect(alias: string, options: SshConnectOptions): Promise<SshConnection> {
    return SshConnection.connectVia(alias, options, {}, 0, undefined);
  }

  /**
   * ProxyJump as OpenSSH does it: the first hop is reached with its own configuration (including its
   * own ProxyJump); each later hop, and finally the target, through a direct-tcpip channel
   * (`forwardOut`) of the previous hop — whose configured ProxyJump is then ignored, like `ssh -J`.
   * Every hop's host key is verified against known_hosts under its own name.
   */
  private static async connectVia(
    alias: string,
    options: SshConnectOptions,
    override: { user?: string; port?: number },
    depth: number,
    through: SshConnection | undefined,
  ): Promise<SshConnection> {
    let host: ResolvedSshHost;
    try {
      host = resolveSshHost(alias, {
        home: options.home,
        ...(options.configPath ? { configPath: options.configPath } : {}),
        ...(override.user !== undefined ? { user: override.user } : {}),
        ...(override.port !== undefined ? { port: override.port } : {}),
      });
    } catch (err) {
      throw new SshError((err as Error).message, 'config');
    }
    if (depth > MAX_JUMP_DEPTH) {
      throw new SshError(`ProxyJump chain to "${alias}" is deeper than ${MAX_JUMP_DEPTH} hops (a loop in ~/.ssh/config?)`, 'config');
    }
    if (through) host = { ...host, proxyJump: [] };
    const jumps: SshConnection[] = [];
    try {
      let previous = through;
      for (const hop of host.proxyJump) {
        const spec = `${hop.user ? `${hop.user}@` : ''}${hop.host}${hop.port ? `:${hop.port}` : ''}`;
        try {
          const next = await SshConnection.connectVia(
            hop.host,
            options,
            { ...(hop.user !== undefined ? { user: hop.user } : {}), ...(hop.port !== undefined ? { port: hop.port } : {}) },
            depth + 1,
            previous,
          );
          jumps.push(next);
          previous = next;
        } catch (err) {
          if (err instanceof SshError) throw new SshError(`via ProxyJump ${spec}: ${err.message}`, err.phase);
          throw err;
        }
      }
      const sock = previous ? await previous.forwardOut(host.hostname, host.port, options.signal) : undefined;
      return await SshConnection.handshake(alias, host, options, sock, jumps);
    } catch (err) {
      for (const j of jumps.reverse()) j.close();
      throw err;
    }
  }

  /** A direct-tcpip channel from this host to `hostname:port` (what ProxyJump runs over). */
  private forwardOut(hostname: string, port: number, signal?: AbortSignal): Promise<ClientChannel> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new SshError('the jump host connection is closed', 'connect'));
      if (signal?.aborted) return reject(new SshError('cancelled', 'cancelled'));
      this.client.forwardOut('127.0.0.1', 0, hostname, port, (err, channel) => {
        if (err) {
          return reject(
            new SshError(
              `jump host ${this.host.alias} could not open a connection to ${hostname}:${port}: ${err.message} (its sshd must allow TCP forwarding)`,
              'connect',
            ),
          );
        }
        resolve(channel);
      });
    });
  }

  private static handshake(
    alias: string,
    host: ResolvedSshHost,
    options: SshConnectOptions,
    sock: ClientChannel | undefined,
    via: readonly SshConnection[],
  ): Promise<SshConnection> {
    const log = options.log ?? (() => {});
    const knownHosts = new KnownHosts(options.knownHostsFiles ?? [...host.userKnownHostsFiles, ...host.globalKnownHostsFiles]);
    const lookupName = knownHostsName(host.hostname, host.port, host.hostKeyAlias);
    // IdentityAgent in the config wins over the environment, as in OpenSSH (`none`: no agent).
    const agentSocket =
      host.identityAgent !== undefined
        ? host.identityAgent === 'none'
          ? undefined
          : host.identityAgent
        : (options.agentSocket ?? process.env.SSH_AUTH_SOCK);
    const identities = identitiesFor(host, agentSocket || undefined, log);
    const where = `${host.user}@${host.hostname}:${host.port}${alias !== host.hostname ? ` (host "${alias}")` : ''}`;
    if (identities.length === 0) {
      return Promise.reject(
        new SshError(
          `no way to authenticate to ${where}: SSH_AUTH_SOCK is not set and no identity file exists ` +
            `(looked for ${host.identityFiles.length ? host.identityFiles.join(', ') : '~/.ssh/id_*'}); add an IdentityFile to ~/.ssh/config or start an ssh-agent`,
          'auth',
        ),
      );
    }

    // Ask for a host-key type we can check, as OpenSSH does when known_hosts has entries for the host.
    const preferred = knownHosts.keyTypesFor(lookupName).flatMap(algorithmsForKeyType);
    let verdict: HostKeyVerdict | undefined;
    const config: ConnectConfig = {
      host: host.hostname,
      port: host.port,
      ...(sock ? { sock } : {}),
      username: host.user,
      readyTimeout: options.readyTimeoutMs ?? host.connectTimeoutMs ?? 20_000,
      keepaliveInterval: 15_000,
      keepaliveCountMax: 4,
      authHandler: identities.map((i) => i.method),
      hostVerifier: (key: Buffer) => {
        verdict = knownHosts.verify(lookupName, key);
        if (verdict.ok) log(`ssh: host key for ${lookupName} matches ${verdict.file}:${verdict.line}`);
        return verdict.ok;
      },
      ...(preferred.length ? { algorithms: { serverHostKey: { prepend: preferred } as never } } : {}),
    };

    return new Promise((resolve, reject) => {
      const client = new Client();
      let settled = false;
      const onAbort = () => fail(new SshError(`connecting to ${where} was cancelled`, 'cancelled'));
      const fail = (err: SshError) => {
        if (settled) return;
        settled = true;
        options.signal?.removeEventListener('abort', onAbort);
        // destroy, not end: a half-open handshake must not linger on either side.
        client.destroy();
        reject(err);
      };
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      client.once('ready', () => {
        if (settled) return;
        settled = true;
        options.signal?.removeEventListener('abort', onAbort);
        // Routed calls are small request/response messages: do not let Nagle hold them back.
        client.setNoDelay(true);
        client.removeListener('error', onError);
        resolve(new SshConnection(client, host, via));
      });
      const onError = (err: Error & { level?: string }) => {
        if (verdict && !verdict.ok) return fail(new SshError(verdict.message, 'host-key'));
        if (err.level === 'client-authentication') {
          return fail(
            new SshError(
              `authentication to ${where} failed; tried ${identities.map((i) => i.label).join(', ')}. ` +
                `Is the matching public key in the remote user's ~/.ssh/authorized_keys?`,
              'auth',
            ),
          );
        }
        fail(new SshError(`cannot connect to ${where}: ${err.message}`, 'connect'));
      };
      client.on('error', onError);
      client.once('close', () =>
        fail(new SshError(`connection to ${where} closed during the handshake`, verdict && !verdict.ok ? 'host-key' : 'connect')),
      );
      try {
        client.connect(config);
      } catch (err) {
        fail(new SshError(`cannot connect to ${where}: ${(err as Error).message}`, 'connect'));
      }
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Called once when the connection ends for any reason (not called for close() itself). */
  onClose(listener: (reason: string) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /**
   * Run `command` through the remote user's shell; collects (capped) output and the exit status.
   * On timeout or abort the remote process is sent SIGTERM (the `signal` channel request) and the
   * promise settles once the channel has closed (at most 3 s later), so a caller that cleans up
   * afterwards never races the command it abandoned.
   */
  exec(command: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('the SSH connection is closed'));
      if (options.signal?.aborted) return reject(new Error('the remote command was cancelled'));
      this.client.exec(command, (err, channel) => {
        if (err) return reject(err);
        let stdout = '';
        let stderr = '';
        let abandoned: Error | undefined;
        const abandon = (why: Error) => {
          if (abandoned) return;
          abandoned = why;
          try {
            channel.signal('TERM');
          } catch {
            // the channel may be closing already
          }
          channel.close();
          setTimeout(() => finish(), 3_000).unref();
        };
        const onAbort = () => abandon(new Error('the remote command was cancelled'));
        options.signal?.addEventListener('abort', onAbort, { once: true });
        const timer = options.timeoutMs
          ? setTimeout(() => abandon(new Error(`remote command did not finish within ${options.timeoutMs} ms`)), options.timeoutMs)
          : undefined;
        let settled = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
          if (abandoned) reject(abandoned);
          else resolve({ code, signal, stdout, stderr });
        };
        channel.on('data', (b: Buffer) => {
          if (stdout.length < EXEC_OUTPUT_CAP) stdout += b.toString();
        });
        channel.stderr.on('data', (b: Buffer) => {
          if (stderr.length < EXEC_OUTPUT_CAP) stderr += b.toString();
        });
        let code: number | null = null;
        let signal: string | null = null;
        channel.on('exit', (c: number | null, s?: string) => {
          code = c;
          signal = s ?? null;
        });
        channel.on('close', finish);
      });
    });
  }

  /**
   * A raw stream-local channel to `socketPath` on the remote host (OpenSSH direct-streamlocal).
   * Typed as Node's Duplex (ssh2's ClientChannel is one) so the published declarations need no
   * ssh2 types, whose @types package would pin an old @types/node onto every consumer.
   */
  openStreamLocal(socketPath: string): Promise<Duplex> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('the SSH connection is closed'));
      this.client.openssh_forwardOutStreamLocal(socketPath, (err, channel) => (err ? reject(err) : resolve(channel)));
    });
  }

  /** An MCP Transport (NDJSON) over a stream-local channel to the remote Unix socket `socketPath`. */
  async streamLocalTransport(socketPath: string): Promise<Transport> {
    const channel = await this.openStreamLocal(socketPath);
    return new StreamTransport(channel, channel, {
      onClose: () => {
        channel.end();
      },
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.client.end();
    this.closeVia();
  }

  private closeVia(): void {
    for (const hop of [...this.via].reverse()) hop.close();
  }
}
