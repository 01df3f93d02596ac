// One run of an external product through the strict product boundary: a fresh process in its
// own process group (detached), an empty environment, the request on stdin, at most
// `maxOutputBytes` of stdout and a small stderr tail kept; a wall clock and an abort signal both
// terminate the WHOLE process group (SIGKILL to -pgid), so grandchildren cannot outlive a run.

import { spawn } from 'node:child_process';
import { killProcessGroup } from '../../../common/index.js';

export type ProductRunOutcome =
  | { readonly kind: 'exited'; readonly stdout: string; readonly exitCode: number; readonly stderr: string; readonly wallMs: number }
  | { readonly kind: 'crashed'; readonly exitCode: number | null; readonly signal: string | null; readonly stderr: string }
  | { readonly kind: 'oversized'; readonly limitBytes: number }
  | { readonly kind: 'wall-clock-exceeded'; readonly limitMs: number }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'spawn-failed'; readonly message: string };

export interface ProductRunOptions {
  readonly executable: string;
  readonly args: readonly string[];
  readonly stdin: string;
  readonly wallClockMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
  /** Called with the process group id as soon as the product started (tests observe it). */
  readonly onStart?: (pgid: number) => void;
  readonly cwd?: string;
}

const STDERR_TAIL = 4096;

/** True while any process of group `pgid` exists. */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function runProduct(options: ProductRunOptions): Promise<ProductRunOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    if (options.signal?.aborted) {
      resolve({ kind: 'cancelled' });
      return;
    }
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(options.executable, [...options.args], {
        detached: true,
        env: {},
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      });
    } catch (e) {
      resolve({ kind: 'spawn-failed', message: e instanceof Error ? e.message : String(e) });
      return;
    }
    const pgid = child.pid;
    let stop: ProductRunOutcome | null = null;
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    const finishEarly = (outcome: ProductRunOutcome): void => {
      if (stop !== null) return;
      stop = outcome;
      if (pgid !== undefined) killProcessGroup(pgid);
    };
    const timer = setTimeout(() => finishEarly({ kind: 'wall-clock-exceeded', limitMs: options.wallClockMs }), options.wallClockMs);
    const onAbort = (): void => finishEarly({ kind: 'cancelled' });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (pgid !== undefined) options.onStart?.(pgid);

    child.stdout!.on('data', (chunk: Buffer) => {
      if (stop !== null) return;
      bytes += chunk.length;
      if (bytes > options.maxOutputBytes) {
        finishEarly({ kind: 'oversized', limitBytes: options.maxOutputBytes });
        return;
      }
      chunks.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    child.stdin!.on('error', () => {
      // The product may exit without reading its request (a crash); the exit reports it.
    });
    child.on('error', (e) => finishEarly({ kind: 'spawn-failed', message: e.message }));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever the product left behind in its group goes too.
      if (pgid !== undefined) killProcessGroup(pgid);
      if (stop !== null) {
        resolve(stop);
        return;
      }
      if (code !== 0) {
        resolve({ kind: 'crashed', exitCode: code, signal, stderr });
        return;
      }
      resolve({
        kind: 'exited',
        stdout: Buffer.concat(chunks).toString('utf8'),
        exitCode: 0,
        stderr,
        wallMs: performance.now() - started,
      });
    });
    child.stdin!.end(options.stdin);
  });
}
