// Oversized value_repr/stdout/stderr are cut inline and the full text spilled to a file, so one
// huge print does not flood the client while nothing is lost.
//
// Spill files live outside the server's private temp dir, in a per-user directory
// (default ~/.topup/spill/), because the client reads them after the answer — possibly after
// the server has exited. They are removed by age: every engine start deletes spill files older
// than the retention (default 24 h), whoever wrote them.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes of each field kept inline (UTF-8). 16 KiB: a screenful of output many times over. */
export const DEFAULT_INLINE_CAP = 16 * 1024;
/** How long a spill file is kept: one day, ample for a client to read what it was pointed to. */
export const DEFAULT_SPILL_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The default spill directory for a home directory. */
export function defaultSpillDir(home: string): string {
  return join(home, '.topup', 'spill');
}

export interface Capped {
  text: string;
  /** Path of the spilled text, when the inline text was cut. */
  overflow?: string;
  /** Bytes of output that were discarded (beyond the capture cap, see capture-limit.ts). */
  discarded?: number;
}

/** Longest prefix of `buf` of at most `cap` bytes that does not split a UTF-8 character. */
function utf8Prefix(buf: Buffer, cap: number): Buffer {
  let end = Math.min(cap, buf.length);
  // Step back over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end);
}

/** Spill file names: <pid>-<ms since epoch>-<seq>-<field>.txt (the sweep only touches these). */
const SPILL_NAME = /^\d+-\d+-\d+-(value_repr|stdout|stderr)\.txt$/;

/** Delete spill files older than `retentionMs`; what cannot be read or removed is left alone. */
export function sweepSpillDir(dir: string, retentionMs: number, now = Date.now()): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!SPILL_NAME.test(name)) continue;
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs > retentionMs) {
        rmSync(path, { force: true });
        removed++;
      }
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}

export class Spiller {
  private seq = 0;
  private dirReady = false;
  constructor(
    readonly dir: string,
    readonly cap: number = DEFAULT_INLINE_CAP,
  ) {}

  /**
   * The inline text of one field. `total` is how many bytes the field really had when only its
   * first `content.length` were kept (output past the capture cap `keptCap` was discarded): the
   * note then says how much is gone, and the spill file holds what was kept.
   */
  limit(field: 'value_repr' | 'stdout' | 'stderr', content: string | Buffer, total?: number, keptCap?: number): Capped {
    const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const discarded = Math.max(0, (total ?? buf.length) - buf.length);
    const why = `at most ${keptCap ?? buf.length} bytes of each stream are kept per call`;
    if (buf.length <= this.cap) {
      const text = typeof content === 'string' ? content : buf.toString('utf8');
      if (discarded === 0) return { text };
      return { text: `${text}…[+${discarded} bytes discarded: ${why}]`, discarded };
    }
    const kept = utf8Prefix(buf, this.cap);
    if (!this.dirReady) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.dirReady = true;
    }
    const path = join(this.dir, `${process.pid}-${Date.now()}-${++this.seq}-${field}.txt`);
    writeFileSync(path, buf, { mode: 0o600 });
    const beyond = buf.length - kept.length + discarded;
    if (discarded === 0) return { text: `${kept.toString('utf8')}…[+${beyond} bytes; full at ${path}]`, overflow: path };
    return {
      text: `${kept.toString('utf8')}…[+${beyond} bytes; the first ${buf.length} bytes of the output at ${path}, the last ${discarded} discarded: ${why}]`,
      overflow: path,
      discarded,
    };
  }
}
