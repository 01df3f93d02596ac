// The session router: one topup registration driving many toplevels. It owns the registry of named
// local sessions (child topups on stdio) and remote hosts (topup daemons behind SSH), the 8 public
// management/transfer tools and the 2 hidden blob tools, and forwards routed calls unchanged.
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { ToolError, ToolRegistry } from '../../../src/index.js';
import type { CallToolResult, ToolContext } from '../../../src/index.js';
import type { RouteTarget, TopupRouter } from '../router.js';
import { LocalSession, type ChildCommand } from './local-session.js';
import { RemoteHost, DEFAULT_REMOTE_SOCKET, describeStop, startFailure, type DaemonMode } from './remote-host.js';
import { SessionStore, type SessionConfig } from './session-store.js';
import { HostStore } from './host-store.js';
import { blobTools } from './blob-tools.js';
import { transferPolicy, resolveTransferPath, expandHome } from './transfer-policy.js';
import { pushFile, pullFile } from './file-transfer.js';
import type { RoutedPeer } from './routed-peer.js';

export interface SessionRouterOptions {
  /** The local user's home: ~/.topup (stores, xfer) and ~/.ssh live here. Default: os.homedir(). */
  home?: string;
  /** Environment for TOPUP_XFER_* and for child sessions. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** How to run a child topup for a named session. Default: this very bin (process.argv[1]) with the same node flags. */
  childCommand?: ChildCommand;
  /** Shell command that runs topup on a remote host. Default: $TOPUP_REMOTE_COMMAND, else `topup`. */
  remoteCommand?: string;
  ssh?: {
    /** Default <home>/.ssh/config. */
    configPath?: string;
    /** Replace the known_hosts files named by the config. */
    knownHostsFiles?: string[];
    /** Default $SSH_AUTH_SOCK. */
    agentSocket?: string;
  };
  /** Deadline for a child's or a daemon's start (ms). */
  startTimeoutMs?: number;
  log?: (message: string) => void;
}

/** Names of targets: letters, digits, `.`, `_`, `-`; not starting with `.` or `-`; not `local`. */
const TARGET_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

function checkName(kind: 'host' | 'session', name: string): void {
  if (!TARGET_NAME.test(name) || name.length > 128) {
    throw new ToolError(`${kind} "${name}" is not a valid name; expected letters, digits, ".", "_" or "-" (not starting with "." or "-")`, {
      phase: 'route',
    });
  }
  if (name === 'local') throw new ToolError(`"local" names the in-process toplevel; omit ${kind} to use it`, { phase: 'route' });
}

function defaultChildCommand(): ChildCommand {
  const script = process.argv[1];
  if (!script)
    throw new ToolError('cannot tell how this topup was started (process.argv[1] is empty); configure childCommand', { phase: 'spawn' });
  // Run as `mcp-engines topup …`, the same bin needs its subcommand to be topup again.
  const viaUmbrella = /^mcp-engines(\.[cm]?[jt]s)?$/.test(basename(script));
  return { command: process.execPath, args: [...process.execArgv, script, ...(viaUmbrella ? ['topup'] : [])] };
}

/** Members of a pooled session: the primary and <name>.1 … <name>.(pool-1). */
function poolMembers(name: string, pool: number): string[] {
  return [name, ...Array.from({ length: Math.max(0, pool - 1) }, (_, i) => `${name}.${i + 1}`)];
}

const hostField = z.string().min(1).describe('registered remote host (ssh alias)');

export class SessionRouter implements TopupRouter {
  readonly tools = new ToolRegistry();
  private readonly home: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly log: (message: string) => void;
  private readonly sessionStore: SessionStore;
  private readonly hostStore: HostStore;
  private readonly hosts = new Map<string, RemoteHost>();
  private readonly sessions = new Map<string, LocalSession>();
  /** Family (primary name + settings) of each running member, for restarts and instructions. */
  private readonly families = new Map<string, { primary: string; prewarm?: string; pool: number }>();
  private readonly starting = new Map<string, Promise<unknown>>();
  private closed = false;

  constructor(private readonly options: SessionRouterOptions = {}) {
    this.home = options.home ?? homedir();
    this.env = options.env ?? process.env;
    this.log = options.log ?? ((m) => process.stderr.write(`${m}\n`));
    const topupDir = join(this.home, '.topup');
    this.sessionStore = new SessionStore(topupDir);
    this.hostStore = new HostStore(topupDir);
    this.defineHostTools();
    this.defineSessionTools();
    this.defineTransferTools();
    this.tools.mount(blobTools({ env: this.env, home: this.home }));
  }

