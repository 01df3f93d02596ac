// The agent is shipped as OCaml source and compiled on first use into a cache keyed by the source
// hash and the compiler version, so an upgraded compiler or agent never reuses a stale binary.
// Two processes may build at once: each builds in its own temp dir and renames it into place;
// the loser of the rename race uses the winner's build.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, copyFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { OcamlError, ocamlMissing } from './errors.js';
import { agentSourcePath } from './package-root.js';
import { CommandNotFound, runCommand } from './run-command.js';

export const AGENT_BINARY_NAME = 'topup_agent.byte';
const AGENT_PACKAGES = 'compiler-libs.toplevel,findlib,unix';

export interface AgentBuildOptions {
  /** Cache root; default $XDG_CACHE_HOME/mcp-engines/ocaml-agent or ~/.cache/mcp-engines/ocaml-agent. */
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
}

export function defaultAgentCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'mcp-engines', 'ocaml-agent');
}

/** `ocamlc -version`, or a clear error naming the packages to install. */
export async function ocamlVersion(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    const r = await runCommand('ocamlfind', ['ocamlc', '-version'], { env, timeoutMs: 30_000 });
    if (r.code !== 0) {
      if (/not found|Unknown|No such/i.test(r.output)) throw ocamlMissing('ocamlc (via ocamlfind)');
      throw new OcamlError('ocaml_missing', `"ocamlfind ocamlc -version" failed: ${r.output.trim()}`);
    }
    return r.output.trim();
  } catch (err) {
    if (err instanceof CommandNotFound) throw ocamlMissing('ocamlfind');
    throw err;
  }
}

/** Path of a built agent binary, building it first if the cache does not have it. */
export async function ensureAgentBinary(options: AgentBuildOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const version = await ocamlVersion(env);
  const sourcePath = agentSourcePath();
  const source = await readFile(sourcePath).catch((err: Error) => {
    throw new OcamlError('agent_build', `the agent source ${sourcePath} is missing from the package: ${err.message}`);
  });
  const key = createHash('sha256')
    .update(source)
    .update('\0')
    .update(version)
    .update('\0')
    .update(AGENT_PACKAGES)
    .digest('hex')
    .slice(0, 20);
  const cacheDir = options.cacheDir ?? defaultAgentCacheDir(env);
  const finalDir = join(cacheDir, key);
  const binary = join(finalDir, AGENT_BINARY_NAME);
  if (existsSync(binary)) return binary;

  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const buildDir = await mkdtemp(join(cacheDir, `.build-${key}-`));
  try {
    await copyFile(sourcePath, join(buildDir, 'topup_agent.ml'));
    let r;
    try {
      r = await runCommand(
        'ocamlfind',
        ['ocamlc', '-package', AGENT_PACKAGES, '-linkpkg', '-linkall', 'topup_agent.ml', '-o', AGENT_BINARY_NAME],
        { cwd: buildDir, env, timeoutMs: 180_000 },
      );
    } catch (err) {
      if (err instanceof CommandNotFound) throw ocamlMissing('ocamlfind');
      throw err;
    }
    if (r.code !== 0 || !existsSync(join(buildDir, AGENT_BINARY_NAME))) {
      const hint = /compiler-libs|findlib|unix/.test(r.output) ? ` (are ${'libfindlib-ocaml-dev'} and ocaml-nox installed?)` : '';
      throw new OcamlError('agent_build', `building the OCaml agent failed${hint}:\n${r.output.trim()}`);
    }
    try {
      await rename(buildDir, finalDir);
    } catch (err) {
      // Another process finished first: its build is as good as ours.
      const code = (err as NodeJS.ErrnoException).code;
      if (!(code === 'ENOTEMPTY' || code === 'EEXIST') || !existsSync(binary)) throw err;
      await rm(buildDir, { recursive: true, force: true });
    }
    return binary;
  } catch (err) {
    await rm(buildDir, { recursive: true, force: true });
    throw err;
  }
}
