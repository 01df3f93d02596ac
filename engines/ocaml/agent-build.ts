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
import { agentSourceDir } from './package-root.js';
import { CommandNotFound, runCommand } from './run-command.js';

/**
 * Which toplevel the agent runs phrases in: OCaml's bytecode toplevel library (topup), or the
 * native one of native_toplevel.ml, which compiles each phrase to native code and loads it in memory
 * (topup-opt). Both share agent_core.ml.
 */
export type AgentDriver = 'bytecode' | 'native';

interface AgentRecipe {
  binary: string;
  compiler: 'ocamlc' | 'ocamlopt';
  packages: string;
  /** Sources in link order, from engines/ocaml/agent/. */
  sources: readonly string[];
}

const RECIPES: Record<AgentDriver, AgentRecipe> = {
  bytecode: {
    binary: 'topup_agent.byte',
    compiler: 'ocamlc',
    packages: 'compiler-libs.toplevel,findlib,unix',
    sources: ['agent_core.ml', 'topup_agent.ml'],
  },
  native: {
    binary: 'topup_agent.opt',
    compiler: 'ocamlopt',
    packages: 'compiler-libs.optcomp,findlib,unix,dynlink',
    sources: [
      'phrase_loader_stubs.c',
      'agent_core.ml',
      'value_printer.ml',
      'phrase_assembler.ml',
      'phrase_loader.ml',
      'phrase_codegen.ml',
      'native_toplevel.ml',
      'topup_agent_native.ml',
    ],
  },
};

export interface AgentBuildOptions {
  /** Default 'bytecode'. */
  driver?: AgentDriver;
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
  const recipe = RECIPES[options.driver ?? 'bytecode'];
  const version = await ocamlVersion(env);
  const sourceDir = agentSourceDir();
  const hash = createHash('sha256').update(version).update('\0').update(recipe.compiler).update('\0').update(recipe.packages);
  for (const name of recipe.sources) {
    const path = join(sourceDir, name);
    const text = await readFile(path).catch((err: Error) => {
      throw new OcamlError('agent_build', `the agent source ${path} is missing from the package: ${err.message}`);
    });
    hash.update('\0').update(name).update('\0').update(text);
  }
  const key = hash.digest('hex').slice(0, 20);
  const cacheDir = options.cacheDir ?? defaultAgentCacheDir(env);
  const finalDir = join(cacheDir, key);
  const binary = join(finalDir, recipe.binary);
  if (existsSync(binary)) return binary;

  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const buildDir = await mkdtemp(join(cacheDir, `.build-${key}-`));
  try {
    for (const name of recipe.sources) await copyFile(join(sourceDir, name), join(buildDir, name));
    let r: Awaited<ReturnType<typeof runCommand>>;
    try {
      r = await runCommand(
        'ocamlfind',
        [recipe.compiler, '-package', recipe.packages, '-linkpkg', '-linkall', ...recipe.sources, '-o', recipe.binary],
        { cwd: buildDir, env, timeoutMs: 180_000 },
      );
    } catch (err) {
      if (err instanceof CommandNotFound) throw ocamlMissing('ocamlfind');
      throw err;
    }
    if (r.code !== 0 || !existsSync(join(buildDir, recipe.binary))) {
      const hint = /compiler-libs|findlib|unix|dynlink/.test(r.output) ? ' (are libfindlib-ocaml-dev and ocaml-nox installed?)' : '';
      throw new OcamlError('agent_build', `building the OCaml agent (${recipe.binary}) failed${hint}:\n${r.output.trim()}`);
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
