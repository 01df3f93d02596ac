// Run a short-lived command and collect its output (toolchain probes, agent build, dune build).
// It runs as the leader of its own process group (common/process-group.ts): a time limit or an
// abort kills the whole group, so a `dune build` stopped at its limit leaves no ocamlopt, ocamlfind
// or other child of its own running.
import { runInProcessGroup } from '../../common/index.js';

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr interleaved in arrival order. */
  output: string;
}

export class CommandNotFound extends Error {
  override readonly name = 'CommandNotFound';
}

export async function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<CommandResult> {
  const chunks: Buffer[] = [];
  const collect = (c: Buffer) => chunks.push(c);
  const r = await runInProcessGroup(command, args, {
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    onStdout: collect,
    onStderr: collect,
  });
  if (!r.started) throw r.error.code === 'ENOENT' ? new CommandNotFound(`${command}: command not found`) : r.error;
  return { code: r.code, signal: r.signal, output: Buffer.concat(chunks).toString('utf8') };
}
