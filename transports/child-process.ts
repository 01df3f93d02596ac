import { spawn, type ChildProcess } from 'node:child_process';
import { StreamTransport } from './stream.js';

export interface SpawnStdioOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where the child's stderr goes (default: inherited, so its logs reach ours). */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  maxLineBytes?: number;
  /** How long close() waits after SIGTERM before SIGKILL (default 2000 ms). */
  killGraceMs?: number;
}

/**
 * Launch a program that speaks MCP on its stdin/stdout and return a transport to it.
 * Closing the transport ends the child (stdin closed, SIGTERM, then SIGKILL): no leaked processes.
 * The transport's `onclose` fires when the child's stdout ends, so a dead child is noticed.
 */
export function spawnStdio(
  command: string,
  args: string[] = [],
  options: SpawnStdioOptions = {},
): { transport: StreamTransport; child: ChildProcess } {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', options.stderr ?? 'inherit'],
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const transport = new StreamTransport(child.stdout!, child.stdin!, {
    maxLineBytes: options.maxLineBytes,
    onClose: async () => {
      child.stdin?.end();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), options.killGraceMs ?? 2000);
        await exited;
        clearTimeout(timer);
      }
    },
  });
  // A spawn failure (ENOENT…) surfaces as a transport error followed by close.
  child.once('error', (err) => {
    transport.onerror?.(err);
    void transport.close();
  });
  return { transport, child };
}
