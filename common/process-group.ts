// Running a tool as the leader of its own process group with a time limit: when the limit passes,
// the whole group is killed, so a compiler driver's children (gcc → cc1 → as → ld, a make's jobs)
// cannot outlive it. The caller receives the output through callbacks and keeps its own caps.
import { spawn } from 'node:child_process';

export interface ProcessGroupOptions {
  cwd?: string;
  /** The environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Aborting kills the whole group at once (as the time limit does). */
  signal?: AbortSignal;
  /** Kill the group with SIGKILL after this many ms (0 or absent: no limit). */
  timeoutMs?: number;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
}

export type ProcessGroupOutcome =
  | { started: true; pid: number; code: number | null; signal: NodeJS.Signals | null; timedOut: boolean }
  | { started: false; error: NodeJS.ErrnoException };

/** Spawns `command args` in a new process group; resolves when the leader has exited and its pipes closed. */
export function runInProcessGroup(command: string, args: readonly string[], opts: ProcessGroupOptions = {}): Promise<ProcessGroupOutcome> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let timedOut = false;
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      killProcessGroup(child.pid);
    };
    if (opts.signal?.aborted) queueMicrotask(onAbort);
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      opts.timeoutMs && opts.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            killProcessGroup(child.pid);
          }, opts.timeoutMs)
        : undefined;
    child.stdout.on('data', (b: Buffer) => opts.onStdout?.(b));
    child.stderr.on('data', (b: Buffer) => opts.onStderr?.(b));
    child.once('error', (error) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      done({ started: false, error });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      // The leader is gone; members it left behind (killed or not) go with it.
      if (timedOut || aborted) killProcessGroup(child.pid);
      done({ started: true, pid: child.pid ?? 0, code, signal, timedOut });
    });
  });
}

/** SIGKILL to every process of the group led by `pid`; a group that is already gone is fine. */
export function killProcessGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}