  // ---------------------------------------------------------------- routing

  async forward(target: RouteTarget, tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
    const { host: _h, session: _s, ...rest } = args;
    // The target's progress notifications (eval's elapsed time, eval_batch's k of n) reach our caller.
    return this.peerFor(target).call(tool, rest, ctx.signal, (p) => ctx.progress(p.progress, p.total, p.message));
  }

  async cancel(target: RouteTarget, _params: Record<string, unknown>): Promise<void> {
    const peer = target.kind === 'host' ? this.hosts.get(target.host) : this.sessions.get(target.session);
    if (!peer?.alive) return;
    // No local request is in flight for it, so interrupt whatever the target is evaluating.
    await peer.call('cancel', {}).catch((err: Error) => this.log(`topup routing: cancel on ${peer.label} failed: ${err.message}`));
  }

  private peerFor(target: RouteTarget): RoutedPeer {
    if (target.kind === 'host') {
      const peer = this.hosts.get(target.host);
      if (peer) return peer;
      throw this.unknownTarget('host', target.host);
    }
    const peer = this.sessions.get(target.session);
    if (peer) return peer;
    throw this.unknownTarget('session', target.session);
  }

  private unknownTarget(kind: 'host' | 'session', name: string): ToolError {
    if (kind === 'host') {
      const stored = this.safeReadSync(() => Object.keys(this.hostStore.allSync()), []);
      if (stored.includes(name)) {
        return new ToolError(`host "${name}" is registered but not connected; bring it up with start_session {"host": "${name}"}`, {
          phase: 'route',
        });
      }
      const known = [...new Set([...this.hosts.keys(), ...stored])].sort();
      return new ToolError(
        `unknown host "${name}"; registered hosts: ${known.length ? known.join(', ') : '(none)'}. Start one with start_session {"host": …}`,
        { phase: 'route' },
      );
    }
    const stored = this.safeReadSync(() => Object.keys(this.sessionStore.allSync()), []);
    if (stored.includes(name)) {
      return new ToolError(`session "${name}" is registered but not running; bring it up with start_local_session {"session": "${name}"}`, {
        phase: 'route',
      });
    }
    const known = [...new Set([...this.sessions.keys(), ...stored])].sort();
    return new ToolError(
      `unknown session "${name}"; registered sessions: ${known.length ? known.join(', ') : '(none)'}. Start one with start_local_session {"session": …}`,
      { phase: 'route' },
    );
  }

  private safeReadSync<T>(read: () => T, fallback: T): T {
    try {
      return read();
    } catch (err) {
      this.log(`topup routing: ${(err as Error).message}`);
      return fallback;
    }
  }

