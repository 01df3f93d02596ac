// Read a file only after checking, by stat, that it is a regular file within the cap: a caller
// never reads (or allocates for) a file it is going to refuse.
import { open } from 'node:fs/promises';

export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError';
  constructor(
    readonly path: string,
    readonly size: number,
    readonly cap: number,
  ) {
    super(`${path} is ${size} bytes; the limit is ${cap} bytes`);
  }
}

export class NotARegularFileError extends Error {
  override readonly name = 'NotARegularFileError';
  constructor(readonly path: string) {
    super(`${path} is not a regular file`);
  }
}

/** Size of a regular file, or throws before anything is read when it is larger than `cap`. */
export async function checkFileSize(path: string, cap: number): Promise<number> {
  const fh = await open(path, 'r');
  try {
    return checkedSize(path, await fh.stat(), cap);
  } finally {
    await fh.close();
  }
}

/** The whole file, read from the same open descriptor whose size was checked (no stat/read race). */
export async function readFileCapped(path: string, cap: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    checkedSize(path, await fh.stat(), cap);
    // Read at most cap + 1 bytes, so a file that grew after the stat is still refused.
    const buf = Buffer.allocUnsafe(cap + 1);
    let total = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, total, buf.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > cap) throw new FileTooLargeError(path, total, cap);
    }
    return buf.subarray(0, total);
  } finally {
    await fh.close();
  }
}

function checkedSize(path: string, st: { isFile(): boolean; size: number }, cap: number): number {
  if (!st.isFile()) throw new NotARegularFileError(path);
  if (st.size > cap) throw new FileTooLargeError(path, st.size, cap);
  return st.size;
}
