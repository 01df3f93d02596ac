// SHA-256 in lowercase hex, of bytes in memory or of a file streamed from disk (never read whole).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function sha256File(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    const buf = chunk as Buffer;
    size += buf.length;
    hash.update(buf);
  }
  return { sha256: hash.digest('hex'), size };
}
