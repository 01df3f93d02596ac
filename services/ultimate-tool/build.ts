// A clean candidate build: the project is copied into a private temp folder (without the
// service's own store and without the outputs the manifest names, so nothing stale can be taken
// for a fresh artifact), the build command runs there with a time limit, and the artifacts and
// symbol files are read back with their SHA-256. A failing build is a result, not an exception.
import { cp, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { runInProcessGroup, sha256Hex } from '../../common/index.js';
import type { Manifest, SymbolFormat } from './manifest.js';

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

/** Copies the project, runs the build, snapshots the outputs; removes the temp copy. */
export async function runCleanBuild(projectRoot: string, manifest: Manifest, opts: { storeDir?: string } = {}): Promise<BuildResult> {
  const work = await mkdtemp(join(tmpdir(), 'ultimate-build-'));
  const copy = join(work, 'project');
  const root = resolve(projectRoot);
  const store = opts.storeDir ? resolve(opts.storeDir) : undefined;
  const outputs = new Set(manifest.artifacts.flatMap((a) => [a.path, ...a.symbols.map((s) => s.path)]).map((p) => join(root, p)));
  const command = manifest.build.command;
  const started = performance.now();
  try {
    await cp(root, copy, {
      recursive: true,
      filter: (src) => {
        const abs = resolve(src);
        if (store && (abs === store || abs.startsWith(store + sep))) return false;
        if (abs.split(sep).includes('.git') || abs.split(sep).includes('.ultimate-tool')) return false;
        return !outputs.has(abs);
      },
    });
    const out = capped();
    const err = capped();
    const commandStarted = performance.now();
    const [cmd, ...args] = command as [string, ...string[]];
    // The build command leads its own process group: the time limit kills its children too.
    const ran = await runInProcessGroup(cmd, args, {
      cwd: copy,
      timeoutMs: manifest.build.timeout_ms,
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
        reason: `the build did not finish within ${manifest.build.timeout_ms} ms and was killed`,
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
    const artifacts = new Map<string, BuiltArtifact>();
    const missing: string[] = [];
    const readOut = async (p: string): Promise<BuiltFile | undefined> => {
      const abs = join(copy, p);
      if (relative(copy, abs).startsWith('..')) return undefined;
      try {
        const st = await stat(abs);
        if (!st.isFile() || st.size > 16 * 1024 * 1024) return undefined;
        const bytes = await readFile(abs);
        return { path: p, bytes, sha256: sha256Hex(bytes) };
      } catch {
        return undefined;
      }
    };
    for (const a of manifest.artifacts) {
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
