// A clean candidate build: the project is copied into a private temp folder (without the
// service's own store and without the outputs the manifest names, so nothing stale can be taken
// for a fresh artifact), the build command runs there with a time limit, and the artifacts and
// symbol files are read back with their SHA-256. A failing build is a result, not an exception.
// Symlinks are copied as they are written (a relative one keeps pointing inside the copy); one
// that leads out of the project fails the build, and an output is read only when its realpath is
// inside the copy — so a link to /etc can never become stored, served evidence.
import { cp, lstat, readFile, readlink, realpath, rm, stat } from 'node:fs/promises';
import { mkdtempOwned } from '../jobs/owned-temp.js';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { runInProcessGroup, sha256Hex } from '../../../common/index.js';
import type { Manifest, SymbolFormat } from '../project/manifest.js';
import { PROJECT_PATH_RULE, escapeMessage, isInside } from '../project/project-paths.js';

/** Output kept per stream; more is cut (and said so in the log). */
const LOG_CAP_BYTES = 1024 * 1024;

export interface BuiltFile {
  /** Path in the project, e.g. build/pass.prg. */
  path: string;
  bytes: Buffer;
  sha256: string;
}

export interface BuiltArtifact {
  name: string;
  prg: BuiltFile;
  symbols: Array<BuiltFile & { format: SymbolFormat }>;
}

export type BuildResult =
  | {
      ok: true;
      command: string[];
      exitCode: number;
      durationMs: number;
      /** The build command alone (the assembler), without the copy and the snapshot. */
      commandMs: number;
      stdout: Buffer;
      stderr: Buffer;
      artifacts: Map<string, BuiltArtifact>;
    }
  | {
      ok: false;
      command: string[];
      exitCode: number | null;
      signal: string | null;
      timedOut: boolean;
      durationMs: number;
      commandMs: number;
      stdout: Buffer;
      stderr: Buffer;
      reason: string;
    };

/** How much of a failed build's output its job error quotes (the rest is in build-stderr.txt). */
export const BUILD_OUTPUT_TAIL_LINES = 20;
export const BUILD_OUTPUT_TAIL_CHARS = 2000;

/**
 * A failed build's reason with the tail of what it printed (stderr, else stdout): the assembler's
 * own error belongs in the job's error, not only in build-stderr.txt.
 */
export function buildFailureMessage(build: Extract<BuildResult, { ok: false }>): string {
  const out = (build.stderr.length ? build.stderr : build.stdout).toString('utf8').replace(/\s+$/, '');
  if (!out) return build.reason;
  let tail = out.split('\n').slice(-BUILD_OUTPUT_TAIL_LINES).join('\n');
  if (tail.length > BUILD_OUTPUT_TAIL_CHARS) tail = `…${tail.slice(-BUILD_OUTPUT_TAIL_CHARS)}`;
  return `${build.reason}; its ${build.stderr.length ? 'stderr' : 'output'} ends with:\n${tail}`;
}

function capped(): { push(b: Buffer): void; value(): Buffer } {
  const parts: Buffer[] = [];
  let size = 0;
  let cut = false;
  return {
    push(b) {
      if (size >= LOG_CAP_BYTES) {
        cut = true;
        return;
      }
      const take = b.subarray(0, LOG_CAP_BYTES - size);
      if (take.length < b.length) cut = true;
      parts.push(take);
      size += take.length;
    },
    value() {
      return cut ? Buffer.concat([...parts, Buffer.from(`\n[output cut at ${LOG_CAP_BYTES} bytes]\n`)]) : Buffer.concat(parts);
    },
  };
}

/**
 * Copies the project, runs the build, snapshots the outputs; removes the temp copy. A project
 * without a build (`build: null`) is not copied: its prebuilt PRGs are read from it as they are.
 * `artifacts` names the artifacts to snapshot (default: all of them).
 */
