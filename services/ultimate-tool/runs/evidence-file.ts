// Only regular files are evidence. Opening a FIFO for reading blocks until a writer comes, and a
// blocked open() holds one of libuv's four threadpool threads for good: after a few such reads
// every file operation of the process waits behind them (other evidence reads time out, and the
// shutdown on SIGTERM never completes). So an evidence file's type is checked BEFORE it is opened
// (lstat: a symlink is refused too), the open itself cannot block or follow a link
// (O_NOFOLLOW | O_NONBLOCK), the opened descriptor is checked again (fstat: still a regular file,
// the same inode — nothing swapped in between), and reading has a deadline.
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { createHash } from 'node:crypto';

/** How long reading one evidence file may take (a 120 MB capture is hashed well within it). */
export const EVIDENCE_READ_DEADLINE_MS = 60_000;

/** The file is there but is not a regular file (FIFO, socket, device, directory, symlink) or could not be read in time. */
export class EvidenceFileError extends Error {
  override readonly name = 'EvidenceFileError';
  constructor(
    readonly path: string,
    readonly problem: 'not_a_regular_file' | 'read_deadline' | 'replaced',
    message: string,
  ) {
    super(message);
  }
}

export function fileTypeName(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** Opens an evidence file for reading, or throws EvidenceFileError (ENOENT and other errors pass through). */
export async function openEvidenceFile(path: string): Promise<FileHandle> {
  const before = await lstat(path);
  if (!before.isFile())
    throw new EvidenceFileError(path, 'not_a_regular_file', `${path} is ${fileTypeName(before)}, not a regular file: it is not evidence`);
  const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.ino !== before.ino || st.dev !== before.dev)
      throw new EvidenceFileError(path, 'replaced', `${path} was replaced while it was opened: it is not the file that was checked`);
    return fh;
  } catch (e) {
    await fh.close();
    throw e;
  }
}

function deadlineError(path: string, ms: number): EvidenceFileError {
  return new EvidenceFileError(path, 'read_deadline', `reading ${path} took longer than ${ms} ms; it was abandoned`);
}

/** An evidence file's bytes, read within the deadline. */
export async function readEvidenceFile(path: string, deadlineMs: number = EVIDENCE_READ_DEADLINE_MS): Promise<Buffer> {
  const fh = await openEvidenceFile(path);
  try {
    return await fh.readFile({ signal: AbortSignal.timeout(deadlineMs) });
  } catch (e) {
    if ((e as Error).name === 'TimeoutError' || (e as Error).name === 'AbortError') throw deadlineError(path, deadlineMs);
    throw e;
  } finally {
    await fh.close();
  }
}

/** SHA-256 and size of an open evidence file, hashed in chunks (never held whole), within the deadline. */
export async function hashOpenEvidenceFile(
  fh: FileHandle,
  path: string,
  deadlineMs: number = EVIDENCE_READ_DEADLINE_MS,
): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  const buf = Buffer.alloc(1 << 20);
  const end = Date.now() + deadlineMs;
  let size = 0;
  for (;;) {
    if (Date.now() > end) throw deadlineError(path, deadlineMs);
    const { bytesRead } = await fh.read(buf, 0, buf.length, size);
    if (bytesRead === 0) break;
    hash.update(buf.subarray(0, bytesRead));
    size += bytesRead;
  }
  return { sha256: hash.digest('hex'), size };
}

/** SHA-256 and size of an evidence file (opened as above). */
export async function hashEvidenceFile(
  path: string,
  deadlineMs: number = EVIDENCE_READ_DEADLINE_MS,
): Promise<{ sha256: string; size: number }> {
  const fh = await openEvidenceFile(path);
  try {
    return await hashOpenEvidenceFile(fh, path, deadlineMs);
  } finally {
    await fh.close();
  }
}
