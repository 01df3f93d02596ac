// Confinement of the paths a project names. A manifest path is text ("build/pass.labels"), but
// what the service reads is wherever that text leads on disk: a symlink inside the project
// (`outside -> /etc`, path `outside/passwd`) would otherwise take it out of the project, and the
// file it reads becomes stored, served evidence. So every path is resolved with realpath, symlinks
// included, and must end inside the project's own real root. One rule, one wording, for the
// manifest, the clean build's copy and its outputs, and the files read at job time.
import { lstat, readFile, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';

/** The rule, as every refusal states it. */
export const PROJECT_PATH_RULE = 'a project path must resolve inside the project, symlinks included';

/** `inner` is `root` itself or below it (both already absolute and normalized). */
export function isInside(root: string, inner: string): boolean {
  return inner === root || inner.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Where a project-relative path leads when it leaves the project, or null when it stays inside.
 * `..` and absolute paths leave by their text; otherwise each existing prefix is resolved with
 * realpath (a missing component ends the walk: what does not exist yet cannot be a symlink, and a
 * build output is checked again once it exists). `rootReal` is the project's realpath.
 */
export async function projectPathEscape(rootReal: string, rel: string): Promise<string | null> {
  if (isAbsolute(rel)) return normalize(rel);
  const parts = normalize(rel)
    .split(/[\\/]+/)
    .filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return resolve(rootReal, rel);
  let at = rootReal;
  for (let i = 0; i < parts.length; i++) {
    at = join(at, parts[i]!);
    try {
      await lstat(at);
    } catch {
      return null;
    }
    const real = await realpath(at).catch(() => null);
    // A dangling symlink: judge where its text points (it may come to exist later).
    const leads = real ?? resolve(dirname(at), await readlink(at).catch(() => '.'));
    if (!isInside(rootReal, leads)) return join(leads, ...parts.slice(i + 1));
    at = real ?? at;
  }
  return null;
}

/** The refusal of one path, naming it, where it leads and the rule. */
export function escapeMessage(rel: string, leads: string, root: string): string {
  return `${JSON.stringify(rel)} resolves to ${leads}, outside the project ${root}; ${PROJECT_PATH_RULE}`;
}

export class ProjectPathError extends Error {
  override readonly name = 'ProjectPathError';
}

/** Reads a file the project names, after confining it (symlinks followed, then checked). */
export async function readProjectFile(projectRoot: string, rel: string): Promise<Buffer> {
  const root = await realpath(projectRoot);
  const leads = await projectPathEscape(root, rel);
  if (leads !== null) throw new ProjectPathError(escapeMessage(rel, leads, root));
  const real = await realpath(join(root, rel));
  // Checked again on the final realpath: the file itself may be the symlink.
  if (!isInside(root, real)) throw new ProjectPathError(escapeMessage(rel, real, root));
  return readFile(real);
}