export async function runCleanBuild(
  projectRoot: string,
  manifest: Manifest,
  opts: { storeDir?: string; artifacts?: ReadonlySet<string> } = {},
): Promise<BuildResult> {
  if (manifest.build === null) return readPrebuilt(projectRoot, manifest, opts.artifacts);
  const build = manifest.build;
  const work = await mkdtempOwned('ultimate-build-');
  const copy = join(work, 'project');
  const root = resolve(projectRoot);
  const store = opts.storeDir ? resolve(opts.storeDir) : undefined;
  // Prebuilt artifacts are part of the project: copied like any source file.
  const outputs = new Set(
    manifest.artifacts
      .filter((a) => !a.prebuilt)
      .flatMap((a) => [a.path, ...a.symbols.map((s) => s.path)])
      .map((p) => join(root, p)),
  );
  const command = build.command;
  const started = performance.now();
  try {
    const rootReal = await realpath(root);
    const escapes: string[] = [];
    await cp(root, copy, {
      recursive: true,
      verbatimSymlinks: true,
      filter: async (src) => {
        const abs = resolve(src);
        if (store && (abs === store || abs.startsWith(store + sep))) return false;
        if (abs.split(sep).includes('.git') || abs.split(sep).includes('.ultimate-tool')) return false;
        if (outputs.has(abs)) return false;
        const leads = await symlinkLeadsOut(abs, root, rootReal);
        if (leads !== null) {
          escapes.push(escapeMessage(relative(root, abs), leads, rootReal));
          return false;
        }
        return true;
      },
    });
    if (escapes.length)
      return {
        ok: false,
        command,
        durationMs: performance.now() - started,
        commandMs: 0,
        stdout: Buffer.alloc(0),
        stderr: Buffer.alloc(0),
        exitCode: null,
        signal: null,
        timedOut: false,
        reason: `the project holds symlinks that lead out of it, so it was not built: ${escapes.join('; ')}`,
      };
    const out = capped();
    const err = capped();
    const commandStarted = performance.now();
    const [cmd, ...args] = command as [string, ...string[]];
    // The build command leads its own process group: the time limit kills its children too.
    const ran = await runInProcessGroup(cmd, args, {
      cwd: copy,
      timeoutMs: build.timeout_ms,
      onStdout: (b) => out.push(b),
      onStderr: (b) => err.push(b),
    });
    const outcome = ran.started
      ? { code: ran.code, signal: ran.signal as string | null, timedOut: ran.timedOut, spawnError: undefined }
      : { code: null, signal: null, timedOut: false, spawnError: ran.error.message };
    const commandMs = performance.now() - commandStarted;
    const durationMs = performance.now() - started;
    const base = { command, durationMs, commandMs, stdout: out.value(), stderr: err.value() };
    if (outcome.spawnError !== undefined)
      return {
        ok: false,
        ...base,
        exitCode: null,
        signal: null,
        timedOut: false,
        reason: `the build command could not start: ${outcome.spawnError}`,
      };
    if (outcome.timedOut)
      return {
        ok: false,
        ...base,
        exitCode: outcome.code,
        signal: outcome.signal,
        timedOut: true,
        reason: `the build did not finish within ${build.timeout_ms} ms and was killed`,
      };
    if (outcome.code !== 0)
      return {
        ok: false,
        ...base,
        exitCode: outcome.code,
        signal: outcome.signal,
        timedOut: false,
        reason: `the build command ${JSON.stringify(command)} exited with ${outcome.code === null ? `signal ${outcome.signal}` : `status ${outcome.code}`}`,
      };
    const { artifacts, missing, escapedOutputs } = await snapshotArtifacts(
      copy,
      manifest,
      opts.artifacts,
      "the build's copy of the project",
    );
    if (escapedOutputs.length)
      return {
        ok: false,
        ...base,
        exitCode: outcome.code,
        signal: null,
        timedOut: false,
        reason: `the build left outputs that lead out of the project, so they were not read: ${escapedOutputs.join('; ')}; ${PROJECT_PATH_RULE}`,
      };
    if (missing.length)
      return {
        ok: false,
        ...base,
        exitCode: outcome.code,
        signal: null,
        timedOut: false,
        reason: `the build succeeded but did not produce ${missing.join(', ')} (named in ultimate-tool.json)`,
      };
    return { ok: true, ...base, durationMs: performance.now() - started, exitCode: 0, artifacts };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Reads the artifacts (PRG and symbol files) under `dir`, each only when its realpath is inside it. */
async function snapshotArtifacts(
  dir: string,
  manifest: Manifest,
  only: ReadonlySet<string> | undefined,
  what: string,
): Promise<{ artifacts: Map<string, BuiltArtifact>; missing: string[]; escapedOutputs: string[] }> {
  const artifacts = new Map<string, BuiltArtifact>();
  const missing: string[] = [];
  const dirReal = await realpath(dir);
  const escapedOutputs: string[] = [];
  const readOut = async (p: string): Promise<BuiltFile | undefined> => {
    const abs = join(dir, p);
    if (relative(dir, abs).startsWith('..')) return undefined;
    try {
      const real = await realpath(abs);
      if (!isInside(dirReal, real)) {
        escapedOutputs.push(`${JSON.stringify(p)} resolves to ${real}, outside ${what}`);
        return undefined;
      }
      const st = await stat(real);
      if (!st.isFile() || st.size > 16 * 1024 * 1024) return undefined;
      const bytes = await readFile(real);
      return { path: p, bytes, sha256: sha256Hex(bytes) };
    } catch {
      return undefined;
    }
  };
  for (const a of manifest.artifacts) {
    if (only && !only.has(a.name)) continue;
    const prg = await readOut(a.path);
    if (!prg) missing.push(a.path);
    const symbols: BuiltArtifact['symbols'] = [];
    for (const s of a.symbols) {
      const f = await readOut(s.path);
      if (!f) missing.push(s.path);
      else symbols.push({ ...f, format: s.format });
    }
    if (prg) artifacts.set(a.name, { name: a.name, prg, symbols });
  }
  return { artifacts, missing, escapedOutputs };
}

/** `build: null`: nothing runs; the prebuilt files are read from the project as they are. */
async function readPrebuilt(projectRoot: string, manifest: Manifest, only: ReadonlySet<string> | undefined): Promise<BuildResult> {
  const started = performance.now();
  const base = { command: [] as string[], commandMs: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
  const { artifacts, missing, escapedOutputs } = await snapshotArtifacts(resolve(projectRoot), manifest, only, 'the project');
  const fail = (reason: string): BuildResult => ({
    ok: false,
    ...base,
    durationMs: performance.now() - started,
    exitCode: null,
    signal: null,
    timedOut: false,
    reason,
  });
  if (escapedOutputs.length)
    return fail(`prebuilt files lead out of the project, so they were not read: ${escapedOutputs.join('; ')}; ${PROJECT_PATH_RULE}`);
  if (missing.length) return fail(`the prebuilt files ${missing.join(', ')} (named in ultimate-tool.json) are not in the project`);
  return { ok: true, ...base, durationMs: performance.now() - started, exitCode: 0, artifacts };
}

/**
 * Where a symlink of the project leads when that is outside the project, else null (also for
 * anything that is not a symlink). A dangling link is judged by where its text points.
 */
async function symlinkLeadsOut(abs: string, root: string, rootReal: string): Promise<string | null> {
  const st = await lstat(abs).catch(() => undefined);
  if (!st?.isSymbolicLink()) return null;
  const real = await realpath(abs).catch(() => null);
  const leads = real ?? resolve(dirname(abs), await readlink(abs));
  return isInside(rootReal, leads) || isInside(root, leads) ? null : leads;
}
