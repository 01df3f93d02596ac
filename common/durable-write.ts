// Durable atomic writes: readers (and a crash at any moment) see the old content or the new one,
// never a half-written file. The sequence is write a sibling temp file → fsync it → rename over
// the target → fsync the directory, so the rename itself survives a power loss.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface DurableWriteOptions {
  /** File mode of the new file (default 0600: what we write is the user's own state). */
  mode?: number;
  /** Create missing parent folders (mode 0700). Default true. */
  mkdirs?: boolean;
}

export async function writeFileDurable(path: string, data: string | Uint8Array, options: DurableWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  if (options.mkdirs !== false) await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fh = await open(tmp, 'wx', options.mode ?? 0o600);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await fsyncDirectory(dir);
}

export async function writeJsonDurable(path: string, value: unknown, options: DurableWriteOptions = {}): Promise<void> {
  await writeFileDurable(path, `${JSON.stringify(value, null, 2)}\n`, options);
}

/** fsync a directory so a rename or a new entry in it is on disk. Some filesystems refuse; that is not an error. */
export async function fsyncDirectory(dir: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'EBADF') throw err;
  } finally {
    await fh?.close();
  }
}