  private async safeRead<T>(read: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await read();
    } catch (err) {
      this.log(`topup routing: ${(err as Error).message}`);
      return fallback;
    }
  }

  /** One start at a time per target; concurrent callers share it. */
  private once<T>(key: string, start: () => Promise<T>): Promise<T> {
    const running = this.starting.get(key) as Promise<T> | undefined;
    if (running) return running;
    const p = start().finally(() => this.starting.delete(key));
    this.starting.set(key, p);
    return p;
  }

  // ---------------------------------------------------------------- instructions

  describe(): string {
    const lines: string[] = [];
    const storedHosts = this.safeReadSync(() => this.hostStore.allSync(), {});
    const hostNames = [...new Set([...Object.keys(storedHosts), ...this.hosts.keys()])].sort();
    if (hostNames.length) {
      lines.push('Remote hosts (pass "host": <name> to route a tool there):');
      for (const name of hostNames) {
        const meta = storedHosts[name] ?? {};
        const peer = this.hosts.get(name);
        const state = peer?.alive ? 'connected' : peer ? `down (${peer.deathReason}; restart_session)` : 'not connected (start_session)';
        const details = [meta.os ? `os: ${meta.os}` : '', meta.description ? meta.description : ''].filter(Boolean).join('; ');
        lines.push(`- ${name}: ${state}${details ? ` — ${details}` : ''}`);
      }
    }
    const storedSessions = this.safeReadSync(() => this.sessionStore.allSync(), {} as Record<string, SessionConfig>);
    const sessionNames = [...new Set([...Object.keys(storedSessions), ...this.sessions.keys()])].sort();
    if (sessionNames.length) {
      lines.push('Named local sessions (pass "session": <name> to route a tool there):');
      for (const name of sessionNames) {
        const cfg = storedSessions[name];
        const family = this.families.get(name);
        const peer = this.sessions.get(name);
        const state = peer?.alive
          ? 'running'
          : peer
            ? `down (${peer.deathReason}; restart_local_session)`
            : 'not running (start_local_session)';
        const details: string[] = [];
        if (family && family.primary !== name) details.push(`pool sibling of ${family.primary}`);
        const prewarm = cfg?.prewarm ?? family?.prewarm;
        if (prewarm) details.push(`prewarm ${prewarm}`);
        const pool = cfg?.pool ?? (family?.primary === name ? family.pool : undefined);
        if (pool && pool > 1) details.push(`pool ${pool}`);
        lines.push(`- ${name}: ${state}${details.length ? ` — ${details.join('; ')}` : ''}`);
      }
    }
    // Nothing registered: the server says so in its own words.
    return lines.join('\n');
  }

  // ---------------------------------------------------------------- remote hosts

  private sshOptions() {
    const ssh = this.options.ssh ?? {};
    return {
      home: this.home,
      ...(ssh.configPath ? { configPath: ssh.configPath } : {}),
      ...(ssh.knownHostsFiles ? { knownHostsFiles: ssh.knownHostsFiles } : {}),
      ...(ssh.agentSocket !== undefined
        ? { agentSocket: ssh.agentSocket }
        : this.env.SSH_AUTH_SOCK
          ? { agentSocket: this.env.SSH_AUTH_SOCK }
          : { agentSocket: '' }),
      log: this.log,
    };
  }

  private remoteOptions(remoteSocket: string, signal: AbortSignal | undefined) {
    return {
      ssh: this.sshOptions(),
      remoteSocket,
      remoteCommand: this.options.remoteCommand ?? (this.env.TOPUP_REMOTE_COMMAND || 'topup'),
      ...(this.options.startTimeoutMs ? { spawnTimeoutMs: this.options.startTimeoutMs } : {}),
      ...(signal ? { signal } : {}),
      log: this.log,
    };
  }

  private async bringUpHost(host: string, remoteSocket: string, daemon: DaemonMode, signal: AbortSignal | undefined): Promise<RemoteHost> {
    if (this.closed) throw startFailure(host, 'shutting-down', 'the server is shutting down');
    const peer = await RemoteHost.start(host, { ...this.remoteOptions(remoteSocket, signal), daemon });
    if (this.closed) {
      await peer.stop('the server is shutting down');
      throw startFailure(host, 'shutting-down', 'the server is shutting down');
    }
    this.hosts.set(host, peer);
    await this.hostStore.set(host, { remote_socket: remoteSocket });
    return peer;
  }

  /**
   * The contract: every start_session failure is `phase: "connect"`. Errors that were raised with
   * another phase keep it as `reason`.
   */
  private async asConnectFailure<T>(host: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ToolError) {
        if (err.details.phase === 'connect') throw err;
        const { phase, ...rest } = err.details;
        throw new ToolError(err.message, { ...rest, phase: 'connect', reason: typeof phase === 'string' ? phase : 'network', host });
      }
      throw startFailure(host, 'network', (err as Error).message);
    }
  }

  private checkHostName(host: string): void {
    try {
      checkName('host', host);
    } catch (err) {
      throw startFailure(host, 'name', (err as Error).message);
    }
  }

  private defineHostTools(): void {
    this.tools.define({
      name: 'start_session',
      title: 'Start remote session',
      description:
        'Bring up a remote topup on host over SSH (OpenSSH config, agent, known_hosts verification), starting `topup --socket <remote_socket>` there when nothing listens, and perform the initialize handshake. Idempotent against a live connection. Cancelling the call aborts it: the SSH connection and any daemon it started are removed. Failures are phase "connect" with reason: name, config, network, host-key, auth, spawn, handshake, busy (another client holds the daemon; held_by names it), cancelled.',
      input: z.strictObject({
        host: hostField,
        remote_socket: z.string().min(1).optional().describe(`remote socket path (default ${DEFAULT_REMOTE_SOCKET})`),
      }),
      handler: ({ host, remote_socket }, ctx) =>
        this.asConnectFailure(host, async () => {
          this.checkHostName(host);
          const live = this.hosts.get(host);
          if (live?.alive) return { host, remote_socket: live.remoteSocket, already_running: true };
          const socket =
            remote_socket ??
            (await this.safeRead(async () => (await this.hostStore.get(host))?.remote_socket, undefined)) ??
            DEFAULT_REMOTE_SOCKET;
          const peer = await this.once(`host:${host}`, async () => {
            if (live) {
              this.hosts.delete(host);
              await live.stop('replaced by start_session');
            }
            return this.bringUpHost(host, socket, 'reuse', ctx.signal);
          });
          return { host, remote_socket: peer.remoteSocket, already_running: false };
        }),
    });

    this.tools.define({
      name: 'restart_session',
      title: 'Restart remote session',
      description:
        'Tear down the SSH connection for host and bring it up again. daemon: "keep" (default) reconnects to the remote daemon, keeping its OCaml state, and starts a new one when it is dead (stopping what is left of the old one); "restart" stops the remote daemon and starts a fresh one; "stop" stops the remote daemon and leaves the host disconnected. For a fresh OCaml environment on a live daemon use reset.',
      input: z.strictObject({
        host: hostField,
        daemon: z
          .enum(['keep', 'restart', 'stop'])
          .default('keep')
          .describe('keep the remote daemon if it is alive (default), restart it, or stop it'),
      }),
      handler: ({ host, daemon }, ctx) =>
        this.asConnectFailure(host, async () => {
          this.checkHostName(host);
          const live = this.hosts.get(host);
          const stored = await this.safeRead(() => this.hostStore.get(host), undefined);
          if (!live && !stored) throw startFailure(host, 'unknown-host', this.unknownTarget('host', host).message);
          const socket = live?.remoteSocket ?? stored?.remote_socket ?? DEFAULT_REMOTE_SOCKET;
          return this.once(`host:${host}`, async () => {
            if (live) {
              this.hosts.delete(host);
              await live.stop(daemon === 'stop' ? 'its daemon was stopped' : 'restarted');
            }
            if (daemon === 'stop') {
              const stopped = await RemoteHost.stopRemote(host, this.remoteOptions(socket, ctx.signal));
              return {
                host,
                remote_socket: stopped.socket,
                stopped: true,
                was_running: stopped.outcome.kind !== 'not-running',
                ...(stopped.outcome.kind !== 'not-running' ? { daemon_pid: stopped.outcome.pid } : {}),
                message: describeStop(stopped.outcome),
              };
            }
            const peer = await this.bringUpHost(host, socket, daemon === 'restart' ? 'fresh' : 'reuse', ctx.signal);
            return { host, remote_socket: peer.remoteSocket, restarted: true, daemon: daemon === 'restart' ? 'new' : 'kept-or-started' };
          });
        }),
    });

    this.tools.define({
      name: 'update_host',
      title: 'Update host metadata',
      description:
        'Set or replace the description and/or os of a registered host (only the fields given change); persisted and shown in the instructions of the next initialize.',
      input: z.strictObject({
        host: hostField,
        description: z.string().optional(),
        os: z.string().optional(),
      }),
      handler: async ({ host, description, os }) => {
        checkName('host', host);
        if (!this.hosts.has(host) && !(await this.hostStore.get(host))) throw this.unknownTarget('host', host);
        if (description === undefined && os === undefined) {
          throw new ToolError('update_host needs description and/or os; nothing to change', { phase: 'route' });
        }
        const record = await this.hostStore.set(host, {
          ...(description !== undefined ? { description } : {}),
          ...(os !== undefined ? { os } : {}),
        });
        return {
          host,
          ...(record.description !== undefined ? { description: record.description } : {}),
          ...(record.os !== undefined ? { os: record.os } : {}),
        };
      },
    });
  }

  // ---------------------------------------------------------------- named local sessions

  private resolvePrewarm(prewarm: string | undefined): string | undefined {
    if (prewarm === undefined) return undefined;
    const path = expandHome(prewarm, this.home);
    const abs = isAbsolute(path) ? path : resolve(path);
    if (!existsSync(abs)) throw new ToolError(`prewarm file ${abs} does not exist`, { phase: 'prewarm' });
    return abs;
  }

  /** Start every member of the family that is not running; on failure stop those just started. */
  private async startFamily(
    session: string,
    prewarm: string | undefined,
    pool: number,
    signal?: AbortSignal,
  ): Promise<{ members: string[]; started: string[] }> {
    if (this.closed) throw new ToolError('the router is shutting down', { phase: 'route' });
    const members = poolMembers(session, pool);
    const missing = members.filter((m) => !this.sessions.get(m)?.alive);
    const command = this.options.childCommand ?? defaultChildCommand();
    const results = await Promise.allSettled(
      missing.map((m) =>
        LocalSession.start(m, {
          command,
          env: this.env,
          ...(prewarm !== undefined ? { prewarm } : {}),
          ...(this.options.startTimeoutMs ? { startTimeoutMs: this.options.startTimeoutMs } : {}),
          ...(signal ? { signal } : {}),
        }),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await Promise.all(results.map((r) => (r.status === 'fulfilled' ? r.value.stop('a pool member failed to start') : undefined)));
      throw failed.reason;
    }
    for (const r of results) {
      if (r.status !== 'fulfilled') continue;
      const old = this.sessions.get(r.value.name);
      if (old) await old.stop('replaced');
      this.sessions.set(r.value.name, r.value);
    }
    for (const m of members) this.families.set(m, { primary: session, ...(prewarm !== undefined ? { prewarm } : {}), pool });
    return { members, started: missing };
  }

  private defineSessionTools(): void {
    const sessionField = z.string().min(1).describe('session name');
    this.tools.define({
      name: 'start_local_session',
      title: 'Start named local session',
      description:
        'Bring up a named local topup subprocess. prewarm: a file #use-d in it before returning (a failing prewarm stops it and returns the error). pool > 1 also starts siblings <session>.1 … <session>.(pool-1) with the same prewarm, so restore on a sibling branches off without a cold load. Idempotent against a live session.',
      input: z.strictObject({
        session: sessionField,
        prewarm: z.string().min(1).optional().describe('path of an OCaml file to #use in the new session'),
        pool: z.number().int().min(1).max(16).optional().describe('number of processes: the session plus pool-1 siblings'),
      }),
      handler: async (args, ctx) => {
        checkName('session', args.session);
        const stored = await this.safeRead(() => this.sessionStore.get(args.session), undefined);
        const prewarm = this.resolvePrewarm(args.prewarm ?? stored?.prewarm);
        const pool = args.pool ?? stored?.pool ?? 1;
        const family = this.families.get(args.session);
        if (family?.primary === args.session && poolMembers(args.session, pool).every((m) => this.sessions.get(m)?.alive)) {
          // Idempotent: a live session is left as it runs (update_local_session + restart change it).
          return {
            session: args.session,
            members: poolMembers(args.session, family.pool),
            already_running: true,
            ...(family.prewarm !== undefined ? { prewarm: family.prewarm } : {}),
            pool: family.pool,
          };
        }
        const { members, started } = await this.once(`session:${args.session}`, () =>
          this.startFamily(args.session, prewarm, pool, ctx.signal),
        );
        await this.sessionStore.set(args.session, { ...(prewarm !== undefined ? { prewarm } : {}), pool });
        return {
          session: args.session,
          members,
          already_running: started.length === 0,
          ...(prewarm !== undefined ? { prewarm } : {}),
          pool,
        };
      },
    });

    this.tools.define({
      name: 'restart_local_session',
      title: 'Restart named local session',
      description:
        "Kill the subprocess(es) of session (the whole pool when it is a pool's primary) and start them again with the stored prewarm and pool.",
      input: z.strictObject({ session: sessionField }),
      handler: async ({ session }, ctx) => {
        checkName('session', session);
        const family = this.families.get(session);
        const primary = family?.primary ?? session;
        const stored = await this.safeRead(() => this.sessionStore.get(primary), undefined);
        if (!family && !stored) throw this.unknownTarget('session', session);
        const prewarm = this.resolvePrewarm(stored?.prewarm ?? family?.prewarm);
        const pool = stored?.pool ?? family?.pool ?? 1;
        // A sibling restarts alone; the primary restarts its whole pool (including members beyond
        // a pool size that update_local_session has since reduced).
        const running = [...this.families].filter(([, f]) => f.primary === session).map(([m]) => m);
        const targets = primary === session ? [...new Set([...running, ...poolMembers(session, pool)])] : [session];
        const result = await this.once(`session:${primary}`, async () => {
          for (const m of targets) {
            const old = this.sessions.get(m);
            this.sessions.delete(m);
            if (primary === session) this.families.delete(m);
            if (old) await old.stop('restarted');
          }
          if (primary === session) return this.startFamily(session, prewarm, pool, ctx.signal);
          await this.startFamily(primary, prewarm, Math.max(pool, Number(session.slice(primary.length + 1)) + 1), ctx.signal);
          return { members: targets, started: targets };
        });
        return { session, members: result.members, restarted: true, ...(prewarm !== undefined ? { prewarm } : {}), pool };
      },
    });

    this.tools.define({
      name: 'update_local_session',
      title: 'Update named local session',
      description:
        'Set or replace the prewarm path and/or pool size of a registered session (persisted to ~/.topup/sessions.json). The running subprocess is not touched; restart_local_session applies the change.',
      input: z.strictObject({
        session: sessionField,
        prewarm: z.string().min(1).optional(),
        pool: z.number().int().min(1).max(16).optional(),
      }),
      handler: async ({ session, prewarm, pool }) => {
        checkName('session', session);
        if (!this.sessions.has(session) && !(await this.sessionStore.get(session))) throw this.unknownTarget('session', session);
        if (prewarm === undefined && pool === undefined)
          throw new ToolError('update_local_session needs prewarm and/or pool; nothing to change', { phase: 'route' });
        const record = await this.sessionStore.set(session, {
          ...(prewarm !== undefined ? { prewarm: this.resolvePrewarm(prewarm)! } : {}),
          ...(pool !== undefined ? { pool } : {}),
        });
        return { session, ...record, applies_after: 'restart_local_session' };
      },
    });
  }

  // ---------------------------------------------------------------- file transfer

  private transferHost(tool: string, host: string, session: string | undefined): RemoteHost {
    if (session !== undefined) {
      throw new ToolError(
        `${tool} moves files between this machine and a remote host; named local sessions share this machine's file system, so pass host, not session`,
        { phase: 'route' },
      );
    }
    if (host === 'local') {
      throw new ToolError(`${tool} needs host: a purely local copy is refused (use the file system directly)`, { phase: 'route' });
    }
    const peer = this.peerFor({ kind: 'host', host });
    return peer as RemoteHost;
  }

  private defineTransferTools(): void {
    this.tools.define({
      name: 'push_file',
      title: 'Push file to host',
      description:
        'Copy a file from this machine to a remote host, base64 in-band over the MCP connection. Capped by TOPUP_XFER_MAX_BYTES (default 16 MiB, checked before reading); written atomically; remote_path defaults to $TOPUP_XFER_DIR/<basename> on the host.',
      input: z.strictObject({
        host: z.string().min(1).describe('remote host (required: purely local copies are refused)'),
        session: z.string().optional().describe('not accepted: transfers need a host'),
        local_path: z.string().min(1).describe('file on this machine (absolute or ~/…)'),
        remote_path: z.string().min(1).optional().describe('destination on the host (absolute or ~/…)'),
      }),
      handler: async (args, ctx) => {
        const peer = this.transferHost('push_file', args.host, args.session);
        const policy = transferPolicy(this.env, this.home);
        const localPath = resolveTransferPath(policy, args.local_path, args.local_path, 'local_path');
        return pushFile((tool, a) => peer.call(tool, a, ctx.signal), localPath, policy.maxBytes, args.remote_path, `host "${peer.name}"`);
      },
    });

    this.tools.define({
      name: 'pull_file',
      title: 'Pull file from host',
      description:
        'Copy a file from a remote host to this machine, base64 in-band over the MCP connection. Capped by TOPUP_XFER_MAX_BYTES (checked on the host before reading); written atomically; local_path defaults to $TOPUP_XFER_DIR/<basename>.',
      input: z.strictObject({
        host: z.string().min(1).describe('remote host (required: purely local copies are refused)'),
        session: z.string().optional().describe('not accepted: transfers need a host'),
        remote_path: z.string().min(1).describe('file on the host (absolute or ~/…)'),
        local_path: z.string().min(1).optional().describe('destination on this machine (absolute or ~/…)'),
      }),
      handler: async (args, ctx) => {
        const peer = this.transferHost('pull_file', args.host, args.session);
        const policy = transferPolicy(this.env, this.home);
        // Resolve the destination first: with TOPUP_XFER_DIR=off and no local_path nothing is fetched.
        const localPath = resolveTransferPath(policy, args.local_path, args.remote_path, 'local_path');
        return pullFile((tool, a) => peer.call(tool, a, ctx.signal), args.remote_path, localPath, policy.maxBytes, `host "${peer.name}"`);
      },
    });
  }

  // ---------------------------------------------------------------- shutdown

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled(this.starting.values());
    const peers: RoutedPeer[] = [...this.hosts.values(), ...this.sessions.values()];
    this.hosts.clear();
    this.sessions.clear();
    await Promise.allSettled(peers.map((p) => p.stop('the server is shutting down')));
  }
}
