// Atomic file writes: the bytes go to a sibling `.tmp` file which is then renamed over the target,
// so a reader (or a crash) never sees a half-written file.
import { mkdir, rename, rm, open } from 'node:fs/promises';
import { dirname } from 'node:path';

let counter = 0;

export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${counter++}.tmp`;
  try {
    const fh = await open(tmp, 'w', mode);
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
}

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}

