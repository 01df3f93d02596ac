// Temp folders of the service (a build's copy of the project, an emulator's working folder) carry
// the owner's pid in their name: `ultimate-build-<pid>-XXXXXX`, `ultimate-vice-<pid>-XXXXXX` in the
// OS temp folder. A service killed with -9 cannot remove its own, so the next start removes those
// whose owner is no longer alive. A live pid keeps its folders, even when the pid was reused by an
// unrelated process (erring on the side of keeping); names without a pid (made by older versions)
// are left alone, since whose they are cannot be told.
import { readdirSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const OWNED_TEMP_PREFIXES = ['ultimate-build-', 'ultimate-vice-'] as const;
export type OwnedTempPrefix = (typeof OWNED_TEMP_PREFIXES)[number];

/** A new temp folder named with this process's pid (see above). */
export function mkdtempOwned(prefix: OwnedTempPrefix): Promise<string> {
  return mkdtemp(join(tmpdir(), `${prefix}${process.pid}-`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else — alive.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the temp folders whose owning process is gone; returns their paths. */
export function sweepDeadOwnersTemp(dir: string = tmpdir()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const prefix = OWNED_TEMP_PREFIXES.find((p) => name.startsWith(p));
    if (!prefix) continue;
    const m = /^([0-9]{1,10})-[A-Za-z0-9]{6}$/.exec(name.slice(prefix.length));
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || pid < 1 || alive(pid)) continue;
    try {
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(join(dir, name));
    } catch {
      /* not ours to remove after all (permissions): left for its owner */
    }
  }
  return removed;
}
