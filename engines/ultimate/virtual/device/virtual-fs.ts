// The virtual device's file system: the firmware's roots (/Usb0, /Usb1, /SD, /Flash, /Temp) held
// in memory, shared by the FTP server and the REST runners. Paths are normalised before use, so no
// path can leave its root; the total size is capped so an upload cannot exhaust the host.
import { posix } from 'node:path';

export const ROOTS = ['Usb0', 'Usb1', 'SD', 'Flash', 'Temp'] as const;

export class FsError extends Error {
  constructor(
    readonly code: 'not-found' | 'exists' | 'not-empty' | 'is-directory' | 'not-directory' | 'read-only' | 'full' | 'bad-path',
    message: string,
  ) {
    super(message);
  }
}

interface Node {
  dir: boolean;
  data?: Uint8Array;
  mtime: Date;
}

export class VirtualFs {
  readonly #nodes = new Map<string, Node>();
  readonly capacityBytes: number;
  #used = 0;

  constructor(capacityBytes = 64 * 1024 * 1024) {
    this.capacityBytes = capacityBytes;
    this.#nodes.set('/', { dir: true, mtime: new Date() });
    for (const r of ROOTS) this.#nodes.set(`/${r}`, { dir: true, mtime: new Date() });
  }

  /** Resolves `p` against `cwd` into a canonical absolute path ('/' at most: '..' cannot escape). */
  resolve(cwd: string, p: string): string {
    if (/[\0\r\n]/.test(p)) throw new FsError('bad-path', 'path contains control characters');
    const joined = posix.normalize(posix.join(p.startsWith('/') ? '/' : cwd, p));
    const out = joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
    // Root names match case-insensitively on the firmware; keep the canonical spelling.
    const parts = out.split('/');
    const root = ROOTS.find((r) => r.toLowerCase() === parts[1]?.toLowerCase());
    if (root) parts[1] = root;
    return parts.join('/') || '/';
  }

  stat(path: string): { dir: boolean; size: number; mtime: Date } | undefined {
    const n = this.#nodes.get(path);
    return n && { dir: n.dir, size: n.data?.length ?? 0, mtime: n.mtime };
  }

  list(path: string): Array<{ name: string; dir: boolean; size: number; mtime: Date }> {
    const n = this.#nodes.get(path);
    if (!n) throw new FsError('not-found', `${path}: no such directory`);
    if (!n.dir) throw new FsError('not-directory', `${path}: not a directory`);
    const prefix = path === '/' ? '/' : `${path}/`;
    const out: Array<{ name: string; dir: boolean; size: number; mtime: Date }> = [];
    for (const [p, node] of this.#nodes) {
      if (p !== path && p.startsWith(prefix) && !p.slice(prefix.length).includes('/')) {
        out.push({ name: p.slice(prefix.length), dir: node.dir, size: node.data?.length ?? 0, mtime: node.mtime });
      }
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  read(path: string): Uint8Array {
    const n = this.#nodes.get(path);
    if (!n) throw new FsError('not-found', `${path}: no such file`);
    if (n.dir) throw new FsError('is-directory', `${path}: is a directory`);
    return n.data!;
  }

  #parentOf(path: string): void {
    const parent = posix.dirname(path);
    if (parent === '/') throw new FsError('read-only', `${path}: files and directories live under ${ROOTS.map((r) => `/${r}`).join(', ')}`);
    const p = this.#nodes.get(parent);
    if (!p) throw new FsError('not-found', `${parent}: no such directory`);
    if (!p.dir) throw new FsError('not-directory', `${parent}: not a directory`);
  }

  write(path: string, data: Uint8Array): void {
    this.#parentOf(path);
    const existing = this.#nodes.get(path);
    if (existing?.dir) throw new FsError('is-directory', `${path}: is a directory`);
    const delta = data.length - (existing?.data?.length ?? 0);
    if (this.#used + delta > this.capacityBytes) throw new FsError('full', `no space left for ${data.length} bytes`);
    this.#used += delta;
    this.#nodes.set(path, { dir: false, data: new Uint8Array(data), mtime: new Date() });
  }

  mkdir(path: string): void {
    this.#parentOf(path);
    if (this.#nodes.has(path)) throw new FsError('exists', `${path}: already exists`);
    this.#nodes.set(path, { dir: true, mtime: new Date() });
  }

  remove(path: string): void {
    const n = this.#nodes.get(path);
    if (!n) throw new FsError('not-found', `${path}: no such file`);
    if (n.dir) throw new FsError('is-directory', `${path}: is a directory (use RMD)`);
    this.#used -= n.data!.length;
    this.#nodes.delete(path);
  }

  rmdir(path: string): void {
    const n = this.#nodes.get(path);
    if (!n) throw new FsError('not-found', `${path}: no such directory`);
    if (!n.dir) throw new FsError('not-directory', `${path}: not a directory`);
    if (path === '/' || ROOTS.some((r) => `/${r}` === path)) throw new FsError('read-only', `${path}: a root cannot be removed`);
    if (this.list(path).length) throw new FsError('not-empty', `${path}: directory not empty`);
    this.#nodes.delete(path);
  }

  rename(from: string, to: string): void {
    const n = this.#nodes.get(from);
    if (!n) throw new FsError('not-found', `${from}: no such file`);
    if (n.dir) throw new FsError('is-directory', `${from}: renaming directories is not supported`);
    this.#parentOf(to);
    if (this.#nodes.get(to)?.dir) throw new FsError('is-directory', `${to}: is a directory`);
    const old = this.#nodes.get(to);
    if (old?.data) this.#used -= old.data.length;
    this.#nodes.delete(from);
    this.#nodes.set(to, n);
  }
}
