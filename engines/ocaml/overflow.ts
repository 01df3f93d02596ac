// Oversized value_repr/stdout/stderr are cut inline and the full text spilled to a file, so one
// huge print does not flood the client while nothing is lost.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes of each field kept inline (UTF-8). 16 KiB: a screenful of output many times over. */
export const DEFAULT_INLINE_CAP = 16 * 1024;

export interface Capped {
  text: string;
  /** Path of the spilled full text, when the inline text was cut. */
  overflow?: string;
}

/** Longest prefix of `buf` of at most `cap` bytes that does not split a UTF-8 character. */
function utf8Prefix(buf: Buffer, cap: number): Buffer {
  let end = Math.min(cap, buf.length);
  // Step back over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end);
}

export class Spiller {
  private seq = 0;
  constructor(
    private readonly dir: string,
    readonly cap: number = DEFAULT_INLINE_CAP,
  ) {}

  limit(field: string, content: string | Buffer): Capped {
    const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    if (buf.length <= this.cap) return { text: typeof content === 'string' ? content : buf.toString('utf8') };
    const kept = utf8Prefix(buf, this.cap);
    const path = join(this.dir, `${Date.now()}-${++this.seq}-${field}.txt`);
    writeFileSync(path, buf, { mode: 0o600 });
    return { text: `${kept.toString('utf8')}…[+${buf.length - kept.length} bytes; full at ${path}]`, overflow: path };
  }
}
