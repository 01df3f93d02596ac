// compile_to_binary: the phrase log becomes a dune project under `out`, built natively, and the
// executable copied to out/main.exe.
//
// Layout (so the copied out/main.exe never collides with a dune target on a later promotion):
//   out/.topup-promote      marker: this directory is ours and may be rebuilt
//   out/dune-project        (lang dune 2.9) — what Debian's dune 2.9 accepts
//   out/bin/dune            (executable (name main) (libraries …))
//   out/bin/main.ml         the phrases, then `let () = ignore (<entry> ())`
//   out/main.exe            the built binary
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { writeFileDurable } from '../../common/durable-write.js';
import { OcamlError, ocamlMissing } from './errors.js';
import { CommandNotFound, runCommand } from './run-command.js';
import type { CompileResult } from './types.js';

export const PROMOTE_MARKER = '.topup-promote';
const FINDLIB_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;

/** Refuse `out` unless it is absolute and empty, or an earlier promotion's directory. */
export async function checkOutputDir(out: string): Promise<void> {
  if (!isAbsolute(out)) {
    throw new OcamlError('bad_argument', `out must be an absolute directory path, got ${JSON.stringify(out)}`);
  }
  let names: string[];
  try {
    names = await readdir(out);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new OcamlError('bad_argument', `out ${out} exists and is not a directory`);
    throw new OcamlError('bad_argument', `cannot read out directory ${out}: ${(err as Error).message}`);
  }
  if (names.length > 0 && !names.includes(PROMOTE_MARKER)) {
    throw new OcamlError(
      'bad_argument',
      `out ${out} is not empty and has no ${PROMOTE_MARKER} marker from an earlier promotion; choose an empty or new directory`,
    );
  }
}

/** A directive phrase: its name and its string arguments. */
function parseDirective(phrase: string): { name: string; args: string[] } | null {
  const m = /^#\s*([A-Za-z_][A-Za-z0-9_]*)\s*([\s\S]*)$/.exec(phrase.trim());
  if (!m) return null;
  const args: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"/g;
  for (const a of m[2]!.matchAll(re)) args.push(JSON.parse(`"${a[1]!.replace(/\\'/g, "'")}"`) as string);
  return { name: m[1]!, args };
}

interface Translation {
  source: string;
  required: string[];
  notes: string[];
}

/** Phrases → one compilable module: #require becomes libraries, #use is inlined, other directives dropped. */
export async function translatePhrases(phrases: readonly string[], entry: string): Promise<Translation> {
  const parts: string[] = [];
  const required: string[] = [];
  const notes: string[] = [];
  for (const phrase of phrases) {
    const d = parseDirective(phrase);
    if (!d) {
      parts.push(`${phrase};;`);
      continue;
    }
    if (d.name === 'require') {
      for (const arg of d.args) required.push(...arg.split(/[\s,]+/).filter(Boolean));
    } else if (d.name === 'use' || d.name === 'mod_use') {
      const file = resolve(d.args[0] ?? '');
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new OcamlError('build_failed', `the log's #${d.name} "${d.args[0]}" cannot be inlined: ${(err as Error).message}`);
      }
      parts.push(d.name === 'use' ? `${text}\n;;` : `module ${moduleNameOf(file)} = struct\n${text}\nend;;`);
      notes.push(`inlined #${d.name} ${file}`);
    } else {
      notes.push(`dropped directive #${d.name} (only #require and #use have a compiled meaning)`);
    }
  }
  parts.push(`let () = ignore (${entry} ())`);
  return { source: `${parts.join('\n')}\n`, required, notes };
}

function moduleNameOf(file: string): string {
  const base = file.replace(/^.*\//, '').replace(/\..*$/, '');
  return base.charAt(0).toUpperCase() + base.slice(1);
}

export async function promoteToBinary(opts: {
  phrases: readonly string[];
  entry: string;
  out: string;
  libraries: readonly string[];
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}): Promise<CompileResult> {
  const { out } = opts;
  await checkOutputDir(out);
  for (const lib of opts.libraries) {
    if (!FINDLIB_NAME.test(lib)) throw new OcamlError('bad_argument', `library ${JSON.stringify(lib)} is not a findlib package name`);
  }
  const t = await translatePhrases(opts.phrases, opts.entry);
  const libraries = [...new Set([...opts.libraries, ...t.required])];

  await mkdir(join(out, 'bin'), { recursive: true, mode: 0o755 });
  await writeFileDurable(join(out, PROMOTE_MARKER), 'created by topup compile_to_binary; this directory may be rebuilt\n', { mode: 0o644 });
  await writeFileDurable(join(out, 'dune-project'), '(lang dune 2.9)\n', { mode: 0o644 });
  await writeFileDurable(
    join(out, 'bin', 'dune'),
    // The toplevel only warned; the release build must not turn those warnings into errors.
    `(executable\n (name main)\n (flags (:standard -w -a))\n (libraries ${libraries.join(' ')}))\n`,
    { mode: 0o644 },
  );
  await writeFileDurable(join(out, 'bin', 'main.ml'), t.source, { mode: 0o644 });

  const header = t.notes.length ? `${t.notes.map((n) => `topup: ${n}`).join('\n')}\n` : '';
  let r: Awaited<ReturnType<typeof runCommand>>;
  try {
    r = await runCommand('dune', ['build', '--root', out, '--profile', 'release', './bin/main.exe'], {
      cwd: out,
      env: opts.env,
      timeoutMs: 600_000,
      signal: opts.signal,
    });
  } catch (err) {
    if (err instanceof CommandNotFound) throw ocamlMissing('dune');
    throw err;
  }
  const built = join(out, '_build', 'default', 'bin', 'main.exe');
  if (r.code !== 0 || !existsSync(built)) {
    const why = r.signal ? `dune was stopped by ${r.signal}\n` : '';
    return { ok: false, binary_path: null, build_log: header + why + r.output };
  }
  const binary = join(out, 'main.exe');
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    await copyFile(built, tmp);
    await chmod(tmp, 0o755);
    await rename(tmp, binary);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return { ok: true, binary_path: binary, build_log: header + r.output };
}
