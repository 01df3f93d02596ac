// One running agent: the child process, its JSON-lines channel on fd 3, and its exit.
// Requests are strictly one at a time (the engine serializes), so an answer always belongs to
// the single pending request.
//
// The agent leads its own process group (a new session), and what user code forks stays in it:
// killing the agent kills the group, and so does the agent's exit (whatever it left running
// dies with it). fd 4 is the agent's watchdog line: this process never writes to it, and when
// this process dies — even by SIGKILL, which runs no handler — the kernel closes it and the
// agent's watchdog kills the group (agent_core.ml, start_watchdog).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { OcamlError } from './errors.js';

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The agent went away while a request was pending (user code called exit, a crash, a kill). */
export class AgentExitedError extends Error {
  override readonly name = 'AgentExitedError';
  constructor(readonly exit: AgentExit) {
    super(exit.signal ? `the toplevel process was killed by ${exit.signal}` : `the toplevel process exited with code ${exit.code}`);
  }
}

/**
 * util-linux's setpriv (always present on Debian) makes the kernel SIGKILL the agent when this
 * process dies, even by SIGKILL — otherwise an agent spinning in user code would outlive us.
 * It execs the agent, so the child's pid is the agent's.
 */
const SETPRIV = '/usr/bin/setpriv';
const useSetpriv = process.platform === 'linux' && existsSync(SETPRIV);

export type AgentReply = Record<string, unknown> & { ok?: boolean; error?: unknown };

export class AgentProcess {
  readonly pid: number;
  private readonly channel: Duplex;
  private buffered = '';
  private pending: { resolve: (r: AgentReply) => void; reject: (e: Error) => void } | null = null;
  private exitInfo: AgentExit | null = null;
  private readonly exitWaiters: Array<(e: AgentExit) => void> = [];

  private constructor(
    private readonly child: ChildProcess,
    private readonly log: (line: string) => void,
  ) {
    this.pid = child.pid!;
    this.channel = child.stdio[3] as Duplex;
    this.channel.setEncoding('utf8');
    this.channel.on('data', (chunk: string) => this.onData(chunk));
    this.channel.on('error', () => {
      // EPIPE/ECONNRESET when the agent dies: the exit handler reports it.
    });
    (child.stdio[4] as Duplex | null)?.on('error', () => {});
    // Output outside a capture window (background threads, the runtime) is diagnostics: to stderr.
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) if (line.trim()) this.log(line);
      });
    }
    child.once('exit', (code, signal) => {
      this.exitInfo = { code, signal };
      // What user code forked (and the watchdog) must not outlive the agent.
      this.killGroup();
      (child.stdio[4] as Duplex | null)?.destroy();
      const p = this.pending;
      this.pending = null;
      p?.reject(new AgentExitedError(this.exitInfo));
      for (const w of this.exitWaiters.splice(0)) w(this.exitInfo);
    });
  }

  /** Start the agent and wait for its ready line. */
  static async start(opts: {
    binary: string;
    workdir: string;
    env?: NodeJS.ProcessEnv;
    log: (line: string) => void;
    startTimeoutMs?: number;
  }): Promise<{ agent: AgentProcess; ready: AgentReply }> {
    const [command, args] = useSetpriv ? [SETPRIV, ['--pdeathsig', 'KILL', '--', opts.binary]] : [opts.binary, []];
    const child = spawn(command, args, {
      cwd: opts.workdir,
      env: { ...(opts.env ?? process.env), TOPUP_AGENT_WORKDIR: opts.workdir },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      // setsid(): the agent leads a new process group, which the server can kill as a whole.
      detached: true,
    });
    const spawned = await new Promise<Error | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (err) => resolve(err));
    });
    if (spawned) throw new OcamlError('agent_start', `cannot start the OCaml agent ${opts.binary}: ${spawned.message}`);
    const agent = new AgentProcess(child, opts.log);
    let timer: NodeJS.Timeout | undefined;
    try {
      const ready = await Promise.race([
        agent.nextReply(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new OcamlError('agent_start', `the OCaml agent did not report ready within ${opts.startTimeoutMs ?? 20_000} ms`)),
            opts.startTimeoutMs ?? 20_000,
          );
        }),
      ]);
      return { agent, ready };
    } catch (err) {
      agent.kill();
      if (err instanceof AgentExitedError) throw new OcamlError('agent_start', `the OCaml agent failed at start: ${err.message}`);
      throw err;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  get alive(): boolean {
    return this.exitInfo === null;
  }

  /** Send one request and wait for its answer (rejects with AgentExitedError if the agent dies). */
  async request(req: Record<string, unknown>): Promise<AgentReply> {
    if (this.exitInfo) throw new AgentExitedError(this.exitInfo);
    if (this.pending) throw new Error('agent request while another is pending (engine bug)');
    const reply = this.nextReply();
    this.channel.write(`${JSON.stringify(req)}\n`);
    return reply;
  }

  private nextReply(): Promise<AgentReply> {
    return new Promise((resolve, reject) => {
      if (this.exitInfo) return reject(new AgentExitedError(this.exitInfo));
      this.pending = { resolve, reject };
    });
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      if (!line.trim()) continue;
      let parsed: AgentReply;
      try {
        parsed = JSON.parse(line) as AgentReply;
      } catch {
        const p = this.pending;
        this.pending = null;
        p?.reject(new Error(`the OCaml agent sent a malformed line: ${line.slice(0, 200)}`));
        continue;
      }
      const p = this.pending;
      this.pending = null;
      p?.resolve(parsed);
    }
  }

  /** SIGINT: the agent turns it into Sys.Break inside a running phrase, ignores it otherwise. */
  interrupt(): void {
    if (this.alive) this.child.kill('SIGINT');
  }

  /** SIGKILL the agent and everything in its process group. */
  kill(): void {
    if (this.alive) {
      this.killGroup();
      this.child.kill('SIGKILL');
    }
  }

  private killGroup(): void {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // ESRCH: the group is gone already.
    }
  }

  exited(): Promise<AgentExit> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /** Kill and wait until the process is gone. */
  async stop(): Promise<void> {
    this.kill();
    await this.exited();
  }
}
